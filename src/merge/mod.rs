//! The merge engine: strategic merge patch, JSON merge patch and JSON patch. Pure: no I/O.

mod error;
pub mod json_merge;
pub mod json_patch;
pub mod strategic;
mod typed;

pub use error::{ErrorKind, MergeError};
pub use typed::{TypedPatch, TypedPatchError};

/// The kinds of patch the API server accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// RFC 6902 JSON patch: a list of operations.
    Json,
    /// RFC 7386 JSON merge patch.
    Merge,
    /// Kubernetes strategic merge patch (built-in kinds only).
    Strategic,
    /// Server-side apply.
    Apply,
}

impl PatchType {
    /// The request's `Content-Type` for this patch.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Json => "application/json-patch+json",
            PatchType::Merge => "application/merge-patch+json",
            PatchType::Strategic => "application/strategic-merge-patch+json",
            PatchType::Apply => "application/apply-patch+yaml",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PatchType;

    #[test]
    fn content_types_are_the_servers() {
        assert_eq!(PatchType::Strategic.content_type(), "application/strategic-merge-patch+json");
        assert_eq!(PatchType::Merge.content_type(), "application/merge-patch+json");
    }
}
