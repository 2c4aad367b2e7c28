//! Reading `-f` inputs: files, directories, stdin; multi-document YAML and JSON; `List`s. Each
//! object keeps where it came from, and every error names the file and the document. Label
//! selectors, matched against objects read here (and by kustomize's patch targets), live here too.

mod block_scalar_end;
pub(crate) mod json;
mod plain_times;
mod plain_yaml;
mod resource_field;
mod selector;
mod url;
pub(crate) mod yaml_events;

use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use resource_field::container_resource;
pub use selector::{BadSelector, LabelSelector, selector_text};
pub use url::UrlError;

use crate::gocompat;

/// Why the inputs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Paths of `-f` that name nothing (`the path "a.yaml" does not exist`) or a pattern Go
    /// cannot read, each in kubectl's words; found before anything is read.
    #[error("{}", .0.join("\n"))]
    Paths(Vec<String>),
    /// A file could not be read: Go's `open FILE: permission denied`.
    #[error("open {path}: {}", gocompat::os::error_text(.cause))]
    Read { path: String, cause: std::io::Error },
    /// A URL gave no file.
    #[error(transparent)]
    Url(#[from] UrlError),
    /// A directory could not be listed.
    #[error("error reading {}: open {path}: {}", gocompat::fmt::quote(.path), gocompat::os::error_text(.cause))]
    ReadDirectory { path: String, cause: std::io::Error },
    /// A document is not valid YAML or JSON, or not an object with a type and a name.
    #[error("{location}: {message}")]
    Invalid {
        /// `app.yaml (document 2)`.
        location: String,
        message: String,
    },
}

fn invalid(source: &str, document: usize, message: impl Into<String>) -> Error {
    Error::Invalid { location: format!("{source} (document {document})"), message: message.into() }
}

/// One object read from a manifest, with where it came from for error messages.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestObject {
    /// The file it came from, or `STDIN`.
    pub source: String,
    /// The document of the file it came from, counting from 1.
    pub document: usize,
    /// The object; it has an `apiVersion`, a `kind` and a `metadata.name`.
    pub object: Value,
}

impl ManifestObject {
    /// Where the object was read, for messages: `app.yaml (document 2)`.
    pub fn location(&self) -> String {
        format!("{} (document {})", self.source, self.document)
    }

    /// The object's `apiVersion`.
    pub fn api_version(&self) -> &str {
        self.object["apiVersion"].as_str().unwrap_or_default()
    }

    /// The object's `kind`.
    pub fn kind(&self) -> &str {
        self.object["kind"].as_str().unwrap_or_default()
    }

    /// The object's `metadata.name`.
    pub fn name(&self) -> &str {
        self.object["metadata"]["name"].as_str().unwrap_or_default()
    }

    /// The object's `metadata.namespace`, if it names one.
    pub fn namespace(&self) -> Option<&str> {
        self.object["metadata"]["namespace"].as_str().filter(|namespace| !namespace.is_empty())
    }
}

/// Reads every object in `paths`, in order: `-` is stdin, an `http://` or `https://` URL is
/// fetched, a directory means its `.yaml`, `.yml` and `.json` files sorted by name, and those of
/// its subdirectories too when `recursive`. The files are read first and parsed together (see
/// [`parse_inputs`]); an error is the first in input order, as if each file were parsed as soon
/// as it was read. The warnings about what was read (see [`on_warning`]) go to the warning sink,
/// in input order.
pub fn read_paths(paths: &[PathBuf], recursive: bool) -> Result<Vec<ManifestObject>, Error> {
    let (objects, warnings) = read_paths_noting(paths, recursive)?;
    if let Some(sink) = WARNING_SINK.get() {
        warnings.iter().for_each(|warning| sink(warning));
    }
    Ok(objects)
}

/// [`read_paths`], with its warnings returned rather than given to the sink.
pub fn read_paths_noting(paths: &[PathBuf], recursive: bool) -> Result<(Vec<ManifestObject>, Vec<String>), Error> {
    let paths = expand(paths)?;
    let mut inputs = Vec::new();
    let unread = read_texts(&paths, recursive, &mut inputs).err();
    let read = parse_inputs(&inputs, Dialect::Kubectl)?;
    match unread {
        Some(err) => Err(err),
        None => Ok(read),
    }
}

