//! Applying a patch to a document, and merging two patches into one (for three-way patches).

use serde_json::{Map, Value};

use super::aliasing::{SharedList, decoded_capacity};
use super::order::{Order, missing_merge_key, normalize_element_order, partition_by_presence, wrong_type};
use super::values::{GoType, dedupe_in_place, go_type, identity};
use super::{
    DELETE, DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, MERGE, REPLACE, RETAIN_KEYS, SET_ELEMENT_ORDER, element_type,
};
use crate::gocompat::fmt::value_text;
use crate::merge::error::{AtPath, ErrorKind, MergeError, brief};
use crate::schema::{LookupPatchMeta, Strategy};

/// How directives are treated.
#[derive(Debug, Clone, Copy)]
pub(super) struct MergeOptions {
    /// Carry out `$deleteFromPrimitiveList` and `$retainKeys` (applying), rather than keeping them
    /// in the result (merging two patches into one).
    pub merge_parallel_list: bool,
    /// Drop `null`s that match nothing in the original (applying), rather than keeping them as
    /// deletions to send (merging two patches).
    pub ignore_unmatched_nulls: bool,
}

/// Merges `patch` into `original`.
pub(super) fn merge_map<S: LookupPatchMeta>(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    schema: &S,
    options: MergeOptions,
) -> Result<Map<String, Value>, MergeError> {
    if let Some(directive) = patch.get(DIRECTIVE) {
        return match directive.as_str() {
            Some(REPLACE) => {
                patch.remove(DIRECTIVE);
                Ok(patch)
            }
            Some(DELETE) => Ok(Map::new()),
            _ => Err(unknown_directive(directive, &patch)),
        };
    }
    apply_retain_keys(&mut original, &mut patch, options)?;
    merge_element_orders(&mut original, &mut patch, schema, options)?;
    for (key, value) in patch {
        merge_entry(&mut original, &key, value, schema, options).at_key(field_of(&key))?;
    }
    Ok(original)
}

/// The field a key names, without a directive prefix.
fn field_of(key: &str) -> &str {
    key.split_once('/').filter(|(prefix, _)| prefix.starts_with('$')).map_or(key, |(_, field)| field)
}

fn merge_entry<S: LookupPatchMeta>(
    original: &mut Map<String, Value>,
    key: &str,
    value: Value,
    schema: &S,
    options: MergeOptions,
) -> Result<(), MergeError> {
    let (key, is_delete_list) = match key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
        Some(_) if !options.merge_parallel_list => {
            original.insert(key.to_string(), value);
            return Ok(());
        }
        Some(rest) => (rest.strip_prefix('/').ok_or(ErrorKind::BadDeleteFromPrimitiveList)?, true),
        None => (key, false),
    };
    if value.is_null() {
        original.remove(key);
        if options.ignore_unmatched_nulls {
            return Ok(());
        }
    }
    let Some(current) = original.get_mut(key) else {
        if !is_delete_list {
            set_without_directives(original, key, value, options);
        }
        return Ok(());
    };
    if go_type(current) != go_type(&value) {
        if !is_delete_list {
            set_without_directives(original, key, value, options);
        }
        return Ok(());
    }
    match (current, value) {
        (Value::Object(current), Value::Object(patch)) => {
            let (field_schema, meta) = schema.lookup_field(key)?;
            *current = if meta.strategy == Strategy::Replace {
                patch
            } else {
                merge_map(std::mem::take(current), patch, &field_schema, options)?
            };
        }
        (Value::Array(current), Value::Array(patch)) => {
            let (item_schema, meta) = schema.lookup_list(key)?;
            *current = if meta.strategy == Strategy::Merge || is_delete_list {
                merge_list(std::mem::take(current), patch, &item_schema, meta.merge_key(), options, is_delete_list)?
                    .items
            } else {
                patch
            };
        }
        (_, value) => set_without_directives(original, key, value, options),
    }
    Ok(())
}

/// Sets a value the original did not have (or had with another type), cleaned of directives and,
/// when applying, of `null`s.
fn set_without_directives(original: &mut Map<String, Value>, key: &str, mut value: Value, options: MergeOptions) {
    if options.ignore_unmatched_nulls {
        discard_nulls(&mut value);
    }
    match remove_directives(value) {
        Some(value) => original.insert(key.to_string(), value),
        None => original.remove(key),
    };
}

fn discard_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, value| !value.is_null());
            map.values_mut().for_each(discard_nulls);
        }
        Value::Array(list) => list.iter_mut().for_each(discard_nulls),
        _ => {}
    }
}

