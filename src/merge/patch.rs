//! A patch with its payload, as the API server receives it, and the one place that decides which
//! kind of patch the objects of a kind get.

use serde_json::Value;

use super::error::brief;
use super::json_patch::{self, JsonPatchError};
use super::{MergeError, json_merge, strategic};
use crate::schema::{KindSchema, SchemaNode};

/// The kinds of patch the API server accepts, without their payload: what `--type` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// RFC 6902 JSON patch: a list of operations.
    Json,
    /// RFC 7386 JSON merge patch.
    Merge,
    /// Kubernetes strategic merge patch (built-in kinds only).
    Strategic,
    /// Server-side apply.
    Apply,
}

impl PatchType {
    /// The request's `Content-Type` for this patch.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Json => "application/json-patch+json",
            PatchType::Merge => "application/merge-patch+json",
            PatchType::Strategic => "application/strategic-merge-patch+json",
            PatchType::Apply => "application/apply-patch+yaml",
        }
    }
}

/// A patch and its payload, checked for its type: merge and strategic patches are objects, JSON
/// patches valid operations.
#[derive(Debug, Clone, PartialEq)]
pub enum Patch {
    /// RFC 6902 JSON patch.
    Json(::json_patch::Patch),
    /// RFC 7386 JSON merge patch.
    Merge(Value),
    /// Kubernetes strategic merge patch.
    Strategic(Value),
    /// Server-side apply: the whole configuration the field manager owns.
    Apply(Value),
}

/// Why a patch could not be read or applied.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
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

impl Patch {
    /// Reads `text`, JSON or YAML, as a patch of `patch_type`, as a user writes one.
    pub fn parse(patch_type: PatchType, text: &str) -> Result<Patch, PatchError> {
        let document = parse_json_or_yaml(text)?;
        match patch_type {
            PatchType::Json => Ok(Patch::Json(json_patch::parse(&document)?)),
            PatchType::Strategic | PatchType::Merge if !document.is_object() => {
                let kind =
                    if patch_type == PatchType::Strategic { "strategic merge patch" } else { "JSON merge patch" };
                Err(PatchError::NotAnObject { kind, found: brief(&document) })
            }
            PatchType::Strategic => Ok(Patch::Strategic(document)),
            PatchType::Merge => Ok(Patch::Merge(document)),
            PatchType::Apply => Err(PatchError::ApplyIsNotAPatch),
        }
    }

    /// The patch's type.
    pub fn patch_type(&self) -> PatchType {
        match self {
            Patch::Json(_) => PatchType::Json,
            Patch::Merge(_) => PatchType::Merge,
            Patch::Strategic(_) => PatchType::Strategic,
            Patch::Apply(_) => PatchType::Apply,
        }
    }

    /// The payload as a JSON document (the operations of a JSON patch as a list).
    pub fn to_json(&self) -> Value {
        match self {
            Patch::Json(operations) => serde_json::to_value(operations).expect("JSON patches serialize"),
            Patch::Merge(document) | Patch::Strategic(document) | Patch::Apply(document) => document.clone(),
        }
    }

    /// The request body the server receives.
    pub fn body(&self) -> Vec<u8> {
        match self {
            Patch::Json(operations) => serde_json::to_vec(operations),
            Patch::Merge(document) | Patch::Strategic(document) | Patch::Apply(document) => {
                serde_json::to_vec(document)
            }
        }
        .expect("a JSON value always serializes")
    }

    /// Whether the patch changes nothing: an empty object, or no operations.
    pub fn is_empty(&self) -> bool {
        match self {
            Patch::Json(operations) => operations.0.is_empty(),
            Patch::Merge(document) | Patch::Strategic(document) => {
                document.as_object().is_some_and(|map| map.is_empty())
            }
            Patch::Apply(_) => false,
        }
    }

