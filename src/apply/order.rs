//! The order an input is applied in: phases, and stages within each phase, computed from the
//! documents alone (no I/O) before the first write.
//!
//! Phases come from the ordering annotations users bring from the tools they leave, with those
//! tools' semantics: Argo CD's `argocd.argoproj.io/sync-wave` (an integer, 0 by default; waves in
//! ascending order) and, within a wave, kapp's `kapp.k14s.io/change-group` and
//! `kapp.k14s.io/change-rule: upsert after|before upserting GROUP` (a rule's object after, or
//! before, every object of the group). A phase starts once every object of the phases before it
//! is ready, as Argo CD waits for a wave's health and kapp for the changes a change depends on. As
//! Argo CD does, a Namespace or CustomResourceDefinition joins the earliest phase of the objects
//! that need it.
//!
//! Within a phase, in stages: first the Namespaces, and the CustomResourceDefinitions of kinds the
//! input has objects of (their objects wait until they are established); then everything else;
//! last, what needs a server of the input's own to answer: the objects of a group an
//! `APIService` of the input serves, once it is `Available`, and the webhook configurations whose
//! Service the input runs, with every object they intercept, once the workloads behind the
//! Service are ready.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use crate::resource::Entry;

/// Argo CD's sync wave annotation.
pub const SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
/// kapp's change group annotation (more with a suffix: `kapp.k14s.io/change-group.name`).
pub const CHANGE_GROUP: &str = "kapp.k14s.io/change-group";
/// kapp's change rule annotation (more with a suffix).
pub const CHANGE_RULE: &str = "kapp.k14s.io/change-rule";

/// Why an input cannot be ordered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    /// A sync wave that is not an integer (Argo CD takes such an object as wave 0, silently).
    #[error("annotation {SYNC_WAVE}: {0:?} is not an integer")]
    Wave(String),
    /// A change rule kubeupd cannot read.
    #[error(
        "annotation {CHANGE_RULE}: {0:?} is not a kapp change rule ((upsert|delete) (after|before) (upserting|deleting) GROUP)"
    )]
    Rule(String),
    /// Change rules that ask for an object to come both before and after another.
    #[error("kapp change rules form a cycle between {0}")]
    Cycle(String),
    /// A change rule that contradicts the sync waves.
    #[error("kapp change rule {rule:?} asks for {object} to come before {other}, which is in an earlier sync wave")]
    AgainstWaves { rule: String, object: String, other: String },
}

/// The phases of an input, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Order {
    pub phases: Vec<Phase>,
}

/// Objects applied together once every object of the phases before is ready; each list holds
/// positions in the input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Phase {
    /// The sync wave (0 without one).
    pub wave: i64,
    /// Namespaces, and the definitions of kinds the input has objects of.
    pub definitions: Vec<usize>,
    /// Everything else that waits for nothing but the definitions.
    pub main: Vec<usize>,
    /// What waits for [`Phase::backends`] to be ready.
    pub gated: Vec<usize>,
    /// The APIServices and webhook workloads that must be ready before [`Phase::gated`].
    pub backends: Vec<usize>,
}

impl Phase {
    /// Every position in the phase, in the order of its stages.
    pub fn members(&self) -> impl Iterator<Item = usize> + '_ {
        self.definitions.iter().chain(&self.main).chain(&self.gated).copied()
    }
}

/// An object's place: its phase's wave and kapp level.
type Place = (i64, usize);

/// What the ordering needs of one input object.
struct Item<'a> {
    group: &'a str,
    kind: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    document: &'a Value,
}

impl<'a> Item<'a> {
    fn of(entry: &'a Entry) -> Item<'a> {
        let (group, kind) = entry.group_kind();
        match entry {
            Entry::Ready(manifest) => Item {
                group,
                kind,
                namespace: manifest.object.namespace.as_deref(),
                name: &manifest.object.name,
                document: &manifest.document,
            },
            Entry::Pending(pending) => Item {
                group,
                kind,
                namespace: pending.namespace.as_deref(),
                name: &pending.name,
                document: &pending.document,
            },
        }
    }

    fn annotation(&self, key: &str) -> Option<&'a str> {
        self.document["metadata"]["annotations"][key].as_str()
    }

