//! The ignore flags of `apply` and `diff`: fields of existing objects left as they are live
//! (see [`crate::apply::ignore`]), from `--ignore-field`, `--ignore-rules` files in Argo CD's
//! format, `--ignore-managers`, and the HorizontalPodAutoscalers that scale objects of the input.

use std::path::PathBuf;

use clap::{ArgAction, Args};

use super::{Error, Result};
use crate::apply::ignore::{IgnoreRules, Rule};
use crate::client::{Cluster, ListScope, Selectors};
use crate::resource::{Entry, ObjectRef};

/// Options that leave fields of existing objects as they are live.
#[derive(Debug, Clone, Args)]
pub struct IgnoreArgs {
    /// Leave this field of existing objects as it is live: GROUP/KIND[/NAME]:JSON_POINTER, e.g.
    /// apps/Deployment/web:/spec/replicas (repeatable; the core group is left out).
    #[arg(long = "ignore-field", value_name = "RULE")]
    pub fields: Vec<String>,
    /// Ignore rules in Argo CD's ignoreDifferences format (a list, or an Application).
    #[arg(long = "ignore-rules", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Leave the fields that these field managers own as they are live.
    #[arg(long = "ignore-managers", value_name = "NAMES", value_delimiter = ',')]
    pub managers: Vec<String>,
    /// Keep the live spec.replicas of a Deployment, StatefulSet or ReplicaSet that a
    /// HorizontalPodAutoscaler scales.
    #[arg(long = "ignore-hpa", value_name = "BOOL", default_value_t = true, action = ArgAction::Set,
          num_args = 0..=1, default_missing_value = "true")]
    pub hpa: bool,
}

/// The kinds an autoscaler's target may be whose replicas the HPA rule keeps.
const SCALED_KINDS: [&str; 3] = ["Deployment", "StatefulSet", "ReplicaSet"];

impl IgnoreArgs {
    /// The rules for applying `entries`. The autoscalers are listed in the namespaces of the
    /// input's scalable objects only; each object one scales is named once on stderr.
    pub async fn rules(&self, cluster: &Cluster, entries: &[Entry]) -> Result<IgnoreRules> {
        let mut rules = IgnoreRules::default();
        for field in &self.fields {
            rules.add(IgnoreRules::parse_field(field).map_err(Error::msg)?);
        }
        for file in &self.files {
            let text = std::fs::read_to_string(file)
                .map_err(|err| Error::msg(format!("cannot read {}: {err}", file.display())))?;
            for rule in IgnoreRules::parse_file(&text, &file.display().to_string()).map_err(Error::msg)? {
                rules.add(rule);
            }
        }
        if !self.managers.is_empty() {
            rules.add(IgnoreRules::managers(self.managers.clone()));
        }
        if self.hpa {
            for rule in autoscaled(cluster, entries).await? {
                rules.add(rule);
            }
        }
        Ok(rules)
    }
}

/// A rule keeping `spec.replicas` for each object of `entries` that a HorizontalPodAutoscaler
/// scales, said once per object.
async fn autoscaled(cluster: &Cluster, entries: &[Entry]) -> Result<Vec<Rule>> {
    let scalable: Vec<&ObjectRef> = entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Ready(manifest) if SCALED_KINDS.contains(&manifest.object.rt.kind.as_str()) => {
                Some(&manifest.object)
            }
            _ => None,
        })
        .collect();
    let mut namespaces: Vec<&str> = scalable.iter().filter_map(|object| object.namespace.as_deref()).collect();
    namespaces.sort_unstable();
    namespaces.dedup();
    if namespaces.is_empty() {
        return Ok(Vec::new());
    }
    let rt = cluster.resolve_kind("autoscaling/v1", "HorizontalPodAutoscaler").await?;
    let mut rules = Vec::new();
    for namespace in namespaces {
        let list = match cluster.list(&rt, ListScope::Namespace(namespace), Selectors::default()).await {
            Ok(list) => list,
            Err(err) => {
                eprintln!(
                    "Warning: cannot list the HorizontalPodAutoscalers of namespace {namespace} ({}); \
                     the replicas of its objects are applied",
                    err.line().trim_start_matches("error: ")
                );
                continue;
            }
        };
        for hpa in list["items"].as_array().into_iter().flatten() {
            let target = &hpa["spec"]["scaleTargetRef"];
            let api_version = target["apiVersion"].as_str().unwrap_or_default();
            let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
            let (kind, name) =
                (target["kind"].as_str().unwrap_or_default(), target["name"].as_str().unwrap_or_default());
            let hpa_name = hpa["metadata"]["name"].as_str().unwrap_or_default();
            let scaled = scalable.iter().find(|object| {
                object.rt.kind == kind
                    && object.rt.group == group
                    && object.name == name
                    && object.namespace.as_deref() == Some(namespace)
            });
            if let Some(object) = scaled {
                eprintln!(
                    "{}: spec.replicas is left as it is live: HorizontalPodAutoscaler {hpa_name} scales it \
                     (--ignore-hpa=false sets it)",
                    object.display_name()
                );
                rules.push(Rule {
                    group: group.to_string(),
                    kind: kind.to_string(),
                    name: Some(name.to_string()),
                    namespace: Some(namespace.to_string()),
                    json_pointers: vec!["/spec/replicas".into()],
                    ..Rule::default()
                });
            }
        }
    }
    Ok(rules)
}
