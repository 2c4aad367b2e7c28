//! How kubectl reads a plain (unquoted, untagged) YAML scalar: `sigs.k8s.io/yaml` over go-yaml v2
//! (`go.yaml.in/yaml/v2`'s `resolve`), YAML 1.1 as Go implements it, and how that package then
//! names a mapping key in JSON.
//!
//! - booleans are `y`, `yes`, `on`, `true` and `n`, `no`, `off`, `false`, each in three spellings
//!   only (`yes`, `Yes`, `YES`; `y` and `Y`): `yEs` is text;
//! - nulls are the empty scalar, `~`, `null`, `Null`, `NULL`;
//! - a scalar that starts with a digit or a sign is, with every `_` removed, an integer as Go's
//!   `strconv.ParseInt(s, 0, 64)` reads it (`0x1F`, `0o17`, `0b101`, `0777` octal, `+12`), else an
//!   unsigned one beyond `int64`, else a float of the form `[-+]?(\.d+|d+(\.d*)?)([eE][-+]?d+)?`
//!   (`08` is 8.0), else text; one that starts with `.` is a float (`.5`, `.inf`, `.nan`);
//! - base 60 (`1:20`) and timestamps stay text.
//!
//! And the other way, which strings go-yaml v2's encoder quotes ([`must_quote`]).

use serde_json::Value;

/// What go-yaml v2 reads a plain scalar as.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Plain {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond `int64`, within `uint64`.
    Uint(u64),
    Float(f64),
    /// The scalar's own text.
    Text,
}

/// go-yaml v2's reading of the plain scalar `text`.
pub fn resolve(text: &str) -> Plain {
    let Some(&first) = text.as_bytes().first() else { return Plain::Null };
    match first {
        b'0'..=b'9' | b'+' | b'-' => number(text),
        b'.' => match text {
            ".nan" | ".NaN" | ".NAN" => Plain::Float(f64::NAN),
            ".inf" | ".Inf" | ".INF" => Plain::Float(f64::INFINITY),
            // `strconv.ParseFloat` of the text as it is: `_` is refused there.
            _ if is_yaml_float(text) => finite(text),
            _ => Plain::Text,
        },
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => word(text),
        _ => Plain::Text,
    }
}

/// The boolean of a word only YAML 1.1 reads as one (`yes`, `on`, `y`, `no`, `off`, `n` as
/// go-yaml v2 spells them): what yamllint calls "truthy", almost never what was meant.
pub fn yaml11_only_bool(text: &str) -> Option<bool> {
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

fn word(text: &str) -> Plain {
    if let Some(flag) = yaml11_only_bool(text) {
        return Plain::Bool(flag);
    }
    match text {
        "true" | "True" | "TRUE" => Plain::Bool(true),
        "false" | "False" | "FALSE" => Plain::Bool(false),
        "~" | "null" | "Null" | "NULL" => Plain::Null,
        _ => Plain::Text,
    }
}

fn number(text: &str) -> Plain {
    // The usual case, a count, needs no copy.
    let bytes = text.as_bytes();
    if bytes.len() <= 18 && bytes[0] != b'0' && bytes.iter().all(u8::is_ascii_digit) {
        return text.parse().map_or(Plain::Text, Plain::Int);
    }
    match text {
        "+.inf" | "+.Inf" | "+.INF" => return Plain::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Plain::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let plain: std::borrow::Cow<'_, str> = if text.contains('_') { text.replace('_', "").into() } else { text.into() };
    if let Some(integer) = go_parse_int(&plain) {
        return integer;
    }
    if is_yaml_float(&plain)
        && let Plain::Float(float) = finite(&plain)
    {
        return Plain::Float(float);
    }
    // `0b` then a signed binary number, which `ParseInt(s, 0, 64)` refused.
    let binary = match (plain.strip_prefix("0b"), plain.strip_prefix("-0b")) {
        (Some(rest), _) => rest.to_string(),
        (None, Some(rest)) => format!("-{rest}"),
        _ => return Plain::Text,
    };
    super::strconv::parse_int_base(&binary, 2, 64).map_or(Plain::Text, Plain::Int)
}

/// `strconv.ParseInt(s, 0, 64)`, then `strconv.ParseUint(s, 0, 64)`, of `s` without `_`.
fn go_parse_int(s: &str) -> Option<Plain> {
    match super::strconv::parse_int(s, 64) {
        Ok(value) => Some(Plain::Int(value)),
        Err(err) if err.range => super::strconv::parse_uint(s).ok().map(Plain::Uint),
        Err(_) => None,
    }
}

/// go-yaml's float syntax, `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` (v2's and v3's).
pub fn is_yaml_float(text: &str) -> bool {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let s = text.strip_prefix(['+', '-']).unwrap_or(text);
    let rest = match s.strip_prefix('.') {
        Some(fraction) => match digits(fraction) {
            0 => return false,
            n => &fraction[n..],
        },
        None => match digits(s) {
            0 => return false,
            n => match s[n..].strip_prefix('.') {
                Some(fraction) => &fraction[digits(fraction)..],
                None => &s[n..],
            },
        },
    };
    match rest.strip_prefix(['e', 'E']) {
        None => rest.is_empty(),
        Some(exponent) => {
            let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            !exponent.is_empty() && digits(exponent) == exponent.len()
        }
    }
}

/// `strconv.ParseFloat(text, 64)` of a float's text: out of range is an error there, and the
/// scalar stays text.
fn finite(text: &str) -> Plain {
    match text.parse::<f64>() {
        Ok(float) if float.is_finite() => Plain::Float(float),
        _ => Plain::Text,
    }
}

/// Why a plain scalar cannot be a mapping key in JSON, as `sigs.k8s.io/yaml` refuses it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("a null key has no JSON name")]
    Null,
    #[error("a key beyond int64 ({0}) has no JSON name")]
    Uint(u64),
}

/// The JSON name `sigs.k8s.io/yaml` gives a key read as `plain` from `text`: booleans `true` and
/// `false`, integers in decimal, floats as Go's `%g` of a `float32` (`.inf`, `-.inf` and `.nan`
/// as written by go-yaml).
pub fn key_name(plain: Plain, text: &str) -> Result<std::borrow::Cow<'_, str>, KeyError> {
    Ok(match plain {
        Plain::Text => text.into(),
        Plain::Bool(flag) => if flag { "true" } else { "false" }.into(),
        Plain::Int(integer) => integer.to_string().into(),
        Plain::Float(float) if float.is_nan() => ".nan".into(),
        Plain::Float(float) if float.is_infinite() => if float > 0.0 { ".inf" } else { "-.inf" }.into(),
        Plain::Float(float) => {
            let number = serde_json::Number::from_f64(float).map(Value::Number).unwrap_or_default();
            super::unmarshal::scalar_text(&number).unwrap_or_default().into()
        }
        Plain::Null => return Err(KeyError::Null),
        Plain::Uint(integer) => return Err(KeyError::Uint(integer)),
    })
}

