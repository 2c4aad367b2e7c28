//! `-o go-template` and `-o template`: Go's `text/template` over an object as kubectl hands it
//! over (decoded JSON with integers as int64 and other numbers as float64), with the functions
//! kubectl adds (`exists`, `base64decode`). Text and `{{actions}}` with trim markers and
//! comments; pipelines, variables, `if`/`else if`/`range`/`with`/`break`/`continue`,
//! `define`/`template`/`block`; the built-in functions (`and`, `or`, `not`, `len`, `index`,
//! `slice`, `print`, `printf`, `println`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `html`, `js`,
//! `urlquery`). Errors are Go's words with its `template: output:LINE:COL` locations. Pure: a
//! value in, text out.

use std::collections::HashMap;
use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::gocompat::fmt::{float_text, value_text};

/// Why a template cannot be parsed or run, in Go's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `template: output:1: unclosed action`.
    #[error("{0}")]
    Parse(String),
    /// `template: output:1:7: executing "output" at <.a.b>: ...`; `partial` is what was written
    /// before the failure, which kubectl prints.
    #[error("{message}")]
    Execute { message: String, partial: String },
}

/// A parsed template.
#[derive(Debug, Clone)]
pub struct Template {
    text: String,
    root: Vec<Node>,
    defined: HashMap<String, Vec<Node>>,
}

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Action(Pipe),
    If { pipe: Pipe, then: Vec<Node>, otherwise: Vec<Node> },
    With { pipe: Pipe, then: Vec<Node>, otherwise: Vec<Node> },
    Range { pipe: Pipe, body: Vec<Node>, otherwise: Vec<Node> },
    Call { pos: usize, name: String, pipe: Option<Pipe> },
    Break,
    Continue,
}

/// `$x := cmd | cmd`: the variables declared (or assigned, `=`) and the commands.
#[derive(Debug, Clone)]
struct Pipe {
    variables: Vec<String>,
    assign: bool,
    commands: Vec<Command>,
}

#[derive(Debug, Clone)]
struct Command {
    pos: usize,
    args: Vec<Arg>,
}

#[derive(Debug, Clone)]
enum Arg {
    /// `.a.b` (no names: `.`), `pos` where Go reports it.
    Field {
        pos: usize,
        names: Vec<String>,
    },
    /// `$x.a.b`.
    Variable {
        pos: usize,
        name: String,
        names: Vec<String>,
    },
    /// `(pipeline).a`.
    Group {
        pos: usize,
        pipe: Pipe,
        names: Vec<String>,
    },
    Function {
        pos: usize,
        name: String,
    },
    /// A constant and its text in the template, which Go's messages quote.
    Literal(V, String),
    Nil {
        pos: usize,
    },
}

/// A value while the template runs.
#[derive(Debug, Clone, PartialEq)]
enum V {
    /// Go's invalid value: a key the map does not have.
    Missing,
    Nil,
    Bool(bool),
    /// An integer of the object's (Go's int64).
    Int(i64),
    /// An integer the template makes: a constant, a `len`, a range index (Go's int).
    Count(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Map(Map<String, Value>),
}

impl V {
    fn of(value: &Value) -> V {
        match value {
            Value::Null => V::Nil,
            Value::Bool(flag) => V::Bool(*flag),
            Value::Number(number) => match number.as_i64() {
                Some(int) => V::Int(int),
                None => V::Float(number.as_f64().unwrap_or_default()),
            },
            Value::String(text) => V::Str(text.clone()),
            Value::Array(items) => V::List(items.clone()),
            Value::Object(map) => V::Map(map.clone()),
        }
    }

    fn to_json(&self) -> Value {
        match self {
            V::Missing | V::Nil => Value::Null,
            V::Bool(flag) => Value::Bool(*flag),
            V::Int(int) | V::Count(int) => Value::from(*int),
            V::Float(float) => serde_json::Number::from_f64(*float).map_or(Value::Null, Value::Number),
            V::Str(text) => Value::String(text.clone()),
            V::List(items) => Value::Array(items.clone()),
            V::Map(map) => Value::Object(map.clone()),
        }
    }

    /// Go's `%v`.
    fn text(&self) -> String {
        match self {
            V::Missing | V::Nil => "<nil>".to_string(),
            V::Float(float) => float_text(*float),
            other => value_text(&other.to_json()).into_owned(),
        }
    }

    /// The integer, of the object's or the template's.
    fn int(&self) -> Option<i64> {
        match self {
            V::Int(int) | V::Count(int) => Some(*int),
            _ => None,
        }
    }

    fn truth(&self) -> bool {
        match self {
            V::Missing | V::Nil => false,
            V::Bool(flag) => *flag,
            V::Int(int) | V::Count(int) => *int != 0,
            V::Float(float) => *float != 0.0,
            V::Str(text) => !text.is_empty(),
            V::List(items) => !items.is_empty(),
            V::Map(map) => !map.is_empty(),
        }
    }

    /// The Go type kubectl's objects give the value, for messages.
    fn type_name(&self) -> &'static str {
        match self {
            V::Missing | V::Nil => "<nil>",
            V::Bool(_) => "bool",
            V::Int(_) => "int64",
            V::Count(_) => "int",
            V::Float(_) => "float64",
            V::Str(_) => "string",
            V::List(_) => "[]interface {}",
            V::Map(_) => "map[string]interface {}",
        }
    }
}

const FUNCTIONS: [&str; 21] = [
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

// ---------------------------------------------------------------------------------------------
// Parsing

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    defined: HashMap<String, Vec<Node>>,
    /// Variables in scope, for Go's `undefined variable` check.
    variables: Vec<String>,
    /// Whether trailing text is trimmed because the last action ended with ` -}}`.
    trim_next: bool,
    /// How many `{{range}}` bodies the cursor is in, for `{{break}}` and `{{continue}}`.
    ranges: usize,
}

