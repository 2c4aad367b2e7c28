//! YAML as kyaml holds it: a tree of nodes that keeps each scalar's style and tag, each
//! collection's flow or block style and each mapping's key order (go-yaml v3's `yaml.Node`), read
//! from text, written back as kyaml's encoder writes it (go-yaml v3, indent 2, sequences in
//! mappings not indented), and decoded as go-yaml decodes into Go's `interface{}`. kustomize
//! goes through such a tree where it edits a document held in a string (a replacement's target
//! path into `data.[config.json]`).

use serde_json::{Map, Number, Value};

use crate::gocompat::time::go_yaml_time;
use crate::manifest::yaml_events::{Collection, Comments, Flow, GO_ON, STOP, Scalar, Visitor, Walked, walk};
use serde_saphyr::granit_parser::{ScalarStyle, StructureStyle};

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    #[default]
    Plain,
    Single,
    Double,
    Literal,
    Folded,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Scalar { text: String, style: Style },
    Mapping { pairs: Vec<(Node, Node)>, flow: bool },
    Sequence { items: Vec<Node>, flow: bool },
}

/// A node: its kind, its tag in go-yaml's short form (`!!str`; empty for a node kustomize
/// makes), and whether the tag was written out (`!!int 3`).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: Kind,
    pub tag: String,
    pub tagged: bool,
}

impl Node {
    /// A node as kustomize creates one along a path: no tag, no style.
    pub fn new(kind: Kind) -> Node {
        Node { kind, tag: String::new(), tagged: false }
    }

    pub fn scalar(text: &str) -> Node {
        Node::new(Kind::Scalar { text: text.to_string(), style: Style::Plain })
    }

    /// The node of a JSON value, as kyaml makes one from a resource's field (tags by type).
    pub fn from_value(value: &Value) -> Node {
        let (kind, tag) = match value {
            Value::Object(map) => {
                let pairs = map.iter().map(|(key, value)| (Node::tagged_scalar(key, "!!str"), Node::from_value(value)));
                (Kind::Mapping { pairs: pairs.collect(), flow: false }, "!!map")
            }
            Value::Array(items) => {
                (Kind::Sequence { items: items.iter().map(Node::from_value).collect(), flow: false }, "!!seq")
            }
            Value::String(text) => return Node::tagged_scalar(text, "!!str"),
            Value::Null => return Node::tagged_scalar("null", "!!null"),
            Value::Bool(flag) => return Node::tagged_scalar(&flag.to_string(), "!!bool"),
            Value::Number(number) if number.is_f64() => return Node::tagged_scalar(&number.to_string(), "!!float"),
            Value::Number(number) => return Node::tagged_scalar(&number.to_string(), "!!int"),
        };
        Node { kind, tag: tag.to_string(), tagged: false }
    }

    fn tagged_scalar(text: &str, tag: &str) -> Node {
        Node { kind: Kind::Scalar { text: text.to_string(), style: Style::Plain }, tag: tag.to_string(), tagged: false }
    }
}

/// A document read: its root (none for an empty document), and whether it had what the tree does
/// not keep (comments, anchors, aliases, tags other than the core ones), which writing it back
/// would lose.
#[derive(Debug, Clone)]
pub struct Document {
    pub root: Option<Node>,
    pub lossy: bool,
}

/// The first document of `text`, as go-yaml's `Unmarshal` into a `yaml.Node` reads it; `None`
/// when it is not YAML.
pub fn parse(text: &str) -> Option<Document> {
    let mut reader = TreeReader { stack: Vec::new(), root: None, lossy: false, malformed: false };
    let walked = walk(text, Comments::Read, &mut reader);
    if walked == Walked::Failed || reader.malformed {
        return None;
    }
    Some(Document { root: reader.root, lossy: reader.lossy })
}

/// The visitor that builds the tree: the open collections, each with the key whose value is
/// awaited (mappings), and the root once read.
struct TreeReader {
    stack: Vec<(Node, Option<Node>)>,
    root: Option<Node>,
    lossy: bool,
    /// A node came where the tree has no place for it.
    malformed: bool,
}

