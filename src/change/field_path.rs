//! `--set`, `--set-string` and `--unset` of `kubeupd update`: field paths such as
//! `spec.template.spec.containers[name=app].image`, and the changes they make to an object.
//!
//! A path is keys joined by dots, with `[N]` for a list position and `[KEY=VALUE]` for the list
//! item whose field KEY is VALUE. Keys holding dots (or `[`, `=`, `\`) are written in quotes,
//! `metadata.annotations."example.com/team"`, or with backslashes, `example\.com/team`.
//!
//! `--set` values are read as YAML, except that a field which the built-in schema types as a
//! string (a label, an annotation, an image) gets the text as written: `--set
//! metadata.annotations.replicas=3` sets `"3"`, where `--set spec.replicas=3` sets 3.

use std::fmt;

use serde_json::{Map, Value};

use crate::schema::{self, LookupPatchMeta as _, SchemaNode};

/// The schema of `metadata`, which custom resources share with built-in kinds.
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// Why a `--set`, `--set-string` or `--unset` argument is refused, or its change does not fit the
/// object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The argument is not a path (with a value, for `--set`).
    #[error("invalid {flag} {arg:?}: {reason}")]
    Invalid { flag: &'static str, arg: String, reason: String },
    /// A step of the path goes into a field that is not a map, or not a list.
    #[error("{at} is {found}, not a {wanted}")]
    WrongType { at: String, found: &'static str, wanted: &'static str },
    /// A list step selects no item.
    #[error("{item} is not in the list {list}, which has {len} items")]
    NotInList { item: String, list: String, len: usize },
}

fn invalid(flag: &'static str, arg: &str, reason: impl Into<String>) -> Error {
    Error::Invalid { flag, arg: arg.to_string(), reason: reason.into() }
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// A map key.
    Key(String),
    /// A list position.
    Index(usize),
    /// The list item whose field `key` is `value` (compared as text).
    Match { key: String, value: String },
}

/// A path to a field, e.g. `spec.ports[0].port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath(Vec<Step>);

/// A change to one field of an object.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldChange {
    /// Set the field, creating the maps on the way when they are missing. `text` is the value as
    /// written, for fields typed as strings; `None` for `--set-string`, whose value is text already.
    Set { path: FieldPath, value: Value, text: Option<String> },
    /// Remove the field (a map key or a list item); nothing happens when it is absent.
    Unset { path: FieldPath },
}

impl FieldChange {
    /// `--set PATH=VALUE`: the value is read as YAML, so `3` is a number, `true` a boolean, `"3"`
    /// a string, `null` null, and `[a, b]` a list; an empty value is the empty string.
    pub fn set(arg: &str) -> Result<FieldChange, Error> {
        let (path, text) = split_assignment(arg, "--set")?;
        let value = if text.is_empty() {
            Value::String(String::new())
        } else {
            serde_saphyr::from_str::<Value>(text).map_err(|err| {
                let reason = err.to_string();
                let first = reason.lines().next().unwrap_or_default();
                invalid("--set", arg, format!("the value is not valid YAML ({first}); use --set-string for text"))
            })?
        };
        Ok(FieldChange::Set { path, value, text: Some(text.to_string()) })
    }

    /// `--set-string PATH=VALUE`: the value is taken as text, whatever it looks like.
    pub fn set_string(arg: &str) -> Result<FieldChange, Error> {
        let (path, text) = split_assignment(arg, "--set-string")?;
        Ok(FieldChange::Set { path, value: Value::String(text.to_string()), text: None })
    }

    /// `--unset PATH`.
    pub fn unset(arg: &str) -> Result<FieldChange, Error> {
        match parse_path(arg) {
            Ok((path, "")) => Ok(FieldChange::Unset { path }),
            Ok((_, rest)) => Err(invalid("--unset", arg, format!("unexpected {rest:?} after the path"))),
            Err(reason) => Err(invalid("--unset", arg, reason)),
        }
    }

    /// Makes the change to `object`.
    pub fn apply(&self, object: &mut Value) -> Result<(), Error> {
        match self {
            FieldChange::Set { path, value, text } => {
                let value = match (value, text) {
                    (Value::Bool(_) | Value::Number(_), Some(text))
                        if scalar_type(object, &path.0) == Some("string") =>
                    {
                        Value::String(text.clone())
                    }
                    (value, _) => value.clone(),
                };
                set(object, &path.0, value)
            }
            FieldChange::Unset { path } => {
                unset(object, &path.0);
                Ok(())
            }
        }
    }
}

