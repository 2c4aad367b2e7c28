//! The server's version, as `GET /version` gives it.

use serde::{Deserialize, Serialize};

use super::Cluster;
use super::error::{Error, Result};

/// Kubernetes' `version.Info`, with its fields in Go's order, so that it prints as kubectl prints it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VersionInfo {
    pub major: String,
    pub minor: String,
    /// The version the server emulates, and the oldest it stays compatible with (1.31 and later
    /// servers; empty before, and then left out as Go's `omitempty` leaves them).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub emulation_major: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub emulation_minor: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub min_compatibility_major: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub min_compatibility_minor: String,
    pub git_version: String,
    pub git_commit: String,
    pub git_tree_state: String,
    pub build_date: String,
    pub go_version: String,
    pub compiler: String,
    pub platform: String,
}

impl Cluster {
    /// The server's version and build.
    pub async fn server_version(&self) -> Result<VersionInfo> {
        let body = self.transport.get("/version", "application/json").await?;
        serde_json::from_slice(&body)
            .map_err(|err| Error::InvalidResponse { path: "/version".into(), reason: format!("invalid JSON: {err}") })
    }
}

/// How long [`Cluster::answers`] waits for the server, when no `--request-timeout` is shorter.
const PROBE_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

impl Cluster {
    /// Whether the server answers at all: after one request failed at the transport, this tells a
    /// failed request (a reset stream, a dropped connection) from a server that is gone. A cheap
    /// `GET /version` with the same credentials, tried as every read is; any answer counts, even a
    /// refusal.
    pub async fn answers(&self) -> bool {
        match tokio::time::timeout(PROBE_LIMIT, self.server_version()).await {
            Ok(Ok(_)) => true,
            Ok(Err(err)) => !err.is_transport() && err.status().is_some(),
            Err(_) => false,
        }
    }
}
