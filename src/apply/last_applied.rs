//! kubectl's `kubectl.kubernetes.io/last-applied-configuration` annotation: the configuration a
//! client-side apply last sent, kept on the object so that the next apply can tell which fields
//! the configuration dropped. Written exactly as kubectl writes it, so both tools can take turns.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::gocompat::json::to_compact;

/// The annotation's key.
pub const ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The configuration: the document without the annotation. Like kubectl, a document without
/// annotations gets an empty `annotations` map.
pub fn configuration(document: &Value) -> Value {
    let mut document = document.clone();
    annotations_mut(&mut document).remove(ANNOTATION);
    document
}

/// The configuration as kubectl records it: as Go's `json.Marshal` encodes it (sorted keys, HTML
/// characters escaped), with a final newline.
pub fn configuration_text(document: &Value) -> String {
    encoded(&ConfigurationOf(document.as_object().expect("manifests are objects")))
}

/// A configuration as kubectl records it, with a final newline.
fn encoded(configuration: &(impl Serialize + ?Sized)) -> String {
    let mut text = to_compact(configuration);
    text.push('\n');
    text
}

/// A document serialized as its [`configuration`], without the copy (every document of an apply
/// is encoded this way, some of them hundreds of kilobytes): the annotation left out of
/// `metadata.annotations`, which is written as an empty map where it is missing or not a map.
struct ConfigurationOf<'a>(&'a Map<String, Value>);

/// `metadata` (or nothing, where it is missing or not a map) with [`AnnotationsOf`] in it.
struct MetadataOf<'a>(Option<&'a Map<String, Value>>);

/// The annotations (or nothing, where they are missing or not a map) but the last-applied one.
struct AnnotationsOf<'a>(Option<&'a Map<String, Value>>);

impl Serialize for ConfigurationOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let metadata = MetadataOf(self.0.get("metadata").and_then(Value::as_object));
        with_entry(serializer, self.0, "metadata", &metadata)
    }
}

impl Serialize for MetadataOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let annotations = AnnotationsOf(self.0.and_then(|metadata| metadata.get("annotations")?.as_object()));
        with_entry(serializer, self.0.unwrap_or(&Map::new()), "annotations", &annotations)
    }
}

impl Serialize for AnnotationsOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.0.into_iter().flatten().filter(|(key, _)| *key != ANNOTATION) {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// `map`, its keys in order, with `key` set to `value` (added in its place where missing).
fn with_entry<S: Serializer>(
    serializer: S,
    map: &Map<String, Value>,
    key: &str,
    value: &impl Serialize,
) -> Result<S::Ok, S::Error> {
    let mut out = serializer.serialize_map(None)?;
    let mut written = false;
    for (other, other_value) in map {
        if !written && other.as_str() >= key {
            out.serialize_entry(key, value)?;
            written = true;
        }
        if other != key {
            out.serialize_entry(other, other_value)?;
        }
    }
    if !written {
        out.serialize_entry(key, value)?;
    }
    out.end()
}

/// The configuration as the API server records it after a server-side apply by kubectl: the
/// applied document without the annotation (an `annotations` map is not added), as Go's
/// `json.Marshal` encodes it, with a final newline.
pub fn server_side_text(document: &Value) -> String {
    let mut document = document.clone();
    if let Some(annotations) = document.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
        annotations.remove(ANNOTATION);
    }
    let mut text = to_compact(&document);
    text.push('\n');
    text
}

/// The annotation's text on `object`, if it has one.
pub fn text(object: &Value) -> Option<&str> {
    object.pointer("/metadata/annotations")?.get(ANNOTATION)?.as_str()
}

/// `document` with the annotation set to its own configuration (kubectl's "modified" document).
pub fn with_annotation(document: &Value) -> Value {
    // One copy: the configuration, encoded, then annotated with its own text.
    let configuration = configuration(document);
    let text = encoded(&configuration);
    annotated(configuration, text)
}

/// [`with_annotation`], given the [`configuration_text`] of `document` made before.
pub fn with_recorded(document: &Value, text: String) -> Value {
    annotated(configuration(document), text)
}

fn annotated(mut configuration: Value, text: String) -> Value {
    annotations_mut(&mut configuration).insert(ANNOTATION.to_string(), Value::String(text));
    configuration
}

/// The size the annotations of `document` take once `text`, its [`configuration_text`], is
/// recorded among them: what the server limits.
pub fn annotations_size(document: &Value, text: &str) -> usize {
    let annotations = document.pointer("/metadata/annotations").and_then(Value::as_object).into_iter().flatten();
    let others: usize = annotations
        .filter(|(key, _)| *key != ANNOTATION)
        .map(|(key, value)| key.len() + value.as_str().map_or(0, str::len))
        .sum();
    others + ANNOTATION.len() + text.len()
}

