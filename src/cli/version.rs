//! `kubeupd version`: kubeupd's version and, with a cluster, the server's, printed as `kubectl
//! version` prints them (plain, or `-o json|yaml` with `clientVersion` and `serverVersion`).

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{GlobalArgs, Result};
use crate::client::VersionInfo;
use crate::output;

/// Options of `kubeupd version`.
#[derive(Debug, Args)]
pub struct VersionArgs {
    /// Print the client version only; no server is asked.
    #[arg(long)]
    pub client: bool,
    /// Print the versions as JSON or YAML.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<VersionFormat>,
}

/// The values of `version -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VersionFormat {
    Json,
    Yaml,
}

/// What `-o json|yaml` prints, with kubectl's keys.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Versions {
    client_version: VersionInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    server_version: Option<VersionInfo>,
}

/// Runs `kubeupd version`. When the server cannot be asked, the client version is still printed,
/// then the error, and the exit status is 1, as with kubectl.
pub async fn run(args: VersionArgs, global: &GlobalArgs) -> Result {
    let server = if args.client { Ok(None) } else { server_version(global).await.map(Some) };
    let versions =
        Versions { client_version: client_version(), server_version: server.as_ref().ok().cloned().flatten() };
    let text = match args.output {
        Some(VersionFormat::Json) => serde_json::to_string_pretty(&versions).expect("versions always serialize") + "\n",
        Some(VersionFormat::Yaml) => {
            output::to_yaml(&serde_json::to_value(&versions).expect("versions always serialize")) + "\n"
        }
        None => {
            let mut text = format!("Client Version: {}\n", versions.client_version.git_version);
            if let Some(server) = &versions.server_version {
                text.push_str(&format!("Server Version: {}\n", server.git_version));
            }
            text
        }
    };
    super::write_stdout(&text)?;
    server.map(drop)
}

async fn server_version(global: &GlobalArgs) -> Result<VersionInfo> {
    Ok(global.connect().await?.server_version().await?)
}

/// kubeupd's own version, in the shape of Kubernetes' `version.Info`.
fn client_version() -> VersionInfo {
    let platform_arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    VersionInfo {
        major: env!("CARGO_PKG_VERSION_MAJOR").into(),
        minor: env!("CARGO_PKG_VERSION_MINOR").into(),
        git_version: format!("v{}", env!("CARGO_PKG_VERSION")),
        compiler: "rustc".into(),
        platform: format!("{}/{platform_arch}", std::env::consts::OS),
        ..VersionInfo::default()
    }
}
