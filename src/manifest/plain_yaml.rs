//! The usual manifest document read straight from the YAML parser's events: collections of text
//! keys, and scalars that are text, `true`, `false`, `null`, a plain count or a fraction. serde-saphyr reads
//! such a document to the same value through serde, several times slower (parsing is most of a
//! large build's time). Anything else — a tag, an anchor or an alias, a merge key, a duplicate
//! key, a `%YAML` directive, a plain scalar YAML may read as another number, boolean or null, an
//! error — makes [`value`] answer `None`, and the caller reads the document with serde-saphyr,
//! whose reading stays the reference (and whose words name the errors).

use std::borrow::Cow;

use serde_json::{Map, Value};
use serde_saphyr::granit_parser::{Event, Options, Parser, ScalarStyle};

/// Deeper, larger or longer documents (counted in parser events, at least one per node) are left
/// to serde-saphyr, whose budget (128 levels as `yaml_options` sets it, 250,000 nodes, 64 MiB of
/// scalars) decides whether to read them.
const MAX_DEPTH: usize = 100;
const MAX_NODES: usize = 200_000;
const MAX_BYTES: usize = 32 << 20;

/// A collection being read.
enum Open {
    Sequence(Vec<Value>),
    /// A mapping, with the key whose value comes next.
    Mapping(Map<String, Value>, Option<String>),
}

/// The value of the single YAML document `text`, when it has only the shapes described above.
pub(super) fn value(text: &str) -> Option<Value> {
    if text.len() > MAX_BYTES {
        return None;
    }
    let mut options = Options::default();
    options.emit_comments = false;
    let mut open: Vec<Open> = Vec::new();
    let mut root = None;
    let mut documents = 0;
    for (count, event) in Parser::new_from_str_with_options(text, options).enumerate() {
        let (event, _) = event.ok()?;
        if count > MAX_NODES {
            return None;
        }
        let awaits_key = matches!(open.last(), Some(Open::Mapping(_, None)));
        let value = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => continue,
            Event::DocumentStart(_, version) => {
                documents += 1;
                if version.is_some() || documents > 1 {
                    return None;
                }
                continue;
            }
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                if awaits_key {
                    let key = key(text, style)?;
                    if let Some(Open::Mapping(_, next)) = open.last_mut() {
                        *next = Some(key);
                    }
                    continue;
                }
                scalar(text, style)?
            }
            Event::SequenceStart(_, anchor, ref tag) | Event::MappingStart(_, anchor, ref tag) => {
                if anchor != 0 || tag.is_some() || awaits_key || open.len() >= MAX_DEPTH {
                    return None;
                }
                let is_sequence = matches!(event, Event::SequenceStart(..));
                open.push(if is_sequence { Open::Sequence(Vec::new()) } else { Open::Mapping(Map::new(), None) });
                continue;
            }
            Event::SequenceEnd => match open.pop()? {
                Open::Sequence(items) => Value::Array(items),
                Open::Mapping(..) => return None,
            },
            Event::MappingEnd => match open.pop()? {
                Open::Mapping(map, None) => Value::Object(map),
                _ => return None,
            },
            _ => return None,
        };
        match open.last_mut() {
            None if root.is_none() => root = Some(value),
            None => return None,
            Some(Open::Sequence(items)) => items.push(value),
            Some(Open::Mapping(map, key)) => {
                if map.insert(key.take()?, value).is_some() {
                    return None;
                }
            }
        }
    }
    root
}

/// A mapping key: text, unless YAML may read it as something else (or as a merge key).
fn key(text: Cow<'_, str>, style: ScalarStyle) -> Option<String> {
    if text == "<<" || (style == ScalarStyle::Plain && may_be_other_than_text(&text)) {
        return None;
    }
    Some(text.into_owned())
}

