//! The merge engine: strategic merge patch, JSON merge patch and JSON patch, and [`Patch`], a
//! patch with its payload. Pure: no I/O; patch metadata comes from [`crate::schema`].

mod error;
pub mod json_merge;
pub mod json_patch;
mod patch;
pub mod strategic;

pub use error::{ErrorKind, MergeError};
pub use patch::{KindPatcher, Patch, PatchError, PatchType};
