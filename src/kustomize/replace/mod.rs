//! `replacements` and `vars`: a value taken from one resource's field and written into fields of
//! others, as kustomize v5.8.1 does. [`replacements`] run as the last transformer of each
//! kustomization; [`vars`] are declared at each level and substituted once, at the end of the
//! build, after every rename. Both select resources by kustomize's ids ([`Id`]), which include the
//! names and namespaces a resource had before; both take kustomize's dotted [`path`]s.

mod path;
pub mod replacements;
pub mod vars;

use serde_json::Value;

use super::build::Resource;
use super::field_specs::group_version;
use super::transform::{effective_namespace, is_cluster_scoped};

/// kustomize's resource id (`resid.ResId`); as a selector, empty fields select anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Id {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

impl Id {
    /// Whether this selector selects `id`: every field it sets is equal (namespaces compared as
    /// kustomize compares them, unset being `default`).
    pub fn selects(&self, id: &Id) -> bool {
        (self.name.is_empty() || self.name == id.name)
            && (self.namespace.is_empty() || self.effective_namespace() == id.effective_namespace())
            && (self.group.is_empty() || self.group == id.group)
            && (self.version.is_empty() || self.version == id.version)
            && (self.kind.is_empty() || self.kind == id.kind)
    }

    pub fn is_empty(&self) -> bool {
        self == &Id::default()
    }

    fn is_cluster_scoped(&self) -> bool {
        is_cluster_scoped(&self.kind)
    }

    /// The namespace kustomize compares: none for cluster-scoped kinds, `default` when unset.
    fn effective_namespace(&self) -> &str {
        effective_namespace(&self.kind, &self.namespace)
    }

    /// Group, version and kind as kustomize prints them: `Service.v1.[noGrp]`.
    pub fn gvk_text(&self) -> String {
        let or = |text: &str, missing: &str| if text.is_empty() { missing.to_string() } else { text.to_string() };
        format!("{}.{}.{}", or(&self.kind, "[noKind]"), or(&self.version, "[noVer]"), or(&self.group, "[noGrp]"))
    }

    /// The whole id as kustomize prints it: `Service.v1.[noGrp]/web.[noNs]`.
    pub fn text(&self) -> String {
        let or = |text: &str, missing: &str| if text.is_empty() { missing.to_string() } else { text.to_string() };
        format!("{}/{}.{}", self.gvk_text(), or(&self.name, "[noName]"), or(&self.namespace, "[noNs]"))
    }
}

/// `resource`'s ids: the one it has now, then the ones it had before.
pub fn ids(resource: &Resource) -> Vec<Id> {
    let (group, version) = group_version(&resource.object);
    let id = |name: &str, namespace: &str| Id {
        group: group.to_string(),
        version: version.to_string(),
        kind: resource.kind().to_string(),
        name: name.to_string(),
        namespace: namespace.to_string(),
    };
    let current = id(resource.name(), resource.namespace());
    let previous = resource.previous_ids.iter().map(|previous| id(&previous.name, &previous.namespace));
    [current].into_iter().chain(previous).collect()
}

/// `text` as a plain YAML scalar (go-yaml v3's resolution): null, a boolean, a number, or a string.
pub fn plain_scalar(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Ok(integer) = text.parse::<i64>() {
        return Value::from(integer);
    }
    let numeric = text.bytes().all(|byte| byte.is_ascii_digit() || b".eE+-".contains(&byte))
        && text.bytes().any(|byte| byte.is_ascii_digit());
    match text.parse::<f64>() {
        // Whole numbers print without a fraction, as kustomize's output prints them.
        Ok(float) if numeric && float.fract() == 0.0 && float.abs() < 9e15 => Value::from(float as i64),
        Ok(float) if numeric => serde_json::Number::from_f64(float).map_or(Value::String(text.into()), Value::Number),
        _ => Value::String(text.into()),
    }
}

/// The YAML tag of a scalar, as go-yaml names it in its errors.
fn tag(value: &Value) -> &'static str {
    match value {
        Value::Null => "!!null",
        Value::Bool(_) => "!!bool",
        Value::Number(number) if number.is_f64() => "!!float",
        Value::Number(_) => "!!int",
        Value::String(_) => "!!str",
        Value::Array(_) => "!!seq",
        Value::Object(_) => "!!map",
    }
}

/// Sets the scalar `target` to `text` as kustomize does: the target keeps its type (a string
/// stays a string, a number must get a number), and a field just created takes `text` as a plain
/// YAML scalar.
pub fn set_scalar(target: &mut Value, text: &str, created: bool) -> Result<(), String> {
    let resolved = plain_scalar(text);
    let fits = match (&*target, &resolved) {
        _ if created => true,
        (Value::String(_), _) => {
            *target = Value::String(text.to_string());
            return Ok(());
        }
        (Value::Number(number), Value::Number(_)) if number.is_f64() => true,
        (Value::Number(_), Value::Number(new)) => !new.is_f64(),
        (Value::Bool(_), Value::Bool(_)) | (Value::Null, Value::Null) => true,
        _ => false,
    };
    if !fits {
        return Err(format!("yaml: cannot decode {} `{text}` as a {}", tag(&resolved), tag(target)));
    }
    *target = resolved;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_keep_their_type_and_new_ones_resolve_plainly() {
        assert_eq!(plain_scalar("42"), json!(42));
        assert_eq!(plain_scalar("1.50"), json!(1.5));
        assert_eq!(plain_scalar("true"), json!(true));
        assert_eq!(plain_scalar("yes"), json!("yes"));
        assert_eq!(plain_scalar("~"), Value::Null);
        assert_eq!(plain_scalar("1e3"), json!(1000));
        assert_eq!(plain_scalar("inf"), json!("inf"));

        let mut target = json!("a");
        set_scalar(&mut target, "42", false).unwrap();
        assert_eq!(target, json!("42"));
        let mut target = json!(1);
        set_scalar(&mut target, "42", false).unwrap();
        assert_eq!(target, json!(42));
        assert_eq!(set_scalar(&mut target, "hello", false), Err("yaml: cannot decode !!str `hello` as a !!int".into()));
        assert_eq!(
            set_scalar(&mut json!(1), "true", false),
            Err("yaml: cannot decode !!bool `true` as a !!int".into())
        );
        assert_eq!(set_scalar(&mut Value::Null, "x", false), Err("yaml: cannot decode !!str `x` as a !!null".into()));
        let mut created = Value::Null;
        set_scalar(&mut created, "true", true).unwrap();
        assert_eq!(created, json!(true));
    }

    #[test]
    fn ids_select_by_set_fields_and_effective_namespaces() {
        let id = Id { version: "v1".into(), kind: "Service".into(), name: "web".into(), ..Id::default() };
        let by = |namespace: &str, name: &str| Id { namespace: namespace.into(), name: name.into(), ..Id::default() };
        assert!(by("", "web").selects(&id) && by("default", "").selects(&id));
        assert!(!by("prod", "").selects(&id) && !by("", "db").selects(&id));
        assert_eq!(id.text(), "Service.v1.[noGrp]/web.[noNs]");
        assert_eq!(Id::default().text(), "[noKind].[noVer].[noGrp]/[noName].[noNs]");
    }
}
