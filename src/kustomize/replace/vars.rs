//! `vars` (deprecated, still used by older kubebuilder layouts): each kustomization declares
//! vars naming a resource (`objref`) and a field of it (`fieldref`); once the whole build is done,
//! after every rename, `$(NAME)` is replaced by that field's value in the fields of the
//! varReference table (containers' command, args and env values, labels, annotations, ...).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::path;
use crate::kustomize::error::Error;
use crate::kustomize::resource::Resource;
use crate::kustomize::types::field_specs::FieldSpec;
use crate::kustomize::types::var::Var;

/// The vars declared so far, by name; a name may be declared once in a build.
#[derive(Debug, Clone, Default)]
pub struct Vars(BTreeMap<String, Var>);

impl Vars {
    /// Adds the vars of a base or component (`other`), refusing a name declared twice.
    pub fn merge(&mut self, other: Vars) -> Result<(), Error> {
        other.0.into_values().try_for_each(|var| self.add(var))
    }

    fn add(&mut self, var: Var) -> Result<(), Error> {
        if self.0.contains_key(&var.name) {
            return Err(Error::VarRedeclared(var.name));
        }
        self.0.insert(var.name.clone(), var.defaulted());
        Ok(())
    }
}

/// Declares a kustomization's `vars` over the resources built so far at its level: each var
/// is tied to the one resource its `objref` names (by any name the resource had), then added.
pub fn declare(vars: &mut Vars, declared: &[Var], resources: &mut [Resource]) -> Result<(), Error> {
    tie_and_add(vars, declared, resources).map_err(|source| {
        let listed: Vec<String> = declared.iter().map(Var::text).collect();
        Error::MergingVars { vars: listed.join(" "), source: Box::new(source) }
    })
}

fn tie_and_add(vars: &mut Vars, declared: &[Var], resources: &mut [Resource]) -> Result<(), Error> {
    for var in declared {
        let wanted = var.id();
        // An objref without a namespace names a resource in any namespace.
        let exact_namespace = !wanted.namespace.is_empty() || wanted.is_cluster_scoped();
        let matched: Vec<usize> = (0..resources.len())
            .filter(|&index| {
                resources[index].ids().iter().any(|id| {
                    id.group == wanted.group
                        && id.version == wanted.version
                        && id.kind == wanted.kind
                        && id.name == wanted.name
                        && (!exact_namespace || id.effective_namespace() == wanted.effective_namespace())
                })
            })
            .collect();
        match matched.as_slice() {
            [] => {}
            [index] => resources[*index].var_names.push(var.name.clone()),
            _ => {
                return Err(Error::AmbiguousVar { count: matched.len(), var: var.with_api_version().text() });
            }
        }
    }
    declared.iter().try_for_each(|var| vars.add(var.clone()))
}

/// Replaces `$(NAME)` with the vars' values in the fields `var_reference` lists (kustomize's
/// built-in table, which `configurations` may extend), in every resource. `$$` is a `$`. Returns
/// the names of the vars that replaced nothing, which kustomize reports.
pub fn substitute(resources: &mut [Resource], vars: &Vars, var_reference: &[FieldSpec]) -> Result<Vec<String>, Error> {
    if vars.0.is_empty() {
        return Ok(Vec::new());
    }
    let mut values = BTreeMap::new();
    for (name, var) in &vars.0 {
        let resource = resources
            .iter()
            .find(|resource| resource.var_names.contains(name))
            .ok_or_else(|| Error::UnmappedVar(var.text()))?;
        let path = slice_indexes_split(&path::split(&var.fieldref.field_path));
        let value = match path::lookup(&resource.object, &path) {
            Ok(Some(value)) => value.clone(),
            _ => return Err(Error::VarFieldMissing(var.text())),
        };
        values.insert(name.clone(), value);
    }
    let mut used = BTreeSet::new();
    for resource in resources.iter_mut() {
        resource.change_in_place(|object, _| {
            for spec in var_reference {
                spec.apply(object, &mut |field| substitute_in(field, &values, &mut used));
            }
        });
        // kustomize keeps a renamed resource's previous names in annotations, where a var that
        // was in its name is found (and counted as used) even after the rename.
        if let Some(annotations) = resource.previous_id_annotations() {
            let mut kept = json!({
                "apiVersion": resource.api_version(),
                "kind": resource.kind(),
                "metadata": {"name": resource.name(), "annotations": annotations},
            });
            for spec in var_reference {
                spec.apply(&mut kept, &mut |field| {
                    substitute_in(field, &values, &mut used);
                });
            }
        }
    }
    Ok(values.into_keys().filter(|name| !used.contains(name)).collect())
}

/// `ports[0]` as the two segments `ports` and `0`, as kustomize reads a var's field path.
fn slice_indexes_split(segments: &[String]) -> Vec<String> {
    let mut split = Vec::new();
    for segment in segments {
        let indexed = segment
            .strip_suffix(']')
            .and_then(|rest| rest.rsplit_once('['))
            .filter(|(_, digits)| !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()));
        match indexed {
            Some((field, digits)) => {
                if !field.is_empty() {
                    split.push(field.to_string());
                }
                split.push(digits.to_string());
            }
            None => split.push(segment.clone()),
        }
    }
    split
}

/// Substitutes in one field of the table: a string, or the string values of a map.
fn substitute_in(field: &mut Value, values: &BTreeMap<String, Value>, used: &mut BTreeSet<String>) {
    match field {
        Value::String(text) => *field = expand(text, values, used),
        Value::Object(map) => {
            for value in map.values_mut() {
                if let Value::String(text) = value {
                    *value = expand(text, values, used);
                }
            }
        }
        _ => {}
    }
}

