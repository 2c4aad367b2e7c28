//! Client-side apply of one object, as `kubectl apply` does it: create the object with the
//! last-applied annotation when it is absent; otherwise send the three-way patch between the last
//! applied configuration, the new one and the live object (strategic for built-in kinds, JSON
//! merge for the others), recomputed from a fresh read when the object changed meanwhile.

use std::time::Duration;

use anyhow::Context as _;
use serde_json::Value;

use super::retry::{RetryPolicy, is_conflict};
use super::{ApiError, Cluster, ConnectionError, ResourceType, WriteOptions, api_error, last_applied};
use crate::merge::{PatchType, json_merge, strategic};
use crate::schema::KindSchema;

/// How to apply.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// Overwrite fields that others changed since the last apply (kubectl's `--overwrite`).
    pub overwrite: bool,
    /// When the patch cannot be applied (a conflict that persists, an invalid patch), delete the
    /// object and create it again.
    pub force: bool,
    /// Compute everything locally and send nothing.
    pub client_dry_run: bool,
    /// Options of the writes: server dry run, field manager.
    pub write: WriteOptions,
    /// Attempts, and pauses between them, while the object keeps changing under us.
    pub retry: RetryPolicy,
    /// Record the configuration in the last-applied annotation, as apply does (diff does not).
    pub record: bool,
}

/// What is known of the live object before applying: nothing yet, or what a list showed.
#[derive(Debug, Clone, Default)]
pub enum Live {
    /// Read it first.
    #[default]
    Unread,
    /// Known not to exist.
    Absent,
    /// As read moments ago.
    Read(Value),
}

/// What applying did to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Created,
    Configured,
    Unchanged,
}

/// The result of applying one object.
#[derive(Debug, Clone)]
pub struct Applied {
    pub action: Action,
    /// The object afterwards: the server's answer, or what a client dry run computed.
    pub object: Value,
    /// The patch sent (or that would be sent); `None` when the object was created.
    pub patch: Option<Value>,
    /// Whether the patch is a strategic merge patch (else a JSON merge patch).
    pub strategic: bool,
    /// The live object had no last-applied annotation (created by other means than apply).
    pub missing_last_applied: bool,
}

impl Cluster {
    /// Applies `document` (its namespace already set for namespaced kinds) client-side.
    ///
    /// Each attempt reads the object first (the first may use `live`, e.g. from a list), so that
    /// a conflict, a create that finds the object already there, or a write whose answer was lost
    /// (the connection failed) is followed by a fresh read and a recomputed patch, never by a
    /// blind resend.
    pub async fn apply(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        document: &Value,
        live: Live,
        options: &ApplyOptions,
    ) -> anyhow::Result<Applied> {
        let name = document["metadata"]["name"].as_str().context("the object has no metadata.name")?;
        let modified = if options.record {
            last_applied::with_annotation(document)
        } else {
            last_applied::configuration(document)
        };
        let what = format!("apply {}/{name}", rt.group_kind_lower());
        let mut schema = None;
        // The action of a write whose answer was lost: a later read shows whether it happened.
        let mut unanswered: Option<Action> = None;
        let mut known = live;
        let retryable = |err: &anyhow::Error| {
            is_conflict(err) || is_lost(err) || api_error(err).is_some_and(|err| err.is_already_exists())
        };
        let applied = options
            .retry
            .run_while(&what, retryable, async |_| {
                let read = match std::mem::take(&mut known) {
                    Live::Unread => self.get(rt, namespace, name).await,
                    Live::Absent => Err(ApiError::not_found(rt, name).into()),
                    Live::Read(live) => Ok(live),
                };
                let live = match read {
                    Ok(live) => live,
                    Err(err) if api_error(&err).is_some_and(|err| err.is_not_found()) => {
                        let created = self.create_applied(rt, namespace, &modified, options).await;
                        if created.as_ref().is_err_and(is_lost) {
                            unanswered = Some(Action::Created);
                        }
                        return created;
                    }
                    Err(err) => return Err(err),
                };
                if schema.is_none() {
                    schema = Some(self.patch_schema(&rt.api_version(), &rt.kind).await?);
                }
                let schema = schema.as_ref().expect("just looked up").as_ref();
                let missing_last_applied = last_applied::recorded(&live).is_none();
                let (patch, patch_type) = three_way_patch(&live, &modified, schema, options.overwrite)?;
                let applied = |action, object, patch| Applied {
                    action,
                    object,
                    patch: Some(patch),
                    strategic: patch_type == PatchType::Strategic,
                    missing_last_applied,
                };
                if patch.as_object().is_some_and(|patch| patch.is_empty()) {
                    return Ok(applied(unanswered.unwrap_or(Action::Unchanged), live, patch));
                }
                if options.client_dry_run {
                    let object = apply_locally(live, &patch, patch_type, schema)?;
                    return Ok(applied(Action::Configured, object, patch));
                }
                match self.patch(rt, namespace, name, patch_type, serde_json::to_vec(&patch)?, &options.write).await {
                    Ok(object) => Ok(applied(Action::Configured, object, patch)),
                    Err(err) => {
                        if is_lost(&err) {
                            unanswered = Some(Action::Configured);
                        }
                        Err(err)
                    }
                }
            })
            .await;
        match applied {
            Err(err) if options.force && (is_conflict(&err) || api_error(&err).is_some_and(|err| err.is_invalid())) => {
                self.recreate(rt, namespace, name, &modified, options).await
            }
            applied => applied,
        }
    }

