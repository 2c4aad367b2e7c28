//! One kustomization's build (kustomize's `KustTarget`): resources (files and nested
//! kustomizations), generators, components, then the transformers in kustomize's order. The top
//! build then appends content hashes, fixes name references and sorts.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::generate::{self, GeneratedKind};
use super::kustomization::{self, Kustomization};
use super::loader::{Entry, Loader, normalize};
use super::{Built, Error, Options, names, order, remote, transform};
use crate::manifest::{self, Dialect};

/// An object being built, with what kustomize remembers about it.
#[derive(Debug, Clone)]
pub struct Resource {
    pub object: Value,
    /// The names and namespaces it had before prefixes, suffixes, hashes and namespaces changed
    /// them, oldest first (kustomize's previous ids).
    pub previous_ids: Vec<(String, String)>,
    /// Whether a content hash is appended to its name at the end (generated objects).
    pub needs_hash: bool,
}

impl Resource {
    fn new(object: Value) -> Self {
        Resource { object, previous_ids: Vec::new(), needs_hash: false }
    }

    pub fn kind(&self) -> &str {
        self.object["kind"].as_str().unwrap_or_default()
    }

    pub fn name(&self) -> &str {
        self.object["metadata"]["name"].as_str().unwrap_or_default()
    }

    pub fn namespace(&self) -> &str {
        self.object["metadata"]["namespace"].as_str().unwrap_or_default()
    }

    /// Whether `name` is its name now or was one before.
    pub fn had_name(&self, name: &str) -> bool {
        self.name() == name || self.had_previous_name(name)
    }

    /// Whether `name` was its name before its name or namespace last changed.
    pub fn had_previous_name(&self, name: &str) -> bool {
        self.previous_ids.iter().any(|(previous, _)| previous == name)
    }

    /// The namespace it had when it was read.
    pub fn original_namespace(&self) -> &str {
        self.previous_ids.first().map_or_else(|| self.namespace(), |(_, namespace)| namespace)
    }

    /// Moves it to `namespace`, remembering its id.
    pub fn move_to(&mut self, namespace: &str) {
        if self.namespace() != namespace {
            self.previous_ids.push((self.name().to_string(), self.namespace().to_string()));
            self.object["metadata"]["namespace"] = Value::String(namespace.to_string());
        }
    }

    /// Renames it, remembering its id.
    pub fn rename(&mut self, name: String) {
        if self.name() != name {
            self.previous_ids.push((self.name().to_string(), self.namespace().to_string()));
            self.object["metadata"]["name"] = Value::String(name);
        }
    }

    /// Removes `metadata.annotations` when it is `null` or `{}`: kustomize's build ends by taking
    /// its own bookkeeping annotations off every object, and drops the map when none are left.
    fn drop_empty_annotations(&mut self) {
        if let Some(metadata) = self.object.get_mut("metadata").and_then(Value::as_object_mut)
            && metadata.get("annotations").is_some_and(|annotations| {
                annotations.is_null() || annotations.as_object().is_some_and(|map| map.is_empty())
            })
        {
            metadata.remove("annotations");
        }
    }

    /// Whether `other` has its id (group, version, kind, name and namespace).
    fn same_id(&self, other: &Resource) -> bool {
        self.name() == other.name()
            && self.kind() == other.kind()
            && self.namespace() == other.namespace()
            && super::field_specs::group_version(&self.object) == super::field_specs::group_version(&other.object)
    }

    /// kustomize's id, as its messages print it: `ConfigMap.v1.[noGrp]/name.[noNs]`.
    pub fn id(&self) -> String {
        id_text(&self.object)
    }
}

/// kustomize's id of `object` (a resource or a patch), as its messages print it.
pub fn id_text(object: &Value) -> String {
    let (group, version) = super::field_specs::group_version(object);
    let or = |text: &str, missing: &'static str| if text.is_empty() { missing.to_string() } else { text.to_string() };
    format!(
        "{}.{}.{}/{}.{}",
        or(object["kind"].as_str().unwrap_or_default(), "[noKind]"),
        or(version, "[noVer]"),
        or(group, "[noGrp]"),
        object["metadata"]["name"].as_str().unwrap_or_default(),
        or(object["metadata"]["namespace"].as_str().unwrap_or_default(), "[noNs]"),
    )
}

const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

