//! Ignore rules: fields of an existing object that apply leaves as they are live (and diff
//! therefore does not show), because someone else owns them: an autoscaler's `spec.replicas`, a
//! webhook's `caBundle` that cert-manager writes, annotations a controller adds. Rules name the
//! objects (group, kind, and optionally name and namespace) and the fields, by JSON pointer or by
//! the field managers that own them, as Argo CD's `ignoreDifferences` does. The fields are left
//! out of the configuration before it is compared or sent, and out of the last applied
//! configuration it is compared with, so a client-side apply neither sets nor removes them and a
//! server-side apply leaves their ownership alone. A new object is created whole. Pure: no I/O.

use serde::Deserialize;
use serde_json::Value;

use crate::resource::ObjectRef;

/// Which objects a rule is for, and which of their fields it leaves alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rule {
    /// The API group; empty for the core group.
    #[serde(default)]
    pub group: String,
    /// The kind; empty for every kind.
    #[serde(default)]
    pub kind: String,
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// Fields by JSON pointer (`/spec/replicas`).
    #[serde(default)]
    pub json_pointers: Vec<String>,
    /// Argo CD's jq paths: refused, kubeupd has no jq.
    #[serde(default)]
    pub jq_path_expressions: Vec<String>,
    /// Fields that these field managers own.
    #[serde(default)]
    pub managed_fields_managers: Vec<String>,
}

/// Why rules cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum IgnoreError {
    #[error("--ignore-field {0:?}: expected GROUP/KIND[/NAME]:JSON_POINTER, e.g. apps/Deployment/web:/spec/replicas")]
    BadField(String),
    #[error("{origin}: {reason}")]
    BadFile { origin: String, reason: String },
    #[error("{origin}: jqPathExpressions are not supported (kubeupd has no jq); use jsonPointers")]
    Jq { origin: String },
}

/// The rules of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IgnoreRules {
    rules: Vec<Rule>,
}

impl IgnoreRules {
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub fn add(&mut self, rule: Rule) {
        self.rules.push(rule);
    }

    /// The rule of `--ignore-field GROUP/KIND[/NAME]:JSON_POINTER`. The core group is empty
    /// (`/ConfigMap:/data/x`) or left out (`ConfigMap/name:/data/x`: a kind starts with a capital).
    pub fn parse_field(text: &str) -> Result<Rule, IgnoreError> {
        let bad = || IgnoreError::BadField(text.to_string());
        let (selector, pointer) = text.split_once(":/").ok_or_else(bad)?;
        let parts: Vec<&str> = selector.split('/').collect();
        let starts_upper = |part: &str| part.chars().next().is_some_and(char::is_uppercase);
        let (group, kind, name) = match parts.as_slice() {
            [kind] if starts_upper(kind) => ("", *kind, None),
            [first, second] if starts_upper(first) => ("", *first, Some(*second)),
            [group, kind] => (*group, *kind, None),
            [group, kind, name] => (*group, *kind, Some(*name)),
            _ => return Err(bad()),
        };
        if !starts_upper(kind) || name == Some("") {
            return Err(bad());
        }
        Ok(Rule {
            group: group.to_string(),
            kind: kind.to_string(),
            name: name.map(String::from),
            json_pointers: vec![format!("/{pointer}")],
            ..Rule::default()
        })
    }

    /// The rules of a file in Argo CD's format: a list of `ignoreDifferences` entries, a map with
    /// an `ignoreDifferences` list, or an Application whose `spec` has one.
    pub fn parse_file(text: &str, origin: &str) -> Result<Vec<Rule>, IgnoreError> {
        let bad = |reason: String| IgnoreError::BadFile { origin: origin.to_string(), reason };
        let document: Value = serde_saphyr::from_str(text).map_err(|err| bad(err.to_string()))?;
        let list = match &document {
            Value::Array(_) => &document,
            Value::Object(map) if map.contains_key("ignoreDifferences") => &document["ignoreDifferences"],
            Value::Object(_) if document["spec"].get("ignoreDifferences").is_some() => {
                &document["spec"]["ignoreDifferences"]
            }
            _ => return Err(bad("expected a list of ignoreDifferences entries (Argo CD's format)".into())),
        };
        let rules: Vec<Rule> = serde_json::from_value(list.clone()).map_err(|err| bad(err.to_string()))?;
        if rules.iter().any(|rule| !rule.jq_path_expressions.is_empty()) {
            return Err(IgnoreError::Jq { origin: origin.to_string() });
        }
        Ok(rules)
    }

    /// The rule of `--ignore-managers`: what these managers own, in every object.
    pub fn managers(names: Vec<String>) -> Rule {
        Rule { managed_fields_managers: names, ..Rule::default() }
    }

    /// Whether any rule is for `target`.
    pub fn any_for(&self, target: &ObjectRef) -> bool {
        self.rules.iter().any(|rule| rule.matches(target))
    }

