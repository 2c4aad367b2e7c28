//! kubectl's JSONPath dialect (client-go `util/jsonpath`), which is not RFC 9535: templates mix
//! text with `{actions}`; actions hold fields (`.a.b`, `..a`, `.*`), array slices (`[1:3]`,
//! `[-1]`, `[*]`), unions (`[0,2]`), filters (`[?(@.type=="Ready")]`), quoted literals (`{"\n"}`)
//! and `{range ...}`/`{end}`. Values print as kubectl prints them: strings bare, numbers and
//! booleans as Go's `fmt`, objects and lists as Go's compact JSON, several values of one action
//! separated by a space. Pure: one shared evaluator for `-o jsonpath`, custom columns, `--sort-by`
//! and `wait --for=jsonpath`.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::Value;

use crate::gocompat;

/// Why a template cannot be parsed or evaluated, in client-go's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub String);

fn error<T>(text: impl Into<String>) -> Result<T, Error> {
    Err(Error(text.into()))
}

/// A parsed template.
#[derive(Debug, Clone)]
pub struct JsonPath {
    block: Vec<Element>,
}

/// A step of the template at the top level or inside a `{range}`.
#[derive(Debug, Clone)]
enum Element {
    /// Text outside `{}`, or a whole action: each is one group of printed values.
    Action(Vec<Node>),
    /// `{range LIST}BODY{end}`: BODY once for each value LIST finds. A range the template never
    /// ends then goes on at its own level with `resumed` (client-go resumes after the last `{end}`
    /// its body reached, else right after the `{range}`): the trailing text printed once more.
    Range { list: Vec<Node>, body: Vec<Element>, resumed: Option<Vec<Element>> },
    /// `{end}` outside any range: an error when reached, as in kubectl.
    StrayEnd,
}

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Field(String),
    Wildcard,
    Recursive,
    Slice([Bound; 3]),
    Union(Vec<Vec<Node>>),
    Filter { left: Vec<Node>, right: Vec<Node>, operator: String },
    Int(i64),
    Float(f64),
    Bool(bool),
    Identifier(String),
}

/// One parameter of `[start:end:step]`.
#[derive(Debug, Clone, Copy, Default)]
struct Bound {
    value: i64,
    known: bool,
    /// `end` of `[i]`, which is `i + 1`.
    derived: bool,
}

/// How values found are printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// A field that is missing yields nothing instead of `NAME is not found` (kubectl's
    /// `--allow-missing-template-keys`, on by default).
    pub allow_missing_keys: bool,
    /// `-o jsonpath-as-json`: each group as an indented JSON list.
    pub as_json: bool,
}

impl JsonPath {
    /// Parses `template`; errors read as client-go's (`unclosed action`, `invalid array index x`).
    pub fn parse(template: &str) -> Result<JsonPath, Error> {
        let items = Parser { input: template, pos: 0 }.template()?;
        let mut items = items.into_iter();
        let (block, _) = nest(&mut items, false);
        Ok(JsonPath { block })
    }

    /// The groups of values the template finds in `data`, in order (one per action or text).
    pub fn find<'a>(&self, data: &'a Value, allow_missing_keys: bool) -> Result<Vec<Vec<Cow<'a, Value>>>, Error> {
        let mut groups = Vec::new();
        find_block(&self.block, data, allow_missing_keys, &mut groups)?;
        Ok(groups)
    }

    /// The template applied to `data`, as kubectl prints it.
    pub fn render(&self, data: &Value, options: Options) -> Result<String, Error> {
        let groups = self.find(data, options.allow_missing_keys)?;
        let mut out = String::new();
        for group in groups {
            if options.as_json {
                let list = Value::Array(group.into_iter().map(Cow::into_owned).collect());
                let mut bytes = Vec::new();
                gocompat::json::write_indented(&mut bytes, &list, "    ").expect("writing into memory cannot fail");
                out.push_str(&String::from_utf8(bytes).expect("JSON is UTF-8"));
                continue;
            }
            for (index, value) in group.iter().enumerate() {
                if index > 0 {
                    out.push(' ');
                }
                out.push_str(&value_text(value));
            }
        }
        Ok(out)
    }
}

/// How kubectl's JSONPath prints one value: strings bare, objects, lists and null as Go's compact
/// JSON, numbers and booleans as Go's `fmt`.
pub fn value_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::Object(_) | Value::Array(_) | Value::Null => Cow::Owned(gocompat::json::to_compact(value)),
        other => gocompat::fmt::value_text(other),
    }
}

