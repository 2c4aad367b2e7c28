//! Why an object could not be applied.

use std::path::PathBuf;

use crate::client;
use crate::merge::{MergeError, PatchError};
use crate::resource;

/// The most an object's annotations may hold, all together (the API server's limit).
pub const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// Why applying one object failed, or would fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server refused, or could not be asked.
    #[error(transparent)]
    Client(#[from] client::Error),
    /// The three-way patch could not be computed, e.g. it conflicts with changes made by others
    /// and `--overwrite=false`.
    #[error(transparent)]
    Merge(#[from] MergeError),
    /// A client dry run could not apply the patch it computed.
    #[error(transparent)]
    Patch(#[from] PatchError),
    /// The object's kind, defined by a CustomResourceDefinition in the input, is still not served.
    #[error(transparent)]
    Resolve(#[from] resource::Error),
    /// The object has fields its kind's schema does not declare, or values of the wrong type.
    #[error(transparent)]
    InvalidFields(#[from] super::InvalidFields),
    /// A dry run does not create the CustomResourceDefinition that the object's kind needs.
    #[error(
        "no matches for kind {kind:?} in version {api_version:?}: its CustomResourceDefinition is in this input, \
         and a dry run does not create it"
    )]
    KindNotCreatedInDryRun { kind: String, api_version: String },
    /// The ApplySet cannot be used, or the object belongs to another one.
    #[error(transparent)]
    ApplySet(#[from] super::applyset::Error),
    /// A request of this object failed at the transport while the server still answers: the
    /// object was read back to say whether it is applied.
    #[error(transparent)]
    AnswerLost(Box<super::lost::AnswerLost>),
    /// The run stopped (interrupted, or the server stopped answering) before this object started.
    #[error("not applied: the run stopped before this object")]
    NotApplied,
    /// The object's phase or stage did not start: what it waits for failed or is not ready.
    #[error("not applied: {0}")]
    Held(String),
    /// The ordering annotations cannot be followed.
    #[error(transparent)]
    Order(#[from] super::order::OrderError),
    /// `--force` deleted the object, and it did not go away in time (kubectl's words).
    #[error("timed out waiting for the condition on {resource}/{name}")]
    StillThere { resource: String, name: String },
    /// `--force` did not delete the object: the server refuses to create it from the new
    /// configuration (a dry-run create said so).
    #[error("{name} was not deleted ({why}): the server refuses to create it from the new configuration: {refused}")]
    RecreateRefused { name: String, why: &'static str, refused: client::Error },
    /// `--force` deleted the object, the server refused to create it from the new configuration,
    /// and the original was created again.
    #[error(
        "{name} was deleted ({why}) but could not be created from the new configuration: {refused}; the original was created again"
    )]
    Restored { name: String, why: &'static str, refused: client::Error },
    /// `--force` deleted the object, and neither the new configuration nor the original could be
    /// created.
    #[error(transparent)]
    NotRestored(Box<NotRestored>),
    /// The configuration changes fields the server does not let change: found before the first
    /// write, with the server's refusal of a dry run of it when it answered.
    #[error(
        "{}{object}: {}; to replace the object (delete it, wait until it is gone and create it again), apply with \
         --replace-immutable, or annotate it {}: Replace=true",
        .server.as_ref().map(|refusal| format!("{}; ", refusal.line())).unwrap_or_default(),
        .changes.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
        super::opt_in::ARGO_SYNC_OPTIONS
    )]
    Immutable { object: String, changes: Vec<super::immutable::ImmutableChange>, server: Option<client::Error> },
    /// A server-side apply refused for fields other managers own: each named, with both values.
    #[error("{}", .status.message)]
    ApplyConflicts { status: client::Status, conflicts: Vec<super::Conflict> },
    /// A request of `--force` failed at the transport and the server could not tell what is
    /// there now: the object may be gone, so the original was kept.
    #[error(transparent)]
    ForceLost(Box<ForceLost>),
}

/// A request of `--force` (or of a replacement) that failed at the transport with the object
/// perhaps gone: where the original is kept.
#[derive(Debug, thiserror::Error)]
#[error("{name}: {step} ({why}) failed: {cause}; whether the object is still there is unknown: {kept}")]
pub struct ForceLost {
    pub name: String,
    /// Why it was deleted: `--force`, or to replace it.
    pub why: &'static str,
    pub step: &'static str,
    pub cause: String,
    pub kept: Kept,
}

/// The object `--force` deleted and could not create again, neither from the new configuration
/// nor as it was: where the original is kept.
#[derive(Debug, thiserror::Error)]
#[error(
    "{name} was deleted ({why}) but could not be created from the new configuration: {refused}; creating the \
     original again failed too: {restore}; {kept}"
)]
pub struct NotRestored {
    pub name: String,
    /// Why it was deleted: `--force`, or to replace it.
    pub why: &'static str,
    pub refused: client::Error,
    pub restore: client::Error,
    pub kept: Kept,
}

/// Where the original of an object that could not be created again is kept.
#[derive(Debug, thiserror::Error)]
pub enum Kept {
    /// In this file, as YAML.
    #[error("the original is saved in {}", .0.display())]
    File(PathBuf),
    /// Only in this message: the file could not be written.
    #[error("it could not be saved ({unsaved}), so here it is:\n{original}")]
    Nowhere { unsaved: String, original: String },
}

impl Error {
    /// The server's error behind this one, if the server refused.
    pub fn client(&self) -> Option<&client::Error> {
        match self {
            Error::Client(err)
            | Error::Resolve(resource::Error::Client(err))
            | Error::ApplySet(super::applyset::Error::Client(err)) => Some(err),
            _ => None,
        }
    }

    /// kubectl's line for this error on its own (see [`client::Error::line`]).
    pub fn line(&self) -> String {
        match self.client() {
            Some(err) => err.line(),
            None => format!("error: {self}"),
        }
    }
}
