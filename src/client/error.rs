//! What can go wrong talking to the API server: [`Error`], typed so that callers match on what
//! happened (not found, conflict, invalid, forbidden, unreachable, ...), and [`Status`], the
//! server's own account of a failure, printed the way kubectl prints it.

use std::fmt;

use serde::Deserialize;

use super::mapping::MappingError;
use super::resource::ResourceType;

/// A `metav1.Status` failure from the API server: kubectl prints it as `Error from server (Reason): ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// HTTP status code, e.g. 404.
    pub code: u16,
    /// Machine-readable reason, e.g. `NotFound`; may be empty.
    pub reason: String,
    /// The server's human-readable message.
    pub message: String,
    /// What the failure is about, when the server said: kind, name and per-field causes.
    pub details: Option<Box<StatusDetails>>,
}

/// `metav1.StatusDetails`: the object a failure is about and its causes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct StatusDetails {
    pub name: String,
    pub group: String,
    pub kind: String,
    pub causes: Vec<StatusCause>,
}

/// `metav1.StatusCause`: one reason a request failed, often tied to a field path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct StatusCause {
    pub reason: String,
    pub message: String,
    pub field: String,
}

/// The parts of a `metav1.Status` body that an error needs.
#[derive(Deserialize)]
struct StatusBody {
    kind: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    details: Option<Box<StatusDetails>>,
}

impl Status {
    /// Builds the error for a failed response from its HTTP status and body: the body's
    /// `metav1.Status` when it is one, else the HTTP status text with the body as the message.
    pub fn from_response(status: http::StatusCode, body: &[u8]) -> Self {
        if let Ok(parsed) = serde_json::from_slice::<StatusBody>(body)
            && parsed.kind == "Status"
        {
            return Status {
                code: status.as_u16(),
                reason: parsed.reason,
                message: parsed.message,
                details: parsed.details,
            };
        }
        let text = String::from_utf8_lossy(body).trim().to_string();
        let (reason, message) = generic_response(status.as_u16(), &text);
        Status { code: status.as_u16(), reason: reason.to_string(), message, details: None }
    }

    /// Whether the server's reason is `Invalid` (a 422 in practice): the object failed validation.
    fn is_invalid(&self) -> bool {
        self.reason == "Invalid"
    }

    /// kubectl's wording for `Invalid`: `The Deployment "web" is invalid: field: message`, with one
    /// `* field: message` line per cause when there are several.
    fn fmt_invalid(&self, details: &StatusDetails, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = if details.kind.is_empty() && details.name.is_empty() {
            format!("The request is invalid: {}", self.message)
        } else {
            format!("The {} {:?} is invalid", details.kind, details.name)
        };
        let mut causes: Vec<String> = Vec::new();
        for cause in &details.causes {
            let line = format!("{}: {}", cause.field, cause.message);
            if !causes.contains(&line) {
                causes.push(line);
            }
        }
        match causes.as_slice() {
            [] => write!(f, "{prefix}"),
            [only] => write!(f, "{prefix}: {only}"),
            many => {
                write!(f, "{prefix}: ")?;
                for line in many {
                    write!(f, "\n* {line}")?;
                }
                Ok(())
            }
        }
    }
}

/// The reason and message client-go gives a failed response whose body is not a `metav1.Status`
/// (a proxy's page, `404 page not found` for a path the server does not serve): apimachinery's
/// generic words for the HTTP status, with the body's text only where they keep it.
fn generic_response(code: u16, text: &str) -> (&'static str, String) {
    let text = if text.is_empty() { "unknown" } else { text };
    let (reason, message) = match code {
        409 => ("Conflict", "the server reported a conflict"),
        404 => ("NotFound", "the server could not find the requested resource"),
        400 => ("BadRequest", "the server rejected our request for an unknown reason"),
        401 => ("Unauthorized", "the server has asked for the client to provide credentials"),
        403 => ("Forbidden", text),
        406 if text == "unknown" => {
            ("NotAcceptable", "the server was unable to respond with a content type that the client supports")
        }
        406 => ("NotAcceptable", text),
        415 => ("UnsupportedMediaType", text),
        405 => ("MethodNotAllowed", "the server does not allow this method on the requested resource"),
        422 => ("Invalid", "the server rejected our request due to an error in our request"),
        503 => ("ServiceUnavailable", "the server is currently unable to handle the request"),
        504 => (
            "Timeout",
            "the server was unable to return a response in the time allotted, but may still be processing the request",
        ),
        429 => ("TooManyRequests", "the server has received too many requests and has asked us to try again later"),
        500.. => {
            return (
                "InternalError",
                format!(
                    "an error on the server ({}) has prevented the request from succeeding",
                    crate::gocompat::fmt::quote(text)
                ),
            );
        }
        _ => {
            return (
                "",
                format!("the server responded with the status code {code} but did not return more information"),
            );
        }
    };
    (reason, message.to_string())
}