/// Nests the flat list of actions into ranges: `{range}` opens a body that `{end}` closes.
/// Returns the block and whether an `{end}` closed it.
fn nest(items: &mut impl Iterator<Item = Vec<Node>>, in_range: bool) -> (Vec<Element>, bool) {
    let mut block = Vec::new();
    while let Some(mut nodes) = items.next() {
        if let Some(at) = nodes.iter().position(|node| matches!(node, Node::Identifier(name) if name == "range")) {
            nodes.remove(at);
            let (body, ended) = nest(items, true);
            let resumed = (!ended).then(|| after_last_end(&body));
            block.push(Element::Range { list: nodes, body, resumed });
        } else if nodes.iter().any(|node| matches!(node, Node::Identifier(name) if name == "end")) {
            if in_range {
                return (block, true);
            }
            block.push(Element::StrayEnd);
        } else {
            block.push(Element::Action(nodes));
        }
    }
    (block, false)
}

/// What follows the last `{end}` inside the body of a range that has none of its own: all of
/// the body when no `{end}` is in it.
fn after_last_end(body: &[Element]) -> Vec<Element> {
    for (at, element) in body.iter().enumerate().rev() {
        if reaches_end(element) {
            let mut after = match element {
                Element::Range { resumed: Some(resumed), .. } => resumed.clone(),
                _ => Vec::new(),
            };
            after.extend_from_slice(&body[at + 1..]);
            return after;
        }
    }
    body.to_vec()
}

/// Whether walking the element reaches an `{end}`: a range that has one, or holds one.
fn reaches_end(element: &Element) -> bool {
    match element {
        Element::Range { resumed: None, .. } => true,
        Element::Range { body, .. } => body.iter().any(reaches_end),
        Element::Action(_) | Element::StrayEnd => false,
    }
}

fn find_block<'a>(
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

