//! Applying one object: client-side, as `kubectl apply` does it (create the object with the
//! last-applied annotation when it is absent; otherwise send the three-way patch between the last
//! applied configuration, the new one and the live object, recomputed from a fresh read when the
//! object changed meanwhile), or server-side (see [`super::server_side`]).

use serde_json::Value;

use super::error::ANNOTATIONS_LIMIT;
use super::ignore::IgnoreRules;
use super::{Action, ApplyOptions, DryRun, Error, Mode, Outcome, last_applied, noop, recreate};
use crate::client::{self, Cluster};
use crate::merge::{KindPatcher, Patch};
use crate::resource::Manifest;
use crate::schema::{KindSchema, SchemaNode};

/// What is known of the live object before applying: nothing yet, or what a list showed.
#[derive(Debug, Clone, Default)]
pub(super) enum Live {
    /// Read it first.
    #[default]
    Unread,
    /// Known not to exist.
    Absent,
    /// As read moments ago.
    Read(Value),
}

/// Applies `manifest` as `options` say; `live` is what a list showed of the object, if anything,
/// and `recorded` its last-applied configuration, if checking the batch made it already (to check
/// the annotations' size).
pub(super) async fn apply(
    cluster: &Cluster,
    manifest: &Manifest,
    live: Live,
    recorded: Option<String>,
    options: &ApplyOptions,
) -> Result<Outcome, Error> {
    match options.mode {
        Mode::ServerSide { .. } => super::server_side::apply(cluster, manifest, live, options).await,
        Mode::ClientSide { .. } if recorded.is_none() && too_long_to_record(&manifest.document) => {
            server_side_instead(cluster, manifest, live, options).await
        }
        Mode::ClientSide { overwrite, force } => {
            let modified = configuration(&manifest.document, recorded, options);
            let applied = client_side(cluster, manifest, live, &modified, options, overwrite).await;
            match applied {
                Err(Error::Client(client::Error::Conflict(_) | client::Error::Invalid(_))) if force => {
                    let write = options.write_options();
                    let recreated =
                        recreate::recreate(cluster, &manifest.object, &modified, &write, &options.deletion).await?;
                    Ok(Outcome {
                        action: Action::Configured,
                        target: manifest.object.clone(),
                        object: recreated.object,
                        before: None,
                        patch: None,
                        missing_last_applied: false,
                        warnings: Vec::new(),
                        taken: Vec::new(),
                        change: None,
                        forced_by: Vec::new(),
                    })
                }
                applied => applied,
            }
        }
    }
}

/// The configuration client-side apply sends for `document`: with the last-applied annotation
/// when recording (`recorded`, when the checks made it already), without it otherwise.
fn configuration(document: &Value, recorded: Option<String>, options: &ApplyOptions) -> Value {
    match recorded {
        Some(text) if options.record_last_applied => last_applied::with_recorded(document, text),
        _ => modified_of(document, options),
    }
}

/// Whether `document`'s annotations, with its last-applied configuration added, would be larger
/// than the server accepts.
pub(super) fn too_long_to_record(document: &Value) -> bool {
    let text = last_applied::configuration_text(document);
    last_applied::annotations_size(document, &text) > ANNOTATIONS_LIMIT
}

/// Client-side apply of an object whose last-applied configuration the server would refuse as
/// too long: the object is applied server-side instead (as `--field-manager`, else kubectl's
/// server-side manager), taking over what client-side apply owned as kubectl's migration does; the
/// outcome says what the apply did to the object (`created`, `configured`, `unchanged`), and why
/// it went server-side. A client dry run, which server-side apply does not have, is a server dry
/// run for this object.
async fn server_side_instead(
    cluster: &Cluster,
    manifest: &Manifest,
    live: Live,
    options: &ApplyOptions,
) -> Result<Outcome, Error> {
    let dry_run = match options.dry_run {
        DryRun::Client => DryRun::Server,
        other => other,
    };
    let server_side = ApplyOptions { mode: Mode::ServerSide { force_conflicts: false }, dry_run, ..options.clone() };
    let mut outcome = super::server_side::apply(cluster, manifest, live, &server_side).await?;
    outcome.action = outcome.change.take().unwrap_or(Action::Configured);
    let recorded = last_applied::configuration_text(&manifest.document).len();
    outcome.warnings.insert(
        0,
        format!(
            "{}: the {recorded}-byte {} annotation would take the annotations past the server's {} KiB, so this \
             object was applied server-side (field manager {:?})",
            manifest.object.display_name(),
            last_applied::ANNOTATION,
            ANNOTATIONS_LIMIT / 1024,
            server_side.field_manager(),
        ),
    );
    Ok(outcome)
}

/// The configuration as client-side apply sends it: with the last-applied annotation when
/// recording, without it otherwise.
fn modified_of(document: &Value, options: &ApplyOptions) -> Value {
    if options.record_last_applied {
        last_applied::with_annotation(document)
    } else {
        last_applied::configuration(document)
    }
}

/// Whether a client-side apply's patch sets or removes `spec.replicas`.
fn sets_replicas(patch: &Patch) -> bool {
    match patch {
        Patch::Strategic(document) | Patch::Merge(document) => document.pointer("/spec/replicas").is_some(),
        Patch::Json(_) | Patch::Apply(_) => false,
    }
}

