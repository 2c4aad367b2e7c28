//! `--dry-run`.

use clap::{Args, ValueEnum};

use crate::apply;

/// `--dry-run`, with kubectl's spelling: the mode only after `=`, a bare flag meaning `client`.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct DryRunArg {
    /// `client` computes the result and sends nothing; `server` has the server check the write
    /// without persisting it.
    #[arg(long = "dry-run", value_enum, value_name = "MODE", default_value_t = DryRunMode::None, num_args = 0..=1,
          require_equals = true, default_missing_value = "client")]
    pub mode: DryRunMode,
}

/// The values of `--dry-run`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum DryRunMode {
    #[default]
    None,
    Client,
    Server,
}

impl DryRunArg {
    /// The engine's mode.
    pub fn mode(self) -> apply::DryRun {
        match self.mode {
            DryRunMode::None => apply::DryRun::None,
            DryRunMode::Client => apply::DryRun::Client,
            DryRunMode::Server => apply::DryRun::Server,
        }
    }

    /// kubectl's suffix for messages: ` (dry run)`, ` (server dry run)`.
    pub fn suffix(self) -> &'static str {
        match self.mode {
            DryRunMode::None => "",
            DryRunMode::Client => " (dry run)",
            DryRunMode::Server => " (server dry run)",
        }
    }
}