struct Parser<'t> {
    input: &'t str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// The template's top level: text and actions, each one list of nodes.
    fn template(mut self) -> Result<Vec<Vec<Node>>, Error> {
        let mut items = Vec::new();
        loop {
            let text_end = self.rest().find('{').map_or(self.input.len(), |at| self.pos + at);
            if text_end > self.pos {
                items.push(vec![Node::Text(self.input[self.pos..text_end].to_string())]);
            }
            if text_end == self.input.len() {
                return Ok(items);
            }
            self.pos = text_end + 1;
            let mut nodes = Vec::new();
            self.action(&mut nodes)?;
            items.push(nodes);
        }
    }

    /// Inside `{...}` up to and including the closing brace.
    fn action(&mut self, nodes: &mut Vec<Node>) -> Result<(), Error> {
        loop {
            let rest = self.rest();
            if rest.starts_with('}') {
                self.pos += 1;
                return Ok(());
            }
            if rest.starts_with("[?(") {
                self.pos += 3;
                nodes.push(self.filter()?);
                continue;
            }
            if rest.starts_with("..") {
                if matches!(nodes.last(), Some(Node::Recursive)) {
                    return error("invalid multiple recursive descent");
                }
                self.pos += 2;
                nodes.push(Node::Recursive);
                if self.peek().is_some_and(is_alphanumeric) {
                    nodes.push(self.field());
                }
                continue;
            }
            let Some(c) = self.peek() else { return error("unclosed action") };
            match c {
                '\r' | '\n' => return error("unclosed action"),
                ' ' | '@' | '$' => self.pos += 1,
                '[' => {
                    self.pos += 1;
                    self.array(nodes)?;
                }
                '"' | '\'' => nodes.push(self.quote(c)?),
                '.' => {
                    self.pos += 1;
                    nodes.push(self.field());
                }
                '+' | '-' => nodes.push(self.number()?),
                c if c.is_numeric() => nodes.push(self.number()?),
                c if is_alphanumeric(c) => {
                    let start = self.pos;
                    self.skip_to_terminator();
                    let word = &self.input[start..self.pos];
                    nodes.push(match word {
                        "true" => Node::Bool(true),
                        "false" => Node::Bool(false),
                        _ => Node::Identifier(word.to_string()),
                    });
                }
                c => return error(format!("unrecognized character in action: {}", go_rune(c))),
            }
        }
    }

    /// Moves to the next terminator not escaped by a backslash.
    fn skip_to_terminator(&mut self) {
        let mut chars = self.rest().char_indices();
        while let Some((at, c)) = chars.next() {
            if c == '\\' {
                chars.next();
            } else if is_terminator(c) {
                self.pos += at;
                return;
            }
        }
        self.pos = self.input.len();
    }

    fn field(&mut self) -> Node {
        let start = self.pos;
        self.skip_to_terminator();
        match &self.input[start..self.pos] {
            "*" => Node::Wildcard,
            name => Node::Field(name.replace('\\', "")),
        }
    }

    fn number(&mut self) -> Result<Node, Error> {
        let start = self.pos;
        if matches!(self.peek(), Some('+' | '-')) {
            self.pos += 1;
        }
        while self.peek().is_some_and(|c| c == '.' || c.is_numeric()) {
            self.pos += self.peek().map_or(1, char::len_utf8);
        }
        let text = &self.input[start..self.pos];
        if let Ok(int) = text.parse::<i64>() {
            return Ok(Node::Int(int));
        }
        match text.parse::<f64>() {
            Ok(float) => Ok(Node::Float(float)),
            Err(_) => error(format!("cannot parse number {text}")),
        }
    }

    fn quote(&mut self, quote: char) -> Result<Node, Error> {
        let start = self.pos;
        let mut previous = quote;
        for (at, c) in self.rest().char_indices().skip(1) {
            match c {
                '\n' => break,
                c if c == quote && previous != '\\' => {
                    self.pos = start + at + 1;
                    let raw = &self.input[start..self.pos];
                    return crate::gocompat::strconv::unquote(raw)
                        .map(Node::Text)
                        .ok_or_else(|| Error(format!("unquote string {raw} error invalid syntax")));
                }
                _ => previous = c,
            }
        }
        error("unterminated quoted string")
    }

    /// `[...]` after its `[`: a slice, an index, a quoted key or a union of them.
    fn array(&mut self, nodes: &mut Vec<Node>) -> Result<(), Error> {
        let Some(end) = self.rest().find([']', '\n']).filter(|&at| self.rest()[at..].starts_with(']')) else {
            return error("unterminated array");
        };
        let input = self.input;
        let text = &input[self.pos..self.pos + end];
        self.pos += end + 1;
        let text = if text == "*" { ":" } else { text };
        if text.contains(',') {
            let parts = text
                .split(',')
                .map(|part| parse_action(&format!("[{}]", part.trim_matches(' '))))
                .collect::<Result<_, _>>()?;
            nodes.push(Node::Union(parts));
            return Ok(());
        }
        if let Some(key) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).filter(|k| !k.contains('\'')) {
            nodes.extend(parse_action(&format!(".{key}"))?);
            return Ok(());
        }
        nodes.push(Node::Slice(slice(text)?));
        Ok(())
    }

    /// `[?(LEFT OP RIGHT)]` or `[?(PATH)]` after its `[?(`.
    fn filter(&mut self) -> Result<Node, Error> {
        let start = self.pos;
        let (mut begun, mut ended, mut pair) = (false, false, '"');
        let mut previous = '(';
        let mut close = None;
        for (at, c) in self.rest().char_indices() {
            match c {
                '\n' => break,
                '"' | '\'' if !begun => {
                    begun = true;
                    pair = c;
                }
                '"' | '\'' if previous != '\\' && c == pair => ended = true,
                ')' if begun == ended => {
                    close = Some(at);
                    break;
                }
                _ => {}
            }
            previous = c;
        }
        let Some(close) = close else { return error("unterminated filter") };
        self.pos = start + close + 1;
        if self.peek() != Some(']') {
            return error("unclosed array expect ]");
        }
        self.pos += 1;
        let text = &self.input[start..start + close];
        let operator_at = text.find(['!', '<', '>', '=']).filter(|&at| at > 0);
        let Some(operator_at) = operator_at else {
            return Ok(Node::Filter { left: parse_action(text)?, right: Vec::new(), operator: "exists".into() });
        };
        let operator_len = text[operator_at..].find(|c| !"!<>=".contains(c)).unwrap_or(text.len() - operator_at);
        let right = &text[operator_at + operator_len..];
        if right.is_empty() {
            // The regular expression upstream needs a right side; without one the whole text is a path.
            return Ok(Node::Filter { left: parse_action(text)?, right: Vec::new(), operator: "exists".into() });
        }
        Ok(Node::Filter {
            left: parse_action(&text[..operator_at])?,
            right: parse_action(right)?,
            operator: text[operator_at..operator_at + operator_len].to_string(),
        })
    }
}

