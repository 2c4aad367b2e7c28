//! Fields written with no value (`preferred:` alone on its line). YAML reads them as `null`, as
//! it reads `preferred: null`, but kustomize's strategic merge (kyaml's walker) tells them apart:
//! a patch keeps an explicit `null` of the object it patches and drops an empty one. A resource
//! file is read with each empty value marked, and the fields that held one are remembered.

use std::borrow::Cow;

use serde_json::Value;

use super::types::field_specs::pointer_segment;

/// What an empty value is read as until [`take`] puts the `null` back.
const MARK: &str = "\u{1}kubeupd-empty-null\u{1}";
const MARK_YAML: &str = "\"\\x01kubeupd-empty-null\\x01\"";

/// `text` (one YAML stream) with every block mapping value that is empty written as the mark.
/// Block scalars' lines and flow collections are left as they are.
pub fn mark(text: &str) -> Cow<'_, str> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    // Written from the first marked line on; until then `text` stands as it is.
    let mut marked: Option<String> = None;
    let mut line_start = 0;
    // Inside a scalar (a block scalar, or one continued on the next lines): lines indented more
    // than this belong to it.
    let mut scalar_indent: Option<usize> = None;
    for (at, line) in lines.iter().enumerate() {
        let start = line_start;
        line_start += line.len();
        // Most lines of a long block scalar say they belong to it in their first bytes.
        let in_scalar =
            |block: usize| line.as_bytes().get(..=block).is_some_and(|lead| lead.iter().all(|b| *b == b' '));
        if scalar_indent.is_some_and(in_scalar) {
            marked.iter_mut().for_each(|marked| marked.push_str(line));
            continue;
        }
        let content = line.trim_end_matches(['\n', '\r']);
        let (indent, body) = split_indent(content);
        if scalar_indent.is_some() {
            if body.is_empty() {
                marked.iter_mut().for_each(|marked| marked.push_str(line));
                continue;
            }
            scalar_indent = None;
        }
        let value = without_comment(body);
        let own_indent = indent + usize::from(body.starts_with("- ")) * 2;
        let key_alone = value.ends_with(':')
            && !value.starts_with('#')
            && !value.contains(['{', '[', '"', '\''])
            && value != "-"
            && value.trim_start_matches("- ").len() > 1;
        if !key_alone && !value.is_empty() && !value.starts_with('#') && value != "-" {
            // A value on this line: what is indented more below it continues it.
            scalar_indent = Some(own_indent);
        }
        if key_alone && value_is_empty(&lines[at + 1..], own_indent) {
            let marked = marked.get_or_insert_with(|| {
                let mut marked = String::with_capacity(text.len() + MARK_YAML.len());
                marked.push_str(&text[..start]);
                marked
            });
            marked.push_str(&content[..indent]);
            marked.push_str(value);
            marked.push(' ');
            marked.push_str(MARK_YAML);
            marked.push_str(&line[content.len()..]);
        } else {
            marked.iter_mut().for_each(|marked| marked.push_str(line));
        }
    }
    marked.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// `line`'s indentation (spaces) and what follows it.
fn split_indent(line: &str) -> (usize, &str) {
    let indent = line.bytes().take_while(|byte| *byte == b' ').count();
    (indent, &line[indent..])
}

/// `body` without a trailing `#` comment (one after a space), trimmed.
fn without_comment(body: &str) -> &str {
    match body.find(" #") {
        Some(at) => body[..at].trim_end(),
        None => body.trim_end(),
    }
}

/// Whether a key at `indent` has no value: the next line that is not blank or a comment is not
/// indented more, and is not a list item at the key's indentation (`key:` then `- a`).
fn value_is_empty(rest: &[&str], indent: usize) -> bool {
    for line in rest {
        let content = line.trim_end_matches(['\n', '\r']);
        let body = content.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        if body.starts_with("---") || body.starts_with("...") {
            return true;
        }
        let next_indent = content.len() - body.len();
        return next_indent < indent || (next_indent == indent && !body.starts_with("- ") && body != "-");
    }
    true
}

/// Puts `null` back where `value` holds the mark, and returns those places (JSON pointers).
pub fn take(value: &mut Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(value, &mut String::new(), &mut found);
    found
}

fn walk(value: &mut Value, pointer: &mut String, found: &mut Vec<String>) {
    let length = pointer.len();
    match value {
        Value::String(text) if text == MARK => {
            *value = Value::Null;
            found.push(pointer.clone());
        }
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                pointer.push('/');
                pointer.push_str(&pointer_segment(key));
                walk(child, pointer, found);
                pointer.truncate(length);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                pointer.push_str(&format!("/{index}"));
                walk(item, pointer, found);
                pointer.truncate(length);
            }
        }
        _ => {}
    }
}

/// What kyaml's walker leaves of `object` after a patch: the fields at `places` that still hold
/// `null` are removed.
pub fn drop_remaining(object: &mut Value, places: &[String]) {
    for place in places {
        let Some((parent, key)) = place.rsplit_once('/') else { continue };
        let key = key.replace("~1", "/").replace("~0", "~");
        if let Some(Value::Object(map)) = object.pointer_mut(parent)
            && map.get(&key).is_some_and(Value::is_null)
        {
            map.remove(&key);
        }
    }
}

/// kustomize writes annotations back as text (see [`super::origin::strip`]): an empty one is
/// `""`, where an explicit `null` is `"null"`.
pub fn empty_annotations_as_text(object: &mut Value, places: &[String]) {
    for place in places.iter().filter(|place| place.starts_with("/metadata/annotations/")) {
        if let Some(value) = object.pointer_mut(place).filter(|value| value.is_null()) {
            *value = Value::String(String::new());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_values_are_marked_and_explicit_nulls_and_lists_are_not() {
        let text = "a:\n  pref:\n  req: null\n  list:\n  - x\n  nested:\n    deep:\n  text: |\n    key:\n  \
                    quoted: 'a\n    b:'\n  last: # note\n";
        let marked = mark(text);
        let value: Value = serde_saphyr::from_str(&marked).unwrap();
        let mut value = value;
        let places = take(&mut value);
        assert_eq!(places, ["/a/last", "/a/nested/deep", "/a/pref"]);
        assert_eq!(value["a"]["text"], "key:\n");
        assert_eq!(value["a"]["quoted"], "a b:");
        assert_eq!(value["a"]["list"], serde_json::json!(["x"]));
        assert!(value["a"]["pref"].is_null() && value["a"]["req"].is_null());
    }

    #[test]
    fn remaining_empty_values_are_dropped() {
        let mut object = serde_json::json!({"a": {"pref": null, "req": null, "set": 1}});
        drop_remaining(&mut object, &["/a/pref".into(), "/a/set".into()]);
        assert_eq!(object, serde_json::json!({"a": {"req": null, "set": 1}}));
    }
}
