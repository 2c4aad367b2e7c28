//! What a tree's scalars are, as go-yaml v3 resolves a plain scalar, and a tree decoded into Go's
//! values (as JSON).

use serde_json::{Map, Number, Value};

use crate::gocompat::time::go_yaml_time;
use crate::gocompat::{strconv, yaml as go_yaml};

use super::{Kind, Node, Style};

/// A plain scalar's tag and value as go-yaml v3 resolves it (`resolve("", text)`), timestamps
/// kept as text.
pub fn resolve(text: &str) -> (&'static str, Value) {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return ("!!null", Value::Null),
        "true" | "True" | "TRUE" => return ("!!bool", Value::Bool(true)),
        "false" | "False" | "FALSE" => return ("!!bool", Value::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF" | ".nan" | ".NaN"
        | ".NAN" => return ("!!float", Value::Null),
        _ => {}
    }
    let first = text.as_bytes()[0];
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return ("!!str", Value::String(text.to_string()));
    }
    if go_yaml_time(text).is_some() {
        return ("!!timestamp", Value::String(text.to_string()));
    }
    // Go's `strconv.ParseInt(plain, 0, 64)`, then `ParseUint`, then go-yaml's float syntax.
    let plain = text.replace('_', "");
    if let Ok(integer) = strconv::parse_int(&plain, 64) {
        return ("!!int", Value::from(integer));
    }
    if let Ok(integer) = strconv::parse_uint(&plain) {
        return ("!!int", Value::from(integer));
    }
    if go_yaml::is_yaml_float(&plain)
        && let Ok(float) = plain.parse::<f64>()
    {
        return ("!!float", Number::from_f64(float).map_or(Value::Null, Value::Number));
    }
    ("!!str", Value::String(text.to_string()))
}

/// `node` as a JSON value, with no regard for Go's rules: what a path can be matched in.
pub fn to_plain_value(node: &Node) -> Value {
    match &node.kind {
        Kind::Scalar { text, .. } if node.tag == "!!str" => Value::String(text.clone()),
        Kind::Scalar { text, .. } => resolve(text).1,
        Kind::Sequence { items, .. } => Value::Array(items.iter().map(to_plain_value).collect()),
        Kind::Mapping { pairs, .. } => {
            let text = |key: &Node| match &key.kind {
                Kind::Scalar { text, .. } => text.clone(),
                _ => String::new(),
            };
            Value::Object(pairs.iter().map(|(key, value)| (text(key), to_plain_value(value))).collect())
        }
    }
}

/// Why a tree cannot be decoded into Go values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// The Go value go-yaml decodes `node` into (`interface{}`), as JSON: maps of string keys,
/// numbers, times as RFC 3339 text. Fails where go-yaml fails (a written tag its text does not
/// fit) and where Go's JSON would (maps with keys that are not strings, `.inf`, `.nan`).
pub fn decode(node: &Node) -> Result<Value, DecodeError> {
    match &node.kind {
        Kind::Scalar { text, style } => {
            // A quoted or block scalar read back is a `!!str`, and so is one tagged so.
            if node.tag == "!!str" || (*style != Style::Plain && node.tag.is_empty()) {
                return Ok(Value::String(text.clone()));
            }
            let (tag, value) = resolve(text);
            let wanted = if node.tag.is_empty() { tag } else { node.tag.as_str() };
            let value = match (wanted, tag) {
                (wanted, tag) if wanted == tag => value,
                ("!!float", "!!int") => {
                    Number::from_f64(value.as_f64().unwrap_or_default()).map_or(Value::Null, Value::Number)
                }
                _ => return Err(DecodeError(format!("cannot decode {tag} `{text}` as a {wanted}"))),
            };
            match tag {
                "!!timestamp" => Ok(Value::String(go_yaml_time(text).unwrap_or_else(|| text.clone()))),
                "!!float" if value.is_null() => Err(DecodeError(format!("json: unsupported value: {text}"))),
                _ => Ok(value),
            }
        }
        Kind::Sequence { items, .. } => items.iter().map(decode).collect::<Result<_, _>>().map(Value::Array),
        Kind::Mapping { pairs, .. } => {
            let mut map = Map::new();
            for (key, value) in pairs {
                match decode(key)? {
                    Value::String(key) => {
                        map.insert(key, decode(value)?);
                    }
                    _ => return Err(DecodeError("json: unsupported type: map[interface {}]interface {}".into())),
                }
            }
            Ok(Value::Object(map))
        }
    }
}