fn split_assignment<'a>(arg: &'a str, flag: &'static str) -> Result<(FieldPath, &'a str), Error> {
    match parse_path(arg) {
        Ok((path, rest)) => match rest.strip_prefix('=') {
            Some(value) => Ok((path, value)),
            None => Err(invalid(flag, arg, "expected PATH=VALUE")),
        },
        Err(reason) => Err(invalid(flag, arg, reason)),
    }
}

/// Reads a path from the start of `text`; returns it and the rest, which starts with `=` or is empty.
fn parse_path(text: &str) -> Result<(FieldPath, &str), String> {
    let mut steps = Vec::new();
    let mut rest = text.strip_prefix('.').unwrap_or(text);
    loop {
        let (key, after) = parse_key(rest)?;
        if key.is_empty() {
            return Err(match steps.is_empty() {
                true => "the path is empty".to_string(),
                false => format!("a key is missing after {:?}", FieldPath(steps).to_string()),
            });
        }
        steps.push(Step::Key(key));
        rest = after;
        while let Some(inside) = rest.strip_prefix('[') {
            let (step, after) = parse_brackets(inside)?;
            steps.push(step);
            rest = after;
        }
        match rest.chars().next() {
            None | Some('=') => return Ok((FieldPath(steps), rest)),
            Some('.') => rest = &rest[1..],
            Some(other) => return Err(format!("unexpected {other:?} after {:?}", FieldPath(steps).to_string())),
        }
    }
}

/// A key: quoted (`"a.b"` or `'a.b'`), or plain up to an unescaped `.`, `[` or `=`.
fn parse_key(text: &str) -> Result<(String, &str), String> {
    let mut key = String::new();
    let mut chars = text.char_indices();
    if let Some(quote @ ('"' | '\'')) = text.chars().next() {
        chars.next();
        while let Some((_, c)) = chars.next() {
            match c {
                '\\' => key.extend(chars.next().map(|(_, escaped)| escaped)),
                c if c == quote => return Ok((key, chars.as_str())),
                c => key.push(c),
            }
        }
        return Err(format!("the quote in {text:?} is not closed"));
    }
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, escaped)) => key.push(escaped),
                None => return Err("a backslash ends the path".to_string()),
            },
            '.' | '[' | '=' => return Ok((key, &text[at..])),
            c => key.push(c),
        }
    }
    Ok((key, ""))
}

/// `N]` or `KEY=VALUE]`, after the opening bracket.
fn parse_brackets(text: &str) -> Result<(Step, &str), String> {
    let Some(end) = text.find(']') else { return Err(format!("the bracket in \"[{text}\" is not closed")) };
    let (inside, rest) = (&text[..end], &text[end + 1..]);
    let step =
        match inside.split_once('=') {
            Some((key, value)) if !key.is_empty() => {
                Step::Match { key: key.to_string(), value: unquote(value).to_string() }
            }
            _ => Step::Index(inside.parse().map_err(|_| {
                format!("\"[{inside}]\" is neither a list position like [0] nor a match like [name=app]")
            })?),
        };
    Ok((step, rest))
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|value| value.strip_suffix(quote)) {
            return inner;
        }
    }
    value
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(key) if key.contains(['.', '[', ']', '=', '"', '\\']) => {
                    write!(f, "{}{key:?}", if at > 0 { "." } else { "" })?
                }
                Step::Key(key) => write!(f, "{}{key}", if at > 0 { "." } else { "" })?,
                Step::Index(index) => write!(f, "[{index}]")?,
                Step::Match { key, value } => write!(f, "[{key}={value}]")?,
            }
        }
        Ok(())
    }
}

/// The type the built-in schema gives the scalar at `steps` of `object`: from the object's kind
/// when it is built in, else (custom resources) from the metadata every object has.
fn scalar_type(object: &Value, steps: &[Step]) -> Option<&'static str> {
    let builtin = schema::builtin();
    let api_version = object.get("apiVersion")?.as_str()?;
    let kind = object.get("kind")?.as_str()?;
    let (mut node, steps): (SchemaNode<'static>, &[Step]) = match (builtin.for_kind(api_version, kind), steps) {
        (Some(root), steps) => (root, steps),
        (None, [Step::Key(metadata), rest @ ..]) if metadata == "metadata" => (builtin.definition(OBJECT_META)?, rest),
        (None, _) => return None,
    };
    for (at, step) in steps.iter().enumerate() {
        if let Step::Key(key) = step {
            let into_list = matches!(steps.get(at + 1), Some(Step::Index(_) | Step::Match { .. }));
            let (next, _) = if into_list { node.lookup_list(key) } else { node.lookup_field(key) }.ok()?;
            node = next;
        }
    }
    node.scalar_type()
}