/// A value scalar: quoted and block scalars are text; plain ones are `true`, `false`, `null`, a
/// count without a leading zero, a decimal fraction, or text that no YAML schema reads as
/// anything else.
fn scalar(text: Cow<'_, str>, style: ScalarStyle) -> Option<Value> {
    if style != ScalarStyle::Plain {
        return Some(Value::String(text.into_owned()));
    }
    match &*text {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" | "~" => return Some(Value::Null),
        _ => {}
    }
    let count = text.len() <= 18
        && text.bytes().all(|byte| byte.is_ascii_digit())
        && (text.len() == 1 || !text.starts_with('0'));
    if count {
        return text.parse::<u64>().ok().map(Value::from);
    }
    // A decimal fraction (`0.5`, `1.0`) is a float.
    let fraction = text.split_once('.').is_some_and(|(whole, part)| {
        [whole, part].iter().all(|digits| !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()))
    });
    if fraction && text.len() <= 24 {
        return text.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(Value::Number);
    }
    if may_be_other_than_text(&text) {
        return None;
    }
    Some(Value::String(text.into_owned()))
}

/// Whether a plain scalar might be read as a number, a boolean (YAML 1.1's `yes`, `on` and `y`
/// included) or a null: the empty one, the words of those types in any case, and those shaped
/// like a number: a digit then only what numbers, times and radix prefixes are written with
/// (`100Mi` and `30s` are text), or a sign or a dot then a digit or `inf`/`nan`.
fn may_be_other_than_text(text: &str) -> bool {
    const WORDS: [&str; 13] =
        ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "inf", "infinity", "nan"];
    let is_word = |text: &str| WORDS.iter().any(|word| text.eq_ignore_ascii_case(word));
    if text.is_empty() || is_word(text) {
        return true;
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let signed = unsigned.len() < text.len();
    let after_dot = unsigned.strip_prefix('.');
    match unsigned.chars().next() {
        None => true,
        // Two dots make a version or an address, never a number.
        Some(first) if first.is_ascii_digit() => {
            unsigned.chars().all(|c| c.is_ascii_hexdigit() || "._+-xXoObB:tTzZ ".contains(c))
                && unsigned.matches('.').count() < 2
        }
        Some('.') => after_dot.is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_digit() || c == '_')
                || rest
                    .get(..3)
                    .is_some_and(|start| start.eq_ignore_ascii_case("inf") || start.eq_ignore_ascii_case("nan"))
        }),
        Some(_) => signed && is_word(unsigned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_usual_shapes_are_read_as_serde_saphyr_reads_them() {
        let text = "kind: Service\nspec:\n  ports:\n  - port: 80\n    name: \"80\"\n  flag: true\n  none: null\n  empty:\n  list: [a, 'b', 0]\nnote: |\n  two\n  lines\n";
        let expected = json!({
            "kind": "Service",
            "spec": {"ports": [{"port": 80, "name": "80"}], "flag": true, "none": null, "empty": null, "list": ["a", "b", 0]},
            "note": "two\nlines\n",
        });
        assert_eq!(value(text), Some(expected));
        let texts = "memory: 100Mi\nperiod: 30s\nversion: 13.0.2\nratio: [0.5, 1.0, 01.50]\nargs: [--port=80, -Xmx1g, ./run, ..., .x, info, nano, yesterday, v1.2]\n";
        let reference: Value = serde_saphyr::from_str(texts).unwrap();
        assert_eq!(value(texts), Some(reference));
    }

    #[test]
    fn what_yaml_may_read_otherwise_is_left_to_serde_saphyr() {
        for text in [
            "a: yes\n",
            "a: On\n",
            "a: y\n",
            "a: 0755\n",
            "a: -1\n",
            "a: .inf\n",
            "a: Infinity\n",
            "a: -.inf\n",
            "a: +1\n",
            "a: 0x1F\n",
            "a: .5\n",
            "a: 12:30\n",
            "a: 1e3\n",
            "a: NaN\n",
            "a: 2001-12-14\n",
            "a: True\n",
            "a: NULL\n",
            "1: a\n",
            "y: a\n",
            "a: !!str 1\n",
            "a: &x 1\nb: *x\n",
            "<<: {a: 1}\n",
            "a: 1\na: 2\n",
            "? [a]\n: 1\n",
            "%YAML 1.1\n---\na: 1\n",
            "a: [unclosed\n",
            "",
            "a: 99999999999999999999\n",
        ] {
            assert_eq!(value(text), None, "{text:?}");
        }
        let many_nodes = format!("[{}]", "1, ".repeat(MAX_NODES));
        assert_eq!(value(&many_nodes), None);
        assert!(value(&format!("[{}]", "1, ".repeat(1000))).is_some());
    }
}
