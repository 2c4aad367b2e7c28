//! The apply engine: what `apply` (and `diff`, as a dry run, and `update`) do to objects, as
//! library code that neither parses flags nor prints.
//!
//! [`input`] reads the files `apply` and `diff` take into a [`Batch`], which checks the whole
//! input before the first write; [`Batch::run`] applies namespaces, and the
//! CustomResourceDefinitions of kinds the input has objects of, first, waits until those
//! definitions are established, then applies the rest with bounded concurrency, reading the live
//! objects of a type with one list. Each object is applied client-side (kubectl's three-way patch
//! and last-applied annotation, retried on conflicts, re-created under `--force`) or
//! server-side, and its [`Outcome`] is handed back to the caller to report; [`preview`] is what a
//! dry run of it shows (`diff`, and the plans of `diff --plan-out` and `apply --plan`).
//! [`read_modify_write`] is `update`'s and `replace`'s engine, [`send_patch`] the checked patch of
//! the other update verbs, and [`recreate`] the safe delete-and-create of `apply --force` and
//! `replace --force`.
//! [`applyset`] and [`prune`] find and delete what an earlier apply made and this one no longer
//! has (`--prune`). [`lost`] tells a request that failed at the transport from a server that is
//! gone: the object fails on its own, read back to say what is there, and the run goes on.

pub mod applyset;
mod autoscale;
mod batch;
pub mod conflicts;
mod crd;
mod error;
pub mod ignore;
mod immutable;
pub mod input;
pub mod last_applied;
mod live;
pub mod lost;
mod noop;
mod object;
pub mod opt_in;
pub mod order;
mod ownership;
mod patch;
pub mod preview;
pub mod prune;
mod recreate;
mod replace;
pub mod rollback;
pub mod saved_plan;
mod server_side;
mod stop;
mod update;
mod validate;

use serde_json::Value;

use crate::client::{FieldValidation, RetryPolicy, WriteOptions};
use crate::merge::Patch;
use crate::resource::ObjectRef;

pub use batch::{Batch, Gate, NoGate};
pub use conflicts::{Conflict, Taken};
pub use error::{ANNOTATIONS_LIMIT, Error, Kept, NotRestored};
pub use patch::{Landed, send_patch};
pub use recreate::{Deletion, Recreated, recreate};
pub use stop::{Stop, StopReason};
pub use update::{Modified, ModifyError, ModifyOptions, read_modify_write};
pub use validate::{InvalidFields, Verdict, aggregate, check as validate};

/// The field manager of client-side applies: kubectl's, so that later server-side applies by
/// either tool recognise the fields these applies set.
pub const CLIENT_SIDE_MANAGER: &str = "kubectl-client-side-apply";

/// The default field manager of server-side applies: kubectl's, so that objects applied by
/// either tool stay interchangeable (the same owner, no conflicts between the two).
pub const SERVER_SIDE_MANAGER: &str = "kubectl";

/// Whether a write is sent, only computed, or only checked by the server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DryRun {
    /// Send it.
    #[default]
    None,
    /// Compute the result locally and send nothing.
    Client,
    /// Let the server validate it without persisting (`dryRun=All`).
    Server,
}

/// Which apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// kubectl's client-side apply. `overwrite`: overwrite fields that others changed since the
    /// last apply (else they are conflicts). `force`: delete and re-create an object that cannot
    /// be patched.
    ClientSide { overwrite: bool, force: bool },
    /// Server-side apply. `force_conflicts`: take over fields that other managers own.
    ServerSide { force_conflicts: bool },
}

/// How many objects `apply` writes at once unless `--concurrency` says otherwise; `create -f`
/// creates as many at once.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// Attempts at a patch that conflicts, as many as kubectl's apply makes (its `maxPatchRetry`), so
/// that a failed apply has tried as often as kubectl's would have.
const KUBECTL_PATCH_ATTEMPTS: u32 = 5;

