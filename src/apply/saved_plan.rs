//! A plan saved by `diff --plan-out` and applied by `apply --plan`, Terraform's habit: what
//! applying the files would do to each object, with the live `resourceVersion` it was computed
//! from and a digest of the configuration that gave it. `apply --plan` computes the plan again and
//! applies only when nothing moved: the same objects, the same actions, the same versions on the
//! server and the same configurations in the files. The file holds digests, never configurations,
//! so no Secret value is in it; a checksum over its content refuses a file edited by hand.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// What the file says it is, so that another JSON file is not taken for a plan.
const KIND: &str = "KubeupdPlan";
const VERSION: u32 = 1;

/// How the plan was computed: `apply --plan` must apply the same way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `client-side` or `server-side`.
    pub mode: String,
    pub field_manager: String,
    pub force_conflicts: bool,
    /// Whether the plan includes what pruning deletes.
    pub prune: bool,
}

/// One object of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedObject {
    /// `create`, `change`, `replace`, `unchanged` or `prune`.
    pub action: String,
    /// kubectl's name for the object (`deployment.apps/web`).
    pub object: String,
    pub namespace: Option<String>,
    /// The live object's version the plan was computed from; `None` for an object to create.
    pub resource_version: Option<String>,
    /// The digest of the configuration in the files; `None` for an object to prune.
    pub configuration: Option<String>,
    /// The field paths that change, for the reader.
    pub fields: Vec<String>,
    /// The phase it is applied in, from 1, when the input has several (sync waves, kapp's
    /// change rules); left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<usize>,
    /// For an object to replace: the fields that cannot change whose change forces it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forced_by: Vec<String>,
}

/// A plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedPlan {
    pub settings: Settings,
    pub objects: Vec<PlannedObject>,
}

/// Why a plan file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PlanFileError {
    #[error("not a plan written by `kubeupd diff --plan-out`: {0}")]
    NotAPlan(String),
    #[error("the plan was changed after `kubeupd diff --plan-out` wrote it (its checksum does not match)")]
    Edited,
}

/// The file as written: the plan with what it is and its checksum.
#[derive(Serialize, Deserialize)]
struct File {
    kind: String,
    version: u32,
    #[serde(flatten)]
    plan: SavedPlan,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    checksum: String,
}

/// The digest of a configuration: SHA-256 of its JSON with keys in order.
pub fn digest(document: &Value) -> String {
    sha256(document.to_string().as_bytes())
}

fn sha256(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    format!("sha256:{}", hash.iter().map(|byte| format!("{byte:02x}")).collect::<String>())
}

impl SavedPlan {
    /// The file's text: indented JSON ending with its checksum.
    pub fn to_text(&self) -> String {
        let mut file = File { kind: KIND.into(), version: VERSION, plan: self.clone(), checksum: String::new() };
        file.checksum = checksum(&file);
        let mut text = serde_json::to_string_pretty(&file).expect("a plan serializes");
        text.push('\n');
        text
    }

    /// Reads a plan file's text; refuses other files, other versions and edited plans.
    pub fn read(text: &str) -> Result<SavedPlan, PlanFileError> {
        let file: File = serde_json::from_str(text).map_err(|err| PlanFileError::NotAPlan(err.to_string()))?;
        if file.kind != KIND || file.version != VERSION {
            return Err(PlanFileError::NotAPlan(format!("kind {:?}, version {}", file.kind, file.version)));
        }
        if file.checksum != checksum(&file) {
            return Err(PlanFileError::Edited);
        }
        Ok(file.plan)
    }