/// kubectl's wording: `Error from server (NotFound): ...`, the `The X "y" is invalid: ...` form, or
/// `error: You must be logged in to the server (...)` when the credentials were not accepted.
impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (true, Some(details)) = (self.is_invalid(), &self.details) {
            return self.fmt_invalid(details, f);
        }
        if self.reason == "Unauthorized" {
            write!(f, "error: You must be logged in to the server ({})", self.message)
        } else if self.reason.is_empty() {
            write!(f, "Error from server: {}", self.message)
        } else {
            write!(f, "Error from server ({}): {}", self.reason, self.message)
        }
    }
}

/// A failed request, by what the caller can do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The object does not exist (404).
    #[error("{0}")]
    NotFound(Status),
    /// A create found the object already there (409 `AlreadyExists`).
    #[error("{0}")]
    AlreadyExists(Status),
    /// The write lost a race with another writer, or a server-side apply met fields that other
    /// managers own (409 `Conflict`): read again, or take the fields over.
    #[error("{0}")]
    Conflict(Status),
    /// The object, or the patch, failed validation (422, or the reason `Invalid`).
    #[error("{0}")]
    Invalid(Status),
    /// The patch cannot be applied to the object as it is (400 `BadRequest`).
    #[error("{0}")]
    BadRequest(Status),
    /// The server does not accept this request's content type, e.g. a strategic merge patch of a
    /// custom resource (415).
    #[error("{0}")]
    UnsupportedMediaType(Status),
    /// The credentials are not allowed to do this (403).
    #[error("{0}")]
    Forbidden(Status),
    /// The credentials were not accepted (401).
    #[error("{0}")]
    Unauthorized(Status),
    /// A watch (or list) asked for a `resourceVersion` the server no longer keeps (410 Gone, "too
    /// old resource version"): list again to start from the present.
    #[error("{0}")]
    Gone(Status),
    /// The server is overloaded and asked to come back later (429), still after retries.
    #[error("{0}")]
    TooManyRequests(Status),
    /// Any other failure the server answered with, e.g. 500 or 503.
    #[error("{0}")]
    Server(Status),
    /// The server could not be reached, or the connection failed before an answer came: a write
    /// may or may not have been carried out.
    #[error("cannot reach the API server at {server}: {cause}")]
    Unreachable {
        /// The server URL from the kubeconfig.
        server: String,
        /// The lowest-level cause, in words, e.g. `connection refused`.
        cause: String,
    },
    /// The server's certificate was not accepted, or the TLS handshake failed otherwise: sending
    /// again cannot help, and no request reached the server.
    #[error("cannot connect to the API server at {server} over TLS: {cause}")]
    Tls {
        /// The server URL from the kubeconfig.
        server: String,
        /// In Go's words where kubectl has them (`tls: failed to verify certificate: x509:
        /// certificate signed by unknown authority`).
        cause: String,
    },
    /// No answer came within `--request-timeout`.
    #[error("the request to {url} timed out after {limit}")]
    Timeout {
        /// The request's URL.
        url: String,
        /// The limit, as the user wrote it (`1s`).
        limit: String,
    },
    /// The credentials could not be obtained (an exec plugin failed, a token file is missing).
    #[error("cannot get credentials for {server}: {message}")]
    Credentials { server: String, message: String },
    /// The kubeconfig, or the connection flags, do not describe a usable cluster.
    #[error("{0}")]
    Config(String),
    /// The server serves no resource type by that name or kind.
    #[error(transparent)]
    Mapping(#[from] MappingError),
    /// The server answered with something that is not what the API promises.
    #[error("the server sent an invalid answer for {path}: {reason}")]
    InvalidResponse { path: String, reason: String },
    /// The request could not be made, e.g. an object name that cannot be part of a URL.
    #[error("cannot make the request for {path}: {reason}")]
    InvalidRequest { path: String, reason: String },
    /// The node's words on a forwarded connection's error stream (its port refused, say).
    #[error("{0}")]
    ForwardingFailed(String),
}

