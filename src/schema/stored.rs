//! What the API server does not keep as it was sent, by type: a Go `bool` field with `omitempty`
//! drops `false`, and a resource.Quantity keeps its value, not its spelling (`1000m` is read back
//! as `1`). The OpenAPI documents say neither (both bools are `boolean`, a Quantity is a string),
//! so a three-way patch that sets such a field as the server already has it is sent every time,
//! by kubectl too, and the server writes nothing. Knowing them lets apply skip those patches.

use super::SchemaNode;
use crate::gocompat::quantity::nanos as quantity_nanos;

/// The OpenAPI definition of `resource.Quantity`.
pub(super) const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";

/// Struct fields of the built-in types that are Go `bool`s with `omitempty` (not `*bool`): the
/// server stores `false` as nothing. Read from the types of k8s.io/api and
/// k8s.io/apiextensions-apiserver (v1), by their OpenAPI definition names.
const FALSE_OMITTED: &[(&str, &[&str])] = &[
    ("io.k8s.api.apps.v1.DeploymentSpec", &["paused"]),
    ("io.k8s.api.core.v1.AWSElasticBlockStoreVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.AzureFilePersistentVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.AzureFileVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.CSIPersistentVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.CephFSPersistentVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.CephFSVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.CinderPersistentVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.CinderVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.Container", &["stdin", "stdinOnce", "tty"]),
    ("io.k8s.api.core.v1.EphemeralContainer", &["stdin", "stdinOnce", "tty"]),
    ("io.k8s.api.core.v1.FCVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.FlexPersistentVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.FlexVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.GCEPersistentDiskVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.GlusterfsPersistentVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.GlusterfsVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.ISCSIPersistentVolumeSource", &["chapAuthDiscovery", "chapAuthSession", "readOnly"]),
    ("io.k8s.api.core.v1.ISCSIVolumeSource", &["chapAuthDiscovery", "chapAuthSession", "readOnly"]),
    ("io.k8s.api.core.v1.NFSVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.NodeSpec", &["unschedulable"]),
    ("io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.PodSpec", &["hostIPC", "hostNetwork", "hostPID"]),
    ("io.k8s.api.core.v1.PortworxVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.QuobyteVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.RBDPersistentVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.RBDVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.ScaleIOPersistentVolumeSource", &["readOnly", "sslEnabled"]),
    ("io.k8s.api.core.v1.ScaleIOVolumeSource", &["readOnly", "sslEnabled"]),
    ("io.k8s.api.core.v1.ServiceSpec", &["publishNotReadyAddresses"]),
    ("io.k8s.api.core.v1.StorageOSPersistentVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.StorageOSVolumeSource", &["readOnly"]),
    ("io.k8s.api.core.v1.VolumeMount", &["readOnly"]),
    ("io.k8s.api.flowcontrol.v1.ResourcePolicyRule", &["clusterScope"]),
    ("io.k8s.api.scheduling.v1.PriorityClass", &["globalDefault"]),
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec",
        &["preserveUnknownFields"],
    ),
];

impl SchemaNode<'_> {
    /// Whether the struct this schema describes stores its `field` only when true.
    pub fn omits_false(&self, field: &str) -> bool {
        let Some(name) = self.struct_name() else { return false };
        FALSE_OMITTED.iter().any(|(parent, fields)| *parent == name && fields.contains(&field))
    }
}

/// Whether `a` and `b`, two values of a Quantity, are the same amount (`1000m` and `1`, `100`
/// and `"100"`); a value that is no quantity is the same only as itself.
pub fn same_quantity(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    let nanos = |value: &serde_json::Value| match value {
        serde_json::Value::String(text) => quantity_nanos(text),
        serde_json::Value::Number(number) => quantity_nanos(&number.to_string()),
        _ => None,
    };
    a == b || nanos(a).is_some_and(|amount| nanos(b) == Some(amount))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::{LookupPatchMeta, builtin};

    #[test]
    fn the_crd_and_pod_bools_are_known_and_others_not() {
        let crd = builtin().for_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition").unwrap();
        let spec = crd.lookup_field("spec").unwrap().0;
        assert!(spec.omits_false("preserveUnknownFields"));
        assert!(!spec.omits_false("group"));
        let pod = builtin().for_kind("v1", "Pod").unwrap().lookup_field("spec").unwrap().0;
        assert!(pod.omits_false("hostNetwork"));
        // `*bool`: false is kept.
        assert!(!pod.omits_false("automountServiceAccountToken"));
        assert!(!crd.omits_false("spec"));
    }

    #[test]
    fn quantities_compare_by_amount() {
        assert!(same_quantity(&json!("1000m"), &json!("1")));
        assert!(same_quantity(&json!(100), &json!("100")));
        assert!(same_quantity(&json!(0.5), &json!("500m")));
        assert!(same_quantity(&json!("1Ki"), &json!("1024")));
        assert!(!same_quantity(&json!("1k"), &json!("1Ki")));
        assert!(!same_quantity(&json!("500m"), &json!("1")));
        assert!(!same_quantity(&json!("x"), &json!("y")));
        assert!(same_quantity(&json!("x"), &json!("x")));
    }

    #[test]
    fn quantity_fields_are_known_by_their_definition() {
        let pod = builtin().for_kind("v1", "Pod").unwrap();
        let container = pod.lookup_field("spec").unwrap().0.lookup_list("containers").unwrap().0;
        let limits = container.lookup_field("resources").unwrap().0.lookup_field("limits").unwrap().0;
        assert!(limits.lookup_field("cpu").unwrap().0.is_quantity());
        assert!(!container.lookup_field("image").unwrap().0.is_quantity());
    }
}
