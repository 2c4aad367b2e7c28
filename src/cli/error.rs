//! Why a command failed, kept typed up to the top so that it is printed the way kubectl prints
//! it: the server's words as they are, everything else after `error: `.

use crate::{apply, client, resource};

/// A command's failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Already shown to the user (per-object errors); only the exit status is left.
    #[error("exit status {0}")]
    Reported(u8),
    #[error(transparent)]
    Client(#[from] client::Error),
    #[error(transparent)]
    Resource(#[from] resource::Error),
    #[error(transparent)]
    Apply(#[from] apply::Error),
    /// A `create` generator's options kubectl refuses.
    #[error(transparent)]
    Generate(#[from] crate::generate::Error),
    /// A write of one object failed at the transport while the server still answers; the object
    /// was read back to say whether the write happened. Only that object failed.
    #[error("{}{object}: {lost}", .context.map(|context| format!("{context}: ")).unwrap_or_default())]
    Lost { context: Option<&'static str>, object: String, lost: Box<apply::lost::AnswerLost> },
    /// Anything else: flags that do not fit, unreadable files, the editor.
    #[error("{0:#}")]
    Other(#[from] anyhow::Error),
}

/// A command's result.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

impl Error {
    /// kubectl's line for this error; empty when it was already reported.
    pub fn line(&self) -> String {
        match self {
            Error::Reported(_) => String::new(),
            Error::Client(err) => err.line(),
            Error::Resource(err) => err.line(),
            Error::Apply(err) => err.line(),
            Error::Lost { .. } => format!("error: {self}"),
            // kubectl prints discovery's miss in `create role` as it is.
            Error::Generate(err @ crate::generate::Error::UnknownResource { .. }) => err.to_string(),
            Error::Generate(err) => format!("error: {err}"),
            // As kubectl, a message that starts with `error: ` already does not get it twice.
            Error::Other(err) => match format!("{err:#}") {
                message if message.starts_with("error: ") => message.trim_end_matches('\n').to_string(),
                message => format!("error: {message}"),
            },
        }
    }

    /// The message kubectl prints for this error among several: the server's words as they
    /// are, others without the `error: ` that [`Error::line`] adds.
    pub fn message(&self) -> String {
        match self {
            Error::Other(err) => format!("{err:#}"),
            Error::Lost { .. } => self.to_string(),
            other => {
                let line = other.line();
                line.strip_prefix("error: ").map(String::from).unwrap_or(line)
            }
        }
    }

    /// An error that is only a message: flags that do not fit together, and the like.
    pub fn msg(message: impl std::fmt::Display) -> Error {
        Error::Other(anyhow::anyhow!("{message}"))
    }

    /// Whether the server said the object does not exist (`--ignore-not-found`).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::Client(client::Error::NotFound(_)))
    }

    /// The process's exit status.
    pub fn exit_status(&self) -> u8 {
        match self {
            Error::Reported(status) => *status,
            _ => 1,
        }
    }
}
