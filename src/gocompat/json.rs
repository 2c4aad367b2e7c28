//! Go's `encoding/json` output: keys sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, floats in
//! Go's format; compact as `json.Marshal` writes it, or indented as `json.MarshalIndent` does.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

/// `value` on one line, as Go's `json.Marshal` writes it (kubectl's last-applied annotation). Maps
/// must serialize their keys in order, as `serde_json::Map` does.
pub fn to_compact(value: &(impl Serialize + ?Sized)) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, GoFormatter(CompactFormatter));
    value.serialize(&mut serializer).expect("serializing a JSON value into memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Writes `value` as Go's `json.MarshalIndent(value, "", indent)` does, then a newline, without
/// building the text first.
pub fn write_indented(out: &mut impl Write, value: &(impl Serialize + ?Sized), indent: &str) -> io::Result<()> {
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut *out, GoFormatter(PrettyFormatter::with_indent(indent.as_bytes())));
    value.serialize(&mut serializer).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

/// serde_json's printer (pretty or compact) with Go's string escapes and float format.
struct GoFormatter<F>(F);

impl<F: Formatter> Formatter for GoFormatter<F> {
    /// Scans bytes, not characters: every string of a configuration passes here twice (in it,
    /// then in its last-applied annotation), and decoding each character took twice the work.
    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        let (mut written, mut from) = (0, 0);
        // 0xE2 starts U+2028 and U+2029 (and other characters); never a UTF-8 continuation byte,
        // so each position found is a character boundary.
        while let Some(found) = bytes[from..].iter().position(|byte| matches!(byte, b'<' | b'>' | b'&' | 0xE2)) {
            let at = from + found;
            let c = fragment[at..].chars().next().expect("a character starts at this byte");
            from = at + c.len_utf8();
            if matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') {
                writer.write_all(&bytes[written..at])?;
                write!(writer, "\\u{:04x}", c as u32)?;
                written = from;
            }
        }
        writer.write_all(&bytes[written..])
    }

    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(float_json(value).as_bytes())
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

/// The integer a float becomes in Go's JSON round trip through `interface{}`, as kubectl reads
/// manifests (YAML or JSON): a whole float within int64 (`2.0`, `8.0e1`, `1e3`) is written `2`
/// and read back as an integer; any other float stays one.
pub fn go_integer(value: f64) -> Option<i64> {
    let limit = 9_223_372_036_854_775_808.0; // 2^63
    (value.fract() == 0.0 && (-limit..limit).contains(&value)).then_some(value as i64)
}

/// Turns every whole float in `value` into the integer kubectl would send in its place, so that
/// `replicas: 2.0` reaches the server as `2` (which it takes) rather than `2.0` (which it refuses);
/// and an integer beyond `int64` into the float kubectl reads it as (apimachinery's JSON reading
/// takes an `int64`, else a `float64`).
pub fn whole_floats_as_integers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if let Some(integer) = number.as_f64().filter(|_| number.is_f64()).and_then(go_integer) {
                *value = Value::from(integer);
            } else if let Some(large) = number.as_u64().filter(|large| i64::try_from(*large).is_err()) {
                *value = serde_json::Number::from_f64(large as f64).map_or(Value::Null, Value::Number);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_floats_as_integers),
        Value::Object(fields) => fields.values_mut().for_each(whole_floats_as_integers),
        _ => {}
    }
}

/// Go's `encoding/json` float format: plain decimals from 1e-6 up to 1e21, else `1e+21`, `1e-7`.
fn float_json(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude == 0.0 || (1e-6..1e21).contains(&magnitude) {
        return format!("{value}");
    }
    let scientific = format!("{value:e}");
    match scientific.split_once('e') {
        Some((mantissa, exponent)) if !exponent.starts_with('-') => format!("{mantissa}e+{exponent}"),
        _ => scientific,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn indented(value: &Value) -> String {
        let mut out = Vec::new();
        write_indented(&mut out, value, "    ").unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn indents_and_sorts_keys() {
        let value = json!({"b": [1, {}], "a": {"c": []}});
        assert_eq!(
            indented(&value),
            "{\n    \"a\": {\n        \"c\": []\n    },\n    \"b\": [\n        1,\n        {}\n    ]\n}\n"
        );
    }

    #[test]
    fn whole_floats_become_integers_as_in_gos_round_trip() {
        let mut value = json!({"a": [2.0, 80.0, 0.5, -0.0, 1e3, 1e19, 3], "b": {"c": 1.5e300}});
        whole_floats_as_integers(&mut value);
        assert_eq!(to_compact(&value), r#"{"a":[2,80,0.5,0,1000,10000000000000000000,3],"b":{"c":1.5e+300}}"#);
    }

    #[test]
    fn compact_output_is_one_line() {
        assert_eq!(to_compact(&json!({"b": [1, {}], "a": "<"})), r#"{"a":"\u003c","b":[1,{}]}"#);
    }

    #[test]
    fn escapes_like_go() {
        assert_eq!(indented(&json!("a<b>&c\u{2028}\"\n")), "\"a\\u003cb\\u003e\\u0026c\\u2028\\\"\\n\"\n");
        // Other characters that start with the byte U+2028 starts with are written as they are.
        assert_eq!(to_compact(&json!("\u{2027}\u{2029}\u{20ac}>")), "\"\u{2027}\\u2029\u{20ac}\\u003e\"");
    }

    #[test]
    fn floats_print_like_go() {
        assert_eq!(
            indented(&json!([1.0, 1.5, 1e21, 1e-7, 0.000001])),
            "[\n    1,\n    1.5,\n    1e+21,\n    1e-7,\n    0.000001\n]\n"
        );
    }
}
