//! kustomize's built-in tables: which fields get labels, annotations, names, namespaces, images and
//! replicas, which fields refer to which kinds, and where `vars` are substituted. Data, in
//! `builtin-fieldspecs.yaml` and `builtin-varreference.yaml` (from kustomize v5.5.0, noted
//! there), loaded once.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value};

/// A field that a transformer changes in the resources it selects.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "RawFieldSpec")]
pub struct FieldSpec {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The path's segments (`a/b\/c` is `a`, `b/c`); `[]` marks are dropped, since every list on
    /// the way is walked anyway.
    pub path: Vec<String>,
    /// Whether missing fields on the way are created.
    pub create: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFieldSpec {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    kind: String,
    path: String,
    #[serde(default)]
    create: bool,
}

impl From<RawFieldSpec> for FieldSpec {
    fn from(raw: RawFieldSpec) -> Self {
        FieldSpec {
            group: raw.group,
            version: raw.version,
            kind: raw.kind,
            path: split_path(&raw.path),
            create: raw.create,
        }
    }
}

fn split_path(path: &str) -> Vec<String> {
    let mut segments = vec![String::new()];
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'/') => {
                segments.last_mut().expect("never empty").push(chars.next().expect("peeked"))
            }
            '/' => segments.push(String::new()),
            c => segments.last_mut().expect("never empty").push(c),
        }
    }
    segments.into_iter().map(|segment| segment.trim_end_matches("[]").to_string()).collect()
}

/// Whether a table entry's group, version and kind (empty: any) select `object`.
pub fn selects(group: &str, version: &str, kind: &str, object: &Value) -> bool {
    let (object_group, object_version) = group_version(object);
    (group.is_empty() || group == object_group)
        && (version.is_empty() || version == object_version)
        && (kind.is_empty() || Some(kind) == object["kind"].as_str())
}

/// The group and version of `object`'s `apiVersion`.
pub fn group_version(object: &Value) -> (&str, &str) {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

impl FieldSpec {
    /// Calls `change` on the field at this spec's path in `object` (on each, where the path goes
    /// through lists), when the spec selects the object. A missing field is `null` when the spec
    /// creates fields, and skipped when it does not.
    pub fn apply(&self, object: &mut Value, change: &mut dyn FnMut(&mut Value)) {
        if selects(&self.group, &self.version, &self.kind, object) {
            walk(object, &self.path, self.create, change);
        }
    }
}

fn walk(node: &mut Value, path: &[String], create: bool, change: &mut dyn FnMut(&mut Value)) {
    if let Value::Array(items) = node {
        for item in items {
            walk(item, path, create, change);
        }
        return;
    }
    let Some((first, rest)) = path.split_first() else {
        change(node);
        return;
    };
    if node.is_null() && create {
        *node = Value::Object(Map::new());
    }
    let Value::Object(map) = node else { return };
    match map.get_mut(first) {
        Some(child) => walk(child, rest, create, change),
        None if create => {
            let child = map.entry(first.clone()).or_insert(Value::Null);
            walk(child, rest, create, change);
        }
        None => {}
    }
}

/// An entry of the name-reference table: fields that name an object of one kind.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NameReference {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    pub kind: String,
    pub field_specs: Vec<FieldSpec>,
}

/// The built-in tables.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tables {
    pub common_labels: Vec<FieldSpec>,
    pub template_labels: Vec<FieldSpec>,
    pub common_annotations: Vec<FieldSpec>,
    pub namespace: Vec<FieldSpec>,
    pub replicas: Vec<FieldSpec>,
    pub name_reference: Vec<NameReference>,
}

/// The built-in tables, parsed on first use.
pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        serde_saphyr::from_str(include_str!("builtin-fieldspecs.yaml")).expect("the built-in field specs parse")
    })
}

/// kustomize's built-in varReference table (`builtin-varreference.yaml`): the fields where
/// `$(VAR)` is replaced. A kustomization's `configurations` may add to it.
pub fn var_reference() -> &'static [FieldSpec] {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct VarReferenceTable {
        var_reference: Vec<FieldSpec>,
    }
    static TABLE: OnceLock<VarReferenceTable> = OnceLock::new();
    &TABLE
        .get_or_init(|| {
            serde_saphyr::from_str(include_str!("builtin-varreference.yaml")).expect("the varReference table parses")
        })
        .var_reference
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_tables_load() {
        let tables = tables();
        assert_eq!(tables.common_labels.len(), 32);
        assert!(tables.name_reference.iter().any(|entry| entry.kind == "ConfigMap"));
        let escaped = tables
            .name_reference
            .iter()
            .flat_map(|entry| &entry.field_specs)
            .find(|spec| spec.path.len() == 3 && spec.path[2].contains('/'));
        assert_eq!(escaped.unwrap().path[2], "nginx.ingress.kubernetes.io/fastcgi-params-configmap");
        let var_reference = var_reference();
        assert_eq!(var_reference.len(), 72);
        assert!(var_reference.iter().any(|spec| spec.kind == "Pod" && spec.path == ["spec", "containers", "command"]));
        assert_eq!(var_reference.last().unwrap().path, ["metadata", "annotations"]);
    }

    #[test]
    fn specs_walk_lists_and_create_only_when_told() {
        let spec = FieldSpec {
            group: String::new(),
            version: String::new(),
            kind: "Deployment".into(),
            path: split_path("spec/template/spec/containers[]/image"),
            create: false,
        };
        let mut object = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"image": "a"}, {"name": "b"}]}}}});
        let mut seen = Vec::new();
        spec.apply(&mut object, &mut |value| seen.push(value.clone()));
        assert_eq!(seen, [json!("a")]);
        let creating = FieldSpec { create: true, path: split_path("spec/selector/matchLabels"), ..spec };
        creating.apply(&mut object, &mut |value| *value = json!({"app": "web"}));
        assert_eq!(object["spec"]["selector"], json!({"matchLabels": {"app": "web"}}));
    }
}
