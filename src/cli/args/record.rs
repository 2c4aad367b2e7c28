//! `--record`.

use clap::Args;

/// `--record` (deprecated and hidden, as in kubectl): write the command line into the changed
/// object's `kubernetes.io/change-cause` annotation, which `rollout history` shows.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct RecordArg {
    /// Deprecated: record the command line in the object's kubernetes.io/change-cause annotation.
    #[arg(long = "record", hide = true)]
    pub record: bool,
}

impl RecordArg {
    /// The change cause to write, when asked: the command line as `global` holds it.
    pub fn cause(self, global: &crate::cli::GlobalArgs) -> Option<&str> {
        self.record.then_some(global.change_cause.as_str())
    }
}
