//! kustomize's transformer configuration: which fields get labels, annotations, names, namespaces,
//! images and replicas, which fields refer to which kinds, and where `vars` are substituted. The
//! built-in tables are data, in `builtin-fieldspecs.json`, loaded once; a kustomization's
//! `configurations` files (and its `crds`) add to them, and each level hands what it merged up to
//! the kustomizations that include it, as kustomize's accumulator does.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::gocompat::unmarshal;
use crate::kustomize::error::{Conflict, Error};
use crate::kustomize::resource::group_version;

/// A field that a transformer changes in the resources it selects.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "RawFieldSpec")]
pub struct FieldSpec {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The path's segments (`a/b\/c` is `a`, `b/c`); `[]` marks are dropped, since every list on
    /// the way is walked anyway.
    pub path: Vec<String>,
    /// Which segments were marked `[]`: lists, which are never created (kustomize cannot make
    /// the element the rest of the path would go in).
    pub lists: Vec<bool>,
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
    #[serde(default)]
    path: String,
    #[serde(default)]
    create: bool,
}

impl From<RawFieldSpec> for FieldSpec {
    fn from(raw: RawFieldSpec) -> Self {
        let (path, lists) = split_path(&raw.path);
        FieldSpec { group: raw.group, version: raw.version, kind: raw.kind, path, lists, create: raw.create }
    }
}

/// A path's segments, and which were marked as lists.
fn split_path(path: &str) -> (Vec<String>, Vec<bool>) {
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
    let lists = segments.iter().map(|segment| segment.ends_with("[]")).collect();
    (segments.into_iter().map(|segment| segment.trim_end_matches("[]").to_string()).collect(), lists)
}

/// Whether a table entry's group, version and kind (empty: any) select `object`.
pub fn selects(group: &str, version: &str, kind: &str, object: &Value) -> bool {
    let (object_group, object_version) = group_version(object);
    (group.is_empty() || group == object_group)
        && (version.is_empty() || version == object_version)
        && (kind.is_empty() || Some(kind) == object["kind"].as_str())
}

impl FieldSpec {
    /// Whether this spec's group, version and kind select `object`.
    pub fn selects(&self, object: &Value) -> bool {
        selects(&self.group, &self.version, &self.kind, object)
    }

    /// The group, version and kind this spec selects.
    pub fn gvk(&self) -> (&str, &str, &str) {
        (&self.group, &self.version, &self.kind)
    }

    /// The group, version and kind this spec selects, as kustomize prints them
    /// (`Deployment.[noVer].[noGrp]`).
    pub fn gvk_text(&self) -> String {
        let or = |text: &str, unset: &str| if text.is_empty() { unset.to_string() } else { text.to_string() };
        format!("{}.{}.{}", or(&self.kind, "[noKind]"), or(&self.version, "[noVer]"), or(&self.group, "[noGrp]"))
    }

    /// Calls `change` on the field at this spec's path in `object` (on each, where the path goes
    /// through lists), when the spec selects the object. A missing field is `null` when the spec
    /// creates fields, and skipped when it does not.
    pub fn apply(&self, object: &mut Value, change: &mut dyn FnMut(&mut Value)) {
        self.apply_at(object, &mut |_, value| change(value));
    }

    /// [`FieldSpec::apply`], telling `change` where each field is (a JSON pointer).
    pub fn apply_at(&self, object: &mut Value, change: &mut dyn FnMut(&str, &mut Value)) {
        if self.selects(object) {
            walk(object, &self.path, &self.lists, self.create, &mut String::new(), change);
        }
    }
}