    /// The values of the annotations `key` and `key.SUFFIX`.
    fn annotations_like(&self, key: &str) -> Vec<&'a str> {
        let Some(annotations) = self.document["metadata"]["annotations"].as_object() else { return Vec::new() };
        (annotations.iter())
            .filter(|(name, _)| name.strip_prefix(key).is_some_and(|rest| rest.is_empty() || rest.starts_with('.')))
            .filter_map(|(_, value)| value.as_str())
            .collect()
    }

    fn is(&self, group: &str, kind: &str) -> bool {
        self.group == group && self.kind == kind
    }

    fn is_namespace(&self) -> bool {
        self.is("", "Namespace")
    }

    /// The group and kind a CustomResourceDefinition defines.
    fn defined_kind(&self) -> Option<(&'a str, &'a str)> {
        if !self.is("apiextensions.k8s.io", "CustomResourceDefinition") {
            return None;
        }
        let spec = &self.document["spec"];
        Some((spec["group"].as_str()?, spec["names"]["kind"].as_str()?))
    }

    fn display(&self) -> String {
        let kind = self.kind.to_lowercase();
        match self.group {
            "" => format!("{kind}/{}", self.name),
            group => format!("{kind}.{group}/{}", self.name),
        }
    }
}

/// Orders `entries` in phases and stages; an error comes with the position of the object it is
/// about (the first, for a cycle).
pub fn order(entries: &[Entry]) -> Result<Order, (usize, OrderError)> {
    let items: Vec<Item> = entries.iter().map(Item::of).collect();
    let mut places = places(&items)?;
    definitions_join_their_users(&items, &mut places);
    let gates = Gates::of(&items);
    // What waits for a backend goes no earlier than the backend's own phase.
    for (gated, backends) in &gates.backends {
        let latest = backends.iter().map(|&backend| places[backend]).max();
        places[*gated] = places[*gated].max(latest.unwrap_or_default());
    }
    let mut phases: BTreeMap<Place, Phase> = BTreeMap::new();
    let used: HashSet<(&str, &str)> = items.iter().map(|item| (item.group, item.kind)).collect();
    for (position, item) in items.iter().enumerate() {
        let phase =
            phases.entry(places[position]).or_insert_with(|| Phase { wave: places[position].0, ..Phase::default() });
        let stage = if item.is_namespace() || item.defined_kind().is_some_and(|kind| used.contains(&kind)) {
            &mut phase.definitions
        } else if gates.gated.contains(&position) {
            &mut phase.gated
        } else {
            &mut phase.main
        };
        stage.push(position);
    }
    for (gated, backends) in gates.backends {
        // A backend goes with the earliest phase of what it gates.
        let phase = (phases.values_mut()).find(|phase| phase.gated.contains(&gated));
        if let Some(phase) = phase {
            for backend in backends {
                if !phase.backends.contains(&backend) {
                    phase.backends.push(backend);
                }
            }
        }
    }
    Ok(Order { phases: phases.into_values().collect() })
}

/// Each item's wave and kapp level.
fn places(items: &[Item]) -> Result<Vec<Place>, (usize, OrderError)> {
    let waves = (items.iter().enumerate())
        .map(|(position, item)| match item.annotation(SYNC_WAVE) {
            None => Ok(0),
            Some(text) => text.trim().parse::<i64>().map_err(|_| (position, OrderError::Wave(text.to_string()))),
        })
        .collect::<Result<Vec<i64>, _>>()?;
    let after = change_rules(items)?;
    // Edges between objects of different waves must agree with the waves; those within a wave
    // make its levels.
    let mut within: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    for (later, earlier, rule) in after {
        if waves[earlier] > waves[later] {
            let (object, other) = (items[earlier].display(), items[later].display());
            return Err((earlier, OrderError::AgainstWaves { rule, object, other }));
        }
        if waves[earlier] == waves[later] && !within[later].contains(&earlier) {
            within[later].push(earlier);
        }
    }
    let levels = levels(items, &within)?;
    Ok(waves.into_iter().zip(levels).collect())
}

/// One kapp rule between two positions: the first comes after the second, as the rule says.
type After = (usize, usize, String);

