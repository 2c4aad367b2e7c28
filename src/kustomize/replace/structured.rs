//! A replacement's target path into a JSON or YAML document held in a string
//! (`data.[config.json].db.host`), as kustomize v5.8.1 sets it: the first field on the path
//! whose string reads as YAML holds the document; the rest of the path is matched in it (kyaml's
//! `PathMatcher`, creating what is missing when asked), the value is set, and the document is
//! written back, as compact or indented JSON when it was JSON, else as YAML. When any of this
//! fails, kustomize takes the path as an ordinary one ([`super::path`]).

use serde_json::Value;

use super::path::{self, Create};
use crate::gocompat::json;
use crate::kustomize::error::Error;
use crate::kustomize::node::{self, Kind, Node};
use crate::kustomize::pattern;

/// Sets `value` at `segments` inside the document a string on the way holds; `Ok(false)` when
/// kustomize would take the path as an ordinary one.
pub fn set(
    object: &mut Value,
    segments: &[String],
    field_path: &str,
    value: &Value,
    create: Create,
) -> Result<bool, Error> {
    if segments.len() < 2 {
        return Ok(false);
    }
    let Some((pointer, text, inner)) = (1..segments.len()).find_map(|at| {
        let (pointer, found) = path::locate(object, &segments[..at]).ok()??;
        let text = match found {
            Value::Object(_) | Value::Array(_) => return None,
            scalar => path::scalar_text(scalar),
        };
        let document = node::parse(&text)?;
        Some((pointer, text, (document, &segments[at..])))
    }) else {
        return Ok(false);
    };
    let (document, rest) = inner;
    let Some(mut root) = document.root else { return Ok(false) };
    let text_value = path::scalar_text(value);
    let mut set_node = |node: &mut Node| match &mut node.kind {
        Kind::Scalar { text, .. } => *text = text_value.clone(),
        _ => *node = Node::from_value(value),
    };
    match walk(&mut root, rest, create, &mut set_node) {
        Ok(count) if count > 0 => {}
        _ => return Ok(false),
    }
    let written = if text.trim_start().starts_with(['{', '[']) {
        // kustomize writes the tree as YAML, reads that back into Go values, then writes JSON.
        let Some(reread) = node::parse(&node::emit(&root)).and_then(|document| document.root) else {
            return Ok(false);
        };
        let Ok(decoded) = node::decode(&reread) else { return Ok(false) };
        if text.contains('\n') && text.contains("  ") {
            let mut out = Vec::new();
            json::write_indented(&mut out, &decoded, "  ")?;
            String::from_utf8_lossy(&out).trim_end_matches('\n').to_string()
        } else {
            json::to_compact(&decoded)
        }
    } else {
        if document.lossy {
            return Err(Error::StructuredYamlNotKept(field_path.to_string()));
        }
        node::emit(&root).trim().to_string()
    };
    if let Some(field) = object.pointer_mut(&pointer) {
        *field = Value::String(written);
    }
    Ok(true)
}