/// `key` as a JSON pointer's segment.
pub fn pointer_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn walk(
    node: &mut Value,
    path: &[String],
    lists: &[bool],
    create: bool,
    pointer: &mut String,
    change: &mut dyn FnMut(&str, &mut Value),
) {
    let length = pointer.len();
    if let Value::Array(items) = node {
        for (index, item) in items.iter_mut().enumerate() {
            pointer.push_str(&format!("/{index}"));
            walk(item, path, lists, create, pointer, change);
            pointer.truncate(length);
        }
        return;
    }
    let Some((first, rest)) = path.split_first() else {
        change(pointer, node);
        return;
    };
    let (is_list, rest_lists) = lists.split_first().map_or((false, lists), |(is_list, rest)| (*is_list, rest));
    if node.is_null() && create {
        *node = Value::Object(Map::new());
    }
    let Value::Object(map) = node else { return };
    pointer.push('/');
    pointer.push_str(&pointer_segment(first));
    match map.get_mut(first) {
        Some(child) => walk(child, rest, rest_lists, create, pointer, change),
        None if create && !is_list => {
            let child = map.entry(first.clone()).or_insert(Value::Null);
            walk(child, rest, rest_lists, create, pointer, change);
        }
        None => {}
    }
    pointer.truncate(length);
}

/// An entry of the name-reference table: fields that name an object of one kind.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NameReference {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub field_specs: Vec<FieldSpec>,
}

/// A transformer configuration (kustomize's `TransformerConfig`): the built-in tables, a
/// `configurations` file, or their merger. Unknown fields are errors, as in kustomize.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Config {
    pub name_prefix: Vec<FieldSpec>,
    pub name_suffix: Vec<FieldSpec>,
    pub namespace: Vec<FieldSpec>,
    pub common_labels: Vec<FieldSpec>,
    /// Extra fields for every `labels` entry.
    pub labels: Vec<FieldSpec>,
    pub template_labels: Vec<FieldSpec>,
    pub common_annotations: Vec<FieldSpec>,
    pub name_reference: Vec<NameReference>,
    /// Fields where `vars` are substituted (kept merged for the vars transformer).
    pub var_reference: Vec<FieldSpec>,
    pub images: Vec<FieldSpec>,
    pub replicas: Vec<FieldSpec>,
}

impl FieldSpec {
    /// The spec for `path` in every kind.
    pub fn any_kind(path: &str, create: bool) -> Self {
        let (path, lists) = split_path(path);
        FieldSpec { group: String::new(), version: String::new(), kind: String::new(), path, lists, create }
    }

    /// Whether kustomize takes `other` for this spec when merging: the same path, and every part
    /// of `other`'s group, version and kind that is set equal to this one's.
    fn covers(&self, other: &FieldSpec) -> bool {
        self.path == other.path
            && [(&self.group, &other.group), (&self.version, &other.version), (&self.kind, &other.kind)]
                .iter()
                .all(|(mine, theirs)| theirs.is_empty() || mine == theirs)
    }
}

/// `specs` in kustomize's order of a merged table (its `sortFields`): by group, version and kind
/// as it sorts objects. Which specs a later merge skips depends on it: a spec of every kind
/// comes after those of one kind, and is skipped when merged after them.
fn sort_specs(specs: &mut [FieldSpec]) {
    specs.sort_by(|a, b| crate::kustomize::order::compare_default_gvks(a.gvk(), b.gvk()));
}

/// `incoming` added to `specs`, skipping those already there (kustomize's `FsSlice.MergeAll`).
pub fn merge_specs(specs: &mut Vec<FieldSpec>, incoming: &[FieldSpec]) -> Result<(), Conflict> {
    // Only a spec with the same path covers another: the specs are found by path, in order
    // (every kustomization merges the built-in tables, hundreds of specs, into its own).
    let mut by_path: HashMap<&[String], Vec<usize>> = HashMap::new();
    let mut added: Vec<&FieldSpec> = Vec::new();
    for (index, spec) in specs.iter().enumerate() {
        by_path.entry(&spec.path).or_default().push(index);
    }
    for spec in incoming {
        let same_path = by_path.entry(&spec.path).or_default();
        let mut existing =
            same_path.iter().map(|&index| specs.get(index).unwrap_or_else(|| added[index - specs.len()]));
        match existing.find(|existing| existing.covers(spec)) {
            Some(existing) if existing.create != spec.create => return Err(Conflict),
            Some(_) => {}
            None => {
                same_path.push(specs.len() + added.len());
                added.push(spec);
            }
        }
    }
    specs.extend(added.into_iter().cloned());
    Ok(())
}

