//! kustomize's ValueAddTransformer, a built-in plugin with no kustomization field: a value (by
//! default the name of the directory of the kustomization that lists it) written into a field of
//! the resources each target selects, or inserted as a part of the path that field holds.

use serde::Deserialize;
use serde_json::Value;

use super::error::Error;
use super::loader::Read;
use super::resource::Resource;
use super::transform::{Target, set_object_namespace};
use super::types::plugins::{ValueAdd, ValueAddTarget};
use crate::gocompat::unmarshal;
use crate::manifest::{self, Dialect};

#[derive(Deserialize, Default)]
#[serde(default)]
struct TargetFile {
    targets: Vec<ValueAddTarget>,
}

/// Runs `config` over `resources`; `directory_name` is the value when the configuration has none,
/// and `read` loads its target file.
pub fn run(config: &ValueAdd, directory_name: &str, resources: &mut [Resource], read: &mut Read) -> Result<(), Error> {
    let value = match config.value.trim() {
        "" => directory_name,
        value => value,
    };
    let mut targets = config.targets.clone();
    if !config.target_file_path.is_empty() {
        let text = read(&config.target_file_path)?;
        let document = manifest::parse_documents(&text, &config.target_file_path, Dialect::Kubectl)?
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        let file: TargetFile = unmarshal::from_value(document, unmarshal::PLUGIN)?;
        targets.extend(file.targets);
    }
    if targets.is_empty() {
        return Err(Error::ValueAddWithoutTarget);
    }
    for target in &targets {
        if target.field_path.is_empty() {
            return Err(Error::ValueAddEmptyFieldPath);
        }
        if target.file_path_position < 0 {
            return Err(Error::NegativeFilePathPosition(target.file_path_position));
        }
    }
    for target in &targets {
        let selector = target.selector.as_ref().map(Target::compile).transpose()?;
        for resource in resources.iter_mut() {
            if selector.as_ref().is_some_and(|selector| !selector.selects(resource)) {
                continue;
            }
            if target.field_path == "metadata/namespace" {
                set_object_namespace(&mut resource.object, value);
            } else {
                add_value(&mut resource.object, &target.field_path, value, target.file_path_position)?;
            }
        }
    }
    Ok(())
}

/// Writes `value` at `field_path` in `object`, creating the maps on the way.
fn add_value(object: &mut Value, field_path: &str, value: &str, position: i64) -> Result<(), Error> {
    let fields = fields(field_path);
    let mut node = object;
    for (at, field) in fields.iter().enumerate() {
        if node.is_null() {
            *node = Value::Object(Default::default());
        }
        let Value::Object(map) = node else {
            return Err(Error::ValueAddNotAMap(field_path.to_string()));
        };
        let created = if at + 1 == fields.len() { Value::String(String::new()) } else { Value::Null };
        node = map.entry(field.as_str()).or_insert(created);
    }
    let current = match node {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        Value::Bool(_) | Value::Number(_) => node.to_string(),
        Value::Array(_) | Value::Object(_) => {
            return Err(Error::ValueAddNotAScalar(field_path.to_string()));
        }
    };
    *node = Value::String(match position {
        0 => value.to_string(),
        position => insert_path_part(&current, position as usize - 1, value),
    });
    Ok(())
}

/// A field path's names: split at `/`, a `\/` kept as a slash.
fn fields(field_path: &str) -> Vec<String> {
    let mut fields: Vec<String> = Vec::new();
    for part in field_path.split('/') {
        match fields.last_mut().filter(|last| last.ends_with('\\')) {
            Some(last) => {
                last.pop();
                last.push('/');
                last.push_str(part);
            }
            None => fields.push(part.to_string()),
        }
    }
    fields
}

/// `path` with `part` inserted at `position` (counted without the leading `/` of an absolute
/// path), cleaned as Go's `filepath.Join` cleans it (kyaml's `InsertPathPart`).
fn insert_path_part(path: &str, position: usize, part: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
    parts.insert(position.min(parts.len()), part);
    let joined = parts.into_iter().filter(|part| !part.is_empty() && *part != ".").collect::<Vec<_>>().join("/");
    if absolute { format!("/{joined}") } else { joined }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_inserted_at_their_position_in_relative_and_absolute_paths() {
        assert_eq!(insert_path_part("projects/x/roles/y", 1, "cat"), "projects/cat/x/roles/y");
        assert_eq!(insert_path_part("/a/b", 0, "p"), "/p/a/b");
        assert_eq!(insert_path_part("a", 5, "p"), "a/p");
        assert_eq!(insert_path_part("", 0, "p"), "p");
    }

    #[test]
    fn field_paths_keep_escaped_slashes() {
        assert_eq!(fields(r"metadata/annotations/a.io\/b"), ["metadata", "annotations", "a.io/b"]);
    }
}
