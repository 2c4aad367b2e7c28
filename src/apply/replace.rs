//! Objects whose configuration changes a field the server does not let change (see
//! [`super::immutable`]): refused before the first write, or, where the run (`--replace-immutable`)
//! or the object (kapp's, Argo CD's and Flux's annotations, [`opt_in::replace`]) opts in, replaced:
//! deleted, waited for until gone, and created again from the configuration, the original put back
//! when the create fails (the safe delete-and-create of `--force`, [`recreate`]).

use std::collections::HashMap;

use serde_json::Value;

use super::immutable::ImmutableChange;
use super::object::{self, Live};
use super::recreate::{CreateBy, recreate_by};
use super::{Action, ApplyOptions, DryRun, Error, Mode, Outcome, last_applied, opt_in};
use crate::client::{self, Cluster, WriteOptions};
use crate::resource::{Manifest, ObjectRef, Source};

/// Why the object is deleted, in the errors of a replacement that fails.
const REPLACING: &str = "to replace it: a field that cannot change changes";

/// What the checks before the first write made of the objects whose configuration changes
/// fields that cannot change.
#[derive(Default)]
pub(super) struct Judged {
    /// The objects refused, with why.
    pub refused: Vec<(Source, Error)>,
    /// The objects to replace, by input index, with the fields that force it.
    pub replace: HashMap<usize, Vec<&'static str>>,
}

/// Asks the server, with a dry run of each write, about the objects whose configuration changes
/// fields that cannot change (each with its changes and its live object): an object it takes
/// after all goes on as any other. One it refuses is replaced where the run or the object opts in
/// and the server would create it from the configuration (a dry-run create says so); otherwise it
/// is refused, with the server's words (`field is immutable`, `may not change once set`, which
/// scripts look for) and the opt-in named. Nothing is written; the dry runs go one after the other
/// (they are few).
pub(super) async fn judge(
    cluster: &Cluster,
    unchangeable: Vec<(&Manifest, Vec<ImmutableChange>, Option<Value>)>,
    options: &ApplyOptions,
) -> Judged {
    let dry_run = ApplyOptions { dry_run: DryRun::Server, ..options.clone() };
    let mut judged = Judged::default();
    for (manifest, changes, live) in unchangeable {
        let live = live.map_or(Live::Unread, Live::Read);
        let server = match object::apply(cluster, manifest, live, None, &dry_run).await {
            Ok(_) => continue,
            // Only the server's own words: a request that failed on the way says nothing of the object.
            Err(Error::Client(err)) if err.status().is_some() => Some(err),
            Err(_) => None,
        };
        let object = manifest.object.display_name();
        if !options.replace_immutable && opt_in::replace(&manifest.document).is_none() {
            judged.refused.push((manifest.source.clone(), Error::Immutable { object, changes, server }));
            continue;
        }
        // kube-apiserver validates a create before it looks for the object: an object it accepts
        // answers 409 AlreadyExists, one it refuses answers why.
        let check = WriteOptions { dry_run: true, ..options.write_options() };
        let target = &manifest.object;
        let configuration = last_applied_free(&manifest.document);
        match cluster.create(&target.rt, target.namespace.as_deref(), &configuration, &check).await {
            Ok(_) | Err(client::Error::AlreadyExists(_)) => {
                let fields = changes.iter().map(|change| change.field).collect();
                judged.replace.insert(manifest.source.index, fields);
            }
            Err(refused) => judged
                .refused
                .push((manifest.source.clone(), Error::RecreateRefused { name: object, why: REPLACING, refused })),
        }
    }
    judged
}

/// The configuration without a last-applied annotation it may carry.
fn last_applied_free(document: &Value) -> Value {
    let mut document = document.clone();
    if let Some(annotations) = document.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
        annotations.remove(super::last_applied::ANNOTATION);
    }
    document
}

