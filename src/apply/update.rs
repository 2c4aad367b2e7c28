//! Read-modify-write, what `update` does: read the object, change it, and replace it carrying the
//! resourceVersion that was read, so that a write by someone else in between makes the server
//! refuse (409 Conflict) instead of losing that write; then read again and change again.

use std::fmt;

use serde_json::Value;

use super::DryRun;
use crate::client::{self, Cluster, RetryPolicy, WriteOptions};
use crate::resource::ObjectRef;

/// Options of a read-modify-write.
#[derive(Debug, Clone, Default)]
pub struct ModifyOptions {
    /// How many attempts, and how far apart, when other writers get in between.
    pub retry: RetryPolicy,
    /// The field manager, and the subresource to write instead of the object.
    pub write: WriteOptions,
    /// Send the write (`None`), only compute it (`Client`), or have the server check it (`Server`).
    pub dry_run: DryRun,
}

/// What a read-modify-write did.
#[derive(Debug, Clone, PartialEq)]
pub struct Modified {
    /// The object afterwards: the server's answer, what a client dry run computed, or the object
    /// as read when the change left it as it was (then nothing is sent).
    pub object: Value,
    /// Whether the object is different from the one read.
    pub changed: bool,
}

/// Why a read-modify-write failed: the server refused, or the change could not be made.
#[derive(Debug)]
pub enum ModifyError<E> {
    Client(client::Error),
    Change(E),
}

impl<E: fmt::Display> fmt::Display for ModifyError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModifyError::Client(err) => err.fmt(f),
            ModifyError::Change(err) => err.fmt(f),
        }
    }
}

impl<E> From<client::Error> for ModifyError<E> {
    fn from(err: client::Error) -> Self {
        ModifyError::Client(err)
    }
}

/// Reads `object`, lets `change` modify it, and replaces it with the resourceVersion that was
/// read. After a conflict the object is read again and `change` applied again, as
/// `options.retry` allows. When `change` leaves the object as it was, nothing is sent.
pub async fn read_modify_write<E: fmt::Display>(
    cluster: &Cluster,
    object: &ObjectRef,
    options: &ModifyOptions,
    mut change: impl FnMut(&mut Value) -> Result<(), E>,
) -> Result<Modified, ModifyError<E>> {
    let (rt, namespace, name) = (&object.rt, object.namespace.as_deref(), object.name.as_str());
    let write = WriteOptions { dry_run: options.dry_run == DryRun::Server, ..options.write.clone() };
    let conflict = |err: &ModifyError<E>| matches!(err, ModifyError::Client(err) if err.is_conflict());
    options
        .retry
        .run_while(&format!("update {}", object.display_name()), conflict, async |_| {
            let read = cluster.get(rt, namespace, name).await?;
            let mut changed = read.clone();
            change(&mut changed).map_err(ModifyError::Change)?;
            if let Some(version) = read.pointer("/metadata/resourceVersion") {
                changed["metadata"]["resourceVersion"] = version.clone();
            }
            if changed == read {
                return Ok(Modified { object: changed, changed: false });
            }
            if options.dry_run == DryRun::Client {
                return Ok(Modified { object: changed, changed: true });
            }
            let written = cluster.replace(rt, namespace, name, &changed, &write).await?;
            Ok(Modified { changed: written != read, object: written })
        })
        .await
}
