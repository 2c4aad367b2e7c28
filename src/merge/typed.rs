//! A patch of any of the three kinds a user writes (strategic, JSON merge, JSON patch), checked
//! when it is read and applied with the matching engine.

use serde_json::Value;

use super::error::brief;
use super::json_patch::{self, JsonPatchError};
use super::{MergeError, PatchType, json_merge, strategic};
use crate::schema::SchemaNode;

/// A patch read from the user's text, valid for its type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedPatch {
    patch_type: PatchType,
    document: Value,
    operations: Option<::json_patch::Patch>,
}

/// Why a patch could not be read or applied.
#[derive(Debug, thiserror::Error)]
pub enum TypedPatchError {
    #[error("unable to parse {text:?}: {reason}")]
    Unparsable { text: String, reason: String },
    #[error("a {kind} must be a JSON object, not {found}")]
    NotAnObject { kind: &'static str, found: String },
    #[error("server-side apply configurations are not patches")]
    ApplyIsNotAPatch,
    #[error(transparent)]
    JsonPatch(#[from] JsonPatchError),
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// Strategic merge patches need the kind's patch metadata, which custom resources lack.
    #[error("strategic merge patch needs patch metadata, and the kind has none")]
    NoPatchMetadata,
}

impl TypedPatch {
    /// Reads `text`, JSON or YAML, as a patch of `patch_type`: strategic and merge patches must be
    /// objects, JSON patches lists of valid operations.
    pub fn parse(patch_type: PatchType, text: &str) -> Result<TypedPatch, TypedPatchError> {
        let document = parse_json_or_yaml(text)?;
        let operations = match patch_type {
            PatchType::Json => Some(json_patch::parse(&document)?),
            PatchType::Strategic | PatchType::Merge if !document.is_object() => {
                let kind =
                    if patch_type == PatchType::Strategic { "strategic merge patch" } else { "JSON merge patch" };
                return Err(TypedPatchError::NotAnObject { kind, found: brief(&document) });
            }
            PatchType::Strategic | PatchType::Merge => None,
            PatchType::Apply => return Err(TypedPatchError::ApplyIsNotAPatch),
        };
        Ok(TypedPatch { patch_type, document, operations })
    }

    /// The patch's type.
    pub fn patch_type(&self) -> PatchType {
        self.patch_type
    }

    /// The patch as the JSON the server receives.
    pub fn body(&self) -> Vec<u8> {
        serde_json::to_vec(&self.document).expect("a JSON value always serializes")
    }

    /// Applies the patch to `object` as the API server would. Strategic merge patches need the
    /// kind's `schema`; the other types ignore it.
    pub fn apply(&self, object: Value, schema: Option<SchemaNode<'_>>) -> Result<Value, TypedPatchError> {
        match (&self.operations, self.patch_type) {
            (Some(operations), _) => {
                let mut object = object;
                json_patch::apply(&mut object, operations)?;
                Ok(object)
            }
            (None, PatchType::Strategic) => {
                let schema = schema.ok_or(TypedPatchError::NoPatchMetadata)?;
                Ok(strategic::apply(object, self.document.clone(), &schema)?)
            }
            (None, _) => Ok(json_merge::apply(object, &self.document)),
        }
    }
}

/// JSON first (so that JSON that is not also YAML, e.g. with tabs, still reads), then YAML.
fn parse_json_or_yaml(text: &str) -> Result<Value, TypedPatchError> {
    if let Ok(document) = serde_json::from_str(text) {
        return Ok(document);
    }
    serde_saphyr::from_str::<Value>(text).map_err(|err| TypedPatchError::Unparsable {
        text: text.to_string(),
        reason: err.to_string().lines().next().unwrap_or_default().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::builtin;
    use serde_json::json;

    #[test]
    fn reads_json_and_yaml() {
        let from_json = TypedPatch::parse(PatchType::Merge, r#"{"spec":{"replicas":2}}"#).unwrap();
        let from_yaml = TypedPatch::parse(PatchType::Merge, "spec:\n  replicas: 2\n").unwrap();
        assert_eq!(from_json, from_yaml);
        assert_eq!(from_json.body(), br#"{"spec":{"replicas":2}}"#);
    }

    #[test]
    fn rejects_patches_that_cannot_be_right() {
        let unparsable = TypedPatch::parse(PatchType::Strategic, "{bad").unwrap_err();
        assert!(unparsable.to_string().starts_with(r#"unable to parse "{bad": "#), "{unparsable}");
        let list = TypedPatch::parse(PatchType::Strategic, "[1]").unwrap_err();
        assert_eq!(list.to_string(), "a strategic merge patch must be a JSON object, not [1]");
        let not_a_list = TypedPatch::parse(PatchType::Json, r#"{"op":"add"}"#).unwrap_err();
        assert!(matches!(not_a_list, TypedPatchError::JsonPatch(JsonPatchError::Invalid(_))));
        let bad_op = TypedPatch::parse(PatchType::Json, r#"[{"op":"frob","path":"/a"}]"#).unwrap_err();
        assert!(matches!(bad_op, TypedPatchError::JsonPatch(JsonPatchError::Invalid(_))));
    }

    #[test]
    fn applies_with_the_matching_engine() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {
            "containers": [{"name": "app", "image": "a"}]}}}});
        let add = r#"{"spec":{"template":{"spec":{"containers":[{"name":"log","image":"b"}]}}}}"#;
        let schema = builtin().for_kind("apps/v1", "Deployment");
        let strategic =
            TypedPatch::parse(PatchType::Strategic, add).unwrap().apply(deployment.clone(), schema).unwrap();
        assert_eq!(strategic["spec"]["template"]["spec"]["containers"].as_array().unwrap().len(), 2);
        let merged = TypedPatch::parse(PatchType::Merge, add).unwrap().apply(deployment.clone(), None).unwrap();
        assert_eq!(merged["spec"]["template"]["spec"]["containers"], json!([{"name": "log", "image": "b"}]));
        let no_schema = TypedPatch::parse(PatchType::Strategic, add).unwrap().apply(deployment.clone(), None);
        assert!(matches!(no_schema, Err(TypedPatchError::NoPatchMetadata)));
        let failed = TypedPatch::parse(PatchType::Json, r#"[{"op":"test","path":"/kind","value":"Pod"}]"#)
            .unwrap()
            .apply(deployment, None)
            .unwrap_err();
        assert!(failed.to_string().contains("test failed"), "{failed}");
    }
}