    /// The fields the JSON pointers of the rules for `target` name, as a field set (`fieldsV1`),
    /// as far as they go through maps; `None` when there are none.
    pub fn field_set(&self, target: &ObjectRef) -> Option<Value> {
        let mut set = serde_json::Map::new();
        let pointers = self.rules.iter().filter(|rule| rule.matches(target)).flat_map(|rule| &rule.json_pointers);
        for pointer in pointers {
            let mut node = &mut set;
            let tokens = pointer_tokens(pointer);
            // List items are keyed by their merge keys in a field set, not by position: such
            // pointers are left out (their fields move as they would without the rule).
            if tokens.iter().any(|token| token.parse::<usize>().is_ok()) {
                continue;
            }
            for token in &tokens {
                node = node
                    .entry(format!("f:{token}"))
                    .or_insert_with(|| Value::Object(Default::default()))
                    .as_object_mut()
                    .expect("built as maps");
            }
        }
        (!set.is_empty()).then_some(Value::Object(set))
    }

    /// `document`, the configuration of `target`, without the fields the rules leave alone;
    /// `live` (the object as it is) tells which fields the named managers own.
    pub fn strip(&self, target: &ObjectRef, document: &mut Value, live: &Value) {
        for rule in self.rules.iter().filter(|rule| rule.matches(target)) {
            for pointer in &rule.json_pointers {
                remove_pointer(document, pointer);
            }
            let entries = live.pointer("/metadata/managedFields").and_then(Value::as_array).into_iter().flatten();
            for entry in entries {
                let manager = entry["manager"].as_str().unwrap_or_default();
                if rule.managed_fields_managers.iter().any(|name| name == manager) {
                    super::ownership::remove_fields(document, &entry["fieldsV1"]);
                }
            }
        }
    }

    /// `document` (stripped) with the fields of the JSON pointers of the rules for `target` that
    /// `manager` still applies in `live`, at their live values. Dropping such a field from a
    /// server-side apply would remove it: a server before 1.22 leaves `spec.replicas` with the
    /// applier after an autoscaler's write through `/scale`, and the Deployment would fall back to
    /// one replica. Sent as they are, they change nothing and stay the applier's.
    pub fn keep_applied(&self, target: &ObjectRef, document: &mut Value, live: &Value, manager: &str) {
        for rule in self.rules.iter().filter(|rule| rule.matches(target)) {
            for pointer in &rule.json_pointers {
                let path = pointer_tokens(pointer);
                // Field sets key list items by their merge keys, not by position.
                if path.iter().any(|token| token.parse::<usize>().is_ok()) {
                    continue;
                }
                if let Some(value) = live.pointer(pointer)
                    && super::ownership::applier_holds(live, manager, &path)
                {
                    set_path(document, &path, value.clone());
                }
            }
        }
    }
}

impl Rule {
    fn matches(&self, target: &ObjectRef) -> bool {
        let kind_matches = self.kind.is_empty() || (self.kind == target.rt.kind && self.group == target.rt.group);
        kind_matches
            && self.name.as_ref().is_none_or(|name| *name == target.name)
            && self.namespace.as_ref().is_none_or(|namespace| Some(namespace) == target.namespace.as_ref())
    }
}

/// The reference tokens of `pointer` (RFC 6901), unescaped.
fn pointer_tokens(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(|token| token.replace("~1", "/").replace("~0", "~")).collect()
}

/// Sets the field at `path` (names of maps' fields) in `document`, making the maps on the way.
fn set_path(document: &mut Value, path: &[String], value: Value) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut node = document;
    for token in parents {
        let Value::Object(map) = node else { return };
        node = map.entry(token.clone()).or_insert_with(|| Value::Object(Default::default()));
    }
    if let Value::Object(map) = node {
        map.insert(last.clone(), value);
    }
}

