//! What a tree's scalars are, as go-yaml v3 resolves a plain scalar, and a tree decoded into Go's
//! values (as JSON).

use serde_json::{Map, Number, Value};

use crate::gocompat::time::go_yaml_time;

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
    let plain = text.replace('_', "");
    if let Some(integer) = parse_int(&plain) {
        return ("!!int", integer);
    }
    let float_like = {
        let digits = plain.trim_start_matches(['-', '+']);
        let (mantissa, exponent) = match digits.find(['e', 'E']) {
            Some(at) => (&digits[..at], Some(&digits[at + 1..])),
            None => (digits, None),
        };
        let mantissa_ok = match mantissa.split_once('.') {
            Some(("", fraction)) => !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()),
            Some((whole, fraction)) => {
                !whole.is_empty()
                    && whole.bytes().all(|b| b.is_ascii_digit())
                    && fraction.bytes().all(|b| b.is_ascii_digit())
            }
            None => !mantissa.is_empty() && mantissa.bytes().all(|b| b.is_ascii_digit()),
        };
        let exponent_ok = exponent.is_none_or(|exponent| {
            let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
            !exponent.is_empty() && exponent.bytes().all(|b| b.is_ascii_digit())
        });
        mantissa_ok && exponent_ok
    };
    if float_like && let Ok(float) = plain.parse::<f64>() {
        return ("!!float", Number::from_f64(float).map_or(Value::Null, Value::Number));
    }
    ("!!str", Value::String(text.to_string()))
}

/// Go's `strconv.ParseInt(text, 0, 64)`, then `ParseUint`, then the `0b` and `0o` forms go-yaml
/// adds.
fn parse_int(text: &str) -> Option<Value> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(rest) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        (16, rest)
    } else if let Some(rest) = digits.strip_prefix("0b").or_else(|| digits.strip_prefix("0B")) {
        (2, rest)
    } else if let Some(rest) = digits.strip_prefix("0o").or_else(|| digits.strip_prefix("0O")) {
        (8, rest)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if negative {
        i64::try_from(-(magnitude as i128)).ok().map(Value::from)
    } else if let Ok(small) = i64::try_from(magnitude) {
        Some(Value::from(small))
    } else if text.starts_with('+') {
        None
    } else {
        u64::try_from(magnitude).ok().map(Value::from)
    }
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
