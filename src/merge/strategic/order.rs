//! The order of merged lists: `$setElementOrder` first, then the order in the patch, then the live
//! order for items only the server has (see Kubernetes' "preserve order in strategic merge patch").

use std::collections::HashMap;

use serde_json::Value;

use super::values::{GoType, identity};
use super::{DELETE, DIRECTIVE};
use crate::merge::error::{ErrorKind, MergeError, brief, type_name};

/// Where items stand in a list, by identity: the merge key's value for maps, the item for scalars.
pub(super) struct Order {
    merge_key: String,
    first: HashMap<Value, usize, foldhash::fast::RandomState>,
}

impl Order {
    /// The order of `list`. For maps, every entry must be a map carrying `merge_key`.
    pub(super) fn of(list: &[Value], merge_key: &str, kind: GoType) -> Result<Order, MergeError> {
        if kind == GoType::Map {
            validate_merge_keys(merge_key, list)?;
        }
        let mut first = HashMap::with_capacity_and_hasher(list.len(), Default::default());
        for (index, item) in list.iter().enumerate() {
            first.entry(identity(item, merge_key).clone()).or_insert(index);
        }
        Ok(Order { merge_key: merge_key.to_string(), first })
    }

    /// The order of items whose identities (merge key values, or scalars) are given.
    pub(super) fn of_identities(identities: &[Value], merge_key: &str) -> Order {
        let mut first = HashMap::with_capacity_and_hasher(identities.len(), Default::default());
        for (index, identity) in identities.iter().enumerate() {
            first.entry(identity.clone()).or_insert(index);
        }
        Order { merge_key: merge_key.to_string(), first }
    }

    /// The first position of an item with the same identity, if any.
    pub(super) fn position(&self, item: &Value) -> Option<usize> {
        self.first.get(identity(item, &self.merge_key)).copied()
    }
}

/// Sorts `patch` by `patch_order` and `server_only` by `server_order`, then interleaves them so
/// that both keep their relative order and server-only items stay near their live neighbours.
pub(super) fn normalize_element_order(
    patch: Vec<Value>,
    server_only: Vec<Value>,
    patch_order: &Order,
    server_order: &Order,
    kind: GoType,
) -> Result<Vec<Value>, MergeError> {
    let patch = normalize_slice_order(patch, patch_order, kind)?;
    let server_only = normalize_slice_order(server_only, server_order, kind)?;
    Ok(merge_sorted(server_only, patch, server_order))
}

/// Sorts `items` by where they stand in `order`. For maps, every item must carry the merge key,
/// and `$patch: delete` items go last.
pub(super) fn normalize_slice_order(items: Vec<Value>, order: &Order, kind: GoType) -> Result<Vec<Value>, MergeError> {
    let (mut kept, deleted) = if kind == GoType::Map {
        validate_merge_keys(&order.merge_key, &items)?;
        split_deletions(items)?
    } else {
        (items, Vec::new())
    };
    let ranks: Vec<Option<usize>> = kept.iter().map(|item| order.position(item)).collect();
    if ranks.iter().all(Option::is_some) {
        let mut ranked: Vec<(usize, Value)> = ranks.into_iter().flatten().zip(kept).collect();
        ranked.sort_by_key(|(rank, _)| *rank);
        kept = ranked.into_iter().map(|(_, item)| item).collect();
    } else {
        kept = insertion_sort_unranked(kept, ranks);
    }
    kept.extend(deleted);
    Ok(kept)
}

/// Kubernetes sorts with a comparison that calls an item missing from the order "less" than any
/// other; on the short lists where that happens its stable sort is an insertion sort, reproduced here.
fn insertion_sort_unranked(mut items: Vec<Value>, mut ranks: Vec<Option<usize>>) -> Vec<Value> {
    let less = |a: Option<usize>, b: Option<usize>| match (a, b) {
        (Some(a), Some(b)) => a < b,
        _ => true,
    };
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && less(ranks[j], ranks[j - 1]) {
            items.swap(j, j - 1);
            ranks.swap(j, j - 1);
            j -= 1;
        }
    }
    items
}