/// How to apply.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    pub mode: Mode,
    /// The field manager; `None` for the mode's default ([`CLIENT_SIDE_MANAGER`] or
    /// [`SERVER_SIDE_MANAGER`]).
    pub field_manager: Option<String>,
    pub dry_run: DryRun,
    /// Record the configuration in the last-applied annotation, as apply does (diff does not).
    pub record_last_applied: bool,
    /// Keep the live object as it was before in each outcome, reading it first where the mode
    /// would not (server-side apply): diff compares the two.
    pub keep_live: bool,
    /// How objects are checked against their schema (`--validate`).
    pub validation: FieldValidation,
    /// How many objects are applied at once.
    pub concurrency: usize,
    /// Attempts, and pauses between them, while an object keeps changing under us.
    pub retry: RetryPolicy,
    /// How `--force` deletes an object before creating it again.
    pub deletion: Deletion,
    /// With server-side apply: the subresource applied to (`--subresource`), not the object.
    pub subresource: Option<String>,
    /// Take strategic-merge metadata from the server's OpenAPI documents (`--openapi-patch`);
    /// `false` uses the metadata built into kubeupd, as kubectl then uses its built-in types.
    pub openapi_patch: bool,
    /// Fields of existing objects left as they are live.
    pub ignore: std::sync::Arc<ignore::IgnoreRules>,
    /// Keep the live replicas of objects an autoscaler scales (`--ignore-hpa`); `None`: apply them.
    pub autoscalers: Option<std::sync::Arc<autoscale::Autoscalers>>,
    /// The command line `--record` writes into each object's change-cause annotation, which then
    /// is part of the configuration applied (and of the last-applied one), as kubectl writes it.
    pub change_cause: Option<String>,
    /// Delete and create again every object whose configuration changes a field that cannot
    /// change (`--replace-immutable`); without it, only the objects that opt in themselves (see
    /// [`opt_in::replace`]) are replaced, and the others are refused before any write.
    pub replace_immutable: bool,
}

impl ApplyOptions {
    /// Options for `mode`, with the defaults of `kubectl apply`.
    pub fn new(mode: Mode) -> Self {
        ApplyOptions {
            mode,
            field_manager: None,
            dry_run: DryRun::None,
            record_last_applied: true,
            keep_live: false,
            validation: FieldValidation::Strict,
            concurrency: DEFAULT_CONCURRENCY,
            retry: RetryPolicy::default().with_attempts(KUBECTL_PATCH_ATTEMPTS),
            deletion: Deletion::default(),
            subresource: None,
            openapi_patch: true,
            ignore: Default::default(),
            autoscalers: None,
            change_cause: None,
            replace_immutable: false,
        }
    }

    /// The field manager the writes are recorded under.
    pub fn field_manager(&self) -> &str {
        match (&self.field_manager, self.mode) {
            (Some(manager), _) => manager,
            (None, Mode::ClientSide { .. }) => CLIENT_SIDE_MANAGER,
            (None, Mode::ServerSide { .. }) => SERVER_SIDE_MANAGER,
        }
    }

    fn write_options(&self) -> WriteOptions {
        WriteOptions {
            dry_run: self.dry_run == DryRun::Server,
            field_manager: Some(self.field_manager().to_string()),
            force: matches!(self.mode, Mode::ServerSide { force_conflicts: true }),
            subresource: self.subresource.clone(),
            field_validation: Some(self.validation),
        }
    }
}

/// What applying did to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Created,
    Configured,
    Unchanged,
    ServerSideApplied,
    /// Deleted and created again: its configuration changes a field that cannot change.
    Replaced,
}

/// The result of applying one object.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub action: Action,
    /// The object applied to.
    pub target: ObjectRef,
    /// The object afterwards: the server's answer, or what a client dry run computed.
    pub object: Value,
    /// The live object before, with [`ApplyOptions::keep_live`]; `None` when it did not exist.
    pub before: Option<Value>,
    /// The patch sent (or that would be sent); `None` when the object was created.
    pub patch: Option<Patch>,
    /// The live object had no last-applied annotation (it was created by other means than apply).
    pub missing_last_applied: bool,
    /// What went wrong after the object was applied, which the next apply will mend (kubectl's
    /// wording, without its `Warning: ` prefix).
    pub warnings: Vec<String>,
    /// With `--force-conflicts`: the fields taken from other managers.
    pub taken: Vec<Taken>,
    /// What a server-side apply did ([`Action::Created`], [`Action::Configured`] or
    /// [`Action::Unchanged`]), when the object before is known.
    pub change: Option<Action>,
    /// With [`Action::Replaced`]: the fields that cannot change whose change forced it.
    pub forced_by: Vec<&'static str>,
}
