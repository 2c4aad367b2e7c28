//! Kubernetes strategic merge patch: lists merge by `patchMergeKey`, directives (`$patch`,
//! `$retainKeys`, `$deleteFromPrimitiveList`, `$setElementOrder`) both created and honoured, with
//! the same patches and results as Kubernetes' own implementation.

mod aliasing;
mod apply;
mod conflict;
mod diff;
mod order;
mod values;

use std::borrow::Cow;

use serde_json::{Map, Value};

use self::apply::{MergeOptions, merge_map};
use self::diff::{DiffOptions, diff_maps};
use self::values::{GoType, go_type};
use super::error::{ErrorKind, MergeError, brief};
use crate::schema::LookupPatchMeta;

const DIRECTIVE: &str = "$patch";
const DELETE: &str = "delete";
const REPLACE: &str = "replace";
const MERGE: &str = "merge";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

/// Applies a strategic merge patch to `original`, as the API server does.
pub fn apply<S: LookupPatchMeta>(original: Value, patch: Value, schema: &S) -> Result<Value, MergeError> {
    let options = MergeOptions { merge_parallel_list: true, ignore_unmatched_nulls: true };
    merge_map(into_map(original, "original")?, into_map(patch, "patch")?, schema, options).map(Value::Object)
}

/// The patch that turns `original` into `modified`.
pub fn create_two_way<S: LookupPatchMeta>(original: &Value, modified: &Value, schema: &S) -> Result<Value, MergeError> {
    let options = DiffOptions { set_element_order: true, ..DiffOptions::default() };
    let (original, modified) = (as_map(original, "original")?, as_map(modified, "modified")?);
    diff_maps(&original, &modified, schema, options).map(Value::Object)
}

/// The patch `kubectl apply` sends: the changes from `current` (the live object) to `modified`
/// (the new configuration), without deletions, plus the deletions from `original` (the last
/// applied configuration) to `modified`. Unless `overwrite`, a field that the patch changes and
/// that was changed differently from `original` to `current` is a conflict.
pub fn create_three_way<S: LookupPatchMeta>(
    original: &Value,
    modified: &Value,
    current: &Value,
    schema: &S,
    overwrite: bool,
) -> Result<Value, MergeError> {
    let (original, modified, current) =
        (as_map(original, "original")?, as_map(modified, "modified")?, as_map(current, "current")?);
    let additions = DiffOptions { set_element_order: true, ignore_deletions: true, ..DiffOptions::default() };
    let delta = diff_maps(&current, &modified, schema, additions)?;
    let removals =
        DiffOptions { set_element_order: true, ignore_changes_and_additions: true, ..DiffOptions::default() };
    let deletions = diff_maps(&original, &modified, schema, removals)?;
    let combine = MergeOptions { merge_parallel_list: false, ignore_unmatched_nulls: false };
    let patch = merge_map(deletions, delta, schema, combine)?;
    if !overwrite {
        let changed = diff_maps(&original, &current, schema, DiffOptions::default())?;
        if conflict::maps_conflict(&patch, &changed, schema)? {
            return Err(ErrorKind::Conflict { patch: yaml(&patch), changed: yaml(&changed) }.into());
        }
    }
    Ok(Value::Object(patch))
}

fn yaml(map: &Map<String, Value>) -> String {
    serde_saphyr::to_string(map).unwrap_or_else(|_| Value::Object(map.clone()).to_string())
}

fn into_map(value: Value, what: &str) -> Result<Map<String, Value>, MergeError> {
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(not_an_object(what, &other)),
    }
}

fn as_map<'a>(value: &'a Value, what: &str) -> Result<Cow<'a, Map<String, Value>>, MergeError> {
    match value {
        Value::Object(map) => Ok(Cow::Borrowed(map)),
        Value::Null => Ok(Cow::Owned(Map::new())),
        other => Err(not_an_object(what, other)),
    }
}

fn not_an_object(what: &str, value: &Value) -> MergeError {
    ErrorKind::InvalidDocument(format!("the {what} document is not a JSON object: {}", brief(value))).into()
}

/// The one type of all items of the lists; lists of lists are not supported.
fn element_type(lists: &[&[Value]]) -> Result<GoType, MergeError> {
    let mut items = lists.iter().flat_map(|list| list.iter());
    let first = items.next().ok_or(ErrorKind::NoElements)?;
    let kind = go_type(first);
    if kind == GoType::List {
        return Err(ErrorKind::ListOfLists.into());
    }
    if items.any(|item| go_type(item) != kind) {
        let lists: Vec<Value> = lists.iter().map(|list| Value::Array(list.to_vec())).collect();
        return Err(ErrorKind::MixedElementTypes(brief(&Value::Array(lists))).into());
    }
    Ok(kind)
}
