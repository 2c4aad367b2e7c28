//! Option types that several verbs share.

use clap::ValueEnum;

/// `--dry-run`: `none` sends the request, `client` only computes it, `server` asks the server to
/// validate it without persisting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum DryRun {
    #[default]
    None,
    Client,
    Server,
}

impl DryRun {
    /// kubectl's suffix for messages: ` (dry run)`, ` (server dry run)`.
    pub fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }
}
