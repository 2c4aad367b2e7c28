//! A tree written as kyaml's encoder writes it (go-yaml v3 over libyaml's emitter).

use super::resolve::resolve;
use super::{Kind, Node, Style};

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