/// `input` with each `$(NAME)` of a known var replaced by its value (the value itself, typed,
/// when it is the whole string), `$$` as `$`, and anything else left as it is.
fn expand(input: &str, values: &BTreeMap<String, Value>, used: &mut BTreeSet<String>) -> Value {
    let mut value_of = |name: &str| match values.get(name) {
        Some(value @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => {
            used.insert(name.to_string());
            value.clone()
        }
        _ => Value::String(format!("$({name})")),
    };
    let mut output = String::new();
    let mut rest = input;
    while let Some(at) = rest.find('$') {
        let after = &rest[at + 1..];
        let Some(next) = after.chars().next() else { break };
        output.push_str(&rest[..at]);
        match next {
            '$' => {
                output.push('$');
                rest = &after[1..];
            }
            '(' => match after.find(')') {
                Some(close) => {
                    let name = &after[1..close];
                    let value = value_of(name);
                    if input.len() == name.len() + 3 {
                        return value;
                    }
                    output.push_str(&path::scalar_text(&value));
                    rest = &after[close + 1..];
                }
                None => {
                    output.push_str("$(");
                    rest = &after[1..];
                }
            },
            other => {
                output.push('$');
                output.push(other);
                rest = &after[other.len_utf8()..];
            }
        }
    }
    output.push_str(rest);
    Value::String(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expanded(input: &str) -> (Value, BTreeSet<String>) {
        let values = BTreeMap::from([
            ("SVC".to_string(), json!("web")),
            ("PORT".to_string(), json!(8080)),
            ("MAP".to_string(), json!({"a": 1})),
        ]);
        let mut used = BTreeSet::new();
        (expand(input, &values, &mut used), used)
    }

    #[test]
    fn references_expand_typed_when_whole_and_escapes_and_unknown_names_stay() {
        assert_eq!(expanded("$(PORT)").0, json!(8080));
        assert_eq!(expanded("http://$(SVC):$(PORT)/").0, json!("http://web:8080/"));
        assert_eq!(expanded("$$(SVC) a$$b $(NOPE) $(open $x $").0, json!("$(SVC) a$b $(NOPE) $(open $x $"));
        assert_eq!(expanded("$(MAP)"), (json!("$(MAP)"), BTreeSet::new()));
        assert_eq!(expanded("é$(SVC)é").1, BTreeSet::from(["SVC".to_string()]));
    }

    #[test]
    fn field_paths_split_slice_indexes() {
        let split = slice_indexes_split(&path::split("spec.ports[0].port"));
        assert_eq!(split, ["spec", "ports", "0", "port"]);
    }

    #[test]
    fn vars_tie_to_one_resource_and_print_as_kustomize_prints_them() {
        let service = |name: &str| {
            Resource::new(
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": {"ports": [{"port": 80}]}}),
            )
        };
        let var = |yaml: &str| -> Var {
            let document = serde_saphyr::from_str(yaml).unwrap();
            crate::gocompat::unmarshal::from_value(document, crate::gocompat::unmarshal::KUSTOMIZATION).unwrap()
        };
        let mut resources = vec![service("web"), service("db")];
        let mut vars = Vars::default();
        let declared = [
            var("{name: WEB, objref: {kind: Service, name: web, apiVersion: v1}}"),
            var(
                "{name: PORT, objref: {kind: Service, name: db, apiVersion: v1}, fieldref: {fieldpath: 'spec.ports[0].port'}}",
            ),
            var("{name: GONE, objref: {kind: Service, name: web}}"),
        ];
        declare(&mut vars, &declared, &mut resources).unwrap();
        assert_eq!(resources[0].var_names, ["WEB"]);
        assert_eq!(resources[1].var_names, ["PORT"]);
        let both = var("{name: ANY, objref: {kind: Service, apiVersion: v1}}");
        resources.iter_mut().for_each(|resource| resource.object["metadata"]["name"] = json!(""));
        let err = declare(&mut Vars::default(), &[both], &mut resources).unwrap_err();
        assert_eq!(
            err.to_string(),
            "merging vars [{ANY Service.[noVer].[noGrp] {}}]: found 2 resId matches for var {ANY Service.v1.[noGrp] {}} (unable to disambiguate)"
        );
        resources[0].object["metadata"]["name"] = json!("web");
        resources[1].object["metadata"]["name"] = json!("db");
        let err = declare(&mut vars, &declared[..1], &mut resources).unwrap_err();
        assert_eq!(err.to_string(), "merging vars [{WEB Service.[noVer].[noGrp] {}}]: var 'WEB' already encountered");
        let err = substitute(&mut resources, &vars, &crate::kustomize::types::field_specs::builtin().var_reference)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "var '{GONE Service.[noVer].[noGrp] {metadata.name}}' cannot be mapped to a field in the set of known resources"
        );

        let mut vars = Vars::default();
        declare(&mut vars, &declared[..2], &mut resources).unwrap();
        resources[0].object["metadata"]["labels"] = json!({"port": "$(PORT)", "web": "$(WEB)"});
        let unused =
            substitute(&mut resources, &vars, &crate::kustomize::types::field_specs::builtin().var_reference).unwrap();
        assert!(unused.is_empty());
        assert_eq!(resources[0].object["metadata"]["labels"], json!({"port": 80, "web": "web"}));
    }
}