/// kapp's upsert rules as edges between positions.
fn change_rules(items: &[Item]) -> Result<Vec<After>, (usize, OrderError)> {
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    for (position, item) in items.iter().enumerate() {
        for group in item.annotations_like(CHANGE_GROUP) {
            groups.entry(group).or_default().push(position);
        }
    }
    let mut edges = Vec::new();
    for (position, item) in items.iter().enumerate() {
        for rule in item.annotations_like(CHANGE_RULE) {
            let words: Vec<&str> = rule.split_whitespace().collect();
            let [action, relation, other_action, group] = words[..] else {
                return Err((position, OrderError::Rule(rule.to_string())));
            };
            let known = matches!(action, "upsert" | "delete")
                && matches!(relation, "after" | "before")
                && matches!(other_action, "upserting" | "deleting");
            if !known {
                return Err((position, OrderError::Rule(rule.to_string())));
            }
            // Deletions are prune's, which runs after everything anyway.
            if action != "upsert" || other_action != "upserting" {
                continue;
            }
            for &other in groups.get(group).into_iter().flatten().filter(|&&other| other != position) {
                let edge = if relation == "after" { (position, other) } else { (other, position) };
                edges.push((edge.0, edge.1, rule.to_string()));
            }
        }
    }
    Ok(edges)
}

/// The level of each item: 0 for one after nothing, else one more than the highest level of what
/// it comes after.
fn levels(items: &[Item], after: &[Vec<usize>]) -> Result<Vec<usize>, (usize, OrderError)> {
    let mut levels: Vec<Option<usize>> = vec![None; items.len()];
    let mut remaining: Vec<usize> = (0..items.len()).collect();
    while !remaining.is_empty() {
        let before = remaining.len();
        remaining.retain(|&position| {
            let earlier: Option<Vec<usize>> = after[position].iter().map(|&other| levels[other]).collect();
            match earlier {
                Some(earlier) => {
                    levels[position] = Some(earlier.into_iter().max().map_or(0, |level| level + 1));
                    false
                }
                None => true,
            }
        });
        if remaining.len() == before {
            let names: Vec<String> = remaining.iter().map(|&position| items[position].display()).collect();
            return Err((remaining[0], OrderError::Cycle(names.join(", "))));
        }
    }
    Ok(levels.into_iter().map(|level| level.unwrap_or(0)).collect())
}

/// A Namespace, or a CustomResourceDefinition, goes in the earliest place of the objects in it or
/// of its kind, as Argo CD moves them into the wave of their first dependent.
fn definitions_join_their_users(items: &[Item], places: &mut [Place]) {
    let mut earliest_in: HashMap<&str, Place> = HashMap::new();
    let mut earliest_of: HashMap<(&str, &str), Place> = HashMap::new();
    for (item, &place) in items.iter().zip(places.iter()) {
        if let Some(namespace) = item.namespace {
            let earliest = earliest_in.entry(namespace).or_insert(place);
            *earliest = (*earliest).min(place);
        }
        let earliest = earliest_of.entry((item.group, item.kind)).or_insert(place);
        *earliest = (*earliest).min(place);
    }
    for (item, place) in items.iter().zip(places.iter_mut()) {
        let users = if item.is_namespace() {
            earliest_in.get(item.name)
        } else {
            item.defined_kind().and_then(|kind| earliest_of.get(&kind))
        };
        if let Some(&users) = users {
            *place = (*place).min(users);
        }
    }
}

/// What waits for a server of the input's own.
#[derive(Default)]
struct Gates {
    gated: HashSet<usize>,
    /// For each gated position, the backends it waits for.
    backends: Vec<(usize, Vec<usize>)>,
}

