//! `label` and `annotate`: `KEY=VALUE` sets a key of `metadata.labels` or
//! `metadata.annotations`, `KEY-` removes one, with kubectl's checks and words.

use serde_json::{Map, Value};

/// Which map of `metadata` a verb changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataMap {
    Labels,
    Annotations,
}

impl MetadataMap {
    /// The field under `metadata`.
    pub fn field(self) -> &'static str {
        match self {
            MetadataMap::Labels => "labels",
            MetadataMap::Annotations => "annotations",
        }
    }

    /// kubectl's word for one pair in messages: `label`, `annotation`.
    pub fn pair_type(self) -> &'static str {
        match self {
            MetadataMap::Labels => "label",
            MetadataMap::Annotations => "annotation",
        }
    }

    /// The map of `object`, or `None` when it has none.
    pub fn of(self, object: &Value) -> Option<&Map<String, Value>> {
        object.get("metadata")?.get(self.field())?.as_object()
    }
}

/// Why pairs cannot be read, or an object cannot take them; kubectl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("invalid label spec: {0}")]
    LabelSpec(String),
    #[error("invalid label value: {spec:?}: {reasons}")]
    LabelValue { spec: String, reasons: String },
    #[error("can not both modify and remove a label in the same command")]
    ModifyAndRemoveLabel,
    #[error("can not both modify and remove the following annotation(s) in the same command: {0}")]
    ModifyAndRemoveAnnotations(String),
    /// A label that has another value, without `--overwrite`: kubectl reports one per key.
    #[error("'{key}' already has a value ({value}), and --overwrite is false")]
    LabelOverwrite { key: String, value: String },
    /// Annotations that have other values, without `--overwrite`: one message for all.
    #[error("--overwrite is false but found the following declared annotation(s): {0}")]
    AnnotationOverwrites(String),
}

/// The changes the pairs ask for, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    pub map: MetadataMap,
    /// Keys to set; a key given twice takes its last value.
    pub set: Vec<(String, String)>,
    /// Keys to remove.
    pub remove: Vec<String>,
}

/// The annotation `kubectl annotate` lets change without `--overwrite`, and `--record` writes.
pub const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";

/// `object` with `cause` as its change cause, over any there, as kubectl's deprecated `--record`
/// writes the command line into the object it changes.
pub fn record_change_cause(object: &mut Value, cause: &str) {
    if !object["metadata"]["annotations"].is_object() {
        object["metadata"]["annotations"] = Value::Object(Map::new());
    }
    object["metadata"]["annotations"][CHANGE_CAUSE] = Value::String(cause.to_string());
}

impl Changes {
    /// Reads `KEY=VALUE` and `KEY-` pairs (as [`super::split_pairs`] found them) for `map`.
    pub fn parse(map: MetadataMap, pairs: &[&str]) -> Result<Changes, Error> {
        let mut changes = Changes { map, set: Vec::new(), remove: Vec::new() };
        for pair in pairs {
            if pair.contains('=') {
                let (key, value) = match map {
                    MetadataMap::Labels => {
                        let mut parts = pair.split('=');
                        match (parts.next(), parts.next(), parts.next()) {
                            (Some(key), Some(value), None) => (key, value),
                            _ => return Err(Error::LabelSpec(pair.to_string())),
                        }
                    }
                    MetadataMap::Annotations => pair.split_once('=').expect("contains ="),
                };
                if map == MetadataMap::Labels {
                    check_label_value(pair, value)?;
                }
                changes.set.retain(|(old, _)| old != key);
                changes.set.push((key.to_string(), value.to_string()));
            } else if let Some(key) = pair.strip_suffix('-') {
                changes.remove.push(key.to_string());
            } else {
                return Err(Error::LabelSpec(pair.to_string()));
            }
        }
        let both: Vec<&str> = changes
            .remove
            .iter()
            .filter(|key| changes.set.iter().any(|(set, _)| set == *key))
            .map(String::as_str)
            .collect();
        match (map, both.is_empty()) {
            (_, true) => Ok(changes),
            (MetadataMap::Labels, false) => Err(Error::ModifyAndRemoveLabel),
            (MetadataMap::Annotations, false) => Err(Error::ModifyAndRemoveAnnotations(both.join(", "))),
        }
    }