/// The last applied configuration recorded on `object`, if any. An annotation that does not
/// parse counts as none, as for kubectl.
pub fn recorded(object: &Value) -> Option<Value> {
    serde_json::from_str(text(object)?).ok()
}

fn annotations_mut(document: &mut Value) -> &mut Map<String, Value> {
    let metadata = document
        .as_object_mut()
        .expect("manifests are objects")
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let annotations = metadata
        .as_object_mut()
        .expect("just made an object")
        .entry("annotations")
        .or_insert_with(|| Value::Object(Map::new()));
    if !annotations.is_object() {
        *annotations = Value::Object(Map::new());
    }
    annotations.as_object_mut().expect("just made an object")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn records_the_configuration_like_kubectl() {
        let document = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}, "data": {"html": "<a>&"}});
        let expected = concat!(
            r#"{"apiVersion":"v1","data":{"html":"\u003ca\u003e\u0026"},"kind":"ConfigMap","#,
            r#""metadata":{"annotations":{},"name":"x","namespace":"default"}}"#,
            "\n"
        );
        assert_eq!(configuration_text(&document), expected);
        let annotated = with_annotation(&document);
        assert_eq!(annotated["metadata"]["annotations"][ANNOTATION], json!(expected));
        // Recording again ignores the previous recording.
        assert_eq!(configuration_text(&annotated), expected);
        assert_eq!(recorded(&annotated).unwrap()["data"], document["data"]);
        assert_eq!(recorded(&document), None);
        assert_eq!(with_recorded(&document, configuration_text(&document)), annotated);
        assert_eq!(annotations_size(&annotated, expected), ANNOTATION.len() + expected.len());
    }

    #[test]
    fn the_configuration_is_encoded_as_the_copy_would_be() {
        let shapes = [
            json!({"kind": "A"}),
            json!({"apiVersion": "v1", "metadata": 3, "zz": [1.5, "<"]}),
            json!({"metadata": null}),
            json!({"metadata": {"name": "x"}}),
            json!({"a": 1, "metadata": {"annotations": "no", "name": "x"}, "z": null}),
            json!({"metadata": {"a": 1, "annotations": {"a": "1", ANNOTATION: "old", "z": "2"}, "b": {}}}),
            json!({"metadata": {"annotations": {ANNOTATION: "old"}, "labels": {"x": "y"}}, "spec": {"m": 1e300}}),
            json!({"metadata": {"annotationsX": 1, "annotation": 2}}),
        ];
        for document in shapes {
            assert_eq!(configuration_text(&document), encoded(&configuration(&document)), "{document}");
        }
    }

    /// Any nesting of the keys that matter, around and inside `metadata` and `annotations`.
    fn documents() -> impl Strategy<Value = Value> {
        let key = prop::sample::select(vec!["a", "annotations", "metadata", "m", "z", ANNOTATION]);
        let leaf =
            prop_oneof![Just(Value::Null), any::<i8>().prop_map(Value::from), "[a<>]{0,2}".prop_map(Value::from)];
        let value = leaf.prop_recursive(3, 24, 4, move |inner| {
            prop::collection::btree_map(key.clone().prop_map(String::from), inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect()))
        });
        prop::collection::btree_map(
            prop::sample::select(vec!["a", "metadata", "z"]).prop_map(String::from),
            value,
            0..3,
        )
        .prop_map(|map| Value::Object(map.into_iter().collect()))
    }

    proptest::proptest! {
        #[test]
        fn any_configuration_is_encoded_as_the_copy_would_be(document in documents()) {
            proptest::prop_assert_eq!(configuration_text(&document), encoded(&configuration(&document)));
        }
    }

    #[test]
    fn the_size_of_the_annotations_counts_the_others_and_the_new_record() {
        let document = json!({"metadata": {"name": "x", "annotations": {"a": "12345", ANNOTATION: "old", "n": 7}}});
        let text = configuration_text(&document);
        let annotated = with_annotation(&document);
        let stored = annotated["metadata"]["annotations"].as_object().unwrap();
        let total: usize = stored.iter().map(|(key, value)| key.len() + value.as_str().map_or(0, str::len)).sum();
        assert_eq!(annotations_size(&document, &text), total);
        assert_eq!(total, "a".len() + 5 + "n".len() + ANNOTATION.len() + text.len());
    }

    #[test]
    fn server_side_applies_record_the_document_as_it_is() {
        let document = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "<"}});
        assert_eq!(
            server_side_text(&document),
            "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"\\u003c\"},\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}\n"
        );
        let annotated = with_annotation(&document);
        assert_eq!(
            server_side_text(&annotated),
            "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"\\u003c\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"x\"}}\n"
        );
    }
}