static WARNING_SINK: std::sync::OnceLock<fn(&str)> = std::sync::OnceLock::new();

/// Where [`read_paths`] gives its warnings (each without `Warning: `): a YAML 1.1-only boolean
/// read unquoted, which kubectl reads as a boolean (`app.yaml:12: unquoted "yes" is read as the
/// boolean true ...`), almost never what the author meant. Set once, by the program; without a
/// sink they are dropped.
pub fn on_warning(sink: fn(&str)) {
    let _ = WARNING_SINK.set(sink);
}

/// The standard input's text, read once: `apply --plan -f -` reads its input twice (to check the
/// plan, then to apply), and both must see the same documents.
fn stdin_text() -> std::io::Result<String> {
    static TEXT: std::sync::OnceLock<Result<String, (std::io::ErrorKind, String)>> = std::sync::OnceLock::new();
    let read = TEXT.get_or_init(|| {
        let mut text = String::new();
        match std::io::stdin().read_to_string(&mut text) {
            Ok(_) => Ok(text),
            Err(err) => Err((err.kind(), err.to_string())),
        }
    });
    read.clone().map_err(|(kind, message)| std::io::Error::new(kind, message))
}

/// `paths` as kubectl's builder takes them: `-` and URLs as they are, a path that does not exist
/// read as a Go pattern (`k8s/*.yaml`) standing for the paths it matches. Every path that names nothing
/// is reported, in kubectl's words, before anything is read.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let (mut expanded, mut problems) = (Vec::new(), Vec::new());
    let missing = |path: &str| format!("the path {} does not exist", gocompat::fmt::quote(path));
    let inaccessible = |path: &str, err: &std::io::Error| {
        let reason = gocompat::os::error_text(err);
        format!("the path {} cannot be accessed: stat {path}: {reason}", gocompat::fmt::quote(path))
    };
    for path in paths {
        let text = path.to_string_lossy();
        match std::fs::metadata(path) {
            _ if path.as_os_str() == "-" || url::is_url(&text) => expanded.push(path.clone()),
            Ok(_) => expanded.push(path.clone()),
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => problems.push(inaccessible(&text, &err)),
            Err(_) => match gocompat::filepath::glob(&text) {
                Ok(matched) if matched.is_empty() => problems.push(missing(&text)),
                Err(bad) => problems.push(format!("pattern {} is not valid: {bad}", gocompat::fmt::quote(&text))),
                // A match is a name in its directory; a link to nothing is still missing.
                Ok(matched) => {
                    for path in matched {
                        match std::fs::metadata(&path) {
                            Ok(_) => expanded.push(PathBuf::from(path)),
                            Err(err) if err.kind() == std::io::ErrorKind::NotFound => problems.push(missing(&path)),
                            Err(err) => problems.push(inaccessible(&path, &err)),
                        }
                    }
                }
            },
        }
    }
    match problems.is_empty() {
        true => Ok(expanded),
        false => Err(Error::Paths(problems)),
    }
}

/// Adds the text and source name of each input in `paths` to `inputs`, up to the first that
/// cannot be read.
fn read_texts(paths: &[PathBuf], recursive: bool, inputs: &mut Vec<(String, String)>) -> Result<(), Error> {
    for path in paths {
        let name = path.to_string_lossy();
        if path.as_os_str() == "-" {
            let text = stdin_text().map_err(|cause| Error::Read { path: "stdin".into(), cause })?;
            inputs.push((text, "STDIN".to_string()));
        } else if url::is_url(&name) {
            let text =
                String::from_utf8(url::read(&name)?).map_err(|_| invalid(&name, 1, "the file is not UTF-8 text"))?;
            inputs.push((text, name.into_owned()));
        } else if path.is_dir() {
            for file in manifest_files(path, recursive)? {
                inputs.push(read_file(&file)?);
            }
        } else {
            inputs.push(read_file(path)?);
        }
    }
    Ok(())
}

