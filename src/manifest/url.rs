//! `-f https://...`: a manifest read from a URL as kubectl's `URLVisitor` reads it. Only a
//! `200 OK` is the file; a 5xx answer and a failed connection are tried again, twice, a second
//! apart; any other answer is refused at once.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::gocompat;
use crate::gocompat::http::{GetError, Response};

/// Whether kubectl takes `path` for a URL (`http://` or `https://` at its start), which it never
/// looks for on disk.
pub(super) fn is_url(path: &str) -> bool {
    path.starts_with("http://") || path.starts_with("https://")
}

/// How many times kubectl asks (its `defaultHttpGetAttempts`), and how long it waits in between.
const ATTEMPTS: u32 = 3;
const PAUSE: Duration = Duration::from_secs(1);

/// Why a URL gave no manifest, in kubectl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The last answer was not `200 OK`.
    #[error("unable to read URL {}, server reported {status_text}, status code={code}", gocompat::fmt::quote(.url))]
    Status { url: String, status_text: String, code: u16 },
    /// The last attempt got no answer.
    #[error(transparent)]
    Get(#[from] GetError),
}

/// The body of `url`, fetched with Go's `http.Get` once in a run: `apply --plan -f URL` reads
/// its input twice (to check the plan, then to apply), and both must see the same documents, as
/// with stdin.
pub(super) fn read(url: &str) -> Result<Vec<u8>, UrlError> {
    static READ: Mutex<BTreeMap<String, Vec<u8>>> = Mutex::new(BTreeMap::new());
    if let Some(body) = READ.lock().unwrap_or_else(PoisonError::into_inner).get(url) {
        return Ok(body.clone());
    }
    let body = read_with(url, gocompat::http::get, || std::thread::sleep(PAUSE))?;
    READ.lock().unwrap_or_else(PoisonError::into_inner).insert(url.to_string(), body.clone());
    Ok(body)
}

/// [`read`] with its GET and its pause given: up to [`ATTEMPTS`] GETs, the last failure the answer.
fn read_with(
    url: &str,
    mut get: impl FnMut(&str) -> Result<Response, GetError>,
    mut pause: impl FnMut(),
) -> Result<Vec<u8>, UrlError> {
    let mut failure = None;
    for attempt in 1..=ATTEMPTS {
        if attempt > 1 {
            pause();
        }
        let response = match get(url) {
            Ok(response) => response,
            Err(err) => {
                failure = Some(UrlError::Get(err));
                continue;
            }
        };
        if response.status == http::StatusCode::OK {
            return Ok(response.body);
        }
        let code = response.status.as_u16();
        failure = Some(UrlError::Status { url: url.to_string(), status_text: response.status_text, code });
        if !response.status.is_server_error() {
            break;
        }
    }
    Err(failure.expect("at least one attempt"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::StatusCode;

    fn answer(code: u16, reason: &str) -> Result<Response, GetError> {
        let status = StatusCode::from_u16(code).unwrap();
        Ok(Response { status, status_text: format!("{code} {reason}"), body: b"kind: x".to_vec() })
    }

    /// The answers `read_with` got, in turn, and how many times it paused.
    fn run(answers: Vec<Result<Response, GetError>>) -> (Result<Vec<u8>, UrlError>, usize, usize) {
        let mut answers = answers.into_iter();
        let (mut asked, mut paused) = (0, 0);
        let result = read_with(
            "https://example.com/app.yaml",
            |_| {
                asked += 1;
                answers.next().expect("no more answers than attempts")
            },
            || paused += 1,
        );
        (result, asked, paused)
    }

    #[test]
    fn only_http_and_https_at_the_start_name_a_url() {
        assert!(is_url("https://example.com/app.yaml") && is_url("http://127.0.0.1:8/x"));
        for path in ["app.yaml", "HTTP://example.com/x", "file:///x.yaml", "./https://x", "-"] {
            assert!(!is_url(path), "{path}");
        }
    }

    #[test]
    fn server_errors_and_lost_connections_are_asked_again_up_to_three_times() {
        let refused = || Err(GetError { url: "u".into(), reason: "connection refused".into(), refused: true });
        let (result, asked, paused) = run(vec![answer(503, "Service Unavailable"), refused(), answer(200, "OK")]);
        assert_eq!((result.unwrap(), asked, paused), (b"kind: x".to_vec(), 3, 2));
        let (result, asked, _) = run(vec![answer(500, "Internal Server Error"), refused(), refused()]);
        assert_eq!(result.unwrap_err().to_string(), "Get \"u\": connection refused");
        assert_eq!(asked, 3);
        let (result, asked, _) = run(vec![refused(), answer(502, "Bad Gateway"), answer(502, "Bad Gateway")]);
        assert_eq!(
            result.unwrap_err().to_string(),
            r#"unable to read URL "https://example.com/app.yaml", server reported 502 Bad Gateway, status code=502"#
        );
        assert_eq!(asked, 3);
    }

    #[test]
    fn other_answers_end_it_at_once_and_only_200_is_the_file() {
        for (code, reason) in [(404, "Not Found"), (403, "Forbidden"), (204, "No Content"), (304, "Not Modified")] {
            let (result, asked, paused) = run(vec![answer(code, reason)]);
            assert_eq!((asked, paused), (1, 0), "{code}");
            assert_eq!(
                result.unwrap_err().to_string(),
                format!(
                    "unable to read URL \"https://example.com/app.yaml\", server reported {code} {reason}, status code={code}"
                )
            );
        }
    }
}
