//! `-o kyaml` (kubectl 1.34 and later): KYAML, the strict, explicit subset of YAML that
//! sigs.k8s.io/yaml's encoder writes. Each document starts with `---`; maps are `{}` and lists
//! `[]` across lines, with a comma after every item; lists of maps or lists are cuddled
//! (`[{` ... `}, {` ... `}]`); strings are always double-quoted, a multi-line one folded over
//! lines; keys are quoted only when a YAML parser could read them as something else (`"no"`,
//! `"1.5"`, `"f"`). Numbers print as Go's JSON prints them, since kubectl encodes the object as
//! JSON first. Pure: a value in, text out.

use std::fmt::Write;

use serde_json::Value;

use crate::gocompat;

/// `value` as one KYAML document, header and final newline included.
pub fn to_kyaml(value: &Value) -> String {
    let mut out = String::from("---\n");
    node(value, "", 0, &mut out);
    out.push('\n');
    out
}

/// `object` as one KYAML document from its Go struct `struct_name` (what kubectl's generators
/// make): each struct's keys in its fields' order (see [`super::go_order`]).
pub fn to_kyaml_typed(object: &Value, struct_name: &'static str) -> String {
    let mut out = String::from("---\n");
    node(object, struct_name, 0, &mut out);
    out.push('\n');
    out
}

/// A document of one map whose keys come in the order given (a Go struct's fields, as kubectl
/// writes a typed object), each value as [`to_kyaml`] writes it.
pub fn to_kyaml_fields(fields: &[(&str, &Value)]) -> String {
    let mut out = String::from("---\n");
    map(fields.iter().map(|(key, value)| (*key, *value, "")), 0, &mut out);
    out.push('\n');
    out
}

/// A value, of the Go struct `struct_name` (`""` for none: its keys sorted).
fn node(value: &Value, struct_name: &'static str, indent: usize, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => out.push_str(&gocompat::json::to_compact(&Value::Number(number.clone()))),
        Value::String(text) => string(text, indent + 1, out),
        Value::Array(items) => sequence(items, struct_name, indent, out),
        Value::Object(entries) => map(super::go_order::entries(entries, struct_name).into_iter(), indent, out),
    }
}

/// A map: `{}` when empty, else one key a line.
fn map<'a>(
    entries: impl ExactSizeIterator<Item = (&'a str, &'a Value, &'static str)>,
    indent: usize,
    out: &mut String,
) {
    if entries.len() == 0 {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    for (key, value, struct_name) in entries {
        write_indent(indent + 1, out);
        key_text(key, out);
        out.push_str(": ");
        node(value, struct_name, indent + 1, out);
        out.push_str(",\n");
    }
    write_indent(indent, out);
    out.push('}');
}

/// A list: `[]` when empty; cuddled when every item is a map or a list, else one item a line.
fn sequence(items: &[Value], struct_name: &'static str, indent: usize, out: &mut String) {
    if items.is_empty() {
        out.push_str("[]");
        return;
    }
    if items.iter().all(|item| item.is_object() || item.is_array()) {
        out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            node(item, struct_name, indent, out);
        }
        out.push(']');
        return;
    }
    out.push_str("[\n");
    write_indent(indent, out);
    for item in items {
        write_indent(1, out);
        node(item, struct_name, indent + 1, out);
        out.push_str(",\n");
        write_indent(indent, out);
    }
    out.push(']');
}

fn write_indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// A map key: bare unless it needs quotes, then quoted on one line.
fn key_text(key: &str, out: &mut String) {
    if !key.contains('\n') && !needs_quotes(key) {
        out.push_str(key);
        return;
    }
    out.push('"');
    for c in key.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => escaped(c, out),
        }
    }
    out.push('"');
}

/// A string value, double-quoted; one with line breaks folded: each line on its own, indented,
/// ending in `\n\`.
fn string(text: &str, indent: usize, out: &mut String) {
    let multi_line = text.contains('\n');
    out.push('"');
    if multi_line {
        out.push_str("\\\n");
    }
    for c in text.chars() {
        if out.ends_with('\n') {
            write_indent(indent, out);
            // Leading white space of a line is escaped, as folding would drop it; other lines
            // get a space, which folding drops, to keep them aligned.
            out.push(if c.is_whitespace() && c != '\n' { '\\' } else { ' ' });
        }
        match c {
            '\n' => out.push_str("\\n\\\n"),
            '\t' => out.push('\t'),
            c => escaped(c, out),
        }
    }
    if multi_line {
        if !out.ends_with('\n') {
            out.push_str("\\\n");
        }
        write_indent(indent, out);
    }
    out.push('"');
}

