//! Reading `-f` inputs: files, directories, stdin; multi-document YAML and JSON.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde_json::Value;

/// One object read from a manifest, with where it came from for error messages.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestObject {
    /// The file it came from, or `STDIN`.
    pub source: String,
    /// The object; it has an `apiVersion`, a `kind` and a `metadata.name`.
    pub object: Value,
}

impl ManifestObject {
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

/// Reads every object in `paths`, in order: `-` is stdin, a directory means its `.yaml`, `.yml`
/// and `.json` files (not recursively, sorted by name).
pub fn read_paths(paths: &[PathBuf]) -> anyhow::Result<Vec<ManifestObject>> {
    let mut objects = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).context("cannot read stdin")?;
            objects.extend(parse(&text, "STDIN")?);
        } else if path.is_dir() {
            for file in manifest_files(path)? {
                objects.extend(read_file(&file)?);
            }
        } else {
            objects.extend(read_file(path)?);
        }
    }
    Ok(objects)
}

fn read_file(path: &Path) -> anyhow::Result<Vec<ManifestObject>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text, &path.display().to_string())
}

fn manifest_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot read directory {}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.with_context(|| format!("cannot read directory {}", dir.display()))?.path();
        let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or_default();
        if path.is_file() && matches!(extension, "yaml" | "yml" | "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The objects in `text`: a JSON stream when it starts with `{` or `[`, else YAML documents.
/// Empty documents are skipped and `List` documents contribute their items.
pub fn parse(text: &str, source: &str) -> anyhow::Result<Vec<ManifestObject>> {
    let documents: Vec<Value> = if text.trim_start().starts_with(['{', '[']) {
        serde_json::Deserializer::from_str(text)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()
            .with_context(|| format!("{source}: invalid JSON"))?
    } else {
        serde_saphyr::from_multiple(text).with_context(|| format!("{source}: invalid YAML"))?
    };
    let mut objects = Vec::new();
    for document in documents.into_iter().filter(|document| !document.is_null()) {
        let is_list = document["kind"].as_str().is_some_and(|kind| kind.ends_with("List")) && document["items"].is_array();
        let found = match document {
            Value::Array(items) => items,
            mut list if is_list => std::mem::take(list["items"].as_array_mut().expect("checked to be an array")),
            object => vec![object],
        };
        for object in found {
            objects.push(validated(object, source)?);
        }
    }
    Ok(objects)
}

fn validated(object: Value, source: &str) -> anyhow::Result<ManifestObject> {
    let has = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).is_some_and(|text| !text.is_empty());
    for (pointer, field) in [("/apiVersion", "apiVersion"), ("/kind", "kind"), ("/metadata/name", "metadata.name")] {
        if !has(pointer) {
            let shown = serde_json::to_string(&object).unwrap_or_default();
            let shown: String = shown.chars().take(80).collect();
            bail!("{source}: an object has no {field}: {shown}");
        }
    }
    Ok(ManifestObject { source: source.to_string(), object })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(err.to_string().starts_with("f.yaml: an object has no metadata.name"), "{err}");
        assert!(parse("kind: ConfigMap\n", "f.yaml").is_err());
    }

    #[test]
    fn directories_read_manifest_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n").unwrap();
        std::fs::write(dir.path().join("a.json"), r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}"#).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
        let objects = read_paths(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<&str> = objects.iter().map(ManifestObject::name).collect();
        assert_eq!(names, ["a", "b"]);
    }
}