impl TreeReader {
    fn add(&mut self, node: Node) -> Flow {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some((Node { kind: Kind::Sequence { items, .. }, .. }, _)) => items.push(node),
            Some((Node { kind: Kind::Mapping { pairs, .. }, .. }, key)) => match key.take() {
                Some(key) => pairs.push((key, node)),
                None => *key = Some(node),
            },
            Some(_) => {
                self.malformed = true;
                return STOP;
            }
        }
        GO_ON
    }
}

impl<'input> Visitor<'input> for TreeReader {
    fn scalar(&mut self, scalar: &mut Scalar<'input>) -> Flow {
        self.lossy |= scalar.anchor != 0;
        let style = match scalar.style {
            ScalarStyle::Plain => Style::Plain,
            ScalarStyle::SingleQuoted => Style::Single,
            ScalarStyle::DoubleQuoted => Style::Double,
            ScalarStyle::Literal => Style::Literal,
            ScalarStyle::Folded => Style::Folded,
        };
        let (tag, tagged) = match &scalar.tag {
            Some(tag) => (core_tag(tag, &mut self.lossy), true),
            None if style == Style::Plain => (resolve(&scalar.text).0.to_string(), false),
            None => ("!!str".to_string(), false),
        };
        // An empty plain scalar (`key:`) is read as `~`; go-yaml keeps its empty text.
        let text = if style == Style::Plain && scalar.span.is_empty() {
            String::new()
        } else {
            std::mem::take(&mut scalar.text).into_owned()
        };
        self.add(Node { kind: Kind::Scalar { text, style }, tag, tagged })
    }

    fn collection_start(&mut self, start: &mut Collection<'input>) -> Flow {
        self.lossy |= start.anchor != 0 || start.tag.is_some();
        let flow = start.style == StructureStyle::Flow;
        let node = if start.sequence {
            Node { kind: Kind::Sequence { items: Vec::new(), flow }, tag: "!!seq".into(), tagged: false }
        } else {
            Node { kind: Kind::Mapping { pairs: Vec::new(), flow }, tag: "!!map".into(), tagged: false }
        };
        self.stack.push((node, None));
        GO_ON
    }

    fn collection_end(&mut self, _sequence: bool) -> Flow {
        match self.stack.pop() {
            Some((node, _)) => self.add(node),
            None => {
                self.malformed = true;
                STOP
            }
        }
    }

    fn alias(&mut self, _id: usize, _key: bool) -> Flow {
        self.lossy = true;
        self.add(Node::scalar(""))
    }

    /// The first document with a node ends the reading.
    fn document_end(&mut self) -> Flow {
        if self.root.is_some() { STOP } else { GO_ON }
    }

    fn stream_end(&mut self) -> Flow {
        STOP
    }

    /// Comments and anchors' names.
    fn other(&mut self) -> Flow {
        self.lossy = true;
        GO_ON
    }
}

fn core_tag(tag: &serde_saphyr::granit_parser::Tag, lossy: &mut bool) -> String {
    if tag.handle() == "tag:yaml.org,2002:" {
        format!("!!{}", tag.suffix())
    } else {
        *lossy = true;
        format!("{}{}", tag.handle(), tag.suffix())
    }
}

