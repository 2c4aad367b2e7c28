//! `kubeupd version`: kubeupd's version and, with a cluster, the server's, printed as `kubectl
//! version` prints them (plain, or `-o json|yaml` with `clientVersion` and `serverVersion`).

use clap::Args;
use serde::Serialize;

use super::args::ExtraArgs;
use super::{Error, GlobalArgs, Result};
use crate::client::VersionInfo;
use crate::output;

/// Options of `kubeupd version`.
#[derive(Debug, Args)]
pub struct VersionArgs {
    /// Print the client version only; no server is asked.
    #[arg(long)]
    pub client: bool,
    /// Print the versions as JSON or YAML (`json` or `yaml`).
    #[arg(short = 'o', long, value_name = "FORMAT")]
    pub output: Option<String>,
    /// Refused unless --client, as kubectl refuses them.
    #[command(flatten)]
    pub extra: ExtraArgs,
}

/// The values of `version -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionFormat {
    Json,
    Yaml,
}

/// What `-o json|yaml` prints, with kubectl's keys.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Versions {
    client_version: VersionInfo,
    kustomize_version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    server_version: Option<VersionInfo>,
}

/// The kubectl release whose behaviour kubeupd follows, which its client version carries: scripts
/// that read `.clientVersion.minor` to choose what to run get kubectl 1.37's answer.
const KUBECTL_RELEASE: (&str, &str, &str) = ("1", "37", "1");

/// The checked options.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    /// Not `--client`: the server's version is asked for too.
    ask_server: bool,
    format: Option<VersionFormat>,
}

/// kubectl's checks before it asks the server: no words (read only when it asks), then `-o`.
fn options(args: &VersionArgs) -> Result<Options> {
    let ask_server = !args.client;
    if ask_server && !args.extra.words.is_empty() {
        return Err(Error::msg(format!("extra arguments: [{}]", args.extra.words.join(" "))));
    }
    let format = match args.output.as_deref().unwrap_or_default() {
        "" => None,
        "json" => Some(VersionFormat::Json),
        "yaml" => Some(VersionFormat::Yaml),
        _ => return Err(Error::msg("--output must be 'yaml' or 'json'")),
    };
    Ok(Options { ask_server, format })
}

/// Runs `kubeupd version`. When the server cannot be asked, the client version is still printed,
/// then the error, and the exit status is 1, as with kubectl.
pub async fn run(args: VersionArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let server = if options.ask_server { server_version(global).await.map(Some) } else { Ok(None) };
    let versions = Versions {
        client_version: client_version(),
        kustomize_version: crate::kustomize::kustomize_version(),
        server_version: server.as_ref().ok().cloned().flatten(),
    };
    let text = match options.format {
        Some(VersionFormat::Json) => serde_json::to_string_pretty(&versions).expect("versions always serialize") + "\n",
        Some(VersionFormat::Yaml) => {
            output::to_yaml(&serde_json::to_value(&versions).expect("versions always serialize")) + "\n"
        }
        None => {
            let mut text = format!(
                "Client Version: {}\nKustomize Version: {}\n",
                versions.client_version.git_version, versions.kustomize_version
            );
            if let Some(server) = &versions.server_version {
                text.push_str(&format!("Server Version: {}\n", server.git_version));
            }
            text
        }
    };
    super::write_stdout(&text)?;
    // kubectl's warning (since 1.34 with `Warning: `, and an error with --warnings-as-errors)
    // for a server further from the client than the supported skew.
    if let Some(warning) = versions.server_version.as_ref().and_then(|server| skew_warning(&server.git_version)) {
        if global.warnings_as_errors {
            return Err(Error::msg(warning));
        }
        eprintln!("Warning: {warning}");
    }
    server.map(drop)
}

/// How many minor versions client and server may be apart (kubectl's supported skew).
const SUPPORTED_MINOR_SKEW: u64 = 1;

/// kubectl's words when the server's `gitVersion` (`v1.20.15`) is a major version, or more than
/// [`SUPPORTED_MINOR_SKEW`] minor versions, away from the release kubeupd follows; `None` when
/// it is within, or is no version.
fn skew_warning(server: &str) -> Option<String> {
    let mut numbers = server.trim().strip_prefix('v').unwrap_or(server.trim()).split(['.', '-', '+']);
    let (major, minor) = (numbers.next()?.parse::<u64>().ok()?, numbers.next()?.parse::<u64>().ok()?);
    let client: (u64, u64) = (KUBECTL_RELEASE.0.parse().ok()?, KUBECTL_RELEASE.1.parse().ok()?);
    (major != client.0 || minor.abs_diff(client.1) > SUPPORTED_MINOR_SKEW).then(|| {
        format!(
            "version difference between client ({}.{}) and server ({major}.{minor}) exceeds the supported minor \
             version skew of +/-{SUPPORTED_MINOR_SKEW}",
            client.0, client.1
        )
    })
}

async fn server_version(global: &GlobalArgs) -> Result<VersionInfo> {
    Ok(global.connect().await?.server_version().await?)
}

/// kubeupd's version in the shape of Kubernetes' `version.Info`: kubectl's release it follows,
/// with kubeupd's own as semver build metadata (`v1.37.1+kubeupd.0.1.0`), its commit, tree state
/// and commit date; `goVersion` stays empty (no Go in it) and `compiler` is `rustc`.
fn client_version() -> VersionInfo {
    let platform_arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    VersionInfo {
        major: KUBECTL_RELEASE.0.into(),
        minor: KUBECTL_RELEASE.1.into(),
        git_version: format!(
            "v{}.{}.{}+kubeupd.{}",
            KUBECTL_RELEASE.0,
            KUBECTL_RELEASE.1,
            KUBECTL_RELEASE.2,
            env!("CARGO_PKG_VERSION")
        ),
        git_commit: env!("KUBEUPD_GIT_COMMIT").into(),
        git_tree_state: env!("KUBEUPD_GIT_TREE_STATE").into(),
        build_date: env!("KUBEUPD_BUILD_DATE").into(),
        compiler: "rustc".into(),
        platform: format!("{}/{platform_arch}", std::env::consts::OS),
        ..VersionInfo::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "version"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Version(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        assert_eq!(parse(&[]).unwrap(), Options { ask_server: true, format: None });
        assert_eq!(
            parse(&["--client", "-o", "yaml"]).unwrap(),
            Options { ask_server: false, format: Some(VersionFormat::Yaml) }
        );
        // kubectl reads the words only when it asks the server.
        assert_eq!(parse(&["--client", "extra"]).unwrap(), Options { ask_server: false, format: None });
        assert_eq!(parse(&["extra", "more"]).unwrap_err().line(), "error: extra arguments: [extra more]");
        assert_eq!(parse(&["--client", "-o", ""]).unwrap(), Options { ask_server: false, format: None });
        assert_eq!(parse(&["-o", "table"]).unwrap_err().line(), "error: --output must be 'yaml' or 'json'");
        assert_eq!(parse(&["extra", "-o", "table"]).unwrap_err().line(), "error: extra arguments: [extra]");
    }

    #[test]
    fn servers_beyond_the_supported_skew_are_warned_about() {
        assert_eq!(skew_warning("v1.37.1"), None);
        assert_eq!(skew_warning("v1.36.0"), None);
        assert_eq!(skew_warning("v1.38.0-alpha.1"), None);
        assert_eq!(
            skew_warning("v1.20.15"),
            Some("version difference between client (1.37) and server (1.20) exceeds the supported minor version skew of +/-1".into())
        );
        assert!(skew_warning("v2.37.0").is_some());
        assert_eq!(skew_warning("unknown"), None);
    }
}
