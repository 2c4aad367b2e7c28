//! What an object asks of the tool that deploys it, in the words of the tools users come from
//! (kapp, Argo CD, Flux; see docs/ci.md) and in kubeupd's own: whether it may be replaced when a field that cannot
//! change changes, and whether prune must leave it alone. Read from the object's annotations;
//! pure: no I/O.

use serde_json::Value;

/// kapp's update strategy; `fallback-on-replace` deletes and creates the object when it cannot be
/// updated.
pub const KAPP_UPDATE_STRATEGY: &str = "kapp.k14s.io/update-strategy";
/// kapp's delete strategy; `orphan` keeps the object when kapp would delete it.
pub const KAPP_DELETE_STRATEGY: &str = "kapp.k14s.io/delete-strategy";
/// Argo CD's sync options: `Key=value` items separated by commas (`Replace=true,Prune=false`).
pub const ARGO_SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
/// Flux's kustomize-controller prune switch; `disabled` keeps the object.
pub const FLUX_PRUNE: &str = "kustomize.toolkit.fluxcd.io/prune";
/// Flux's kustomize-controller force switch; `enabled` recreates the object when an immutable field
/// changes.
pub const FLUX_FORCE: &str = "kustomize.toolkit.fluxcd.io/force";
/// kubeupd's own prune switch; `disabled` keeps the object.
pub const KUBEUPD_PRUNE: &str = "kubeupd.io/prune";

fn annotation<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object.pointer("/metadata/annotations").and_then(|annotations| annotations.get(key)).and_then(Value::as_str)
}

/// The value of Argo CD's sync option `key` on `object` (`Prune` in `Prune=false`), as Argo CD
/// reads the annotation: items split at commas, spaces around them ignored.
fn argo_sync_option<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    let options = annotation(object, ARGO_SYNC_OPTIONS)?;
    options.split(',').filter_map(|item| item.trim().split_once('=')).find(|(name, _)| *name == key).map(|(_, v)| v)
}

/// The annotation by which `object` (a configuration) asks to be deleted and created again when
/// it cannot be changed in place, as `key: value`; `None` when it does not ask.
pub fn replace(object: &Value) -> Option<String> {
    if annotation(object, KAPP_UPDATE_STRATEGY) == Some("fallback-on-replace") {
        return Some(format!("{KAPP_UPDATE_STRATEGY}: fallback-on-replace"));
    }
    if annotation(object, FLUX_FORCE) == Some("enabled") {
        return Some(format!("{FLUX_FORCE}: enabled"));
    }
    ["Replace", "Force"]
        .into_iter()
        .find(|key| argo_sync_option(object, key) == Some("true"))
        .map(|key| format!("{ARGO_SYNC_OPTIONS}: {key}=true"))
}

/// The annotation by which `object` (a live object) asks never to be pruned, as `key: value`;
/// `None` when it does not.
pub fn keep_from_prune(object: &Value) -> Option<String> {
    let said = |key: &str, value: &str| annotation(object, key) == Some(value);
    if said(KUBEUPD_PRUNE, "disabled") {
        return Some(format!("{KUBEUPD_PRUNE}: disabled"));
    }
    if argo_sync_option(object, "Prune") == Some("false") {
        return Some(format!("{ARGO_SYNC_OPTIONS}: Prune=false"));
    }
    if said(FLUX_PRUNE, "disabled") {
        return Some(format!("{FLUX_PRUNE}: disabled"));
    }
    if said(KAPP_DELETE_STRATEGY, "orphan") {
        return Some(format!("{KAPP_DELETE_STRATEGY}: orphan"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn annotated(key: &str, value: &str) -> Value {
        json!({"metadata": {"annotations": {key: value}}})
    }

    #[test]
    fn replace_is_asked_in_kapps_and_argo_cds_words() {
        assert_eq!(
            replace(&annotated(KAPP_UPDATE_STRATEGY, "fallback-on-replace")).as_deref(),
            Some("kapp.k14s.io/update-strategy: fallback-on-replace")
        );
        assert_eq!(replace(&annotated(KAPP_UPDATE_STRATEGY, "always-replace")), None);
        assert_eq!(
            replace(&annotated(FLUX_FORCE, "enabled")).as_deref(),
            Some("kustomize.toolkit.fluxcd.io/force: enabled")
        );
        assert_eq!(
            replace(&annotated(ARGO_SYNC_OPTIONS, "Replace=true")).as_deref(),
            Some("argocd.argoproj.io/sync-options: Replace=true")
        );
        assert_eq!(
            replace(&annotated(ARGO_SYNC_OPTIONS, "Prune=false, Force=true")).as_deref(),
            Some("argocd.argoproj.io/sync-options: Force=true")
        );
        assert_eq!(replace(&annotated(ARGO_SYNC_OPTIONS, "Replace=false,ServerSideApply=true")), None);
        assert_eq!(replace(&json!({"metadata": {"name": "x"}})), None);
    }

    #[test]
    fn prune_is_refused_in_argo_cds_fluxs_kapps_and_kubeupds_words() {
        let kept = |key: &str, value: &str| keep_from_prune(&annotated(key, value));
        assert_eq!(
            kept(ARGO_SYNC_OPTIONS, "Replace=true,Prune=false").as_deref(),
            Some("argocd.argoproj.io/sync-options: Prune=false")
        );
        assert_eq!(kept(FLUX_PRUNE, "disabled").as_deref(), Some("kustomize.toolkit.fluxcd.io/prune: disabled"));
        assert_eq!(kept(KAPP_DELETE_STRATEGY, "orphan").as_deref(), Some("kapp.k14s.io/delete-strategy: orphan"));
        assert_eq!(kept(KUBEUPD_PRUNE, "disabled").as_deref(), Some("kubeupd.io/prune: disabled"));
        assert_eq!(kept(ARGO_SYNC_OPTIONS, "Prune=true"), None);
        assert_eq!(kept(FLUX_PRUNE, "enabled"), None);
        assert_eq!(kept(KAPP_DELETE_STRATEGY, ""), None);
    }
}
