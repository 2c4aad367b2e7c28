//! A document read into a tree, as go-yaml v3's `Unmarshal` into a `yaml.Node` reads it.

use crate::manifest::yaml_events::{Collection, Comments, Flow, GO_ON, STOP, Scalar, Visitor, Walked, walk};
use serde_saphyr::granit_parser::{ScalarStyle, StructureStyle};

use super::resolve::resolve;
use super::{Document, Kind, Node, Style};

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