pub fn build(loader: &dyn Loader, dir: &Path, options: Options<'_>) -> Result<Built, Error> {
    let root = normalize(dir);
    let root = if root.as_os_str().is_empty() { PathBuf::from(".") } else { root };
    let mut builder = Builder { loader, options, stack: Vec::new(), warnings: Vec::new() };
    let (mut resources, kustomization) = builder.target(&root, Vec::new(), false)?;
    names::add_hashes(&mut resources);
    names::fix_references(&mut resources);
    resources.iter_mut().for_each(Resource::drop_empty_annotations);
    order::sort(&mut resources, kustomization.sort_options.as_ref()).map_err(Error)?;
    let objects = resources.into_iter().map(|resource| resource.object).collect();
    Ok(Built { objects, warnings: builder.warnings })
}

struct Builder<'a> {
    loader: &'a dyn Loader,
    options: Options<'a>,
    /// The directories being built, outermost first, to find cycles.
    stack: Vec<PathBuf>,
    warnings: Vec<String>,
}

/// Where a kustomization's problem is: its file.
struct Place<'a> {
    file: &'a Path,
}

impl Place<'_> {
    fn error(&self, message: impl std::fmt::Display) -> Error {
        Error(format!("{}: {message}", self.file.display()))
    }
}

impl Builder<'_> {
    /// Builds the kustomization (or component) in `dir` on top of `input`.
    fn target(
        &mut self,
        dir: &Path,
        input: Vec<Resource>,
        component: bool,
    ) -> Result<(Vec<Resource>, Kustomization), Error> {
        if let Some(position) = self.stack.iter().position(|visited| visited == dir) {
            let cycle: Vec<String> = self.stack[position..]
                .iter()
                .chain([&dir.to_path_buf()])
                .map(|path| path.display().to_string())
                .collect();
            return Err(Error(format!("cycle detected: {}", cycle.join(" -> "))));
        }
        let file = KUSTOMIZATION_FILES
            .iter()
            .map(|name| dir.join(name))
            .find(|path| self.loader.entry(path) == Some(Entry::File))
            .ok_or_else(|| {
                Error(format!(
                    "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
                    dir.display()
                ))
            })?;
        let place = Place { file: &file };
        let kustomization = self.read_kustomization(&file)?;
        self.warnings.extend(kustomization.deprecation_warnings());
        let is_component = kustomization.kind.as_deref() == Some("Component");
        if component && !is_component {
            return Err(place.error(format!(
                "expected kind 'Component' for a component, found '{}'",
                kustomization.kind.as_deref().unwrap_or("Kustomization")
            )));
        }
        if !component && is_component {
            return Err(
                place.error("a Component can only be listed under 'components', not built or listed as a resource")
            );
        }
        if let Some(field) = kustomization.unsupported_field() {
            return Err(place.error(format!("the field '{field}' is not supported by kubeupd's kustomize yet")));
        }
        self.stack.push(dir.to_path_buf());
        let mut resources = input;
        for entry in kustomization.resources.iter().chain(&kustomization.bases) {
            self.accumulate(dir, &place, entry, &mut resources)?;
        }
        self.generate(dir, &place, &kustomization, &mut resources)?;
        for entry in &kustomization.components {
            let path = self.local_path(dir, &place, entry)?;
            if self.loader.entry(&path) != Some(Entry::Dir) {
                return Err(place.error(format!("component '{entry}' is not a directory")));
            }
            resources = self.target(&path, resources, true)?.0;
        }
        let mut read = |path: &str| self.read_text(dir, &place, path);
        transform::run(&kustomization, &mut resources, &mut read).map_err(|message| place.error(message))?;
        self.stack.pop();
        Ok((resources, kustomization))
    }

    fn read_kustomization(&self, file: &Path) -> Result<Kustomization, Error> {
        let place = Place { file };
        let bytes = self.loader.read(file).map_err(|err| place.error(err))?;
        let text = String::from_utf8(bytes).map_err(|_| place.error("not UTF-8 text"))?;
        let documents = manifest::parse_documents(&text, &file.display().to_string(), Dialect::Kustomize)
            .map_err(|err| Error(err.to_string()))?;
        let document = documents
            .into_iter()
            .next()
            .filter(|document| !document.is_null())
            .unwrap_or_else(|| Value::Object(Default::default()));
        kustomization::parse(document).map_err(|message| place.error(format!("invalid Kustomization: {message}")))
    }

    /// `entry` of a kustomization in `dir` as a path; remote resources are refused.
    fn local_path(&self, dir: &Path, place: &Place, entry: &str) -> Result<PathBuf, Error> {
        if entry.contains("://")
            || entry.starts_with("git::")
            || entry.starts_with("github.com/")
            || entry.starts_with("git@")
        {
            return Err(place
                .error(format!("remote resource '{entry}': kubeupd's kustomize fetches git repositories, not files over HTTP or remote components yet")));
        }
        Ok(normalize(&dir.join(entry)))
    }

    /// Reads a file a kustomization in `dir` names, within the load restrictor's bounds.
    fn read_text(&self, dir: &Path, place: &Place, entry: &str) -> Result<String, String> {
        let path = self.local_path(dir, place, entry).map_err(|err| err.0)?;
        if !self.options.load_restrictor.allows(dir, &path) {
            return Err(format!("security; file '{}' is not in or below '{}'", path.display(), dir.display()));
        }
        let bytes = self.loader.read(&path).map_err(|err| format!("cannot read '{entry}': {err}"))?;
        String::from_utf8(bytes).map_err(|_| format!("'{entry}' is not UTF-8 text"))
    }

    fn accumulate(
        &mut self,
        dir: &Path,
        place: &Place,
        entry: &str,
        resources: &mut Vec<Resource>,
    ) -> Result<(), Error> {
        let remote = remote::parse(entry).filter(|_| self.loader.entry(&normalize(&dir.join(entry))).is_none());
        let path = match &remote {
            Some(repo) => {
                let root = self.loader.checkout(repo).map_err(|err| {
                    place.error(format!("accumulating resources from '{entry}': cannot fetch it: {err}"))
                })?;
                normalize(&root.join(&repo.path))
            }
            None => self.local_path(dir, place, entry)?,
        };
        let found =
            match self.loader.entry(&path) {
                Some(Entry::Dir) => self.target(&path, Vec::new(), false)?.0,
                Some(Entry::File) => {
                    let text = match remote {
                        // A file of a fetched repository: the repository is its own root.
                        Some(_) => self.loader.read(&path).map_err(|err| err.to_string()).and_then(|bytes| {
                            String::from_utf8(bytes).map_err(|_| format!("'{entry}' is not UTF-8 text"))
                        }),
                        None => self.read_text(dir, place, entry),
                    }
                    .map_err(|message| place.error(format!("accumulating resources from '{entry}': {message}")))?;
                    let objects = manifest::parse_as(&text, &path.display().to_string(), Dialect::Kustomize)
                        .map_err(|err| Error(err.to_string()))?;
                    objects.into_iter().map(|object| Resource::new(object.object)).collect()
                }
                None => {
                    return Err(place
                        .error(format!("accumulating resources from '{entry}': '{}' does not exist", path.display())));
                }
            };
        for resource in found {
            add(resources, resource)
                .map_err(|message| place.error(format!("accumulating resources from '{entry}': {message}")))?;
        }
        Ok(())
    }

    fn generate(
        &self,
        dir: &Path,
        place: &Place,
        kustomization: &Kustomization,
        resources: &mut Vec<Resource>,
    ) -> Result<(), Error> {
        let generators = kustomization
            .config_map_generator
            .iter()
            .map(|generator| (GeneratedKind::ConfigMap, generator))
            .chain(kustomization.secret_generator.iter().map(|generator| (GeneratedKind::Secret, generator)));
        for (kind, generator) in generators {
            let mut read = |path: &str| self.read_text(dir, place, path);
            let pairs = generate::pairs(generator, &mut read, self.options.environment)
                .map_err(|message| place.error(message))?;
            let options = generate::merge_options(kustomization.generator_options.as_ref(), generator.options.as_ref());
            let object = generate::object(kind, generator, &pairs, &options);
            let behavior = generator.behavior.as_deref().unwrap_or("create");
            let mut generated = Resource::new(object);
            generated.needs_hash = !options.disable_name_suffix_hash.unwrap_or(false);
            match behavior {
                "create" => add(resources, generated).map_err(|message| place.error(message))?,
                "merge" | "replace" => {
                    let namespace = generator.namespace.as_deref().unwrap_or_default();
                    let existing = resources
                        .iter_mut()
                        .find(|resource| {
                            resource.kind() == generated.kind()
                                && resource.had_name(&generator.name)
                                && (namespace.is_empty() || resource.namespace() == namespace)
                        })
                        .ok_or_else(|| {
                            place.error(format!("id {} does not exist; cannot merge or replace", generated.id()))
                        })?;
                    merge_generated(existing, generated, behavior == "replace", &options);
                }
                other => return Err(place.error(format!("unknown generator behavior '{other}'"))),
            }
        }
        Ok(())
    }
}

