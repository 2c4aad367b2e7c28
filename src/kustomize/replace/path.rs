//! kustomize's dotted field paths (`spec.containers.[name=web].image`), as `replacements` and
//! `vars` take them: splitting, looking one value up (a source, a var's field), and finding every
//! field a path matches, maybe creating it (a replacement's targets).

use serde_json::{Map, Value};

use crate::kustomize::error::Error;
use crate::kustomize::types::field_specs::pointer_segment;
use crate::kustomize::{node, pattern};

/// `path` split at dots as kustomize splits it: `\.` is a dot inside a segment, `[a.b]` is the
/// one segment `a.b`, and `[name=a.b]` stays one segment with its brackets (a list selector).
pub fn split(path: &str) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    for piece in path.split('.') {
        match pieces.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('.');
                last.push_str(piece);
            }
            _ => pieces.push(piece.to_string()),
        }
    }
    let mut segments = Vec::new();
    let mut pieces = pieces.into_iter();
    while let Some(piece) = pieces.next() {
        if !piece.starts_with('[') || piece.ends_with(']') {
            segments.push(piece);
            continue;
        }
        let mut bracketed = piece;
        for next in pieces.by_ref() {
            bracketed.push('.');
            bracketed.push_str(&next);
            if next.ends_with(']') {
                break;
            }
        }
        if bracketed.contains('=') {
            segments.push(bracketed);
        } else {
            segments.push(bracketed.trim_matches(['[', ']']).to_string());
        }
    }
    segments
}

/// A `[field=value]` (or `[=value]`) segment's field and value.
fn list_selector(segment: &str) -> Option<Result<(&str, &str), Error>> {
    let inner = segment.strip_prefix('[')?.strip_suffix(']')?;
    Some(inner.split_once('=').ok_or(Error::ListSelectorWithoutEquals))
}

fn index(segment: &str) -> Option<usize> {
    segment.parse().ok().filter(|_| segment.bytes().all(|byte| byte.is_ascii_digit()))
}

/// The text of a scalar as kustomize reads it (maps and lists have none).
pub fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        Value::Null | Value::Array(_) | Value::Object(_) => String::new(),
    }
}

/// The value at `path` in `node` (kustomize's `Lookup`): a field, a list index, `-` for the
/// last item, or the first item a `[field=value]` names exactly. `*` is refused.
pub fn lookup<'a>(node: &'a Value, path: &[String]) -> Result<Option<&'a Value>, Error> {
    Ok(locate(node, path)?.map(|(_, found)| found))
}

/// [`lookup`], with where the value found is (a JSON pointer).
pub fn locate<'a>(node: &'a Value, path: &[String]) -> Result<Option<(String, &'a Value)>, Error> {
    let mut current = node;
    let mut pointer = String::new();
    for segment in path.iter().map(|segment| segment.trim()).filter(|segment| !segment.is_empty()) {
        let next = if let Ok(number) = segment.parse::<i64>() {
            if number < 0 {
                return Err(Error::NegativeIndex(number));
            }
            current.as_array().and_then(|items| items.get(number as usize))
        } else if segment == "-" {
            current.as_array().and_then(|items| items.last())
        } else if segment == "*" {
            return Err(Error::Wildcard);
        } else if let Some(selector) = list_selector(segment) {
            let (field, wanted) = selector?;
            current.as_array().and_then(|items| {
                items.iter().find(|item| match field {
                    "" => !item.is_object() && !item.is_array() && scalar_text(item) == wanted,
                    field => item.get(field).is_some_and(|value| !value.is_object() && scalar_text(value) == wanted),
                })
            })
        } else {
            current.as_object().and_then(|map| map.get(segment))
        };
        let Some(next) = next else { return Ok(None) };
        // The step taken: the item's position in a list, or the field.
        let step = match current {
            Value::Array(items) => {
                items.iter().position(|item| std::ptr::eq(item, next)).unwrap_or_default().to_string()
            }
            _ => segment.to_string(),
        };
        pointer.push('/');
        pointer.push_str(&pointer_segment(&step));
        current = next;
    }
    Ok(Some((pointer, current)))
}

/// What a matched field is: there already, or made by the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Existing,
    Created,
    /// In a copy of a document a string holds (kyaml matches there, and keeps nothing).
    Discarded,
}

/// What [`for_each_match`] creates at the end of a path that is missing, if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Create {
    Nothing,
    Scalar,
    Map,
    List,
}

/// Visits a matched field: where it is (a JSON pointer), the field, and whether it was made.
pub type Visit<'a> = dyn FnMut(&str, &mut Value, Found) -> Result<(), Error> + 'a;