/// A plain scalar's tag and value as go-yaml v3 resolves it (`resolve("", text)`), timestamps
/// kept as text.
pub fn resolve(text: &str) -> (&'static str, Value) {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return ("!!null", Value::Null),
        "true" | "True" | "TRUE" => return ("!!bool", Value::Bool(true)),
        "false" | "False" | "FALSE" => return ("!!bool", Value::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF" | ".nan" | ".NaN"
        | ".NAN" => return ("!!float", Value::Null),
        _ => {}
    }
    let first = text.as_bytes()[0];
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return ("!!str", Value::String(text.to_string()));
    }
    if go_yaml_time(text).is_some() {
        return ("!!timestamp", Value::String(text.to_string()));
    }
    let plain = text.replace('_', "");
    if let Some(integer) = parse_int(&plain) {
        return ("!!int", integer);
    }
    let float_like = {
        let digits = plain.trim_start_matches(['-', '+']);
        let (mantissa, exponent) = match digits.find(['e', 'E']) {
            Some(at) => (&digits[..at], Some(&digits[at + 1..])),
            None => (digits, None),
        };
        let mantissa_ok = match mantissa.split_once('.') {
            Some(("", fraction)) => !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()),
            Some((whole, fraction)) => {
                !whole.is_empty()
                    && whole.bytes().all(|b| b.is_ascii_digit())
                    && fraction.bytes().all(|b| b.is_ascii_digit())
            }
            None => !mantissa.is_empty() && mantissa.bytes().all(|b| b.is_ascii_digit()),
        };
        let exponent_ok = exponent.is_none_or(|exponent| {
            let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
            !exponent.is_empty() && exponent.bytes().all(|b| b.is_ascii_digit())
        });
        mantissa_ok && exponent_ok
    };
    if float_like && let Ok(float) = plain.parse::<f64>() {
        return ("!!float", Number::from_f64(float).map_or(Value::Null, Value::Number));
    }
    ("!!str", Value::String(text.to_string()))
}

/// Go's `strconv.ParseInt(text, 0, 64)`, then `ParseUint`, then the `0b` and `0o` forms go-yaml
/// adds.
fn parse_int(text: &str) -> Option<Value> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(rest) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        (16, rest)
    } else if let Some(rest) = digits.strip_prefix("0b").or_else(|| digits.strip_prefix("0B")) {
        (2, rest)
    } else if let Some(rest) = digits.strip_prefix("0o").or_else(|| digits.strip_prefix("0O")) {
        (8, rest)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if negative {
        i64::try_from(-(magnitude as i128)).ok().map(Value::from)
    } else if let Ok(small) = i64::try_from(magnitude) {
        Some(Value::from(small))
    } else if text.starts_with('+') {
        None
    } else {
        u64::try_from(magnitude).ok().map(Value::from)
    }
}

/// `node` as a JSON value, with no regard for Go's rules: what a path can be matched in.
pub fn to_plain_value(node: &Node) -> Value {
    match &node.kind {
        Kind::Scalar { text, .. } if node.tag == "!!str" => Value::String(text.clone()),
        Kind::Scalar { text, .. } => resolve(text).1,
        Kind::Sequence { items, .. } => Value::Array(items.iter().map(to_plain_value).collect()),
        Kind::Mapping { pairs, .. } => {
            let text = |key: &Node| match &key.kind {
                Kind::Scalar { text, .. } => text.clone(),
                _ => String::new(),
            };
            Value::Object(pairs.iter().map(|(key, value)| (text(key), to_plain_value(value))).collect())
        }
    }
}

