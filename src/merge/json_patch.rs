//! JSON patch (RFC 6902): all six operations, with errors that say which operation failed and why.

use json_patch::{Patch, PatchErrorKind, PatchOperation};
use serde_json::Value;

/// Why a JSON patch could not be read or applied.
#[derive(Debug, thiserror::Error)]
pub enum JsonPatchError {
    #[error("invalid JSON patch: {0}")]
    Invalid(String),
    #[error("JSON patch operation {index} ({op} {path}): {reason}")]
    Failed { index: usize, op: &'static str, path: String, reason: String },
}

/// Reads a JSON patch: a list of operations.
pub fn parse(patch: &Value) -> Result<Patch, JsonPatchError> {
    if !patch.is_array() {
        return Err(JsonPatchError::Invalid(format!(
            "expected a list of operations, got {}",
            super::error::brief(patch)
        )));
    }
    serde_json::from_value(patch.clone()).map_err(|err| JsonPatchError::Invalid(err.to_string()))
}

/// Applies every operation, or none: on failure the document is left as it was.
pub fn apply(document: &mut Value, patch: &Patch) -> Result<(), JsonPatchError> {
    // Work on a copy, so that a failure can report the document as that operation saw it.
    let mut work = document.clone();
    json_patch::patch_unsafe(&mut work, patch).map_err(|err| {
        let operation = &patch.0[err.operation];
        let (op, path) = describe(operation);
        let reason = match (&err.kind, operation) {
            (PatchErrorKind::TestFailed, PatchOperation::Test(test)) => {
                let actual = work.pointer(&test.path.to_string()).map_or("nothing".to_string(), Value::to_string);
                format!("test failed: the value is {actual}, the test expects {}", test.value)
            }
            (PatchErrorKind::InvalidPointer, PatchOperation::Add(_)) => "the parent of this path does not exist".into(),
            (PatchErrorKind::InvalidPointer, _) => "this path does not exist".into(),
            (PatchErrorKind::InvalidFromPointer, _) => "the \"from\" path does not exist".into(),
            (kind, _) => kind.to_string(),
        };
        JsonPatchError::Failed { index: err.operation, op, path, reason }
    })?;
    *document = work;
    Ok(())
}

fn describe(operation: &PatchOperation) -> (&'static str, String) {
    match operation {
        PatchOperation::Add(op) => ("add", op.path.to_string()),
        PatchOperation::Remove(op) => ("remove", op.path.to_string()),
        PatchOperation::Replace(op) => ("replace", op.path.to_string()),
        PatchOperation::Move(op) => ("move", op.path.to_string()),
        PatchOperation::Copy(op) => ("copy", op.path.to_string()),
        PatchOperation::Test(op) => ("test", op.path.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(document: Value, patch: Value) -> Result<Value, JsonPatchError> {
        let mut document = document;
        apply(&mut document, &parse(&patch)?)?;
        Ok(document)
    }

    #[test]
    fn all_six_operations() {
        let document = json!({"a": 1, "list": [1, 2], "obj": {"x": "y"}});
        let patch = json!([
            {"op": "test", "path": "/a", "value": 1},
            {"op": "add", "path": "/list/1", "value": 9},
            {"op": "replace", "path": "/a", "value": 2},
            {"op": "copy", "from": "/obj", "path": "/copy"},
            {"op": "move", "from": "/obj/x", "path": "/moved"},
            {"op": "remove", "path": "/list/0"}
        ]);
        assert_eq!(
            run(document, patch).unwrap(),
            json!({"a": 2, "list": [9, 2], "obj": {}, "copy": {"x": "y"}, "moved": "y"})
        );
    }

    #[test]
    fn failures_name_the_operation_and_leave_the_document_alone() {
        let mut document = json!({"spec": {"replicas": 3}});
        let patch = parse(&json!([
            {"op": "replace", "path": "/spec/replicas", "value": 4},
            {"op": "test", "path": "/spec/replicas", "value": 5}
        ]))
        .unwrap();
        let err = apply(&mut document, &patch).unwrap_err().to_string();
        assert_eq!(
            err,
            "JSON patch operation 1 (test /spec/replicas): test failed: the value is 4, the test expects 5"
        );
        assert_eq!(document, json!({"spec": {"replicas": 3}}));
        let err = run(json!({}), json!([{"op": "replace", "path": "/spec/x", "value": 1}])).unwrap_err();
        assert_eq!(err.to_string(), "JSON patch operation 0 (replace /spec/x): this path does not exist");
        assert!(matches!(run(json!({}), json!({"op": "add"})), Err(JsonPatchError::Invalid(_))));
        assert!(matches!(run(json!({}), json!([{"op": "frobnicate", "path": "/a"}])), Err(JsonPatchError::Invalid(_))));
    }
}
