//! The replicas of objects that a HorizontalPodAutoscaler scales are the autoscaler's: apply
//! leaves the live `spec.replicas` of such a Deployment, StatefulSet or ReplicaSet alone
//! (kubernetes/kubernetes#25238). The autoscalers of a namespace are listed only when an apply
//! would change an existing object's replicas, once per namespace and run.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::OnceCell;

use super::ignore::{IgnoreRules, Rule};
use crate::client::{Cluster, ListScope, Selectors};
use crate::resource::ObjectRef;

/// The kinds whose replicas an autoscaler may own.
const SCALED_KINDS: [&str; 3] = ["Deployment", "StatefulSet", "ReplicaSet"];

/// An autoscaler's target: group, kind, name; and the autoscaler's name.
type Scaled = (String, String, String, String);

/// The autoscalers of the namespaces asked about so far, shared by the objects of one run.
#[derive(Debug, Default)]
pub struct Autoscalers {
    namespaces: Mutex<HashMap<String, Arc<OnceCell<Vec<Scaled>>>>>,
}

impl Autoscalers {
    /// Whether `target` is of a kind an autoscaler may scale: only then is it worth asking.
    pub fn may_scale(target: &ObjectRef) -> bool {
        SCALED_KINDS.contains(&target.rt.kind.as_str()) && target.namespace.is_some()
    }

    /// When an autoscaler scales `target` (whose replicas an apply would change): `rules` with
    /// one more that keeps them, and the line that says so. `None` otherwise.
    pub async fn keep_replicas(
        &self,
        cluster: &Cluster,
        target: &ObjectRef,
        rules: &IgnoreRules,
    ) -> Option<(IgnoreRules, String)> {
        if !Self::may_scale(target) {
            return None;
        }
        let namespace = target.namespace.clone()?;
        let hpa = self.scaler_of(cluster, target, &namespace).await?;
        let mut kept = rules.clone();
        kept.add(Rule {
            group: target.rt.group.clone(),
            kind: target.rt.kind.clone(),
            name: Some(target.name.clone()),
            namespace: Some(namespace),
            json_pointers: vec!["/spec/replicas".into()],
            ..Rule::default()
        });
        let line = format!(
            "{}: spec.replicas is left as it is live: HorizontalPodAutoscaler {hpa} scales it (--ignore-hpa=false \
             sets it)",
            target.display_name()
        );
        Some((kept, line))
    }

    /// The name of the autoscaler in `namespace` that scales `target`, if one does. A namespace
    /// whose autoscalers cannot be listed has none, as far as apply knows.
    async fn scaler_of(&self, cluster: &Cluster, target: &ObjectRef, namespace: &str) -> Option<String> {
        let cell = self.namespaces.lock().expect("not poisoned").entry(namespace.to_string()).or_default().clone();
        let scaled = cell.get_or_init(|| list(cluster, namespace)).await;
        scaled
            .iter()
            .find(|(group, kind, name, _)| *group == target.rt.group && *kind == target.rt.kind && *name == target.name)
            .map(|(_, _, _, hpa)| hpa.clone())
    }
}

async fn list(cluster: &Cluster, namespace: &str) -> Vec<Scaled> {
    let Ok(rt) = cluster.resolve_kind("autoscaling/v1", "HorizontalPodAutoscaler").await else { return Vec::new() };
    let list = match cluster.list(&rt, ListScope::Namespace(namespace), Selectors::default()).await {
        Ok(list) => list,
        Err(err) => {
            tracing::info!("cannot list the HorizontalPodAutoscalers of {namespace}: {err}");
            return Vec::new();
        }
    };
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|hpa| {
            let target = &hpa["spec"]["scaleTargetRef"];
            let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
            let group = text(&target["apiVersion"]).rsplit_once('/').map_or(String::new(), |(group, _)| group.into());
            (group, text(&target["kind"]), text(&target["name"]), text(&hpa["metadata"]["name"]))
        })
        .collect()
}