    /// Applies the patch to `object` as the API server would. Strategic merge patches need the
    /// kind's `schema`; the other types ignore it.
    pub fn apply(&self, object: Value, schema: Option<SchemaNode<'_>>) -> Result<Value, PatchError> {
        match self {
            Patch::Json(operations) => {
                let mut object = object;
                json_patch::apply(&mut object, operations)?;
                Ok(object)
            }
            Patch::Strategic(document) => {
                let schema = schema.ok_or(PatchError::NoPatchMetadata)?;
                Ok(strategic::apply(object, document.clone(), &schema)?)
            }
            Patch::Merge(document) => Ok(json_merge::apply(object, document)),
            Patch::Apply(_) => Err(PatchError::ApplyIsNotAPatch),
        }
    }
}

/// How the objects of one kind are patched. This is the one place that decides it: strategic
/// merge patches for the kinds Kubernetes builds in, whose patch metadata is known, and JSON merge
/// patches for the others (custom resources), as kubectl does.
#[derive(Debug, Clone, Copy)]
pub enum KindPatcher<'a> {
    /// Strategic merge patches, guided by the kind's patch metadata.
    Strategic(SchemaNode<'a>),
    /// JSON merge patches.
    Merge,
}

impl<'a> KindPatcher<'a> {
    /// The patcher for a kind with `schema` (the built-in kinds have one).
    pub fn for_kind(schema: Option<&'a KindSchema>) -> Self {
        match schema {
            Some(schema) => KindPatcher::Strategic(schema.node()),
            None => KindPatcher::Merge,
        }
    }

    /// The patch that turns `original` into `modified` (what `edit` sends).
    pub fn two_way(&self, original: &Value, modified: &Value) -> Result<Patch, MergeError> {
        Ok(match self {
            KindPatcher::Strategic(schema) => Patch::Strategic(strategic::create_two_way(original, modified, schema)?),
            KindPatcher::Merge => Patch::Merge(json_merge::create_two_way(original, modified)?),
        })
    }

    /// The patch client-side apply sends: from `current` (the live object) to `modified` (the new
    /// configuration), deleting what `original` (the last applied configuration) had and
    /// `modified` dropped. Unless `overwrite`, changes made by others are conflicts (strategic
    /// merge patches only, as in kubectl).
    pub fn three_way(
        &self,
        original: &Value,
        modified: &Value,
        current: &Value,
        overwrite: bool,
    ) -> Result<Patch, MergeError> {
        Ok(match self {
            KindPatcher::Strategic(schema) => {
                Patch::Strategic(strategic::create_three_way(original, modified, current, schema, overwrite)?)
            }
            KindPatcher::Merge => Patch::Merge(json_merge::create_three_way(original, modified, current)?),
        })
    }

    /// Applies `patch` to `object` as the server would, with this kind's metadata.
    pub fn apply(&self, object: Value, patch: &Patch) -> Result<Value, PatchError> {
        let schema = match self {
            KindPatcher::Strategic(schema) => Some(*schema),
            KindPatcher::Merge => None,
        };
        patch.apply(object, schema)
    }
}

