//! YAML in kubectl's style, which is go-yaml v2's: keys in natural order, 2-space indent, list
//! dashes at the parent key's indent, strings quoted only when they would read back as something
//! else, multi-line strings as `|` blocks, and long plain strings folded after column 80.

use serde_json::{Map, Value};

use crate::gocompat::fmt::number_text;
use crate::gocompat::order::yaml_key_order;
use crate::gocompat::yaml as go_yaml;

/// go-yaml's preferred line width: past it, a space in a string becomes a line break.
const BEST_WIDTH: usize = 80;

/// `value` as a YAML document, ending with a newline.
pub fn to_yaml(value: &Value) -> String {
    let mut emitter = Emitter::default();
    match value {
        Value::Object(map) if !map.is_empty() => emitter.mapping(map, 0, true),
        Value::Array(items) if !items.is_empty() => emitter.sequence(items, 0, true),
        scalar => emitter.scalar(scalar, 0),
    }
    emitter.start_line();
    emitter.out
}

#[derive(Default)]
struct Emitter {
    out: String,
    column: usize,
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_str(&mut self, text: &str) {
        self.out.push_str(text);
        self.column += if text.is_ascii() { text.len() } else { text.chars().count() };
    }

    fn line_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// Ends the current line unless it is empty (a literal block ends its own last line).
    fn start_line(&mut self) {
        if self.column > 0 {
            self.line_break();
        }
    }

    /// Moves to column `indent`: on this line when the cursor is not past it (after `- `), else on
    /// the next.
    fn indent(&mut self, indent: usize) {
        if self.column > indent {
            self.line_break();
        }
        while self.column < indent {
            self.put(' ');
        }
    }

    fn mapping(&mut self, map: &Map<String, Value>, indent: usize, inline_first: bool) {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort_by(|a, b| yaml_key_order(a, b));
        for (position, key) in keys.into_iter().enumerate() {
            if position > 0 || !inline_first {
                self.start_line();
            }
            self.indent(indent);
            self.string(key, indent, true);
            self.put(':');
            match &map[key] {
                Value::Object(child) if !child.is_empty() => self.mapping(child, indent + 2, false),
                Value::Array(items) if !items.is_empty() => self.sequence(items, indent, false),
                scalar => {
                    self.put(' ');
                    self.scalar(scalar, indent + 2);
                }
            }
        }
    }

    fn sequence(&mut self, items: &[Value], indent: usize, inline_first: bool) {
        for (position, item) in items.iter().enumerate() {
            if position > 0 || !inline_first {
                self.start_line();
            }
            self.indent(indent);
            self.put_str("- ");
            match item {
                Value::Object(map) if !map.is_empty() => self.mapping(map, indent + 2, true),
                Value::Array(inner) if !inner.is_empty() => self.sequence(inner, indent + 2, true),
                scalar => self.scalar(scalar, indent + 2),
            }
        }
    }

    /// A scalar or an empty collection; `indent` is where continuation lines start.
    fn scalar(&mut self, value: &Value, indent: usize) {
        match value {
            Value::Null => self.put_str("null"),
            Value::Bool(flag) => self.put_str(if *flag { "true" } else { "false" }),
            Value::Number(number) => self.put_str(&number_text(number)),
            Value::String(text) => self.string(text, indent, false),
            Value::Array(_) => self.put_str("[]"),
            Value::Object(_) => self.put_str("{}"),
        }
    }

    fn string(&mut self, text: &str, indent: usize, simple_key: bool) {
        match choose_style(text, simple_key) {
            Style::Plain => self.plain(text, indent, !simple_key),
            Style::SingleQuoted => self.single_quoted(text, indent, !simple_key),
            Style::DoubleQuoted => self.double_quoted(text, indent, !simple_key),
            Style::Literal => self.literal(text, indent),
        }
    }

    /// Folds at a space once past the line width, as go-yaml does.
    fn fold_here(&self, allow_breaks: bool, spaces: bool, next_is_space: bool) -> bool {
        allow_breaks && !spaces && self.column > BEST_WIDTH && !next_is_space
    }

    /// Written a run of characters at a time between spaces, where a fold may go.
    fn plain(&mut self, text: &str, indent: usize, allow_breaks: bool) {
        let mut spaces = false;
        let mut rest = text;
        while let Some(at) = rest.find(' ') {
            if at > 0 {
                self.put_str(&rest[..at]);
                spaces = false;
            }
            let next_is_space = rest.as_bytes().get(at + 1) == Some(&b' ');
            if self.fold_here(allow_breaks, spaces, next_is_space) {
                self.indent(indent);
            } else {
                self.put(' ');
            }
            spaces = true;
            rest = &rest[at + 1..];
        }
        self.put_str(rest);
    }