/// Calls `visit` on every node `path` matches in `node` (kyaml's `PathMatcher`), creating what
/// is missing as `create` says; returns how many matched. A field that holds a string, with
/// more path to go, is matched in the document the string holds, a copy that nothing keeps.
fn walk(node: &mut Node, path: &[String], create: Create, visit: &mut dyn FnMut(&mut Node)) -> Result<usize, Error> {
    let Some((segment, rest)) = path.split_first() else {
        visit(node);
        return Ok(1);
    };
    let creating = create != Create::Nothing;
    let kind_name = |node: &Node| match node.kind {
        Kind::Mapping { .. } => "MappingNode",
        Kind::Sequence { .. } => "SequenceNode",
        Kind::Scalar { .. } => "ScalarNode",
    };
    let wrong = |node: &Node, expected| Error::WrongNodeKind { expected, found: kind_name(node) };
    if segment.bytes().all(|byte| byte.is_ascii_digit()) && !segment.is_empty() {
        let position: usize = segment.parse().map_err(|_| wrong(node, "SequenceNode"))?;
        let Kind::Sequence { items, .. } = &mut node.kind else { return Err(wrong(node, "SequenceNode")) };
        if position == items.len() && creating {
            items.push(placeholder(rest, create));
        }
        let count = items.len();
        let item = items.get_mut(position).ok_or(Error::IndexOutOfRange { position, count })?;
        return walk(item, rest, create, visit);
    }
    if segment == "*" {
        let Kind::Sequence { items, .. } = &mut node.kind else { return Err(wrong(node, "SequenceNode")) };
        let mut count = 0;
        for item in items {
            count += walk(item, rest, create, visit)?;
        }
        return Ok(count);
    }
    if let Some(inner) = segment.strip_prefix('[').and_then(|inner| inner.strip_suffix(']')) {
        let (field, wanted) = inner.split_once('=').ok_or(Error::ListSelectorWithoutEquals)?;
        let Kind::Sequence { items, .. } = &mut node.kind else { return Err(wrong(node, "SequenceNode")) };
        let mut count = 0;
        for item in items.iter_mut() {
            let text = match (field, &item.kind) {
                ("", _) => node::emit(item),
                (field, Kind::Mapping { pairs, .. }) => match pairs.iter().find(|(key, _)| key_text(key) == field) {
                    Some((_, value)) => node::emit(value),
                    None => continue,
                },
                _ => continue,
            };
            if pattern::compile(wanted)?.is_match(text.trim()) {
                count += walk(item, rest, create, visit)?;
            }
        }
        if count == 0 && creating {
            let item = match field {
                "" => Node::scalar(wanted),
                field => {
                    Node::new(Kind::Mapping { pairs: vec![(Node::scalar(field), Node::scalar(wanted))], flow: false })
                }
            };
            items.push(item);
            return walk(items.last_mut().expect("just pushed"), rest, create, visit);
        }
        return Ok(count);
    }
    let Kind::Mapping { pairs, .. } = &mut node.kind else {
        return match &node.kind {
            Kind::Scalar { text, .. } if text.is_empty() || node.tag == "!!null" => Ok(0),
            _ => Err(wrong(node, "MappingNode")),
        };
    };
    let position = match pairs.iter().position(|(key, _)| key_text(key) == segment) {
        Some(position) => position,
        None if creating => {
            pairs.push((Node::scalar(segment), placeholder(rest, create)));
            pairs.len() - 1
        }
        None => return Ok(0),
    };
    let child = &mut pairs[position].1;
    if let (Kind::Scalar { text, .. }, false) = (&child.kind, rest.is_empty()) {
        let mut copy = node::parse(text).and_then(|document| document.root).ok_or(wrong(child, "MappingNode"))?;
        return walk(&mut copy, rest, create, &mut |_| {});
    }
    walk(child, rest, create, visit)
}

fn key_text(key: &Node) -> &str {
    match &key.kind {
        Kind::Scalar { text, .. } => text,
        _ => "",
    }
}

/// What kyaml creates for a missing part of a path: a list before an index or a selector, a map
/// before a field, and at the end what the value is.
fn placeholder(rest: &[String], create: Create) -> Node {
    let list = Kind::Sequence { items: Vec::new(), flow: false };
    let map = Kind::Mapping { pairs: Vec::new(), flow: false };
    Node::new(match rest.first() {
        Some(next) if next.bytes().all(|byte| byte.is_ascii_digit()) || next.starts_with('[') => list,
        Some(_) => map,
        None => match create {
            Create::Map => map,
            Create::List => list,
            Create::Scalar | Create::Nothing => Kind::Scalar { text: String::new(), style: node::Style::Plain },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set_at(object: &mut Value, field_path: &str, create: Create) -> Result<bool, String> {
        set(object, &path::split(field_path), field_path, &json!("new"), create).map_err(|err| err.to_string())
    }

    #[test]
    fn documents_in_strings_are_set_or_left_to_the_ordinary_path() {
        let mut object = json!({"data": {"a.json": "{\"x\": {\"y\": \"old\"}, \"b\": 1}", "plain": "hello"}});
        assert_eq!(set_at(&mut object, "data.[a.json].x.y", Create::Nothing), Ok(true));
        assert_eq!(object["data"]["a.json"], json!(r#"{"b":1,"x":{"y":"new"}}"#));
        // A number set to text cannot be read back as JSON; a missing field is not created.
        assert_eq!(set_at(&mut object, "data.[a.json].b", Create::Nothing), Ok(false));
        assert_eq!(set_at(&mut object, "data.[a.json].x.z", Create::Nothing), Ok(false));
        assert_eq!(set_at(&mut object, "data.plain.x", Create::Scalar), Ok(false));
        assert_eq!(set_at(&mut object, "data.[a.json].x.z", Create::Scalar), Ok(true));
        assert_eq!(object["data"]["a.json"], json!(r#"{"b":1,"x":{"y":"new","z":"new"}}"#));

        let mut object = json!({"data": {"c.yaml": "a: 1 # kept by kyaml\nb: old\n"}});
        assert_eq!(
            set_at(&mut object, "data.[c.yaml].b", Create::Nothing),
            Err("replacement target \"data.[c.yaml].b\": kubeupd's kustomize cannot yet write back a YAML document held in a string that has comments, anchors, aliases or tags".into())
        );
    }
}
