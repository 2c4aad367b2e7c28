//! From an edited object back to the object it was fetched as.

use serde_json::Value;

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
}
