//! The functions templates call: Go's built-ins (`index`, `slice`, `len`, comparisons, escapes,
//! `print`s) and kubectl's `exists` and `base64decode`, over values; `and` and `or`, which stop
//! at the operand that decides, are the executor's.

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;

use crate::gocompat::fmt::{GoValue as V, sprint, sprintf};

/// The functions a template may call: Go's built-ins and the two kubectl adds.
pub const NAMES: [&str; 21] = [
    "and",
    "or",
    "not",
    "len",
    "index",
    "slice",
    "print",
    "printf",
    "println",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "html",
    "js",
    "urlquery",
    "call",
    "exists",
    "base64decode",
];

/// Why a call failed, before the executor says where: a wrong number of arguments (Go names the
/// function alone), a failure inside the function (`error calling NAME: ...`), or an operand of
/// the wrong type (Go names the command).
pub enum CallError {
    Count(String),
    Calling(String),
    Type(String),
}

/// Calls the function `name` (any of [`NAMES`] but `and` and `or`) with `args`.
pub fn call(name: &str, args: &[V]) -> Result<V, CallError> {
    let want = |count: usize| {
        if args.len() == count {
            Ok(())
        } else {
            Err(CallError::Count(format!("wrong number of args for {name}: want {count} got {}", args.len())))
        }
    };
    Ok(match name {
        "not" => {
            want(1)?;
            V::Bool(!super::executor::truth(&args[0]))
        }
        "len" => {
            want(1)?;
            V::Count(match &args[0] {
                V::Str(text) => text.len() as i64,
                V::List(items) => items.len() as i64,
                V::Map(map) => map.len() as i64,
                V::Missing | V::Nil => return Err(CallError::Calling("len of nil pointer".into())),
                other => return Err(CallError::Calling(format!("len of type {}", other.type_name()))),
            })
        }
        "index" | "slice" if args.is_empty() => {
            return Err(CallError::Count(format!("wrong number of args for {name}: want at least 1 got 0")));
        }
        "index" => index(args).map_err(CallError::Calling)?,
        "slice" => slice(args).map_err(CallError::Calling)?,
        "print" => V::Str(sprint(args)),
        "println" => V::Str(format!("{}\n", args.iter().map(V::text).collect::<Vec<_>>().join(" "))),
        "printf" => match args.split_first() {
            Some((V::Str(format), rest)) => V::Str(sprintf(format, rest)),
            Some((other, _)) => {
                return Err(CallError::Type(format!(
                    "wrong type for value; expected string; got {}",
                    other.type_name()
                )));
            }
            None => return Err(CallError::Count("wrong number of args for printf: want at least 1 got 0".into())),
        },
        "eq" => {
            if args.len() < 2 {
                return Err(CallError::Calling("missing argument for comparison".into()));
            }
            let mut truth = false;
            for other in &args[1..] {
                if equal(&args[0], other).map_err(CallError::Calling)? {
                    truth = true;
                    break;
                }
            }
            V::Bool(truth)
        }
        "ne" => {
            want(2)?;
            V::Bool(!equal(&args[0], &args[1]).map_err(CallError::Calling)?)
        }
        "lt" | "le" | "gt" | "ge" => {
            want(2)?;
            let order = order(&args[0], &args[1]).map_err(CallError::Calling)?;
            V::Bool(match name {
                "lt" => order.is_lt(),
                "le" => order.is_le(),
                "gt" => order.is_gt(),
                _ => order.is_ge(),
            })
        }
        "html" => V::Str(html_escape(&sprint(args))),
        "js" => V::Str(js_escape(&sprint(args))),
        "urlquery" => V::Str(url_query_escape(&sprint(args))),
        "exists" => match args.split_first() {
            Some((item, keys)) => V::Bool(exists(item, keys)),
            None => return Err(CallError::Count("wrong number of args for exists: want at least 1 got 0".into())),
        },
        "base64decode" => {
            want(1)?;
            let V::Str(text) = &args[0] else {
                let message = format!("wrong type for value; expected string; got {}", args[0].type_name());
                return Err(CallError::Type(message));
            };
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|err| CallError::Calling(format!("base64 decode failed: {}", base64_reason(&err))))?;
            V::Str(String::from_utf8_lossy(&decoded).into_owned())
        }
        _ => return Err(CallError::Calling("can't call method/function \"call\" with 0 results".into())),
    })
}
fn index(args: &[V]) -> Result<V, String> {
    let Some((item, indices)) = args.split_first() else {
        return Err("wrong number of args for index: want at least 1 got 0".into());
    };
    let mut item = item.clone();
    for key in indices {
        item = match (&item, key) {
            (V::List(items), V::Int(i) | V::Count(i)) => match usize::try_from(*i).ok().and_then(|i| items.get(i)) {
                Some(found) => V::of(found),
                None => return Err(format!("index out of range: {i}")),
            },
            (V::Str(text), V::Int(i) | V::Count(i)) => {
                match usize::try_from(*i).ok().and_then(|i| text.as_bytes().get(i)) {
                    Some(byte) => V::Count(i64::from(*byte)),
                    None => return Err(format!("index out of range: {i}")),
                }
            }
            (V::List(_) | V::Str(_), other) => {
                return Err(format!("cannot index slice/array with type {}", other.type_name()));
            }
            (V::Map(map), V::Str(key)) => map.get(key).map_or(V::Missing, V::of),
            (V::Map(_), other) => {
                return Err(format!("value has type {}; should be string", other.type_name()));
            }
            (V::Missing | V::Nil, _) => return Err("index of untyped nil".into()),
            (other, _) => return Err(format!("can't index item of type {}", other.type_name())),
        };
    }
    Ok(item)
}

