//! Parsing a template: its text into a syntax tree of nodes, pipelines, commands and operands,
//! with Go's parse errors (`template: output:1: unclosed action`).

use std::collections::HashMap;

use super::{Error, Template, functions};
use crate::gocompat::fmt::GoValue as V;
use crate::gocompat::strconv::unquote;

#[derive(Debug, Clone)]
pub(super) enum Node {
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
pub(super) struct Pipe {
    pub(super) variables: Vec<String>,
    pub(super) assign: bool,
    pub(super) commands: Vec<Command>,
}

#[derive(Debug, Clone)]
pub(super) struct Command {
    pub(super) pos: usize,
    pub(super) args: Vec<Arg>,
}

#[derive(Debug, Clone)]
pub(super) enum Arg {
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
            let value = number(&text).map_err(|words| self.error_at(start, &format!("{words}: {text:?}")))?;
            Arg::Literal(value, text)
        } else if first.is_alphabetic() || first == '_' {
            let word = self.peek_word();
            self.pos += word.len();
            match word.as_str() {
                "true" => Arg::Literal(V::Bool(true), word),
                "false" => Arg::Literal(V::Bool(false), word),
                "nil" => Arg::Nil { pos: start },
                name if functions::NAMES.contains(&name) => Arg::Function { pos: start, name: word },
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

/// A number constant: an integer as `strconv.ParseInt(text, 0, 64)` reads it (decimal, hex,
/// octal, binary, `_` between digits), else a float; Go's words when it is neither (a float out
/// of float64's range, `1e400`, is no number to Go's parser either).
fn number(text: &str) -> Result<V, &'static str> {
    if let Ok(int) = crate::gocompat::strconv::parse_int(text, 64) {
        return Ok(V::Count(int));
    }
    let clean = text.replace('_', "");
    let (negative, digits) = match clean.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, clean.strip_prefix('+').unwrap_or(&clean)),
    };
    let float: f64 = digits.to_ascii_lowercase().parse().map_err(|_| "bad number syntax")?;
    if !float.is_finite() {
        return Err("illegal number syntax");
    }
    Ok(V::Float(if negative { -float } else { float }))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expectations from Go's text/template and strconv documentation.
    #[test]
    fn constants_are_read_with_gos_syntax() {
        assert_eq!(number("0x1F"), Ok(V::Count(31)));
        assert_eq!(number("0o17"), Ok(V::Count(15)));
        assert_eq!(number("0b101"), Ok(V::Count(5)));
        assert_eq!(number("1_000"), Ok(V::Count(1000)));
        assert_eq!(number("-7"), Ok(V::Count(-7)));
        assert_eq!(number("1.5e3"), Ok(V::Float(1500.0)));
        assert_eq!(number("x"), Err("bad number syntax"));
        assert_eq!(number("1e400"), Err("illegal number syntax"), "out of float64's range");
    }

    #[test]
    fn trim_markers_and_comments_leave_no_text() {
        let parsed = Template::parse("{{23 -}} < {{- 45}}{{/* a comment */}}").unwrap();
        assert_eq!(parsed.execute(&serde_json::Value::Null, true).unwrap(), "23<45");
    }

    #[test]
    fn malformed_templates_fail_with_gos_words() {
        let error = |text: &str| Template::parse(text).unwrap_err().to_string();
        assert_eq!(error("{{if .a}}"), "template: output:1: unexpected EOF");
        assert_eq!(error("{{end}}"), "template: output:1: unexpected {{end}}");
        assert_eq!(error("a\n{{.b"), "template: output:2: unclosed action");
    }
}
