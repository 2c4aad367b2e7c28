//! How a build reads files: a small trait, so that the build itself does no I/O and tests run from
//! memory. Paths are made absolute and normalized by the build before they get here.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, Read as _};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::error::Error;
use super::fetch::{self, FetchError};
use super::remote::RepoSpec;

/// Reads a file named in the kustomization (within the load restrictor's bounds).
pub type Read<'a> = dyn FnMut(&str) -> Result<String, Error> + 'a;

/// What a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    File,
    Dir,
}

/// Reads the files of a kustomization tree.
pub trait Loader {
    /// The bytes of the file at `path`.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Whether `path` is a file or a directory; `None` when it does not exist.
    fn entry(&self, path: &Path) -> Option<Entry>;
    /// Fetches a remote repository and returns the directory it is checked out in, which the
    /// other methods then read. Loaders that do not fetch refuse.
    fn checkout(&self, repo: &RepoSpec) -> io::Result<PathBuf> {
        let _ = repo;
        Err(io::Error::new(io::ErrorKind::Unsupported, "this loader does not fetch remote repositories"))
    }
    /// The body of the file an http(s) `url` names. Loaders that do not fetch refuse.
    fn fetch(&self, url: &str) -> Result<Vec<u8>, FetchError> {
        let _ = url;
        Err(FetchError::Unsupported)
    }
}

/// Files on disk.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiskLoader;

impl Loader for DiskLoader {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn entry(&self, path: &Path) -> Option<Entry> {
        let metadata = std::fs::metadata(path).ok()?;
        Some(if metadata.is_dir() { Entry::Dir } else { Entry::File })
    }
}

/// Files on disk, remote repositories fetched with `git` into temporary directories that live as
/// long as the loader, and remote files fetched over HTTP.
#[derive(Debug, Default)]
pub struct GitLoader {
    clones: RefCell<Vec<tempfile::TempDir>>,
}

impl Loader for GitLoader {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        DiskLoader.read(path)
    }

    fn entry(&self, path: &Path) -> Option<Entry> {
        DiskLoader.entry(path)
    }

    /// As kustomize's git cloner does: a new repository, a shallow fetch of the ref (or HEAD), a
    /// checkout of what was fetched, then the submodules; each step within the spec's timeout.
    /// A failed step is told in kustomize's words: `failed to run '/usr/bin/git fetch ...': OUTPUT: exit status 128`.
    fn checkout(&self, repo: &RepoSpec) -> io::Result<PathBuf> {
        let program = git_program()?;
        let dir = tempfile::Builder::new().prefix("kustomize-").tempdir()?;
        let root = dir.path().to_path_buf();
        let reference = repo.reference.as_deref().unwrap_or("HEAD");
        let mut steps = vec![
            vec!["init"],
            vec!["remote", "add", "origin", &repo.clone_url],
            vec!["fetch", "--depth=1", &repo.clone_url, reference],
            vec!["checkout", "FETCH_HEAD"],
        ];
        if repo.submodules {
            steps.push(vec!["submodule", "update", "--init", "--recursive"]);
        }
        for step in steps {
            git(&program, &root, &step, repo.timeout)?;
        }
        self.clones.borrow_mut().push(dir);
        Ok(root)
    }

    fn fetch(&self, url: &str) -> Result<Vec<u8>, FetchError> {
        fetch::get(url)
    }
}

/// The `git` of the search path, as Go's `exec.LookPath` finds it.
fn git_program() -> io::Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|dir| dir.join("git")).find(|candidate| candidate.is_file()).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "no 'git' program on path: exec: \"git\": executable file not found in $PATH",
        )
    })
}

/// Runs `program ARGS` in `dir`, killed after `timeout`; kustomize's words when it fails.
fn git(program: &Path, dir: &Path, args: &[&str], timeout: Duration) -> io::Result<()> {
    let command_line = format!("{} {}", program.display(), args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| io::Error::new(err.kind(), format!("failed to run '{command_line}': {err}")))?;
    // Both pipes drained on threads of their own, so that a chatty git never blocks on them.
    let drain = |pipe: Option<Box<dyn io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|pipe| Box::new(pipe) as Box<dyn io::Read + Send>));
    let stderr = drain(child.stderr.take().map(|pipe| Box::new(pipe) as Box<dyn io::Read + Send>));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let seconds = timeout.as_secs_f64();
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("hit {seconds}s timeout running '{command_line}'"),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if status.success() {
        return Ok(());
    }
    let output = stdout.join().unwrap_or_default() + &stderr.join().unwrap_or_default();
    let exit = match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "signal: killed".to_string(),
    };
    Err(io::Error::other(format!("failed to run '{command_line}': {output}: {exit}")))
}

/// Files held in memory, for tests: directories are implied by the files' paths.
#[derive(Debug, Clone, Default)]
pub struct MemoryLoader {
    files: BTreeMap<PathBuf, Vec<u8>>,
}

impl MemoryLoader {
    /// Adds (or replaces) a file.
    pub fn with(mut self, path: impl Into<PathBuf>, content: impl Into<Vec<u8>>) -> Self {
        self.files.insert(normalize(&path.into()), content.into());
        self
    }
}

impl Loader for MemoryLoader {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files.get(path).cloned().ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    fn entry(&self, path: &Path) -> Option<Entry> {
        if self.files.contains_key(path) {
            return Some(Entry::File);
        }
        self.files.keys().any(|file| file.starts_with(path)).then_some(Entry::Dir)
    }
}

/// `path` with `.` and `..` resolved lexically (kustomize resolves symbolic links too; we do not).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Which files a kustomization may read: kustomize's `--load-restrictor`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LoadRestrictor {
    /// Only files in or below the kustomization's directory (kustomize's default).
    #[default]
    RootOnly,
    /// Any file.
    None,
}

impl LoadRestrictor {
    /// Whether a kustomization in `root` may read `file`.
    pub fn allows(self, root: &Path, file: &Path) -> bool {
        self == LoadRestrictor::None || file.starts_with(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_loader_implies_directories() {
        let loader = MemoryLoader::default().with("/k/base/a.yaml", "x");
        assert_eq!(loader.entry(Path::new("/k/base")), Some(Entry::Dir));
        assert_eq!(loader.entry(Path::new("/k/base/a.yaml")), Some(Entry::File));
        assert_eq!(loader.entry(Path::new("/k/other")), None);
        assert_eq!(normalize(Path::new("/k/overlay/../base/./a.yaml")), PathBuf::from("/k/base/a.yaml"));
    }

    #[test]
    fn root_only_refuses_files_outside_the_root() {
        let root = Path::new("/k/overlay");
        assert!(LoadRestrictor::RootOnly.allows(root, Path::new("/k/overlay/sub/a.yaml")));
        assert!(!LoadRestrictor::RootOnly.allows(root, Path::new("/k/base/a.yaml")));
        assert!(LoadRestrictor::None.allows(root, Path::new("/k/base/a.yaml")));
    }
}