/// The nodes of `{text}`.
fn parse_action(text: &str) -> Result<Vec<Node>, Error> {
    // Parsed as if braced; a `}` inside ends it early and the rest is ignored, as upstream.
    let braced = format!("{text}}}");
    let mut nodes = Vec::new();
    Parser { input: &braced, pos: 0 }.action(&mut nodes)?;
    Ok(nodes)
}

fn slice(text: &str) -> Result<[Bound; 3], Error> {
    let invalid = || Error(format!("invalid array index {text}"));
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() > 3 {
        return Err(invalid());
    }
    let valid = |part: &str| {
        let digits = part.strip_prefix('-').unwrap_or(part);
        digits.chars().all(|c| c.is_ascii_digit())
    };
    if !parts.iter().all(|part| valid(part)) {
        return Err(invalid());
    }
    let mut bounds = [Bound::default(); 3];
    for (bound, part) in bounds.iter_mut().zip(&parts) {
        if !part.is_empty() {
            let value = part.parse().map_err(|_| Error(format!("array index {part} is not a number")))?;
            *bound = Bound { value, known: true, derived: false };
        }
    }
    if parts.len() == 1 {
        let start = if parts[0].is_empty() { 0 } else { bounds[0].value };
        bounds[1] = Bound { value: start + 1, known: true, derived: true };
    }
    Ok(bounds)
}

/// Go's `%#U`: `U+007E '~'`.
fn go_rune(c: char) -> String {
    format!("U+{:04X} '{c}'", c as u32)
}

fn is_terminator(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}')
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
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

/// kubectl's relaxed spelling for custom columns and `--sort-by`: `a.b`, `.a.b`, `{a.b}` and
/// `{.a.b}` all mean `{.a.b}`.
pub fn relaxed(path: &str) -> Result<String, Error> {
    let inner = path.strip_prefix('{').unwrap_or(path);
    let inner = inner.strip_suffix('}').unwrap_or(inner);
    if inner.contains(['{', '}']) {
        return error(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
        );
    }
    if inner.starts_with('.') { Ok(format!("{{{inner}}}")) } else { Ok(format!("{{.{inner}}}")) }
}

/// Go's `%#v` of a decoded JSON value, as kubectl's jsonpath errors show the object.
pub fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".into(),
        Value::Bool(bool) => bool.to_string(),
        Value::Number(number) => gocompat::fmt::number_text(number),
        Value::String(text) => go_quote(text),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map.iter().map(|(k, v)| format!("{}:{}", go_quote(k), go_syntax(v))).collect();
            format!("map[string]interface {{}}{{{}}}", entries.join(", "))
        }
    }
}