fn slice(args: &[V]) -> Result<V, String> {
    let Some((item, bounds)) = args.split_first() else {
        return Err("wrong number of args for slice: want at least 1 got 0".into());
    };
    let len = match item {
        V::Str(text) => text.len(),
        V::List(items) => items.len(),
        other => return Err(format!("can't slice item of type {}", other.type_name())),
    };
    let mut numbers = Vec::new();
    for bound in bounds {
        match bound {
            V::Int(n) | V::Count(n) if *n >= 0 => numbers.push(*n as usize),
            V::Int(n) | V::Count(n) => return Err(format!("index out of range: {n}")),
            other => return Err(format!("cannot index slice/array with type {}", other.type_name())),
        }
    }
    let (low, high) = match numbers.as_slice() {
        [] => (0, len),
        [low] => (*low, len),
        [low, high, ..] => (*low, *high),
    };
    if high > len {
        return Err(format!("index out of range: {high}"));
    }
    if low > high {
        return Err(format!("invalid slice index: {low} > {high}"));
    }
    Ok(match item {
        V::Str(text) => V::Str(String::from_utf8_lossy(&text.as_bytes()[low..high]).into_owned()),
        V::List(items) => V::List(std::sync::Arc::new(items[low..high].to_vec())),
        _ => unreachable!("checked above"),
    })
}

/// Go's basic kinds, which `eq` and `lt` compare.
#[derive(PartialEq)]
enum Kind {
    Bool,
    Int,
    Float,
    Str,
    Other,
}

fn kind(value: &V) -> Kind {
    match value {
        V::Bool(_) => Kind::Bool,
        V::Int(_) | V::Count(_) => Kind::Int,
        V::Float(_) => Kind::Float,
        V::Str(_) => Kind::Str,
        _ => Kind::Other,
    }
}

fn equal(a: &V, b: &V) -> Result<bool, String> {
    let missing = |v: &V| matches!(v, V::Missing);
    if kind(a) != kind(b) {
        if missing(a) || missing(b) {
            return Ok(false);
        }
        if matches!(a, V::Nil) || matches!(b, V::Nil) {
            return Ok(matches!(a, V::Nil) && matches!(b, V::Nil));
        }
        return Err(incompatible(a, b));
    }
    match (a, b) {
        (V::List(_) | V::Map(_), _) => Err(format!("non-comparable type {}: {}", a.text(), a.type_name())),
        _ if kind(a) == Kind::Int => Ok(a.int() == b.int()),
        _ => Ok(a == b),
    }
}

/// Go's text/template (1.24 and later, kubectl 1.37's) names both types.
fn incompatible(a: &V, b: &V) -> String {
    format!("incompatible types for comparison: {} and {}", a.type_name(), b.type_name())
}