/// Each attempt reads the object first (the first may use `live`, e.g. from a list), so that a
/// conflict or a create that finds the object already there is followed by a fresh read and a
/// recomputed patch. A write whose answer was lost (the connection failed) is not tried again
/// here: the caller reads the object back (see [`super::lost`]).
async fn client_side(
    cluster: &Cluster,
    manifest: &Manifest,
    live: Live,
    modified: &Value,
    options: &ApplyOptions,
    overwrite: bool,
) -> Result<Outcome, Error> {
    let target = &manifest.object;
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    let write = options.write_options();
    let mut schema = None;
    let mut known = live;
    let retryable =
        |err: &Error| matches!(err, Error::Client(client::Error::Conflict(_) | client::Error::AlreadyExists(_)));
    let outcome = |action, object, before: Option<&Value>, patch, missing_last_applied| Outcome {
        action,
        target: target.clone(),
        object,
        before: before.filter(|_| options.keep_live).cloned(),
        patch,
        missing_last_applied,
        warnings: Vec::new(),
        taken: Vec::new(),
        change: None,
        forced_by: Vec::new(),
    };
    options
        .retry
        .run_while(&format!("apply {}", target.display_name()), retryable, async |_| {
            let read = match std::mem::take(&mut known) {
                Live::Unread => cluster.get(rt, namespace, name).await,
                Live::Absent => Err(client::Error::not_found(rt, name)),
                Live::Read(live) => Ok(live),
            };
            let live = match read {
                Ok(live) => live,
                Err(client::Error::NotFound(_)) => {
                    let created = if options.dry_run == super::DryRun::Client {
                        Ok(modified.clone())
                    } else {
                        cluster.create(rt, namespace, modified, &write).await
                    };
                    return Ok(outcome(Action::Created, created?, None, None, false));
                }
                Err(err) => return Err(err.into()),
            };
            if schema.is_none() {
                schema = Some(if options.openapi_patch {
                    cluster.patch_schema(&rt.api_version(), &rt.kind).await
                } else {
                    KindSchema::for_builtin(None, &rt.api_version(), &rt.kind)
                });
            }
            let patcher = KindPatcher::for_kind(schema.as_ref().expect("just looked up").as_ref());
            let recorded = last_applied::recorded(&live);
            let missing_last_applied = recorded.is_none();
            let recorded = recorded.unwrap_or(Value::Null);
            // Fields the ignore rules leave alone are neither in the configuration nor in what
            // it is compared with: the patch neither sets nor removes them.
            let three_way = |rules: &IgnoreRules| -> Result<Patch, Error> {
                if !rules.any_for(target) {
                    return Ok(patcher.three_way(&recorded, modified, &live, overwrite)?);
                }
                let (mut document, mut original) = (manifest.document.clone(), recorded.clone());
                rules.strip(target, &mut document, &live);
                rules.strip(target, &mut original, &live);
                Ok(patcher.three_way(&original, &modified_of(&document, options), &live, overwrite)?)
            };
            let mut patch = three_way(&options.ignore)?;
            let mut warnings = Vec::new();
            // Someone else changed the replicas since the last apply (an autoscaler would have):
            // only then is it worth asking whether an autoscaler owns them.
            if let Some(autoscalers) = &options.autoscalers
                && sets_replicas(&patch)
                && live.pointer("/spec/replicas") != recorded.pointer("/spec/replicas")
                && let Some((rules, line)) = autoscalers.keep_replicas(cluster, target, &options.ignore).await
            {
                patch = three_way(&rules)?;
                warnings.push(line);
            }
            let done = |action, object| {
                let mut done = outcome(action, object, Some(&live), Some(patch.clone()), missing_last_applied);
                done.warnings = warnings.clone();
                done
            };
            if patch.is_empty() {
                return Ok(done(Action::Unchanged, live.clone()));
            }
            // kubectl sends such a patch too, and the server writes nothing (the resourceVersion
            // stays): configurations that carry an empty `status` or `creationTimestamp: null`, as
            // generated CRDs do, or a field the server keeps otherwise than it is written (`cpu:
            // 1000m`, `preserveUnknownFields: false`), would otherwise be patched on every apply.
            let node =
                schema.as_ref().expect("looked up above").as_ref().map_or(SchemaNode::unknown(), KindSchema::node);
            if let Some(document) = noop::may_write_nothing(&patch, node) {
                let before = noop::reach(&live, document);
                let patched = patcher.apply(before.clone(), &patch)?;
                let status_writer = match cluster.keeps_status_ownership_to_subresource().await {
                    true => None,
                    false => Some(options.field_manager()),
                };
                if noop::writes_nothing(&live, &before, &patched, rt, status_writer, node) {
                    return Ok(done(Action::Unchanged, live.clone()));
                }
            }
            if options.dry_run == super::DryRun::Client {
                let object = patcher.apply(live.clone(), &patch)?;
                return Ok(done(Action::Configured, object));
            }
            let object = cluster.patch(rt, namespace, name, &patch, &write).await?;
            Ok(done(Action::Configured, object))
        })
        .await
}
