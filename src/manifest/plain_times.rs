//! kustomize reads resources with kyaml (go-yaml v3 nodes) and writes them out through Go's
//! `encoding/json`, so a plain scalar that go-yaml reads as a timestamp comes out as Go writes a
//! `time.Time` (`2001-12-14` becomes `2001-12-14T00:00:00Z`). Quoted or tagged scalars stay
//! text, and so do an object's own `metadata.annotations`, which kustomize writes back as strings.
//! They are found on the walk that reads the document's value ([`super::plain_yaml::value_watched`]).

use serde_json::Value;
use serde_saphyr::granit_parser::{ScalarStyle, StructureStyle};

use super::yaml_events::{Collection as Start, Flow, GO_ON, STOP, Scalar, Visitor};
use crate::gocompat::time::go_yaml_time;

/// Whether `text` has four digits, a `-` and a digit somewhere: what every go-yaml timestamp
/// starts with. Most documents have none, and their events are not watched for times.
pub(super) fn may_hold_a_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices('-').any(|(at, _)| {
        at >= 4 && bytes[at - 4..at].iter().all(u8::is_ascii_digit) && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
    })
}

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// An open collection: a mapping with the key whose value comes next, or a sequence with the
/// index of its next item.
enum Open {
    Mapping(Option<String>),
    Sequence(usize),
}

/// What a collection is, and whether it is written in flow style (`{a: b}`, `[a]`).
struct Collection {
    open: Open,
    flow: bool,
}

/// A visitor of a document's events that finds where the plain scalars that go-yaml reads as
/// times are, with the times as Go writes them.
#[derive(Default)]
pub(super) struct PlainTimes {
    open: Vec<Collection>,
    found: Vec<(Vec<Step>, String)>,
}

impl PlainTimes {
    /// `document` (read from the text walked) with its plain timestamps as kyaml writes them.
    pub(super) fn write_as_kyaml(self, document: &mut Value) {
        for (path, time) in self.found {
            if !is_own_annotation(&path, document)
                && let Some(value @ Value::String(_)) = find(document, &path)
            {
                *value = Value::String(time);
            }
        }
    }
}

impl<'input> Visitor<'input> for PlainTimes {
    fn scalar(&mut self, scalar: &mut Scalar<'input>) -> Flow {
        let open = &mut self.open;
        if let Some(Collection { open: Open::Mapping(key @ None), .. }) = open.last_mut() {
            *key = Some(scalar.text.to_string());
            return GO_ON;
        }
        // In flow style, kyaml writes a time with a space back quoted, as text.
        let in_flow = open.last().is_some_and(|collection| collection.flow);
        if scalar.style == ScalarStyle::Plain
            && scalar.tag.is_none()
            && !(in_flow && scalar.text.contains(' '))
            && let Some(time) = go_yaml_time(&scalar.text)
        {
            self.found.push((path(open), time));
        }
        value_done(open);
        GO_ON
    }

    fn alias(&mut self, _id: usize, _key: bool) -> Flow {
        value_done(&mut self.open);
        GO_ON
    }

    fn collection_start(&mut self, start: &mut Start<'input>) -> Flow {
        // A collection used as a key has no path a JSON value could have.
        if let Some(Collection { open: Open::Mapping(key @ None), .. }) = self.open.last_mut() {
            *key = Some(String::from("\0"));
        }
        let flow = start.style == StructureStyle::Flow;
        let started = if start.sequence { Open::Sequence(0) } else { Open::Mapping(None) };
        self.open.push(Collection { open: started, flow });
        GO_ON
    }

    fn collection_end(&mut self, _sequence: bool) -> Flow {
        self.open.pop();
        value_done(&mut self.open);
        GO_ON
    }

    /// The first document only.
    fn document_end(&mut self) -> Flow {
        STOP
    }

    fn stream_end(&mut self) -> Flow {
        STOP
    }
}

fn value_done(open: &mut [Collection]) {
    match open.last_mut().map(|collection| &mut collection.open) {
        Some(Open::Mapping(key)) => *key = None,
        Some(Open::Sequence(next)) => *next += 1,
        None => {}
    }
}

fn path(open: &[Collection]) -> Vec<Step> {
    open.iter()
        .map(|collection| match &collection.open {
            Open::Mapping(key) => Step::Key(key.clone().unwrap_or_default()),
            Open::Sequence(next) => Step::Index(*next),
        })
        .collect()
}

/// Whether `path` is within the `metadata.annotations` of the object, or of an item of a List.
fn is_own_annotation(path: &[Step], document: &Value) -> bool {
    let annotation = |path: &[Step]| {
        matches!(path, [Step::Key(metadata), Step::Key(annotations), ..]
            if metadata == "metadata" && annotations == "annotations")
    };
    annotation(path)
        || matches!(path, [Step::Key(items), Step::Index(_), rest @ ..] if items == "items" && annotation(rest)
            && document["kind"].as_str().is_some_and(|kind| kind.ends_with("List")))
}

fn find<'a>(document: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(document, |value, step| match step {
        Step::Key(key) => value.as_object_mut()?.get_mut(key.as_str()),
        Step::Index(index) => value.as_array_mut()?.get_mut(*index),
    })
}

#[cfg(test)]
mod tests {
    use super::super::yaml_events::{Comments, walk};
    use super::*;
    use serde_json::json;

    fn written(text: &str) -> Value {
        let mut document: Value = serde_saphyr::from_str(text).unwrap();
        let mut times = PlainTimes::default();
        walk(text, Comments::Skipped, &mut times);
        times.write_as_kyaml(&mut document);
        document
    }

    #[test]
    fn plain_times_are_written_as_go_writes_a_time() {
        let text = "data:\n  d: 2001-12-14\n  q: \"2001-12-14\"\n  s: !!str 2001-12-14\n  \
                    t: 2001-12-14t21:59:43.10-05:00\n  x: 2001-13-14\nlist:\n- 2002-1-2\n- [a, 2003-04-05, 2003-04-05 1:2:3]\n";
        assert_eq!(
            written(text),
            json!({
                "data": {"d": "2001-12-14T00:00:00Z", "q": "2001-12-14", "s": "2001-12-14",
                         "t": "2001-12-14T21:59:43.1-05:00", "x": "2001-13-14"},
                "list": ["2002-01-02T00:00:00Z", ["a", "2003-04-05T00:00:00Z", "2003-04-05 1:2:3"]],
            })
        );
    }

    #[test]
    fn an_objects_own_annotations_stay_as_written() {
        let text = "kind: List\nmetadata:\n  annotations:\n    a: 2001-12-14\nitems:\n- metadata:\n    \
                    annotations:\n      a: 2001-12-14\n    labels:\n      l: 2001-12-14\n  \
                    spec:\n    metadata:\n      annotations:\n        a: 2001-12-14\n";
        let document = written(text);
        assert_eq!(document["metadata"]["annotations"]["a"], "2001-12-14");
        assert_eq!(document["items"][0]["metadata"]["annotations"]["a"], "2001-12-14");
        assert_eq!(document["items"][0]["metadata"]["labels"]["l"], "2001-12-14T00:00:00Z");
        assert_eq!(document["items"][0]["spec"]["metadata"]["annotations"]["a"], "2001-12-14T00:00:00Z");
    }

    #[test]
    fn documents_without_a_date_are_not_read_again() {
        assert!(!may_hold_a_time("a: 1-2\nb: x2001-\n"));
        assert!(may_hold_a_time("a: 2001-1-2\n"));
    }
}
