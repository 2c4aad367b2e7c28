//! Conflict detection for three-way patches: does the patch change a field that someone else
//! changed differently since the last apply?

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::values::{GoType, dedupe_scalars, sort_scalars};
use super::{DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, RETAIN_KEYS, SET_ELEMENT_ORDER, element_type};
use crate::merge::error::{AtPath, ErrorKind, MergeError};
use crate::schema::{LookupPatchMeta, Strategy};

/// Whether two patches touch a common field with different values.
pub(super) fn maps_conflict<S: LookupPatchMeta>(
    left: &Map<String, Value>,
    right: &Map<String, Value>,
    schema: &S,
) -> Result<bool, MergeError> {
    for (key, left_value) in left {
        if key == DIRECTIVE
            || key == RETAIN_KEYS
            || key.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            || key.starts_with(SET_ELEMENT_ORDER)
        {
            continue;
        }
        let Some(right_value) = right.get(key) else { continue };
        let conflict = match left_value {
            Value::Array(_) => {
                let (item_schema, meta) = schema.lookup_list(key).at_key(key)?;
                values_conflict(left_value, right_value, &item_schema, meta.strategy, meta.merge_key()).at_key(key)?
            }
            Value::Object(_) => {
                let (field_schema, meta) = schema.lookup_field(key).at_key(key)?;
                values_conflict(left_value, right_value, &field_schema, meta.strategy, meta.merge_key()).at_key(key)?
            }
            scalar => scalar != right_value,
        };
        if conflict {
            return Ok(true);
        }
    }
    Ok(false)
}

fn values_conflict<S: LookupPatchMeta>(
    left: &Value,
    right: &Value,
    schema: &S,
    strategy: Strategy,
    merge_key: &str,
) -> Result<bool, MergeError> {
    match (left, right) {
        (Value::Object(left), Value::Object(right)) => {
            // A directive acts on the whole map: different directives, or one on one side only, conflict.
            if left.get(DIRECTIVE) != right.get(DIRECTIVE) {
                return Ok(true);
            }
            if strategy == Strategy::Replace {
                return Ok(false);
            }
            maps_conflict(left, right, schema)
        }
        (Value::Array(left), Value::Array(right)) => lists_conflict(left, right, schema, strategy, merge_key),
        (Value::Object(_), _) | (Value::Array(_), _) => Ok(true),
        (left, right) => Ok(left != right),
    }
}

fn lists_conflict<S: LookupPatchMeta>(
    left: &[Value],
    right: &[Value],
    item_schema: &S,
    strategy: Strategy,
    merge_key: &str,
) -> Result<bool, MergeError> {
    let kind = match element_type(&[left, right]) {
        Ok(kind) => kind,
        Err(err) if err.kind == ErrorKind::NoElements => return Ok(false),
        Err(err) => return Err(err),
    };
    if strategy == Strategy::Merge {
        // Merged lists of scalars cannot conflict; merged maps conflict element by element.
        if kind != GoType::Map {
            return Ok(false);
        }
        let left = by_merge_key(left, merge_key)?;
        let right = by_merge_key(right, merge_key)?;
        for (key, left_item) in &left {
            if let Some(right_item) = right.get(key)
                && values_conflict(left_item, right_item, item_schema, Strategy::Default, "")?
            {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    if left.len() != right.len() {
        return Ok(true);
    }
    let (left, right) = if kind == GoType::Map {
        (left.to_vec(), right.to_vec())
    } else {
        (sort_scalars(dedupe_scalars(left.to_vec())), sort_scalars(dedupe_scalars(right.to_vec())))
    };
    if left.len() != right.len() {
        return Ok(true);
    }
    for (index, (left_item, right_item)) in left.iter().zip(&right).enumerate() {
        if values_conflict(left_item, right_item, item_schema, Strategy::Default, "").at_index(index)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn by_merge_key<'a>(list: &'a [Value], merge_key: &str) -> Result<HashMap<&'a Value, &'a Value>, MergeError> {
    let mut keyed = HashMap::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let map = item.as_object().ok_or_else(|| super::order::wrong_type("a map", item)).at_index(index)?;
        let key = map.get(merge_key).ok_or_else(|| super::order::missing_merge_key(merge_key, item)).at_index(index)?;
        keyed.insert(key, item);
    }
    Ok(keyed)
}