    /// Written a run at a time between spaces (where a fold may go, but not at either end) and
    /// quotes (doubled).
    fn single_quoted(&mut self, text: &str, indent: usize, allow_breaks: bool) {
        self.put('\'');
        let mut spaces = false;
        let mut start = 0;
        while let Some(offset) = text[start..].find([' ', '\'']) {
            let at = start + offset;
            if at > start {
                self.put_str(&text[start..at]);
                spaces = false;
            }
            if text.as_bytes()[at] == b'\'' {
                self.put_str("''");
                spaces = false;
            } else {
                let inner = at > 0 && at + 1 < text.len();
                let next_is_space = text.as_bytes().get(at + 1) == Some(&b' ');
                if inner && self.fold_here(allow_breaks, spaces, next_is_space) {
                    self.indent(indent);
                } else {
                    self.put(' ');
                }
                spaces = true;
            }
            start = at + 1;
        }
        self.put_str(&text[start..]);
        self.put('\'');
    }

    fn double_quoted(&mut self, text: &str, indent: usize, allow_breaks: bool) {
        let mut chars = text.chars().enumerate().peekable();
        self.put('"');
        let mut spaces = false;
        while let Some((i, c)) = chars.next() {
            let next = chars.peek().map(|&(_, next)| next);
            if !is_printable(c) || is_break(c) || c == '\u{feff}' || c == '"' || c == '\\' {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\u{7}' => self.put('a'),
                    '\u{8}' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\u{b}' => self.put('v'),
                    '\u{c}' => self.put('f'),
                    '\r' => self.put('r'),
                    '\u{1b}' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    other if (other as u32) <= 0xff => self.put_str(&format!("x{:02X}", other as u32)),
                    other if (other as u32) <= 0xffff => self.put_str(&format!("u{:04X}", other as u32)),
                    other => self.put_str(&format!("U{:08X}", other as u32)),
                }
                spaces = false;
            } else if c == ' ' {
                let inner = i > 0 && next.is_some();
                if inner && allow_breaks && !spaces && self.column > BEST_WIDTH {
                    self.indent(indent);
                    if next == Some(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.put('"');
    }

    fn literal(&mut self, text: &str, indent: usize) {
        self.put('|');
        if text.starts_with([' ', '\n']) {
            self.put('2');
        }
        self.put_str(chomping(text));
        // Line by line: a line is indented unless empty, and ends with a break unless last.
        for line in text.split('\n') {
            self.line_break();
            if !line.is_empty() {
                self.indent(indent);
                self.put_str(line);
            }
        }
    }
}

/// The chomping indicator go-yaml writes: `-` without a final newline, `+` with several.
fn chomping(text: &str) -> &'static str {
    if !text.ends_with('\n') {
        "-"
    } else if text == "\n" || text[..text.len() - 1].ends_with('\n') {
        "+"
    } else {
        ""
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// go-yaml v2's choice: a string that would read back as another type is double-quoted; one with
/// a newline is a literal block; one that plain style cannot carry is single-quoted, or
/// double-quoted when it has characters only escapes can carry.
fn choose_style(text: &str, simple_key: bool) -> Style {
    if text.contains('\n') {
        // Only a literal block or double quotes carry a line break; for ASCII text (a dashboard's
        // JSON, a script) what rules out the block is found by searches, not a pass per character.
        let block_allowed = if text.is_ascii() {
            let special = text.bytes().any(|b| b != b'\n' && !(0x20..=0x7e).contains(&b));
            !(text.ends_with(' ') || text.contains(" \n") || text.contains(" \r") || special)
        } else {
            Analysis::of(text).block_allowed
        };
        return if block_allowed && !simple_key { Style::Literal } else { Style::DoubleQuoted };
    }
    let analysis = Analysis::of(text);
    match go_yaml::must_quote(text) {
        false if analysis.plain_allowed => Style::Plain,
        false if analysis.single_quoted_allowed => Style::SingleQuoted,
        _ => Style::DoubleQuoted,
    }
}

/// What go-yaml's scalar analysis allows for a string in block context.
struct Analysis {
    plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

impl Analysis {
    fn of(text: &str) -> Self {
        // ASCII text (most of it, and all of the long strings) is read byte by byte.
        if text.is_ascii() {
            Self::of_chars(text, text.bytes().map(char::from))
        } else {
            Self::of_chars(text, text.chars())
        }
    }

    /// go-yaml's analysis as one pass over pairs of neighbouring characters, then the edges.
    fn of_chars(text: &str, mut chars: impl Iterator<Item = char>) -> Self {
        let Some(first) = chars.next() else {
            return Analysis { plain_allowed: true, single_quoted_allowed: true, block_allowed: true };
        };
        let mut indicators = text.starts_with("---") || text.starts_with("...");
        let (mut break_space, mut space_break) = (false, false);
        let mut line_breaks = is_break(first);
        let mut special = !is_printable(first);
        let mut previous = first;
        for c in chars {
            // `: ` and ` #` start a mapping value and a comment anywhere.
            indicators |= (previous == ':' && is_blank(c)) || (c == '#' && is_blank(previous));
            break_space |= c == ' ' && is_break(previous);
            space_break |= previous == ' ' && is_break(c);
            line_breaks |= is_break(c);
            special |= !is_printable(c);
            previous = c;
        }
        let (last, alone) = (previous, text.chars().nth(1).is_none());
        let first_followed_by_whitespace = text.chars().nth(1).is_none_or(is_blank);
        indicators |= match first {
            '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%' | '@' | '`' => true,
            '?' | ':' | '-' => first_followed_by_whitespace,
            _ => false,
        };
        indicators |= last == ':' && !alone;
        let edge_space = first == ' ' || is_break(first) || last == ' ' || is_break(last);
        Analysis {
            plain_allowed: !(indicators || edge_space || break_space || space_break || special || line_breaks),
            single_quoted_allowed: !(break_space || space_break || special),
            block_allowed: !(last == ' ' || space_break || special),
        }
    }
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || is_break(c)
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// YAML's printable set as go-yaml implements it (no characters beyond the Basic Multilingual Plane).
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}') && c != '\u{feff}'
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_print_in_kubectl_layout() {
        let object = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "creationTimestamp": null, "labels": {"app": "web"}},
            "spec": {
                "replicas": 2,
                "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.19", "resources": {}, "ports": [{"containerPort": 80}]}]}},
                "args": [["a", "b"], []],
            },
        });
        let expected = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  creationTimestamp: null
  labels:
    app: web
  name: web