fn read_file(path: &Path) -> Result<(String, String), Error> {
    let text =
        std::fs::read_to_string(path).map_err(|cause| Error::Read { path: path.display().to_string(), cause })?;
    Ok((text, path.display().to_string()))
}

fn manifest_files(dir: &Path, recursive: bool) -> Result<Vec<PathBuf>, Error> {
    let unreadable = |cause| Error::ReadDirectory { path: dir.display().to_string(), cause };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        paths.push(entry.map_err(unreadable)?.path());
    }
    paths.sort();
    let mut files = Vec::new();
    for path in paths {
        let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or_default();
        if path.is_file() && matches!(extension, "yaml" | "yml" | "json") {
            files.push(path);
        } else if recursive && path.is_dir() {
            files.extend(manifest_files(&path, true)?);
        }
    }
    Ok(files)
}

/// The objects in `text`: a JSON stream when it starts with `{` or `[`, else YAML documents
/// separated by `---` lines (as kubectl splits them). Empty documents are skipped and `List`
/// documents contribute their items. Errors name the source and the document.
pub fn parse(text: &str, source: &str) -> Result<Vec<ManifestObject>, Error> {
    parse_as(text, source, Dialect::Kubectl)
}

/// Which YAML a reader speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// sigs.k8s.io/yaml (go-yaml v2, YAML 1.1): `yes`, `on`, `y` are booleans, keys included
    /// (`y:` is the key `true`), `0777` is 511, `1_000` is 1000. kubectl's `-f` reader, and
    /// kustomize's for its own files (kustomizations, replacements, JSON patches).
    Kubectl,
    /// [`Dialect::Kubectl`], except that a key repeated in a mapping keeps its last value (go-yaml
    /// v2's non-strict decoding): how kustomize reads a kustomization file.
    KustomizationFile,
    /// kyaml's (go-yaml v3, YAML 1.2), kustomize's for resources, strategic merge patches and
    /// plugin configurations: only `true` and `false` are booleans, and plain timestamps are
    /// written as Go writes a time.
    Kustomize,
}

/// [`parse`], reading YAML as `dialect` does.
pub fn parse_as(text: &str, source: &str, dialect: Dialect) -> Result<Vec<ManifestObject>, Error> {
    Ok(parse_inputs(&[(text, source)], dialect)?.0)
}

/// The objects of every `(text, source)` input, in order, and the warnings about them. Each YAML
/// document is parsed on its own, and large inputs on several threads at once: parsing is most of
/// the client's work before its first request, while the server waits. The error is the first in
/// input order.
fn parse_inputs(
    inputs: &[(impl AsRef<str> + Sync, impl AsRef<str> + Sync)],
    dialect: Dialect,
) -> Result<(Vec<ManifestObject>, Vec<String>), Error> {
    let units: Vec<Unit> = inputs.iter().flat_map(|(text, source)| units(text.as_ref(), source.as_ref())).collect();
    let parsed = crate::parallel::map(&units, |unit| unit.text.len(), |unit| unit.objects(dialect));
    let mut objects = Vec::new();
    let mut warnings = Vec::new();
    for found in parsed {
        let (found, noted) = found?;
        objects.extend(found);
        warnings.extend(noted);
    }
    Ok((objects, warnings))
}

/// A piece of an input parsed on its own: a YAML document, or a whole JSON stream.
struct Unit<'a> {
    text: &'a str,
    source: &'a str,
    /// The document number of the first document, counting from 1.
    number: usize,
    /// For YAML, the number of the document's first line in the input, counting from 0.
    yaml_first_line: Option<usize>,
}

fn units<'a>(text: &'a str, source: &'a str) -> Vec<Unit<'a>> {
    if is_json(text) {
        return vec![Unit { text, source, number: 1, yaml_first_line: None }];
    }
    (yaml_documents(text).enumerate())
        .map(|(index, (first_line, text))| Unit { text, source, number: index + 1, yaml_first_line: Some(first_line) })
        .collect()
}