/// The cause of [`Error::Unreachable`] when nothing listens at the server's address.
pub(crate) const CONNECTION_REFUSED: &str = "connection refused";

/// A client result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error for a failed response, by its HTTP status and `metav1.Status` body.
    pub fn from_response(status: http::StatusCode, body: &[u8]) -> Self {
        Error::from_status(Status::from_response(status, body))
    }

    /// The error for the server's account of a failure, by its code and reason.
    fn from_status(status: Status) -> Self {
        match (status.code, status.reason.as_str()) {
            (_, "Invalid") | (422, _) => Error::Invalid(status),
            (404, _) => Error::NotFound(status),
            (409, "AlreadyExists") => Error::AlreadyExists(status),
            (409, _) => Error::Conflict(status),
            (400, _) => Error::BadRequest(status),
            (401, _) => Error::Unauthorized(status),
            (403, _) => Error::Forbidden(status),
            (410, _) => Error::Gone(status),
            (415, _) => Error::UnsupportedMediaType(status),
            (429, _) => Error::TooManyRequests(status),
            _ => Error::Server(status),
        }
    }

    /// The error for an object a list showed not to exist, worded as the server words it.
    pub fn not_found(rt: &ResourceType, name: &str) -> Self {
        Error::NotFound(Status {
            code: 404,
            reason: "NotFound".into(),
            message: format!("{} {name:?} not found", rt.group_resource()),
            details: None,
        })
    }

    /// The server's own account of the failure, when the server answered.
    pub fn status(&self) -> Option<&Status> {
        match self {
            Error::NotFound(status)
            | Error::AlreadyExists(status)
            | Error::Conflict(status)
            | Error::Invalid(status)
            | Error::BadRequest(status)
            | Error::UnsupportedMediaType(status)
            | Error::Forbidden(status)
            | Error::Unauthorized(status)
            | Error::Gone(status)
            | Error::TooManyRequests(status)
            | Error::Server(status) => Some(status),
            _ => None,
        }
    }

    /// The error with `context` before the server's message, as kubectl says where a request came
    /// from: `Error from server (NotFound): error when replacing "app.yaml": configmaps "x" not found`.
    pub fn in_context(self, context: &str) -> Self {
        match self.status() {
            Some(status) => {
                Error::from_status(Status { message: format!("{context}: {}", status.message), ..status.clone() })
            }
            None => self,
        }
    }

    /// The connection failed: the server may or may not have carried out a write.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Error::Unreachable { .. })
    }

    /// The request failed at the transport: the connection failed or closed before the whole
    /// answer came, or no answer came in time. Whether a write happened is not known.
    pub fn is_transport(&self) -> bool {
        matches!(self, Error::Unreachable { .. } | Error::Timeout { .. })
    }

    /// kubectl's words for a request that failed at the transport: `Unable to connect to the
    /// server: ...`, with the lowest cause; `None` for other errors.
    pub fn transport_line(&self) -> Option<String> {
        match self {
            Error::Unreachable { cause, .. } | Error::Tls { cause, .. } => {
                Some(format!("Unable to connect to the server: {cause}"))
            }
            Error::Timeout { limit, .. } => {
                Some(format!("Unable to connect to the server: the request timed out after {limit}"))
            }
            _ => None,
        }
    }

    /// The write lost a race (409 `Conflict`).
    pub fn is_conflict(&self) -> bool {
        matches!(self, Error::Conflict(_))
    }

    /// kubectl's line for this error on its own: the server's words (`Error from server
    /// (NotFound): ...`, `The Deployment "web" is invalid: ...`) as they are; a server that cannot be
    /// reached in kubectl's words without `error: ` (a refused connection names the host and asks
    /// about it, as scripts waiting for an apiserver grep for); others after `error: `.
    pub fn line(&self) -> String {
        if let Error::Unreachable { server, cause } = self
            && cause == CONNECTION_REFUSED
        {
            let host = server.split_once("://").map_or(server.as_str(), |(_, rest)| rest);
            return refused_line(host.split('/').next().unwrap_or(host));
        }
        if let Some(line) = self.transport_line() {
            return line;
        }
        match self.status() {
            Some(status) => status.to_string(),
            None => format!("error: {self}"),
        }
    }
}

