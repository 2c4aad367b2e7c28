//! The fields of `helmCharts`, `helmGlobals` and the deprecated `helmChartInflationGenerator`
//! (kustomize's `types.HelmChart`, `types.HelmGlobals` and `types.HelmChartArgs`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An entry of `helmCharts`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct HelmChart {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub repo: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub release_name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub additional_values_files: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub values_file: String,
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub values_inline: Map<String, Value>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub values_merge: String,
    #[serde(rename = "includeCRDs", skip_serializing_if = "is_false")]
    pub include_crds: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub skip_hooks: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub api_versions: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kube_version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name_template: String,
    #[serde(skip_serializing_if = "is_false")]
    pub skip_tests: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub debug: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub devel: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

/// `helmGlobals`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct HelmGlobals {
    pub chart_home: String,
    pub config_home: String,
}

/// An entry of the deprecated `helmChartInflationGenerator`, which kustomize turns into a chart
/// and globals.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct HelmChartArgs {
    pub chart_name: String,
    pub chart_version: String,
    #[serde(rename = "chartRepoUrl")]
    pub chart_repo_url: String,
    pub chart_home: String,
    pub chart_repo_name: String,
    pub helm_bin: String,
    pub helm_home: String,
    pub values: String,
    pub values_local: Map<String, Value>,
    pub values_merge: String,
    pub release_name: String,
    pub release_namespace: String,
    pub extra_args: Vec<String>,
}
