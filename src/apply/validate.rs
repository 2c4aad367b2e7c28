//! Checking objects against their kind's schema before anything is sent (`--validate`): every
//! field the schema does not declare and every value of the wrong type, named by its path, as
//! kubectl names them. kubectl checks on the client only when the server cannot; kubeupd checks
//! every object it can find a schema for, so that one bad document stops all of them before the
//! first write, and also asks servers that can (1.25 and later) to check.

use std::fmt;

use serde_json::Value;

use crate::client::{Cluster, FieldValidation};
use crate::schema::{self, FieldError};

/// What checking an object found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing wrong, or nothing to check against.
    Valid,
    /// Wrong fields, to be shown as warnings (`--validate=warn` on servers that cannot warn).
    Warn(Vec<FieldError>),
    /// Wrong fields that stop the object (`--validate=strict`).
    Refuse(Vec<FieldError>),
}

/// The fields found wrong in one object, in kubectl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct InvalidFields(pub Vec<FieldError>);

impl fmt::Display for InvalidFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error validating data: {}; if you choose to ignore these errors, turn validation off with --validate=false",
            aggregate(&self.0)
        )
    }
}

/// Several errors as kubectl joins them (Kubernetes' error aggregate): each message once, one
/// alone as it is, several in `[...]` separated by `, `.
pub fn aggregate(errors: &[FieldError]) -> String {
    let mut messages: Vec<String> = Vec::with_capacity(errors.len());
    for message in errors.iter().map(ToString::to_string) {
        if !messages.contains(&message) {
            messages.push(message);
        }
    }
    match messages.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", messages.join(", ")),
    }
}

/// Checks `document`, to be created, updated or applied client-side, as `validation` asks: against
/// the server's schema of its kind, when there is one. With `Warn`, a server that warns itself is
/// left to it.
pub async fn check(cluster: &Cluster, document: &Value, validation: FieldValidation) -> Verdict {
    check_write(cluster, document, validation, false).await
}

/// [`check`] of a document to be applied server-side, which a server that checks fields refuses
/// more of (a repeated key).
pub async fn check_server_side_apply(cluster: &Cluster, document: &Value, validation: FieldValidation) -> Verdict {
    check_write(cluster, document, validation, true).await
}

async fn check_write(cluster: &Cluster, document: &Value, validation: FieldValidation, server_side: bool) -> Verdict {
    if validation == FieldValidation::Ignore {
        return Verdict::Valid;
    }
    let server_checks = cluster.supports_field_validation().await;
    if validation == FieldValidation::Warn && server_checks {
        return Verdict::Valid;
    }
    let api_version = document["apiVersion"].as_str().unwrap_or_default();
    let kind = document["kind"].as_str().unwrap_or_default();
    let Some(kind_schema) = cluster.kind_schema(api_version, kind).await else {
        tracing::debug!("no schema for {kind} in {api_version}: not checked");
        return Verdict::Valid;
    };
    let mut errors = schema::validate(kind_schema.node(), kind, document);
    if !errors.is_empty() && !schema::is_builtin(api_version, kind) {
        // A custom resource's cached schema may be older than its CustomResourceDefinition.
        if let Some(fresh) = cluster.fresh_kind_schema(api_version, kind).await {
            errors = schema::validate(fresh.node(), kind, document);
        }
    }
    if server_checks {
        // kubectl checks nothing itself on such a server: what the server may take (a missing
        // required field it defaults, a `null`, a repeated key written by an update) is left to
        // it; what it refuses too (unknown fields, wrong types, a repeated key applied
        // server-side) still stops every document before the first write, where kubectl would
        // have written the documents before it.
        errors.retain(|error| error.refused_by_a_checking_server(server_side));
    }
    match (errors.is_empty(), validation) {
        (true, _) => Verdict::Valid,
        (false, FieldValidation::Warn) => Verdict::Warn(errors),
        (false, _) => Verdict::Refuse(errors),
    }
}
