//! `cp`'s file specifications and paths, as kubectl's `cmd/cp` reads them: `[[NAMESPACE/]POD:]PATH`,
//! Go's `path.Clean`, `Dir`, `Base` and `Join`, and how the names in a pod's tar stream map to
//! local files (a name must start with the source's prefix; one that would land outside the
//! destination is skipped). Pure.

/// One side of a copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSpec {
    /// The pod's namespace, when the spec names one.
    pub namespace: Option<String>,
    /// The pod; `None` for a local path.
    pub pod: Option<String>,
    /// The path, without a trailing slash.
    pub file: String,
}

/// kubectl's error for a specification it cannot read.
pub const BAD_SPEC: &str = "filespec must match the canonical format: [[namespace/]pod:]file/path";

/// kubectl's `extractFileSpec`.
pub fn parse_spec(arg: &str) -> Result<FileSpec, String> {
    let Some(colon) = arg.find(':') else {
        return Ok(FileSpec { namespace: None, pod: None, file: strip_trailing_slash(arg).to_string() });
    };
    if colon == 0 {
        return Err(BAD_SPEC.into());
    }
    let (pod, file) = (&arg[..colon], &arg[colon + 1..]);
    let file = strip_trailing_slash(&file.replace('\\', "/")).to_string();
    let pieces: Vec<&str> = pod.split('/').collect();
    // kubectl takes a spec for a pod's only when it names one (`ns/:x` is local).
    let named = |pod: &str| Some(pod.to_string()).filter(|pod| !pod.is_empty());
    match pieces.as_slice() {
        [pod] => Ok(FileSpec { namespace: None, pod: named(pod), file }),
        [namespace, pod] => Ok(FileSpec { namespace: Some(namespace.to_string()), pod: named(pod), file }),
        _ => Err(BAD_SPEC.into()),
    }
}

/// Drops one trailing slash, except from `/`.
pub fn strip_trailing_slash(file: &str) -> &str {
    if file != "/" && file.ends_with('/') { &file[..file.len() - 1] } else { file }
}

/// kubectl's `stripLeadingSlash`: all leading slashes and backslashes.
pub fn strip_leading_slash(file: &str) -> &str {
    file.trim_start_matches(['/', '\\'])
}

/// kubectl's `stripPathShortcuts`: leading `../` removed, `.` and `..` made empty, then one
/// leading slash removed.
pub fn strip_path_shortcuts(path: &str) -> String {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("../") {
        path = rest;
    }
    while let Some(rest) = path.strip_prefix("..\\") {
        path = rest;
    }
    if path == "." || path == ".." {
        return String::new();
    }
    path.strip_prefix(['/', '\\']).unwrap_or(path).to_string()
}