/// Replaces `manifest`'s object, whose change of the fields `forced_by` the server refuses:
/// deletes it, waits until it is gone and creates it from the configuration (client-side: with
/// the last-applied annotation, `recorded` when the checks made it; server-side: by a server-side
/// apply, so that the manager owns its fields). A server dry run shows the object the server
/// would create, under its own name; a client dry run, the configuration.
pub(super) async fn apply(
    cluster: &Cluster,
    manifest: &Manifest,
    live: Live,
    recorded: Option<String>,
    forced_by: Vec<&'static str>,
    options: &ApplyOptions,
) -> Result<Outcome, Error> {
    let target = &manifest.object;
    let (configuration, by) = match options.mode {
        // With the annotation apply records, also where it is not recording (diff shows the
        // object as apply would create it).
        Mode::ClientSide { .. } => {
            let configuration = match recorded {
                Some(text) => last_applied::with_recorded(&manifest.document, text),
                None => last_applied::with_annotation(&manifest.document),
            };
            (configuration, CreateBy::Post)
        }
        Mode::ServerSide { .. } => (manifest.document.clone(), CreateBy::Apply),
    };
    let before = match live {
        Live::Read(live) => Some(live),
        Live::Absent => None,
        Live::Unread => match cluster.get(&target.rt, target.namespace.as_deref(), &target.name).await {
            Ok(live) => Some(live),
            Err(client::Error::NotFound(_)) => None,
            Err(err) => return Err(err.into()),
        },
    };
    let write = options.write_options();
    let object = match options.dry_run {
        DryRun::None => {
            recreate_by(cluster, target, &configuration, &write, &options.deletion, by, REPLACING).await?.object
        }
        DryRun::Server => created_in_dry_run(cluster, target, &configuration, &write).await?,
        DryRun::Client => configuration,
    };
    Ok(Outcome {
        action: Action::Replaced,
        target: target.clone(),
        object,
        before: before.filter(|_| options.keep_live),
        patch: None,
        missing_last_applied: false,
        warnings: Vec::new(),
        taken: Vec::new(),
        change: None,
        forced_by,
    })
}

/// The object the server would create from `configuration`, asked with a dry-run create under a
/// name of the server's choosing (the object's own is taken until the old one is deleted); the
/// chosen name is then put back wherever the server wrote it (a Job's `job-name` labels).
async fn created_in_dry_run(
    cluster: &Cluster,
    target: &ObjectRef,
    configuration: &Value,
    write: &WriteOptions,
) -> Result<Value, Error> {
    let mut probe = configuration.clone();
    if let Some(metadata) = probe.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("name");
        metadata.remove("resourceVersion");
        metadata.insert("generateName".into(), Value::String(format!("{}-", target.name)));
    }
    let check = WriteOptions { dry_run: true, ..write.clone() };
    let mut created = cluster.create(&target.rt, target.namespace.as_deref(), &probe, &check).await?;
    let chosen = created["metadata"]["name"].as_str().unwrap_or_default().to_string();
    if !chosen.is_empty() {
        rename(&mut created, &chosen, &target.name);
    }
    if let Some(metadata) = created.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("generateName");
    }
    Ok(created)
}

/// Every string of `value` that is `from` made `to`.
fn rename(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(text) if text == from => *text = to.to_string(),
        Value::Array(items) => items.iter_mut().for_each(|item| rename(item, from, to)),
        Value::Object(map) => map.values_mut().for_each(|item| rename(item, from, to)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_name_the_server_chose_is_put_back_everywhere() {
        let mut created = json!({"metadata": {"name": "job-x7k2p", "generateName": "job-"},
            "spec": {"template": {"metadata": {"labels": {"job-name": "job-x7k2p", "other": "job-x7k2p-not"}}}}});
        rename(&mut created, "job-x7k2p", "job");
        assert_eq!(created["metadata"]["name"], "job");
        assert_eq!(
            created["spec"]["template"]["metadata"]["labels"],
            json!({"job-name": "job", "other": "job-x7k2p-not"})
        );
    }

    #[test]
    fn the_check_creates_without_a_recorded_annotation() {
        let document =
            json!({"metadata": {"name": "x", "annotations": {super::super::last_applied::ANNOTATION: "{}", "a": "b"}}});
        assert_eq!(last_applied_free(&document), json!({"metadata": {"name": "x", "annotations": {"a": "b"}}}));
    }
}
