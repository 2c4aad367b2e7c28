//! One walk over the YAML parser's events, for the readers that build their own thing from a
//! document: [`plain_yaml`](super::plain_yaml) (a JSON value, as go-yaml v2 reads it),
//! [`plain_times`](super::plain_times) (where go-yaml's timestamps are) and kustomize's node tree
//! (`kustomize::node`). The walk reads the events one by one, tells each node whether it is a
//! mapping's key, and hands it to a [`Visitor`], which may stop the walk.
//!
//! A visitor is a type parameter, not a trait object: each walk is compiled for its visitor, and
//! a scalar's text reaches it as the parser made it (borrowed from the input where it can be), so
//! that a visitor may take it rather than copy it.

use std::borrow::Cow;
use std::ops::ControlFlow;

use serde_saphyr::granit_parser::{Event, Options, Parser, ScalarStyle, Span, StructureStyle, Tag, YamlVersion};

/// Whether a visitor wants the walk to go on.
pub(crate) type Flow = ControlFlow<()>;

/// Go on.
pub(crate) const GO_ON: Flow = ControlFlow::Continue(());
/// Stop the walk.
pub(crate) const STOP: Flow = ControlFlow::Break(());

/// A scalar, as the parser read it. A visitor may take its text and tag (`std::mem::take`).
pub(crate) struct Scalar<'input> {
    /// Its text after YAML's escapes and folding.
    pub text: Cow<'input, str>,
    pub style: ScalarStyle,
    /// Its anchor's number, 0 for none.
    pub anchor: usize,
    pub tag: Option<Cow<'input, Tag>>,
    /// Where it stands in the input.
    pub span: Span,
    /// Whether it is a mapping's key.
    pub key: bool,
}

/// The start of a sequence or a mapping.
pub(crate) struct Collection<'input> {
    pub sequence: bool,
    pub style: StructureStyle,
    /// Its anchor's number, 0 for none.
    pub anchor: usize,
    pub tag: Option<Cow<'input, Tag>>,
    /// Whether it is a mapping's key.
    pub key: bool,
}

/// What a reader does with each event. Every method has a default that goes on, so that a
/// visitor says only what it reads.
pub(crate) trait Visitor<'input> {
    /// Before every event, whatever it is: where a visitor counts them.
    fn event(&mut self) -> Flow {
        GO_ON
    }
    fn stream_start(&mut self) -> Flow {
        GO_ON
    }
    fn stream_end(&mut self) -> Flow {
        GO_ON
    }
    /// A document starts, after a `%YAML` directive when `version` is there.
    fn document_start(&mut self, _version: Option<YamlVersion>) -> Flow {
        GO_ON
    }
    fn document_end(&mut self) -> Flow {
        GO_ON
    }
    fn scalar(&mut self, _scalar: &mut Scalar<'input>) -> Flow {
        GO_ON
    }
    /// An alias of the node with anchor `id`.
    fn alias(&mut self, _id: usize, _key: bool) -> Flow {
        GO_ON
    }
    fn collection_start(&mut self, _collection: &mut Collection<'input>) -> Flow {
        GO_ON
    }
    fn collection_end(&mut self, _sequence: bool) -> Flow {
        GO_ON
    }
    /// What is no node: a comment (read only when asked for), or what the parser reports only
    /// when asked for (anchors' names, unresolved aliases).
    fn other(&mut self) -> Flow {
        GO_ON
    }
}

/// Whether comments are read (as [`Visitor::other`] events) or skipped. Skipping them is faster,
/// and spares the parser's limit on a long run of comments where it must look ahead.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comments {
    Read,
    Skipped,
}

/// How a walk ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Walked {
    /// At the end of the input.
    Ended,
    /// The visitor stopped it.
    Stopped,
    /// The input is not YAML from here on (what came before was visited).
    Failed,
}

