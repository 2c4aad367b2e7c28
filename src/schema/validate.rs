//! Validating an object against its kind's schema, as kubectl does before sending when the server
//! cannot (Kubernetes before 1.25): every field the schema does not declare, and every value of
//! the wrong type, named by its path. Pure: no I/O.

use std::fmt;

use serde_json::Value;

use super::{Expected, SchemaNode};

/// One thing wrong with an object, in kubectl's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Where, from the kind: `Deployment.spec.template.spec.containers[0]`.
    pub path: String,
    pub problem: Problem,
}

/// What is wrong at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The struct `parent` (a definition name) declares no field `field`.
    UnknownField { field: String, parent: String },
    /// The value is of JSON type `got` where the schema of `field` (`Definition.field`) wants
    /// `expected`.
    WrongType { field: String, got: &'static str, expected: String },
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            Problem::UnknownField { field, parent } => {
                write!(f, "ValidationError({}): unknown field {field:?} in {parent}", self.path)
            }
            Problem::WrongType { field, got, expected } => {
                write!(
                    f,
                    "ValidationError({}): invalid type for {field}: got {got:?}, expected {expected:?}",
                    self.path
                )
            }
        }
    }
}

/// Everything wrong with `object`, an object of `kind` whose schema is `node`, in document order
/// (keys sorted, as the object holds them).
pub fn validate(node: SchemaNode<'_>, kind: &str, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    walk(node, object, &mut kind.to_string(), Holder { parent: kind, field: None }, &mut errors);
    errors
}

/// The schema that holds a value: a struct's field (`Definition.field`), or the kind itself.
#[derive(Clone, Copy)]
struct Holder<'a> {
    parent: &'a str,
    field: Option<&'a str>,
}

impl Holder<'_> {
    fn name(self) -> String {
        match self.field {
            Some(field) => format!("{}.{field}", self.parent),
            None => self.parent.to_string(),
        }
    }
}

/// Checks `value` against `node`; `path` is where it is, `holder` the schema that holds it.
fn walk(node: SchemaNode<'_>, value: &Value, path: &mut String, holder: Holder<'_>, errors: &mut Vec<FieldError>) {
    if let Some(expected) = mismatch(node, value) {
        let problem = Problem::WrongType { field: holder.name(), got: json_type(value), expected };
        errors.push(FieldError { path: path.clone(), problem });
        return;
    }
    let length = path.len();
    match (node.expects(), value) {
        (Expected::Struct { name, open }, Value::Object(fields)) => {
            for (key, child) in fields.iter().filter(|(_, child)| !child.is_null()) {
                match node.declared_field(key) {
                    Some(declared) => {
                        path.push('.');
                        path.push_str(key);
                        walk(declared, child, path, Holder { parent: name, field: Some(key) }, errors);
                        path.truncate(length);
                    }
                    None if open => {}
                    None => {
                        let problem = Problem::UnknownField { field: key.clone(), parent: name.to_string() };
                        errors.push(FieldError { path: path.clone(), problem });
                    }
                }
            }
        }
        (Expected::Map { values }, Value::Object(entries)) => {
            for (key, child) in entries.iter().filter(|(_, child)| !child.is_null()) {
                path.push('.');
                path.push_str(key);
                walk(values, child, path, holder, errors);
                path.truncate(length);
            }
        }
        (Expected::List { items }, Value::Array(list)) => {
            for (index, item) in list.iter().enumerate() {
                use std::fmt::Write as _;
                let _ = write!(path, "[{index}]");
                walk(items, item, path, holder, errors);
                path.truncate(length);
            }
        }
        _ => {}
    }
}

