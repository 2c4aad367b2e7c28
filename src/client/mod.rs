//! Talking to the API server: kubeconfig and contexts, discovery and REST mapping, dynamic object access.

mod error;

pub use error::ApiError;
