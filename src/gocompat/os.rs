//! Go's words for the I/O errors a user sees most (`open FILE: no such file or directory`), as
//! `os.PathError` prints the system's error: lower case, without Rust's `(os error 2)`.

use std::io;

/// Go's text of `err`: its words for a missing file and a refused one, else the error as is.
pub fn error_text(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        // Go's errno texts are the C library's, lowercased (`not a directory`), without Rust's
        // ` (os error 20)`.
        _ if err.raw_os_error().is_some() => {
            let text = err.to_string();
            let text = text.rsplit_once(" (os error ").map_or(text.as_str(), |(text, _)| text);
            let mut chars = text.chars();
            chars.next().map(|first| first.to_lowercase().chain(chars).collect()).unwrap_or_default()
        }
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
        let not_a_directory = std::fs::metadata("/etc/hostname/x").unwrap_err();
        assert_eq!(error_text(&not_a_directory), "not a directory");
    }
}