/// Go's `path.Clean`.
pub fn clean(path: &str) -> String {
    if path.is_empty() {
        return ".".into();
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if rooted => {}
                _ => parts.push(".."),
            },
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// Go's `path.Dir`.
pub fn dir(path: &str) -> String {
    let cut = path.rfind('/').map_or(0, |slash| slash + 1);
    clean(&path[..cut])
}

/// Go's `path.Base`.
pub fn base(path: &str) -> String {
    if path.is_empty() {
        return ".".into();
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".into();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

/// Go's `path.Join` of two elements (empty ones left out, the result cleaned).
pub fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => String::new(),
        (true, false) => clean(b),
        (false, true) => clean(a),
        (false, false) => clean(&format!("{a}/{b}")),
    }
}

/// The command that writes the pod's `file` as a tar stream (`--retries` resumes after `skip`
/// bytes read, as kubectl's `sh -c 'tar cf - ... | tail -c+N'`).
pub fn tar_from_pod(file: &str, retries: i64, skip: u64) -> Vec<String> {
    if retries != 0 {
        let escaped = file.replace('\'', r"'\''");
        return vec!["sh".into(), "-c".into(), format!("tar cf - '{escaped}' | tail -c+{}", skip + 1)];
    }
    vec!["tar".into(), "cf".into(), "-".into(), file.into()]
}

/// The command that unpacks a tar stream in the pod, in `dir`.
pub fn tar_into_pod(dir: &str, no_preserve: bool) -> Vec<String> {
    let mut command: Vec<String> = match no_preserve {
        true => ["tar", "--no-same-permissions", "--no-same-owner", "-xmf", "-"].map(String::from).to_vec(),
        false => ["tar", "-xmf", "-"].map(String::from).to_vec(),
    };
    if !dir.is_empty() {
        command.extend(["-C".to_string(), dir.to_string()]);
    }
    command
}

/// Where a member of the pod's tar stream goes: `dest` joined with the member's name after
/// `prefix`. `Err` when the name does not start with the prefix (kubectl: `tar contents
/// corrupted`), `Ok(None)` when the file would land outside `dest` (skipped with a warning).
pub fn member_destination(name: &str, prefix: &str, dest: &str) -> Result<Option<String>, String> {
    let Some(rest) = name.strip_prefix(prefix) else {
        return Err("tar contents corrupted".into());
    };
    let target = strip_trailing_slash(&join(dest, &rest.replace('\\', "/"))).to_string();
    Ok(is_relative(dest, &target).then_some(target))
}

/// kubectl's `isRelative`: whether `target` is `base` or below it.
fn is_relative(base: &str, target: &str) -> bool {
    let base = clean(strip_trailing_slash(base));
    let target = clean(strip_trailing_slash(target));
    let Some(relative) = relative_path(&base, &target) else { return false };
    relative == "." || relative == strip_path_shortcuts(&relative)
}

/// Go's `filepath.Rel` for two clean paths (both absolute or both relative).
fn relative_path(base: &str, target: &str) -> Option<String> {
    if base.starts_with('/') != target.starts_with('/') {
        return None;
    }
    if base == target {
        return Some(".".into());
    }
    let split = |path: &str| -> Vec<String> {
        path.split('/').filter(|part| !part.is_empty() && *part != ".").map(String::from).collect()
    };
    let (base, target) = (split(base), split(target));
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    if base[common..].iter().any(|part| part == "..") {
        return None;
    }
    let mut parts: Vec<String> = vec!["..".into(); base.len() - common];
    parts.extend(target[common..].iter().cloned());
    Some(if parts.is_empty() { ".".into() } else { parts.join("/") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_as_kubectl_reads_them() {
        assert_eq!(parse_spec("/tmp/a/").unwrap(), FileSpec { namespace: None, pod: None, file: "/tmp/a".into() });
        assert_eq!(
            parse_spec("web:/tmp/a").unwrap(),
            FileSpec { namespace: None, pod: Some("web".into()), file: "/tmp/a".into() }
        );
        assert_eq!(
            parse_spec("ns/web:a\\b").unwrap(),
            FileSpec { namespace: Some("ns".into()), pod: Some("web".into()), file: "a/b".into() }
        );
        assert_eq!(parse_spec(":a").unwrap_err(), BAD_SPEC);
        assert_eq!(parse_spec("a/b/c:d").unwrap_err(), BAD_SPEC);
        assert_eq!(parse_spec("web:").unwrap().file, "");
    }

    #[test]
    fn paths_behave_as_gos() {
        assert_eq!(clean("a//b/./c/../d/"), "a/b/d");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(clean("../../a"), "../../a");
        assert_eq!(clean(""), ".");
        assert_eq!(dir("/tmp/a"), "/tmp");
        assert_eq!(dir("a"), ".");
        assert_eq!(dir("/a"), "/");
        assert_eq!(base("/tmp/a/"), "a");
        assert_eq!(base("/"), "/");
        assert_eq!(join("dir", "/"), "dir");
        assert_eq!(join("", "a"), "a");
        assert_eq!(strip_path_shortcuts("../../tmp/a"), "tmp/a");
        assert_eq!(strip_path_shortcuts(".."), "");
        assert_eq!(strip_leading_slash("//tmp"), "tmp");
    }

    #[test]
    fn tar_members_map_below_the_destination() {
        assert_eq!(member_destination("tmp/d/f.txt", "tmp/d/f.txt", "out.txt").unwrap(), Some("out.txt".into()));
        assert_eq!(member_destination("tmp/d/", "tmp/d", "out").unwrap(), Some("out".into()));
        assert_eq!(member_destination("tmp/d/x/y", "tmp/d", "/abs/out").unwrap(), Some("/abs/out/x/y".into()));
        assert_eq!(member_destination("tmp/d/../../etc", "tmp/d", "out").unwrap(), None);
        assert_eq!(member_destination("other", "tmp/d", "out").unwrap_err(), "tar contents corrupted");
    }

    #[test]
    fn commands_are_kubectls() {
        assert_eq!(tar_from_pod("/tmp/a", 0, 0), ["tar", "cf", "-", "/tmp/a"]);
        assert_eq!(tar_from_pod("it's", 2, 10), ["sh", "-c", r"tar cf - 'it'\''s' | tail -c+11"]);
        assert_eq!(tar_into_pod("/tmp", false), ["tar", "-xmf", "-", "-C", "/tmp"]);
        assert_eq!(tar_into_pod("", true), ["tar", "--no-same-permissions", "--no-same-owner", "-xmf", "-"]);
    }
}
