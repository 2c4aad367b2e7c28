//! The fields of `vars` (kustomize's `types.Var`), as kustomize completes them.

use serde::Deserialize;

use crate::kustomize::resource::Id;

const DEFAULT_FIELD_PATH: &str = "metadata.name";

/// An entry of `vars` (kustomize's documentation writes its fields in lower case,
/// `fieldref: {fieldpath: ...}`, which Go's decoder accepts: see [`crate::gocompat::unmarshal`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Var {
    pub name: String,
    pub objref: ObjectRef,
    pub fieldref: FieldRef,
}

/// The resource a var's value comes from: the name it has where the var is declared.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ObjectRef {
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

/// The field a var's value comes from (`metadata.name` when unset).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FieldRef {
    #[serde(rename = "fieldPath")]
    pub field_path: String,
}

impl Var {
    /// The var with its group and version taken from `apiVersion`, as kustomize completes it.
    pub fn with_api_version(&self) -> Var {
        let mut var = self.clone();
        let reference = &mut var.objref;
        match reference.api_version.split('/').collect::<Vec<_>>().as_slice() {
            [""] => {}
            [version] => reference.version = version.to_string(),
            [group, version] => (reference.group, reference.version) = (group.to_string(), version.to_string()),
            _ => {}
        }
        var
    }

    /// The var as kustomize completes it: its group and version, and the default field.
    pub fn defaulted(&self) -> Var {
        let mut var = self.with_api_version();
        if var.fieldref.field_path.is_empty() {
            var.fieldref.field_path = DEFAULT_FIELD_PATH.into();
        }
        var
    }

    pub fn id(&self) -> Id {
        let ObjectRef { group, version, kind, name, namespace, .. } = self.with_api_version().objref;
        Id { group, version, kind, name, namespace }
    }

    /// The var as kustomize's messages print it: `{NAME Kind.version.group {field.path}}`.
    pub fn text(&self) -> String {
        let id = Id {
            group: self.objref.group.clone(),
            version: self.objref.version.clone(),
            kind: self.objref.kind.clone(),
            ..Id::default()
        };
        format!("{{{} {} {{{}}}}}", self.name, id.gvk_text(), self.fieldref.field_path)
    }
}
