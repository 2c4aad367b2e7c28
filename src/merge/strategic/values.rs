//! How Kubernetes' Go implementation sees decoded JSON values: their types, their `%v` text (by
//! which it sorts scalars and compares merge keys) and its in-place deduplication. Matching these
//! exactly is what makes patches and results agree bit for bit.

use serde_json::Value;

use crate::gocompat::fmt::value_text;

/// The Go type of a decoded value: the decoder makes integral numbers `int64`, others `float64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GoType {
    Nil,
    Bool,
    Int,
    Float,
    String,
    List,
    Map,
}

pub(super) fn go_type(value: &Value) -> GoType {
    match value {
        Value::Null => GoType::Nil,
        Value::Bool(_) => GoType::Bool,
        Value::Number(number) if number.is_f64() => GoType::Float,
        Value::Number(_) => GoType::Int,
        Value::String(_) => GoType::String,
        Value::Array(_) => GoType::List,
        Value::Object(_) => GoType::Map,
    }
}

/// Sorts scalars by their `%v` text, as Kubernetes does before comparing lists of scalars. Its
/// sort treats equal texts as "less", which puts values with the same text in reverse order.
pub(super) fn sort_scalars(values: Vec<Value>) -> Vec<Value> {
    let mut keyed: Vec<(String, usize, Value)> =
        values.into_iter().enumerate().map(|(index, value)| (value_text(&value).into_owned(), index, value)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    keyed.into_iter().map(|(_, _, value)| value).collect()
}

/// Removes repeated scalars the way Kubernetes does: a repeat is overwritten by the last element
/// and the list shortened, so the order after the first repeat changes. Kept exact on purpose.
pub(super) fn dedupe_scalars(mut values: Vec<Value>) -> Vec<Value> {
    let len = dedupe_in_place(&mut values);
    values.truncate(len);
    values
}

/// [`dedupe_scalars`] without the final truncation: returns the new length and leaves the stale
/// tail in place, as Go's backing array keeps it.
pub(super) fn dedupe_in_place(values: &mut [Value]) -> usize {
    if values.len() < 2 {
        return values.len();
    }
    let mut last = values.len() - 1;
    let mut i = 0;
    while i < last {
        let mut j = i + 1;
        while j <= last {
            if values[i] == values[j] {
                values[j] = values[last].clone();
                last -= 1;
            } else {
                j += 1;
            }
        }
        i += 1;
    }
    last + 1
}

/// What identifies a list item: its merge key's value for maps, itself otherwise.
pub(super) fn identity<'v>(item: &'v Value, merge_key: &str) -> &'v Value {
    if merge_key.is_empty() {
        return item;
    }
    item.get(merge_key).unwrap_or(&Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_sort_by_text_like_go() {
        let sorted = sort_scalars(vec![json!(10), json!(9), json!("a"), json!(true), json!(1.5)]);
        assert_eq!(sorted, vec![json!(1.5), json!(10), json!(9), json!("a"), json!(true)]);
        let same_text = sort_scalars(vec![json!(1), json!("1")]);
        assert_eq!(same_text, vec![json!("1"), json!(1)]);
    }

    #[test]
    fn dedupe_moves_the_last_element_into_each_repeat() {
        assert_eq!(dedupe_scalars(vec![json!(1), json!(1), json!(2), json!(3)]), vec![json!(1), json!(3), json!(2)]);
        assert_eq!(dedupe_scalars(vec![json!(1), json!(2), json!(1), json!(2)]), vec![json!(1), json!(2)]);
        assert_eq!(dedupe_scalars(vec![json!(3), json!(3)]), vec![json!(3)]);
        // An int and a float are different values in Go, as in JSON.
        assert_eq!(dedupe_scalars(vec![json!(1), json!(1.0)]).len(), 2);
    }
}