fn order(a: &V, b: &V) -> Result<std::cmp::Ordering, String> {
    match (a, b) {
        _ if kind(a) == Kind::Int && kind(b) == Kind::Int => Ok(a.int().cmp(&b.int())),
        (V::Float(x), V::Float(y)) => Ok(x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal)),
        (V::Str(x), V::Str(y)) => Ok(x.cmp(y)),
        _ if kind(a) != kind(b) => Err(incompatible(a, b)),
        _ => Err("invalid type for comparison".into()),
    }
}

/// kubectl's `exists`: whether each key (map key, or list or string index) leads somewhere.
fn exists(item: &V, keys: &[V]) -> bool {
    let mut value = item.to_json();
    for key in keys {
        value = match (&value, key) {
            (Value::Array(items), V::Int(i) | V::Count(i)) => match usize::try_from(*i).ok().and_then(|i| items.get(i))
            {
                Some(found) => found.clone(),
                None => return false,
            },
            (Value::Object(map), V::Str(key)) => map.get(key).cloned().unwrap_or(Value::Null),
            _ => return false,
        };
    }
    !value.is_null()
}

fn base64_reason(err: &base64::DecodeError) -> String {
    match err {
        base64::DecodeError::InvalidByte(at, _) | base64::DecodeError::InvalidLastSymbol(at, _) => {
            format!("illegal base64 data at input byte {at}")
        }
        base64::DecodeError::InvalidLength(at) => format!("illegal base64 data at input byte {at}"),
        base64::DecodeError::InvalidPadding => "illegal base64 data at input byte 0".to_string(),
    }
}

fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn js_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn url_query_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            b' ' => out.push('+'),
            byte => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn called(name: &str, args: &[V]) -> V {
        call(name, args).unwrap_or_else(|_| panic!("{name} failed"))
    }

    fn text(value: &str) -> V {
        V::Str(value.to_string())
    }

    // Expectations from the text/template documentation ("Functions") and Go's html, js and
    // net/url escapers.
    #[test]
    fn comparisons_follow_gos_rules() {
        assert_eq!(called("eq", &[V::Count(1), V::Count(2), V::Count(1)]), V::Bool(true));
        assert_eq!(called("ne", &[text("a"), text("b")]), V::Bool(true));
        assert_eq!(called("lt", &[V::Int(1), V::Count(2)]), V::Bool(true));
        assert_eq!(called("ge", &[V::Float(2.5), V::Float(2.5)]), V::Bool(true));
        let Err(CallError::Calling(message)) = call("eq", &[V::Int(1), text("1")]) else { panic!() };
        assert_eq!(message, "incompatible types for comparison: int64 and string");
    }

    #[test]
    fn index_slice_and_len_reach_into_values() {
        let list = V::of(&json!(["a", "b", "c"]));
        assert_eq!(called("index", &[list.clone(), V::Count(1)]), text("b"));
        assert_eq!(called("index", &[V::of(&json!({"k": {"n": 1}})), text("k"), text("n")]), V::Int(1));
        assert_eq!(called("slice", &[text("abcde"), V::Count(1), V::Count(3)]), text("bc"));
        assert_eq!(called("len", &[list]), V::Count(3));
        assert!(
            matches!(call("len", &[V::Int(3)]), Err(CallError::Calling(message)) if message == "len of type int64")
        );
        assert!(matches!(call("not", &[]), Err(CallError::Count(_))));
    }

    #[test]
    fn escapers_and_prints_write_as_go_does() {
        assert_eq!(called("html", &[text(r#"<a href="x">&'"#)]), text("&lt;a href=&#34;x&#34;&gt;&amp;&#39;"));
        assert_eq!(called("js", &[text("'a' <b>")]), text(r"\'a\' \u003Cb\u003E"));
        assert_eq!(called("urlquery", &[text("a b&c")]), text("a+b%26c"));
        assert_eq!(called("print", &[text("a"), V::Count(1), V::Count(2), text("b")]), text("a1 2b"));
        assert_eq!(called("println", &[text("a"), V::Count(1)]), text("a 1\n"));
        assert_eq!(called("exists", &[V::of(&json!({"a": [1]})), text("a"), V::Count(0)]), V::Bool(true));
        assert_eq!(called("exists", &[V::of(&json!({"a": [1]})), text("b")]), V::Bool(false));
        assert_eq!(called("base64decode", &[text("aGk=")]), text("hi"));
    }
}