/// JSON first (so that JSON that is not also YAML, e.g. with tabs, still reads), then YAML as
/// kubectl reads it.
fn parse_json_or_yaml(text: &str) -> Result<Value, PatchError> {
    if let Ok(document) = serde_json::from_str(text) {
        return Ok(document);
    }
    // As kubectl reads it: YAML 1.1 (`paused: yes` is true, `y:` the key `true`).
    crate::manifest::yaml_value(text).map_err(|reason| PatchError::Unparsable { text: text.to_string(), reason })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::builtin;
    use serde_json::json;

    #[test]
    fn reads_json_and_yaml() {
        let from_json = Patch::parse(PatchType::Merge, r#"{"spec":{"replicas":2}}"#).unwrap();
        let from_yaml = Patch::parse(PatchType::Merge, "spec:\n  replicas: 2\n").unwrap();
        assert_eq!(from_json, from_yaml);
        assert_eq!(from_json.body(), br#"{"spec":{"replicas":2}}"#);
        assert_eq!(from_json.patch_type().content_type(), "application/merge-patch+json");
        // YAML as kubectl reads it (as `kubectl patch --local -p` did): YAML 1.1, keys included.
        let yaml_11 = Patch::parse(PatchType::Merge, "data: {y: yes, mode: 0777, other: yEs}").unwrap();
        assert_eq!(yaml_11.body(), br#"{"data":{"mode":511,"other":"yEs","true":true}}"#);
    }

    #[test]
    fn rejects_patches_that_cannot_be_right() {
        let unparsable = Patch::parse(PatchType::Strategic, "{bad").unwrap_err();
        assert!(unparsable.to_string().starts_with(r#"unable to parse "{bad": "#), "{unparsable}");
        let list = Patch::parse(PatchType::Strategic, "[1]").unwrap_err();
        assert_eq!(list.to_string(), "a strategic merge patch must be a JSON object, not [1]");
        let not_a_list = Patch::parse(PatchType::Json, r#"{"op":"add"}"#).unwrap_err();
        assert!(matches!(not_a_list, PatchError::JsonPatch(JsonPatchError::Invalid(_))));
        let bad_op = Patch::parse(PatchType::Json, r#"[{"op":"frob","path":"/a"}]"#).unwrap_err();
        assert!(matches!(bad_op, PatchError::JsonPatch(JsonPatchError::Invalid(_))));
    }

    #[test]
    fn applies_with_the_matching_engine() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": {
            "containers": [{"name": "app", "image": "a"}]}}}});
        let add = r#"{"spec":{"template":{"spec":{"containers":[{"name":"log","image":"b"}]}}}}"#;
        let schema = builtin().for_kind("apps/v1", "Deployment");
        let strategic = Patch::parse(PatchType::Strategic, add).unwrap().apply(deployment.clone(), schema).unwrap();
        assert_eq!(strategic["spec"]["template"]["spec"]["containers"].as_array().unwrap().len(), 2);
        let merged = Patch::parse(PatchType::Merge, add).unwrap().apply(deployment.clone(), None).unwrap();
        assert_eq!(merged["spec"]["template"]["spec"]["containers"], json!([{"name": "log", "image": "b"}]));
        let no_schema = Patch::parse(PatchType::Strategic, add).unwrap().apply(deployment.clone(), None);
        assert!(matches!(no_schema, Err(PatchError::NoPatchMetadata)));
        let failed = Patch::parse(PatchType::Json, r#"[{"op":"test","path":"/kind","value":"Pod"}]"#)
            .unwrap()
            .apply(deployment, None)
            .unwrap_err();
        assert!(failed.to_string().contains("test failed"), "{failed}");
    }

    #[test]
    fn built_in_kinds_get_strategic_patches_and_others_merge_patches() {
        let schema = KindSchema::for_builtin(None, "apps/v1", "Deployment").unwrap();
        let container = |image: &str| json!({"name": "app", "image": image});
        let deployment = |image: &str| json!({"spec": {"template": {"spec": {"containers": [container(image)]}}}});
        let patch = KindPatcher::for_kind(Some(&schema)).two_way(&deployment("a:1"), &deployment("a:2")).unwrap();
        let expected = json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "app"}],
            "containers": [{"image": "a:2", "name": "app"}]
        }}}});
        assert_eq!(patch, Patch::Strategic(expected));
        let base = json!({"spec": {"size": 1, "parts": ["a", "b"]}});
        let edited = json!({"spec": {"size": 2, "parts": ["a"]}});
        let patch = KindPatcher::for_kind(None).two_way(&base, &edited).unwrap();
        assert_eq!(patch, Patch::Merge(json!({"spec": {"size": 2, "parts": ["a"]}})));
        assert!(KindPatcher::for_kind(None).three_way(&base, &base, &base, true).unwrap().is_empty());
    }
}
