//! The schema kyaml's walk reads: kyaml's own built-in OpenAPI document (Kubernetes v1.21.2, not
//! the newer one `apply` and `patch` use), or the build's custom one, answering as kyaml's
//! `ResourceSchema` does. Only lists with the `merge` patch strategy are walked element by
//! element; everything else a schema says is ignored by the walk.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::schema::{Expected, LookupPatchMeta, OpenApiSchema, PatchMeta, SchemaNode, Strategy};

const DOCUMENT: &str = include_str!("../kyaml-openapi.json");

/// kyaml's built-in schema, compiled on first use. Regenerate with `scripts/gen-kyaml-schema.sh`.
pub(super) fn builtin() -> &'static OpenApiSchema {
    static SCHEMA: OnceLock<OpenApiSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| OpenApiSchema::from_document(&document()).expect("kyaml's schema is an OpenAPI document"))
}

/// kyaml's built-in schema as a document.
pub(super) fn document() -> Value {
    serde_json::from_str(DOCUMENT).expect("kyaml's schema is valid JSON")
}

/// The document the walk reads: the build's custom schema (its kinds, and kyaml's when it was set
/// after resources were read), or kyaml's.
#[derive(Clone, Copy)]
pub(super) struct Document<'a>(&'a OpenApiSchema);

impl<'a> Document<'a> {
    pub(super) fn new(custom: Option<&'a Arc<OpenApiSchema>>) -> Self {
        match custom {
            Some(custom) => Document(custom),
            None => Document(builtin()),
        }
    }

    /// The schema of the first of `sources` that is an object whose `apiVersion` and `kind` the
    /// document describes (kyaml looks a kind up wherever it has no schema).
    pub(super) fn for_object(&self, sources: [Option<&Value>; 2]) -> Option<ValueSchema<'a>> {
        sources.into_iter().flatten().find_map(|source| {
            let text = |key| source.get(key).and_then(Value::as_str).filter(|text| !text.is_empty());
            let node = self.0.for_kind(text("apiVersion")?, text("kind")?)?;
            Some(ValueSchema { node, meta: PatchMeta::default() })
        })
    }
}

/// The schema of one value, with the patch extensions of the field that holds it.
#[derive(Clone)]
pub(super) struct ValueSchema<'a> {
    node: SchemaNode<'a>,
    meta: PatchMeta,
}

impl<'a> ValueSchema<'a> {
    /// The schema of field `key` of the object this schema describes, if it says anything.
    pub(super) fn field(&self, key: &str) -> Option<Self> {
        let (node, meta) = self.node.lookup_field(key).ok()?;
        let says_nothing = matches!(node.expects(), Expected::Anything) && meta == PatchMeta::default();
        (!says_nothing).then_some(ValueSchema { node, meta })
    }

    /// The schema of the items of the list this schema describes.
    pub(super) fn elements(&self) -> Option<Self> {
        match self.node.expects() {
            Expected::List { items, .. } if !matches!(items.expects(), Expected::Anything) => {
                Some(ValueSchema { node: items, meta: PatchMeta::default() })
            }
            _ => None,
        }
    }

    /// For a list kyaml merges element by element (patch strategy `merge`), the keys that
    /// identify its elements: `x-kubernetes-list-map-keys` when given, else the patch merge key;
    /// none for a list of scalars.
    pub(super) fn merge_keys(&self) -> Option<Vec<String>> {
        if self.meta.strategy != Strategy::Merge {
            return None;
        }
        Some(match (&*self.meta.list_map_keys, &self.meta.merge_key) {
            ([], Some(key)) => vec![key.to_string()],
            ([], None) => Vec::new(),
            (keys, _) => keys.to_vec(),
        })
    }
}
