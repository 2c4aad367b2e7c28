//! Errors returned by the API server, printed the way kubectl prints them.

use std::fmt;

use serde::Deserialize;

/// A `metav1.Status` failure from the API server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status code, e.g. 404.
    pub code: u16,
    /// Machine-readable reason, e.g. `NotFound`; may be empty.
    pub reason: String,
    /// The server's human-readable message.
    pub message: String,
    /// What the failure is about, when the server said: kind, name and per-field causes.
    pub details: Option<StatusDetails>,
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
    details: Option<StatusDetails>,
}

impl ApiError {
    /// Builds the error for a failed response from its HTTP status and body: the body's
    /// `metav1.Status` when it is one, else the HTTP status text with the body as the message.
    pub fn from_response(status: http::StatusCode, body: &[u8]) -> Self {
        if let Ok(parsed) = serde_json::from_slice::<StatusBody>(body)
            && parsed.kind == "Status"
        {
            return ApiError {
                code: status.as_u16(),
                reason: parsed.reason,
                message: parsed.message,
                details: parsed.details,
            };
        }
        let text = String::from_utf8_lossy(body).trim().to_string();
        let reason = status.canonical_reason().unwrap_or("").to_string();
        let message = if text.is_empty() { format!("the server responded with {status}") } else { text };
        ApiError { code: status.as_u16(), reason: reason.replace(' ', ""), message, details: None }
    }

    /// The server's answer for an object that does not exist, as a list of the collection showed.
    pub fn not_found(rt: &super::ResourceType, name: &str) -> Self {
        ApiError {
            code: 404,
            reason: "NotFound".into(),
            message: format!("{} {name:?} not found", rt.group_resource()),
            details: None,
        }
    }

    /// The object was not found (HTTP 404).
    pub fn is_not_found(&self) -> bool {
        self.code == 404
    }

    /// The write lost a race with another writer (HTTP 409, reason `Conflict`).
    pub fn is_conflict(&self) -> bool {
        self.code == 409 && self.reason == "Conflict"
    }

    /// The object already exists (HTTP 409, reason `AlreadyExists`).
    pub fn is_already_exists(&self) -> bool {
        self.code == 409 && self.reason == "AlreadyExists"
    }

    /// The object failed validation (HTTP 422, reason `Invalid`).
    pub fn is_invalid(&self) -> bool {
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

/// kubectl's wording: `Error from server (NotFound): ...`, or the `The X "y" is invalid: ...` form.
impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (true, Some(details)) = (self.is_invalid(), &self.details) {
            return self.fmt_invalid(details, f);
        }
        if self.reason.is_empty() {
            write!(f, "Error from server: {}", self.message)
        } else {
            write!(f, "Error from server ({}): {}", self.reason, self.message)
        }
    }
}

impl std::error::Error for ApiError {}

/// The API server could not be reached at all: refused, unresolvable, TLS failure, timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionError {
    /// The server URL from the kubeconfig.
    pub server: String,
    /// The lowest-level cause, in words, e.g. `connection refused`.
    pub cause: String,
}

impl fmt::Display for ConnectionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot reach the API server at {}: {}", self.server, self.cause)
    }
}

impl std::error::Error for ConnectionError {}

/// The server's error behind `err`, if the failure came from the server.
pub fn api_error(err: &anyhow::Error) -> Option<&ApiError> {
    err.downcast_ref::<ApiError>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_reads_like_kubectl() {
        let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"deployments.apps \"x\" not found","reason":"NotFound","details":{"name":"x","group":"apps","kind":"deployments"},"code":404}"#;
        let err = ApiError::from_response(http::StatusCode::NOT_FOUND, body);
        assert!(err.is_not_found());
        assert_eq!(err.to_string(), r#"Error from server (NotFound): deployments.apps "x" not found"#);
    }

    #[test]
    fn invalid_with_one_cause_is_one_line() {
        let body = br#"{"kind":"Status","status":"Failure","message":"Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0","reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},"code":422}"#;
        let err = ApiError::from_response(http::StatusCode::UNPROCESSABLE_ENTITY, body);
        assert_eq!(
            err.to_string(),
            r#"The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"#
        );
    }

    #[test]
    fn invalid_with_several_causes_lists_them() {
        let body = br#"{"kind":"Status","reason":"Invalid","message":"m","details":{"name":"web","kind":"Deployment","causes":[{"field":"a","message":"x"},{"field":"b","message":"y"},{"field":"a","message":"x"}]},"code":422}"#;
        let err = ApiError::from_response(http::StatusCode::UNPROCESSABLE_ENTITY, body);
        assert_eq!(err.to_string(), "The Deployment \"web\" is invalid: \n* a: x\n* b: y");
    }

    #[test]
    fn non_status_body_falls_back_to_http_status() {
        let err = ApiError::from_response(http::StatusCode::SERVICE_UNAVAILABLE, b"upstream down\n");
        assert_eq!(err.code, 503);
        assert_eq!(err.to_string(), "Error from server (ServiceUnavailable): upstream down");
        let empty = ApiError::from_response(http::StatusCode::BAD_GATEWAY, b"");
        assert_eq!(empty.to_string(), "Error from server (BadGateway): the server responded with 502 Bad Gateway");
    }
}