spec:
  args:
  - - a
    - b
  - []
  replicas: 2
  template:
    spec:
      containers:
      - image: nginx:1.19
        name: nginx
        ports:
        - containerPort: 80
        resources: {}
";
        assert_eq!(to_yaml(&object), expected);
    }

    #[test]
    fn strings_are_quoted_only_when_needed() {
        let cases = [
            ("plain", "plain"),
            ("2026-01-02T03:04:05Z", "\"2026-01-02T03:04:05Z\""),
            ("2026-01-02", "\"2026-01-02\""),
            ("123", "\"123\""),
            ("0x1F", "\"0x1F\""),
            ("1.5", "\"1.5\""),
            ("1e3", "\"1e3\""),
            ("1:20", "\"1:20\""),
            ("true", "\"true\""),
            ("yes", "\"yes\""),
            ("null", "\"null\""),
            ("", "\"\""),
            ("25%", "25%"),
            ("*", "'*'"),
            ("- x", "'- x'"),
            ("a: b", "'a: b'"),
            ("a #b", "'a #b'"),
            ("a#b", "a#b"),
            ("it's", "it's"),
            ("'quoted'", "'''quoted'''"),
            (" lead", "' lead'"),
            ("tab\there", "\"tab\\there\""),
            ("k:{\"name\":\"x\"}", "k:{\"name\":\"x\"}"),
            ("1.2.3", "1.2.3"),
            ("v1", "v1"),
            ("-", "'-'"),
            ("snow ☃", "snow ☃"),
            ("rocket 🚀", "\"rocket \\U0001F680\""),
        ];
        for (input, expected) in cases {
            assert_eq!(to_yaml(&json!({ "k": input })), format!("k: {expected}\n"), "{input:?}");
        }
    }

    #[test]
    fn multi_line_strings_are_literal_blocks() {
        assert_eq!(to_yaml(&json!({"a": "x\ny\n", "b": 1})), "a: |\n  x\n  y\nb: 1\n");
        assert_eq!(to_yaml(&json!({"a": "x\n\ny"})), "a: |-\n  x\n\n  y\n");
        assert_eq!(to_yaml(&json!({"a": "x\n\n", "b": 1})), "a: |+\n  x\n\nb: 1\n");
        assert_eq!(to_yaml(&json!({"a": " x\ny"})), "a: |2-\n   x\n  y\n");
        assert_eq!(to_yaml(&json!({"a": "x \ny"})), "a: \"x \\ny\"\n");
        assert_eq!(to_yaml(&json!(["x\ny"])), "- |-\n  x\n  y\n");
    }

    #[test]
    fn long_plain_strings_fold_past_column_80() {
        let message =
            "ReplicaSet \"web-5d8b7c9f6d\" has timed out progressing because it has not made progress in time";
        let yaml = to_yaml(&json!({"status": {"conditions": [{"message": message}]}}));
        assert_eq!(
            yaml,
            "status:\n  conditions:\n  - message: ReplicaSet \"web-5d8b7c9f6d\" has timed out progressing because it has\n      not made progress in time\n"
        );
    }

    #[test]
    fn numbers_print_like_go() {
        assert_eq!(
            to_yaml(&json!({"a": 1.5, "b": 1000000.0, "c": 0.00001, "d": -3, "e": 1.0})),
            "a: 1.5\nb: 1e+06\nc: 1e-05\nd: -3\ne: 1\n"
        );
    }

    #[test]
    fn keys_sort_naturally() {
        let yaml = to_yaml(&json!({"a10": 1, "a2": 2, "b": 3, "A": 4, "_x": 5, "a": 6}));
        assert_eq!(yaml, "_x: 5\nA: 4\na: 6\na2: 2\na10: 1\nb: 3\n");
    }

    #[test]
    fn empty_documents() {
        assert_eq!(to_yaml(&json!({})), "{}\n");
        assert_eq!(to_yaml(&json!([])), "[]\n");
    }
}