    async fn create_applied(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        modified: &Value,
        options: &ApplyOptions,
    ) -> anyhow::Result<Applied> {
        let object = if options.client_dry_run {
            modified.clone()
        } else {
            self.create(rt, namespace, modified, &options.write).await?
        };
        Ok(Applied { action: Action::Created, object, patch: None, strategic: false, missing_last_applied: false })
    }

    /// `--force`: deletes the object, waits until it is gone, and creates it from the configuration.
    async fn recreate(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        modified: &Value,
        options: &ApplyOptions,
    ) -> anyhow::Result<Applied> {
        tracing::info!(
            "{} {name}: the patch cannot be applied, deleting and creating the object (--force)",
            rt.group_resource()
        );
        self.delete(rt, namespace, name, &options.write).await?;
        if !options.write.dry_run {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
            loop {
                match self.get(rt, namespace, name).await {
                    Err(err) if api_error(&err).is_some_and(|err| err.is_not_found()) => break,
                    Err(err) => return Err(err),
                    Ok(_) if tokio::time::Instant::now() > deadline => {
                        anyhow::bail!("{} {name:?} was deleted but is still there after a minute", rt.group_resource())
                    }
                    Ok(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            }
        }
        let object = self.create(rt, namespace, modified, &options.write).await?;
        Ok(Applied { action: Action::Configured, object, patch: None, strategic: false, missing_last_applied: false })
    }
}

/// The connection failed: the server may or may not have carried the write out.
fn is_lost(err: &anyhow::Error) -> bool {
    err.downcast_ref::<ConnectionError>().is_some()
}

/// The patch from the live object to the new configuration, and its type.
fn three_way_patch(
    live: &Value,
    modified: &Value,
    schema: Option<&KindSchema>,
    overwrite: bool,
) -> anyhow::Result<(Value, PatchType)> {
    let original = last_applied::recorded(live).unwrap_or(Value::Null);
    Ok(match schema {
        Some(schema) => {
            (strategic::create_three_way(&original, modified, live, &schema.node(), overwrite)?, PatchType::Strategic)
        }
        None => (json_merge::create_three_way(&original, modified, live)?, PatchType::Merge),
    })
}

fn apply_locally(
    live: Value,
    patch: &Value,
    patch_type: PatchType,
    schema: Option<&KindSchema>,
) -> anyhow::Result<Value> {
    Ok(match (patch_type, schema) {
        (PatchType::Strategic, Some(schema)) => strategic::apply(live, patch.clone(), &schema.node())?,
        _ => json_merge::apply(live, patch),
    })
}
