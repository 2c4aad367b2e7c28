//! The fields of `replacements` (kustomize's `types.Replacement`, `types.ReplacementField`).

use serde::Deserialize;

use crate::kustomize::resource::Id;

/// An entry of `replacements`: a file holding one replacement or a list, or one inline.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Entry {
    pub path: String,
    pub source: Option<Source>,
    /// A value given as it is, instead of a source.
    pub source_value: Option<String>,
    pub targets: Option<Vec<Target>>,
}

/// Where a replacement's value comes from.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Source {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub field_path: String,
    pub options: Option<FieldOptions>,
}

/// Where a replacement's value goes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Target {
    pub select: Option<Selector>,
    pub reject: Vec<Selector>,
    pub field_paths: Vec<String>,
    pub options: Option<FieldOptions>,
}

/// Resources a target selects or rejects.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Selector {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
    pub label_selector: String,
    pub annotation_selector: String,
}

/// How a value is cut from its source or spliced into its target, and whether missing target
/// fields are created. (`encoding` is accepted and, as in kustomize, not used.)
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FieldOptions {
    pub delimiter: String,
    pub index: i64,
    pub encoding: String,
    pub create: bool,
}

impl Source {
    pub fn id(&self) -> Id {
        let Source { group, version, kind, name, namespace, .. } = self.clone();
        Id { group, version, kind, name, namespace }
    }

    /// The source as kustomize prints it: its id, then its field path and options if set.
    pub fn text(&self) -> String {
        let mut parts = vec![self.id().text()];
        if !self.field_path.is_empty() {
            parts.push(self.field_path.clone());
        }
        if let Some(options) = self.options.as_ref().filter(|options| !options.delimiter.is_empty() || options.create) {
            parts.push(format!("{}({}), create={}", options.delimiter, options.index, options.create));
        }
        parts.join(":")
    }
}

impl Selector {
    pub fn id(&self) -> Id {
        let Selector { group, version, kind, name, namespace, .. } = self.clone();
        Id { group, version, kind, name, namespace }
    }
}