/// Calls `visit` on every field `path` matches in `node` (kustomize's `PathMatcher`): fields,
/// list indexes, `*` for every item, and `[field=value]` for every item whose field matches
/// `value` as a regular expression. With `create`, missing fields are made on the way (an item
/// `[field=value]` names, an index one past the end); returns how many fields were visited.
pub fn for_each_match(node: &mut Value, path: &[String], create: Create, visit: &mut Visit) -> Result<usize, Error> {
    walk(node, path, create, Found::Existing, &mut String::new(), visit)
}

fn walk(
    node: &mut Value,
    path: &[String],
    create: Create,
    found: Found,
    pointer: &mut String,
    visit: &mut Visit,
) -> Result<usize, Error> {
    let Some((segment, rest)) = path.split_first() else {
        visit(pointer, node, found)?;
        return Ok(1);
    };
    // Each step down sets `pointer` to this node's pointer and the segment taken.
    let length = pointer.len();
    let step = |pointer: &mut String, segment: &str| {
        pointer.truncate(length);
        pointer.push('/');
        pointer.push_str(&pointer_segment(segment));
    };
    let creating = create != Create::Nothing;
    if let Some(position) = index(segment) {
        let Some(items) = list_items(node, creating)? else {
            return Err(Error::IndexOutOfRange { position, count: 0 });
        };
        step(pointer, &position.to_string());
        if position == items.len() && creating {
            items.push(placeholder(rest, create));
            return walk(&mut items[position], rest, create, Found::Created, pointer, visit);
        }
        let count = items.len();
        let item = items.get_mut(position).ok_or(Error::IndexOutOfRange { position, count })?;
        return walk(item, rest, create, found, pointer, visit);
    }
    if segment == "*" {
        let mut visited = 0;
        for (position, item) in list_items(node, false)?.into_iter().flatten().enumerate() {
            step(pointer, &position.to_string());
            visited += walk(item, rest, create, found, pointer, visit)?;
        }
        return Ok(visited);
    }
    if let Some(selector) = list_selector(segment) {
        let (field, wanted) = selector?;
        let Some(items) = list_items(node, creating)? else { return Ok(0) };
        // Go compiles the expression for each item it looks at, the one it creates included.
        if items.is_empty() && !creating {
            return Ok(0);
        }
        let pattern = pattern::compile(wanted)?;
        let mut visited = 0;
        let mut matched = false;
        for (position, item) in items.iter_mut().enumerate() {
            let text = match field {
                "" if !item.is_object() && !item.is_array() => scalar_text(item),
                "" => continue,
                field => match item.get(field) {
                    Some(value) if !value.is_null() => scalar_text(value),
                    _ => continue,
                },
            };
            if pattern.is_match(text.trim()) {
                matched = true;
                step(pointer, &position.to_string());
                visited += walk(item, rest, create, found, pointer, visit)?;
            }
        }
        if !matched && creating {
            let value = Value::String(wanted.to_string());
            let item = match field {
                "" => value,
                field => Value::Object(Map::from_iter([(field.to_string(), value)])),
            };
            items.push(item);
            step(pointer, &(items.len() - 1).to_string());
            let item = items.last_mut().expect("just pushed");
            return walk(item, rest, create, Found::Created, pointer, visit);
        }
        return Ok(visited);
    }
    if node.is_null() && creating {
        *node = Value::Object(Map::new());
    }
    let map = match node {
        Value::Object(map) => map,
        Value::Null => return Ok(0),
        other => return Err(Error::WrongNodeKind { expected: "MappingNode", found: node_kind(other) }),
    };
    step(pointer, segment);
    match map.get_mut(segment.as_str()) {
        // kyaml goes on in the document a string holds, in a copy it then drops.
        Some(Value::String(text)) if !rest.is_empty() => match node::parse(text) {
            Some(document) => {
                let mut copy = document.root.as_ref().map_or(Value::Null, node::to_plain_value);
                walk(&mut copy, rest, create, Found::Discarded, pointer, visit)
            }
            None => Err(Error::WrongNodeKind { expected: "MappingNode", found: "ScalarNode" }),
        },
        Some(child) => walk(child, rest, create, found, pointer, visit),
        None if creating => {
            let child = map.entry(segment.clone()).or_insert(placeholder(rest, create));
            walk(child, rest, create, Found::Created, pointer, visit)
        }
        None => Ok(0),
    }
}

/// The items of the list `node` is: none when it is null (a list when creating).
fn list_items(node: &mut Value, creating: bool) -> Result<Option<&mut Vec<Value>>, Error> {
    if node.is_null() && creating {
        *node = Value::Array(Vec::new());
    }
    match node {
        Value::Array(items) => Ok(Some(items)),
        Value::Null => Ok(None),
        other => Err(Error::WrongNodeKind { expected: "SequenceNode", found: node_kind(other) }),
    }
}