/// One character inside double quotes, escaped as the KYAML encoder escapes it (Go's
/// `strconv.Quote` with YAML's escapes).
fn escaped(c: char, out: &mut String) {
    match c {
        '"' | '\\' => {
            out.push('\\');
            out.push(c);
        }
        c if is_print(c) => out.push(c),
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\r' => out.push_str("\\r"),
        '\x0b' => out.push_str("\\v"),
        '\0' => out.push_str("\\0"),
        '\x1b' => out.push_str("\\e"),
        '\u{85}' => out.push_str("\\N"),
        '\u{a0}' => out.push_str("\\_"),
        '\u{2028}' => out.push_str("\\L"),
        '\u{2029}' => out.push_str("\\P"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if (c as u32) < 0x10000 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\U{:08x}", c as u32);
        }
    }
}

/// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
/// Without Unicode's category tables, this leaves out control and format characters, spaces
/// other than U+0020, surrogates and private use; unassigned code points count as printable.
fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let code = c as u32;
    let format = matches!(code,
        0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 | 0x180e
        | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f | 0xfeff
        | 0xfff9..=0xfffb | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3
        | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f);
    let private = matches!(code, 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd);
    !format && !private
}

/// Whether a key must be quoted: empty, read by YAML as another type, or holding characters
/// other than letters, digits, `_`, and `-`, `.`, `/` inside.
fn needs_quotes(key: &str) -> bool {
    if key.is_empty() || type_ambiguous(key) {
        return true;
    }
    let chars: Vec<char> = key.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        let interior = i > 0 && i + 1 < chars.len() && matches!(c, '-' | '.' | '/');
        !(c.is_alphabetic() || c.is_numeric() || c == '_' || interior)
    })
}

/// Whether YAML could read `text` unquoted as null, a boolean, a number or a time.
fn type_ambiguous(text: &str) -> bool {
    let lower = text.to_lowercase();
    let short = text.len() <= 5;
    if short && matches!(lower.as_str(), "null" | "~" | "") {
        return true;
    }
    // Go's strconv.ParseBool, then YAML 1.1's booleans.
    if matches!(text, "1" | "t" | "T" | "TRUE" | "true" | "True" | "0" | "f" | "F" | "FALSE" | "false" | "False") {
        return true;
    }
    if short && matches!(lower.as_str(), "true" | "y" | "yes" | "on" | "false" | "n" | "no" | "off") {
        return true;
    }
    let digits = text.replace('_', "");
    if go_int(&digits) || go_float(&digits) || sexagesimal(text) {
        return true;
    }
    if short && matches!(lower.as_str(), ".inf" | "-.inf" | "+.inf" | ".nan") {
        return true;
    }
    timestamp(text)
}

/// Go's `strconv.ParseInt(text, 0, 64)` succeeding or failing only by range.
fn go_int(text: &str) -> bool {
    !matches!(gocompat::strconv::parse_int(text, 64), Err(gocompat::strconv::NumError { range: false, .. }))
}

/// Go's `strconv.ParseFloat(text, 64)` succeeding or failing only by range: decimal or
/// hexadecimal floats, `inf`, `infinity` and `nan` in any case.
fn go_float(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let lower = unsigned.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity") || (lower == "nan" && unsigned.len() == text.len()) {
        return true;
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        // A hexadecimal float needs its `p` exponent.
        let Some((mantissa, exponent)) = hex.split_once('p') else { return false };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits_ok = |s: &str| s.chars().all(|c| c.is_ascii_hexdigit());
        return (!whole.is_empty() || !fraction.is_empty())
            && digits_ok(whole)
            && digits_ok(fraction)
            && decimal_exponent(exponent);
    }
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (lower.as_str(), None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_ok = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    (!whole.is_empty() || !fraction.is_empty())
        && digits_ok(whole)
        && digits_ok(fraction)
        && exponent.is_none_or(decimal_exponent)
}

fn decimal_exponent(exponent: &str) -> bool {
    let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// YAML 1.1's base-60 numbers, such as `11:00` or `-1:30:00.5`.
fn sexagesimal(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (integer, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    if !fraction.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return false;
    }
    if unsigned.contains('.') && text.is_empty() {
        return false;
    }
    let mut parts = integer.split(':');
    let first = parts.next().unwrap_or_default();
    let first_ok =
        first.starts_with(|c: char| ('1'..='9').contains(&c)) && first.chars().all(|c| c.is_ascii_digit() || c == '_');
    let rest: Vec<&str> = parts.collect();
    first_ok
        && !rest.is_empty()
        && rest.iter().all(|part| match part.as_bytes() {
            [d] => d.is_ascii_digit(),
            [a, b] => (b'0'..=b'5').contains(a) && b.is_ascii_digit(),
            _ => false,
        })
}

/// A time YAML would read: `YYYY-M-D`, optionally followed by `T` or `t` or a space and a time
/// (the formats of go-yaml's timestamp check).
fn timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() < 5 || !bytes[..4].iter().all(u8::is_ascii_digit) || bytes[4] != b'-' {
        return false;
    }
    let rest = &text[5..];
    let (date, time) = match rest.find(['T', 't', ' ']) {
        Some(at) => (&rest[..at], Some((&rest[at..at + 1], &rest[at + 1..]))),
        None => (rest, None),
    };
    let Some((month, day)) = date.split_once('-') else { return false };
    let number = |s: &str, max: u32| (1..=2).contains(&s.len()) && s.parse::<u32>().is_ok_and(|n| n >= 1 && n <= max);
    if !number(month, 12) || !number(day, 31) {
        return false;
    }
    match time {
        None => true,
        Some((separator, time)) => clock(time, separator != " "),
    }
}

