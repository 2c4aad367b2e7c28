//! How Kubernetes' Go implementation sees decoded JSON values: their types, their `%v` text (by
//! which it sorts scalars and compares merge keys) and its in-place deduplication. Matching these
//! exactly is what makes patches and results agree bit for bit.

use std::borrow::Cow;

use serde_json::Value;

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

/// The text Go's `fmt.Sprintf("%v", value)` gives for a scalar.
pub(super) fn go_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(text) => Cow::Borrowed(text),
        Value::Null => Cow::Borrowed("<nil>"),
        Value::Bool(true) => Cow::Borrowed("true"),
        Value::Bool(false) => Cow::Borrowed("false"),
        Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() => Cow::Owned(go_float_text(float)),
            _ => Cow::Owned(number.to_string()),
        },
        composite => Cow::Owned(composite.to_string()),
    }
}

/// Go's `%v` of a float64: the shortest digits that round-trip, in `%e` form when the decimal
/// exponent is below -4 or at least 6 (e.g. `1e+06`, `1.5e-05`), otherwise plain (`123456`, `0.25`).
fn go_float_text(float: f64) -> String {
    let scientific = format!("{float:e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} always has an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} exponents are integers");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if !(-4..6).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{fraction}e{exponent_sign}{:02}", exponent.abs());
    }
    let point = exponent + 1;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (whole, fraction) = digits.split_at(point as usize);
        format!("{whole}.{fraction}")
    };
    format!("{sign}{body}")
}

/// Sorts scalars by their `%v` text, as Kubernetes does before comparing lists of scalars. Its
/// sort treats equal texts as "less", which puts values with the same text in reverse order.
pub(super) fn sort_scalars(values: Vec<Value>) -> Vec<Value> {
    let mut keyed: Vec<(String, usize, Value)> =
        values.into_iter().enumerate().map(|(index, value)| (go_text(&value).into_owned(), index, value)).collect();
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
    fn floats_print_like_go() {
        let cases = [
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5, "1.5"),
            (-2.25e-7, "-2.25e-07"),
            (0.0, "0"),
            (f64::MAX, "1.7976931348623157e+308"),
        ];
        for (float, text) in cases {
            assert_eq!(go_float_text(float), text, "{float}");
        }
    }

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
