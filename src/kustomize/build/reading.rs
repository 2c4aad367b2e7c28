//! Reading the files a kustomization names: within the load restrictor's bounds or fetched, as
//! text, and parsed into resources (ahead of time, on every core, for the files of a level).

use std::borrow::Cow;
use std::path::Path;

use super::Builder;
use super::accumulation::with_origin;
use crate::kustomize::error::Error;
use crate::kustomize::fetch::{self, FetchError};
use crate::kustomize::loader::LoadRestrictor;
use crate::kustomize::loader::{Entry, normalize};
use crate::kustomize::origin::Origin;
use crate::kustomize::resource::Resource;
use crate::kustomize::{empty_nulls, remote};
use crate::manifest::{self, Dialect};
use crate::parallel;

/// The resources in `text`, read from `name`, which the kustomization names `entry`.
fn resources_in(text: &str, name: &str, entry: &str) -> Result<Vec<Resource>, Error> {
    let text = empty_nulls::mark(text);
    let has_marks = matches!(text, Cow::Owned(_));
    let objects = manifest::parse_as(&text, name, Dialect::Kustomize).map_err(|error| malformed(error, entry))?;
    Ok(objects
        .into_iter()
        .map(|mut object| {
            let places = if has_marks { empty_nulls::take(&mut object.object) } else { Vec::new() };
            Resource { empty_nulls: places, ..Resource::new(object.object) }
        })
        .collect())
}

/// A document that is not YAML (nor JSON) as kyaml reports it; other errors as they are.
fn malformed(error: manifest::Error, entry: &str) -> Error {
    if let manifest::Error::Invalid { message, .. } = &error
        && let Some(parser) = message.strip_prefix("invalid YAML: ").or_else(|| message.strip_prefix("invalid JSON: "))
    {
        return Error::MalformedYaml { message: parser.to_string(), file: entry.to_string() };
    }
    Error::Manifest(error)
}

/// Whether kustomize would take `error` for a file that is not YAML (its test is the word).
pub(super) fn is_malformed(error: &Error) -> bool {
    error.to_string().contains("MalformedYAMLError")
}

/// Whether `error` is a fetch that ran out of time.
pub(super) fn is_timeout(error: &Error) -> bool {
    matches!(error, Error::Clone(source) if source.kind() == std::io::ErrorKind::TimedOut)
}

impl Builder<'_> {
    /// Why `path`, which does not exist, cannot be resolved: Go's `filepath.EvalSymlinks` on the
    /// first part of it that is missing.
    pub(super) fn missing(&self, path: &Path) -> Error {
        let ancestors: Vec<&Path> = path.ancestors().collect();
        let mut reason = "no such file or directory";
        let mut missing = path;
        for ancestor in ancestors.into_iter().rev() {
            match self.loader.entry(ancestor) {
                Some(Entry::Dir) => continue,
                Some(Entry::File) if ancestor != path => reason = "not a directory",
                _ => {}
            }
            missing = ancestor;
            break;
        }
        let missing = match reason {
            // lstat of what lies below a file.
            "not a directory" => path.ancestors().find(|below| below.parent() == Some(missing)).unwrap_or(path),
            _ => missing,
        };
        Error::EvalSymlink { path: path.to_path_buf(), missing: missing.to_path_buf(), reason }
    }

    /// Reads a file a kustomization in `dir` names: fetched when it is an http(s) URL (which the
    /// load restrictor does not bound, as in kustomize), else within the load restrictor's bounds.
    pub(super) fn read_bytes(&self, dir: &Path, entry: &str) -> Result<Vec<u8>, Error> {
        if fetch::is_remote_file(entry) {
            return self.loader.fetch(entry).map_err(|source| match source {
                FetchError::Status(_) if remote::parse(entry).is_some() => Error::UrlIsGitRepository,
                source => Error::CannotFetch { entry: entry.to_string(), source },
            });
        }
        let path = normalize(&dir.join(entry));
        if !self.options.load_restrictor.allows(dir, &path) {
            return Err(Error::OutsideRoot { path, dir: dir.to_path_buf() });
        }
        self.loader.read(&path).map_err(|source| Error::CannotRead { entry: entry.to_string(), source })
    }

    /// [`Builder::read_bytes`], as text.
    pub(super) fn read_text(&self, dir: &Path, entry: &str) -> Result<String, Error> {
        let bytes = self.read_bytes(dir, entry)?;
        String::from_utf8(bytes).map_err(|_| Error::NotUtf8(entry.to_string()))
    }

    /// The resources of each of `entries` that is a file of this tree, read and parsed on all
    /// cores at once (reading YAML is most of a large build); `None` for the others
    /// (kustomizations, remote files and repositories, files that cannot be read), which
    /// [`Builder::accumulate`] reads in turn. A file's error waits there for its turn too, so
    /// that the first one in the kustomization's order is the one reported.
    pub(super) fn read_files_ahead(
        &self,
        dir: &Path,
        entries: &[&String],
    ) -> Vec<Option<Result<Vec<Resource>, Error>>> {
        let texts: Vec<Option<(String, String, &str)>> = entries
            .iter()
            .map(|entry| {
                let path = normalize(&dir.join(entry));
                if fetch::is_remote_file(entry) || self.loader.entry(&path) != Some(Entry::File) {
                    return None;
                }
                let text = self.read_text(dir, entry).ok()?;
                Some((text, path.display().to_string(), entry.as_str()))
            })
            .collect();
        let size = |file: &Option<(String, String, &str)>| file.as_ref().map_or(0, |(text, ..)| text.len());
        parallel::map(&texts, size, |file| file.as_ref().map(|(text, name, entry)| resources_in(text, name, entry)))
    }

    /// The resources of `entry` read as kustomize's file loader reads a file: fetched when it is
    /// an http(s) URL, else within the load restrictor's bounds.
    pub(super) fn file_resources(
        &self,
        dir: &Path,
        entry: &str,
        ahead: Option<Result<Vec<Resource>, Error>>,
        origin: Option<&Origin>,
    ) -> Result<Vec<Resource>, Error> {
        let origin = origin.map(|origin| origin.append(entry, None));
        if let Some(found) = ahead {
            return found.map(|found| with_origin(found, origin.as_ref()));
        }
        let path = normalize(&dir.join(entry));
        let restricted = self.options.load_restrictor == LoadRestrictor::RootOnly;
        let name = match fetch::is_remote_file(entry) {
            true => entry.to_string(),
            false => match self.loader.entry(&path) {
                Some(Entry::File) => path.display().to_string(),
                Some(Entry::Dir) if restricted => return Err(Error::MustResolveToAFile(path)),
                Some(Entry::Dir) => return Err(Error::IsADirectory(path)),
                None if restricted => return Err(self.missing(&path)),
                None => return Err(Error::NoSuchFile(path)),
            },
        };
        let text = match fetch::is_remote_file(entry) {
            true => {
                let bytes = self.loader.fetch(entry).map_err(|source| match source {
                    FetchError::Status(_) if remote::parse(entry).is_some() => Error::UrlIsGitRepository,
                    source => Error::Fetching(source),
                })?;
                String::from_utf8(bytes).map_err(|_| Error::NotUtf8(entry.to_string()))?
            }
            false => self.read_text(dir, entry)?,
        };
        Ok(with_origin(resources_in(&text, &name, entry)?, origin.as_ref()))
    }
}
