//! Creating a patch from two documents: what changed from `original` to `modified`.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::order::{Order, missing_merge_key, normalize_slice_order, same_order, wrong_type};
use super::values::{GoType, dedupe_scalars, go_type, sort_scalars};
use super::{DELETE, DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, RETAIN_KEYS, SET_ELEMENT_ORDER, element_type};
use crate::gocompat::fmt::value_text;
use crate::merge::error::{AtPath, ErrorKind, MergeError};
use crate::schema::{LookupPatchMeta, Strategy};

/// Which parts of the difference to keep.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct DiffOptions {
    /// Emit `$setElementOrder` lists for merged lists.
    pub set_element_order: bool,
    /// Leave out additions and changes (keep only deletions).
    pub ignore_changes_and_additions: bool,
    /// Leave out deletions.
    pub ignore_deletions: bool,
    /// Emit `$retainKeys` for this map (its field has the retainKeys strategy).
    pub build_retain_keys: bool,
}

/// The patch that turns `original` into `modified`.
///
/// Both maps iterate in key order (serde_json's map is a `BTreeMap`), so one merge-join pass pairs
/// their entries without lookups.
pub(super) fn diff_maps<S: LookupPatchMeta>(
    original: &Map<String, Value>,
    modified: &Map<String, Value>,
    schema: &S,
    options: DiffOptions,
) -> Result<Map<String, Value>, MergeError> {
    let mut patch = Map::new();
    let mut retain_keys = Vec::new();
    let mut original_has_more = false;
    let mut originals = original.iter().peekable();
    for (key, modified_value) in modified {
        while let Some((removed, value)) = originals.next_if(|(other, _)| *other < key) {
            original_has_more |= !value.is_null();
            if !options.ignore_deletions {
                patch.insert(removed.clone(), Value::Null);
            }
        }
        if options.build_retain_keys && !modified_value.is_null() {
            retain_keys.push(Value::String(key.clone()));
        }
        let Some((_, original_value)) = originals.next_if(|(other, _)| *other == key) else {
            if !options.ignore_changes_and_additions {
                patch.insert(key.clone(), modified_value.clone());
            }
            continue;
        };
        diff_entry(key, original_value, modified_value, &mut patch, schema, options)?;
    }
    for (removed, value) in originals {
        original_has_more |= !value.is_null();
        if !options.ignore_deletions {
            patch.insert(removed.clone(), Value::Null);
        }
    }
    if !retain_keys.is_empty() && (!patch.is_empty() || original_has_more) {
        patch.insert(RETAIN_KEYS.to_string(), Value::Array(sort_scalars(retain_keys)));
    }
    Ok(patch)
}

/// Adds to `patch` what changed in one key present on both sides.
fn diff_entry<S: LookupPatchMeta>(
    key: &str,
    original_value: &Value,
    modified_value: &Value,
    patch: &mut Map<String, Value>,
    schema: &S,
    options: DiffOptions,
) -> Result<(), MergeError> {
    if key == DIRECTIVE {
        return match (original_value.as_str(), modified_value.as_str()) {
            (Some(before), Some(after)) => {
                if before != after {
                    patch.insert(key.to_string(), modified_value.clone());
                }
                Ok(())
            }
            _ => Err(ErrorKind::InvalidDirectiveValue.into()),
        };
    }
    if go_type(original_value) != go_type(modified_value) {
        if !options.ignore_changes_and_additions {
            patch.insert(key.to_string(), modified_value.clone());
        }
        return Ok(());
    }
    match (original_value, modified_value) {
        (Value::Object(before), Value::Object(after)) => {
            diff_map_field(key, before, after, patch, schema, options).at_key(key)
        }
        (Value::Array(before), Value::Array(after)) => {
            diff_list_field(key, before, after, patch, schema, options).at_key(key)
        }
        _ => {
            replace_if_changed(key, original_value, modified_value, patch, options);
            Ok(())
        }
    }
}

fn diff_map_field<S: LookupPatchMeta>(
    key: &str,
    original: &Map<String, Value>,
    modified: &Map<String, Value>,
    patch: &mut Map<String, Value>,
    schema: &S,
    options: DiffOptions,
) -> Result<(), MergeError> {
    let (field_schema, meta) = match schema.lookup_field(key) {
        Ok(found) => found,
        // Without metadata nothing can be said, unless nothing changed.
        Err(_) if original == modified => return Ok(()),
        Err(err) => return Err(err.into()),
    };
    let options = DiffOptions { build_retain_keys: meta.retain_keys, ..options };
    if meta.strategy == Strategy::Replace {
        if !options.ignore_changes_and_additions {
            patch.insert(key.to_string(), Value::Object(modified.clone()));
        }
        return Ok(());
    }
    let field_patch = diff_maps(original, modified, &field_schema, options)?;
    if !field_patch.is_empty() {
        patch.insert(key.to_string(), Value::Object(field_patch));
    }
    Ok(())
}

