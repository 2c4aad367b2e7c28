//! The merge engine: strategic merge patch, JSON merge patch and JSON patch. Pure: no I/O.

mod error;
pub mod strategic;

pub use error::{ErrorKind, MergeError};
