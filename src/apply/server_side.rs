//! Server-side apply of one object, as kubectl does it: the configuration is sent as an apply
//! patch; then, for an object that client-side apply managed before, the last-applied annotation
//! is kept in step under its own manager when the applying manager is kubectl's default (so that
//! going back to client-side apply works), the client-side managers' fields are migrated to the
//! applying manager, and the configuration is applied again, so that what it no longer has is
//! removed. Under another manager the annotation migrates with the other fields and that apply
//! removes it, as kubectl 1.37's does: the server keeps it in step for `kubectl` alone. Checking
//! afterwards costs no request when there is nothing to migrate.

use serde_json::{Value, json};

use super::ignore::IgnoreRules;
use super::object::Live;
use super::ownership::{self, LAST_APPLIED_MANAGER};
use super::{Action, ApplyOptions, DryRun, Error, Outcome, last_applied};
use crate::client::{self, Cluster, RetryPolicy, WriteOptions};
use crate::merge::{Patch, json_patch};
use crate::resource::Manifest;

/// Applies `manifest` server-side; `live` is what a list showed of the object, if anything.
pub(super) async fn apply(
    cluster: &Cluster,
    manifest: &Manifest,
    live: Live,
    options: &ApplyOptions,
) -> Result<Outcome, Error> {
    let target = &manifest.object;
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    // What --force-conflicts takes is told from the ownership before and after.
    let forcing = matches!(options.mode, super::Mode::ServerSide { force_conflicts: true });
    // The object before (`None`: it did not exist), to say what the apply did and what
    // --force-conflicts took: from a list, or read.
    let before = match live {
        Live::Read(live) => Some(live),
        Live::Absent => None,
        Live::Unread => match cluster.get(rt, namespace, name).await {
            Ok(live) => Some(live),
            Err(client::Error::NotFound(_)) => None,
            Err(err) => return Err(err.into()),
        },
    };
    // Fields the ignore rules leave alone are not applied: their owners keep them. Replicas an
    // autoscaler scales are the autoscaler's, when this apply would change them.
    let mut warnings = Vec::new();
    let mut rules = std::borrow::Cow::Borrowed(&*options.ignore);
    let mut document = manifest.document.clone();
    if let Some(live) = &before {
        let replicas = document.pointer("/spec/replicas");
        if let Some(autoscalers) = &options.autoscalers
            && replicas.is_some()
            && live.pointer("/spec/replicas") != replicas
            && let Some((kept, line)) = autoscalers.keep_replicas(cluster, target, &rules).await
        {
            rules = std::borrow::Cow::Owned(kept);
            warnings.push(line);
        }
        if rules.any_for(target) {
            rules.strip(target, &mut document, live);
            rules.keep_applied(target, &mut document, live, options.field_manager());
        }
    }
    let configuration = Patch::Apply(document);
    let write = options.write_options();
    let applied = match cluster.patch(rt, namespace, name, &configuration, &write).await {
        // The server forgives conflicts with client-side apply's fields to the manager `kubectl`
        // only; for any other, those fields are migrated first, then the configuration applied.
        // What the server does not forgive `kubectl` stays a conflict, as kubectl reports it.
        Err(client::Error::Conflict(status)) if options.field_manager() != super::SERVER_SIDE_MANAGER => {
            take_over_client_side(cluster, manifest, before.as_ref(), &configuration, &rules, status, options).await
        }
        applied => applied.map_err(Error::from),
    };
    let applied = match applied {
        Err(Error::Client(client::Error::Conflict(status))) => {
            return Err(named_conflicts(cluster, manifest, before, status).await);
        }
        applied => applied?,
    };
    // A subresource's apply (`--subresource`) is only that: the object's annotation and
    // ownership are not the subresource's to migrate.
    let client_side =
        if options.subresource.is_some() { Vec::new() } else { ownership::client_side_managers(&applied) };
    let recorded = keeps_annotation(options, &applied)
        .then(|| last_applied::server_side_text(&manifest.document))
        .filter(|text| fits(&manifest.document, text));
    let object = if options.dry_run == DryRun::Server {
        let dropped = !keeps_annotation(options, &applied);
        dry_run_result(cluster, manifest, applied, &client_side, recorded, dropped, options).await?
    } else {
        let mut object = applied;
        if let Some(recorded) = recorded {
            match keep_annotation(cluster, manifest, &object, &recorded).await {
                Ok(Some(updated)) => object = updated,
                Ok(None) => {}
                Err(err) => warnings.push(format!(
                    "failed to migrate {} for Server-Side Apply. This is non-fatal and will be retried next time \
                     you apply. Error: {}",
                    last_applied::ANNOTATION,
                    err.line().trim_start_matches("error: ")
                )),
            }
        }
        if !client_side.is_empty() {
            match migrate(cluster, manifest, object.clone(), &client_side, &rules, options).await {
                Ok(false) => {}
                Ok(true) => match cluster.patch(rt, namespace, name, &configuration, &write).await {
                    Ok(reapplied) => object = reapplied,
                    Err(err) => warnings.push(format!(
                        "failed to re-apply configuration after performing Server-Side Apply migration. This is \
                         non-fatal and will be retried next time you apply. Error: {}",
                        err.line().trim_start_matches("error: ")
                    )),
                },
                Err(err) => warnings.push(format!(
                    "server rejected managed fields migration to Server-Side Apply. This is non-fatal and will be \
                     retried next time you apply. Error: {}",
                    err.line().trim_start_matches("error: ")
                )),
            }
        }
        object
    };
    let change = Some(effect(before.as_ref(), &object, options.dry_run == DryRun::Server));
    let taken = match (&before, forcing) {
        (Some(before), true) => super::conflicts::taken_over(before, &object, options.field_manager()),
        _ => Vec::new(),
    };
    Ok(Outcome {
        action: Action::ServerSideApplied,
        target: target.clone(),
        object,
        before: before.filter(|_| options.keep_live),
        patch: Some(configuration),
        missing_last_applied: false,
        warnings,
        taken,
        change,
        forced_by: Vec::new(),
    })
}