impl Unit<'_> {
    /// The unit's documents, and the warnings about them.
    fn documents(&self, dialect: Dialect) -> Result<(Vec<Value>, Vec<String>), Error> {
        match self.yaml_first_line {
            Some(first_line) => {
                let (document, warnings) = yaml_document(self.text, self.source, self.number, first_line, dialect)?;
                Ok((vec![document], warnings))
            }
            None => Ok((json_documents(self.text, self.source)?, Vec::new())),
        }
    }

    fn objects(&self, dialect: Dialect) -> Result<(Vec<ManifestObject>, Vec<String>), Error> {
        let mut objects = Vec::new();
        let (documents, warnings) = self.documents(dialect)?;
        for (index, mut document) in documents.into_iter().enumerate() {
            let document_number = self.number + index;
            // Numbers as kubectl reads them, so that both tools send the same object.
            gocompat::json::whole_floats_as_integers(&mut document);
            if document.is_null() {
                continue;
            }
            let is_list =
                document["kind"].as_str().is_some_and(|kind| kind.ends_with("List")) && document["items"].is_array();
            let found = match document {
                Value::Array(items) => items,
                mut list if is_list => std::mem::take(list["items"].as_array_mut().expect("checked to be an array")),
                object => vec![object],
            };
            for object in found {
                objects.push(validated(object, self.source, document_number, dialect)?);
            }
        }
        Ok((objects, warnings))
    }
}

fn is_json(text: &str) -> bool {
    text.trim_start().starts_with(['{', '['])
}

/// The documents of `text` as values, empty ones as `null`: a JSON stream when it starts with
/// `{` or `[`, else YAML documents separated by `---` lines. Errors name the source and document.
pub fn parse_documents(text: &str, source: &str, dialect: Dialect) -> Result<Vec<Value>, Error> {
    let mut documents = Vec::new();
    for unit in units(text, source) {
        documents.extend(unit.documents(dialect)?.0);
    }
    Ok(documents)
}

fn json_documents(text: &str, source: &str) -> Result<Vec<Value>, Error> {
    let mut documents = Vec::new();
    for (index, document) in serde_json::Deserializer::from_str(text).into_iter::<json::Strict>().enumerate() {
        let document = document.map_err(|err| invalid(source, index + 1, format!("invalid JSON: {err}")))?;
        documents.push(document.0);
    }
    Ok(documents)
}

/// YAML document `number` of `source`, whose first line is line `first_line` of the input, and
/// the warnings about it (kubectl's reading only).
fn yaml_document(
    text: &str,
    source: &str,
    number: usize,
    first_line: usize,
    dialect: Dialect,
) -> Result<(Value, Vec<String>), Error> {
    let document = block_scalar_end::as_go_reads(text);
    let refused = |message: &str| {
        let message = describe_yaml_error(message, first_line);
        invalid(source, number, format!("invalid YAML: {message}"))
    };
    // kustomize's times are found on the same walk as the value (which stops at the first of them).
    let (read, times) = if dialect == Dialect::Kustomize && plain_times::may_hold_a_time(&document) {
        let (read, times) = plain_yaml::value_watched(&document, dialect, plain_times::PlainTimes::default());
        (read, Some(times))
    } else {
        (plain_yaml::value(&document, dialect), None)
    };
    let (mut value, truthy) = match read {
        Some(plain_yaml::Read::Value(value, truthy)) => (value, truthy),
        Some(plain_yaml::Read::Refused(message)) => return Err(refused(&message)),
        None => {
            let value = serde_saphyr::from_str_with_options(&document, yaml_options(dialect))
                .map_err(|err| refused(&err.to_string()))?;
            (value, Vec::new())
        }
    };
    if let Some(times) = times {
        times.write_as_kyaml(&mut value);
    }
    let warnings = truthy
        .into_iter()
        .map(|truthy| {
            let (line, word, value) = (first_line + truthy.line, truthy.word, truthy.value);
            format!(
                "{source}:{line}: unquoted {word:?} is read as the boolean {value} (YAML 1.1, as kubectl reads it); \
                 quote it to keep the string"
            )
        })
        .collect();
    Ok((value, warnings))
}

