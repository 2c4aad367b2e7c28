//! `-o name`: `kind.group/name`, lower-cased, from the object's own apiVersion and kind.

use serde_json::Value;

/// `deployment.apps/web`, or `configmap/settings` for the core group.
pub fn object_name(object: &Value) -> String {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default().to_lowercase();
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    match api_version.split_once('/') {
        Some((group, _)) => format!("{kind}.{group}/{name}"),
        None => format!("{kind}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_carry_the_group() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}});
        assert_eq!(object_name(&deployment), "deployment.apps/web");
        let configmap = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
        assert_eq!(object_name(&configmap), "configmap/x");
    }
}
