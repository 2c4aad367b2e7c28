//! Errors returned by the API server, printed the way kubectl prints them.

use std::fmt;

/// A `metav1.Status` failure from the API server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status code, e.g. 404.
    pub code: u16,
    /// Machine-readable reason, e.g. `NotFound`; may be empty.
    pub reason: String,
    /// The server's human-readable message.
    pub message: String,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reason.is_empty() {
            write!(f, "Error from server: {}", self.message)
        } else {
            write!(f, "Error from server ({}): {}", self.reason, self.message)
        }
    }
}

impl std::error::Error for ApiError {}