/// Why a tree cannot be decoded into Go values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// The Go value go-yaml decodes `node` into (`interface{}`), as JSON: maps of string keys,
/// numbers, times as RFC 3339 text. Fails where go-yaml fails (a written tag its text does not
/// fit) and where Go's JSON would (maps with keys that are not strings, `.inf`, `.nan`).
pub fn decode(node: &Node) -> Result<Value, DecodeError> {
    match &node.kind {
        Kind::Scalar { text, style } => {
            // A quoted or block scalar read back is a `!!str`, and so is one tagged so.
            if node.tag == "!!str" || (*style != Style::Plain && node.tag.is_empty()) {
                return Ok(Value::String(text.clone()));
            }
            let (tag, value) = resolve(text);
            let wanted = if node.tag.is_empty() { tag } else { node.tag.as_str() };
            let value = match (wanted, tag) {
                (wanted, tag) if wanted == tag => value,
                ("!!float", "!!int") => {
                    Number::from_f64(value.as_f64().unwrap_or_default()).map_or(Value::Null, Value::Number)
                }
                _ => return Err(DecodeError(format!("cannot decode {tag} `{text}` as a {wanted}"))),
            };
            match tag {
                "!!timestamp" => Ok(Value::String(go_yaml_time(text).unwrap_or_else(|| text.clone()))),
                "!!float" if value.is_null() => Err(DecodeError(format!("json: unsupported value: {text}"))),
                _ => Ok(value),
            }
        }
        Kind::Sequence { items, .. } => items.iter().map(decode).collect::<Result<_, _>>().map(Value::Array),
        Kind::Mapping { pairs, .. } => {
            let mut map = Map::new();
            for (key, value) in pairs {
                match decode(key)? {
                    Value::String(key) => {
                        map.insert(key, decode(value)?);
                    }
                    _ => return Err(DecodeError("json: unsupported type: map[interface {}]interface {}".into())),
                }
            }
            Ok(Value::Object(map))
        }
    }
}

/// `node` written as kyaml's encoder writes a document (go-yaml v3, indent 2, sequences in
/// mappings at their key's column, lines never folded).
pub fn emit(node: &Node) -> String {
    let mut out = Writer { text: String::new() };
    match &node.kind {
        Kind::Mapping { pairs, flow: false } if !pairs.is_empty() => out.block_mapping(pairs, 0, false),
        Kind::Sequence { items, flow: false } if !items.is_empty() => out.block_sequence(items, 0, false),
        _ => out.node_inline(node, Context::Block, 2),
    }
    if !out.text.ends_with('\n') {
        out.text.push('\n');
    }
    out.text
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Block,
    Flow,
    Key,
    FlowKey,
}

struct Writer {
    text: String,
}

impl Writer {
    /// A new line (unless at one's start) indented by `indent`.
    fn newline_to(&mut self, indent: usize) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.text.push_str(&" ".repeat(indent));
    }

    /// A block mapping at `indent`, its first key where the text is now when `inline` (after `- `).
    fn block_mapping(&mut self, pairs: &[(Node, Node)], indent: usize, inline: bool) {
        for (position, (key, value)) in pairs.iter().enumerate() {
            if position > 0 || !inline {
                self.newline_to(indent);
            }
            self.node_inline(key, Context::Key, indent);
            self.text.push(':');
            match &value.kind {
                Kind::Mapping { pairs, flow: false } if !pairs.is_empty() => {
                    self.tag(value);
                    self.block_mapping(pairs, indent + 2, false)
                }
                // kyaml's compact sequence indent: the items at the key's column.
                Kind::Sequence { items, flow: false } if !items.is_empty() => {
                    self.tag(value);
                    self.block_sequence(items, indent, false)
                }
                _ => self.space_then(value, Context::Block, indent + 2),
            }
        }
    }

    /// A block sequence at `indent`, its first item where the text is now when `inline`.
    fn block_sequence(&mut self, items: &[Node], indent: usize, inline: bool) {
        for (position, item) in items.iter().enumerate() {
            if position > 0 || !inline {
                self.newline_to(indent);
            }
            self.text.push('-');
            match &item.kind {
                Kind::Mapping { pairs, flow: false } if !pairs.is_empty() => {
                    self.text.push(' ');
                    self.block_mapping(pairs, indent + 2, true)
                }
                Kind::Sequence { items, flow: false } if !items.is_empty() => {
                    self.text.push(' ');
                    self.block_sequence(items, indent + 2, true)
                }
                _ => self.space_then(item, Context::Block, indent + 2),
            }
        }
    }

    fn tag(&mut self, node: &Node) {
        if let Some(tag) = written_tag(node) {
            self.text.push(' ');
            self.text.push_str(&tag);
        }
    }

    /// A node on the current line, after a space unless it writes nothing (a null's empty text)
    /// or follows an opening bracket.
    fn space_then(&mut self, node: &Node, context: Context, indent: usize) {
        let mut inline = Writer { text: String::new() };
        inline.node_inline(node, context, indent);
        if !inline.text.is_empty() && !self.text.ends_with(['[', '{']) {
            self.text.push(' ');
        }
        self.text.push_str(&inline.text);
    }

    /// A space after a tag written before.
    fn separate(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with([' ', '\n']) {
            self.text.push(' ');
        }
    }

    /// A scalar, or a collection in flow style.
    fn node_inline(&mut self, node: &Node, context: Context, indent: usize) {
        if let Some(tag) = written_tag(node) {
            self.text.push_str(&tag);
        }
        match &node.kind {
            Kind::Scalar { text, style } => {
                let mut scalar = String::new();
                scalar_text(&mut scalar, node, text, *style, context, indent);
                if !scalar.is_empty() {
                    self.separate();
                }
                self.text.push_str(&scalar);
            }
            Kind::Sequence { items, .. } => {
                self.separate();
                self.text.push('[');
                for (position, item) in items.iter().enumerate() {
                    if position > 0 {
                        self.text.push(',');
                    }
                    self.space_then(item, Context::Flow, indent);
                }
                self.text.push(']');
            }
            Kind::Mapping { pairs, .. } => {
                self.separate();
                self.text.push('{');
                for (position, (key, value)) in pairs.iter().enumerate() {
                    if position > 0 {
                        self.text.push(',');
                    }
                    self.space_then(key, Context::FlowKey, indent);
                    self.text.push(':');
                    self.space_then(value, Context::Flow, indent);
                }
                self.text.push('}');
            }
        }
    }
}