/// The JSON type the schema wants, when `value` is not of it.
fn mismatch(node: SchemaNode<'_>, value: &Value) -> Option<String> {
    let fits = match (node.expects(), value) {
        (Expected::Anything, _) => true,
        (Expected::Scalar("string"), Value::String(_)) => true,
        (Expected::Scalar("boolean"), Value::Bool(_)) => true,
        (Expected::Scalar("integer"), Value::Number(number)) => number.is_i64() || number.is_u64(),
        (Expected::Scalar("number"), Value::Number(_)) => true,
        (Expected::Scalar(_), _) => false,
        (Expected::Struct { .. } | Expected::Map { .. }, Value::Object(_)) => true,
        (Expected::List { .. }, Value::Array(_)) => true,
        _ => false,
    };
    (!fits).then(|| match node.expects() {
        Expected::Scalar(kind) => kind.to_string(),
        Expected::List { .. } => "array".to_string(),
        _ => "map".to_string(),
    })
}

/// The type kubectl names for a JSON value.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{OpenApiSchema, builtin};
    use serde_json::json;

    fn messages(object: &Value) -> Vec<String> {
        let node = builtin().for_kind("apps/v1", "Deployment").unwrap();
        validate(node, "Deployment", object).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn unknown_fields_are_named_with_their_path_and_parent() {
        let typos = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "b"}},
            "spec": {"replica": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {
                "containers": [{"name": "app", "image": "nginx", "portz": [{"containerPort": 80}]}]}}}});
        assert_eq!(
            messages(&typos),
            [
                r#"ValidationError(Deployment.spec): unknown field "replica" in io.k8s.api.apps.v1.DeploymentSpec"#,
                r#"ValidationError(Deployment.spec.template.spec.containers[0]): unknown field "portz" in io.k8s.api.core.v1.Container"#,
            ]
        );
    }

    #[test]
    fn values_of_the_wrong_type_are_named() {
        let wrong = json!({"metadata": {"labels": {"a": 1}}, "spec": {"replicas": "3", "paused": 1, "selector": [],
            "strategy": {"rollingUpdate": {"maxSurge": "25%"}}, "template": {"spec": {"containers": {"name": "app"}}}}});
        assert_eq!(
            messages(&wrong),
            [
                r#"ValidationError(Deployment.metadata.labels.a): invalid type for io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.labels: got "integer", expected "string""#,
                r#"ValidationError(Deployment.spec.paused): invalid type for io.k8s.api.apps.v1.DeploymentSpec.paused: got "integer", expected "boolean""#,
                r#"ValidationError(Deployment.spec.replicas): invalid type for io.k8s.api.apps.v1.DeploymentSpec.replicas: got "string", expected "integer""#,
                r#"ValidationError(Deployment.spec.selector): invalid type for io.k8s.api.apps.v1.DeploymentSpec.selector: got "array", expected "map""#,
                r#"ValidationError(Deployment.spec.template.spec.containers): invalid type for io.k8s.api.core.v1.PodSpec.containers: got "map", expected "array""#,
            ]
        );
        assert!(
            messages(&json!({"spec": {"replicas": null, "strategy": {"rollingUpdate": {"maxSurge": 1}}}})).is_empty()
        );
    }

    #[test]
    fn preserved_unknown_fields_and_int_or_string_take_anything() {
        let document = json!({"definitions": {"example.v1.Widget": {
        "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Widget"}],
        "properties": {
            "spec": {"properties": {"size": {"type": "integer"}, "port": {"format": "int-or-string", "type": "string"},
                     "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                     "open": {"properties": {"known": {"type": "string"}}, "x-kubernetes-preserve-unknown-fields": true}}}
        }}}});
        let schema = OpenApiSchema::from_document(&document).unwrap();
        let node = schema.for_kind("example.com/v1", "Widget").unwrap();
        let widget = json!({"spec": {"size": 1, "port": 80, "extra": {"any": {"thing": 1}}, "open": {"known": "a", "other": 2}, "sise": 2}});
        let found: Vec<String> = validate(node, "Widget", &widget).iter().map(ToString::to_string).collect();
        assert_eq!(found, [r#"ValidationError(Widget.spec): unknown field "sise" in example.v1.Widget.spec"#]);
    }
}
