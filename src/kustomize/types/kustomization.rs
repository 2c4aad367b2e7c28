//! The Kustomization document (kustomize's `types.Kustomization`), parsed strictly: a field
//! kustomize does not know is an error, as it is for kustomize.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::field_specs::FieldSpec;
use super::go_types;
use super::helm::{HelmChart, HelmChartArgs, HelmGlobals};
use super::replacement;
use super::var::Var;
use crate::gocompat::unmarshal;

/// One `kustomization.yaml` (or a `Component`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Kustomization {
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub metadata: Option<ObjectMeta>,
    pub resources: Vec<String>,
    pub bases: Vec<String>,
    pub components: Vec<String>,
    pub namespace: Option<String>,
    pub name_prefix: Option<String>,
    pub name_suffix: Option<String>,
    pub common_labels: BTreeMap<String, String>,
    pub labels: Vec<Label>,
    pub common_annotations: BTreeMap<String, String>,
    pub images: Vec<Image>,
    pub replicas: Vec<Replica>,
    pub patches: Vec<PatchEntry>,
    pub patches_strategic_merge: Vec<String>,
    pub patches_json6902: Vec<PatchEntry>,
    pub config_map_generator: Vec<Generator>,
    pub secret_generator: Vec<Generator>,
    pub generator_options: Option<GeneratorOptions>,
    pub sort_options: Option<SortOptions>,
    pub replacements: Vec<replacement::Entry>,
    pub vars: Vec<Var>,
    pub build_metadata: Vec<String>,
    pub crds: Vec<String>,
    /// `path` (a custom schema for strategic merge patches) or `version` (a built-in one).
    pub openapi: Option<BTreeMap<String, String>>,
    pub configurations: Vec<String>,
    pub generators: Vec<String>,
    pub transformers: Vec<String>,
    pub validators: Vec<String>,
    pub helm_charts: Vec<HelmChart>,
    pub helm_globals: Option<HelmGlobals>,
    pub helm_chart_inflation_generator: Vec<HelmChartArgs>,
    pub image_tags: Vec<Image>,
}

impl Kustomization {
    /// kustomize's warnings for the deprecated fields this kustomization uses, in its order.
    pub fn deprecation_warnings(&self) -> Vec<String> {
        let edit_fix = "Run 'kustomize edit fix' to update your Kustomization automatically.";
        [
            ("bases", "resources", !self.bases.is_empty(), ""),
            ("commonLabels", "labels", !self.common_labels.is_empty(), ""),
            ("imageTags", "images", !self.image_tags.is_empty(), ""),
            ("patchesJson6902", "patches", !self.patches_json6902.is_empty(), ""),
            ("patchesStrategicMerge", "patches", !self.patches_strategic_merge.is_empty(), ""),
            ("vars", "replacements", !self.vars.is_empty(), "[EXPERIMENTAL] "),
        ]
        .into_iter()
        .filter(|(.., used, _)| *used)
        .map(|(old, new, _, experimental)| {
            format!("# Warning: '{old}' is deprecated. Please use '{new}' instead. {experimental}{edit_fix}")
        })
        .collect()
    }
}

/// A kustomization's `metadata` (kustomize's `types.ObjectMeta`: these fields, no others).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ObjectMeta {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
}

/// An entry of `labels`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Label {
    pub pairs: BTreeMap<String, String>,
    pub include_selectors: bool,
    pub include_templates: bool,
    /// Extra fields the labels go on.
    pub fields: Vec<FieldSpec>,
}

/// An entry of `images`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Image {
    pub name: String,
    pub new_name: String,
    pub new_tag: String,
    pub digest: String,
    pub tag_suffix: String,
}

/// An entry of `replicas`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Replica {
    pub name: String,
    pub count: i64,
}

/// An entry of `patches` or `patchesJson6902`: a file or an inline patch, and what it targets.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PatchEntry {
    pub path: Option<String>,
    pub patch: Option<String>,
    pub target: Option<Selector>,
    pub options: PatchOptions,
}

/// A patch's `options`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct PatchOptions {
    /// The patch may rename its targets.
    pub allow_name_change: bool,
    /// The patch may change its targets' kind.
    pub allow_kind_change: bool,
}

/// Which resources a patch applies to; names and namespaces are anchored regular expressions.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Selector {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label_selector: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub annotation_selector: String,
}

/// An entry of `configMapGenerator` or `secretGenerator`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Generator {
    pub name: String,
    pub namespace: Option<String>,
    pub behavior: Option<String>,
    pub literals: Vec<String>,
    pub files: Vec<String>,
    pub envs: Vec<String>,
    pub env: Option<String>,
    pub options: Option<GeneratorOptions>,
    #[serde(rename = "type")]
    pub secret_type: Option<String>,
}

/// `generatorOptions`, or a generator's own `options`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct GeneratorOptions {
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub disable_name_suffix_hash: bool,
    pub immutable: bool,
}

/// `sortOptions`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct SortOptions {
    pub order: Option<String>,
    pub legacy_sort_options: Option<LegacySortOptions>,
}

/// `sortOptions.legacySortOptions`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct LegacySortOptions {
    pub order_first: Vec<String>,
    pub order_last: Vec<String>,
}

/// Parses a kustomization document as kustomize does (Go's rules: see [`unmarshal`]); errors in
/// its words (`json: unknown field "x"`, `json: cannot unmarshal array into Go struct field
/// Kustomization.namePrefix of type string`).
pub fn parse(document: Value) -> Result<Kustomization, unmarshal::Error> {
    unmarshal::from_value(
        document,
        unmarshal::Rules { go_types: Some(&go_types::KUSTOMIZATION), ..unmarshal::KUSTOMIZATION },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_are_refused_in_kustomizes_words() {
        let err = parse(serde_json::json!({"resourcez": ["a.yaml"]})).unwrap_err();
        assert_eq!(err.to_string(), r#"json: unknown field "resourcez""#);
        let err = parse(serde_json::json!({"images": [{"name": "a", "tag": "b"}]})).unwrap_err();
        assert_eq!(err.to_string(), r#"json: unknown field "tag""#);
        let ok = parse(serde_json::json!({"namePrefix": "p-", "resources": ["a.yaml"]})).unwrap();
        assert_eq!(ok.name_prefix.as_deref(), Some("p-"));
    }

    #[test]
    fn null_fields_are_unset() {
        let document = serde_json::json!({"components": null, "images": [{"name": "a", "newTag": null}]});
        let parsed = parse(document).unwrap();
        assert!(parsed.components.is_empty());
        assert_eq!(parsed.images[0].new_tag, "");
    }

    #[test]
    fn null_values_of_string_maps_are_empty_strings() {
        let document = serde_json::json!({"commonLabels": {"a": null}, "labels": [{"pairs": {"b": null}}]});
        let parsed = parse(document).unwrap();
        assert_eq!(parsed.common_labels["a"], "");
        assert_eq!(parsed.labels[0].pairs["b"], "");
    }
}
