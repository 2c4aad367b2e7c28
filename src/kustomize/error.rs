//! Why a build failed.

/// Why a kustomization could not be built. The message names the file or directory.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub String);

/// A build that failed, with the warnings kustomize gave before it failed (kubectl prints them
/// before the error).
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct Failure {
    pub error: Error,
    pub warnings: Vec<String>,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure { error, warnings: Vec::new() }
    }
}