/// What ended a list of nodes.
#[derive(Debug, PartialEq)]
enum Stop {
    Eof,
    End,
    Else(Option<(String, usize)>),
}

impl Template {
    /// Parses `text`, as kubectl parses `-o go-template` (a template named `output`).
    pub fn parse(text: &str) -> Result<Template, Error> {
        let mut parser = Parser {
            text,
            pos: 0,
            defined: HashMap::new(),
            variables: vec!["$".to_string()],
            trim_next: false,
            ranges: 0,
        };
        let (root, end) = parser.list()?;
        match end {
            Stop::Eof => {}
            Stop::End => return Err(parser.error_at(parser.pos, "unexpected {{end}}")),
            Stop::Else(_) => return Err(parser.error_at(parser.pos, "unexpected {{else}}")),
        }
        Ok(Template { text: text.to_string(), root, defined: parser.defined })
    }
}

impl Parser<'_> {
    fn error_at(&self, pos: usize, message: &str) -> Error {
        let line = 1 + self.text[..pos.min(self.text.len())].matches('\n').count();
        Error::Parse(format!("template: output:{line}: {message}"))
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    /// Nodes up to `{{end}}`, `{{else}}` or the end of the text.
    fn list(&mut self) -> Result<(Vec<Node>, Stop), Error> {
        let mut nodes = Vec::new();
        loop {
            let Some(open) = self.rest().find("{{") else {
                let mut text = self.rest().to_string();
                if self.trim_next {
                    text = text.trim_start().to_string();
                }
                if !text.is_empty() {
                    nodes.push(Node::Text(text));
                }
                self.pos = self.text.len();
                return Ok((nodes, Stop::Eof));
            };
            let mut text = self.rest()[..open].to_string();
            let action_start = self.pos + open;
            self.pos = action_start + 2;
            let trim_left =
                self.rest().starts_with("- ") || self.rest().starts_with("-\t") || self.rest().starts_with("-\n");
            if self.trim_next {
                text = text.trim_start().to_string();
            }
            if trim_left {
                text = text.trim_end().to_string();
                self.pos += 1;
            }
            self.trim_next = false;
            if !text.is_empty() {
                nodes.push(Node::Text(text));
            }
            self.skip_space();
            if self.rest().starts_with("/*") {
                let Some(close) = self.rest().find("*/") else {
                    return Err(self.error_at(action_start, "unclosed comment"));
                };
                self.pos += close + 2;
                self.close_action(action_start)?;
                continue;
            }
            let word_pos = self.pos;
            let word = self.peek_word();
            match word.as_str() {
                "end" => {
                    self.pos += 3;
                    self.close_action(action_start)?;
                    return Ok((nodes, Stop::End));
                }
                "else" => {
                    self.pos += 4;
                    self.skip_space();
                    let chained = self.peek_word();
                    if chained == "if" || chained == "with" {
                        let at = self.pos;
                        self.pos += chained.len();
                        return Ok((nodes, Stop::Else(Some((chained, at)))));
                    }
                    self.close_action(action_start)?;
                    return Ok((nodes, Stop::Else(None)));
                }
                "if" | "with" | "range" => {
                    self.pos += word.len();
                    nodes.push(self.control(&word, word_pos, action_start)?);
                }
                "break" | "continue" => {
                    if self.ranges == 0 {
                        return Err(self.error_at(word_pos, &format!("{{{{{word}}}}} outside {{{{range}}}}")));
                    }
                    self.pos += word.len();
                    self.close_action(action_start)?;
                    nodes.push(if word == "break" { Node::Break } else { Node::Continue });
                }
                "define" | "block" | "template" => {
                    self.pos += word.len();
                    nodes.extend(self.template_action(&word, word_pos, action_start)?);
                }
                _ => {
                    let pipe = self.pipe(action_start, "command")?;
                    nodes.push(Node::Action(pipe));
                }
            }
        }
    }

    /// `if`, `with` or `range`: the pipeline, the body, an `else` (or `else if`/`else with`).
    fn control(&mut self, word: &str, word_pos: usize, action_start: usize) -> Result<Node, Error> {
        let mark = self.variables.len();
        let pipe = self.pipe(action_start, word)?;
        if pipe.commands.is_empty() {
            return Err(self.error_at(word_pos, &format!("missing value for {word}")));
        }
        self.ranges += usize::from(word == "range");
        let listed = self.list();
        self.ranges -= usize::from(word == "range");
        let (then, end) = listed?;
        let otherwise = match end {
            Stop::Eof => return Err(self.error_at(self.pos, "unexpected EOF")),
            Stop::End => Vec::new(),
            Stop::Else(None) => {
                let (otherwise, end) = self.list()?;
                match end {
                    Stop::End => otherwise,
                    Stop::Eof => return Err(self.error_at(self.pos, "unexpected EOF")),
                    Stop::Else(_) => return Err(self.error_at(self.pos, "expected end; found {{else}}")),
                }
            }
            Stop::Else(Some((chained, at))) => {
                // `{{else if ...}}` is `{{else}}{{if ...}}...{{end}}{{end}}`, sharing the end.
                vec![self.control(&chained, at, at)?]
            }
        };
        self.variables.truncate(mark);
        Ok(match word {
            "if" => Node::If { pipe, then, otherwise },
            "with" => Node::With { pipe, then, otherwise },
            _ => Node::Range { pipe, body: then, otherwise },
        })
    }

    /// `{{define "name"}}`, `{{block "name" pipe}}` and `{{template "name" [pipe]}}`.
    fn template_action(&mut self, word: &str, word_pos: usize, action_start: usize) -> Result<Vec<Node>, Error> {
        self.skip_space();
        let context = format!("{word} clause");
        let name_pos = self.pos;
        let name = match self.rest().chars().next() {
            Some('"' | '`') => match self.operand(&context)? {
                Some(Arg::Literal(V::Str(name), _)) => name,
                _ => return Err(self.error_at(word_pos, &format!("unexpected name in {context}"))),
            },
            _ => return Err(self.error_at(word_pos, &format!("unexpected {} in {context}", self.describe_next()))),
        };
        if word == "define" {
            self.close_action(action_start)?;
            let saved = std::mem::replace(&mut self.variables, vec!["$".to_string()]);
            let (body, end) = self.list()?;
            self.variables = saved;
            if end != Stop::End {
                return Err(self.error_at(self.pos, "unexpected EOF"));
            }
            self.defined.insert(name, body);
            return Ok(Vec::new());
        }
        let pipe = self.pipe(action_start, &context)?;
        let pipe = (!pipe.commands.is_empty()).then_some(pipe);
        if word == "block" {
            let saved = std::mem::replace(&mut self.variables, vec!["$".to_string()]);
            let (body, end) = self.list()?;
            self.variables = saved;
            if end != Stop::End {
                return Err(self.error_at(self.pos, "unexpected EOF"));
            }
            self.defined.insert(name.clone(), body);
        }
        Ok(vec![Node::Call { pos: name_pos, name, pipe }])
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
    }

    fn peek_word(&self) -> String {
        self.rest().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
    }

    /// The end of an action: `}}`, or ` -}}` which trims the text after it.
    fn close_action(&mut self, action_start: usize) -> Result<(), Error> {
        self.skip_space();
        if self.rest().starts_with("-}}") && self.text[..self.pos].ends_with([' ', '\t', '\r', '\n']) {
            self.pos += 3;
            self.trim_next = true;
            return Ok(());
        }
        if self.rest().starts_with("}}") {
            self.pos += 2;
            return Ok(());
        }
        if self.pos >= self.text.len() || !self.text[action_start..].contains("}}") {
            return Err(self.error_at(action_start, "unclosed action"));
        }
        Err(self.error_at(self.pos, &format!("unexpected {} in end", self.describe_next())))
    }

    /// Go's `%s` of the next token, for messages.
    fn describe_next(&self) -> String {
        let rest = self.rest();
        let token: String = match rest.chars().next() {
            Some(c) if c.is_alphanumeric() || c == '_' || c == '.' || c == '$' => {
                rest.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$')).collect()
            }
            Some(c) => c.to_string(),
            None => return "EOF".to_string(),
        };
        format!("{token:?}")
    }

    /// A pipeline up to the end of its action (or the closing `)` of a group).
    fn pipe(&mut self, action_start: usize, context: &str) -> Result<Pipe, Error> {
        self.pipe_until(action_start, context, false)
    }

    fn pipe_until(&mut self, action_start: usize, context: &str, in_group: bool) -> Result<Pipe, Error> {
        let mut pipe = Pipe { variables: Vec::new(), assign: false, commands: Vec::new() };
        self.skip_space();
        // Declarations: `$x :=`, `$i, $v :=`, `$x =`.
        let checkpoint = self.pos;
        let mut declared = Vec::new();
        while self.rest().starts_with('$') {
            let name: String =
                self.rest().chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$')).collect();
            self.pos += name.len();
            declared.push(name);
            self.skip_space();
            if self.rest().starts_with(',') {
                self.pos += 1;
                self.skip_space();
                continue;
            }
            break;
        }
        if !declared.is_empty()
            && (self.rest().starts_with(":=") || (self.rest().starts_with('=') && !self.rest().starts_with("==")))
        {
            if declared.len() > 2 || (declared.len() == 2 && context != "range") {
                return Err(self.error_at(checkpoint, &format!("too many declarations in {context}")));
            }
            pipe.assign = self.rest().starts_with('=');
            self.pos += if pipe.assign { 1 } else { 2 };
            if pipe.assign {
                for name in &declared {
                    if !self.variables.contains(name) {
                        return Err(self.error_at(checkpoint, &format!("undefined variable {name:?}")));
                    }
                }
            } else {
                self.variables.extend(declared.iter().cloned());
            }
            pipe.variables = declared;
        } else {
            self.pos = checkpoint;
        }
        loop {
            self.skip_space();
            let start = self.pos;
            let mut command = Command { pos: start, args: Vec::new() };
            loop {
                self.skip_space();
                if in_group && self.rest().starts_with(')') {
                    break;
                }
                if !in_group && (self.rest().starts_with("}}") || self.rest().starts_with("-}}")) {
                    break;
                }
                if self.rest().starts_with('|') {
                    break;
                }
                if self.pos >= self.text.len() {
                    return Err(self.error_at(action_start, "unclosed action"));
                }
                match self.operand(context)? {
                    Some(arg) => command.args.push(arg),
                    None => {
                        return Err(
                            self.error_at(self.pos, &format!("unexpected {} in {context}", self.describe_next()))
                        );
                    }
                }
            }
            if command.args.is_empty() {
                if self.rest().starts_with('|') || !pipe.commands.is_empty() {
                    return Err(self.error_at(self.pos, "missing command"));
                }
                if !pipe.variables.is_empty() {
                    return Err(self.error_at(self.pos, &format!("missing value for {context}")));
                }
            } else {
                pipe.commands.push(command);
            }
            if self.rest().starts_with('|') {
                self.pos += 1;
                continue;
            }
            break;
        }
        if in_group {
            self.pos += 1;
        } else {
            self.close_action(action_start)?;
        }
        Ok(pipe)
    }

    /// One operand: a field chain, variable, function, literal or parenthesized pipeline.
    fn operand(&mut self, context: &str) -> Result<Option<Arg>, Error> {
        let start = self.pos;
        let rest = self.rest();
        let first = rest.chars().next().unwrap_or_default();
        let arg = if first == '.' && !rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
            let names = self.field_names();
            let pos = self.chain_pos(start, &names);
            Arg::Field { pos, names }
        } else if first == '$' {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$')).collect();
            if !self.variables.contains(&name) {
                return Err(self.error_at(start, &format!("undefined variable {name:?}")));
            }
            self.pos += name.len();
            let names = self.field_names();
            Arg::Variable { pos: start, name, names }
        } else if first == '(' {
            self.pos += 1;
            let pipe = self.pipe_until(start, context, true)?;
            let names = self.field_names();
            Arg::Group { pos: start, pipe, names }
        } else if first == '"' || first == '`' {
            let text = self.quoted(start)?;
            Arg::Literal(V::Str(text), self.text[start..self.pos].to_string())
        } else if first == '\'' {
            let end = rest[1..].find('\'').ok_or_else(|| self.error_at(start, "unterminated character constant"))?;
            let inner = &rest[1..1 + end];
            let text = unquote(&format!("\"{inner}\"")).ok_or_else(|| self.error_at(start, "invalid syntax"))?;
            let c = text.chars().next().unwrap_or_default();
            let source = rest[..end + 2].to_string();
            self.pos += end + 2;
            Arg::Literal(V::Count(c as i64), source)
        } else if first.is_ascii_digit() || ((first == '-' || first == '+' || first == '.') && rest.len() > 1) {
            let text: String = rest
                .chars()
                .enumerate()
                .take_while(|(i, c)| {
                    c.is_ascii_alphanumeric()
                        || matches!(c, '.' | '_')
                        || (*i == 0 && matches!(c, '-' | '+'))
                        || (matches!(c, '-' | '+') && rest[..*i].ends_with(['e', 'E', 'p', 'P']))
                })
                .map(|(_, c)| c)
                .collect();
            self.pos += text.len();
            let value = number(&text).ok_or_else(|| self.error_at(start, &format!("bad number syntax: {text:?}")))?;
            Arg::Literal(value, text)
        } else if first.is_alphabetic() || first == '_' {
            let word = self.peek_word();
            self.pos += word.len();
            match word.as_str() {
                "true" => Arg::Literal(V::Bool(true), word),
                "false" => Arg::Literal(V::Bool(false), word),
                "nil" => Arg::Nil { pos: start },
                name if FUNCTIONS.contains(&name) => Arg::Function { pos: start, name: word },
                _ => return Err(self.error_at(start, &format!("function {word:?} not defined"))),
            }
        } else {
            return Ok(None);
        };
        Ok(Some(arg))
    }

    /// `.a.b.c` from the cursor: the names, none for `.` alone.
    fn field_names(&mut self) -> Vec<String> {
        let mut names = Vec::new();
        while self.rest().starts_with('.') {
            let name: String = self.rest()[1..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            self.pos += 1 + name.len();
            if name.is_empty() {
                break;
            }
            names.push(name);
        }
        names
    }

    /// Where Go puts a field chain: at its second field when it has several.
    fn chain_pos(&self, start: usize, names: &[String]) -> usize {
        match names {
            [first, _, ..] => start + 1 + first.len(),
            _ => start,
        }
    }

    fn quoted(&mut self, start: usize) -> Result<String, Error> {
        let rest = self.rest();
        if let Some(raw) = rest.strip_prefix('`') {
            let end = raw.find('`').ok_or_else(|| self.error_at(start, "unterminated raw quoted string"))?;
            let text = raw[..end].to_string();
            self.pos += end + 2;
            return Ok(text);
        }
        let mut escaped = false;
        for (i, c) in rest.char_indices().skip(1) {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    let text = unquote(&rest[..=i]).ok_or_else(|| self.error_at(start, "invalid syntax"))?;
                    self.pos += i + 1;
                    return Ok(text);
                }
                '\n' => break,
                _ => escaped = false,
            }
        }
        Err(self.error_at(start, "unterminated quoted string"))
    }
}