    /// Whether there is nothing to change.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.remove.is_empty()
    }

    /// The keys to remove that `object` does not have (`label` says so for each).
    pub fn missing<'a>(&'a self, object: &Value) -> Vec<&'a str> {
        let existing = self.map.of(object);
        self.remove
            .iter()
            .filter(|key| existing.is_none_or(|map| !map.contains_key(*key)))
            .map(String::as_str)
            .collect()
    }

    /// Changes `object`'s map. Unless `overwrite`, a key that has another value is an error, as in
    /// kubectl 1.32 (the same value is no change, and accepted). The map is set even when it ends
    /// up empty, as kubectl sets it.
    pub fn apply(&self, object: &mut Value, overwrite: bool) -> Result<(), Vec<Error>> {
        let existing = self.map.of(object).cloned().unwrap_or_default();
        if !overwrite {
            let conflicts: Vec<(&str, &str)> = self
                .set
                .iter()
                .filter(|(key, _)| self.map == MetadataMap::Labels || key != CHANGE_CAUSE)
                .filter_map(|(key, value)| match existing.get(key).and_then(Value::as_str) {
                    Some(old) if old != value => Some((key.as_str(), old)),
                    _ => None,
                })
                .collect();
            if !conflicts.is_empty() {
                return Err(match self.map {
                    MetadataMap::Labels => conflicts
                        .into_iter()
                        .map(|(key, value)| Error::LabelOverwrite { key: key.into(), value: value.into() })
                        .collect(),
                    MetadataMap::Annotations => vec![Error::AnnotationOverwrites(
                        conflicts
                            .iter()
                            .map(|(key, value)| format!("'{key}' already has a value ({value})"))
                            .collect::<Vec<_>>()
                            .join("; "),
                    )],
                });
            }
        }
        let mut map = existing;
        for (key, value) in &self.set {
            map.insert(key.clone(), Value::String(value.clone()));
        }
        for key in &self.remove {
            map.remove(key);
        }
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert(self.map.field().to_string(), Value::Object(map));
        }
        Ok(())
    }
}

/// Whether `label` changes any label from `before` to `after`: kubectl 1.37 sends nothing when
/// none changes (a key set to the value it has, a key removed that is not there).
pub fn labels_change(before: &Value, after: &Value) -> bool {
    MetadataMap::Labels.of(before).cloned().unwrap_or_default()
        != MetadataMap::Labels.of(after).cloned().unwrap_or_default()
}

/// kubectl's word (1.36 and later) for what `label` did to the labels from `before` to `after`:
/// `modified` when keys were both set and removed, `labeled` when set (new or another value),
/// `unlabeled` when removed, `not labeled` when none changed.
pub fn label_outcome(before: &Value, after: &Value) -> &'static str {
    let empty = Map::new();
    let (old, new) =
        (MetadataMap::Labels.of(before).unwrap_or(&empty), MetadataMap::Labels.of(after).unwrap_or(&empty));
    let added = new.iter().any(|(key, value)| old.get(key) != Some(value));
    let removed = old.keys().any(|key| !new.contains_key(key));
    match (added, removed) {
        (true, true) => "modified",
        (true, false) => "labeled",
        (false, true) => "unlabeled",
        (false, false) => "not labeled",
    }
}

