//! Go's words for the I/O errors a user sees most (`open FILE: no such file or directory`), as
//! `os.PathError` prints the system's error: lower case, without Rust's `(os error 2)`.

use std::io;

/// Go's text of `err`: its words for a missing file and a refused one, else the error as is.
pub fn error_text(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_errors_read_in_gos_words() {
        let missing = std::fs::read("/nonexistent/kubeupd-gocompat-os").unwrap_err();
        assert_eq!(error_text(&missing), "no such file or directory");
        assert_eq!(error_text(&io::Error::from(io::ErrorKind::PermissionDenied)), "permission denied");
        assert_eq!(error_text(&io::Error::other("disk on fire")), "disk on fire");
    }
}