/// Whether the last-applied annotation `applied` has is kept in step with the configuration: under
/// kubectl's default manager, whose applies the server keeps it in step for (kubectl keeps it for
/// that manager alone), and never for a subresource's apply.
fn keeps_annotation(options: &ApplyOptions, applied: &Value) -> bool {
    options.subresource.is_none()
        && options.field_manager() == super::SERVER_SIDE_MANAGER
        && last_applied::text(applied).is_some()
}

/// What a server-side apply did to an object, from the object before (`None`: it did not exist)
/// and after: its resourceVersion moved or not; a server dry run, which moves none, compares
/// the objects without what the server sets.
fn effect(before: Option<&Value>, after: &Value, dry_run: bool) -> Action {
    let Some(before) = before else { return Action::Created };
    let changed = if dry_run {
        let content = |object: &Value| {
            let mut object = object.clone();
            if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                for field in ["managedFields", "resourceVersion", "generation"] {
                    metadata.remove(field);
                }
            }
            object
        };
        content(before) != content(after)
    } else {
        before["metadata"]["resourceVersion"] != after["metadata"]["resourceVersion"]
    };
    if changed { Action::Configured } else { Action::Unchanged }
}

/// A refused apply's conflicts, each with the live value and the configuration's. The refused
/// apply changed nothing, so the object read before it (`before`) is the live one; an object not
/// read before is read now (and without it, only our values are shown).
async fn named_conflicts(
    cluster: &Cluster,
    manifest: &Manifest,
    before: Option<Value>,
    status: client::Status,
) -> Error {
    let target = &manifest.object;
    let live = match before {
        Some(before) => Some(before),
        None => cluster.get(&target.rt, target.namespace.as_deref(), &target.name).await.ok(),
    };
    let conflicts = super::conflicts::named(&status, live.as_ref(), &manifest.document);
    Error::ApplyConflicts { status, conflicts }
}

/// After a server-side apply conflicted only with client-side apply's managers: moves their
/// fields to the applying manager and applies again (a server dry run, which cannot move them,
/// applies as if they had moved: with force). Any other conflict stays an error.
async fn take_over_client_side(
    cluster: &Cluster,
    manifest: &Manifest,
    before: Option<&Value>,
    configuration: &Patch,
    rules: &IgnoreRules,
    conflict: client::Status,
    options: &ApplyOptions,
) -> Result<Value, Error> {
    let target = &manifest.object;
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    // The refused apply changed nothing, so the object read before it is the live one. Were it
    // changed since, the migration's version would be stale: a conflict, after which it reads
    // the object again.
    let live = match before {
        Some(before) => before.clone(),
        None => cluster.get(rt, namespace, name).await?,
    };
    let client_side = ownership::client_side_managers(&live);
    if client_side.is_empty() || !ownership::conflicts_only_with(&conflict, &client_side) {
        return Err(client::Error::Conflict(conflict).into());
    }
    let write = options.write_options();
    if options.dry_run == DryRun::Server {
        let forced = WriteOptions { force: true, ..write };
        return Ok(cluster.patch(rt, namespace, name, configuration, &forced).await?);
    }
    // The annotation moves with client-side apply's fields to this manager (not kubectl's), and the
    // apply that follows removes it, as kubectl's migration under another manager does.
    migrate(cluster, manifest, live, &client_side, rules, options).await?;
    Ok(cluster.patch(rt, namespace, name, configuration, &write).await?)
}

/// Whether `document`'s annotations with `recorded` as its last-applied annotation stay within the
/// server's limit: one that would not is not kept in step (the server drops it then, for the
/// manager `kubectl`).
fn fits(document: &Value, recorded: &str) -> bool {
    last_applied::annotations_size(document, recorded) <= super::ANNOTATIONS_LIMIT
}