fn diff_list_field<S: LookupPatchMeta>(
    key: &str,
    original: &[Value],
    modified: &[Value],
    patch: &mut Map<String, Value>,
    schema: &S,
    options: DiffOptions,
) -> Result<(), MergeError> {
    let (item_schema, meta) = match schema.lookup_list(key) {
        Ok(found) => found,
        Err(_) if original == modified => return Ok(()),
        Err(err) => return Err(err.into()),
    };
    if meta.strategy != Strategy::Merge {
        replace_list_if_changed(key, original, modified, patch, options);
        return Ok(());
    }
    let options = DiffOptions { build_retain_keys: meta.retain_keys, ..options };
    let lists = diff_lists(original, modified, &item_schema, meta.merge_key(), options)?;
    if !lists.changes.is_empty() {
        patch.insert(key.to_string(), Value::Array(lists.changes));
    }
    if !lists.deletions.is_empty() {
        patch.insert(format!("{DELETE_FROM_PRIMITIVE_LIST}/{key}"), Value::Array(lists.deletions));
    }
    if !lists.order.is_empty() {
        patch.insert(format!("{SET_ELEMENT_ORDER}/{key}"), Value::Array(lists.order));
    }
    Ok(())
}

fn replace_if_changed(
    key: &str,
    original: &Value,
    modified: &Value,
    patch: &mut Map<String, Value>,
    options: DiffOptions,
) {
    if !options.ignore_changes_and_additions && original != modified {
        patch.insert(key.to_string(), modified.clone());
    }
}

fn replace_list_if_changed(
    key: &str,
    original: &[Value],
    modified: &[Value],
    patch: &mut Map<String, Value>,
    options: DiffOptions,
) {
    if !options.ignore_changes_and_additions && original != modified {
        patch.insert(key.to_string(), Value::Array(modified.to_vec()));
    }
}

/// The patch of a merged list: changed and added items (with `$patch: delete` items for removed
/// maps), removed scalars for `$deleteFromPrimitiveList`, and the new order for `$setElementOrder`.
struct ListDiff {
    changes: Vec<Value>,
    deletions: Vec<Value>,
    order: Vec<Value>,
}

fn diff_lists<S: LookupPatchMeta>(
    original: &[Value],
    modified: &[Value],
    item_schema: &S,
    merge_key: &str,
    options: DiffOptions,
) -> Result<ListDiff, MergeError> {
    let mut diff = ListDiff { changes: Vec::new(), deletions: Vec::new(), order: Vec::new() };
    if original.is_empty() {
        if !modified.is_empty() && !options.ignore_changes_and_additions {
            diff.changes = modified.to_vec();
        }
        return Ok(diff);
    }
    match element_type(&[original, modified])? {
        GoType::Map => {
            let (changes, deletions) = diff_lists_of_maps(original, modified, item_schema, merge_key, options)?;
            let order = Order::of(modified, merge_key, GoType::Map)?;
            let mut changes = normalize_slice_order(changes, &order, GoType::Map)?;
            let order_same = same_order(original, modified, merge_key)?;
            changes.extend(deletions);
            let changed = !changes.is_empty();
            if options.set_element_order
                && ((!options.ignore_changes_and_additions && (changed || !order_same))
                    || (!options.ignore_deletions && changed))
            {
                diff.order = modified
                    .iter()
                    .map(|item| {
                        let mut entry = Map::new();
                        entry.insert(merge_key.to_string(), item.get(merge_key).cloned().unwrap_or(Value::Null));
                        Value::Object(entry)
                    })
                    .collect();
            }
            diff.changes = changes;
        }
        GoType::List => return Err(ErrorKind::ListOfLists.into()),
        kind => {
            let (additions, deletions) = diff_lists_of_scalars(original, modified, options);
            diff.changes = normalize_slice_order(additions, &Order::of(modified, merge_key, kind)?, kind)?;
            // Kubernetes sorts `original` in place before this comparison, so an unchanged list
            // that is not in sorted order still gets its order sent.
            if options.set_element_order
                && ((!options.ignore_deletions && !deletions.is_empty())
                    || (!options.ignore_changes_and_additions && sort_scalars(original.to_vec()) != modified))
            {
                diff.order = modified.to_vec();
            }
            diff.deletions = deletions;
        }
    }
    Ok(diff)
}