/// The single YAML document `text` as kubectl reads YAML given on its command line (`patch -p`,
/// through `sigs.k8s.io/yaml`: YAML 1.1, keys included); the error is the parser's, on one line.
pub fn yaml_value(text: &str) -> Result<Value, String> {
    let document = block_scalar_end::as_go_reads(text);
    match plain_yaml::value(&document, Dialect::Kubectl) {
        Some(plain_yaml::Read::Value(value, _)) => Ok(value),
        Some(plain_yaml::Read::Refused(message)) => Err(message),
        None => serde_saphyr::from_str_with_options(&document, yaml_options(Dialect::Kubectl))
            .map_err(|err| describe_yaml_error(&err.to_string(), 0)),
    }
}

/// The parser's limits: serde-saphyr's defaults (which stop alias bombs and runaway documents),
/// with nesting allowed as deep as serde_json allows it, for large CustomResourceDefinition schemas.
/// Comments are skipped rather than kept (nothing reads them, and a run of commented-out lines
/// longer than the parser's look-ahead buffer would otherwise be an error). Both go-yaml v2 and
/// kustomize's go-yaml v3 read YAML 1.1 octals (`0755` is 493).
fn yaml_options(dialect: Dialect) -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! { max_depth: 128 },
        emit_comments: false,
        strict_booleans: dialect == Dialect::Kustomize,
        legacy_octal_numbers: true,
        duplicate_keys: if dialect == Dialect::KustomizationFile {
            serde_saphyr::DuplicateKeyPolicy::LastWins
        } else {
            serde_saphyr::DuplicateKeyPolicy::Error
        },
    }
}

/// The YAML documents of a stream (the text between lines that start with `---`), each with the
/// number of its first line in the stream, counting from 0.
fn yaml_documents(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut starts = vec![(0, 0)];
    let mut ends = Vec::new();
    let mut offset = 0;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\n', '\r']);
        if content == "---" || content.starts_with("--- ") || content.starts_with("---\t") {
            ends.push(offset);
            starts.push((number + 1, offset + line.len()));
        }
        offset += line.len();
    }
    ends.push(text.len());
    starts.into_iter().zip(ends).map(move |((first_line, start), end)| (first_line, &text[start..end]))
}

/// The parser's message on one line, its line number counted in the whole stream.
fn describe_yaml_error(message: &str, first_line: usize) -> String {
    let message = message.lines().next().unwrap_or_default().trim();
    let message = message.strip_prefix("error: ").unwrap_or(message);
    let message = message.split(", set DuplicateKeyPolicy").next().unwrap_or(message);
    let message = if message.contains("budget breached: Nodes") {
        message.split("budget breached").next().unwrap_or_default().to_string()
            + "the document has too many nodes (an alias bomb?)"
    } else if message.contains("budget breached: Depth") {
        message.split("budget breached").next().unwrap_or_default().to_string()
            + "the document is nested more than 128 levels deep"
    } else {
        message.to_string()
    };
    let message = message.as_str();
    let located = message.strip_prefix("line ").and_then(|rest| rest.split_once(' '));
    match located.and_then(|(number, rest)| Some((number.parse::<usize>().ok()?, rest))) {
        Some((number, rest)) => format!("line {} {rest}", number + first_line),
        None => message.to_string(),
    }
}

