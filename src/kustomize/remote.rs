//! Remote targets: a kustomization (or a file) in a git repository, named by a URL as kustomize
//! takes them: `https://github.com/org/repo//dir?ref=v1`, `github.com/org/repo/dir`,
//! `git::https://host/repo.git//dir`, `git@github.com:org/repo.git//dir`, `ssh://...`,
//! `file:///srv/repo//dir`, with the query parameters `ref` (or `version`), `timeout` and
//! `submodules`. Parsing is pure; fetching is the loader's ([`super::Loader::checkout`]).

use std::path::PathBuf;
use std::time::Duration;

/// A repository, the ref to check out, and the directory (or file) in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoSpec {
    /// What `git fetch` is given.
    pub clone_url: String,
    /// The path in the repository; empty for its root.
    pub path: PathBuf,
    /// The ref to fetch; `None` for the remote's HEAD.
    pub reference: Option<String>,
    /// Whether submodules are checked out too (kustomize's default).
    pub submodules: bool,
    /// How long fetching may take (kustomize's default: 27 s).
    pub timeout: Duration,
}

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(27);

/// Hosts whose URLs kustomize reads as `host/org/repo/path` without `//`.
const ORG_REPO_HOSTS: [&str; 3] = ["github.com", "gitlab.com", "bitbucket.org"];

/// `entry` as a remote target, or `None` when it is a local path.
pub fn parse(entry: &str) -> Option<RepoSpec> {
    let entry = entry.strip_prefix("git::").unwrap_or(entry);
    let (location, query) = entry.split_once('?').unwrap_or((entry, ""));
    let (scheme, rest) = if let Some((scheme, rest)) = location.split_once("://") {
        if !["https", "http", "ssh", "file", "git"].contains(&scheme) {
            return None;
        }
        (Some(scheme), rest)
    } else if location.starts_with("git@")
        || ORG_REPO_HOSTS.iter().any(|host| location.starts_with(&format!("{host}/")))
    {
        (None, location)
    } else {
        return None;
    };
    // A YAML or JSON file over HTTP is a remote file, not a repository.
    let file_suffix = [".yaml", ".yml", ".json"].iter().any(|suffix| location.ends_with(suffix));
    if matches!(scheme, Some("http" | "https")) && file_suffix && !rest.contains("//") && !rest.contains(".git/") {
        return None;
    }
    let (repo, path) = split_repo(scheme, rest);
    let clone_url = match scheme {
        Some(scheme) => format!("{scheme}://{repo}"),
        None if repo.starts_with("git@") => repo.to_string(),
        // kustomize fetches `github.com/org/repo` over HTTPS.
        None => format!("https://{repo}"),
    };
    let mut spec = RepoSpec {
        clone_url,
        path: PathBuf::from(path.trim_matches('/')),
        reference: None,
        submodules: true,
        timeout: DEFAULT_TIMEOUT,
    };
    let mut version = None;
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "ref" => spec.reference = Some(value.to_string()),
            "version" => version = Some(value.to_string()),
            "submodules" => spec.submodules = value.parse().unwrap_or(true),
            "timeout" => spec.timeout = parse_timeout(value).unwrap_or(DEFAULT_TIMEOUT),
            _ => {}
        }
    }
    spec.reference = spec.reference.or(version).filter(|reference| !reference.is_empty());
    Some(spec)
}

/// The repository and the path in it: split at `//`, else after `.git`, else (on the hosts that
/// have them) after `org/repo`; otherwise the whole is the repository.
fn split_repo(scheme: Option<&str>, rest: &str) -> (String, String) {
    // `file:///srv/repo//dir`: the path of a file URL starts with `/`, which is not the separator.
    let (lead, search) = match scheme {
        Some("file") if rest.starts_with('/') => ("/", &rest[1..]),
        _ => ("", rest),
    };
    if let Some(at) = search.find("//") {
        return (format!("{lead}{}", &search[..at]), search[at + 2..].to_string());
    }
    if let Some(at) = search.find(".git/") {
        return (format!("{lead}{}", &search[..at + 4]), search[at + 5..].to_string());
    }
    let host = search.split(['/', ':']).next().unwrap_or_default();
    let host = host.rsplit('@').next().unwrap_or(host);
    if ORG_REPO_HOSTS.contains(&host) {
        let parts: Vec<&str> = search.splitn(4, ['/']).collect();
        if parts.len() == 4 {
            return (format!("{lead}{}", parts[..3].join("/")), parts[3].to_string());
        }
    }
    (format!("{lead}{search}"), String::new())
}

/// A timeout as kustomize takes it: whole seconds, or a Go duration in seconds or minutes.
fn parse_timeout(text: &str) -> Option<Duration> {
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Some(seconds) = text.strip_suffix('s') {
        return seconds.parse::<f64>().ok().map(Duration::from_secs_f64);
    }
    text.strip_suffix('m')?.parse::<f64>().ok().map(|minutes| Duration::from_secs_f64(minutes * 60.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(clone_url: &str, path: &str, reference: Option<&str>) -> RepoSpec {
        RepoSpec {
            clone_url: clone_url.into(),
            path: path.into(),
            reference: reference.map(String::from),
            submodules: true,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    #[test]
    fn urls_are_read_as_kustomize_reads_them() {
        for (entry, expected) in [
            (
                "https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v1.0.6",
                spec("https://github.com/kubernetes-sigs/kustomize", "examples/helloWorld", Some("v1.0.6")),
            ),
            (
                "github.com/kubernetes-sigs/kustomize/examples/helloWorld?version=v1.0.6",
                spec("https://github.com/kubernetes-sigs/kustomize", "examples/helloWorld", Some("v1.0.6")),
            ),
            (
                "git::https://gitlab.example.com/team/repo.git/base",
                spec("https://gitlab.example.com/team/repo.git", "base", None),
            ),
            ("git@github.com:org/repo.git//overlays/prod", spec("git@github.com:org/repo.git", "overlays/prod", None)),
            ("ssh://git@host.example/repo//base?ref=main", spec("ssh://git@host.example/repo", "base", Some("main"))),
            ("file:///srv/repo//base?ref=v1", spec("file:///srv/repo", "base", Some("v1"))),
            ("file:///srv/repo", spec("file:///srv/repo", "", None)),
        ] {
            assert_eq!(parse(entry), Some(expected), "{entry}");
        }
        let options = parse("https://host.example/repo//x?ref=a&version=b&submodules=false&timeout=2m").unwrap();
        assert_eq!(options.reference.as_deref(), Some("a"));
        assert!(!options.submodules);
        assert_eq!(options.timeout, Duration::from_secs(120));
    }

    #[test]
    fn local_paths_are_not_remote() {
        for entry in [
            "base",
            "../base",
            "/abs/path",
            "deployment.yaml",
            "./github.com-notes/x",
            "s3://bucket/x",
            "https://raw.githubusercontent.com/org/repo/main/deploy.yaml",
        ] {
            assert_eq!(parse(entry), None, "{entry}");
        }
    }
}