/// `15:4:5` with optional fraction; after `T`, a zone (`Z` or `±hh:mm`) is required.
fn clock(text: &str, zoned: bool) -> bool {
    let (clock, zone) = if zoned {
        match text.find(['Z', '+', '-']) {
            Some(at) => (&text[..at], &text[at..]),
            None => return false,
        }
    } else {
        (text, "")
    };
    let (clock, fraction) = clock.split_once('.').unwrap_or((clock, ""));
    if clock.len() == text.len() && clock.contains('.') {
        return false;
    }
    let parts: Vec<&str> = clock.split(':').collect();
    let field = |s: &str, max: u32| (1..=2).contains(&s.len()) && s.parse::<u32>().is_ok_and(|n| n <= max);
    let clock_ok = parts.len() == 3 && field(parts[0], 23) && field(parts[1], 59) && field(parts[2], 59);
    let fraction_ok = fraction.chars().all(|c| c.is_ascii_digit()) && (fraction.len() <= 9);
    let zone_ok = !zoned || zone == "Z" || {
        let offset = &zone[1..];
        offset.len() == 5 && offset.as_bytes()[2] == b':' && field(&offset[..2], 23) && field(&offset[3..], 59)
    };
    clock_ok && fraction_ok && zone_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_lists_and_strings_print_as_kubectl_1_37_prints_them() {
        // Expected output from `kubectl create deployment web --image=nginx --replicas=3
        // --port=80 --dry-run=client -o kyaml` (kubectl 1.37.1), keys in key order here.
        let deployment = json!({"spec": {"replicas": 3, "template": {"spec": {"containers": [
            {"name": "nginx", "ports": [{"containerPort": 80}], "resources": {}}]}}, "strategy": {}}});
        assert_eq!(
            to_kyaml(&deployment),
            "---\n{\n  spec: {\n    replicas: 3,\n    strategy: {},\n    template: {\n      spec: {\n        containers: [{\n          name: \"nginx\",\n          ports: [{\n            containerPort: 80,\n          }],\n          resources: {},\n        }],\n      },\n    },\n  },\n}\n"
        );
        let multi = json!({"data": {"multi": "line1\nline2", "e": "", "n": "123"}});
        assert_eq!(
            to_kyaml(&multi),
            "---\n{\n  data: {\n    e: \"\",\n    multi: \"\\\n       line1\\n\\\n       line2\\\n      \",\n    \"n\": \"123\",\n  },\n}\n"
        );
    }

    #[test]
    fn scalars_in_lists_go_one_a_line() {
        let value = json!({"args": ["a", 1, true, null], "empty": []});
        assert_eq!(
            to_kyaml(&value),
            "---\n{\n  args: [\n    \"a\",\n    1,\n    true,\n    null,\n  ],\n  empty: [],\n}\n"
        );
    }

    #[test]
    fn keys_are_quoted_only_when_ambiguous() {
        // From `kubectl get cm -o kyaml` (kubectl 1.37.1) on a ConfigMap with these keys.
        let quoted = [".dot", "0x10", "1.5", "123", "1e3", "True", "no", "null", "off", "y", "yes", "f", "on", "11:30"];
        for key in quoted {
            assert!(needs_quotes(key), "{key}");
        }
        let bare = ["_x", "a-b", "key.name", "app.kubernetes.io/name", "annotations", "fluent", "2026-13-01"];
        for key in bare {
            assert!(!needs_quotes(key), "{key}");
        }
        assert!(needs_quotes("2026-11-24"), "a date");
        assert!(needs_quotes("2026-11-24T06:55:14Z"), "a time");
        assert!(needs_quotes("a-"), "- only inside");
    }

    #[test]
    fn strings_escape_as_the_kyaml_encoder_does() {
        let value = json!({"a": "tab\there \"q\" \u{1}ctl é", "b": "  indented\nline\n"});
        assert_eq!(
            to_kyaml(&value),
            "---\n{\n  a: \"tab\there \\\"q\\\" \\x01ctl é\",\n  b: \"\\\n    \\  indented\\n\\\n     line\\n\\\n    \",\n}\n"
        );
    }
}
