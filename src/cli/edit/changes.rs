//! From an edited object back to the object it was fetched as, and the patch between them.

use serde_json::Value;

use crate::merge::{self, MergeError, PatchType};
use crate::schema::KindSchema;

/// kubectl's words for an edit that changed what identifies the object.
pub(super) const IDENTITY_CHANGED: &str = "At least one of apiVersion, kind and name was changed";

/// Which of the `fetched` objects `edited` is: the one with its `metadata.uid`, or, when the user
/// removed the uid, the one with its kind, namespace and name.
pub(super) fn find_fetched<'a>(fetched: impl IntoIterator<Item = &'a Value>, edited: &Value) -> Option<usize> {
    let uid = |object: &Value| object.pointer("/metadata/uid").and_then(Value::as_str).map(str::to_owned);
    let identity = |object: &Value| {
        ["/kind", "/metadata/namespace", "/metadata/name"].map(|pointer| object.pointer(pointer).cloned())
    };
    let edited_uid = uid(edited);
    fetched.into_iter().position(|object| match &edited_uid {
        Some(edited_uid) => uid(object).as_ref() == Some(edited_uid),
        None => identity(object) == identity(edited),
    })
}

/// Whether `edited` still has the `apiVersion`, `kind` and `metadata.name` it was fetched with:
/// a patch cannot change them.
pub(super) fn same_identity(fetched: &Value, edited: &Value) -> bool {
    ["/apiVersion", "/kind", "/metadata/name"].iter().all(|pointer| fetched.pointer(pointer) == edited.pointer(pointer))
}

/// The patch from `base` (what the server has from this session) to `edited`: a strategic merge
/// patch for built-in kinds, a JSON merge patch for the others (custom resources).
pub(super) fn two_way_patch(
    base: &Value,
    edited: &Value,
    schema: Option<&KindSchema>,
) -> Result<(PatchType, Value), MergeError> {
    match schema {
        Some(schema) => Ok((PatchType::Strategic, merge::strategic::create_two_way(base, edited, &schema.node())?)),
        None => Ok((PatchType::Merge, merge::json_merge::create_two_way(base, edited)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(kind: &str, name: &str, uid: Option<&str>) -> Value {
        let mut object = json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "ns"}});
        if let Some(uid) = uid {
            object["metadata"]["uid"] = json!(uid);
        }
        object
    }

    #[test]
    fn edited_objects_are_found_by_uid_else_by_identity() {
        let fetched = [object("ConfigMap", "a", Some("1")), object("Secret", "a", Some("2"))];
        assert_eq!(find_fetched(&fetched, &object("Secret", "a", Some("2"))), Some(1));
        assert_eq!(find_fetched(&fetched, &object("Secret", "renamed", Some("2"))), Some(1));
        assert_eq!(find_fetched(&fetched, &object("ConfigMap", "a", None)), Some(0));
        assert_eq!(find_fetched(&fetched, &object("ConfigMap", "b", None)), None);
        assert_eq!(find_fetched(&fetched, &object("ConfigMap", "a", Some("3"))), None);
    }

    #[test]
    fn identity_is_api_version_kind_and_name() {
        let fetched = object("ConfigMap", "a", Some("1"));
        let mut edited = fetched.clone();
        edited["data"] = json!({"k": "v"});
        edited["metadata"]["labels"] = json!({"x": "y"});
        assert!(same_identity(&fetched, &edited));
        for (pointer, value) in [("/apiVersion", "v2"), ("/kind", "Secret")] {
            let mut changed = edited.clone();
            *changed.pointer_mut(pointer).unwrap() = json!(value);
            assert!(!same_identity(&fetched, &changed), "{pointer}");
        }
        assert!(!same_identity(&fetched, &object("ConfigMap", "b", Some("1"))));
    }

    #[test]
    fn custom_resources_get_json_merge_patches() {
        let base = json!({"spec": {"size": 1, "parts": ["a", "b"]}});
        let edited = json!({"spec": {"size": 2, "parts": ["a"]}});
        let (patch_type, patch) = two_way_patch(&base, &edited, None).unwrap();
        assert_eq!(patch_type, PatchType::Merge);
        assert_eq!(patch, json!({"spec": {"size": 2, "parts": ["a"]}}));
    }

    #[test]
    fn built_in_kinds_get_strategic_patches() {
        let schema = KindSchema::for_builtin(None, "apps/v1", "Deployment").unwrap();
        let container = |image: &str| json!({"name": "app", "image": image});
        let deployment = |image: &str| json!({"spec": {"template": {"spec": {"containers": [container(image)]}}}});
        let (patch_type, patch) = two_way_patch(&deployment("a:1"), &deployment("a:2"), Some(&schema)).unwrap();
        assert_eq!(patch_type, PatchType::Strategic);
        let expected = json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "app"}],
            "containers": [{"image": "a:2", "name": "app"}]
        }}}});
        assert_eq!(patch, expected);
    }
}
