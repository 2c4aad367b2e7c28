//! The tree walked over a value: the groups of values each action finds, as client-go's
//! evaluator finds them (Go's comparisons and errors).

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::Value;

use super::parser::{Bound, Element, Node};
use super::{Error, error};
use crate::gocompat;

pub(super) fn find_block<'a>(
    block: &[Element],
    data: &'a Value,
    allow_missing_keys: bool,
    groups: &mut Vec<Vec<Cow<'a, Value>>>,
) -> Result<(), Error> {
    let eval = Eval { allow_missing_keys };
    for element in block {
        match element {
            Element::Action(nodes) => groups.push(eval.list(vec![Cow::Borrowed(data)], nodes)?),
            Element::StrayEnd => return error("not in range, nothing to end"),
            Element::Range { list, body, resumed } => {
                let found = eval.list(vec![Cow::Borrowed(data)], list)?;
                if found.is_empty() {
                    // kubectl still walks the body (on nothing), so its errors surface.
                    find_block(body, &Value::Null, allow_missing_keys, &mut Vec::new())?;
                }
                for value in found {
                    match value {
                        Cow::Borrowed(value) => find_block(body, value, allow_missing_keys, groups)?,
                        Cow::Owned(value) => {
                            let mut inner = Vec::new();
                            find_block(body, &value, allow_missing_keys, &mut inner)?;
                            groups.extend(
                                inner
                                    .into_iter()
                                    .map(|group| group.into_iter().map(|v| Cow::Owned(v.into_owned())).collect()),
                            );
                        }
                    }
                }
                if let Some(resumed) = resumed {
                    find_block(resumed, data, allow_missing_keys, groups)?;
                }
            }
        }
    }
    Ok(())
}

struct Eval {
    allow_missing_keys: bool,
}

type Values<'a> = Vec<Cow<'a, Value>>;

/// Borrows from a value that may itself be owned (a literal), or from the input.
fn child<'a>(parent: &Cow<'a, Value>, pick: impl FnOnce(&Value) -> Option<&Value>) -> Option<Cow<'a, Value>> {
    match parent {
        Cow::Borrowed(value) => pick(value).map(Cow::Borrowed),
        Cow::Owned(value) => pick(value).map(|found| Cow::Owned(found.clone())),
    }
}

fn children<'a>(parent: &Cow<'a, Value>) -> Values<'a> {
    match parent {
        Cow::Borrowed(Value::Object(map)) => map.values().map(Cow::Borrowed).collect(),
        Cow::Borrowed(Value::Array(items)) => items.iter().map(Cow::Borrowed).collect(),
        Cow::Owned(Value::Object(map)) => map.values().cloned().map(Cow::Owned).collect(),
        Cow::Owned(Value::Array(items)) => items.iter().cloned().map(Cow::Owned).collect(),
        // Go indexes a string's bytes: numbers.
        other => match other.as_ref() {
            Value::String(text) => text.bytes().map(|byte| Cow::Owned(Value::from(byte))).collect(),
            _ => Vec::new(),
        },
    }
}

impl Eval {
    fn list<'a>(&self, mut values: Values<'a>, nodes: &[Node]) -> Result<Values<'a>, Error> {
        for node in nodes {
            values = self.node(values, node)?;
        }
        Ok(values)
    }

    fn node<'a>(&self, input: Values<'a>, node: &Node) -> Result<Values<'a>, Error> {
        let literal = |value: Value| Ok(input.iter().map(|_| Cow::Owned(value.clone())).collect());
        match node {
            Node::Text(text) => Ok(vec![Cow::Owned(Value::String(text.clone()))]),
            Node::Int(int) => literal(Value::from(*int)),
            Node::Float(float) => literal(Value::from(*float)),
            Node::Bool(bool) => literal(Value::Bool(*bool)),
            Node::Identifier(name) if name == "range" => Ok(input),
            Node::Identifier(name) if name == "end" => error("not in range, nothing to end"),
            Node::Identifier(name) => error(format!("unrecognized identifier {name}")),
            Node::Field(name) => self.field(input, name),
            Node::Wildcard => Ok(input.iter().filter(|value| !value.is_null()).flat_map(children).collect()),
            Node::Recursive => {
                let mut out = Vec::new();
                recursive(input, &mut out);
                Ok(out)
            }
            Node::Slice(bounds) => slice_values(input, *bounds),
            Node::Union(parts) => {
                let mut out = Vec::new();
                for part in parts {
                    out.extend(self.list(input.clone(), part)?);
                }
                Ok(out)
            }
            Node::Filter { left, right, operator } => self.filter(input, left, right, operator),
        }
    }

    fn field<'a>(&self, input: Values<'a>, name: &str) -> Result<Values<'a>, Error> {
        if input.is_empty() {
            return Ok(input);
        }
        let found: Values<'a> = input.iter().filter_map(|value| child(value, |value| value.get(name))).collect();
        if found.is_empty() && !self.allow_missing_keys {
            return error(format!("{name} is not found"));
        }
        Ok(found)
    }

    fn filter<'a>(
        &self,
        input: Values<'a>,
        left: &[Node],
        right: &[Node],
        operator: &str,
    ) -> Result<Values<'a>, Error> {
        let mut out = Vec::new();
        for value in &input {
            let items = match value.as_ref() {
                Value::Array(_) => children(value),
                other => {
                    return error(format!(
                        "{} is not array or slice and cannot be filtered",
                        gocompat::fmt::value_text(other)
                    ));
                }
            };
            for item in items {
                let lefts = self.list(vec![item.clone()], left);
                if operator == "exists" {
                    if lefts.is_ok_and(|lefts| !lefts.is_empty()) {
                        out.push(item);
                    }
                    continue;
                }
                let lefts = lefts?;
                let left = match lefts.as_slice() {
                    [] => continue,
                    [one] => one,
                    _ => return error("can only compare one element at a time"),
                };
                let rights = self.list(vec![item.clone()], right)?;
                let right = match rights.as_slice() {
                    [] => continue,
                    [one] => one,
                    _ => return error("can only compare one element at a time"),
                };
                if compare(left, right, operator)? {
                    out.push(item);
                }
            }
        }
        Ok(out)
    }
}

