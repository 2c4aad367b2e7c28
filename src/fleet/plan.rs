//! One plan over several contexts: what `diff --plan-out` computed for each, applied by `apply
//! --plan` only if every context's part still holds, before any write anywhere.

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::apply::saved_plan::{PlanFileError, SavedPlan};

const KIND: &str = "KubeupdFleetPlan";
const VERSION: u32 = 1;

/// Each context's plan, in the order the contexts were selected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetPlan {
    pub contexts: Vec<(String, SavedPlan)>,
}

#[derive(Serialize, Deserialize)]
struct File {
    kind: String,
    version: u32,
    contexts: Vec<Part>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    checksum: String,
}

/// A context's plan as the file holds it: the file `diff --plan-out` writes for one context,
/// with that plan's own checksum.
#[derive(Serialize, Deserialize)]
struct Part {
    context: String,
    plan: serde_json::Value,
}

/// Why a file is not a plan over several contexts.
#[derive(Debug, thiserror::Error)]
pub enum FleetPlanError {
    #[error("not a plan written by `kubeupd diff --plan-out` over several contexts: {0}")]
    NotAFleetPlan(String),
    #[error("the plan was changed after `kubeupd diff --plan-out` wrote it (its checksum does not match)")]
    Edited,
    #[error("context {context}: {source}")]
    Part {
        context: String,
        #[source]
        source: PlanFileError,
    },
}

impl FleetPlan {
    /// Whether `text` is a plan over several contexts (rather than one context's plan).
    pub fn is_fleet_plan(text: &str) -> bool {
        serde_json::from_str::<serde_json::Value>(text).is_ok_and(|value| value["kind"] == KIND)
    }

    pub fn to_text(&self) -> String {
        let contexts = (self.contexts.iter())
            .map(|(context, plan)| Part {
                context: context.clone(),
                plan: serde_json::from_str(&plan.to_text()).expect("a plan's text is JSON"),
            })
            .collect();
        let mut file = File { kind: KIND.into(), version: VERSION, contexts, checksum: String::new() };
        file.checksum = checksum(&file);
        let mut text = serde_json::to_string_pretty(&file).expect("a plan serializes");
        text.push('\n');
        text
    }

    pub fn read(text: &str) -> Result<FleetPlan, FleetPlanError> {
        let file: File = serde_json::from_str(text).map_err(|err| FleetPlanError::NotAFleetPlan(err.to_string()))?;
        if file.kind != KIND || file.version != VERSION {
            return Err(FleetPlanError::NotAFleetPlan(format!("kind {:?}, version {}", file.kind, file.version)));
        }
        if file.checksum != checksum(&file) {
            return Err(FleetPlanError::Edited);
        }
        let contexts = (file.contexts.into_iter())
            .map(|part| match SavedPlan::read(&part.plan.to_string()) {
                Ok(plan) => Ok((part.context, plan)),
                Err(source) => Err(FleetPlanError::Part { context: part.context, source }),
            })
            .collect::<Result<_, _>>()?;
        Ok(FleetPlan { contexts })
    }

    pub fn context_names(&self) -> Vec<&str> {
        self.contexts.iter().map(|(context, _)| context.as_str()).collect()
    }
}

fn checksum(file: &File) -> String {
    let parts: Vec<(&str, &serde_json::Value)> =
        file.contexts.iter().map(|part| (part.context.as_str(), &part.plan)).collect();
    let text = serde_json::to_string(&(&file.kind, file.version, parts)).expect("a plan serializes");
    let hash = Sha256::digest(text.as_bytes());
    format!("sha256:{}", hash.iter().map(|byte| format!("{byte:02x}")).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply::saved_plan::{PlannedObject, Settings};

    fn plan(object: &str) -> SavedPlan {
        SavedPlan {
            settings: Settings {
                mode: "client-side".into(),
                field_manager: "kubectl-client-side-apply".into(),
                force_conflicts: false,
                prune: false,
            },
            objects: vec![PlannedObject {
                action: "create".into(),
                object: object.into(),
                namespace: Some("web".into()),
                resource_version: None,
                configuration: Some("sha256:00".into()),
                fields: vec![],
                phase: None,
                forced_by: vec![],
            }],
        }
    }

    #[test]
    fn a_fleet_plan_reads_back_and_refuses_edits() {
        let fleet = FleetPlan { contexts: vec![("b".into(), plan("configmap/x")), ("a".into(), plan("configmap/y"))] };
        let text = fleet.to_text();
        assert!(FleetPlan::is_fleet_plan(&text));
        assert!(!FleetPlan::is_fleet_plan(&plan("configmap/x").to_text()));
        assert_eq!(FleetPlan::read(&text).unwrap(), fleet);
        let edited = text.replace("\"context\": \"a\"", "\"context\": \"c\"");
        assert!(matches!(FleetPlan::read(&edited), Err(FleetPlanError::Edited)));
    }
}