impl Config {
    /// Parses a `configurations` file.
    pub fn parse(text: &str) -> Result<Config, Error> {
        let document: Value = serde_saphyr::from_str(text)?;
        let mut config: Config =
            unmarshal::sigs_yaml(document, unmarshal::STRICT_TARGET).map_err(Error::ConfigurationJson)?;
        // Sorted as kustomize sorts what it reads, before it merges it.
        for specs in [
            &mut config.name_prefix,
            &mut config.name_suffix,
            &mut config.namespace,
            &mut config.common_annotations,
            &mut config.common_labels,
            &mut config.labels,
            &mut config.template_labels,
            &mut config.var_reference,
            &mut config.images,
            &mut config.replicas,
        ] {
            sort_specs(specs);
        }
        Ok(config)
    }

    /// `other` merged into this configuration, in kustomize's words when two specs conflict.
    pub fn merge(&mut self, other: &Config) -> Result<(), Error> {
        let tables = [
            ("NamePrefix", &mut self.name_prefix, &other.name_prefix),
            ("NameSuffix", &mut self.name_suffix, &other.name_suffix),
            ("NameSpace", &mut self.namespace, &other.namespace),
            ("CommonAnnotations", &mut self.common_annotations, &other.common_annotations),
            ("CommonLabels", &mut self.common_labels, &other.common_labels),
            ("Labels", &mut self.labels, &other.labels),
            ("TemplateLabels", &mut self.template_labels, &other.template_labels),
            ("VarReference", &mut self.var_reference, &other.var_reference),
            ("Images", &mut self.images, &other.images),
            ("Replicas", &mut self.replicas, &other.replicas),
        ];
        for (table, specs, incoming) in tables {
            merge_specs(specs, incoming).map_err(|source| Error::MergeTable { table, source })?;
            sort_specs(specs);
        }
        for reference in &other.name_reference {
            self.add_name_reference(reference)
                .map_err(|source| Error::MergeTable { table: "NameReference", source })?;
        }
        Ok(())
    }

    /// Adds the referrers of `reference` to the entry of its exact kind (a new one if none).
    pub fn add_name_reference(&mut self, reference: &NameReference) -> Result<(), Conflict> {
        let same_kind = self.name_reference.iter_mut().find(|existing| {
            (&existing.group, &existing.version, &existing.kind)
                == (&reference.group, &reference.version, &reference.kind)
        });
        match same_kind {
            Some(existing) => merge_specs(&mut existing.field_specs, &reference.field_specs),
            None => {
                self.name_reference.push(reference.clone());
                Ok(())
            }
        }
    }
}

