//! YAML as kyaml holds it: a tree of nodes that keeps each scalar's style and tag, each
//! collection's flow or block style and each mapping's key order (go-yaml v3's `yaml.Node`), read
//! from text, written back as kyaml's encoder writes it (go-yaml v3, indent 2, sequences in
//! mappings not indented), and decoded as go-yaml decodes into Go's `interface{}`. kustomize
//! goes through such a tree where it edits a document held in a string (a replacement's target
//! path into `data.[config.json]`).
//!
//! Here the tree; reading it in [`parse`], what its scalars are and its Go values in [`resolve`],
//! writing it in [`emit`](mod@emit).

use serde_json::Value;

mod emit;
mod parse;
mod resolve;

pub use emit::emit;
pub use parse::parse;
pub use resolve::{decode, to_plain_value};

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

#[cfg(test)]
mod tests {
    use super::resolve::{DecodeError, resolve};
    use super::*;
    use crate::gocompat::time::go_yaml_time;
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
        assert_eq!(resolve("0777"), ("!!int", json!(511)));
        assert_eq!(resolve("-0b101"), ("!!int", json!(-5)));
        assert_eq!(resolve("08"), ("!!float", json!(8.0)));
        assert_eq!(resolve("+9223372036854775808"), ("!!float", json!(9223372036854775808.0)));
        assert_eq!(resolve("1.5.5").0, "!!str");
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