/// A scalar's text in the style go-yaml's encoder picks: the node's own unless the text cannot
/// be written so.
fn scalar_text(out: &mut String, node: &Node, text: &str, style: Style, context: Context, indent: usize) {
    let analysis = analyze(text);
    let flow = matches!(context, Context::Flow | Context::FlowKey);
    let simple_key = matches!(context, Context::Key | Context::FlowKey);
    let mut style = match style {
        Style::Plain if text.contains('\n') => Style::Literal,
        // A string that would read as another type is quoted.
        Style::Plain if !node.tagged && node.tag == "!!str" && resolve(text).0 != "!!str" => Style::Double,
        style => style,
    };
    if simple_key && analysis.multiline {
        style = Style::Double;
    }
    if style == Style::Plain
        && ((flow && !analysis.flow_plain)
            || (!flow && !analysis.block_plain)
            || (text.is_empty() && (flow || simple_key)))
    {
        style = Style::Single;
    }
    if style == Style::Single && !analysis.single_quoted {
        style = Style::Double;
    }
    if matches!(style, Style::Literal | Style::Folded) && (!analysis.block || flow || simple_key) {
        style = Style::Double;
    }
    match style {
        Style::Plain => out.push_str(text),
        Style::Single => {
            out.push('\'');
            out.push_str(&text.replace('\'', "''"));
            out.push('\'');
        }
        Style::Double => double_quoted(out, text),
        Style::Literal | Style::Folded => block_scalar(out, text, style, indent),
    }
}

/// A literal or folded scalar: its indicator and hints, then its lines at `indent`.
fn block_scalar(out: &mut String, text: &str, style: Style, indent: usize) {
    out.push(if style == Style::Literal { '|' } else { '>' });
    if text.starts_with([' ', '\n']) {
        out.push('2');
    }
    let chars: Vec<char> = text.chars().collect();
    let chomp = match chars.as_slice() {
        [] => Some('-'),
        [.., last] if *last != '\n' => Some('-'),
        [_] => Some('+'),
        [.., before, _] if *before == '\n' => Some('+'),
        _ => None,
    };
    out.extend(chomp);
    out.push('\n');
    // go-yaml looks for the first character that is not a line break from the value's start.
    let first_content_blank = chars.iter().find(|c| **c != '\n').is_none_or(|c| *c == ' ' || *c == '\t');
    let (mut breaks, mut leading_spaces) = (true, true);
    for &c in &chars {
        if c == '\n' {
            if style == Style::Folded && !breaks && !leading_spaces && !first_content_blank {
                out.push('\n');
            }
            out.push('\n');
            breaks = true;
        } else {
            if breaks {
                out.push_str(&" ".repeat(indent));
                leading_spaces = c == ' ' || c == '\t';
            }
            out.push(c);
            breaks = false;
        }
    }
}