/// Go's `%q` of a string (`strconv.Quote`), which lives with Go's other `fmt` behaviours.
pub use crate::gocompat::fmt::quote as go_quote;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object() -> Value {
        json!({
            "kind": "List",
            "items": [
                {"metadata": {"name": "a", "labels": {"app.kubernetes.io/name": "web"}}, "spec": {"replicas": 1},
                 "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Progressing", "status": "False"}]}},
                {"metadata": {"name": "b"}, "spec": {"replicas": 3, "ratio": 0.5}, "status": {"conditions": []}},
            ],
            "extra": {"nil": null, "s": "x<y"}
        })
    }

    fn render(template: &str) -> Result<String, Error> {
        JsonPath::parse(template)?.render(&object(), Options { allow_missing_keys: true, as_json: false })
    }

    #[test]
    fn fields_slices_and_literals_print_like_kubectl() {
        let cases = [
            ("{.kind}", "List"),
            ("kind={.kind}{\"\\n\"}", "kind=List\n"),
            ("{.items[*].metadata.name}", "a b"),
            ("{.items[0].spec.replicas}", "1"),
            ("{.items[-1].metadata.name}", "b"),
            ("{.items[0:1].metadata.name}", "a"),
            ("{.items[:2:2].metadata.name}", "a"),
            ("{.items[1].spec.ratio}", "0.5"),
            ("{.items[0,1].metadata.name}", "a b"),
            ("{.items[0].metadata.labels.app\\.kubernetes\\.io/name}", "web"),
            ("{.items[0].metadata.labels['app.kubernetes.io/name']}", ""),
            ("{.extra.nil}", "null"),
            ("{.extra.s}", "x<y"),
            ("{.items[1].status}", "{\"conditions\":[]}"),
            ("{.items[0].status.conditions[?(@.type==\"Ready\")].status}", "True"),
            ("{.items[?(@.spec.replicas>1)].metadata.name}", "b"),
            ("{.items[?(@.metadata.labels)].metadata.name}", "a"),
            ("{..replicas}", "1 3"),
            ("{range .items[*]}{.metadata.name}:{.spec.replicas};{end}", "a:1;b:3;"),
            ("{range .items[*]}[{range .status.conditions[*]}{.type},{end}]{end}", "[Ready,Progressing,][]"),
            ("{.missing}", ""),
            ("{@.kind}", "List"),
        ];
        for (template, expected) in cases {
            assert_eq!(render(template).as_deref(), Ok(expected), "{template}");
        }
    }

    #[test]
    fn errors_read_as_client_go() {
        let cases = [
            ("{.kind", "unclosed action"),
            ("{.items[x]}", "invalid array index x"),
            ("{.items[5]}", "array index out of bounds: index 5, length 2"),
            ("{.extra[0]}", "map[string]interface {} is not array or slice"),
            ("{end}", "not in range, nothing to end"),
            ("{kind}", "unrecognized identifier kind"),
            ("{.items[?(@.spec.replicas>1.5)]}", "incompatible types for comparison"),
            ("{.items[?(@.spec.replicas=1)]}", "unrecognized filter operator ="),
            ("{.items[::0]}", "step must be > 0"),
            ("{~}", "unrecognized character in action: U+007E '~'"),
        ];
        for (template, expected) in cases {
            assert_eq!(render(template), Err(Error(expected.into())), "{template}");
        }
        let data = object();
        let strict = JsonPath::parse("{.nope}").unwrap().find(&data, false);
        assert_eq!(strict.unwrap_err(), Error("nope is not found".into()));
    }

    /// A `{range}` without its `{end}` goes on at its own level after the last `{end}` it
    /// reached, so its trailing text is printed once more: kubectl 1.37's bytes for these
    /// templates on a List of ConfigMaps `a` and `b`.
    #[test]
    fn a_range_without_its_end_repeats_what_follows_the_last_end_reached() {
        let list = json!({"kind": "List", "items": [
            {"kind": "ConfigMap", "metadata": {"name": "a"}},
            {"kind": "ConfigMap", "metadata": {"name": "b"}},
        ]});
        for (template, expected) in [
            ("{range .items[*]}<{.kind}>", "<ConfigMap><ConfigMap><List>"),
            ("{range .items[*]}{range .x}{end}<{.kind}>", "<ConfigMap><ConfigMap><List>"),
            ("{.kind}{range .items[*]}{range .x[*]}y{end}<{.metadata.name}>{range .z}{end}", "List<a><b>"),
            ("{range .items[*]}{range .x}-{.metadata.name}-", "-a--b---"),
            ("{range .items[*]}{.metadata.name}{\"\\n\"}", "a\nb\n\n"),
        ] {
            let path = JsonPath::parse(template).unwrap();
            let options = Options { allow_missing_keys: true, as_json: false };
            assert_eq!(path.render(&list, options).unwrap(), expected, "{template}");
        }
    }

    #[test]
    fn as_json_prints_each_group_as_a_list() {
        let path = JsonPath::parse("{.items[*].spec.replicas}{.nope}").unwrap();
        let text = path.render(&object(), Options { allow_missing_keys: true, as_json: true }).unwrap();
        assert_eq!(text, "[\n    1,\n    3\n]\n[]\n");
    }

    #[test]
    fn relaxed_paths_gain_braces_and_a_dot() {
        assert_eq!(relaxed("metadata.name").unwrap(), "{.metadata.name}");
        assert_eq!(relaxed("{.metadata.name}").unwrap(), "{.metadata.name}");
        assert!(relaxed("{a}{b}").is_err());
    }

    #[test]
    fn go_syntax_matches_percent_sharp_v() {
        let value = json!({"a": [1, "t\"w"], "n": null, "f": 0.5});
        assert_eq!(
            go_syntax(&value),
            r#"map[string]interface {}{"a":[]interface {}{1, "t\"w"}, "f":0.5, "n":interface {}(nil)}"#
        );
    }
}