/// Go's `strconv.Unquote` of a double-quoted string.
fn unquote(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let code = |chars: &mut std::str::Chars<'_>, digits: usize, radix: u32| {
            let text: String = chars.take(digits).collect();
            u32::from_str_radix(&text, radix).ok().and_then(char::from_u32)
        };
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'a' => '\x07',
            'b' => '\x08',
            'f' => '\x0c',
            'v' => '\x0b',
            '\\' => '\\',
            '"' => '"',
            '\'' => '\'',
            'x' => code(&mut chars, 2, 16)?,
            'u' => code(&mut chars, 4, 16)?,
            'U' => code(&mut chars, 8, 16)?,
            d @ '0'..='7' => {
                let rest: String = chars.by_ref().take(2).collect();
                u32::from_str_radix(&format!("{d}{rest}"), 8).ok().and_then(char::from_u32)?
            }
            _ => return None,
        });
    }
    Some(out)
}

/// A number constant: an integer (decimal, hex, octal, binary) or a float.
fn number(text: &str) -> Option<V> {
    let clean = text.replace('_', "");
    let (negative, digits) = match clean.strip_prefix('-') {
        Some(rest) => (true, rest.to_string()),
        None => (false, clean.strip_prefix('+').unwrap_or(&clean).to_string()),
    };
    let lower = digits.to_ascii_lowercase();
    let int = if let Some(hex) = lower.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()
    } else if let Some(bin) = lower.strip_prefix("0b") {
        i64::from_str_radix(bin, 2).ok()
    } else if let Some(oct) = lower.strip_prefix("0o") {
        i64::from_str_radix(oct, 8).ok()
    } else if lower.len() > 1 && lower.starts_with('0') && lower.chars().all(|c| c.is_ascii_digit()) {
        i64::from_str_radix(&lower[1..], 8).ok()
    } else {
        lower.parse::<i64>().ok()
    };
    if let Some(int) = int {
        return Some(V::Count(if negative { -int } else { int }));
    }
    let float: f64 = lower.parse().ok()?;
    Some(V::Float(if negative { -float } else { float }))
}