/// The value without maps that carry `$patch`; `None` when the value itself is such a map.
fn remove_directives(value: Value) -> Option<Value> {
    match value {
        Value::Object(map) if map.contains_key(DIRECTIVE) => None,
        Value::Object(map) => Some(Value::Object(
            map.into_iter().filter_map(|(key, value)| Some((key, remove_directives(value)?))).collect(),
        )),
        Value::Array(list) => Some(Value::Array(list.into_iter().filter_map(remove_directives).collect())),
        scalar => Some(scalar),
    }
}

fn unknown_directive(directive: &Value, map: &Map<String, Value>) -> MergeError {
    ErrorKind::UnknownDirective {
        directive: value_text(directive).into_owned(),
        map: brief(&Value::Object(map.clone())),
    }
    .into()
}

/// `$retainKeys`: when applying, clears the original's keys the list does not name; when merging
/// two patches, carries the list over (the two must agree).
fn apply_retain_keys(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    options: MergeOptions,
) -> Result<(), MergeError> {
    let Some(retain) = patch.remove(RETAIN_KEYS) else { return Ok(()) };
    if !options.merge_parallel_list {
        match original.get(RETAIN_KEYS) {
            Some(existing) if *existing != retain => {
                return Err(ErrorKind::RetainKeysMismatch(existing.to_string(), retain.to_string()).into());
            }
            Some(_) => {}
            None => {
                original.insert(RETAIN_KEYS.to_string(), retain);
            }
        }
        return Ok(());
    }
    let keys = retain.as_array().ok_or(ErrorKind::BadRetainKeys)?;
    let retained = |key: &str| keys.iter().any(|retained| retained.as_str() == Some(key));
    let outside = patch.iter().any(|(key, value)| {
        !value.is_null()
            && !key.starts_with(DELETE_FROM_PRIMITIVE_LIST)
            && !key.starts_with(SET_ELEMENT_ORDER)
            && !retained(key)
    });
    if outside {
        return Err(ErrorKind::BadRetainKeys.into());
    }
    original.retain(|key, _| retained(key));
    Ok(())
}

/// `$setElementOrder/<field>`: merges the field's list (when the patch has it) and orders the
/// result: the directive's order first, then the live order for items only the server has.
fn merge_element_orders<S: LookupPatchMeta>(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    schema: &S,
    options: MergeOptions,
) -> Result<(), MergeError> {
    let directives: Vec<String> = patch.keys().filter(|key| key.starts_with(SET_ELEMENT_ORDER)).cloned().collect();
    for directive in directives {
        let order = patch.remove(&directive).expect("the key was just listed");
        if !options.merge_parallel_list {
            match original.get(&directive) {
                Some(existing) if *existing != order => return Err(ErrorKind::BadSetElementOrder.into()),
                Some(_) => {}
                None => {
                    original.insert(directive.clone(), order.clone());
                }
            }
        }
        let field = directive
            .strip_prefix(SET_ELEMENT_ORDER)
            .and_then(|rest| rest.strip_prefix('/'))
            .ok_or(ErrorKind::BadSetElementOrder)?;
        order_field(original, patch, field, &order, schema, options).at_key(field)?;
    }
    Ok(())
}

fn order_field<S: LookupPatchMeta>(
    original: &mut Map<String, Value>,
    patch: &mut Map<String, Value>,
    field: &str,
    order: &Value,
    schema: &S,
    options: MergeOptions,
) -> Result<(), MergeError> {
    let order = order.as_array().ok_or_else(|| wrong_type("a list", order))?;
    let original_list = take_list(original, field)?;
    let patch_list = take_list(patch, field)?;
    let (item_schema, meta) = schema.lookup_list(field)?;
    let merge_key = meta.merge_key();
    validate_patch_order(patch_list.as_deref().unwrap_or_default(), order, merge_key)?;
    let kind = element_type(&[original_list.as_deref().unwrap_or_default(), patch_list.as_deref().unwrap_or_default()]);
    // Items only the server has keep the live order, as the live list reads after the merge.
    let (merged, live_order) = match (original_list, patch_list) {
        (Some(original_list), None) => {
            let live = original_list.iter().map(|item| identity(item, merge_key).clone()).collect();
            (original_list, live)
        }
        (None, Some(patch_list)) => (patch_list.into_iter().filter_map(remove_directives).collect(), Vec::new()),
        (Some(original_list), Some(patch_list)) if meta.strategy == Strategy::Merge => {
            let merged = merge_list(original_list, patch_list, &item_schema, merge_key, options, false)?;
            (merged.items, merged.live_view)
        }
        (Some(original_list), Some(patch_list)) => {
            let live = original_list.iter().map(|item| identity(item, merge_key).clone()).collect();
            (patch_list, live)
        }
        (None, None) => return Ok(()),
    };
    let kind = kind?;
    let present = Order::of(order, merge_key, kind)?;
    let server_order = Order::of_identities(&live_order, merge_key);
    let (patch_items, server_only) = partition_by_presence(merged, &present)?;
    let ordered = normalize_element_order(patch_items, server_only, &present, &server_order, kind)?;
    original.insert(field.to_string(), Value::Array(ordered));
    Ok(())
}