impl Gates {
    fn of(items: &[Item]) -> Gates {
        let mut gates = Gates::default();
        let mut waits: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        // APIServices of the input: the objects of their group wait until they are Available.
        for (service, item) in items.iter().enumerate() {
            if !item.is("apiregistration.k8s.io", "APIService") || item.document["spec"]["service"].is_null() {
                continue;
            }
            let Some(group) = item.document["spec"]["group"].as_str() else { continue };
            for (position, other) in items.iter().enumerate() {
                if other.group == group {
                    waits.entry(position).or_default().push(service);
                }
            }
        }
        // Webhook configurations whose Service the input runs: they and the objects they
        // intercept wait until the workloads behind the Service are ready.
        let plurals = plurals(items);
        for (configuration, item) in items.iter().enumerate() {
            let is_webhook = item.group == "admissionregistration.k8s.io"
                && matches!(item.kind, "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration");
            if !is_webhook {
                continue;
            }
            for webhook in item.document["webhooks"].as_array().into_iter().flatten() {
                let service = &webhook["clientConfig"]["service"];
                let (Some(namespace), Some(name)) = (service["namespace"].as_str(), service["name"].as_str()) else {
                    continue;
                };
                let workloads = workloads_behind(items, namespace, name);
                if workloads.is_empty() {
                    continue;
                }
                waits.entry(configuration).or_default().extend(&workloads);
                for (position, other) in items.iter().enumerate() {
                    let needed = workloads.contains(&position)
                        || other.is_namespace()
                        || other.defined_kind().is_some()
                        || (other.is("", "Service") && other.namespace == Some(namespace) && other.name == name);
                    if !needed && intercepts(webhook, other, &plurals) {
                        waits.entry(position).or_default().extend(&workloads);
                    }
                }
            }
        }
        for (position, mut backends) in waits {
            backends.retain(|&backend| backend != position);
            if backends.is_empty() {
                continue;
            }
            backends.sort_unstable();
            backends.dedup();
            gates.gated.insert(position);
            gates.backends.push((position, backends));
        }
        gates
    }
}

/// The Deployments, StatefulSets and DaemonSets of the input in `namespace` whose pods the
/// Service `name` (also of the input) selects.
fn workloads_behind(items: &[Item], namespace: &str, name: &str) -> Vec<usize> {
    let service =
        items.iter().find(|item| item.is("", "Service") && item.namespace == Some(namespace) && item.name == name);
    let Some(selector) = service.and_then(|service| service.document["spec"]["selector"].as_object()) else {
        return Vec::new();
    };
    if selector.is_empty() {
        return Vec::new();
    }
    (items.iter().enumerate())
        .filter(|(_, item)| {
            item.group == "apps"
                && matches!(item.kind, "Deployment" | "StatefulSet" | "DaemonSet")
                && item.namespace == Some(namespace)
        })
        .filter(|(_, item)| {
            let labels = &item.document["spec"]["template"]["metadata"]["labels"];
            selector.iter().all(|(key, value)| &labels[key] == value)
        })
        .map(|(position, _)| position)
        .collect()
}

/// The plural resource name of each group and kind of the input that is known: resolved ones,
/// and those the input's definitions define.
fn plurals<'a>(items: &[Item<'a>]) -> HashMap<(&'a str, &'a str), String> {
    let mut plurals = HashMap::new();
    for item in items {
        if let Some(kind) = item.defined_kind()
            && let Some(plural) = item.document["spec"]["names"]["plural"].as_str()
        {
            plurals.insert(kind, plural.to_string());
        }
    }
    plurals
}

/// Whether `webhook` intercepts the create or update of `item`: one of its rules names the
/// object's group and resource (or `*`) and one of those operations. Selectors are not looked at:
/// an object they would spare waits too, which costs only time.
fn intercepts(webhook: &Value, item: &Item, plurals: &HashMap<(&str, &str), String>) -> bool {
    let resource = resource_of(item, plurals);
    webhook["rules"].as_array().into_iter().flatten().any(|rule| {
        let listed = |field: &str, wanted: &dyn Fn(&str) -> bool| {
            rule[field]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .any(|value| value == "*" || wanted(value))
        };
        listed("apiGroups", &|group| group == item.group)
            && listed("operations", &|operation| matches!(operation, "CREATE" | "UPDATE"))
            && listed("resources", &|named| {
                let main = named.split('/').next().unwrap_or(named);
                main == "*" || resource.as_deref() == Some(main)
            })
    })
}