// ---------------------------------------------------------------------------------------------
// Running

/// How a body ended: normally, or by `{{break}}` or `{{continue}}`.
enum Flow {
    Normal,
    Break,
    Continue,
}

struct State<'a> {
    template: &'a Template,
    out: String,
    variables: Vec<(String, V)>,
    missing_is_error: bool,
    depth: usize,
}

/// An execution error before its location is added: the node Go reports and the message.
struct Failure {
    pos: usize,
    context: String,
    message: String,
}

type Run<T> = Result<T, Failure>;

impl Template {
    /// Runs the template on `data`; `allow_missing_keys` is kubectl's
    /// `--allow-missing-template-keys` (a missing key prints `<no value>` instead of failing).
    pub fn execute(&self, data: &Value, allow_missing_keys: bool) -> Result<String, Error> {
        let root = V::of(data);
        let mut state = State {
            template: self,
            out: String::new(),
            variables: vec![("$".to_string(), root.clone())],
            missing_is_error: !allow_missing_keys,
            depth: 0,
        };
        match state.walk(&self.root, &root) {
            Ok(_) => Ok(state.out),
            Err(failure) => {
                let before = &self.text[..failure.pos.min(self.text.len())];
                let line = 1 + before.matches('\n').count();
                let column = match before.rfind('\n') {
                    Some(newline) => failure.pos - newline - 1,
                    None => failure.pos,
                };
                let message = format!(
                    "template: output:{line}:{column}: executing \"output\" at <{}>: {}",
                    failure.context, failure.message
                );
                Err(Error::Execute { message, partial: state.out })
            }
        }
    }
}

