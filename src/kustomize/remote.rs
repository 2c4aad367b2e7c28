//! Remote targets: a kustomization (or a file) in a git repository, named by a URL as kustomize
//! takes them: `https://github.com/org/repo//dir?ref=v1`, `github.com/org/repo/dir`,
//! `git::https://host/repo.git//dir`, `git@github.com:org/repo.git//dir`, `ssh://...`,
//! `file:///srv/repo//dir`, with the query parameters `ref` (or `version`), `timeout` and
//! `submodules`. Parsing is pure; fetching is the loader's ([`super::Loader::checkout`]).

use std::path::{Path, PathBuf};
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

/// `entry` as a remote target, or `None` when it is not one: kustomize's `NewRepoSpecFromURL`.
/// The host (a scheme, a user, a host) comes first; then the repository's path is split from the
/// path in it at `_git/REPO`, `//` or `.git`, else after two segments (all of a `file://` path).
pub fn parse(entry: &str) -> Option<RepoSpec> {
    if entry.starts_with('/') {
        return None;
    }
    let (location, query) = entry.split_once('?').unwrap_or((entry, ""));
    let (host, rest) = split_host(location)?;
    let all_segments = host.starts_with(FILE_SCHEME);
    let (repo, path) = split_repo_path(rest, all_segments)?;
    let mut spec = RepoSpec {
        clone_url: format!("{host}{repo}"),
        path: PathBuf::from(path.trim_start_matches('/')),
        reference: None,
        submodules: true,
        timeout: DEFAULT_TIMEOUT,
    };
    let (mut reference, mut version) = (None, None);
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        // url.Values.Get: the first value of a key.
        match key {
            "ref" if reference.is_none() => reference = Some(value.to_string()),
            "version" if version.is_none() => version = Some(value.to_string()),
            "submodules" if !value.is_empty() => spec.submodules = parse_go_bool(value).unwrap_or(true),
            "timeout" if !value.is_empty() => {
                spec.timeout = parse_timeout(value).filter(|timeout| !timeout.is_zero()).unwrap_or(DEFAULT_TIMEOUT);
            }
            _ => {}
        }
    }
    let reference = reference.filter(|reference| !reference.is_empty());
    spec.reference = reference.or(version).filter(|reference| !reference.is_empty());
    Some(spec)
}

const FILE_SCHEME: &str = "file://";

/// The host part (`https://user@host/`, `git@github.com:`, `file://`) and the rest, as
/// kustomize's `extractHost` splits them; `None` when `location` has no scheme kustomize takes and
/// is not SCP-like (a user, or GitHub's host).
fn split_host(location: &str) -> Option<(String, &str)> {
    let location = strip_prefix_ignoring_case(location, "git::").unwrap_or(location);
    let (mut scheme, rest) = ["ssh://", "https://", "http://", FILE_SCHEME]
        .iter()
        .find_map(|scheme| strip_prefix_ignoring_case(location, scheme).map(|rest| (*scheme, rest)))
        .unwrap_or(("", location));
    let user_length = user_length(rest);
    let (mut user, rest) = rest.split_at(user_length);
    let lower = rest.to_ascii_lowercase();
    let github = lower.starts_with("github.com/") || lower.starts_with("github.com:");
    let scp_like = scheme.is_empty() && (!user.is_empty() || github);
    if scheme.is_empty() && !scp_like {
        return None;
    }
    if scheme == FILE_SCHEME {
        return Some((FILE_SCHEME.to_string(), &location[location.len() - rest.len() - user.len()..]));
    }
    let slash = rest.find('/');
    let separator = match (slash, rest.find(':').filter(|_| scp_like)) {
        (None, colon) => colon,
        (Some(slash), Some(colon)) if colon > 0 && colon < slash => Some(colon),
        (slash, _) => slash,
    };
    let (mut host, rest) = match separator {
        Some(at) => (&rest[..=at], &rest[at + 1..]),
        None => (rest, ""),
    };
    if github {
        // GitHub's URLs are normalized: SSH keeps the user and takes `github.com:`, else HTTPS.
        if scheme == "ssh://" || !user.is_empty() {
            (scheme, host) = ("", "github.com:");
        } else {
            (scheme, user, host) = ("https://", "", "github.com/");
        }
    }
    if host.is_empty() {
        return None;
    }
    Some((format!("{scheme}{user}{host}"), rest))
}

/// The length of a leading `user@` (a letter, then letters, digits and dashes), 0 when none.
fn user_length(text: &str) -> usize {
    let name = text.bytes().take_while(|byte| byte.is_ascii_alphanumeric() || *byte == b'-').count();
    let starts_with_letter = text.bytes().next().is_some_and(|byte| byte.is_ascii_alphabetic());
    if starts_with_letter && text.as_bytes().get(name) == Some(&b'@') { name + 1 } else { 0 }
}

fn strip_prefix_ignoring_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}

/// The repository's path and the path in it (kustomize's `parsePathParts`); `None` when the
/// repository's path is empty or the path in it leaves the repository.
fn split_repo_path(rest: &str, all_segments: bool) -> Option<(String, String)> {
    let (repo, path) = if let Some(at) = rest.find("_git/") {
        let after = &rest[at + "_git/".len()..];
        let (repo, path) = after.split_once('/').unwrap_or((after, ""));
        (format!("{}{repo}", &rest[..at + "_git/".len()]), path.to_string())
    } else if let Some(at) = rest.find("//") {
        (rest[..at].to_string(), rest[at + 2..].to_string())
    } else if let Some(at) = rest.find(".git") {
        (rest[..at + 4].to_string(), rest[at + 4..].to_string())
    } else if all_segments {
        (rest.to_string(), String::new())
    } else {
        let segments: Vec<&str> = rest.split('/').collect();
        if segments.len() < 2 {
            return None;
        }
        (segments[..2].join("/"), segments[2..].join("/"))
    };
    let cleaned = super::loader::normalize(Path::new(path.trim_start_matches('/')));
    if repo.is_empty() || cleaned.components().next() == Some(std::path::Component::ParentDir) {
        return None;
    }
    Some((repo, path))
}

/// Go's `strconv.ParseBool`.
fn parse_go_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
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
            // A user makes a host of what has no scheme; a URL of a file is a repository too (its
            // file is fetched first).
            ("package@v1.28.0.example/configs/base", spec("package@v1.28.0.example/configs/base", "", None)),
            (
                "https://raw.githubusercontent.com/org/repo/main/deploy.yaml",
                spec("https://raw.githubusercontent.com/org/repo", "main/deploy.yaml", None),
            ),
            (
                "https://dev.azure.com/org/project/_git/repo/dir",
                spec("https://dev.azure.com/org/project/_git/repo", "dir", None),
            ),
            ("ssh://github.com/org/repo", spec("github.com:org/repo", "", None)),
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
            // Fewer than two segments after the host: not a repository.
            "https://host.example/one-segment",
            "https://host.example/repo//../outside",
        ] {
            assert_eq!(parse(entry), None, "{entry}");
        }
    }
}