/// Kubernetes' rule for label values: at most 63 characters, alphanumerics with `-`, `_` or `.`
/// inside; empty is allowed.
fn check_label_value(spec: &str, value: &str) -> Result<(), Error> {
    let mut reasons = Vec::new();
    if value.len() > 63 {
        reasons.push("must be no more than 63 characters".to_string());
    }
    let alphanumeric = |c: char| c.is_ascii_alphanumeric();
    let inner_ok = value.chars().all(|c| alphanumeric(c) || matches!(c, '-' | '_' | '.'));
    let ends_ok = value.is_empty() || (value.starts_with(alphanumeric) && value.ends_with(alphanumeric));
    if !(inner_ok && ends_ok) {
        reasons.push(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and \
             must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex \
             used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
                .to_string(),
        );
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(Error::LabelValue { spec: spec.to_string(), reasons: reasons.join(";") })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[&str]) -> Result<Changes, Error> {
        Changes::parse(MetadataMap::Labels, pairs)
    }

    #[test]
    fn pairs_set_and_remove_keys() {
        let changes = labels(&["a=1", "b=", "a=2", "c-"]).unwrap();
        assert_eq!(changes.set, [("b".into(), String::new()), ("a".into(), "2".into())]);
        assert_eq!(changes.remove, ["c"]);
        let annotations = Changes::parse(MetadataMap::Annotations, &["note=a=b c", "x-"]).unwrap();
        assert_eq!(annotations.set, [("note".into(), "a=b c".into())]);
    }

    #[test]
    fn bad_pairs_get_kubectls_words() {
        assert_eq!(labels(&["x=y=z"]).unwrap_err().to_string(), "invalid label spec: x=y=z");
        let bad_value = labels(&["x=@@"]).unwrap_err().to_string();
        assert!(bad_value.starts_with("invalid label value: \"x=@@\": a valid label must be"), "{bad_value}");
        assert!(labels(&[&format!("x={}", "a".repeat(64))]).unwrap_err().to_string().contains("no more than 63"));
        assert_eq!(
            labels(&["x=1", "x-"]).unwrap_err().to_string(),
            "can not both modify and remove a label in the same command"
        );
        assert_eq!(
            Changes::parse(MetadataMap::Annotations, &["a=1", "b=2", "a-", "b-"]).unwrap_err().to_string(),
            "can not both modify and remove the following annotation(s) in the same command: a, b"
        );
    }

    #[test]
    fn existing_keys_need_overwrite_unless_unchanged() {
        let object = json!({"metadata": {"labels": {"a": "1", "b": "2"}, "annotations": {"a": "1"}}});
        let mut changed = object.clone();
        let errors = labels(&["a=1", "b=3"]).unwrap().apply(&mut changed, false).unwrap_err();
        assert_eq!(errors, [Error::LabelOverwrite { key: "b".into(), value: "2".into() }]);
        assert_eq!(changed, object, "nothing changes on error");
        labels(&["b=3", "a-"]).unwrap().apply(&mut changed, true).unwrap();
        assert_eq!(changed["metadata"]["labels"], json!({"b": "3"}));

        let annotate = Changes::parse(MetadataMap::Annotations, &["a=2", "kubernetes.io/change-cause=x"]).unwrap();
        let mut with_cause = json!({"metadata": {"annotations": {"a": "1", CHANGE_CAUSE: "y"}}});
        assert_eq!(
            annotate.apply(&mut with_cause, false).unwrap_err()[0].to_string(),
            "--overwrite is false but found the following declared annotation(s): 'a' already has a value (1)"
        );
    }

    #[test]
    fn removing_from_an_object_without_the_map_leaves_it_empty() {
        let mut object = json!({"metadata": {"name": "x"}});
        let changes = labels(&["a-"]).unwrap();
        assert_eq!(changes.missing(&object), ["a"]);
        changes.apply(&mut object, false).unwrap();
        assert_eq!(object, json!({"metadata": {"name": "x", "labels": {}}}));
    }

    #[test]
    fn label_outcomes_read_like_kubectl() {
        let before = json!({"metadata": {"labels": {"a": "1"}}});
        let after = json!({"metadata": {"labels": {}}});
        assert_eq!(label_outcome(&before, &before), "not labeled");
        assert_eq!(label_outcome(&before, &after), "unlabeled");
        assert_eq!(label_outcome(&after, &before), "labeled");
        let other = json!({"metadata": {"labels": {"a": "2"}}});
        assert_eq!(label_outcome(&before, &other), "labeled");
        let swapped = json!({"metadata": {"labels": {"b": "1"}}});
        assert_eq!(label_outcome(&before, &swapped), "modified");
        assert_eq!(label_outcome(&json!({"metadata": {}}), &after), "not labeled");
        assert!(!labels_change(&json!({"metadata": {}}), &after));
        assert!(labels_change(&before, &swapped));
    }
}
