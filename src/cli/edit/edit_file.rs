//! The temporary file the editor works on. Only its owner may read it (it may hold Secrets); it is
//! removed when the edit ends, and kept when the edit fails so that no edit is lost.

use std::fs::{OpenOptions, Permissions};
use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use tempfile::TempPath;

const OWNER_ONLY: u32 = 0o600;

/// The file being edited; removed when dropped unless [`EditFile::keep`] was called.
pub(super) struct EditFile {
    path: TempPath,
}

impl EditFile {
    /// Creates an empty file `kubeupd-edit-*.<extension>` in the temporary directory, mode 0600.
    pub(super) fn create(extension: &str) -> anyhow::Result<EditFile> {
        let file = tempfile::Builder::new()
            .prefix("kubeupd-edit-")
            .suffix(&format!(".{extension}"))
            .permissions(Permissions::from_mode(OWNER_ONLY))
            .tempfile()
            .context("cannot create a temporary file to edit in")?;
        Ok(EditFile { path: file.into_temp_path() })
    }

    /// Where the file is.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Replaces the file's text. Should the editor have removed the file, it is made again with
    /// mode 0600.
    pub(super) fn write(&self, text: &str) -> anyhow::Result<()> {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(OWNER_ONLY)
            .open(&self.path)
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        file.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", self.path.display()))
    }

    /// The file's text, as the editor left it (editors may replace the file, so it is read by path).
    pub(super) fn read(&self) -> anyhow::Result<String> {
        std::fs::read_to_string(&self.path)
            .with_context(|| format!("cannot read the edited file {}", self.path.display()))
    }

    /// Keeps the file and tells the user where it is, as kubectl does.
    pub(super) fn keep(self) -> PathBuf {
        let path = self.path.keep().unwrap_or_else(|err| err.path.to_path_buf());
        eprintln!("A copy of your changes has been stored to {:?}", path.display().to_string());
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_file_is_private_and_removed_unless_kept() {
        let file = EditFile::create("yaml").unwrap();
        let path = file.path().to_path_buf();
        assert!(path.file_name().unwrap().to_str().unwrap().starts_with("kubeupd-edit-"));
        assert_eq!(path.extension().unwrap(), "yaml");
        assert_eq!(mode(&path), 0o600);
        file.write("a: 1\n").unwrap();
        assert_eq!(file.read().unwrap(), "a: 1\n");
        drop(file);
        assert!(!path.exists());

        let file = EditFile::create("json").unwrap();
        std::fs::remove_file(file.path()).unwrap();
        file.write("{}").unwrap();
        assert_eq!(mode(file.path()), 0o600, "a file the editor removed is made again, private");
        let kept = file.keep();
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "{}");
        std::fs::remove_file(kept).unwrap();
    }
}
