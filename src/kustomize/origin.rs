//! `buildMetadata`: where each object came from (`config.kubernetes.io/origin`) and which
//! transformers went over it (`alpha.config.kubernetes.io/transformations`), written as kustomize
//! writes them, and the `app.kubernetes.io/managed-by` label kubectl's kustomize adds.

use serde_json::{Map, Value};

use super::remote::RepoSpec;
use super::resource::Resource;

pub const ORIGIN: &str = "config.kubernetes.io/origin";
pub const TRANSFORMATIONS: &str = "alpha.config.kubernetes.io/transformations";
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
/// kubectl 1.37 names the kustomize module it embeds, so kustomize calls itself by its release.
pub const MANAGED_BY_VALUE: &str = "kustomize-v5.8.1";

/// The kustomize release this engine builds as (`kubeupd version`'s `Kustomize Version`).
pub fn kustomize_version() -> &'static str {
    MANAGED_BY_VALUE.trim_start_matches("kustomize-")
}

/// Where a file, a directory, a generator or a transformer came from: a path from the directory
/// being built (or from a remote repository's root), the repository and ref when remote, and for
/// generators and transformers the kustomization that configured them and what they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    pub path: String,
    pub repo: String,
    pub reference: String,
    pub configured_in: String,
    pub configured_by: Option<ConfiguredBy>,
}

/// The generator or transformer of an [`Origin`]: `builtin` and a kind for the built-in ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredBy {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

impl Origin {
    /// The origin of `entry` of the kustomization this origin is the directory of: a local path
    /// joined to this one, or a remote repository with the path in it.
    pub fn append(&self, entry: &str, remote: Option<&RepoSpec>) -> Origin {
        let mut origin = self.clone();
        match remote {
            Some(repo) => {
                origin.repo = repo.clone_url.clone();
                origin.reference = repo.reference.clone().unwrap_or_default();
                // kustomize names a repository's root by its placeholder for an unfetched clone.
                let path = repo.path.to_string_lossy();
                origin.path = if path.is_empty() { "notCloned".into() } else { join("", &path) };
            }
            None => origin.path = join(&self.path, entry),
        }
        origin
    }

    /// The origin of a built-in generator or transformer configured in the kustomization file
    /// `file_name` of this directory.
    pub fn builtin(&self, file_name: &str, kind: &str) -> Origin {
        Origin {
            path: String::new(),
            repo: self.repo.clone(),
            reference: self.reference.clone(),
            configured_in: join(&self.path, file_name),
            configured_by: Some(ConfiguredBy {
                api_version: "builtin".into(),
                kind: kind.into(),
                name: String::new(),
                namespace: String::new(),
            }),
        }
    }

    /// The origin an object's annotation records (its file, repository and ref).
    pub fn of(object: &Value) -> Origin {
        let text = object["metadata"]["annotations"][ORIGIN].as_str().unwrap_or_default();
        let field = |key: &str| {
            text.lines().find_map(|line| line.strip_prefix(key)?.strip_prefix(": ")).unwrap_or_default().to_string()
        };
        Origin { path: field("path"), repo: field("repo"), reference: field("ref"), ..Origin::default() }
    }

    /// The origin of a plugin configured by `config`, which came from this origin's file.
    pub fn plugin(&self, config: &Value) -> Origin {
        let text = |key: &str| config["metadata"][key].as_str().unwrap_or_default().to_string();
        Origin {
            path: String::new(),
            repo: self.repo.clone(),
            reference: self.reference.clone(),
            configured_in: self.path.clone(),
            configured_by: Some(ConfiguredBy {
                api_version: config["apiVersion"].as_str().unwrap_or_default().to_string(),
                kind: config["kind"].as_str().unwrap_or_default().to_string(),
                name: text("name"),
                namespace: text("namespace"),
            }),
        }
    }