/// Keeps the last-applied annotation in step with the configuration, owned by its own manager,
/// unless it already is (for kubectl's default manager, whose later applies the server keeps it
/// in step for). Returns the object afterwards when a write was needed.
async fn keep_annotation(
    cluster: &Cluster,
    manifest: &Manifest,
    object: &Value,
    recorded: &str,
) -> Result<Option<Value>, client::Error> {
    if last_applied::text(object) == Some(recorded) && ownership::annotation_has_apply_owner(object) {
        return Ok(None);
    }
    let target = &manifest.object;
    let mut metadata = json!({"name": target.name, "annotations": {last_applied::ANNOTATION: recorded}});
    if let Some(namespace) = &target.namespace {
        metadata["namespace"] = Value::String(namespace.clone());
    }
    let annotation = json!({"apiVersion": target.rt.api_version(), "kind": target.rt.kind, "metadata": metadata});
    // The annotation is the only field of this manager; it takes it over from client-side apply.
    let write =
        WriteOptions { field_manager: Some(LAST_APPLIED_MANAGER.into()), force: true, ..WriteOptions::default() };
    let patched =
        cluster.patch(&target.rt, target.namespace.as_deref(), &target.name, &Patch::Apply(annotation), &write).await?;
    Ok(Some(patched))
}

/// Moves the client-side managers' fields to `manager` with a JSON patch of managedFields that
/// also tests the resourceVersion, read again after a conflict. Returns whether anything moved.
async fn migrate(
    cluster: &Cluster,
    manifest: &Manifest,
    mut object: Value,
    client_side: &[String],
    rules: &IgnoreRules,
    options: &ApplyOptions,
) -> Result<bool, client::Error> {
    let manager = options.field_manager();
    let target = &manifest.object;
    // Fields the ignore rules leave alone do not move to the applying manager: the next apply,
    // which leaves them out, would remove them.
    let ignored = rules.field_set(target);
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    let write = WriteOptions { field_manager: Some(manager.into()), ..WriteOptions::default() };
    RetryPolicy::default()
        .run(&format!("migrate {} to server-side apply", target.display_name()), async |attempt| {
            if attempt > 1 {
                object = cluster.get(rt, namespace, name).await?;
            }
            let Some(mut fields) = ownership::migrated(&object, client_side, manager) else { return Ok(false) };
            if let Some(ignored) = &ignored {
                ownership::exclude(&mut fields, manager, ignored);
            }
            let operations = json!([
                {"op": "replace", "path": "/metadata/managedFields", "value": fields},
                // A replace, not a test: a stale version is then a 409 Conflict, which is retried.
                {"op": "replace", "path": "/metadata/resourceVersion", "value": object["metadata"]["resourceVersion"]},
            ]);
            let patch = Patch::Json(json_patch::parse(&operations).expect("well-formed operations"));
            cluster.patch(rt, namespace, name, &patch, &write).await?;
            Ok(true)
        })
        .await
}

/// What the requests of a real apply would leave, shown from a dry run of the first: dry runs do
/// not build on each other, so the annotation and the migration are worked out here, and the
/// result goes through a dry-run update so that the server defaults what the migration removed,
/// as it does after a real apply.
async fn dry_run_result(
    cluster: &Cluster,
    manifest: &Manifest,
    applied: Value,
    client_side: &[String],
    recorded: Option<String>,
    annotation_dropped: bool,
    options: &ApplyOptions,
) -> Result<Value, Error> {
    let shown = with_migration_shown(applied, client_side, recorded, annotation_dropped);
    let Some(simulated) = shown.migrated else { return Ok(shown.object) };
    let mut body = simulated.clone();
    body["metadata"].as_object_mut().map(|metadata| metadata.remove("managedFields"));
    let target = &manifest.object;
    let write = WriteOptions { dry_run: true, ..options.write_options() };
    let mut defaulted = cluster.replace(&target.rt, target.namespace.as_deref(), &target.name, &body, &write).await?;
    defaulted["metadata"]["managedFields"] = simulated["metadata"]["managedFields"].clone();
    Ok(defaulted)
}

/// A dry run's answer with the annotation kept in step, and the migration worked out.
struct Shown {
    /// The answer with the annotation in step, when nothing is migrated.
    object: Value,
    /// The answer after the migration, when client-side managers' fields move.
    migrated: Option<Value>,
}

fn with_migration_shown(
    mut applied: Value,
    client_side: &[String],
    recorded: Option<String>,
    annotation_dropped: bool,
) -> Shown {
    if let Some(recorded) = recorded {
        if !ownership::annotation_has_apply_owner(&applied)
            && let Some(Value::Array(fields)) = applied.pointer_mut("/metadata/managedFields")
        {
            let api_version = fields.first().map_or(Value::Null, |entry| entry["apiVersion"].clone());
            fields.push(json!({"manager": LAST_APPLIED_MANAGER, "operation": "Apply", "apiVersion": api_version,
                               "fieldsType": "FieldsV1", "fieldsV1": ownership::annotation_set()}));
        }
        applied["metadata"]["annotations"][last_applied::ANNOTATION] = Value::String(recorded);
    }
    let migrated = ownership::migrated_dry_run(&applied, client_side, !annotation_dropped);
    Shown { object: applied, migrated }
}
