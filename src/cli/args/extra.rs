//! The words after a verb that takes none.

use clap::Args;

use crate::cli::Error;

/// Words after a verb that names no objects by them: cobra gives every verb any words, and each
/// of kubectl's verbs then refuses them ([`ExtraArgs::refuse`]) or leaves them unread.
#[derive(Debug, Clone, Default, Args)]
pub struct ExtraArgs {
    /// Not read (kubectl's scripts may pass them).
    #[arg(value_name = "ARGS", hide = true)]
    pub words: Vec<String>,
}

impl ExtraArgs {
    /// kubectl's usage error when words were given to the verb `path` (`apply`, `create`, `diff`).
    pub fn refuse(&self, path: &str) -> Result<(), Error> {
        match self.words.is_empty() {
            true => Ok(()),
            false => Err(Error::msg(format!(
                "Unexpected args: [{}]\nSee 'kubeupd {path} -h' for help and examples",
                self.words.join(" ")
            ))),
        }
    }
}