    /// The YAML kustomize writes for it, one line per field in its order, each line indented by
    /// `indent` after the first.
    fn to_yaml(&self, first: &str, indent: &str) -> String {
        let mut lines = Vec::new();
        for (key, value) in [("path", &self.path), ("repo", &self.repo), ("ref", &self.reference)] {
            if !value.is_empty() {
                lines.push(format!("{key}: {}", scalar(value)));
            }
        }
        if !self.configured_in.is_empty() {
            lines.push(format!("configuredIn: {}", scalar(&self.configured_in)));
        }
        if let Some(by) = &self.configured_by {
            lines.push("configuredBy:".into());
            for (key, value) in
                [("apiVersion", &by.api_version), ("kind", &by.kind), ("name", &by.name), ("namespace", &by.namespace)]
            {
                if !value.is_empty() {
                    lines.push(format!("  {key}: {}", scalar(value)));
                }
            }
        }
        let mut text = String::new();
        for (index, line) in lines.iter().enumerate() {
            text.push_str(if index == 0 { first } else { indent });
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

/// Go's `filepath.Join`: the non-empty parts joined and cleaned lexically.
fn join(base: &str, path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let absolute = if base.is_empty() { path.starts_with('/') } else { base.starts_with('/') };
    for part in base.split('/').chain(path.split('/')) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty(), base.is_empty() && path.is_empty()) {
        (_, _, true) => String::new(),
        (true, _, _) => format!("/{joined}"),
        (false, true, _) => ".".into(),
        (false, false, _) => joined,
    }
}

/// A string as a YAML scalar: plain, or double-quoted when plain text would read back as
/// something else.
fn scalar(text: &str) -> String {
    let keyword = matches!(
        text.to_ascii_lowercase().as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~"
    );
    let special = text.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
        || text.ends_with(' ')
        || text.contains(": ")
        || text.contains(" #");
    if text.is_empty() || keyword || special || text.parse::<f64>().is_ok() {
        format!("{text:?}")
    } else {
        text.to_string()
    }
}

fn annotations(object: &mut Value) -> &mut Map<String, Value> {
    let metadata = &mut object["metadata"];
    if !metadata["annotations"].is_object() {
        metadata["annotations"] = Value::Object(Map::new());
    }
    metadata["annotations"].as_object_mut().expect("made an object")
}

/// Sets the resource's origin (kustomize overwrites what a file says).
pub fn set_origin(resource: &mut Resource, origin: &Origin) {
    annotations(&mut resource.object).insert(ORIGIN.into(), Value::String(origin.to_yaml("", "")));
}

/// What a transformer leaves on every resource it ran over: its origin as the origin of those
/// that have none (kustomize assumes it made them), appended to the transformations of the others.
pub fn record_transformer(resources: &mut [Resource], origin: &Origin) {
    for resource in resources {
        let annotations = annotations(&mut resource.object);
        if !annotations.contains_key(ORIGIN) {
            annotations.insert(ORIGIN.into(), Value::String(origin.to_yaml("", "")));
            continue;
        }
        let mut list = annotations.get(TRANSFORMATIONS).and_then(Value::as_str).unwrap_or_default().to_string();
        list.push_str(&origin.to_yaml("- ", "  "));
        annotations.insert(TRANSFORMATIONS.into(), Value::String(list));
    }
}

/// Removes the annotations `buildMetadata` did not ask for (and any a file carried), and the
/// annotations map when it is empty or `null`, however it came to be (read so, patched so, or
/// emptied here): kustomize's build ends by taking its bookkeeping annotations off every object
/// and drops the map when none are left. It writes the map back as strings: a number, a boolean
/// or a `null` left there becomes its text (kustomize keeps the text as written; kubeupd writes
/// the value's, so `0x10` comes out as `"16"`).
pub fn strip(object: &mut Value, keep_origin: bool, keep_transformations: bool) {
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    if let Some(annotations) = metadata.get_mut("annotations").and_then(Value::as_object_mut) {
        if !keep_origin {
            annotations.remove(ORIGIN);
        }
        if !keep_transformations {
            annotations.remove(TRANSFORMATIONS);
        }
        for value in annotations.values_mut() {
            match value {
                Value::Null | Value::Bool(_) | Value::Number(_) => *value = Value::String(value.to_string()),
                Value::String(_) | Value::Array(_) | Value::Object(_) => {}
            }
        }
    }
    let empty = |annotations: &Value| annotations.is_null() || annotations.as_object().is_some_and(Map::is_empty);
    if metadata.get("annotations").is_some_and(empty) {
        metadata.remove("annotations");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_as_gos_filepath_join() {
        assert_eq!(join("", "cm.yaml"), "cm.yaml");
        assert_eq!(join("../base", "cm.yaml"), "../base/cm.yaml");
        assert_eq!(join("../base", "../shared/x.yaml"), "../shared/x.yaml");
        assert_eq!(join("a", "./b/../c"), "a/c");
        assert_eq!(join("a", ".."), ".");
        assert_eq!(join("", "../../x"), "../../x");
    }

    #[test]
    fn origins_are_written_in_kustomizes_field_order() {
        let directory = Origin::default().append("../base", None);
        assert_eq!(directory.append("cm.yaml", None).to_yaml("", ""), "path: ../base/cm.yaml\n");
        let generator = directory.builtin("kustomization.yaml", "ConfigMapGenerator");
        assert_eq!(
            generator.to_yaml("- ", "  "),
            "- configuredIn: ../base/kustomization.yaml\n  configuredBy:\n    apiVersion: builtin\n    kind: ConfigMapGenerator\n"
        );
        let repo = crate::kustomize::remote::parse("https://github.com/org/repo//app?ref=v1").unwrap();
        let remote = directory.append("https://github.com/org/repo//app?ref=v1", Some(&repo));
        assert_eq!(
            remote.append("cm.yaml", None).to_yaml("", ""),
            format!("path: app/cm.yaml\nrepo: {}\nref: v1\n", repo.clone_url)
        );
        assert_eq!(scalar("1234"), "\"1234\"");
        assert_eq!(scalar("v1.2"), "v1.2");
    }
}
