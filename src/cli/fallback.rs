//! Verbs kubeupd does not have are handed to the real kubectl, so that kubeupd can be installed
//! as `kubectl`: the first `kubectl` on the PATH that is not this program (by canonical path and
//! by file identity, so a copy under the name `kubectl`, a hard link or a symbolic link to
//! kubeupd are all skipped) replaces this process with the same arguments, environment, standard
//! streams and hence exit code. Without one, one line says so and the exit code is 1.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Set in the environment of the kubectl run in our place: a kubeupd found there under another
/// file (a copy) sees it and does not hand the line back.
const HANDED_OVER: &str = "KUBEUPD_HANDED_OVER";

/// kubectl 1.37's commands (`testdata/golden/kubectl-flags.json`), the ones kubeupd lacks
/// handed over.
const KUBECTL_COMMANDS: &[&str] = &[
    "alpha",
    "annotate",
    "api-resources",
    "api-versions",
    "apply",
    "attach",
    "auth",
    "autoscale",
    "certificate",
    "cluster-info",
    "completion",
    "config",
    "cordon",
    "cp",
    "create",
    "debug",
    "delete",
    "describe",
    "diff",
    "drain",
    "edit",
    "events",
    "exec",
    "explain",
    "expose",
    "get",
    "kuberc",
    "kustomize",
    "label",
    "logs",
    "options",
    "patch",
    "plugin",
    "port-forward",
    "proxy",
    "replace",
    "rollout",
    "run",
    "scale",
    "set",
    "taint",
    "top",
    "uncordon",
    "version",
    "wait",
];

/// Whether the real kubectl would run `word` as a command: one of its own, or a plugin's
/// (`kubectl-WORD` on the PATH, a dash in the word also read as `_`, as kubectl looks them up).
pub fn is_kubectls(word: &str) -> bool {
    if KUBECTL_COMMANDS.contains(&word) {
        return true;
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let names = [format!("kubectl-{word}"), format!("kubectl-{}", word.replace('-', "_"))];
    !word.is_empty()
        && !word.contains(std::path::MAIN_SEPARATOR)
        && std::env::split_paths(&path)
            .filter(|dir| !dir.as_os_str().is_empty())
            .any(|dir| names.iter().any(|name| is_executable(&dir.join(name))))
}

/// The file of the real kubectl: the first executable `kubectl` in `path` (a `PATH` value) that
/// is not the file `this`.
pub fn find_kubectl(path: &OsStr, this: &Path) -> Option<PathBuf> {
    let this_canonical = this.canonicalize().ok();
    let this_identity = identity(this);
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join("kubectl"))
        .filter(|candidate| is_executable(candidate))
        .find(|candidate| {
            let same_path = this_canonical.is_some() && candidate.canonicalize().ok() == this_canonical;
            let same_file = this_identity.is_some() && identity(candidate) == this_identity;
            !same_path && !same_file
        })
}

/// The device and inode of a file (after links), which tell the same file under two names.
fn identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        std::fs::metadata(path).ok().map(|meta| (meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Runs the real kubectl with `args` (the program name first, left out) in this process's place;
/// returns only when there is none or it cannot be started, with the exit code.
pub fn run(args: &[OsString], verb: &str) -> std::process::ExitCode {
    let this = std::env::current_exe().unwrap_or_default();
    let found = match std::env::var_os(HANDED_OVER) {
        Some(_) => None,
        None => find_kubectl(&std::env::var_os("PATH").unwrap_or_default(), &this),
    };
    let Some(kubectl) = found else {
        eprintln!(
            "error: kubeupd does not implement {verb:?}, and no kubectl other than kubeupd was found on the PATH"
        );
        return std::process::ExitCode::FAILURE;
    };
    let mut command = std::process::Command::new(&kubectl);
    command.args(&args[1.min(args.len())..]).env(HANDED_OVER, "1");
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        let err = command.exec();
        eprintln!("error: cannot run {}: {err}", kubectl.display());
        std::process::ExitCode::FAILURE
    }
    #[cfg(not(unix))]
    match command.status() {
        Ok(status) => std::process::ExitCode::from(status.code().unwrap_or(1) as u8),
        Err(err) => {
            eprintln!("error: cannot run {}: {err}", kubectl.display());
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod command_tests {
    #[test]
    fn kubectls_commands_are_the_recorded_ones() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/golden/kubectl-flags.json");
        let recorded: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut top: Vec<&str> = recorded["output"]["commands"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|command| command["path"].as_str()?.split(' ').next().filter(|word| !word.is_empty()))
            .collect();
        top.dedup();
        top.sort();
        top.dedup();
        assert_eq!(top, super::KUBECTL_COMMANDS);
        assert!(super::is_kubectls("top"));
        assert!(!super::is_kubectls("aply"));
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn executable(path: &Path) {
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn kubeupd_under_any_name_is_skipped_for_the_next_kubectl() {
        let dir = tempfile::tempdir().unwrap();
        let (ours, linked, hard, real) =
            (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"), dir.path().join("d"));
        for sub in [&ours, &linked, &hard, &real] {
            std::fs::create_dir(sub).unwrap();
        }
        let this = ours.join("kubectl");
        executable(&this);
        std::os::unix::fs::symlink(&this, linked.join("kubectl")).unwrap();
        std::fs::hard_link(&this, hard.join("kubectl")).unwrap();
        executable(&real.join("kubectl"));
        std::fs::write(dir.path().join("kubectl-not-executable"), "").unwrap();
        let path = std::env::join_paths([&ours, &linked, &hard, &real]).unwrap();
        assert_eq!(find_kubectl(&path, &this), Some(real.join("kubectl")));
        let path = std::env::join_paths([&ours, &linked, &hard]).unwrap();
        assert_eq!(find_kubectl(&path, &this), None);
        // A file that is not executable is no kubectl.
        let plain = dir.path().join("e");
        std::fs::create_dir(&plain).unwrap();
        std::fs::write(plain.join("kubectl"), "").unwrap();
        assert_eq!(find_kubectl(&std::env::join_paths([&plain]).unwrap(), &this), None);
    }
}