/// Removes what `pointer` (RFC 6901) points at, if it is there.
fn remove_pointer(document: &mut Value, pointer: &str) {
    let tokens = pointer_tokens(pointer);
    let Some((last, parents)) = tokens.split_last() else { return };
    let mut node = document;
    for token in parents {
        node = match node {
            Value::Object(map) => match map.get_mut(token) {
                Some(child) => child,
                None => return,
            },
            Value::Array(items) => match token.parse::<usize>().ok().and_then(|index| items.get_mut(index)) {
                Some(child) => child,
                None => return,
            },
            _ => return,
        };
    }
    match node {
        Value::Object(map) => {
            map.remove(last);
        }
        Value::Array(items) => {
            if let Some(index) = last.parse::<usize>().ok().filter(|index| *index < items.len()) {
                items.remove(index);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::ResourceType;
    use serde_json::json;

    fn target(group: &str, kind: &str, name: &str) -> ObjectRef {
        ObjectRef {
            rt: ResourceType::namespaced_for_tests(group, kind),
            namespace: Some("ns".into()),
            name: name.into(),
        }
    }

    #[test]
    fn field_flags_read_with_or_without_a_group() {
        let rule = IgnoreRules::parse_field("apps/Deployment/web:/spec/replicas").unwrap();
        assert_eq!(
            (rule.group.as_str(), rule.kind.as_str(), rule.name.as_deref()),
            ("apps", "Deployment", Some("web"))
        );
        assert_eq!(rule.json_pointers, ["/spec/replicas"]);
        let core = IgnoreRules::parse_field("ConfigMap/settings:/data/token").unwrap();
        assert_eq!(
            (core.group.as_str(), core.kind.as_str(), core.name.as_deref()),
            ("", "ConfigMap", Some("settings"))
        );
        let every = IgnoreRules::parse_field(
            "admissionregistration.k8s.io/MutatingWebhookConfiguration:/webhooks/0/clientConfig/caBundle",
        );
        assert_eq!(every.unwrap().name, None);
        for bad in ["apps/Deployment", "deployment:/spec", "a/b/c/d:/x", "apps/Deployment/:/spec"] {
            assert!(IgnoreRules::parse_field(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn argo_cd_files_are_read_and_jq_is_refused() {
        let application = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nspec:\n  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n  - kind: ConfigMap\n    managedFieldsManagers: [operator]\n";
        let rules = IgnoreRules::parse_file(application, "rules.yaml").unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[1].managed_fields_managers, ["operator"]);
        let jq = "- group: apps\n  kind: Deployment\n  jqPathExpressions: ['.spec.replicas']\n";
        assert_eq!(IgnoreRules::parse_file(jq, "rules.yaml"), Err(IgnoreError::Jq { origin: "rules.yaml".into() }));
        assert!(IgnoreRules::parse_file("- kind: X\n  jsonPointer: [/a]\n", "r").is_err(), "a misspelt field");
    }

    #[test]
    fn pointers_through_maps_make_a_field_set() {
        let mut rules = IgnoreRules::default();
        rules.add(IgnoreRules::parse_field("apps/Deployment:/spec/replicas").unwrap());
        rules.add(IgnoreRules::parse_field("apps/Deployment:/spec/template/spec/containers/0/image").unwrap());
        let web = target("apps", "Deployment", "web");
        assert_eq!(rules.field_set(&web), Some(json!({"f:spec": {"f:replicas": {}}})), "list positions are left out");
        assert_eq!(rules.field_set(&target("", "ConfigMap", "web")), None);
    }

    #[test]
    fn pointers_and_managers_leave_fields_out() {
        let mut rules = IgnoreRules::default();
        rules.add(IgnoreRules::parse_field("apps/Deployment:/spec/replicas").unwrap());
        rules.add(IgnoreRules::managers(vec!["injector".into()]));
        let live = json!({"metadata": {"managedFields": [
            {"manager": "injector", "operation": "Update", "fieldsV1": {"f:metadata": {"f:annotations": {"f:injected": {}}}}}
        ]}});
        let mut document = json!({
            "metadata": {"name": "web", "annotations": {"injected": "yes", "mine": "1"}},
            "spec": {"replicas": 3, "paused": false}
        });
        rules.strip(&target("apps", "Deployment", "web"), &mut document, &live);
        assert_eq!(
            document,
            json!({"metadata": {"name": "web", "annotations": {"mine": "1"}}, "spec": {"paused": false}})
        );
        let mut other = json!({"spec": {"replicas": 3}});
        rules.strip(&target("apps", "StatefulSet", "db"), &mut other, &json!({}));
        assert_eq!(other, json!({"spec": {"replicas": 3}}), "the pointer is for Deployments only");
    }

    #[test]
    fn fields_the_applier_still_applies_are_kept_at_their_live_values() {
        let mut rules = IgnoreRules::default();
        rules.add(IgnoreRules::parse_field("apps/Deployment:/spec/replicas").unwrap());
        let owned_by = |manager: &str, operation: &str| {
            json!({"spec": {"replicas": 10}, "metadata": {"managedFields": [
                {"manager": manager, "operation": operation, "fieldsV1": {"f:spec": {"f:replicas": {}}}}
            ]}})
        };
        let web = target("apps", "Deployment", "web");
        let kept = |live: &Value| {
            let mut document = json!({"spec": {"paused": false}});
            rules.keep_applied(&web, &mut document, live, "kubectl");
            document
        };
        assert_eq!(kept(&owned_by("kubectl", "Apply")), json!({"spec": {"paused": false, "replicas": 10}}));
        assert_eq!(kept(&owned_by("kubectl", "Update")), json!({"spec": {"paused": false}}), "an update is no apply");
        assert_eq!(kept(&owned_by("autoscaler", "Apply")), json!({"spec": {"paused": false}}), "another's field");
    }
}
