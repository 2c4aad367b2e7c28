//! Files named by an http(s) URL, fetched as kustomize's file loader fetches them, with Go's
//! `http.Get` ([`gocompat::http`]): a 2xx answer's body is the file; any other status is
//! kustomize's `ErrHTTP`.

use http::{StatusCode, Uri};

use crate::gocompat;

/// Why a file could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// kustomize's `ErrHTTP`: the server answered, but not with the file.
    #[error("HTTP Error: status code {} ({})", .0.as_u16(), .0.canonical_reason().unwrap_or_default())]
    Status(StatusCode),
    /// No answer (or no usable one).
    #[error(transparent)]
    Get(#[from] gocompat::http::GetError),
    #[error("this loader does not fetch files over HTTP")]
    Unsupported,
}

/// kustomize's `IsRemoteFile`: whether `entry` is a URL with the `http` or `https` scheme.
pub fn is_remote_file(entry: &str) -> bool {
    entry.parse::<Uri>().is_ok_and(|uri| matches!(uri.scheme_str(), Some("http" | "https")) && uri.host().is_some())
}

/// The body of `url`.
pub fn get(url: &str) -> Result<Vec<u8>, FetchError> {
    let response = gocompat::http::get(url)?;
    match response.status.is_success() {
        true => Ok(response.body),
        false => Err(FetchError::Status(response.status)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_urls_are_remote_files() {
        assert!(is_remote_file("https://github.com/org/proj/releases/download/v1/install.yaml"));
        assert!(is_remote_file("http://127.0.0.1:8080/cm.yaml"));
        for entry in ["cm.yaml", "../base", "/abs/cm.yaml", "file:///srv/repo", "github.com/org/repo", "s3://b/x"] {
            assert!(!is_remote_file(entry), "{entry}");
        }
    }

    #[test]
    fn a_status_reads_as_kustomize_writes_it() {
        assert_eq!(FetchError::Status(StatusCode::NOT_FOUND).to_string(), "HTTP Error: status code 404 (Not Found)");
    }
}