/// Walks both lists sorted by `%v` text: additions from `modified`, deletions from `original`.
fn diff_lists_of_scalars(original: &[Value], modified: &[Value], options: DiffOptions) -> (Vec<Value>, Vec<Value>) {
    let original = sort_scalars(original.to_vec());
    let modified = sort_scalars(modified.to_vec());
    let mut additions = Vec::new();
    let mut deletions = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < original.len() || j < modified.len() {
        let step = match (original.get(i), modified.get(j)) {
            (Some(before), Some(after)) => value_text(before).cmp(&value_text(after)),
            (None, _) => std::cmp::Ordering::Greater,
            (_, None) => std::cmp::Ordering::Less,
        };
        match step {
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Greater => {
                if !options.ignore_changes_and_additions {
                    additions.push(modified[j].clone());
                }
                j += 1;
            }
            std::cmp::Ordering::Less => {
                if !options.ignore_deletions {
                    deletions.push(original[i].clone());
                }
                i += 1;
            }
        }
    }
    (additions, dedupe_scalars(deletions))
}

/// Walks both lists sorted by merge key: recursive patches for kept maps, added maps whole, and
/// `{mergeKey: value, $patch: delete}` for removed ones (returned apart).
fn diff_lists_of_maps<S: LookupPatchMeta>(
    original: &[Value],
    modified: &[Value],
    item_schema: &S,
    merge_key: &str,
    options: DiffOptions,
) -> Result<(Vec<Value>, Vec<Value>), MergeError> {
    let original = sorted_by_merge_key(original, merge_key)?;
    let modified = sorted_by_merge_key(modified, merge_key)?;
    let mut changes = Vec::with_capacity(modified.len());
    let mut deletions = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < original.len() || j < modified.len() {
        let step = match (original.get(i), modified.get(j)) {
            (Some(before), Some(after)) => before.key_text.cmp(&after.key_text),
            (None, _) => std::cmp::Ordering::Greater,
            (_, None) => std::cmp::Ordering::Less,
        };
        match step {
            std::cmp::Ordering::Equal => {
                let (before, after) = (&original[i], &modified[j]);
                let mut patch = diff_maps(before.map, after.map, item_schema, options).at_index(after.index)?;
                if !patch.is_empty() {
                    patch.insert(merge_key.to_string(), after.key.clone());
                    changes.push(Value::Object(patch));
                }
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Greater => {
                if !options.ignore_changes_and_additions {
                    changes.push(Value::Object(modified[j].map.clone()));
                }
                j += 1;
            }
            std::cmp::Ordering::Less => {
                if !options.ignore_deletions {
                    let mut deletion = Map::new();
                    deletion.insert(merge_key.to_string(), original[i].key.clone());
                    deletion.insert(DIRECTIVE.to_string(), Value::String(DELETE.to_string()));
                    deletions.push(Value::Object(deletion));
                }
                i += 1;
            }
        }
    }
    Ok((changes, deletions))
}

/// A map of a merged list, with its merge key's value and its position in the list.
struct Keyed<'a> {
    map: &'a Map<String, Value>,
    key: &'a Value,
    key_text: Cow<'a, str>,
    index: usize,
}

fn sorted_by_merge_key<'a>(list: &'a [Value], merge_key: &str) -> Result<Vec<Keyed<'a>>, MergeError> {
    let mut keyed = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let map = item.as_object().ok_or_else(|| wrong_type("a map", item)).at_index(index)?;
        let key = map.get(merge_key).ok_or_else(|| missing_merge_key(merge_key, item)).at_index(index)?;
        keyed.push(Keyed { map, key, key_text: value_text(key), index });
    }
    // Kubernetes' sort treats equal keys as "less", which puts repeated keys in reverse order.
    keyed.sort_by(|a, b| a.key_text.cmp(&b.key_text).then(b.index.cmp(&a.index)));
    Ok(keyed)
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use crate::merge::strategic;
    use crate::schema::builtin;

    #[test]
    fn reordering_only_a_merged_list_of_scalars_yields_no_patch_as_in_kubernetes() {
        // Kubernetes sorts the original list in place before comparing it with the new one.
        let deployment = builtin().for_kind("apps/v1", "Deployment").unwrap();
        let original = json!({"metadata": {"finalizers": ["b", "a"]}});
        let reordered = json!({"metadata": {"finalizers": ["a", "b"]}});
        assert_eq!(strategic::create_two_way(&original, &reordered, &deployment).unwrap(), json!({}));
        let grown = json!({"metadata": {"finalizers": ["a", "c", "b"]}});
        let patch = strategic::create_two_way(&original, &grown, &deployment).unwrap();
        assert_eq!(patch, json!({"metadata": {"$setElementOrder/finalizers": ["a", "c", "b"], "finalizers": ["c"]}}));
    }

    #[test]
    fn maps_iterate_in_key_order() {
        // diff_maps pairs entries by walking both maps in order; serde_json's `preserve_order`
        // feature would break that.
        let map: Map<String, Value> =
            [("b", 1), ("a", 2), ("c", 3)].iter().map(|(k, v)| (k.to_string(), Value::from(*v))).collect();
        assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    }
}