/// The tag go-yaml's encoder writes before a node, if any.
fn written_tag(node: &Node) -> Option<String> {
    if node.tag.is_empty() || node.tag == "\0" {
        return None;
    }
    if node.tagged {
        return Some(node.tag.clone());
    }
    match &node.kind {
        Kind::Scalar { text, style } => {
            if node.tag == "!!str" && *style != Style::Plain {
                return None;
            }
            let resolved = resolve(text).0;
            (resolved != node.tag && node.tag != "!!str").then(|| node.tag.clone())
        }
        Kind::Mapping { .. } => (node.tag != "!!map").then(|| node.tag.clone()),
        Kind::Sequence { .. } => (node.tag != "!!seq").then(|| node.tag.clone()),
    }
}

struct Analysis {
    multiline: bool,
    flow_plain: bool,
    block_plain: bool,
    single_quoted: bool,
    block: bool,
}

/// libyaml's analysis of which styles can write `text`.
fn analyze(text: &str) -> Analysis {
    if text.is_empty() {
        return Analysis { multiline: false, flow_plain: false, block_plain: true, single_quoted: true, block: false };
    }
    let chars: Vec<char> = text.chars().collect();
    let mut flow_indicators = text.starts_with("---") || text.starts_with("...");
    let mut block_indicators = flow_indicators;
    let (mut line_breaks, mut special, mut tabs) = (false, false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) = (false, false, false, false);
    let (mut break_space, mut space_break, mut previous_space, mut previous_break) = (false, false, false, false);
    let mut preceded_by_whitespace = true;
    let is_break = |c: char| matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = chars.get(i + 1).is_none_or(|next| matches!(next, ' ' | '\t') || is_break(*next));
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if c == '\t' {
            tabs = true;
        } else if !printable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i + 1 == chars.len();
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= i + 1 == chars.len();
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t') || is_break(c);
    }
    let mut analysis =
        Analysis { multiline: line_breaks, flow_plain: true, block_plain: true, single_quoted: true, block: true };
    if leading_space || leading_break || trailing_space || trailing_break {
        analysis.flow_plain = false;
        analysis.block_plain = false;
    }
    if trailing_space {
        analysis.block = false;
    }
    if break_space || space_break || tabs || special {
        analysis.flow_plain = false;
        analysis.block_plain = false;
        analysis.single_quoted = false;
    }
    if space_break || special {
        analysis.block = false;
    }
    if line_breaks {
        analysis.flow_plain = false;
        analysis.block_plain = false;
    }
    if flow_indicators {
        analysis.flow_plain = false;
    }
    if block_indicators {
        analysis.block_plain = false;
    }
    analysis
}

