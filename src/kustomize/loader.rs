//! How a build reads files: a small trait, so that the build itself does no I/O and tests run from
//! memory. Paths are made absolute and normalized by the build before they get here.

use std::collections::BTreeMap;
use std::io;
use std::path::{Component, Path, PathBuf};

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
