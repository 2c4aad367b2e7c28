//! `create token SERVICEACCOUNT`: the TokenRequest kubectl sends to a service account's `token`
//! subresource.

use serde_json::{Value, json};

use super::Error;

/// The kinds a token can be bound to, sorted as kubectl lists them, each with its apiVersion.
const BOUND_KINDS: [(&str, &str); 3] = [("Node", "v1"), ("Pod", "v1"), ("Secret", "v1")];

const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// `create token NAME [--audience...] [--duration] [--bound-object-kind|name|uid]`.
#[derive(Debug, Clone, Default)]
pub struct TokenOptions {
    pub service_account: String,
    pub audiences: Vec<String>,
    /// The lifetime asked for, in nanoseconds; 0 leaves it to the server.
    pub duration: i64,
    pub bound_kind: String,
    pub bound_name: String,
    pub bound_uid: String,
}

/// The TokenRequest kubectl sends, after kubectl's checks in its order.
pub fn token_request(options: &TokenOptions) -> Result<Value, Error> {
    if options.service_account.is_empty() {
        return Err(Error::NoServiceAccount);
    }
    if options.duration < 0 {
        return Err(Error::NegativeDuration);
    }
    if options.duration % NANOS_PER_SECOND != 0 {
        return Err(Error::SubsecondDuration);
    }
    if options.audiences.iter().any(String::is_empty) {
        return Err(Error::EmptyAudience);
    }
    let mut spec = json!({"audiences": options.audiences});
    if options.duration > 0 {
        spec["expirationSeconds"] = (options.duration / NANOS_PER_SECOND).into();
    }
    if options.bound_kind.is_empty() {
        if !options.bound_name.is_empty() {
            return Err(Error::BoundNameWithoutKind);
        }
        if !options.bound_uid.is_empty() {
            return Err(Error::BoundUidWithoutKind);
        }
    } else {
        let Some((kind, api_version)) = BOUND_KINDS.iter().find(|(kind, _)| *kind == options.bound_kind) else {
            let kinds: Vec<&str> = BOUND_KINDS.iter().map(|(kind, _)| *kind).collect();
            return Err(Error::BoundKind(kinds.join(", ")));
        };
        if options.bound_name.is_empty() {
            return Err(Error::BoundKindWithoutName);
        }
        spec["boundObjectRef"] =
            json!({"kind": kind, "apiVersion": api_version, "name": options.bound_name, "uid": options.bound_uid});
    }
    Ok(json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> TokenOptions {
        TokenOptions { service_account: "robot".into(), ..Default::default() }
    }

    #[test]
    fn a_request_carries_audiences_lifetime_and_bound_object() {
        let request = token_request(&TokenOptions {
            audiences: vec!["a".into()],
            duration: 3600 * NANOS_PER_SECOND,
            bound_kind: "Secret".into(),
            bound_name: "s".into(),
            ..options()
        })
        .unwrap();
        assert_eq!(request["spec"]["audiences"], json!(["a"]));
        assert_eq!(request["spec"]["expirationSeconds"], 3600);
        assert_eq!(request["spec"]["boundObjectRef"]["apiVersion"], "v1");
        assert!(token_request(&options()).unwrap()["spec"].get("expirationSeconds").is_none());
    }

    #[test]
    fn requests_are_checked_in_kubectls_order() {
        let refused = |options: TokenOptions| token_request(&options).unwrap_err().to_string();
        assert_eq!(
            refused(TokenOptions { duration: -1, ..options() }),
            "--duration must be greater than or equal to 0"
        );
        assert_eq!(
            refused(TokenOptions { duration: 1_500_000_000, ..options() }),
            "--duration cannot be expressed in units less than seconds"
        );
        assert_eq!(
            refused(TokenOptions { audiences: vec![String::new()], ..options() }),
            "--audience must not be an empty string"
        );
        assert_eq!(
            refused(TokenOptions { bound_kind: "Job".into(), ..options() }),
            "supported --bound-object-kind values are Node, Pod, Secret"
        );
        assert_eq!(
            refused(TokenOptions { bound_uid: "u".into(), ..options() }),
            "--bound-object-uid can only be set if --bound-object-kind is provided"
        );
    }
}
