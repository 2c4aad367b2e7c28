//! Validating an object against its kind's schema by kubectl's rules (kube-openapi's OpenAPI
//! validation, which kubectl runs before sending when the server cannot check fields itself,
//! Kubernetes before 1.25): fields the schema does not declare, required fields missing, values
//! of the wrong type, and `null` where kubectl takes none, each named by its path. Its type rules
//! are kubectl's, lenient on purpose: a string field takes any scalar (so a Quantity or an
//! int-or-string takes `cpu: 0.5`), an integer field any number; what kubectl lets through, the
//! server decides. Pure: no I/O.

use std::fmt;

use serde_json::Value;

use super::{Expected, ListType, LookupPatchMeta, PatchMeta, SchemaNode, Strategy};
use crate::gocompat::json::go_integer;

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
    /// The struct `parent` requires the field `field`, which is missing or `null`.
    MissingField { field: String, parent: String },
    /// The value is of JSON type `got` where the schema `schema` (a definition, or
    /// `Definition.field`) wants `expected`.
    WrongType { schema: String, got: &'static str, expected: String },
    /// The list item `item` (a path) is `null`.
    NullItem { item: String },
    /// The map's value at the path is `null` (kubectl names it without `ValidationError(...)`).
    NullValue,
    /// Two items of a keyed list (by `x-kubernetes-list-map-keys` or patch merge key) or of a set
    /// have the same key, `[name="A"]`: server-side apply refuses them; a create or an update
    /// keeps them all, with a warning for some lists (a Pod's env).
    DuplicateEntries { key: String },
}