/// kubectl's line for a connection `host` refused (its `CheckErr`), for the apiserver and for a
/// `-f` URL alike; scripts waiting for a server grep for it.
pub fn refused_line(host: &str) -> String {
    format!("The connection to the server {host} was refused - did you specify the right host or port?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_reads_like_kubectl() {
        let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"deployments.apps \"x\" not found","reason":"NotFound","details":{"name":"x","group":"apps","kind":"deployments"},"code":404}"#;
        let err = Status::from_response(http::StatusCode::NOT_FOUND, body);
        assert_eq!(err.code, 404);
        assert_eq!(err.to_string(), r#"Error from server (NotFound): deployments.apps "x" not found"#);
    }

    #[test]
    fn invalid_with_one_cause_is_one_line() {
        let body = br#"{"kind":"Status","status":"Failure","message":"Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0","reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},"code":422}"#;
        let err = Status::from_response(http::StatusCode::UNPROCESSABLE_ENTITY, body);
        assert_eq!(
            err.to_string(),
            r#"The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"#
        );
    }

    #[test]
    fn invalid_with_several_causes_lists_them() {
        let body = br#"{"kind":"Status","reason":"Invalid","message":"m","details":{"name":"web","kind":"Deployment","causes":[{"field":"a","message":"x"},{"field":"b","message":"y"},{"field":"a","message":"x"}]},"code":422}"#;
        let err = Status::from_response(http::StatusCode::UNPROCESSABLE_ENTITY, body);
        assert_eq!(err.to_string(), "The Deployment \"web\" is invalid: \n* a: x\n* b: y");
    }

    #[test]
    fn context_goes_before_the_servers_message() {
        let body = br#"{"kind":"Status","message":"configmaps \"x\" not found","reason":"NotFound","code":404}"#;
        let err = Error::from_response(http::StatusCode::NOT_FOUND, body).in_context("error when replacing \"a.yaml\"");
        assert!(matches!(err, Error::NotFound(_)));
        assert_eq!(
            err.line(),
            r#"Error from server (NotFound): error when replacing "a.yaml": configmaps "x" not found"#
        );
    }

    #[test]
    fn unauthorized_asks_to_log_in() {
        let body =
            br#"{"kind":"Status","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#;
        let err = Status::from_response(http::StatusCode::UNAUTHORIZED, body);
        assert_eq!(err.to_string(), "error: You must be logged in to the server (Unauthorized)");
    }

    #[test]
    fn non_status_bodies_get_client_gos_generic_words() {
        let err = Status::from_response(http::StatusCode::SERVICE_UNAVAILABLE, b"upstream down\n");
        assert_eq!(err.code, 503);
        assert_eq!(
            err.to_string(),
            "Error from server (ServiceUnavailable): the server is currently unable to handle the request"
        );
        let page = Status::from_response(http::StatusCode::NOT_FOUND, b"404 page not found\n");
        assert_eq!(page.to_string(), "Error from server (NotFound): the server could not find the requested resource");
        let forbidden = Status::from_response(http::StatusCode::FORBIDDEN, b"no \"way\"");
        assert_eq!(forbidden.to_string(), "Error from server (Forbidden): no \"way\"");
        let empty = Status::from_response(http::StatusCode::BAD_GATEWAY, b"");
        assert_eq!(
            empty.to_string(),
            "Error from server (InternalError): an error on the server (\"unknown\") has prevented the request from succeeding"
        );
        let teapot = Status::from_response(http::StatusCode::IM_A_TEAPOT, b"short and stout");
        assert_eq!(
            teapot.to_string(),
            "Error from server: the server responded with the status code 418 but did not return more information"
        );
    }
}