/// What a missing field is created as: a list when the next segment indexes one, a map when a
/// field follows, and at the end of the path what the value to be set is.
fn placeholder(rest: &[String], create: Create) -> Value {
    match rest.first() {
        Some(next) if index(next).is_some() || list_selector(next).is_some() => Value::Array(Vec::new()),
        Some(_) => Value::Object(Map::new()),
        None => match create {
            Create::Map => Value::Object(Map::new()),
            Create::List => Value::Array(Vec::new()),
            Create::Scalar | Create::Nothing => Value::Null,
        },
    }
}

fn node_kind(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "MappingNode",
        Value::Array(_) => "SequenceNode",
        _ => "ScalarNode",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn segments(path: &str) -> Vec<String> {
        split(path)
    }

    #[test]
    fn paths_split_as_kustomize_splits_them() {
        assert_eq!(segments("metadata.name"), ["metadata", "name"]);
        assert_eq!(
            segments(r"metadata.annotations.config\.kubernetes\.io/local-config")[2],
            "config.kubernetes.io/local-config"
        );
        assert_eq!(
            segments("metadata.annotations.[config.kubernetes.io/local-config]")[2],
            "config.kubernetes.io/local-config"
        );
        assert_eq!(
            segments("spec.containers.[name=com.foo.app].image"),
            ["spec", "containers", "[name=com.foo.app]", "image"]
        );
        assert_eq!(segments("spec.containers.*.env.0.value"), ["spec", "containers", "*", "env", "0", "value"]);
    }

    #[test]
    fn lookups_take_indexes_the_last_item_and_exact_list_selectors() {
        let object =
            json!({"spec": {"containers": [{"name": "app", "image": "a:1"}, {"name": "app-2", "image": "b:2"}]}});
        let image =
            |path: &str| lookup(&object, &split(path)).map(|found| found.cloned()).map_err(|err| err.to_string());
        assert_eq!(image("spec.containers.[name=app].image"), Ok(Some(json!("a:1"))));
        assert_eq!(image("spec.containers.-.image"), Ok(Some(json!("b:2"))));
        assert_eq!(image("spec.containers.1.name"), Ok(Some(json!("app-2"))));
        assert_eq!(image("spec.containers.[name=ap].image"), Ok(None));
        assert_eq!(image("spec.nothing.here"), Ok(None));
        assert_eq!(image("spec.containers.*.image"), Err("wildcard is not supported in PathGetter".into()));
    }

    #[test]
    fn matches_use_regular_expressions_wildcards_and_create_what_is_missing() {
        let mut object = json!({"spec": {
            "containers": [{"name": "app"}, {"name": "app-side"}, {"name": "db"}],
            "initContainers": [],
        }});
        let mut names = Vec::new();
        let count = for_each_match(
            &mut object,
            &split("spec.containers.[name=app].name"),
            Create::Nothing,
            &mut |at, value, _| {
                names.push((at.to_string(), value.clone()));
                Ok(())
            },
        )
        .unwrap();
        let found = [
            ("/spec/containers/0/name".to_string(), json!("app")),
            ("/spec/containers/1/name".into(), json!("app-side")),
        ];
        assert_eq!((count, names), (2, found.to_vec()));
        let mut count = |path: &str| {
            for_each_match(&mut object, &split(path), Create::Nothing, &mut |_, _, _| Ok(()))
                .map_err(|err| err.to_string())
        };
        assert_eq!(count(r"spec.containers.[name=^(db|app)$].name"), Ok(2));
        assert_eq!(count(r"spec.containers.[name=[a-z]+-\w+].name"), Ok(1));
        assert_eq!(
            count("spec.containers.[name=a(b].name"),
            Err("error parsing regexp: missing closing ): `a(b`".into())
        );
        // Go compiles the expression for each item: a list without items has no error to give.
        assert_eq!(count("spec.initContainers.[name=a(b].name"), Ok(0));

        let mut last_set = String::new();
        let mut set = |path: &str, create: Create| {
            for_each_match(&mut object, &split(path), create, &mut |at, value, found| {
                last_set = at.to_string();
                *value = json!(format!("{found:?}"));
                Ok(())
            })
            .map_err(|err| err.to_string())
        };
        assert_eq!(set("spec.containers.*.image", Create::Scalar), Ok(3));
        assert_eq!(set("spec.containers.[name=web].args.0", Create::Scalar), Ok(1));
        assert_eq!(set("spec.missing.field", Create::Nothing), Ok(0));
        assert_eq!(set("spec.containers.9", Create::Scalar), Err("index 9 specified but only 4 elements found".into()));
        assert_eq!(
            set("spec.containers.image", Create::Nothing),
            Err("wrong node kind: expected MappingNode but got SequenceNode".into())
        );
        assert_eq!(last_set, "/spec/containers/3/args/0", "where the last field set was");
        assert_eq!(object["spec"]["containers"][0]["image"], "Created");
        assert_eq!(object["spec"]["containers"][3], json!({"name": "web", "args": ["Created"]}));
    }
}
