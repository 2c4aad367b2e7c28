//! kubectl's generic describer (`genericDescriber`), for every kind without a describer of its
//! own, custom resources included: the head, then every field of the object, sorted, under
//! labels made from the field names (`smartLabelFor`).

use serde_json::{Map, Value};

use super::{Writer, head, sorted_keys};

/// The fields the walk leaves out: the head shows them, or nobody wants them.
const SKIPPED: &[&str] =
    &[".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels", ".metadata.annotations"];

pub(super) fn describe(w: &mut Writer, object: &Value) {
    head(w, object);
    if let Some(content) = object.as_object() {
        fields(w, 0, content, "");
    }
}

/// `printUnstructuredContent`.
fn fields(w: &mut Writer, level: usize, content: &Map<String, Value>, prefix: &str) {
    for field in sorted_keys(content) {
        let path = format!("{prefix}.{field}");
        if SKIPPED.contains(&path.as_str()) {
            continue;
        }
        match &content[field] {
            Value::Object(map) => {
                w.write(level, &format!("{}:\n", smart_label(field)));
                fields(w, level + 1, map, &path);
            }
            Value::Array(items) => {
                w.write(level, &format!("{}:\n", smart_label(field)));
                for item in items {
                    match item {
                        Value::Object(map) => fields(w, level + 1, map, &path),
                        other => w.write(level + 1, &format!("{}\n", crate::gocompat::fmt::value_text(other))),
                    }
                }
            }
            other => w.write(level, &format!("{}:\t{}\n", smart_label(field), crate::gocompat::fmt::value_text(other))),
        }
    }
}

/// `smartLabelFor`: `apiVersion` → `API Version`, `creationTimestamp` → `Creation Timestamp`; a
/// name with anything but letters and `-` stays as it is.
pub(super) fn smart_label(field: &str) -> String {
    if field.chars().any(|c| !c.is_alphabetic() && c != '-') {
        return field.to_string();
    }
    let parts = camelcase_split(field);
    let mut merged: Vec<String> = Vec::with_capacity(parts.len());
    let mut i = 0;
    while i < parts.len() {
        let part = &parts[i];
        if let Some(next) = parts.get(i + 1) {
            let all_upper = part.chars().all(|c| !c.is_alphabetic() || c.is_uppercase());
            if part.chars().count() >= 2 && all_upper && next.chars().next().is_some_and(char::is_uppercase) {
                merged.push(format!("{part}{next}"));
                i += 2;
                continue;
            }
        }
        merged.push(part.clone());
        i += 1;
    }
    let words: Vec<String> = merged
        .into_iter()
        .filter(|part| part != "_")
        .map(|part| {
            let upper = part.to_uppercase();
            if ["API", "URL", "UID", "GUID"].contains(&upper.as_str()) {
                upper
            } else if part.to_lowercase() == part {
                title(&part)
            } else {
                part
            }
        })
        .collect();
    words.join(" ")
}

/// `cases.Title(language.English)` of a word of one class (lower-case letters, or others).
fn title(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// fatih/camelcase's `Split`: runs of lower-case letters, upper-case letters, digits and other
/// characters, the last capital of a run moved to a lower-case run after it (`PDFLoader` →
/// `PDF`, `Loader`).
fn camelcase_split(text: &str) -> Vec<String> {
    let class = |c: char| {
        if c.is_lowercase() {
            1
        } else if c.is_uppercase() {
            2
        } else if c.is_numeric() {
            3
        } else {
            4
        }
    };
    let mut runs: Vec<Vec<char>> = Vec::new();
    let mut last = 0;
    for c in text.chars() {
        let this = class(c);
        match runs.last_mut() {
            Some(run) if this == last => run.push(c),
            _ => runs.push(vec![c]),
        }
        last = this;
    }
    for i in 0..runs.len().saturating_sub(1) {
        if runs[i][0].is_uppercase() && runs[i + 1][0].is_lowercase() {
            let moved = runs[i].pop().expect("runs are not empty");
            runs[i + 1].insert(0, moved);
        }
    }
    runs.into_iter().filter(|run| !run.is_empty()).map(|run| run.into_iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn labels_from_field_names() {
        for (field, label) in [
            ("apiVersion", "API Version"),
            ("creationTimestamp", "Creation Timestamp"),
            ("uid", "UID"),
            ("podIPs", "Pod I Ps"),
            ("HTTPServer", "HTTPServer"),
            ("kind", "Kind"),
            ("spec-field", "Spec - Field"),
            ("v1beta1", "v1beta1"),
            ("under_score", "under_score"),
            ("externalURL", "External URL"),
        ] {
            assert_eq!(smart_label(field), label, "{field}");
        }
    }

    #[test]
    fn a_custom_resource_walked() {
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "ns", "uid": "u", "managedFields": [{}]},
            "spec": {"size": 3, "ratio": 1.5, "tags": ["a", "b"], "items": [{"name": "x"}], "empty": {}}});
        let mut w = Writer::tabbed();
        describe(&mut w, &object);
        assert_eq!(
            w.finish(),
            "Name:         w\nNamespace:    ns\nLabels:       <none>\nAnnotations:  <none>\nAPI Version:  example.com/v1\n\
             Kind:         Widget\nMetadata:\n  UID:  u\nSpec:\n  Empty:\n  Items:\n    Name:  x\n  Ratio:   1.5\n  \
             Size:    3\n  Tags:\n    a\n    b\n"
        );
    }
}
