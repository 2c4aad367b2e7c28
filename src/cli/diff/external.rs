//! `KUBECTL_EXTERNAL_DIFF`: kubectl's contract with a diff program of the user's. The live objects
//! go as YAML files into a directory `LIVE-*`, what they would become into `MERGED-*` (one file
//! per object, named `apps.v1.Deployment.default.web`; an empty file where an object is new or
//! pruned), and the program is run with the two directories, then the words of the variable after
//! the program's name (only those made of letters, digits, `-` and `=`, as kubectl keeps them).
//! Its exit status is the result: 0 and 1 as it says, anything else a failure.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Error, Result};
use crate::apply::preview::Change;

/// The environment variable naming the program.
const VARIABLE: &str = "KUBECTL_EXTERNAL_DIFF";

/// The user's diff program and the arguments it is given after the two directories.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Program {
    name: String,
    args: Vec<String>,
}

impl Program {
    /// The program `KUBECTL_EXTERNAL_DIFF` names, if it is set and not empty.
    pub fn from_env() -> Option<Program> {
        std::env::var(VARIABLE).ok().and_then(|value| Program::parse(&value))
    }

    fn parse(value: &str) -> Option<Program> {
        let mut words = value.split(' ');
        let name = words.next().filter(|name| !name.is_empty())?.to_string();
        let kept =
            |word: &&str| !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '=');
        Some(Program { name, args: words.filter(kept).map(String::from).collect() })
    }

    /// Writes the two sides of every change and runs the program on them; returns its exit
    /// status when it is 0 or 1.
    pub fn compare(&self, changes: &[Change]) -> Result<i32> {
        let live = side("LIVE-", changes, |change| &change.before)?;
        let merged = side("MERGED-", changes, |change| &change.after)?;
        let failed = |reason: String| Error::msg(format!("failed to run {:?}: {reason}", self.name));
        let status =
            Command::new(&self.name).arg(live.path()).arg(merged.path()).args(&self.args).status().map_err(|err| {
                match err.kind() {
                    std::io::ErrorKind::NotFound => failed("executable file not found in $PATH".into()),
                    _ => failed(err.to_string()),
                }
            })?;
        match status.code() {
            Some(code @ (0 | 1)) => Ok(code),
            Some(code) => Err(failed(format!("exit status {code}"))),
            None => Err(failed("killed by a signal".into())),
        }
    }
}

/// The name kubectl gives the folder of one side of the comparison (Go's `os.MkdirTemp("",
/// "LIVE-")`): the prefix and a random 32-bit number.
fn side_name(prefix: &str) -> String {
    format!("{prefix}{}", fastrand::u32(..))
}

/// Where kubectl would make the folder of one side: a [`side_name`] in `$TMPDIR`.
pub(super) fn side_path(prefix: &str) -> PathBuf {
    std::env::temp_dir().join(side_name(prefix))
}

/// A temporary directory holding one side of the comparison, removed when dropped. Files are
/// readable by their owner only: they may hold Secrets.
fn side(prefix: &str, changes: &[Change], text: impl Fn(&Change) -> &String) -> Result<tempfile::TempDir> {
    let dir = loop {
        match tempfile::Builder::new().prefix(&side_name(prefix)).rand_bytes(0).tempdir() {
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => continue,
            made => break made.map_err(|err| Error::Other(err.into()))?,
        }
    };
    for change in changes {
        write_private(&dir.path().join(&change.name), text(change))?;
    }
    Ok(dir)
}

fn write_private(path: &Path, text: &str) -> Result {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|err| Error::msg(format!("cannot write {}: {err}", path.display())))?;
    file.write_all(text.as_bytes()).map_err(|err| Error::msg(format!("cannot write {}: {err}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_is_read_as_kubectl_reads_it() {
        let program = |value: &str| Program::parse(value);
        assert_eq!(program(""), None);
        assert_eq!(program("meld"), Some(Program { name: "meld".into(), args: vec![] }));
        assert_eq!(
            program("colordiff -N -u --color=always $(rm) a;b"),
            Some(Program { name: "colordiff".into(), args: vec!["-N".into(), "-u".into(), "--color=always".into()] })
        );
    }
}
