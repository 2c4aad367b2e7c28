//! One patch of one object, as the update verbs (`label`, `annotate`, `set`, `scale`, `rollout`)
//! send it, kubectl's `resource.Helper.Patch`: sent once, never retried. When its answer is lost
//! at the transport while the server still answers, the object is read back to say whether the
//! patch took effect ([`lost`]), and only that object fails.

use serde_json::Value;

use super::lost::{self, WriteError};
use crate::client::{Cluster, WriteOptions};
use crate::merge::Patch;
use crate::resource::ObjectRef;
use crate::schema::SchemaNode;

/// How to tell from the object read back whether a patch whose answer was lost took effect.
#[derive(Clone, Copy)]
pub enum Landed<'a> {
    /// Sending the patch again would change nothing ([`lost::patched`]); a strategic patch needs
    /// the `schema` of its kind.
    AsPatched(Option<SchemaNode<'a>>),
    /// The verb's own test of the object.
    When(&'a dyn Fn(&Value) -> bool),
}

/// Sends `patch` to `target` with `write`; returns the server's answer.
pub async fn send_patch(
    cluster: &Cluster,
    target: &ObjectRef,
    patch: &Patch,
    write: &WriteOptions,
    landed: Landed<'_>,
) -> Result<Value, WriteError> {
    let cause = match cluster.patch(&target.rt, target.namespace.as_deref(), &target.name, patch, write).await {
        Ok(answer) => return Ok(answer),
        Err(cause) => cause,
    };
    let took_effect = |live: &Value| match landed {
        Landed::AsPatched(schema) => lost::patched(live, patch, schema),
        Landed::When(test) => test(live),
    };
    // A server dry run leaves nothing to find.
    let applied = |live: Option<&Value>| !write.dry_run && live.is_some_and(took_effect);
    Err(lost::write_failed(cluster, target, cause, applied).await)
}
