//! Go's `fmt` text of decoded JSON values: `%v` (and `strconv.FormatFloat(f, 'g', -1, 64)`, which
//! `%v` uses for floats). Kubernetes sorts and compares list items by this text, and the API
//! server's table cells print as kubectl's `%v` prints them. And `fmt.Sprint` and `fmt.Sprintf` over
//! a [`GoValue`], for Go templates.

mod printf;
mod verbs;

pub use printf::sprintf;

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

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
/// exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`), otherwise plain (`123456`, `0.25`);
/// `+Inf`, `-Inf` and `NaN` as Go spells them.
pub fn float_text(float: f64) -> String {
    if float.is_nan() {
        return "NaN".into();
    }
    if float.is_infinite() {
        return if float > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
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

/// A value as Go holds it in an `interface{}` after decoding JSON, with its dynamic type: what
/// Go's `fmt` prints and Go's templates run on.
#[derive(Debug, Clone, PartialEq)]
pub enum GoValue {
    /// Go's invalid value (a template's: a key the map does not have).
    Missing,
    Nil,
    Bool(bool),
    /// An integer of the object's (Go's int64).
    Int(i64),
    /// Go's int (a template's constant, `len` or range index).
    Count(i64),
    Float(f64),
    Str(String),
    /// Shared: a template passes `.` from action to action, and into `{{template}}` calls, as
    /// Go passes a reference.
    List(std::sync::Arc<Vec<Value>>),
    Map(std::sync::Arc<Map<String, Value>>),
}

impl GoValue {
    pub fn of(value: &Value) -> GoValue {
        match value {
            Value::Null => GoValue::Nil,
            Value::Bool(flag) => GoValue::Bool(*flag),
            Value::Number(number) => match number.as_i64() {
                Some(int) => GoValue::Int(int),
                None => GoValue::Float(number.as_f64().unwrap_or_default()),
            },
            Value::String(text) => GoValue::Str(text.clone()),
            Value::Array(items) => GoValue::List(std::sync::Arc::new(items.clone())),
            Value::Object(map) => GoValue::Map(std::sync::Arc::new(map.clone())),
        }
    }

    pub fn to_json(&self) -> Value {
        match self {
            GoValue::Missing | GoValue::Nil => Value::Null,
            GoValue::Bool(flag) => Value::Bool(*flag),
            GoValue::Int(int) | GoValue::Count(int) => Value::from(*int),
            GoValue::Float(float) => serde_json::Number::from_f64(*float).map_or(Value::Null, Value::Number),
            GoValue::Str(text) => Value::String(text.clone()),
            GoValue::List(items) => Value::Array(items.to_vec()),
            GoValue::Map(map) => Value::Object((**map).clone()),
        }
    }

    /// Go's `%v`.
    pub fn text(&self) -> String {
        match self {
            GoValue::Missing | GoValue::Nil => "<nil>".to_string(),
            GoValue::Float(float) => float_text(*float),
            other => value_text(&other.to_json()).into_owned(),
        }
    }

    /// The integer, of the object's or the template's.
    pub fn int(&self) -> Option<i64> {
        match self {
            GoValue::Int(int) | GoValue::Count(int) => Some(*int),
            _ => None,
        }
    }

    /// Its Go type, as Go's messages name it.
    pub fn type_name(&self) -> &'static str {
        match self {
            GoValue::Missing | GoValue::Nil => "<nil>",
            GoValue::Bool(_) => "bool",
            GoValue::Int(_) => "int64",
            GoValue::Count(_) => "int",
            GoValue::Float(_) => "float64",
            GoValue::Str(_) => "string",
            GoValue::List(_) => "[]interface {}",
            GoValue::Map(_) => "map[string]interface {}",
        }
    }
}

/// Go's `%q` of a string (`strconv.Quote`).
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\x7f' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `fmt.Sprint`: a space between operands when neither is a string.
pub fn sprint(args: &[GoValue]) -> String {
    let mut out = String::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 && !matches!(arg, GoValue::Str(_)) && !matches!(args[i - 1], GoValue::Str(_)) {
            out.push(' ');
        }
        out.push_str(&arg.text());
    }
    out
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
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
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