/// `object` with the fields a reader requires: kubectl's an `apiVersion`, a `kind` and a name;
/// kustomize's a `kind` and a name (its own examples have `kind: Coffee` alone).
fn validated(object: Value, source: &str, document: usize, dialect: Dialect) -> Result<ManifestObject, Error> {
    let shown = || {
        let text = serde_json::to_string(&object).unwrap_or_default();
        text.chars().take(80).collect::<String>()
    };
    if !object.is_object() {
        return Err(invalid(source, document, format!("the document is not an object: {}", shown())));
    }
    let required = [("/apiVersion", "apiVersion"), ("/kind", "kind"), ("/metadata/name", "metadata.name")];
    let skipped = usize::from(dialect == Dialect::Kustomize);
    for (pointer, field) in &required[skipped..] {
        match object.pointer(pointer) {
            None | Some(Value::Null) => {
                return Err(invalid(source, document, format!("the object has no {field}: {}", shown())));
            }
            Some(Value::String(text)) if text.is_empty() => {
                return Err(invalid(source, document, format!("the object's {field} is empty")));
            }
            Some(Value::String(_)) => {}
            Some(other) => {
                return Err(invalid(source, document, format!("the object's {field} must be a string, not {other}")));
            }
        }
    }
    Ok(ManifestObject { source: source.to_string(), document, object })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every YAML document of the repository's test data that [`plain_yaml`] reads, it reads as
    /// serde-saphyr does in both dialects (none has a key or a scalar go-yaml v2 reads otherwise);
    /// and as kustomize reads them, it reads most of them.
    #[test]
    fn plain_yaml_reads_documents_as_serde_saphyr_does() {
        fn files(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
                let path = entry.path();
                if path.is_dir() {
                    // Where go-yaml v2 and serde-saphyr read otherwise, on purpose (yaml11), and
                    // inputs made to break readers (fuzz, which its own targets replay).
                    if !path.ends_with("yaml11") && !path.ends_with("fuzz") {
                        files(&path, found);
                    }
                } else if path.extension().is_some_and(|extension| extension == "yaml" || extension == "yml") {
                    found.push(path);
                }
            }
        }
        let mut paths = Vec::new();
        files(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata")), &mut paths);
        let (mut read, mut documents) = (0, 0);
        for path in paths {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            for (_, document) in yaml_documents(&text) {
                documents += 1;
                let document = block_scalar_end::as_go_reads(document);
                for dialect in [Dialect::Kubectl, Dialect::Kustomize] {
                    let Some(plain_yaml::Read::Value(value, _)) = plain_yaml::value(&document, dialect) else {
                        continue;
                    };
                    read += usize::from(dialect == Dialect::Kustomize);
                    let reference: Value = serde_saphyr::from_str_with_options(&document, yaml_options(dialect))
                        .unwrap_or_else(|err| {
                            panic!("{}: serde-saphyr refuses what plain_yaml read: {err}", path.display())
                        });
                    assert_eq!(value, reference, "{} in {dialect:?}:\n{document}", path.display());
                }
            }
        }
        assert!(read * 10 > documents * 8, "plain_yaml read {read} of {documents} documents");
    }

    #[test]
    fn yaml_documents_split_and_lists_expand() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: b\n    namespace: ns\n";
        let objects = parse(text, "f.yaml").unwrap();
        let names: Vec<(&str, &str)> = objects.iter().map(|object| (object.kind(), object.name())).collect();
        assert_eq!(names, [("ConfigMap", "a"), ("Deployment", "b")]);
        assert_eq!(objects[1].namespace(), Some("ns"));
        assert_eq!(objects[1].api_version(), "apps/v1");
    }

    #[test]
    fn json_streams_parse() {
        let text = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}} {"apiVersion":"v1","kind":"Secret","metadata":{"name":"b"}}"#;
        let objects = parse(text, "f.json").unwrap();
        assert_eq!(objects.len(), 2);
        assert_eq!(objects[1].kind(), "Secret");
    }

    #[test]
    fn objects_without_identity_are_rejected() {
        let err = parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "f.yaml").unwrap_err();
        assert!(err.to_string().starts_with("f.yaml (document 1): the object has no metadata.name"), "{err}");
        assert!(parse("kind: ConfigMap\n", "f.yaml").is_err());
        let err = parse("apiVersion: v1\nkind: [ConfigMap]\nmetadata: {name: a}\n", "f.yaml").unwrap_err();
        assert_eq!(err.to_string(), r#"f.yaml (document 1): the object's kind must be a string, not ["ConfigMap"]"#);
        let err = parse("just words\n", "f.yaml").unwrap_err();
        assert_eq!(err.to_string(), r#"f.yaml (document 1): the document is not an object: "just words""#);
    }

    #[test]
    fn directories_read_manifest_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n").unwrap();
        std::fs::write(dir.path().join("a.json"), r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}"#)
            .unwrap();
        std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/c.yml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
            .unwrap();
        let names = |recursive| -> Vec<String> {
            read_paths(&[dir.path().to_path_buf()], recursive)
                .unwrap()
                .iter()
                .map(|object| object.name().to_string())
                .collect()
        };
        assert_eq!(names(false), ["a", "b"]);
        assert_eq!(names(true), ["a", "b", "c"]);
    }

    #[test]
    fn errors_name_the_document() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\nkind: [unclosed\n";
        let err = parse(text, "app.yaml").unwrap_err().to_string();
        assert_eq!(err, "app.yaml (document 3): invalid YAML: line 9 column 7: unclosed bracket '['");
        let err = parse("a: 1\na: 2\n", "dup.yaml").unwrap_err().to_string();
        assert_eq!(err, "dup.yaml (document 1): invalid YAML: line 2 column 1: duplicate mapping key: a");
        let objects = parse("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n--- \n\n", "x.yaml").unwrap();
        assert_eq!(objects.len(), 1);
        assert_eq!(objects[0].location(), "x.yaml (document 2)");
    }

    /// An input large enough to be parsed on several threads: 2,000 ConfigMaps of about 100 bytes.
    fn large_input(broken: &[usize]) -> String {
        (0..2000)
            .map(|n| match broken.contains(&n) {
                true => format!("kind: [broken {n}\n"),
                false => format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{n}}}\ndata: {{n: \"{n}\"}}\n"),
            })
            .collect::<Vec<_>>()
            .join("---\n")
    }

    #[test]
    fn large_inputs_keep_their_order_and_their_first_error() {
        let text = large_input(&[]);
        assert!(text.len() > 128 * 1024, "large enough to be shared among threads");
        let objects = parse(&text, "big.yaml").unwrap();
        let names: Vec<&str> = objects.iter().map(ManifestObject::name).collect();
        let expected: Vec<String> = (0..2000).map(|n| format!("cm-{n}")).collect();
        assert_eq!(names, expected);
        assert_eq!(objects[1999].location(), "big.yaml (document 2000)");
        // The error reported is the first in the input, wherever the threads find others.
        let err = parse(&large_input(&[1500, 700, 1999]), "big.yaml").unwrap_err().to_string();
        assert_eq!(err, "big.yaml (document 701): invalid YAML: line 3501 column 7: unclosed bracket '['");
    }

    #[test]
    fn paths_that_name_nothing_are_kubectls_words_and_patterns_are_gos() {
        let dir = tempfile::tempdir().unwrap();
        for file in ["k8s/a.yaml", "k8s/b.yml", "k8s/notes.txt"] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {}}}\n", &file[4..5]))
                .unwrap();
        }
        let root = dir.path().display();
        let read = |paths: &[String]| read_paths(&paths.iter().map(PathBuf::from).collect::<Vec<_>>(), false);
        let objects = read(&[format!("{root}/k8s/*.y*ml")]).unwrap();
        let names: Vec<&str> = objects.iter().map(ManifestObject::name).collect();
        assert_eq!(names, ["a", "b"]);
        let err = read(&[format!("{root}/k8s/*.json"), format!("{root}/k8s/[")]).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "the path \"{root}/k8s/*.json\" does not exist\npattern \"{root}/k8s/[\" is not valid: syntax error in pattern"
            )
        );
        let err = read(&[format!("{root}/k8s/a.yaml/")]).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("the path \"{root}/k8s/a.yaml/\" cannot be accessed: stat {root}/k8s/a.yaml/: not a directory")
        );
    }

    #[test]
    fn files_report_the_first_problem_in_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let broken = dir.path().join("a.yaml");
        std::fs::write(&broken, "kind: [\n").unwrap();
        let missing = dir.path().join("missing.yaml");
        let other = dir.path().join("other.yaml");
        std::fs::write(&other, "kind: [\n").unwrap();
        // As kubectl's builder: the paths that name nothing first, whatever their place.
        let err = read_paths(&[broken.clone(), missing.clone()], false).unwrap_err();
        assert!(matches!(err, Error::Paths(_)), "{err}");
        // Then each file in turn: the broken file comes first, its error, not the next one's.
        let err = read_paths(&[broken.clone(), other.clone()], false).unwrap_err();
        assert!(err.to_string().starts_with(&format!("{} (document 1)", broken.display())), "{err}");
        let err = read_paths(&[other, broken], false).unwrap_err();
        assert!(err.to_string().contains("other.yaml (document 1)"), "{err}");
    }
}
