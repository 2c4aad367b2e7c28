//! Patch metadata (strategy, merge key, list type) read from OpenAPI documents.
//!
//! The merge engine sees schemas only through [`LookupPatchMeta`], so it does not care whether the
//! metadata came from the server's OpenAPI v2 or v3 documents or from the embedded built-in copy.

mod builtin;
mod openapi;
mod prune;
mod stored;
mod validate;

use std::sync::Arc;

pub use builtin::{builtin, is_builtin};
pub use openapi::{Expected, OpenApiSchema, SchemaError, SchemaNode};
pub use prune::{PRUNED_FORMAT, kind_subset, prune};
pub use stored::same_quantity;
pub use validate::{FieldError, Problem, validate};

/// The patch metadata of one built-in kind, from the document that describes it best.
#[derive(Debug, Clone)]
pub struct KindSchema {
    document: Arc<OpenApiSchema>,
    api_version: String,
    kind: String,
}

impl KindSchema {
    /// The schema for a kind that Kubernetes builds in, preferring `document` (e.g. the server's)
    /// when it describes the kind. `None` for other kinds (custom resources): they are patched
    /// with JSON merge patches, as kubectl does.
    pub fn for_builtin(document: Option<Arc<OpenApiSchema>>, api_version: &str, kind: &str) -> Option<KindSchema> {
        if !is_builtin(api_version, kind) {
            return None;
        }
        let document = document
            .filter(|document| document.for_kind(api_version, kind).is_some())
            .unwrap_or_else(|| builtin().clone());
        Some(KindSchema { document, api_version: api_version.to_string(), kind: kind.to_string() })
    }

    /// The schema of any kind `document` describes (custom resources too), for validation.
    pub fn for_kind(document: Arc<OpenApiSchema>, api_version: &str, kind: &str) -> Option<KindSchema> {
        document.for_kind(api_version, kind)?;
        Some(KindSchema { document, api_version: api_version.to_string(), kind: kind.to_string() })
    }

    /// The schema of the kind's objects, for the merge engine.
    pub fn node(&self) -> SchemaNode<'_> {
        self.document.for_kind(&self.api_version, &self.kind).expect("checked when the KindSchema was made")
    }
}

/// How a field is patched, as declared by its `x-kubernetes-*` extensions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PatchMeta {
    /// `x-kubernetes-patch-strategy` without `retainKeys`.
    pub strategy: Strategy,
    /// Whether `x-kubernetes-patch-strategy` includes `retainKeys`.
    pub retain_keys: bool,
    /// `x-kubernetes-patch-merge-key`: the key that identifies elements of a merged list of maps.
    pub merge_key: Option<Arc<str>>,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<ListType>,
    /// `x-kubernetes-list-map-keys`: the keys that identify elements of a `map` list.
    pub list_map_keys: Arc<[String]>,
}

impl PatchMeta {
    /// The merge key, or the empty string when the field has none.
    pub fn merge_key(&self) -> &str {
        self.merge_key.as_deref().unwrap_or("")
    }
}

/// How a strategic merge patch treats a field's value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Maps merge key by key; lists are replaced whole.
    #[default]
    Default,
    /// Lists merge element by element (by merge key for maps, by value for scalars).
    Merge,
    /// The value is replaced whole.
    Replace,
}

/// The values of `x-kubernetes-list-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListType {
    /// The list is one value, replaced whole.
    Atomic,
    /// Scalars, each at most once.
    Set,
    /// Maps, identified by `x-kubernetes-list-map-keys`.
    Map,
}

/// Where the merge engine asks how a field is patched.
///
/// A lookup answers for one field of the object this schema describes, and returns the schema of
/// the field's value so that the engine can descend. A schema that knows nothing answers with
/// empty metadata and another schema that knows nothing.
pub trait LookupPatchMeta: Sized {
    /// The metadata of field `key`, whose value is an object, and that object's schema.
    fn lookup_field(&self, key: &str) -> Result<(Self, PatchMeta), SchemaError>;
    /// The metadata of field `key`, whose value is a list, and the schema of the list's items.
    fn lookup_list(&self, key: &str) -> Result<(Self, PatchMeta), SchemaError>;
    /// A name for messages, e.g. `io.k8s.api.apps.v1.DeploymentSpec`.
    fn name(&self) -> String;
}