impl State<'_> {
    fn walk(&mut self, nodes: &[Node], dot: &V) -> Run<Flow> {
        for node in nodes {
            match self.node(node, dot)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    fn scoped(&mut self, nodes: &[Node], dot: &V) -> Run<Flow> {
        let mark = self.variables.len();
        let flow = self.walk(nodes, dot);
        self.variables.truncate(mark);
        flow
    }

    fn node(&mut self, node: &Node, dot: &V) -> Run<Flow> {
        match node {
            Node::Text(text) => self.out.push_str(text),
            Node::Action(pipe) => {
                let value = self.pipe(pipe, dot)?;
                if pipe.variables.is_empty() {
                    match value {
                        V::Missing | V::Nil => self.out.push_str("<no value>"),
                        value => self.out.push_str(&value.text()),
                    }
                }
            }
            Node::If { pipe, then, otherwise } => {
                let mark = self.variables.len();
                let value = self.pipe(pipe, dot)?;
                let flow = if value.truth() { self.scoped(then, dot)? } else { self.scoped(otherwise, dot)? };
                self.variables.truncate(mark);
                return Ok(flow);
            }
            Node::With { pipe, then, otherwise } => {
                let mark = self.variables.len();
                let value = self.pipe(pipe, dot)?;
                let flow = if value.truth() { self.scoped(then, &value)? } else { self.scoped(otherwise, dot)? };
                self.variables.truncate(mark);
                return Ok(flow);
            }
            Node::Range { pipe, body, otherwise } => {
                let mark = self.variables.len();
                let value = self.pipe_value(pipe, dot)?;
                let items: Vec<(V, V)> = match &value {
                    V::List(items) => {
                        items.iter().enumerate().map(|(i, item)| (V::Count(i as i64), V::of(item))).collect()
                    }
                    V::Map(map) => map.iter().map(|(key, item)| (V::Str(key.clone()), V::of(item))).collect(),
                    V::Missing | V::Nil => Vec::new(),
                    V::Int(count) | V::Count(count) => (0..*count).map(|i| (V::Count(i), V::Count(i))).collect(),
                    other => {
                        let (pos, context) = last_node(pipe);
                        return Err(Failure {
                            pos,
                            context,
                            message: format!("range can't iterate over {}", other.text()),
                        });
                    }
                };
                if items.is_empty() {
                    let flow = self.scoped(otherwise, dot)?;
                    self.variables.truncate(mark);
                    return Ok(flow);
                }
                for (key, item) in items {
                    let inner = self.variables.len();
                    match pipe.variables.as_slice() {
                        [one] => self.variables.push((one.clone(), item.clone())),
                        [first, second] => {
                            self.variables.push((first.clone(), key));
                            self.variables.push((second.clone(), item.clone()));
                        }
                        _ => {}
                    }
                    let flow = self.walk(body, &item)?;
                    self.variables.truncate(inner);
                    if matches!(flow, Flow::Break) {
                        break;
                    }
                }
                self.variables.truncate(mark);
            }
            Node::Call { pos, name, pipe } => {
                let Some(body) = self.template.defined.get(name) else {
                    let context = format!("{{{{template {name:?}}}}}");
                    return Err(Failure { pos: *pos, context, message: format!("template {name:?} not defined") });
                };
                let value = match pipe {
                    Some(pipe) => self.pipe(pipe, dot)?,
                    None => V::Nil,
                };
                if self.depth > 100_000 {
                    let context = format!("{{{{template {name:?}}}}}");
                    return Err(Failure {
                        pos: *pos,
                        context,
                        message: "exceeded maximum template depth (100000)".into(),
                    });
                }
                self.depth += 1;
                let saved = std::mem::replace(&mut self.variables, vec![("$".to_string(), value.clone())]);
                let flow = self.walk(body, &value);
                self.variables = saved;
                self.depth -= 1;
                flow?;
            }
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    /// A pipeline's value; its variables declared or assigned.
    fn pipe(&mut self, pipe: &Pipe, dot: &V) -> Run<V> {
        let value = self.pipe_value(pipe, dot)?;
        if let [name] = pipe.variables.as_slice() {
            self.set(name, value.clone(), pipe.assign);
        }
        Ok(value)
    }

    fn pipe_value(&mut self, pipe: &Pipe, dot: &V) -> Run<V> {
        let mut value: Option<V> = None;
        for command in &pipe.commands {
            value = Some(self.command(command, dot, value)?);
        }
        Ok(value.unwrap_or(V::Missing))
    }

    fn set(&mut self, name: &str, value: V, assign: bool) {
        if assign && let Some(slot) = self.variables.iter_mut().rev().find(|(known, _)| known == name) {
            slot.1 = value;
            return;
        }
        self.variables.push((name.to_string(), value));
    }

    fn command(&mut self, command: &Command, dot: &V, piped: Option<V>) -> Run<V> {
        let first = &command.args[0];
        if let Arg::Function { name, .. } = first {
            return self.function(name, command, dot, piped);
        }
        if command.args.len() > 1 || piped.is_some() {
            let (pos, names) = match first {
                Arg::Field { pos, names } | Arg::Variable { pos, names, .. } | Arg::Group { pos, names, .. } => {
                    (*pos, names)
                }
                _ => (command.pos, &Vec::new()),
            };
            let message = match names.last() {
                Some(name) => format!("{name} is not a method but has arguments"),
                None => format!("can't give argument to non-function {}", arg_text(first)),
            };
            return Err(Failure { pos, context: arg_text(first), message });
        }
        match first {
            Arg::Nil { pos } => {
                Err(Failure { pos: *pos, context: "nil".into(), message: "nil is not a command".into() })
            }
            arg => self.arg(arg, dot),
        }
    }

    fn arg(&mut self, arg: &Arg, dot: &V) -> Run<V> {
        match arg {
            Arg::Field { pos, names } => self.fields(dot.clone(), names, *pos, arg),
            Arg::Variable { pos, name, names } => {
                let value = self.variables.iter().rev().find(|(known, _)| known == name).map(|(_, v)| v.clone());
                self.fields(value.unwrap_or(V::Missing), names, *pos, arg)
            }
            Arg::Group { pos, pipe, names } => {
                let value = self.pipe_value(pipe, dot)?;
                self.fields(value, names, *pos, arg)
            }
            Arg::Literal(value, _) => Ok(value.clone()),
            Arg::Nil { .. } => Ok(V::Nil),
            Arg::Function { pos, name } => {
                let command = Command { pos: *pos, args: vec![arg.clone()] };
                self.function(name, &command, dot, None)
            }
        }
    }

    fn fields(&self, mut value: V, names: &[String], pos: usize, arg: &Arg) -> Run<V> {
        for name in names {
            value = match value {
                V::Map(mut map) => match map.remove(name) {
                    Some(found) => V::of(&found),
                    None if self.missing_is_error => {
                        let message = format!("map has no entry for key {name:?}");
                        return Err(Failure { pos, context: arg_text(arg), message });
                    }
                    None => V::Missing,
                },
                V::Missing | V::Nil => V::Missing,
                _ => {
                    let message = format!("can't evaluate field {name} in type interface {{}}");
                    return Err(Failure { pos, context: arg_text(arg), message });
                }
            };
        }
        Ok(value)
    }

    fn function(&mut self, name: &str, command: &Command, dot: &V, piped: Option<V>) -> Run<V> {
        let fail = |message: String| Failure { pos: command.pos, context: command_text(command), message };
        // Go names the function alone when the number of arguments is wrong.
        let count_error = |message: String| Failure { pos: command.pos, context: name.to_string(), message };
        let operands = &command.args[1..];
        // `and` and `or` stop at the first operand that decides.
        if name == "and" || name == "or" {
            if operands.is_empty() && piped.is_none() {
                return Err(count_error(format!("wrong number of args for {name}: want at least 1 got 0")));
            }
            let mut last = V::Missing;
            for operand in operands {
                last = self.arg(operand, dot)?;
                if last.truth() == (name == "or") {
                    return Ok(last);
                }
            }
            return Ok(piped.unwrap_or(last));
        }
        let mut args = Vec::with_capacity(operands.len() + 1);
        for operand in operands {
            args.push(self.arg(operand, dot)?);
        }
        args.extend(piped);
        let call_error = |message: String| fail(format!("error calling {name}: {message}"));
        let want = |count: usize| -> Run<()> {
            if args.len() == count {
                Ok(())
            } else {
                Err(count_error(format!("wrong number of args for {name}: want {count} got {}", args.len())))
            }
        };
        Ok(match name {
            "not" => {
                want(1)?;
                V::Bool(!args[0].truth())
            }
            "len" => {
                want(1)?;
                V::Count(match &args[0] {
                    V::Str(text) => text.len() as i64,
                    V::List(items) => items.len() as i64,
                    V::Map(map) => map.len() as i64,
                    V::Missing | V::Nil => return Err(call_error("len of nil pointer".into())),
                    other => return Err(call_error(format!("len of type {}", other.type_name()))),
                })
            }
            "index" | "slice" if args.is_empty() => {
                return Err(count_error(format!("wrong number of args for {name}: want at least 1 got 0")));
            }
            "index" => index(&args).map_err(call_error)?,
            "slice" => slice(&args).map_err(call_error)?,
            "print" => V::Str(sprint(&args)),
            "println" => V::Str(format!("{}\n", args.iter().map(V::text).collect::<Vec<_>>().join(" "))),
            "printf" => match args.split_first() {
                Some((V::Str(format), rest)) => V::Str(sprintf(format, rest)),
                Some((other, _)) => {
                    return Err(fail(format!("wrong type for value; expected string; got {}", other.type_name())));
                }
                None => return Err(count_error("wrong number of args for printf: want at least 1 got 0".into())),
            },
            "eq" => {
                if args.len() < 2 {
                    return Err(call_error("missing argument for comparison".into()));
                }
                let mut truth = false;
                for other in &args[1..] {
                    if equal(&args[0], other).map_err(call_error)? {
                        truth = true;
                        break;
                    }
                }
                V::Bool(truth)
            }
            "ne" => {
                want(2)?;
                V::Bool(!equal(&args[0], &args[1]).map_err(call_error)?)
            }
            "lt" | "le" | "gt" | "ge" => {
                want(2)?;
                let order = order(&args[0], &args[1]).map_err(call_error)?;
                V::Bool(match name {
                    "lt" => order.is_lt(),
                    "le" => order.is_le(),
                    "gt" => order.is_gt(),
                    _ => order.is_ge(),
                })
            }
            "html" => V::Str(html_escape(&sprint(&args))),
            "js" => V::Str(js_escape(&sprint(&args))),
            "urlquery" => V::Str(url_query_escape(&sprint(&args))),
            "exists" => match args.split_first() {
                Some((item, keys)) => V::Bool(exists(item, keys)),
                None => return Err(count_error("wrong number of args for exists: want at least 1 got 0".into())),
            },
            "base64decode" => {
                want(1)?;
                let V::Str(text) = &args[0] else {
                    let message = format!("wrong type for value; expected string; got {}", args[0].type_name());
                    return Err(fail(message));
                };
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|err| call_error(format!("base64 decode failed: {}", base64_reason(&err))))?;
                V::Str(String::from_utf8_lossy(&decoded).into_owned())
            }
            _ => return Err(call_error("can't call method/function \"call\" with 0 results".into())),
        })
    }
}

fn arg_text(arg: &Arg) -> String {
    let chain = |names: &[String]| names.iter().map(|name| format!(".{name}")).collect::<String>();
    match arg {
        Arg::Field { names, .. } if names.is_empty() => ".".into(),
        Arg::Field { names, .. } => chain(names),
        Arg::Variable { name, names, .. } => format!("{name}{}", chain(names)),
        Arg::Group { pipe, names, .. } => format!("({}){}", pipe_text(pipe), chain(names)),
        Arg::Function { name, .. } => name.clone(),
        Arg::Literal(_, text) => text.clone(),
        Arg::Nil { .. } => "nil".into(),
    }
}

/// The node Go last looked at in `pipe`, which its errors after the pipeline name: the value of
/// a last command that is one operand, else that command.
fn last_node(pipe: &Pipe) -> (usize, String) {
    let Some(command) = pipe.commands.last() else { return (0, String::new()) };
    match command.args.as_slice() {
        [Arg::Field { pos, .. } | Arg::Variable { pos, .. } | Arg::Group { pos, .. }] => {
            (*pos, arg_text(&command.args[0]))
        }
        _ => (command.pos, command_text(command)),
    }
}

fn command_text(command: &Command) -> String {
    command.args.iter().map(arg_text).collect::<Vec<_>>().join(" ")
}

fn pipe_text(pipe: &Pipe) -> String {
    let commands = pipe.commands.iter().map(command_text).collect::<Vec<_>>().join(" | ");
    match pipe.variables.as_slice() {
        [] => commands,
        names => format!("{} {} {commands}", names.join(", "), if pipe.assign { "=" } else { ":=" }),
    }
}

/// Go's `fmt.Sprint`: a space between operands when neither is a string.
fn sprint(args: &[V]) -> String {
    let mut out = String::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 && !matches!(arg, V::Str(_)) && !matches!(args[i - 1], V::Str(_)) {
            out.push(' ');
        }
        out.push_str(&arg.text());
    }
    out
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
        V::List(items) => V::List(items[low..high].to_vec()),
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

/// Go's `fmt.Sprintf` for the verbs templates use: `%v %s %d %q %x %X %f %e %g %t %%`, with
/// flags, width and precision; a verb the value does not take prints `%!d(string=web)`.
fn sprintf(format: &str, args: &[V]) -> String {
    let mut out = String::new();
    let mut next = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flags = String::new();
        while let Some(&flag) = chars.peek().filter(|f| matches!(f, '-' | '+' | '#' | ' ' | '0')) {
            flags.push(flag);
            chars.next();
        }
        let mut width = String::new();
        while let Some(&digit) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(digit);
            chars.next();
        }
        let mut precision: Option<usize> = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut digits = String::new();
            while let Some(&digit) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(digit);
                chars.next();
            }
            precision = Some(digits.parse().unwrap_or(0));
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(next) else {
            let _ = write!(out, "%!{verb}(MISSING)");
            continue;
        };
        next += 1;
        let text = match format_verb(verb, arg, precision, &flags) {
            Some(text) => text,
            None => {
                out.push_str(&verb_or_bad(verb, arg, precision, &flags));
                continue;
            }
        };
        let width: usize = width.parse().unwrap_or(0);
        let pad = width.saturating_sub(text.chars().count());
        if flags.contains('-') {
            out.push_str(&text);
            out.extend(std::iter::repeat_n(' ', pad));
        } else if flags.contains('0')
            && matches!(arg, V::Int(_) | V::Count(_) | V::Float(_))
            && !matches!(verb, 's' | 'q' | 'v')
        {
            let (sign, digits) = match text.strip_prefix(['-', '+']) {
                Some(digits) => (&text[..1], digits),
                None => ("", text.as_str()),
            };
            out.push_str(sign);
            out.extend(std::iter::repeat_n('0', pad));
            out.push_str(digits);
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&text);
        }
    }
    if next < args.len() {
        let extra: Vec<String> = args[next..].iter().map(|arg| format!("{}={}", arg.type_name(), arg.text())).collect();
        let _ = write!(out, "%!(EXTRA {})", extra.join(", "));
    }
    out
}

