//! The patch metadata embedded for built-in kinds, used offline and when the server's OpenAPI
//! cannot be read, and the list of those kinds. Regenerate both with `scripts/gen-builtin-schema.py`.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use super::OpenApiSchema;

const DOCUMENT: &str = include_str!("builtin-openapi.json");
const KINDS: &str = include_str!("builtin-kinds.txt");

/// Whether Kubernetes builds in `kind` of `api_version`: such kinds take strategic merge patches.
/// Answered from a small list, without reading the embedded metadata.
pub fn is_builtin(api_version: &str, kind: &str) -> bool {
    static SET: OnceLock<HashSet<(&'static str, &'static str)>> = OnceLock::new();
    let set = SET.get_or_init(|| {
        KINDS.lines().filter(|line| !line.starts_with('#')).filter_map(|line| line.split_once(' ')).collect()
    });
    set.contains(&(api_version, kind))
}

/// The embedded schema of the built-in kinds of Kubernetes 1.25 to 1.37, compiled on first use.
pub fn builtin() -> &'static Arc<OpenApiSchema> {
    static SCHEMA: OnceLock<Arc<OpenApiSchema>> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let document = serde_json::from_str(DOCUMENT).expect("the embedded schema is valid JSON");
        Arc::new(OpenApiSchema::from_document(&document).expect("the embedded schema is an OpenAPI document"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{ListType, LookupPatchMeta, Strategy};

    #[test]
    fn knows_the_patch_metadata_of_a_deployment() {
        let deployment = builtin().for_kind("apps/v1", "Deployment").expect("Deployment is built in");
        let (spec, _) = deployment.lookup_field("spec").unwrap();
        let (template, _) = spec.lookup_field("template").unwrap();
        let (_, strategy) = spec.lookup_field("strategy").unwrap();
        assert!(strategy.retain_keys);
        let (pod, _) = template.lookup_field("spec").unwrap();
        let (container, containers) = pod.lookup_list("containers").unwrap();
        assert_eq!(containers.strategy, Strategy::Merge);
        assert_eq!(containers.merge_key(), "name");
        assert_eq!(containers.list_type, Some(ListType::Map));
        let (_, env) = container.lookup_list("env").unwrap();
        assert_eq!(env.merge_key(), "name");
        let (_, volumes) = pod.lookup_list("volumes").unwrap();
        assert!(volumes.retain_keys && volumes.strategy == Strategy::Merge);
        let (_, tolerations) = pod.lookup_list("tolerations").unwrap();
        assert_eq!(tolerations.strategy, Strategy::Default);
        assert_eq!(tolerations.list_type, Some(ListType::Atomic));
    }

    #[test]
    fn the_list_of_kinds_agrees_with_the_metadata() {
        for (api_version, kind) in
            [("apps/v1", "Deployment"), ("v1", "ConfigMap"), ("batch/v1", "Job"), ("example.com/v1", "Widget")]
        {
            assert_eq!(
                is_builtin(api_version, kind),
                builtin().for_kind(api_version, kind).is_some(),
                "{api_version} {kind}"
            );
        }
        let listed = KINDS.lines().filter(|line| !line.starts_with('#')).count();
        assert_eq!(listed, builtin().kind_count());
    }

    #[test]
    fn knows_core_kinds_and_kinds_removed_from_newer_releases() {
        assert!(builtin().for_kind("v1", "ConfigMap").is_some());
        assert!(builtin().for_kind("batch/v1", "Job").is_some());
        assert!(builtin().for_kind("flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema").is_some());
        assert!(builtin().for_kind("example.com/v1", "Widget").is_none());
    }

    #[test]
    fn knows_scalar_types_but_not_int_or_string() {
        let deployment = builtin().for_kind("apps/v1", "Deployment").unwrap();
        let (spec, _) = deployment.lookup_field("spec").unwrap();
        assert_eq!(spec.lookup_field("replicas").unwrap().0.scalar_type(), Some("integer"));
        assert_eq!(spec.lookup_field("paused").unwrap().0.scalar_type(), Some("boolean"));
        assert_eq!(spec.scalar_type(), None);
        let (metadata, _) = deployment.lookup_field("metadata").unwrap();
        let (labels, _) = metadata.lookup_field("labels").unwrap();
        assert_eq!(labels.lookup_field("app").unwrap().0.scalar_type(), Some("string"));
        let (strategy, _) = spec.lookup_field("strategy").unwrap();
        let (rolling_update, _) = strategy.lookup_field("rollingUpdate").unwrap();
        assert_eq!(rolling_update.lookup_field("maxSurge").unwrap().0.scalar_type(), None);
    }

    #[test]
    fn unknown_fields_are_reported_with_their_parent() {
        let deployment = builtin().for_kind("apps/v1", "Deployment").unwrap();
        let (spec, _) = deployment.lookup_field("spec").unwrap();
        let err = spec.lookup_field("replicaz").unwrap_err().to_string();
        assert!(err.contains("replicaz") && err.contains("DeploymentSpec"), "{err}");
    }
}