/// The plural resource name of `item`'s kind, where known or made as the server makes it for the
/// built-in kinds (lower case, plus `s`, `es` or `ies`).
fn resource_of(item: &Item, plurals: &HashMap<(&str, &str), String>) -> Option<String> {
    if let Some(plural) = plurals.get(&(item.group, item.kind)) {
        return Some(plural.clone());
    }
    let lower = item.kind.to_lowercase();
    Some(if let Some(stem) = lower.strip_suffix('y').filter(|stem| !stem.ends_with(['a', 'e', 'o', 'u'])) {
        format!("{stem}ies")
    } else if lower.ends_with('s') || lower.ends_with("ch") || lower.ends_with('x') {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{Pending, Source};
    use serde_json::json;

    /// Entries made from documents, in order.
    fn entries(documents: &[Value]) -> Vec<Entry> {
        (documents.iter().enumerate())
            .map(|(index, document)| {
                Entry::Pending(Pending {
                    source: Source { index, file: "app.yaml".into(), document: index + 1 },
                    api_version: document["apiVersion"].as_str().unwrap().into(),
                    kind: document["kind"].as_str().unwrap().into(),
                    name: document["metadata"]["name"].as_str().unwrap().into(),
                    namespace: document["metadata"]["namespace"].as_str().map(String::from),
                    document: document.clone(),
                })
            })
            .collect()
    }

    fn object(api_version: &str, kind: &str, name: &str, annotations: Value) -> Value {
        json!({"apiVersion": api_version, "kind": kind,
               "metadata": {"name": name, "namespace": "app", "annotations": annotations}})
    }

    fn waves(order: &Order) -> Vec<(i64, Vec<usize>)> {
        order.phases.iter().map(|phase| (phase.wave, phase.members().collect())).collect()
    }

    #[test]
    fn without_annotations_one_phase_with_definitions_first() {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}}});
        let unused = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "gadgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Gadget", "plural": "gadgets"}}});
        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "app"}});
        let widget = object("example.com/v1", "Widget", "w", json!({}));
        let order = order(&entries(&[widget, crd, unused, namespace])).unwrap();
        assert_eq!(order.phases.len(), 1);
        let phase = &order.phases[0];
        assert_eq!((phase.definitions.clone(), phase.main.clone()), (vec![1, 3], vec![0, 2]));
        assert!(phase.gated.is_empty() && phase.backends.is_empty());
    }

    #[test]
    fn sync_waves_in_ascending_order_and_definitions_join_their_first_user() {
        let wave = |n: &str| json!({SYNC_WAVE: n});
        let late_namespace =
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "app", "annotations": wave("5")}});
        let documents = [
            object("v1", "ConfigMap", "b", wave("2")),
            object("v1", "ConfigMap", "a", wave("-1")),
            late_namespace,
            object("v1", "ConfigMap", "c", json!({})),
        ];
        assert_eq!(waves(&order(&entries(&documents)).unwrap()), vec![(-1, vec![2, 1]), (0, vec![3]), (2, vec![0])]);
        let wrong = [object("v1", "ConfigMap", "a", wave("first"))];
        assert_eq!(
            order(&entries(&wrong)).unwrap_err().1.to_string(),
            r#"annotation argocd.argoproj.io/sync-wave: "first" is not an integer"#
        );
    }

    #[test]
    fn kapp_change_rules_order_objects_within_a_wave() {
        let documents = [
            object(
                "v1",
                "ConfigMap",
                "migrate",
                json!({CHANGE_GROUP: "apps.big.co/db-migrations",
                "kapp.k14s.io/change-rule": "upsert after upserting apps.big.co/db"}),
            ),
            object("v1", "ConfigMap", "db", json!({CHANGE_GROUP: "apps.big.co/db"})),
            object(
                "v1",
                "ConfigMap",
                "app",
                json!({"kapp.k14s.io/change-rule.0": "upsert after upserting apps.big.co/db-migrations",
                "kapp.k14s.io/change-rule.1": "delete before deleting apps.big.co/db"}),
            ),
            object(
                "v1",
                "ConfigMap",
                "first",
                json!({"kapp.k14s.io/change-rule": "upsert before upserting apps.big.co/db"}),
            ),
        ];
        assert_eq!(
            waves(&order(&entries(&documents)).unwrap()),
            vec![(0, vec![3]), (0, vec![1]), (0, vec![0]), (0, vec![2])]
        );
    }

    #[test]
    fn kapp_rules_that_loop_or_contradict_the_waves_are_refused() {
        let looping = [
            object("v1", "ConfigMap", "a", json!({CHANGE_GROUP: "a", CHANGE_RULE: "upsert after upserting b"})),
            object("v1", "ConfigMap", "b", json!({CHANGE_GROUP: "b", CHANGE_RULE: "upsert after upserting a"})),
        ];
        assert_eq!(
            order(&entries(&looping)).unwrap_err().1.to_string(),
            "kapp change rules form a cycle between configmap/a, configmap/b"
        );
        let against = [
            object("v1", "ConfigMap", "a", json!({CHANGE_RULE: "upsert after upserting b"})),
            object("v1", "ConfigMap", "b", json!({CHANGE_GROUP: "b", SYNC_WAVE: "1"})),
        ];
        assert!(matches!(order(&entries(&against)), Err((1, OrderError::AgainstWaves { .. }))));
        let unreadable = [object("v1", "ConfigMap", "a", json!({CHANGE_RULE: "after b"}))];
        assert!(matches!(order(&entries(&unreadable)), Err((0, OrderError::Rule(_)))));
    }

    #[test]
    fn a_webhook_and_what_it_intercepts_wait_for_the_workload_behind_its_service() {
        let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hook", "namespace": "app"},
            "spec": {"selector": {"app": "hook"}}});
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "hook", "namespace": "app"},
            "spec": {"template": {"metadata": {"labels": {"app": "hook", "tier": "x"}}}}});
        let other = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "app"},
            "spec": {"template": {"metadata": {"labels": {"app": "web"}}}}});
        let webhook = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "hook"}, "webhooks": [{"name": "hook.example.com",
                "clientConfig": {"service": {"namespace": "app", "name": "hook"}},
                "rules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments", "statefulsets"]}]}]});
        let config = object("v1", "ConfigMap", "settings", json!({}));
        let order = order(&entries(&[webhook, other, config, service, deployment])).unwrap();
        assert_eq!(order.phases.len(), 1);
        let phase = &order.phases[0];
        assert_eq!(
            (phase.main.clone(), phase.gated.clone(), phase.backends.clone()),
            (vec![2, 3, 4], vec![0, 1], vec![4])
        );
    }

    #[test]
    fn objects_of_an_apiservices_group_wait_until_it_is_available() {
        let api_service = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": "v1beta1.metrics.k8s.io"},
            "spec": {"group": "metrics.k8s.io", "service": {"namespace": "app", "name": "metrics"}}});
        let local = json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": "v1.local.example.com"}, "spec": {"group": "local.example.com"}});
        let served = object("metrics.k8s.io/v1beta1", "NodeMetrics", "n", json!({}));
        let local_object = object("local.example.com/v1", "Thing", "t", json!({}));
        let order = order(&entries(&[served, api_service, local, local_object])).unwrap();
        let phase = &order.phases[0];
        assert_eq!(
            (phase.main.clone(), phase.gated.clone(), phase.backends.clone()),
            (vec![1, 2, 3], vec![0], vec![1])
        );
    }

    #[test]
    fn what_waits_for_a_backend_of_a_later_wave_goes_with_it() {
        let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "hook", "namespace": "app"},
            "spec": {"selector": {"app": "hook"}}});
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "hook", "namespace": "app", "annotations": {SYNC_WAVE: "3"}},
            "spec": {"template": {"metadata": {"labels": {"app": "hook"}}}}});
        let webhook = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
            "metadata": {"name": "hook"}, "webhooks": [{"name": "hook.example.com",
                "clientConfig": {"service": {"namespace": "app", "name": "hook"}},
                "rules": [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["configmaps"]}]}]});
        let config = object("v1", "ConfigMap", "settings", json!({}));
        let order = order(&entries(&[webhook, config, service, deployment])).unwrap();
        assert_eq!(waves(&order), vec![(0, vec![2]), (3, vec![3, 0, 1])]);
        assert_eq!(order.phases[1].backends, vec![3]);
    }

    #[test]
    fn plurals_as_the_server_makes_them() {
        let plural = |kind: &str| {
            let document = object("v1", kind, "x", json!({}));
            let entry = &entries(&[document])[0];
            resource_of(&Item::of(entry), &HashMap::new()).unwrap()
        };
        assert_eq!(
            [plural("Ingress"), plural("NetworkPolicy"), plural("Gateway"), plural("Deployment")],
            ["ingresses", "networkpolicies", "gateways", "deployments"]
        );
    }
}