/// Walks `text`'s events through `visitor` until the input ends, the visitor stops or the
/// parser fails.
pub(crate) fn walk<'input, V: Visitor<'input>>(text: &'input str, comments: Comments, visitor: &mut V) -> Walked {
    let mut options = Options::default();
    if comments == Comments::Skipped {
        options.emit_comments = false;
    }
    // For each open collection: a sequence (`None`), or a mapping and whether its next node is a key.
    let mut open: Vec<Option<bool>> = Vec::new();
    for event in Parser::new_from_str_with_options(text, options) {
        let Ok((event, span)) = event else { return Walked::Failed };
        if visitor.event().is_break() {
            return Walked::Stopped;
        }
        let key = open.last().copied().flatten().unwrap_or(false);
        let flow = match event {
            Event::StreamStart => visitor.stream_start(),
            Event::StreamEnd => visitor.stream_end(),
            Event::DocumentStart(_, version) => visitor.document_start(version),
            Event::DocumentEnd => visitor.document_end(),
            Event::Scalar(text, style, anchor, tag) => {
                node_done(&mut open);
                visitor.scalar(&mut Scalar { text, style, anchor, tag, span, key })
            }
            Event::Alias(id) => {
                node_done(&mut open);
                visitor.alias(id, key)
            }
            Event::SequenceStart(style, anchor, tag) => {
                open.push(None);
                visitor.collection_start(&mut Collection { sequence: true, style, anchor, tag, key })
            }
            Event::MappingStart(style, anchor, tag) => {
                open.push(Some(true));
                visitor.collection_start(&mut Collection { sequence: false, style, anchor, tag, key })
            }
            Event::SequenceEnd | Event::MappingEnd => {
                open.pop();
                node_done(&mut open);
                visitor.collection_end(matches!(event, Event::SequenceEnd))
            }
            _ => visitor.other(),
        };
        if flow.is_break() {
            return Walked::Stopped;
        }
    }
    Walked::Ended
}

/// A node of the innermost open collection is done: in a mapping, a key's value comes next, or
/// after a value the next key.
fn node_done(open: &mut [Option<bool>]) {
    if let Some(Some(key_next)) = open.last_mut() {
        *key_next = !*key_next;
    }
}

/// Two visitors on one walk: `first` sees each event before `second` (and so may read a scalar's
/// text that `second` takes). Each stops on its own; the walk goes on while either goes on.
pub(crate) struct Both<A, B> {
    pub first: A,
    pub second: B,
    first_on: bool,
    second_on: bool,
}

impl<A, B> Both<A, B> {
    pub(crate) fn new(first: A, second: B) -> Self {
        Both { first, second, first_on: true, second_on: true }
    }

    /// How the walk `walked` ended for `second`.
    pub(crate) fn second_walked(&self, walked: Walked) -> Walked {
        if self.second_on { walked } else { Walked::Stopped }
    }

    /// `event` to each visitor still on.
    fn each<E>(
        &mut self,
        event: &mut E,
        first: impl FnOnce(&mut A, &mut E) -> Flow,
        second: impl FnOnce(&mut B, &mut E) -> Flow,
    ) -> Flow {
        if self.first_on {
            self.first_on = first(&mut self.first, event).is_continue();
        }
        if self.second_on {
            self.second_on = second(&mut self.second, event).is_continue();
        }
        if self.first_on || self.second_on { GO_ON } else { STOP }
    }
}

impl<'input, A: Visitor<'input>, B: Visitor<'input>> Visitor<'input> for Both<A, B> {
    fn event(&mut self) -> Flow {
        self.each(&mut (), |first, _| first.event(), |second, _| second.event())
    }
    fn stream_start(&mut self) -> Flow {
        self.each(&mut (), |first, _| first.stream_start(), |second, _| second.stream_start())
    }
    fn stream_end(&mut self) -> Flow {
        self.each(&mut (), |first, _| first.stream_end(), |second, _| second.stream_end())
    }
    fn document_start(&mut self, version: Option<YamlVersion>) -> Flow {
        self.each(&mut (), |first, _| first.document_start(version), |second, _| second.document_start(version))
    }
    fn document_end(&mut self) -> Flow {
        self.each(&mut (), |first, _| first.document_end(), |second, _| second.document_end())
    }
    fn scalar(&mut self, scalar: &mut Scalar<'input>) -> Flow {
        self.each(scalar, |first, scalar| first.scalar(scalar), |second, scalar| second.scalar(scalar))
    }
    fn alias(&mut self, id: usize, key: bool) -> Flow {
        self.each(&mut (), |first, _| first.alias(id, key), |second, _| second.alias(id, key))
    }
    fn collection_start(&mut self, collection: &mut Collection<'input>) -> Flow {
        self.each(
            collection,
            |first, start| first.collection_start(start),
            |second, start| second.collection_start(start),
        )
    }
    fn collection_end(&mut self, sequence: bool) -> Flow {
        self.each(&mut (), |first, _| first.collection_end(sequence), |second, _| second.collection_end(sequence))
    }
    fn other(&mut self) -> Flow {
        self.each(&mut (), |first, _| first.other(), |second, _| second.other())
    }
}