/// Merges two lists that are each already in order: an item of `left` goes before the first item
/// of `right` that stands after it in `server_order`.
fn merge_sorted(left: Vec<Value>, right: Vec<Value>, server_order: &Order) -> Vec<Value> {
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    loop {
        let take_left = match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(l), Some(r)) => matches!(
                (server_order.position(l), server_order.position(r)),
                (Some(li), Some(ri)) if li < ri
            ),
        };
        let next = if take_left { left.next() } else { right.next() };
        merged.extend(next);
    }
    merged
}

/// Splits merged items into those the patch (or `$setElementOrder`) names and those only the server has.
pub(super) fn partition_by_presence(
    merged: Vec<Value>,
    present: &Order,
) -> Result<(Vec<Value>, Vec<Value>), MergeError> {
    if !present.merge_key.is_empty() {
        validate_merge_keys(&present.merge_key, &merged)?;
    }
    Ok(merged.into_iter().partition(|item| present.position(item).is_some()))
}

/// Fails unless every item is a map carrying `merge_key`.
pub(super) fn validate_merge_keys(merge_key: &str, items: &[Value]) -> Result<(), MergeError> {
    for item in items {
        let map = item.as_object().ok_or_else(|| wrong_type("a map", item))?;
        if !map.contains_key(merge_key) {
            return Err(missing_merge_key(merge_key, item));
        }
    }
    Ok(())
}

/// Separates `$patch: delete` items from the others.
pub(super) fn split_deletions(items: Vec<Value>) -> Result<(Vec<Value>, Vec<Value>), MergeError> {
    let mut kept = Vec::with_capacity(items.len());
    let mut deleted = Vec::new();
    for item in items {
        let map = item.as_object().ok_or_else(|| wrong_type("a map", &item))?;
        if map.get(DIRECTIVE).and_then(Value::as_str) == Some(DELETE) {
            deleted.push(item);
        } else {
            kept.push(item);
        }
    }
    Ok((kept, deleted))
}

/// Whether both lists hold maps with the same merge key values, position by position.
pub(super) fn same_order(original: &[Value], modified: &[Value], merge_key: &str) -> Result<bool, MergeError> {
    if original.len() != modified.len() {
        return Ok(false);
    }
    for (left, right) in original.iter().zip(modified) {
        validate_merge_keys(merge_key, std::slice::from_ref(left))?;
        validate_merge_keys(merge_key, std::slice::from_ref(right))?;
        if identity(left, merge_key) != identity(right, merge_key) {
            return Ok(false);
        }
    }
    Ok(true)
}

pub(super) fn wrong_type(expected: &'static str, found: &Value) -> MergeError {
    ErrorKind::WrongType { expected, found: format!("a {}: {}", type_name(found), brief(found)) }.into()
}

pub(super) fn missing_merge_key(merge_key: &str, element: &Value) -> MergeError {
    ErrorKind::MissingMergeKey { key: merge_key.to_string(), element: brief(element) }.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(items: &[Value]) -> Vec<i64> {
        items.iter().map(|item| item["name"].as_i64().unwrap()).collect()
    }

    #[test]
    fn server_only_items_go_before_the_first_patch_item_that_follows_them_live_or_after_all_of_them() {
        let live = [json!({"name": 1}), json!({"name": 2}), json!({"name": 3}), json!({"name": 4})];
        let live = Order::of(&live, "name", GoType::Map).unwrap();
        let patch = vec![json!({"name": 3}), json!({"name": 1})];
        let server_only = vec![json!({"name": 4}), json!({"name": 2})];
        let order = Order::of(&[json!({"name": 3}), json!({"name": 1})], "name", GoType::Map).unwrap();
        let merged = normalize_element_order(patch, server_only, &order, &live, GoType::Map).unwrap();
        assert_eq!(names(&merged), vec![2, 3, 1, 4]);
    }

    #[test]
    fn deletions_go_last_and_missing_merge_keys_are_errors() {
        let items = vec![json!({"name": 2, "$patch": "delete"}), json!({"name": 1})];
        let order = Order::of(&[json!({"name": 1})], "name", GoType::Map).unwrap();
        let sorted = normalize_slice_order(items, &order, GoType::Map).unwrap();
        assert_eq!(names(&sorted), vec![1, 2]);
        let err = normalize_slice_order(vec![json!({"value": 1})], &order, GoType::Map).unwrap_err();
        assert!(err.to_string().contains("does not contain declared merge key"), "{err}");
    }
}