impl FieldError {
    /// Whether a server that checks fields itself (`fieldValidation=Strict`) refuses this too: an
    /// unknown field, a value that cannot be decoded as its type, and under server-side apply
    /// (`server_side`) a repeated key. A missing required field or a `null` it may take.
    pub fn refused_by_a_checking_server(&self, server_side: bool) -> bool {
        match self.problem {
            Problem::UnknownField { .. } | Problem::WrongType { .. } => true,
            Problem::DuplicateEntries { .. } => server_side,
            Problem::MissingField { .. } | Problem::NullItem { .. } | Problem::NullValue => false,
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = &self.path;
        match &self.problem {
            Problem::UnknownField { field, parent } => {
                write!(f, "ValidationError({path}): unknown field {field:?} in {parent}")
            }
            Problem::MissingField { field, parent } => {
                write!(f, "ValidationError({path}): missing required field {field:?} in {parent}")
            }
            Problem::WrongType { schema, got, expected } => {
                write!(f, "ValidationError({path}): invalid type for {schema}: got {got:?}, expected {expected:?}")
            }
            Problem::NullItem { item } => write!(f, "ValidationError({path}): unknown object type \"nil\" in {item}"),
            Problem::NullValue => write!(f, "unknown object type \"nil\" in {path}"),
            Problem::DuplicateEntries { key } => {
                write!(f, "ValidationError({path}): duplicate entries for key {key}")
            }
        }
    }
}

/// Everything wrong with `object`, an object of `kind` whose schema is `node`, in kubectl's order:
/// fields by name (as the object holds them), then the required fields a struct misses.
pub fn validate(node: SchemaNode<'_>, kind: &str, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    walk(node, object, &mut kind.to_string(), &mut errors);
    errors
}

/// Checks `value` (not `null`) against `node`; `path` is where it is.
fn walk(node: SchemaNode<'_>, value: &Value, path: &mut String, errors: &mut Vec<FieldError>) {
    let wrong_type = |schema: &str, expected: &str| FieldError {
        path: path.clone(),
        problem: Problem::WrongType {
            schema: schema.to_string(),
            got: json_type(value),
            expected: expected.to_string(),
        },
    };
    let length = path.len();
    match (node.expects(), value) {
        (Expected::Anything, _) => {}
        (Expected::Scalar { kind, name }, value) => {
            if !scalar_fits(kind, value) {
                errors.push(wrong_type(name, kind));
            }
        }
        (Expected::Struct { name, open, required }, Value::Object(fields)) => {
            for (key, child) in fields.iter().filter(|(_, child)| !child.is_null()) {
                match node.declared_field(key) {
                    Some(declared) => {
                        push_field(path, key);
                        if let (Value::Array(items), Ok((_, meta))) = (child, node.lookup_list(key)) {
                            duplicates(items, &meta, path, errors);
                        }
                        walk(declared, child, path, errors);
                        path.truncate(length);
                    }
                    None if open => {}
                    None => {
                        let problem = Problem::UnknownField { field: key.clone(), parent: name.to_string() };
                        errors.push(FieldError { path: path.clone(), problem });
                    }
                }
            }
            for field in required.iter().filter(|field| fields.get(&***field).is_none_or(Value::is_null)) {
                let problem = Problem::MissingField { field: field.to_string(), parent: name.to_string() };
                errors.push(FieldError { path: path.clone(), problem });
            }
        }
        (Expected::Map { values, .. }, Value::Object(entries)) => {
            for (key, child) in entries {
                push_field(path, key);
                if child.is_null() {
                    errors.push(FieldError { path: path.clone(), problem: Problem::NullValue });
                } else {
                    walk(values, child, path, errors);
                }
                path.truncate(length);
            }
        }
        (Expected::List { items, .. }, Value::Array(list)) => {
            for (index, item) in list.iter().enumerate() {
                use std::fmt::Write as _;
                let _ = write!(path, "[{index}]");
                if item.is_null() {
                    let problem = Problem::NullItem { item: path.clone() };
                    path.truncate(length);
                    errors.push(FieldError { path: path.clone(), problem });
                } else {
                    walk(items, item, path, errors);
                    path.truncate(length);
                }
            }
        }
        (Expected::Struct { name, .. } | Expected::Map { name, .. }, _) => errors.push(wrong_type(name, "map")),
        (Expected::List { name, .. }, _) => errors.push(wrong_type(name, "array")),
    }
}

/// The items of a keyed list or a set that repeat a key, each named once (at `path`).
fn duplicates(items: &[Value], meta: &PatchMeta, path: &str, errors: &mut Vec<FieldError>) {
    let keys: Vec<&str> = if !meta.list_map_keys.is_empty() {
        meta.list_map_keys.iter().map(String::as_str).collect()
    } else if meta.strategy == Strategy::Merge {
        meta.merge_key.as_deref().into_iter().collect()
    } else {
        Vec::new()
    };
    let is_set = meta.list_type == Some(ListType::Set) || (meta.strategy == Strategy::Merge && keys.is_empty());
    let mut seen: Vec<String> = Vec::new();
    let mut reported: Vec<String> = Vec::new();
    for item in items.iter().filter(|item| !item.is_null()) {
        let key = match (item, keys.is_empty()) {
            (Value::Object(fields), false) => {
                let pairs: Vec<String> = keys
                    .iter()
                    .map(|key| {
                        // A port's protocol defaults to TCP: `80` and `80/TCP` are one port.
                        let value = match fields.get(*key) {
                            None if *key == "protocol" => Value::String("TCP".into()),
                            None => Value::Null,
                            Some(value) => value.clone(),
                        };
                        format!("{key}={value}")
                    })
                    .collect();
                format!("[{}]", pairs.join(","))
            }
            (Value::Object(_) | Value::Array(_), _) => continue,
            (scalar, true) if is_set => format!("[={scalar}]"),
            _ => continue,
        };
        if seen.contains(&key) {
            if !reported.contains(&key) {
                errors.push(FieldError {
                    path: path.to_string(),
                    problem: Problem::DuplicateEntries { key: key.clone() },
                });
                reported.push(key);
            }
        } else {
            seen.push(key);
        }
    }
}

fn push_field(path: &mut String, key: &str) {
    path.push('.');
    path.push_str(key);
}

/// Whether a scalar schema of JSON type `kind` takes `value`, by kubectl's rules: a string takes
/// any scalar, an integer or a number takes any number, a boolean only a boolean.
fn scalar_fits(kind: &str, value: &Value) -> bool {
    match value {
        Value::Array(_) | Value::Object(_) | Value::Null => false,
        _ if kind == "string" => true,
        Value::Number(_) => matches!(kind, "integer" | "number"),
        Value::Bool(_) => kind == "boolean",
        Value::String(_) => false,
    }
}

/// The type kubectl names for a JSON value. kubectl reads a whole number written as a float
/// (`2.0`, `8.0e1`) as an integer.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number)
            if number.as_f64().filter(|_| number.is_f64()).is_some_and(|float| go_integer(float).is_none()) =>
        {
            "number"
        }
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

