//! What applying the input would do to each object, found by a server dry run of the apply
//! engine: `diff` shows it, `diff --plan-out` saves it, and `apply --plan` finds it again to
//! compare with the saved plan ([`saved_plan`]).

use serde_json::Value;

use super::saved_plan::{PlannedObject, SavedPlan, Settings};
use super::{Action, ApplyOptions, Mode, Outcome, prune};
use crate::output;
use crate::resource::ObjectRef;

/// What the compared YAML keeps that kubectl hides by default.
#[derive(Debug, Clone, Copy)]
pub struct Shown {
    pub managed_fields: bool,
    pub secrets: bool,
}

/// What applying (and pruning) would do to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Create,
    Change,
    /// Deleted and created again: a field that cannot change changes.
    Replace,
    Unchanged,
    Prune,
}

impl Effect {
    /// The word for it, in `diff -o json` and in a saved plan.
    pub fn word(self) -> &'static str {
        match self {
            Effect::Create => "create",
            Effect::Change => "change",
            Effect::Replace => "replace",
            Effect::Unchanged => "unchanged",
            Effect::Prune => "prune",
        }
    }
}

/// One object's change: what happens to it, its changed field paths, and the two sides compared
/// as YAML (empty for an object that is new, or pruned), under kubectl's name for the object
/// (`apps.v1.Deployment.default.web`).
pub struct Change {
    pub effect: Effect,
    pub target: ObjectRef,
    pub fields: Vec<String>,
    pub name: String,
    pub before: String,
    pub after: String,
    /// The live object's resourceVersion; `None` for an object to create.
    pub version: Option<String>,
    /// The digest of the configuration in the files; `None` for an object to prune.
    pub configuration: Option<String>,
    /// The phase it is applied in, from 1, when the input has several ([`super::order`]).
    pub phase: Option<usize>,
    /// For an object to replace: the fields that cannot change whose change forces it.
    pub forced_by: Vec<String>,
}

impl Change {
    /// What a dry run's `outcome` shows; `configuration` is the digest of the object's document.
    pub fn applied(outcome: Outcome, configuration: Option<String>, shown: Shown) -> Change {
        let fields = output::changed_paths(outcome.before.as_ref(), Some(&outcome.object));
        let effect = match (&outcome.before, outcome.action) {
            (None, _) => Effect::Create,
            (Some(_), Action::Replaced) => Effect::Replace,
            (Some(_), _) => Effect::Change,
        };
        let forced_by = outcome.forced_by.iter().map(|field| field.to_string()).collect();
        let change = Change::new(effect, outcome.target, fields, outcome.before, Some(outcome.object), shown);
        let change = Change { configuration, forced_by, ..change };
        if change.before == change.after && effect != Effect::Replace {
            Change { effect: Effect::Unchanged, fields: Vec::new(), ..change }
        } else {
            change
        }
    }

    /// An object pruning would delete.
    pub fn pruned(object: prune::Prunable, shown: Shown) -> Change {
        let fields = output::changed_paths(Some(&object.object), None);
        Change::new(Effect::Prune, object.target, fields, Some(object.object), None, shown)
    }

    fn new(
        effect: Effect,
        target: ObjectRef,
        fields: Vec<String>,
        mut live: Option<Value>,
        mut merged: Option<Value>,
        shown: Shown,
    ) -> Change {
        let secret = target.rt.group.is_empty() && target.rt.kind == "Secret";
        if secret && !shown.secrets {
            mask_secret_data(live.as_mut(), merged.as_mut());
        }
        let yaml = |object: Option<Value>| match object {
            // kubectl's masking of a Secret leaves an absent side as YAML's null.
            None if secret => "null\n".to_string(),
            None => String::new(),
            Some(mut object) => {
                if !shown.managed_fields {
                    output::strip_managed_fields(&mut object);
                }
                output::to_yaml(&object)
            }
        };
        let version = live.as_ref().and_then(|live| live["metadata"]["resourceVersion"].as_str()).map(String::from);
        let name = format!(
            "{}.{}.{}.{}",
            target.rt.api_version().replace('/', "."),
            target.rt.kind,
            target.namespace.as_deref().unwrap_or(""),
            target.name
        );
        let (before, after) = (yaml(live), yaml(merged));
        let (configuration, phase, forced_by) = (None, None, Vec::new());
        Change { effect, target, fields, name, before, after, version, configuration, phase, forced_by }
    }
}

/// `changes`, found by applying in `mode` as `field_manager` (`None`: the mode's default), with
/// or without `prune`, as the plan `apply --plan` applies.
pub fn saved_plan(changes: &[Change], mode: Mode, field_manager: Option<String>, prune: bool) -> SavedPlan {
    let options = ApplyOptions { field_manager, ..ApplyOptions::new(mode) };
    let (mode, force_conflicts) = match mode {
        Mode::ClientSide { .. } => ("client-side", false),
        Mode::ServerSide { force_conflicts } => ("server-side", force_conflicts),
    };
    let settings =
        Settings { mode: mode.into(), field_manager: options.field_manager().to_string(), force_conflicts, prune };
    let objects = changes
        .iter()
        .map(|change| PlannedObject {
            action: change.effect.word().into(),
            object: change.target.display_name(),
            namespace: change.target.namespace.clone(),
            resource_version: change.version.clone(),
            configuration: change.configuration.clone(),
            fields: change.fields.clone(),
            phase: change.phase,
            forced_by: change.forced_by.clone(),
        })
        .collect();
    SavedPlan { settings, objects }
}

/// Hides Secret values as kubectl does: `*** (before)` and `*** (after)` where a key is on both
/// sides with other values, `***` everywhere else.
fn mask_secret_data(live: Option<&mut Value>, merged: Option<&mut Value>) {
    let live_data = live.as_ref().map(|live| live["data"].clone()).unwrap_or(Value::Null);
    let merged_data = merged.as_ref().map(|merged| merged["data"].clone()).unwrap_or(Value::Null);
    // A Secret without `data` stays without it (indexing would add `data: null`).
    let mask = |object: &mut Value, other: &Value, changed: &str| {
        if let Some(values) = object.get_mut("data").and_then(Value::as_object_mut) {
            for (key, value) in values.iter_mut() {
                *value = Value::String(match other.get(key) {
                    Some(theirs) if theirs != value => format!("*** ({changed})"),
                    _ => "***".into(),
                });
            }
        }
    };
    if let Some(live) = live {
        mask(live, &merged_data, "before");
    }
    if let Some(merged) = merged {
        mask(merged, &live_data, "after");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_values_are_masked() {
        let mut live = json!({"data": {"same": "YQ==", "changed": "Yg==", "gone": "Yw=="}});
        let mut merged = json!({"data": {"same": "YQ==", "changed": "Yw==", "new": "ZA=="}});
        mask_secret_data(Some(&mut live), Some(&mut merged));
        assert_eq!(live["data"], json!({"same": "***", "changed": "*** (before)", "gone": "***"}));
        assert_eq!(merged["data"], json!({"same": "***", "changed": "*** (after)", "new": "***"}));
    }

    #[test]
    fn a_secret_without_data_stays_without_it() {
        let mut merged = json!({"kind": "Secret", "type": "Opaque"});
        mask_secret_data(None, Some(&mut merged));
        assert_eq!(merged, json!({"kind": "Secret", "type": "Opaque"}));
    }
}