    /// What differs between this plan and `now`, computed again from the same files: one line per
    /// object (or per setting), in the plan's order, then the objects only `now` has. Empty when
    /// `now` would apply exactly this plan.
    pub fn differences(&self, now: &SavedPlan) -> Vec<String> {
        let mut lines = Vec::new();
        let Settings { mode, field_manager, force_conflicts, prune } = &self.settings;
        if mode != &now.settings.mode {
            lines.push(format!("the plan is a {mode} apply, this is a {} apply", now.settings.mode));
        }
        if field_manager != &now.settings.field_manager {
            lines.push(format!(
                "the plan's field manager is {field_manager:?}, this apply's is {:?}",
                now.settings.field_manager
            ));
        }
        if force_conflicts != &now.settings.force_conflicts {
            lines.push(format!(
                "the plan was made with --force-conflicts={force_conflicts}, this apply has {}",
                !force_conflicts
            ));
        }
        if prune != &now.settings.prune {
            lines.push(format!("the plan was made with --prune={prune}, this apply has {}", !prune));
        }
        let key = |object: &PlannedObject| (object.object.clone(), object.namespace.clone());
        let named = |object: &PlannedObject| match &object.namespace {
            Some(namespace) => format!("{} (namespace {namespace})", object.object),
            None => object.object.clone(),
        };
        for planned in &self.objects {
            let Some(found) = now.objects.iter().find(|object| key(object) == key(planned)) else {
                lines.push(format!("{}: in the plan ({}), no longer in this apply", named(planned), planned.action));
                continue;
            };
            if found.resource_version != planned.resource_version {
                let version = |version: &Option<String>| version.clone().unwrap_or_else(|| "absent".into());
                lines.push(format!(
                    "{}: changed on the server since the plan (resourceVersion {} then, {} now)",
                    named(planned),
                    version(&planned.resource_version),
                    version(&found.resource_version)
                ));
            } else if found.configuration != planned.configuration {
                lines.push(format!("{}: the files give another configuration than when planned", named(planned)));
            } else if found.action != planned.action {
                lines.push(format!("{}: planned to {}, now it would {}", named(planned), planned.action, found.action));
            }
        }
        for found in &now.objects {
            if !self.objects.iter().any(|planned| key(planned) == key(found)) {
                lines.push(format!("{}: not in the plan, this apply would {} it", named(found), found.action));
            }
        }
        lines
    }
}

fn checksum(file: &File) -> String {
    let mut value = serde_json::to_value(File {
        kind: file.kind.clone(),
        version: file.version,
        plan: file.plan.clone(),
        checksum: String::new(),
    })
    .expect("a plan serializes");
    if let Some(map) = value.as_object_mut() {
        map.remove("checksum");
    }
    sha256(value.to_string().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(action: &str, name: &str, version: Option<&str>, configuration: &Value) -> PlannedObject {
        PlannedObject {
            action: action.into(),
            object: format!("configmap/{name}"),
            namespace: Some("ns".into()),
            resource_version: version.map(String::from),
            configuration: Some(digest(configuration)),
            fields: vec!["data.v".into()],
            phase: None,
            forced_by: Vec::new(),
        }
    }

    fn plan(objects: Vec<PlannedObject>) -> SavedPlan {
        let settings = Settings {
            mode: "client-side".into(),
            field_manager: "kubectl".into(),
            force_conflicts: false,
            prune: false,
        };
        SavedPlan { settings, objects }
    }

    #[test]
    fn a_plan_reads_back_as_written_and_an_edit_is_refused() {
        let saved = plan(vec![object("change", "a", Some("7"), &json!({"data": {"v": "2"}}))]);
        let text = saved.to_text();
        assert_eq!(SavedPlan::read(&text).unwrap(), saved);
        let edited = text.replace("\"7\"", "\"8\"");
        assert!(matches!(SavedPlan::read(&edited), Err(PlanFileError::Edited)));
        assert!(matches!(SavedPlan::read("{\"kind\": \"Other\"}"), Err(PlanFileError::NotAPlan(_))));
        assert!(!text.contains("\"v\": \"2\""), "the file holds digests, not configurations");
    }

    #[test]
    fn every_difference_is_named() {
        let config = json!({"data": {"v": "2"}});
        let planned = plan(vec![
            object("change", "a", Some("7"), &config),
            object("change", "b", Some("7"), &config),
            object("create", "c", None, &config),
            object("unchanged", "d", Some("3"), &config),
        ]);
        let mut now = plan(vec![
            object("change", "a", Some("7"), &config),
            object("change", "b", Some("9"), &config),
            object("create", "c", None, &json!({"data": {"v": "3"}})),
            object("create", "e", None, &config),
        ]);
        now.settings.mode = "server-side".into();
        assert_eq!(
            planned.differences(&now),
            [
                "the plan is a client-side apply, this is a server-side apply",
                "configmap/b (namespace ns): changed on the server since the plan (resourceVersion 7 then, 9 now)",
                "configmap/c (namespace ns): the files give another configuration than when planned",
                "configmap/d (namespace ns): in the plan (unchanged), no longer in this apply",
                "configmap/e (namespace ns): not in the plan, this apply would create it",
            ]
        );
        assert!(planned.differences(&planned.clone()).is_empty());
    }
}