fn recursive<'a>(input: Values<'a>, out: &mut Values<'a>) {
    for value in input {
        if value.is_null() {
            continue;
        }
        let inner = children(&value);
        if !inner.is_empty() {
            out.push(value);
            recursive(inner, out);
        }
    }
}

fn slice_values(input: Values<'_>, bounds: [Bound; 3]) -> Result<Values<'_>, Error> {
    let mut out = Vec::new();
    for value in &input {
        let items = match value.as_ref() {
            Value::Null => continue,
            Value::Array(items) => items.len() as i64,
            other => return error(format!("{} is not array or slice", go_type(other))),
        };
        let [mut start, mut end, step] = bounds;
        if !start.known {
            start.value = 0;
        }
        if start.value < 0 {
            start.value += items;
        }
        if !end.known {
            end.value = items;
        }
        if end.value < 0 || (end.value == 0 && end.derived) {
            end.value += items;
        }
        if end.value == start.value {
            return Ok(out);
        }
        if start.value >= items || start.value < 0 {
            return error(format!("array index out of bounds: index {}, length {items}", start.value));
        }
        if end.value > items || end.value < 0 {
            return error(format!("array index out of bounds: index {}, length {items}", end.value - 1));
        }
        if start.value > end.value {
            return error(format!("starting index {} is greater than ending index {}", start.value, end.value));
        }
        let step = if step.known {
            if step.value <= 0 {
                return error("step must be > 0");
            }
            step.value as usize
        } else {
            1
        };
        let picked = children(value);
        out.extend(picked.into_iter().take(end.value as usize).skip(start.value as usize).step_by(step));
    }
    Ok(out)
}

/// Go's type name of a decoded JSON value, as errors print it.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "map[string]interface {}",
        Value::Array(_) => "[]interface {}",
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::Null => "<nil>",
    }
}

/// Go template's comparison (`eq`, `lt`, ...): numbers of one kind, strings, booleans for equality.
fn compare(left: &Value, right: &Value, operator: &str) -> Result<bool, Error> {
    #[derive(PartialEq)]
    enum Kind {
        Bool,
        Int,
        Float,
        String,
    }
    let kind = |value: &Value| match value {
        Value::Bool(_) => Ok(Kind::Bool),
        Value::Number(number) if number.is_f64() => Ok(Kind::Float),
        Value::Number(_) => Ok(Kind::Int),
        Value::String(_) => Ok(Kind::String),
        _ => error("invalid type for comparison"),
    };
    let (left_kind, right_kind) = (kind(left)?, kind(right)?);
    if !matches!(operator, "==" | "!=" | "<" | ">" | "<=" | ">=") {
        return error(format!("unrecognized filter operator {operator}"));
    }
    if left_kind != right_kind {
        return error("incompatible types for comparison");
    }
    let ordering = match (left, right) {
        (Value::Bool(a), Value::Bool(b)) => {
            if !matches!(operator, "==" | "!=") {
                return error("invalid type for comparison");
            }
            a.cmp(b)
        }
        (Value::String(a), Value::String(b)) => a.cmp(b),
        (Value::Number(a), Value::Number(b)) if left_kind == Kind::Int => a.as_i64().cmp(&b.as_i64()),
        (Value::Number(a), Value::Number(b)) => a.as_f64().partial_cmp(&b.as_f64()).unwrap_or(Ordering::Less),
        _ => unreachable!("kinds were checked"),
    };
    Ok(match operator {
        "==" => ordering == Ordering::Equal,
        "!=" => ordering != Ordering::Equal,
        "<" => ordering == Ordering::Less,
        ">" => ordering == Ordering::Greater,
        "<=" => ordering != Ordering::Greater,
        _ => ordering != Ordering::Less,
    })
}
