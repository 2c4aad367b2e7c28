//! Client-side apply of one object, as `kubectl apply` does it: create the object with the
//! last-applied annotation when it is absent; otherwise send the three-way patch between the last
//! applied configuration, the new one and the live object (strategic for built-in kinds, JSON
//! merge for the others), recomputed from a fresh read when the object changed meanwhile.

use std::time::Duration;

use anyhow::Context as _;
use serde_json::Value;

use super::{Cluster, ResourceType, WriteOptions, api_error, last_applied};
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
    /// Attempts while the object keeps changing under us (at least 1).
    pub attempts: u32,
    /// Record the configuration in the last-applied annotation, as apply does (diff does not).
    pub record: bool,
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
    pub async fn apply(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        document: &Value,
        options: &ApplyOptions,
    ) -> anyhow::Result<Applied> {
        let name = document["metadata"]["name"].as_str().context("the object has no metadata.name")?;
        let modified = if options.record { last_applied::with_annotation(document) } else { last_applied::configuration(document) };
        let mut schema = None;
        let mut attempt = 1;
        loop {
            let live = match self.get(rt, namespace, name).await {
                Ok(live) => live,
                Err(err) if api_error(&err).is_some_and(|err| err.is_not_found()) => {
                    match self.create_applied(rt, namespace, &modified, options).await {
                        Err(err) if api_error(&err).is_some_and(|err| err.is_already_exists()) && attempt < options.attempts => {
                            attempt += 1;
                            continue;
                        }
                        created => return created,
                    }
                }
                Err(err) => return Err(err),
            };
            if schema.is_none() {
                schema = Some(self.patch_schema(&rt.api_version(), &rt.kind).await?);
            }
            let schema = schema.as_ref().expect("just looked up");
            let missing_last_applied = last_applied::recorded(&live).is_none();
            let (patch, patch_type) = three_way_patch(&live, &modified, schema.as_ref(), options.overwrite)?;
            let applied = |action, object, patch| Applied {
                action,
                object,
                patch: Some(patch),
                strategic: patch_type == PatchType::Strategic,
                missing_last_applied,
            };
            if patch.as_object().is_some_and(|patch| patch.is_empty()) {
                return Ok(applied(Action::Unchanged, live, patch));
            }
            if options.client_dry_run {
                let object = apply_locally(live, &patch, patch_type, schema.as_ref())?;
                return Ok(applied(Action::Configured, object, patch));
            }
            let sent = self.patch(rt, namespace, name, patch_type, serde_json::to_vec(&patch)?, &options.write).await;
            match sent {
                Ok(object) => return Ok(applied(Action::Configured, object, patch)),
                Err(err) if api_error(&err).is_some_and(|err| err.is_conflict()) && attempt < options.attempts => {
                    tracing::info!("{} {name}: the object changed meanwhile, applying again (attempt {})", rt.group_resource(), attempt + 1);
                    tokio::time::sleep(backoff(attempt)).await;
                    attempt += 1;
                }
                Err(err) if options.force && api_error(&err).is_some_and(|err| err.is_conflict() || err.is_invalid()) => {
                    return self.recreate(rt, namespace, name, &modified, options).await;
                }
                Err(err) => return Err(err),
            }
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
        tracing::info!("{} {name}: the patch cannot be applied, deleting and creating the object (--force)", rt.group_resource());
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

/// The patch from the live object to the new configuration, and its type.
fn three_way_patch(
    live: &Value,
    modified: &Value,
    schema: Option<&KindSchema>,
    overwrite: bool,
) -> anyhow::Result<(Value, PatchType)> {
    let original = last_applied::recorded(live).unwrap_or(Value::Null);
    Ok(match schema {
        Some(schema) => (strategic::create_three_way(&original, modified, live, &schema.node(), overwrite)?, PatchType::Strategic),
        None => (json_merge::create_three_way(&original, modified, live)?, PatchType::Merge),
    })
}

fn apply_locally(live: Value, patch: &Value, patch_type: PatchType, schema: Option<&KindSchema>) -> anyhow::Result<Value> {
    Ok(match (patch_type, schema) {
        (PatchType::Strategic, Some(schema)) => strategic::apply(live, patch.clone(), &schema.node())?,
        _ => json_merge::apply(live, patch),
    })
}

/// Exponential backoff from 50 ms, capped at 1 s, with jitter so that competing writers spread out.
fn backoff(attempt: u32) -> Duration {
    let base = Duration::from_millis(50).saturating_mul(1 << attempt.min(5)).min(Duration::from_secs(1));
    let jitter = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |now| now.subsec_nanos() % 1000);
    base.mul_f64(0.5 + jitter as f64 / 2000.0)
}
