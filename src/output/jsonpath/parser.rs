//! The template's text read into its tree: actions, and ranges nested with their `{end}`s, as
//! client-go's parser reads them (its errors' words).

use super::{Error, error};

/// The template's elements, ranges nested.
pub(super) fn parse(template: &str) -> Result<Vec<Element>, Error> {
    let items = Parser { input: template, pos: 0 }.template()?;
    let (block, _) = nest(&mut items.into_iter(), false);
    Ok(block)
}

/// A step of the template at the top level or inside a `{range}`.
#[derive(Debug, Clone)]
pub(super) enum Element {
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
pub(super) enum Node {
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
pub(super) struct Bound {
    pub(super) value: i64,
    pub(super) known: bool,
    /// `end` of `[i]`, which is `i + 1`.
    pub(super) derived: bool,
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