/// The built-in tables, parsed on first use: kustomize v5.8.1's (the version kubectl 1.37
/// embeds), from the YAML tables of its `api/internal/konfig/builtinpluginconsts/*.go`
/// (Apache-2.0), as data; `commonLabels` and `templateLabels` each end with the shared
/// metadata-labels specs, as upstream appends them. Kept as JSON, which every build reads
/// several times faster than YAML.
pub fn builtin() -> &'static Config {
    static BUILTIN: OnceLock<Config> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        let document =
            serde_json::from_str(include_str!("builtin-fieldspecs.json")).expect("the built-in field specs are JSON");
        unmarshal::sigs_yaml(document, unmarshal::STRICT_TARGET).expect("the built-in field specs are a configuration")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_tables_load() {
        let tables = builtin();
        assert_eq!(tables.common_labels.len(), 32);
        assert_eq!(tables.var_reference.len(), 72);
        assert!(tables.name_reference.iter().any(|entry| entry.kind == "ConfigMap"));
        let escaped = tables
            .name_reference
            .iter()
            .flat_map(|entry| &entry.field_specs)
            .find(|spec| spec.path.len() == 3 && spec.path[2].contains('/'));
        assert_eq!(escaped.unwrap().path[2], "nginx.ingress.kubernetes.io/fastcgi-params-configmap");
        assert!(
            tables
                .var_reference
                .iter()
                .any(|spec| spec.kind == "Pod" && spec.path == ["spec", "containers", "command"])
        );
        assert_eq!(tables.var_reference.last().unwrap().path, ["metadata", "annotations"]);
    }

    #[test]
    fn merging_skips_covered_specs_and_refuses_conflicts() {
        let mut config = builtin().clone();
        let before = config.common_labels.len();
        // No kind: covers the built-in Service spec of the same path, so nothing is added.
        let covered = Config::parse("commonLabels:\n- path: spec/selector\n  create: true\n").unwrap();
        config.merge(&covered).unwrap();
        assert_eq!(config.common_labels.len(), before);
        let added = Config::parse("commonLabels:\n- kind: Foo\n  path: spec/selector\n").unwrap();
        config.merge(&added).unwrap();
        assert_eq!(config.common_labels.len(), before + 1);
        let conflicting = Config::parse("commonLabels:\n- kind: Service\n  path: spec/selector\n").unwrap();
        assert_eq!(
            config.merge(&conflicting).unwrap_err().to_string(),
            "failed to merge CommonLabels fieldSpec: conflicting fieldspecs"
        );
    }

    #[test]
    fn name_references_merge_by_exact_kind_and_var_references_are_kept() {
        let mut config = builtin().clone();
        let kinds = config.name_reference.len();
        let file = "nameReference:\n- kind: ConfigMap\n  version: v1\n  fieldSpecs:\n  - kind: Foo\n    path: spec/cm\n\
                    - kind: Bar\n  fieldSpecs:\n  - kind: Foo\n    path: spec/bar\nvarReference:\n- kind: Foo\n  path: spec/args\n";
        config.merge(&Config::parse(file).unwrap()).unwrap();
        assert_eq!(config.name_reference.len(), kinds + 1);
        let config_map = config.name_reference.iter().find(|entry| entry.kind == "ConfigMap" && entry.version == "v1");
        assert!(config_map.unwrap().field_specs.iter().any(|spec| spec.kind == "Foo" && spec.path == ["spec", "cm"]));
        let added = FieldSpec { kind: "Foo".into(), ..FieldSpec::any_kind("spec/args", false) };
        assert_eq!(config.var_reference.len(), builtin().var_reference.len() + 1);
        assert!(config.var_reference.contains(&added));
        let err = Config::parse("nameReferences: []\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"error unmarshaling JSON: while decoding JSON: json: unknown field "nameReferences""#
        );
    }

    #[test]
    fn specs_walk_lists_and_create_only_when_told() {
        let spec = FieldSpec {
            kind: "Deployment".into(),
            ..FieldSpec::any_kind("spec/template/spec/containers[]/image", false)
        };
        let mut object = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {"containers": [{"image": "a"}, {"name": "b"}]}}}});
        let mut seen = Vec::new();
        spec.apply(&mut object, &mut |value| seen.push(value.clone()));
        assert_eq!(seen, [json!("a")]);
        let creating =
            FieldSpec { kind: "Deployment".into(), ..FieldSpec::any_kind("spec/selector/matchLabels", true) };
        creating.apply(&mut object, &mut |value| *value = json!({"app": "web"}));
        assert_eq!(object["spec"]["selector"], json!({"matchLabels": {"app": "web"}}));
        // A list is never created, even by a spec that creates.
        let in_lists = FieldSpec::any_kind("spec/volumeClaimTemplates[]/metadata/labels", true);
        in_lists.apply(&mut object, &mut |value| *value = json!({"app": "web"}));
        assert!(object["spec"].get("volumeClaimTemplates").is_none());
    }
}