fn format_verb(verb: char, arg: &V, precision: Option<usize>, flags: &str) -> Option<String> {
    let plus = |text: String, positive: bool| if flags.contains('+') && positive { format!("+{text}") } else { text };
    Some(match (verb, arg) {
        ('v', _) => arg.text(),
        ('s', V::Str(text)) => match precision {
            Some(limit) => text.chars().take(limit).collect(),
            None => text.clone(),
        },
        (_, V::List(items)) if verb != 'v' => {
            let items: Vec<String> =
                items.iter().map(|item| verb_or_bad(verb, &V::of(item), precision, flags)).collect();
            format!("[{}]", items.join(" "))
        }
        (_, V::Map(map)) if verb != 'v' => {
            let entries: Vec<String> = map
                .iter()
                .map(|(key, value)| {
                    let key = verb_or_bad(verb, &V::Str(key.clone()), precision, flags);
                    format!("{key}:{}", verb_or_bad(verb, &V::of(value), precision, flags))
                })
                .collect();
            format!("map[{}]", entries.join(" "))
        }
        ('q', V::Str(text)) => crate::output::jsonpath::go_quote(text),
        ('d', V::Int(int) | V::Count(int)) => plus(int.to_string(), *int >= 0),
        ('x', V::Int(int) | V::Count(int)) => format!("{int:x}"),
        ('X', V::Int(int) | V::Count(int)) => format!("{int:X}"),
        ('x', V::Str(text)) => text.bytes().map(|byte| format!("{byte:02x}")).collect(),
        ('X', V::Str(text)) => text.bytes().map(|byte| format!("{byte:02X}")).collect(),
        ('t', V::Bool(flag)) => flag.to_string(),
        ('f' | 'F', V::Float(float)) => plus(format!("{float:.*}", precision.unwrap_or(6)), *float >= 0.0),
        ('e', V::Float(float)) => plus(go_exponent(*float, precision.unwrap_or(6)), *float >= 0.0),
        ('g', V::Float(float)) => match precision {
            None => plus(float_text(*float), *float >= 0.0),
            Some(_) => return None,
        },
        _ => return None,
    })
}

