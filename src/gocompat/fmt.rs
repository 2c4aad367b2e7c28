//! Go's `fmt` text of decoded JSON values: `%v` (and `strconv.FormatFloat(f, 'g', -1, 64)`, which
//! `%v` uses for floats). Kubernetes sorts and compares list items by this text, and the API
//! server's table cells print as kubectl's `%v` prints them.

use std::borrow::Cow;

use serde_json::{Number, Value};

/// `fmt.Sprintf("%v", value)` of a value decoded by Go's `encoding/json`: strings as they are,
/// `<nil>` for null, lists as `[a b]` and maps as `map[k:v]` with sorted keys.
pub fn value_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(text) => Cow::Borrowed(text),
        Value::Null => Cow::Borrowed("<nil>"),
        Value::Bool(true) => Cow::Borrowed("true"),
        Value::Bool(false) => Cow::Borrowed("false"),
        Value::Number(number) => Cow::Owned(number_text(number)),
        Value::Array(items) => {
            let items: Vec<Cow<'_, str>> = items.iter().map(value_text).collect();
            Cow::Owned(format!("[{}]", items.join(" ")))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map.iter().map(|(key, value)| format!("{key}:{}", value_text(value))).collect();
            Cow::Owned(format!("map[{}]", entries.join(" ")))
        }
    }
}

/// A number as Go prints it: integers in decimal, floats with [`float_text`].
pub fn number_text(number: &Number) -> String {
    match number.as_f64() {
        Some(float) if number.is_f64() => float_text(float),
        _ => number.to_string(),
    }
}

/// Go's `%v` of a float64: the shortest digits that round-trip, in exponent form when the decimal
/// exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`), otherwise plain (`123456`, `0.25`).
pub fn float_text(float: f64) -> String {
    let scientific = format!("{float:e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} always has an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} exponents are integers");
    if (-4..6).contains(&exponent) {
        // Rust's shortest round-trip decimal is Go's in this range.
        return format!("{float}");
    }
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
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
            (-0.0, "-0"),
            (f64::MAX, "1.7976931348623157e+308"),
        ];
        for (float, text) in cases {
            assert_eq!(float_text(float), text, "{float}");
        }
    }

    #[test]
    fn values_print_like_go_v() {
        assert_eq!(value_text(&json!("a")), "a");
        assert_eq!(value_text(&json!(null)), "<nil>");
        assert_eq!(value_text(&json!(12)), "12");
        assert_eq!(value_text(&json!(1000000.0)), "1e+06");
        assert_eq!(value_text(&json!([1, "b", null])), "[1 b <nil>]");
        assert_eq!(value_text(&json!({"b": 1, "a": [true]})), "map[a:[true] b:1]");
    }
}
