//! What `kubeupd version` says of the build, as `kubectl version` says it of kubectl's: the commit,
//! whether the tree had changes beside it, and the commit's date (not the wall clock, so that a
//! build of the same tree is the same). Outside a git checkout they stay empty.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).env("TZ", "UTC").output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    // This work tree's HEAD and the branch it names, not every branch: a commit in a sibling
    // work tree (which shares `refs/heads`) would otherwise rebuild this one's binaries.
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for path in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        if let Some(found) = git(&["rev-parse", "--git-path", path]) {
            // A branch kept only in packed-refs has no file of its own; packed-refs is watched.
            if std::path::Path::new(&found).exists() {
                println!("cargo:rerun-if-changed={found}");
            }
        }
    }
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_default();
    let tree_state = match git(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(changes) if changes.is_empty() => "clean",
        Some(_) => "dirty",
        None => "",
    };
    let date = git(&["log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ"]).unwrap_or_default();
    println!("cargo:rustc-env=KUBEUPD_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=KUBEUPD_GIT_TREE_STATE={tree_state}");
    println!("cargo:rustc-env=KUBEUPD_BUILD_DATE={date}");
}
