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