fn take_list(map: &mut Map<String, Value>, field: &str) -> Result<Option<Vec<Value>>, MergeError> {
    match map.remove(field) {
        None => Ok(None),
        Some(Value::Array(list)) => Ok(Some(list)),
        Some(other) => Err(wrong_type("a list", &other)),
    }
}

/// Every item of the patch list (deletions aside) must appear in `$setElementOrder`, in the same order.
fn validate_patch_order(patch: &[Value], order: &[Value], merge_key: &str) -> Result<(), MergeError> {
    if order.is_empty() || patch.is_empty() {
        return Ok(());
    }
    let kept: Vec<&Value> = if merge_key.is_empty() {
        patch.iter().collect()
    } else {
        let mut kept = Vec::with_capacity(patch.len());
        for item in patch {
            let map = item.as_object().ok_or_else(|| wrong_type("a map", item))?;
            if map.get(DIRECTIVE).and_then(Value::as_str) != Some(DELETE) {
                kept.push(item);
            }
        }
        kept
    };
    let (mut p, mut o) = (0, 0);
    while p < kept.len() && o < order.len() {
        if kept[p].get(DIRECTIVE).is_some() {
            p += 1;
            continue;
        }
        if same_identity(kept[p], &order[o], merge_key)? {
            p += 1;
        }
        o += 1;
    }
    if p < kept.len() {
        return Err(ErrorKind::OrderMismatch {
            patch: brief(&Value::Array(patch.to_vec())),
            order: brief(&Value::Array(order.to_vec())),
        }
        .into());
    }
    Ok(())
}

fn same_identity(left: &Value, right: &Value, merge_key: &str) -> Result<bool, MergeError> {
    if merge_key.is_empty() {
        return Ok(left == right);
    }
    let key_of = |item: &Value| -> Result<Value, MergeError> {
        let map = item.as_object().ok_or_else(|| wrong_type("a map", item))?;
        map.get(merge_key).cloned().ok_or_else(|| missing_merge_key(merge_key, item))
    };
    Ok(key_of(left)? == key_of(right)?)
}

/// A merged list, and the live list as Kubernetes' caller reads it afterwards (see [`super::aliasing`]).
struct MergedList {
    items: Vec<Value>,
    live_view: Vec<Value>,
}

/// Merges a patch list into a list with the merge strategy.
fn merge_list<S: LookupPatchMeta>(
    original: Vec<Value>,
    patch: Vec<Value>,
    item_schema: &S,
    merge_key: &str,
    options: MergeOptions,
    is_delete_list: bool,
) -> Result<MergedList, MergeError> {
    if original.is_empty() && patch.is_empty() {
        return Ok(MergedList { items: original, live_view: Vec::new() });
    }
    let kind = element_type(&[&original, &patch])?;
    if kind != GoType::Map {
        let delete = options.merge_parallel_list && is_delete_list;
        return merge_scalars(original, patch, merge_key, kind, delete);
    }
    if merge_key.is_empty() {
        return Err(ErrorKind::NoMergeKey(item_schema.name()).into());
    }
    let mut live = SharedList::new(original.iter().map(|item| identity(item, merge_key).clone()).collect());
    let (original, patch) = apply_list_directives(original, patch, merge_key, &mut live)?;
    let patch_order = Order::of(&patch, merge_key, kind)?;
    let server_order = Order::of(&original, merge_key, kind)?;
    let merged = merge_maps_by_key(original, patch, merge_key, item_schema, options, &mut live)?;
    let (patch_items, server_only) = partition_by_presence(merged, &patch_order)?;
    let items = normalize_element_order(patch_items, server_only, &patch_order, &server_order, kind)?;
    Ok(MergedList { items, live_view: live.into_view() })
}