/// Whether libyaml writes `c` as it is (line feeds and NEL included, tabs not).
fn printable(c: char) -> bool {
    matches!(c, '\n' | '\u{85}' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{10000}'..)
        || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
}

/// libyaml's double-quoted scalar, lines never folded.
fn double_quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        let escape = match c {
            '\0' => "\\0",
            '\u{7}' => "\\a",
            '\u{8}' => "\\b",
            '\t' => "\\t",
            '\n' => "\\n",
            '\u{b}' => "\\v",
            '\u{c}' => "\\f",
            '\r' => "\\r",
            '\u{1b}' => "\\e",
            '"' => "\\\"",
            '\\' => "\\\\",
            '\u{85}' => "\\N",
            '\u{a0}' => "\\_",
            '\u{2028}' => "\\L",
            '\u{2029}' => "\\P",
            c if printable(c) => {
                out.push(c);
                continue;
            }
            c if (c as u32) <= 0xFF => {
                out.push_str(&format!("\\x{:02X}", c as u32));
                continue;
            }
            c if (c as u32) <= 0xFFFF => {
                out.push_str(&format!("\\u{:04X}", c as u32));
                continue;
            }
            c => {
                out.push_str(&format!("\\U{:08X}", c as u32));
                continue;
            }
        };
        out.push_str(escape);
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(text: &str) -> String {
        emit(&parse(text).unwrap().root.unwrap())
    }

    #[test]
    fn documents_are_written_back_in_their_styles() {
        let text = "db:\n  host: old\n  quoted: 'q'\n  flow: {a: 1, b: [x, y]}\n  \"key\": \"v\"\nlist:\n- a\n- b: c\n  d: e\n- - x\n  - y\nempty: []\n";
        assert_eq!(round_trip(text), text);
        assert_eq!(
            round_trip("---\nlit: |\n  one\n  two\nfold: >\n  folded\n  text\n"),
            "lit: |\n  one\n  two\nfold: >\n  folded text\n\n"
        );
        assert_eq!(round_trip("{\"a\": [1, 2], \"b\": \"c\"}"), "{\"a\": [1, 2], \"b\": \"c\"}\n");
        assert_eq!(round_trip("a: \"tab\\there\"\nb: ''\nc:\n"), "a: \"tab\\there\"\nb: ''\nc:\n");
        assert!(parse("a: 1 # note\n").unwrap().lossy);
        assert!(parse("a: [1\n").is_none());
    }

    #[test]
    fn changed_scalars_keep_their_tag_or_are_quoted() {
        let mut document = parse("{\"n\": 1, \"s\": \"x\", \"p\": y}").unwrap().root.unwrap();
        let Kind::Mapping { pairs, .. } = &mut document.kind else { panic!() };
        for (_, value) in pairs.iter_mut() {
            if let Kind::Scalar { text, .. } = &mut value.kind {
                *text = "42".into();
            }
        }
        pairs[0].1.kind = Kind::Scalar { text: "db".into(), style: Style::Plain };
        assert_eq!(emit(&document), "{\"n\": !!int db, \"s\": \"42\", \"p\": \"42\"}\n");
        let reread = parse(&emit(&document)).unwrap().root.unwrap();
        assert_eq!(decode(&reread), Err(DecodeError("cannot decode !!str `db` as a !!int".into())));
    }

    #[test]
    fn scalars_resolve_and_decode_as_go_yaml_does() {
        assert_eq!(resolve("0x1F"), ("!!int", json!(31)));
        assert_eq!(resolve("1_000"), ("!!int", json!(1000)));
        assert_eq!(resolve("12345678901234567890"), ("!!int", json!(12345678901234567890u64)));
        assert_eq!(resolve("1.0"), ("!!float", json!(1.0)));
        assert_eq!(resolve("1e3"), ("!!float", json!(1000.0)));
        assert_eq!(resolve("yes").0, "!!str");
        assert_eq!(go_yaml_time("2001-12-14").as_deref(), Some("2001-12-14T00:00:00Z"));
        assert_eq!(go_yaml_time("2001-2-3T4:05:06Z").as_deref(), Some("2001-02-03T04:05:06Z"));
        assert_eq!(go_yaml_time("2001-13-14"), None);
        let document = parse("{a: 2001-12-14, b: '2001-12-14', c: 1.50, d: [~]}").unwrap().root.unwrap();
        assert_eq!(
            decode(&document),
            Ok(json!({"a": "2001-12-14T00:00:00Z", "b": "2001-12-14", "c": 1.5, "d": [null]}))
        );
        assert!(decode(&parse("{1: a}").unwrap().root.unwrap()).is_err());
        assert!(decode(&parse("a: .inf").unwrap().root.unwrap()).is_err());
    }
}