/// A verb's text for one value, or Go's `%!d(string=web)` (`%!d(<nil>)`) when the value does
/// not take it.
fn verb_or_bad(verb: char, arg: &V, precision: Option<usize>, flags: &str) -> String {
    format_verb(verb, arg, precision, flags).unwrap_or_else(|| match arg {
        V::Missing | V::Nil => format!("%!{verb}(<nil>)"),
        _ => format!("%!{verb}({}={})", arg.type_name(), arg.text()),
    })
}

/// `%e`: Go writes at least two exponent digits (`1.500000e+00`).
fn go_exponent(float: f64, precision: usize) -> String {
    let text = format!("{float:.precision$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(template: &str, data: &Value) -> String {
        Template::parse(template).unwrap().execute(data, true).unwrap()
    }

    fn failure(template: &str, data: &Value) -> String {
        match Template::parse(template).and_then(|parsed| parsed.execute(data, false)) {
            Err(err) => err.to_string(),
            Ok(text) => panic!("{template} printed {text:?}"),
        }
    }

    // Expectations from kubectl 1.32: `kubectl annotate -f OBJECT --local x=y -o go-template=T`.
    #[test]
    fn values_print_as_kubectl_prints_them() {
        let data = json!({"n": 3, "f": 0.5, "tiny": 0.00001, "big": 100000000, "null": null,
                          "list": ["x", "y"], "map": {"b": 2, "a": "1"}});
        assert_eq!(
            run("{{.n}} {{.f}} {{.tiny}} {{.big}} {{.null}} {{.nope}} {{.nope.deeper}}", &data),
            "3 0.5 1e-05 100000000 <no value> <no value> <no value>"
        );
        assert_eq!(run("{{.list}} {{.map}} {{print .null}}", &data), "[x y] map[a:1 b:2] <nil>");
        assert_eq!(run("{{range $k, $v := .map}}{{$k}}={{$v}};{{end}}", &data), "a=1;b=2;");
        assert_eq!(run("{{if eq .n 3}}int{{end}} {{lt .f 1.0}} {{len .list}}", &data), "int true 2");
        assert_eq!(run("{{printf \"%05d|%-3s|%q|%.2f\" .n \"a\" .list .f}}", &data), "00003|a  |[\"x\" \"y\"]|0.50");
        assert_eq!(run("{{ .n -}}  |  {{- .f }}", &data), "3|0.5");
    }

    #[test]
    fn errors_are_gos_with_their_location() {
        let data = json!({"spec": {"list": [1], "n": 3}});
        assert_eq!(
            failure("{{.spec.list.x}}", &data),
            "template: output:1:7: executing \"output\" at <.spec.list.x>: can't evaluate field x in type interface {}"
        );
        assert_eq!(
            failure("{{if eq .spec.n 3.0}}{{end}}", &data),
            "template: output:1:5: executing \"output\" at <eq .spec.n 3.0>: error calling eq: incompatible types for \
             comparison: int64 and float64"
        );
        assert_eq!(
            failure("x\n{{.nope}}", &data),
            "template: output:2:2: executing \"output\" at <.nope>: map has no entry for key \"nope\""
        );
        assert_eq!(failure("{{.spec", &data), "template: output:1: unclosed action");
        assert_eq!(failure("{{foo}}", &data), "template: output:1: function \"foo\" not defined");
        assert_eq!(failure("{{break}}", &data), "template: output:1: {{break}} outside {{range}}");
    }
}