    /// The definitions of a Deployment that these tests touch, as Kubernetes 1.20 serves them.
    fn deployment_schema() -> OpenApiSchema {
        let reference = |name: &str| json!({"$ref": format!("#/definitions/{name}")});
        let list = |name: &str| json!({"type": "array", "items": {"$ref": format!("#/definitions/{name}")}});
        let map =
            |name: &str| json!({"type": "object", "additionalProperties": {"$ref": format!("#/definitions/{name}")}});
        let strings = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let document = json!({"definitions": {
            "io.k8s.api.apps.v1.Deployment": {"x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
                "type": "object", "properties": {"metadata": reference("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
                "spec": reference("io.k8s.api.apps.v1.DeploymentSpec")}},
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "properties": {"name": {"type": "string"},
                "labels": strings, "creationTimestamp": reference("io.k8s.apimachinery.pkg.apis.meta.v1.Time")}},
            "io.k8s.apimachinery.pkg.apis.meta.v1.Time": {"type": "string", "format": "date-time"},
            "io.k8s.api.apps.v1.DeploymentSpec": {"type": "object", "required": ["selector", "template"], "properties": {
                "replicas": {"type": "integer", "format": "int32"}, "paused": {"type": "boolean"},
                "selector": reference("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"),
                "strategy": {"type": "object", "properties": {"rollingUpdate": {"type": "object", "properties": {
                    "maxSurge": reference("io.k8s.apimachinery.pkg.util.intstr.IntOrString"),
                    "maxUnavailable": reference("io.k8s.apimachinery.pkg.util.intstr.IntOrString")}}}},
                "template": {"type": "object", "properties": {"metadata": reference("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
                    "spec": reference("io.k8s.api.core.v1.PodSpec")}}}},
            "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {"type": "object", "properties": {"matchLabels": strings}},
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": "string", "format": "int-or-string"},
            "io.k8s.api.core.v1.PodSpec": {"type": "object", "required": ["containers"], "properties": {"containers": list("io.k8s.api.core.v1.Container")}},
            "io.k8s.api.core.v1.Container": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"},
                "image": {"type": "string"}, "ports": list("io.k8s.api.core.v1.ContainerPort"),
                "resources": {"type": "object", "properties": {"limits": map("io.k8s.apimachinery.pkg.api.resource.Quantity")}}}},
            "io.k8s.api.core.v1.ContainerPort": {"type": "object", "required": ["containerPort"], "properties": {"containerPort": {"type": "integer", "format": "int32"}}},
            "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"}
        }});
        OpenApiSchema::from_document(&document).unwrap()
    }

    fn messages(object: &Value) -> Vec<String> {
        let schema = deployment_schema();
        let node = schema.for_kind("apps/v1", "Deployment").unwrap();
        validate(node, "Deployment", object).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn unknown_fields_are_named_with_their_path_and_parent() {
        let node = builtin().for_kind("apps/v1", "Deployment").unwrap();
        let typos = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "b"}},
            "spec": {"replica": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {
                "containers": [{"name": "app", "image": "nginx", "portz": [{"containerPort": 80}]}]}}}});
        let found: Vec<String> = validate(node, "Deployment", &typos).iter().map(ToString::to_string).collect();
        assert_eq!(
            found,
            [
                r#"ValidationError(Deployment.spec): unknown field "replica" in io.k8s.api.apps.v1.DeploymentSpec"#,
                r#"ValidationError(Deployment.spec.template.spec.containers[0]): unknown field "portz" in io.k8s.api.core.v1.Container"#,
            ]
        );
    }

    #[test]
    fn values_are_checked_by_kubectls_rules() {
        // kubectl 1.32 against a 1.20 server says exactly these, in this order, for this object.
        let wrong = json!({"metadata": {"name": "web", "labels": {"a": 1, "b": null}},
            "spec": {"replicas": 2.5, "paused": 2.0, "selector": [], "strategy": {"rollingUpdate": {"maxSurge": [1]}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"image": "nginx",
                    "ports": [{"containerPort": 8.0e1}, null], "resources": {"limits": {"cpu": null, "memory": [1]}}}]}}}});
        assert_eq!(
            messages(&wrong),
            [
                r#"unknown object type "nil" in Deployment.metadata.labels.b"#,
                r#"ValidationError(Deployment.spec.paused): invalid type for io.k8s.api.apps.v1.DeploymentSpec.paused: got "integer", expected "boolean""#,
                r#"ValidationError(Deployment.spec.selector): invalid type for io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector: got "array", expected "map""#,
                r#"ValidationError(Deployment.spec.strategy.rollingUpdate.maxSurge): invalid type for io.k8s.apimachinery.pkg.util.intstr.IntOrString: got "array", expected "string""#,
                r#"ValidationError(Deployment.spec.template.spec.containers[0].ports): unknown object type "nil" in Deployment.spec.template.spec.containers[0].ports[1]"#,
                r#"unknown object type "nil" in Deployment.spec.template.spec.containers[0].resources.limits.cpu"#,
                r#"ValidationError(Deployment.spec.template.spec.containers[0].resources.limits.memory): invalid type for io.k8s.apimachinery.pkg.api.resource.Quantity: got "array", expected "string""#,
                r#"ValidationError(Deployment.spec.template.spec.containers[0]): missing required field "name" in io.k8s.api.core.v1.Container"#,
            ]
        );
        let types =
            json!({"spec": {"replicas": "3", "paused": 0.5, "template": {"spec": {"containers": {"name": "app"}}}}});
        assert_eq!(
            messages(&types),
            [
                r#"ValidationError(Deployment.spec.paused): invalid type for io.k8s.api.apps.v1.DeploymentSpec.paused: got "number", expected "boolean""#,
                r#"ValidationError(Deployment.spec.replicas): invalid type for io.k8s.api.apps.v1.DeploymentSpec.replicas: got "string", expected "integer""#,
                r#"ValidationError(Deployment.spec.template.spec.containers): invalid type for io.k8s.api.core.v1.PodSpec.containers: got "map", expected "array""#,
                r#"ValidationError(Deployment.spec): missing required field "selector" in io.k8s.api.apps.v1.DeploymentSpec"#,
            ]
        );
    }

    #[test]
    fn numbers_where_strings_are_expected_and_nulls_in_structs_are_taken() {
        let taken = json!({"metadata": {"name": 1, "labels": {"a": true}}, "spec": {"replicas": null,
            "selector": {"matchLabels": {"app": "web"}}, "strategy": {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0.5}},
            "template": {"spec": {"containers": [{"name": "app", "resources": {"limits": {"cpu": 0.5, "memory": 1e3}}}]}}}});
        assert_eq!(messages(&taken), Vec::<String>::new());
    }

    #[test]
    fn openapi_v3_documents_are_checked_by_the_same_rules() {
        // As a 1.27 server serves `/openapi/v3/apis/apps/v1`: references through `allOf`, the
        // int-or-string extension, and Quantity a plain string.
        let document = json!({"components": {"schemas": {
            "io.k8s.api.apps.v1.Deployment": {"type": "object",
                "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
                "properties": {"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}], "default": {}}}},
            "io.k8s.api.apps.v1.DeploymentSpec": {"type": "object", "required": ["selector"], "properties": {
                "selector": {"type": "object"}, "replicas": {"type": "integer", "format": "int32"},
                "maxSurge": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}]},
                "limits": {"type": "object", "additionalProperties": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}], "default": {}}}}},
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"type": "string", "format": "int-or-string", "x-kubernetes-int-or-string": true},
            "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"}
        }}});
        let schema = OpenApiSchema::from_document(&document).unwrap();
        let node = schema.for_kind("apps/v1", "Deployment").unwrap();
        let check = |object: Value| -> Vec<String> {
            validate(node, "Deployment", &object).iter().map(ToString::to_string).collect()
        };
        assert_eq!(
            check(
                json!({"spec": {"selector": {}, "replicas": 2.0, "maxSurge": "25%", "limits": {"cpu": 0.5, "memory": "1Gi"}}})
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            check(json!({"spec": {"replicas": "2", "maxSurge": {"a": 1}, "limits": {"cpu": null}}})),
            [
                r#"unknown object type "nil" in Deployment.spec.limits.cpu"#,
                r#"ValidationError(Deployment.spec.maxSurge): invalid type for io.k8s.apimachinery.pkg.util.intstr.IntOrString: got "map", expected "string""#,
                r#"ValidationError(Deployment.spec.replicas): invalid type for io.k8s.api.apps.v1.DeploymentSpec.replicas: got "string", expected "integer""#,
                r#"ValidationError(Deployment.spec): missing required field "selector" in io.k8s.api.apps.v1.DeploymentSpec"#,
            ]
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

#[cfg(test)]
mod duplicate_tests {
    use super::*;
    use crate::schema::builtin;
    use serde_json::json;

    fn errors_of(document: &Value) -> Vec<String> {
        let node = builtin().for_kind("apps/v1", "Deployment").expect("built in");
        validate(node, "Deployment", document).iter().map(ToString::to_string).collect()
    }

    fn deployment(container: Value) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
                "metadata": {"labels": {"app": "web"}}, "spec": {"containers": [container]}}}
        })
    }

    #[test]
    fn repeated_keys_of_keyed_lists_are_named() {
        let env = json!({"name": "app", "image": "nginx", "env": [
            {"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "2"}, {"name": "A"}]});
        assert_eq!(
            errors_of(&deployment(env)),
            [
                "ValidationError(Deployment.spec.template.spec.containers[0].env): duplicate entries for key [name=\"A\"]"
            ]
        );
        let ports = json!({"name": "app", "image": "nginx", "ports": [
            {"containerPort": 80}, {"containerPort": 80, "protocol": "UDP"}, {"containerPort": 80, "protocol": "TCP"}]});
        let errors = errors_of(&deployment(ports));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].ends_with("duplicate entries for key [containerPort=80,protocol=\"TCP\"]"), "{errors:?}");
        let distinct = json!({"name": "app", "image": "nginx", "env": [{"name": "A"}, {"name": "B"}]});
        assert!(errors_of(&deployment(distinct)).is_empty());
    }
}