/// The JSON value of a plain scalar read as `plain` from `text`, or the text of the float JSON
/// cannot hold (`+Inf`, `-Inf`, `NaN`, as Go's `json: unsupported value` names it).
pub fn json_value(plain: Plain, text: &str) -> Result<Value, &'static str> {
    Ok(match plain {
        Plain::Null => Value::Null,
        Plain::Bool(flag) => Value::Bool(flag),
        Plain::Int(integer) => Value::from(integer),
        Plain::Uint(integer) => Value::from(integer),
        Plain::Float(float) if float.is_nan() => return Err("NaN"),
        Plain::Float(float) if float.is_infinite() => return Err(if float > 0.0 { "+Inf" } else { "-Inf" }),
        Plain::Float(float) => serde_json::Number::from_f64(float).map(Value::Number).unwrap_or_default(),
        Plain::Text => Value::String(text.to_string()),
    })
}

/// Whether go-yaml v2's encoder writes the string `text` quoted (as kubectl's `-o yaml` does):
/// unquoted, go-yaml would read it as something else ([`resolve`], or a timestamp), or it is a
/// base-60 float, which go-yaml quotes though it reads it as text.
pub fn must_quote(text: &str) -> bool {
    // A time first: most texts are refused at their first bytes, and a time is no number.
    super::time::is_go_yaml_time(text) || resolve(text) != Plain::Text || is_base60_float(text)
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`, e.g. `1:20`.
fn is_base60_float(text: &str) -> bool {
    if !text.contains(':') {
        return false;
    }
    let rest = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (body, fraction) = rest.split_once('.').unwrap_or((rest, ""));
    let mut parts = body.split(':');
    let head = parts.next().unwrap_or("");
    let head_ok =
        head.starts_with(|c: char| c.is_ascii_digit()) && head.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    let sexagesimal: Vec<&str> = parts.collect();
    let parts_ok = !sexagesimal.is_empty()
        && sexagesimal.iter().all(|part| {
            let bytes = part.as_bytes();
            match bytes {
                [d] => d.is_ascii_digit(),
                [t, d] => (b'0'..=b'5').contains(t) && d.is_ascii_digit(),
                _ => false,
            }
        });
    head_ok && parts_ok && fraction.bytes().all(|b| b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each as `kubectl patch --local -o json` showed it (kubectl 1.37.1).
    #[test]
    fn scalars_resolve_as_go_yaml_v2_resolves_them() {
        use Plain::*;
        let cases = [
            ("yes", Bool(true)),
            ("Yes", Bool(true)),
            ("YES", Bool(true)),
            ("y", Bool(true)),
            ("Y", Bool(true)),
            ("On", Bool(true)),
            ("NO", Bool(false)),
            ("n", Bool(false)),
            ("off", Bool(false)),
            ("True", Bool(true)),
            ("FALSE", Bool(false)),
            ("yEs", Text),
            ("tRue", Text),
            ("", Null),
            ("~", Null),
            ("Null", Null),
            ("nULL", Text),
            ("0777", Int(511)),
            ("0", Int(0)),
            ("-0", Int(0)),
            ("00", Int(0)),
            ("1_000", Int(1000)),
            ("1__0", Int(10)),
            ("0x1F", Int(31)),
            ("-0x1f", Int(-31)),
            ("0o17", Int(15)),
            ("0b101", Int(5)),
            ("0b-101", Int(-5)),
            ("+12", Int(12)),
            ("-9223372036854775808", Int(i64::MIN)),
            ("18446744073709551615", Uint(u64::MAX)),
            ("08", Float(8.0)),
            ("0777.5", Float(777.5)),
            ("1e3", Float(1000.0)),
            ("1.", Float(1.0)),
            ("+.5", Float(0.5)),
            (".5", Float(0.5)),
            (".5e1", Float(5.0)),
            ("99999999999999999999", Float(1e20)),
            ("+.inf", Float(f64::INFINITY)),
            ("-.Inf", Float(f64::NEG_INFINITY)),
            (".INF", Float(f64::INFINITY)),
            ("1e999", Text),
            ("._5", Text),
            (".infinity", Text),
            ("1:20", Text),
            ("190:20:30.15", Text),
            ("2001-12-14", Text),
            ("0x", Text),
            ("-", Text),
            ("+inf", Text),
            ("100Mi", Text),
            ("13.0.2", Text),
            ("1e", Text),
            ("nginx", Text),
            ("<<", Text),
        ];
        for (text, expected) in cases {
            assert_eq!(resolve(text), expected, "{text:?}");
        }
        assert!(matches!(resolve(".nan"), Float(float) if float.is_nan()));
    }

    #[test]
    fn keys_are_named_as_sigs_yaml_names_them() {
        let name = |text: &str| key_name(resolve(text), text).map(|name| name.into_owned());
        assert_eq!(name("y").unwrap(), "true");
        assert_eq!(name("off").unwrap(), "false");
        assert_eq!(name("0x1F").unwrap(), "31");
        assert_eq!(name("1.5").unwrap(), "1.5");
        assert_eq!(name("1e6").unwrap(), "1e+06");
        assert_eq!(name("3.14159265358979").unwrap(), "3.1415927");
        assert_eq!(name("-.inf").unwrap(), "-.inf");
        assert_eq!(name("key").unwrap(), "key");
        assert_eq!(name("~"), Err(KeyError::Null));
        assert_eq!(name("18446744073709551615"), Err(KeyError::Uint(u64::MAX)));
    }

    #[test]
    fn floats_json_cannot_hold_are_refused() {
        assert_eq!(json_value(resolve(".inf"), ".inf"), Err("+Inf"));
        assert_eq!(json_value(resolve("-.inf"), "-.inf"), Err("-Inf"));
        assert_eq!(json_value(resolve(".NaN"), ".NaN"), Err("NaN"));
        assert_eq!(json_value(resolve("1e3"), "1e3"), Ok(serde_json::json!(1000.0)));
        assert_eq!(json_value(resolve("yes"), "yes"), Ok(Value::Bool(true)));
    }

    #[test]
    fn strings_that_would_read_as_another_type_are_quoted() {
        for text in
            ["2026-01-02T03:04:05Z", "2026-01-02", "123", "0x1F", "1.5", "1e3", "1:20", "true", "yes", "null", ""]
        {
            assert!(must_quote(text), "{text:?}");
        }
        for text in ["plain", "25%", "1.2.3", "v1", "-", "a#b", "k:{}"] {
            assert!(!must_quote(text), "{text:?}");
        }
    }

    /// As kubectl 1.37.1 printed them (`create configmap --from-literal --dry-run=client -o yaml`):
    /// what go-yaml cannot read as a number or a time (out of range, no such day or hour) is plain.
    #[test]
    fn strings_quoted_as_kubectl_quotes_them() {
        for text in ["2001-1-2", "2001-02-28", "1_0", "0b101", "-0b101", "0x_1F", "+0x1F", "1:20"] {
            assert!(must_quote(text), "{text:?}");
        }
        for text in ["1e400", ".1e400", "2001-02-30", "2001-01-01T25:00:00Z", "<<"] {
            assert!(!must_quote(text), "{text:?}");
        }
    }
}