/// The path up to and including `steps[..=at]`, for messages.
fn shown(steps: &[Step], at: usize) -> String {
    FieldPath(steps[..=at].to_vec()).to_string()
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

fn set(object: &mut Value, steps: &[Step], value: Value) -> Result<(), Error> {
    let mut current = object;
    for (at, step) in steps.iter().enumerate() {
        let parent = if at == 0 { String::new() } else { shown(steps, at - 1) };
        let at_parent = || if parent.is_empty() { "the object".to_string() } else { parent.clone() };
        current = match step {
            Step::Key(key) => {
                if current.is_null() {
                    *current = Value::Object(Map::new());
                }
                let Value::Object(map) = current else {
                    return Err(Error::WrongType { at: at_parent(), found: type_name(current), wanted: "map" });
                };
                map.entry(key.clone()).or_insert(Value::Null)
            }
            Step::Index(_) | Step::Match { .. } => {
                let Value::Array(items) = current else {
                    return Err(Error::WrongType { at: at_parent(), found: type_name(current), wanted: "list" });
                };
                let Some(position) = position(items, step) else {
                    return Err(Error::NotInList { item: shown(steps, at), list: parent, len: items.len() });
                };
                &mut items[position]
            }
        };
    }
    *current = value;
    Ok(())
}

fn unset(object: &mut Value, steps: &[Step]) {
    let Some((last, parents)) = steps.split_last() else { return };
    let mut current = object;
    for step in parents {
        let next = match (step, current) {
            (Step::Key(key), Value::Object(map)) => map.get_mut(key),
            (step, Value::Array(items)) => position(items, step).map(|position| &mut items[position]),
            _ => None,
        };
        match next {
            Some(next) => current = next,
            None => return,
        }
    }
    match (last, current) {
        (Step::Key(key), Value::Object(map)) => {
            map.remove(key);
        }
        (step, Value::Array(items)) => {
            if let Some(position) = position(items, step) {
                items.remove(position);
            }
        }
        _ => {}
    }
}

/// The position in `items` that a list step selects, if any item matches.
fn position(items: &[Value], step: &Step) -> Option<usize> {
    match step {
        Step::Index(index) => (*index < items.len()).then_some(*index),
        Step::Match { key, value } => items.iter().position(|item| match item.get(key) {
            Some(Value::String(text)) => text == value,
            Some(other) => serde_json::from_str::<Value>(value).is_ok_and(|parsed| parsed == *other),
            None => false,
        }),
        Step::Key(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"replicas": 1, "template": {"spec": {
            "containers": [{"name": "app", "image": "a:1"}, {"name": "log", "image": "b:1"}]}},
            "ports": [{"port": 80}, {"port": 443}]}})
    }

    fn changed(changes: &[Result<FieldChange, Error>]) -> Result<Value, Error> {
        let mut object = deployment();
        for change in changes {
            change.clone()?.apply(&mut object)?;
        }
        Ok(object)
    }

    #[test]
    fn sets_values_read_as_yaml() {
        let object = changed(&[
            FieldChange::set("spec.replicas=3"),
            FieldChange::set("metadata.labels.tier=front"),
            FieldChange::set("spec.template.spec.containers[name=app].image=nginx:1.27"),
            FieldChange::set("spec.ports[0].port=8080"),
            FieldChange::set("spec.ports[port=443].name=https"),
            FieldChange::set("spec.paused=true"),
            FieldChange::set("spec.new.nested=[a, b]"),
            FieldChange::set("metadata.labels.empty="),
        ])
        .unwrap();
        assert_eq!(object["spec"]["replicas"], 3);
        assert_eq!(object["metadata"]["labels"], json!({"app": "web", "tier": "front", "empty": ""}));
        assert_eq!(object["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.27");
        assert_eq!(object["spec"]["ports"], json!([{"port": 8080}, {"port": 443, "name": "https"}]));
        assert_eq!(object["spec"]["paused"], true);
        assert_eq!(object["spec"]["new"]["nested"], json!(["a", "b"]));
    }

    #[test]
    fn set_string_keeps_text() {
        let object = changed(&[
            FieldChange::set_string("metadata.labels.version=2"),
            FieldChange::set("metadata.labels.quoted=\"2\""),
        ])
        .unwrap();
        assert_eq!(object["metadata"]["labels"]["version"], "2");
        assert_eq!(object["metadata"]["labels"]["quoted"], "2");
    }

    #[test]
    fn fields_typed_as_strings_get_the_text_as_written() {
        let object = changed(&[
            FieldChange::set("metadata.annotations.w1=1"),
            FieldChange::set("metadata.labels.version=1.10"),
            FieldChange::set("spec.template.spec.containers[name=app].image=1.0"),
            FieldChange::set("spec.template.spec.containers[0].tty=true"),
            FieldChange::set("spec.strategy.rollingUpdate.maxSurge=1"),
        ])
        .unwrap();
        assert_eq!(object["metadata"]["annotations"]["w1"], "1");
        assert_eq!(object["metadata"]["labels"]["version"], "1.10");
        assert_eq!(object["spec"]["template"]["spec"]["containers"][0]["image"], "1.0");
        assert_eq!(object["spec"]["template"]["spec"]["containers"][0]["tty"], true);
        assert_eq!(object["spec"]["strategy"]["rollingUpdate"]["maxSurge"], 1, "int-or-string keeps the number");
        let mut gadget = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}});
        FieldChange::set("metadata.labels.size=3").unwrap().apply(&mut gadget).unwrap();
        FieldChange::set("spec.size=3").unwrap().apply(&mut gadget).unwrap();
        assert_eq!(gadget["metadata"]["labels"]["size"], "3");
        assert_eq!(gadget["spec"]["size"], 3, "a custom resource's own fields have no built-in schema");
    }

    #[test]
    fn keys_with_dots_are_quoted_or_escaped() {
        let object = changed(&[
            FieldChange::set(r#"metadata.annotations."example.com/team"=a"#),
            FieldChange::set(r"metadata.annotations.example\.com/owner=b"),
            FieldChange::set("metadata.annotations.'a=b'=c"),
        ])
        .unwrap();
        assert_eq!(
            object["metadata"]["annotations"],
            json!({"example.com/team": "a", "example.com/owner": "b", "a=b": "c"})
        );
    }

    #[test]
    fn unsets_keys_and_list_items_and_ignores_absent_ones() {
        let object = changed(&[
            FieldChange::unset("metadata.labels.app"),
            FieldChange::unset("spec.template.spec.containers[name=log]"),
            FieldChange::unset("spec.ports[1]"),
            FieldChange::unset("spec.absent.deeper"),
            FieldChange::unset("spec.template.spec.containers[name=nope].image"),
        ])
        .unwrap();
        assert_eq!(object["metadata"]["labels"], json!({}));
        assert_eq!(object["spec"]["template"]["spec"]["containers"], json!([{"name": "app", "image": "a:1"}]));
        assert_eq!(object["spec"]["ports"], json!([{"port": 80}]));
    }

    #[test]
    fn malformed_arguments_are_rejected_with_the_reason() {
        let cases = [
            (FieldChange::set("spec.replicas"), "expected PATH=VALUE"),
            (FieldChange::set("=3"), "the path is empty"),
            (FieldChange::set("spec..replicas=3"), "a key is missing after \"spec\""),
            (FieldChange::set("spec.ports[x].port=1"), "neither a list position"),
            (FieldChange::set("spec.ports[0.port=1"), "is not closed"),
            (FieldChange::set("metadata.\"a.b=1"), "is not closed"),
            (FieldChange::set("spec.replicas=[1"), "not valid YAML"),
            (FieldChange::unset("spec.replicas=3"), "unexpected \"=3\""),
            (FieldChange::set("spec.ports[0]x=1"), "unexpected 'x' after \"spec.ports[0]\""),
        ];
        for (result, expected) in cases {
            let err = result.unwrap_err().to_string();
            assert!(err.contains(expected), "{err} should contain {expected}");
        }
    }

    #[test]
    fn paths_that_do_not_fit_the_object_are_errors() {
        let cases = [
            ("spec.replicas.x=1", "spec.replicas is a number, not a map"),
            ("spec.ports[5].port=1", "spec.ports[5] is not in the list spec.ports, which has 2 items"),
            ("spec.template.spec.containers[name=nope].image=x", "[name=nope] is not in the list"),
            ("metadata.name[0]=x", "metadata.name is a string, not a list"),
        ];
        for (arg, expected) in cases {
            let err = changed(&[FieldChange::set(arg)]).unwrap_err().to_string();
            assert!(err.contains(expected), "{arg}: {err}");
        }
    }
}