/// Adds `resource` unless one with its id is there already.
fn add(resources: &mut Vec<Resource>, resource: Resource) -> Result<(), String> {
    if resources.iter().any(|existing| existing.same_id(&resource)) {
        return Err(format!("may not add resource with an already registered id: {}", resource.id()));
    }
    resources.push(resource);
    Ok(())
}

/// An overlay's generator applied to the object a base generated: its data merged in (or put in
/// place of the base's), its labels and annotations added.
fn merge_generated(
    existing: &mut Resource,
    generated: Resource,
    replace: bool,
    options: &kustomization::GeneratorOptions,
) {
    let object = &mut existing.object;
    for field in ["data", "binaryData"] {
        match (replace, generated.object.get(field)) {
            (true, Some(data)) => object[field] = data.clone(),
            (true, None) => {
                if let Some(map) = object.as_object_mut() {
                    map.remove(field);
                }
            }
            (false, Some(Value::Object(data))) => {
                if !object[field].is_object() {
                    object[field] = Value::Object(Default::default());
                }
                let target = object[field].as_object_mut().expect("made an object");
                target.extend(data.clone());
            }
            (false, _) => {}
        }
    }
    for field in ["labels", "annotations"] {
        if let Some(Value::Object(added)) = generated.object["metadata"].get(field) {
            if !object["metadata"][field].is_object() {
                object["metadata"][field] = Value::Object(Default::default());
            }
            object["metadata"][field].as_object_mut().expect("made an object").extend(added.clone());
        }
    }
    if let Some(disabled) = options.disable_name_suffix_hash {
        existing.needs_hash = !disabled;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kustomize::{LoadRestrictor, MemoryLoader};

    fn built(loader: &MemoryLoader, dir: &str) -> Result<Built, Error> {
        build(loader, Path::new(dir), Options::default())
    }

    #[test]
    fn an_overlay_renames_and_references_follow() {
        let loader = MemoryLoader::default()
            .with("/k/base/kustomization.yaml", "resources: [pod.yaml]\nconfigMapGenerator:\n- name: cfg\n  literals: [a=1]\n")
            .with(
                "/k/base/pod.yaml",
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  volumes:\n  - name: v\n    configMap: {name: cfg}\n",
            )
            .with("/k/overlay/kustomization.yaml", "namePrefix: o-\nnamespace: ns\nresources: [../base]\n");
        let built = built(&loader, "/k/overlay").unwrap();
        let names: Vec<&str> =
            built.objects.iter().map(|object| object["metadata"]["name"].as_str().unwrap()).collect();
        let config_map = names[0];
        assert!(config_map.starts_with("o-cfg-") && config_map.len() == "o-cfg-".len() + 10, "{names:?}");
        assert_eq!(names[1], "o-p");
        assert_eq!(built.objects[1]["spec"]["volumes"][0]["configMap"]["name"], config_map);
        assert!(built.objects.iter().all(|object| object["metadata"]["namespace"] == "ns"));
        assert!(built.warnings.is_empty());
    }

    #[test]
    fn cycles_missing_files_and_files_outside_the_root_are_errors() {
        let loader = MemoryLoader::default()
            .with("/k/a/kustomization.yaml", "resources: [../b]\n")
            .with("/k/b/kustomization.yaml", "resources: [../a]\n")
            .with("/k/c/kustomization.yaml", "resources: [gone.yaml]\n")
            .with("/k/d/kustomization.yaml", "resources: [../shared.yaml]\n")
            .with("/k/shared.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\n");
        assert_eq!(built(&loader, "/k/a").unwrap_err().to_string(), "cycle detected: /k/a -> /k/b -> /k/a");
        assert!(built(&loader, "/k/c").unwrap_err().to_string().contains("'/k/c/gone.yaml' does not exist"));
        assert!(built(&loader, "/k/d").unwrap_err().to_string().contains("security; file '/k/shared.yaml'"));
        let options = Options { load_restrictor: LoadRestrictor::None, ..Options::default() };
        assert_eq!(build(&loader, Path::new("/k/d"), options).unwrap().objects.len(), 1);
    }
}