/// Merges lists of scalars: the union without repeats, or the list without `delete`'s items.
fn merge_scalars(
    original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
    kind: GoType,
    delete: bool,
) -> Result<MergedList, MergeError> {
    if delete {
        let live_view = original.clone();
        return Ok(MergedList { items: delete_from_list(original, &patch), live_view });
    }
    let patch_order = Order::of(&patch, merge_key, kind)?;
    let visible = original.len();
    // When the live list has room for the patch, Go deduplicates inside the live array itself.
    let shared = visible + patch.len() <= decoded_capacity(visible);
    let untouched = if shared { Vec::new() } else { original.clone() };
    let mut both = original;
    both.extend(patch);
    let len = dedupe_in_place(&mut both);
    let live_view = if shared { both[..visible].to_vec() } else { untouched };
    both.truncate(len);
    let server_order = Order::of(&live_view, merge_key, kind)?;
    let (patch_items, server_only) = partition_by_presence(both, &patch_order)?;
    let items = normalize_element_order(patch_items, server_only, &patch_order, &server_order, kind)?;
    Ok(MergedList { items, live_view })
}

/// Carries out `$patch` items of a list of maps: `delete` removes every element with that merge
/// key; `replace` makes the rest of the patch the whole list.
fn apply_list_directives(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
    live: &mut SharedList,
) -> Result<(Vec<Value>, Vec<Value>), MergeError> {
    let mut plain = Vec::with_capacity(patch.len());
    let mut replace = false;
    for (index, item) in patch.into_iter().enumerate() {
        let Some(directive) = item.get(DIRECTIVE) else {
            plain.push(item);
            continue;
        };
        match directive.as_str() {
            Some(DELETE) => {
                let key = item.get(merge_key).ok_or_else(|| missing_merge_key(merge_key, &item)).at_index(index)?;
                while let Some(position) = position_by_key(&original, merge_key, key)? {
                    original.remove(position);
                    live.remove(position);
                }
            }
            Some(REPLACE) => replace = true,
            Some(MERGE) => return Err(ErrorKind::MergeDirectiveInList.into()),
            _ => {
                return Err(unknown_directive(directive, item.as_object().expect("lists of maps hold maps")))
                    .at_index(index);
            }
        }
    }
    if replace {
        live.detach();
        return Ok((plain, Vec::new()));
    }
    Ok((original, plain))
}

/// The position of the first map whose merge key has the value `key`.
fn position_by_key(list: &[Value], merge_key: &str, key: &Value) -> Result<Option<usize>, MergeError> {
    for (position, element) in list.iter().enumerate() {
        let map = element.as_object().ok_or_else(|| wrong_type("a map", element)).at_index(position)?;
        if map.get(merge_key) == Some(key) {
            return Ok(Some(position));
        }
    }
    Ok(None)
}

/// Merges each patch map into the original map with the same merge key, or appends it.
fn merge_maps_by_key<S: LookupPatchMeta>(
    mut original: Vec<Value>,
    patch: Vec<Value>,
    merge_key: &str,
    item_schema: &S,
    options: MergeOptions,
    live: &mut SharedList,
) -> Result<Vec<Value>, MergeError> {
    for (index, item) in patch.into_iter().enumerate() {
        let Value::Object(item) = item else { return Err(wrong_type("a map", &item)).at_index(index) };
        let Some(key) = item.get(merge_key) else {
            return Err(missing_merge_key(merge_key, &Value::Object(item))).at_index(index);
        };
        match position_by_key(&original, merge_key, key)? {
            Some(position) => {
                let Value::Object(element) = std::mem::take(&mut original[position]) else {
                    unreachable!("checked above")
                };
                original[position] = Value::Object(merge_map(element, item, item_schema, options).at_index(position)?);
            }
            None => {
                live.push(key.clone());
                original.push(Value::Object(item));
            }
        }
    }
    Ok(original)
}

/// Removes every scalar that `$deleteFromPrimitiveList` names.
fn delete_from_list(list: Vec<Value>, delete: &[Value]) -> Vec<Value> {
    list.into_iter().filter(|item| !delete.contains(item)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn removing_directives_drops_maps_that_carry_them() {
        let value = json!({"a": {"$patch": "delete"}, "b": [1, {"$patch": "replace"}, {"c": null}]});
        assert_eq!(remove_directives(value), Some(json!({"b": [1, {"c": null}]})));
    }

    #[test]
    fn field_names_lose_their_directive_prefix() {
        assert_eq!(field_of("$setElementOrder/containers"), "containers");
        assert_eq!(field_of("containers"), "containers");
        assert_eq!(field_of("app.kubernetes.io/name"), "app.kubernetes.io/name");
    }
}
