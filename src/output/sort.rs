//! `--sort-by`: objects (or table rows) in the order of the value a JSONPath finds in each, with
//! kubectl's comparison (`kubectl/pkg/cmd/get/sorter.go`): numbers by value, strings in natural
//! order (`web-2` before `web-10`), booleans false first; an object without the value first.

use std::cmp::Ordering;

use serde_json::Value;

use super::jsonpath::{self, JsonPath};

/// Sorts `items` by the value `path` (kubectl's relaxed spelling, e.g. `.metadata.name`) finds in
/// `object(item)`; items that compare equal keep their order. When no item has the value, that is
/// kubectl's error: `couldn't find any field with path "{.x}" in the list of objects`.
pub fn sort_by<T>(items: &mut [T], path: &str, object: impl Fn(&T) -> &Value) -> Result<(), jsonpath::Error> {
    let relaxed = jsonpath::relaxed(path)?;
    let path = JsonPath::parse(&relaxed)?;
    let mut keyed: Vec<(Option<Value>, usize)> = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let groups = path.find(object(item), true)?;
        let key = groups.into_iter().next().and_then(|group| group.into_iter().next()).map(|value| value.into_owned());
        keyed.push((key, index));
    }
    if !keyed.is_empty() && keyed.iter().all(|(key, _)| key.is_none()) {
        return Err(jsonpath::Error(format!(
            "couldn't find any field with path {} in the list of objects",
            jsonpath::go_quote(&relaxed)
        )));
    }
    if keyed.len() <= GO_INSERTION_SORT_MAX {
        // Go's sort with kubectl's comparison, which calls an object without the value less than
        // any other, even than another without it: such objects come first, in reverse order.
        for next in 1..keyed.len() {
            let mut at = next;
            while at > 0 && (keyed[at].0.is_none() || less(&keyed[at].0, &keyed[at - 1].0)) {
                keyed.swap(at, at - 1);
                at -= 1;
            }
        }
    } else {
        // Longer lists: objects without the value first, in their order (Go's order among them
        // follows its pattern-defeating quicksort).
        keyed.sort_by(|(a, _), (b, _)| match (a, b) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => compare(a, b),
        });
    }
    let order: Vec<usize> = keyed.into_iter().map(|(_, index)| index).collect();
    permute(items, order);
    Ok(())
}

/// Up to this many items Go's `sort.Sort` is an insertion sort.
const GO_INSERTION_SORT_MAX: usize = 12;

/// kubectl's "less" for two present values; a missing one on the right is never greater.
fn less(a: &Option<Value>, b: &Option<Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => compare(a, b) == Ordering::Less,
        _ => false,
    }
}

/// Puts `items[order[i]]` at `i`.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut current = start;
        while order[current] != start {
            let next = order[current];
            items.swap(current, next);
            order[current] = current;
            current = next;
        }
        order[current] = current;
    }
}

/// kubectl's order of two values of the same field.
pub fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(a), Some(b)) => a.cmp(&b),
            _ => a.as_f64().partial_cmp(&b.as_f64()).unwrap_or(Ordering::Equal),
        },
        (Value::String(a), Value::String(b)) => natural(a, b),
        (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
        _ => Ordering::Equal,
    }
}

/// Natural order: runs of digits compare as numbers, everything else byte by byte.
pub fn natural(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    while !a.is_empty() && !b.is_empty() {
        let (a_digits, b_digits) = (a[0].is_ascii_digit(), b[0].is_ascii_digit());
        if a_digits && b_digits {
            let run = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
            let (a_len, b_len) = (run(a), run(b));
            let (a_run, b_run) = (&a[..a_len], &b[..b_len]);
            let trim = |s: &[u8]| -> usize { s.iter().take_while(|&&c| c == b'0').count() };
            let (a_num, b_num) = (&a_run[trim(a_run)..], &b_run[trim(b_run)..]);
            let by_value = a_num.len().cmp(&b_num.len()).then_with(|| a_num.cmp(b_num));
            // Equal values: fewer leading zeros first.
            let ordering = by_value.then_with(|| a_len.cmp(&b_len));
            if ordering != Ordering::Equal {
                return ordering;
            }
            a = &a[a_len..];
            b = &b[b_len..];
        } else {
            match a[0].cmp(&b[0]) {
                Ordering::Equal => {
                    a = &a[1..];
                    b = &b[1..];
                }
                ordering => return ordering,
            }
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn natural_order_compares_numbers_in_names() {
        let mut names = vec!["web-10", "web-2", "api", "web-1", "web-02"];
        names.sort_by(|a, b| natural(a, b));
        assert_eq!(names, ["api", "web-1", "web-2", "web-02", "web-10"]);
    }

    #[test]
    fn objects_sort_by_a_field_missing_ones_first() {
        let mut objects = vec![json!({"n": 10}), json!({"n": 9}), json!({}), json!({"n": 9.5}), json!({"m": 1})];
        sort_by(&mut objects, ".n", |object| object).unwrap();
        assert_eq!(objects, vec![json!({"m": 1}), json!({}), json!({"n": 9}), json!({"n": 9.5}), json!({"n": 10})]);
        let err = sort_by(&mut objects, "x", |object| object).unwrap_err();
        assert_eq!(err.to_string(), r#"couldn't find any field with path "{.x}" in the list of objects"#);
    }
}
