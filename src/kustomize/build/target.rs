//! One kustomization's target: its file found and read, then built on top of what came before
//! (kustomize's `KustTarget`): resources, generators, components, transformers, vars; the
//! patches' schema it chooses.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::accumulation::{append_resources, with_origin};
use super::{Accumulated, Builder, PatchSchema, Place};
use crate::kustomize::error::Error;
use crate::kustomize::loader::{Entry, normalize};
use crate::kustomize::origin::{self, Origin};
use crate::kustomize::replace::{replacements, vars};
use crate::kustomize::resource::Resource;
use crate::kustomize::types::field_specs::{Config, builtin};
use crate::kustomize::types::kustomization::{self, Kustomization};
use crate::kustomize::types::plugins::{self, Role};
use crate::kustomize::{crds, kyaml_merge, remote, transform};
use crate::manifest::{self, Dialect};
use crate::schema::OpenApiSchema;

/// The apiVersions a kustomization and a component must have, when they name one.
const KUSTOMIZATION_VERSION: &str = "kustomize.config.k8s.io/v1beta1";

const COMPONENT_VERSION: &str = "kustomize.config.k8s.io/v1alpha1";

const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// kustomize's only built-in OpenAPI version.
const BUILTIN_OPENAPI_VERSION: &str = "v1.21.2";

/// Whether a kustomization is a component.
pub(super) fn is_component(kustomization: &Kustomization) -> bool {
    kind_of(kustomization) == "Component"
}

/// A kustomization's kind, `Kustomization` when it names none.
fn kind_of(kustomization: &Kustomization) -> &str {
    kustomization.kind.as_deref().filter(|kind| !kind.is_empty()).unwrap_or("Kustomization")
}

impl Builder<'_> {
    /// The kustomization file in `dir`, if there is one.
    pub(super) fn kustomization_file(&self, dir: &Path) -> Option<PathBuf> {
        KUSTOMIZATION_FILES.iter().map(|name| dir.join(name)).find(|path| self.loader.entry(path) == Some(Entry::File))
    }

    /// Builds the kustomization in `dir` on top of `input`. `origin` is where `dir` is, when the
    /// top kustomization asks for `buildMetadata` (and only its own counts).
    pub(super) fn target(
        &mut self,
        dir: &Path,
        input: Accumulated,
        origin: Option<Origin>,
    ) -> Result<(Accumulated, Kustomization), Error> {
        self.check_cycle(dir)?;
        let (file, kustomization) = self.load(dir)?;
        self.build_loaded(dir, &file, kustomization, input, origin)
    }

    /// Refuses to enter `dir` again while it is being built.
    fn check_cycle(&self, dir: &Path) -> Result<(), Error> {
        match self.stack.iter().position(|visited| visited == dir) {
            Some(position) => {
                let cycle = self.stack[position..].iter().map(|path| path.as_path()).chain([dir]);
                Err(Error::Cycle(cycle.map(|path| path.display().to_string()).collect()))
            }
            None => Ok(()),
        }
    }

    /// kustomize's `KustTarget.Load`: the one kustomization file of `dir`, read.
    fn load(&self, dir: &Path) -> Result<(PathBuf, Kustomization), Error> {
        let found = KUSTOMIZATION_FILES.iter().filter(|name| self.loader.entry(&dir.join(name)) == Some(Entry::File));
        if found.count() > 1 {
            return Err(Error::MultipleKustomizations(dir.to_path_buf()));
        }
        let file = self.kustomization_file(dir).ok_or_else(|| Error::NoKustomization(dir.to_path_buf()))?;
        let kustomization = self.read_kustomization(&file)?;
        Ok((file, kustomization))
    }

    /// Loads the kustomization of a base or a component at `path`: the errors of its own file pass
    /// through (they name it), the others are kustomize's `couldn't make target`, which `failed`
    /// puts in the words of the entry that names `path`.
    pub(super) fn load_below(
        &self,
        path: &Path,
        failed: impl Fn(Error) -> Error,
    ) -> Result<(PathBuf, Kustomization), Error> {
        self.check_cycle(path).map_err(&failed)?;
        self.load(path).map_err(|source| match source {
            inner @ Error::InFile { .. } => inner,
            source => failed(Error::CouldNotMakeTarget { path: path.to_path_buf(), source: Box::new(source) }),
        })
    }

    /// Builds the kustomization (or component) `kustomization`, read from `file` in `dir`, on top
    /// of `input`.
    pub(super) fn build_loaded(
        &mut self,
        dir: &Path,
        file: &Path,
        kustomization: Kustomization,
        input: Accumulated,
        origin: Option<Origin>,
    ) -> Result<(Accumulated, Kustomization), Error> {
        let place = Place { file };
        self.warnings.extend(kustomization.deprecation_warnings());
        let origin = match self.stack.is_empty() {
            true => (!kustomization.build_metadata.is_empty()).then(Origin::default),
            false => origin,
        };
        let file_name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
        // What this kustomization hands down to those it includes, for their charts.
        let inherited_namespace = self.helm_namespace.clone();
        if let Some(namespace) = kustomization.namespace.as_ref().filter(|namespace| !namespace.is_empty()) {
            self.helm_namespace = namespace.clone();
        }
        self.choose_schema(dir, &place, &kustomization)?;
        let has_patches = !kustomization.patches.is_empty() || !kustomization.patches_strategic_merge.is_empty();
        if has_patches && !self.compiling_kyaml_schema && self.schema.custom().is_none() {
            self.compiling_kyaml_schema = true;
            std::thread::spawn(kyaml_merge::compile_builtin_schema);
        }
        self.stack.push(dir.to_path_buf());
        let mut accumulated = input;
        let entries: Vec<&String> = kustomization.resources.iter().chain(&kustomization.bases).collect();
        let read_ahead = self.read_files_ahead(dir, &entries);
        for (entry, ahead) in entries.into_iter().zip(read_ahead) {
            self.accumulate(dir, entry, ahead, &mut accumulated, origin.as_ref()).map_err(|error| match error {
                inner @ Error::InFile { .. } => inner,
                failure => place.error(Error::AccumulatingResources(Box::new(failure))),
            })?;
        }
        let config = self.own_config(dir, &place, &kustomization)?;
        accumulated.config.merge(&config).map_err(|message| place.error(message))?;
        for entry in &kustomization.crds {
            let text = self.read_text(dir, entry).map_err(|message| place.error(message))?;
            let config = crds::config(&text)
                .map_err(|source| place.error(Error::LoadingCrds { entry: entry.clone(), source: Box::new(source) }))?;
            accumulated
                .config
                .merge(&config)
                .map_err(|source| place.error(Error::MergingCrds { source: Box::new(source) }))?;
        }
        let generator_origin = |kind: &str| origin.as_ref().map(|origin| origin.builtin(&file_name, kind));
        let charts_namespace = inherited_namespace.as_str();
        self.generate(dir, &place, &kustomization, charts_namespace, &mut accumulated.resources, &generator_origin)?;
        for (object, plugin_origin) in
            self.plugin_configs(dir, &place, &file_name, &kustomization.generators, &origin)?
        {
            let plugin = plugins::plugin(&object, Role::Generator, self.options.alpha_plugins)
                .map_err(|message| place.error(message))?;
            let configured_by = |_: &str| plugin_origin.clone();
            self.generate(dir, &place, &plugin.kustomization, "", &mut accumulated.resources, &configured_by)?;
            for object in plugin.generated {
                let found = with_origin(vec![Resource::new(object)], plugin_origin.as_ref());
                append_resources(&mut accumulated, found).map_err(|message| place.error(message))?;
            }
        }
        for entry in &kustomization.components {
            // kustomize's words: the loader's failure, or the directory's, quoted.
            let (path, remote) = self.new_root(dir, entry).map_err(|source| {
                place.error(Error::AccumulatingComponents(Box::new(Error::ComponentLoader(source.to_string()))))
            })?;
            let failed = |source: Error| {
                place.error(Error::AccumulatingComponents(Box::new(Error::ComponentDirectory(source.to_string()))))
            };
            let (file, component) = self.load_below(&path, failed)?;
            if !is_component(&component) {
                let kind = kind_of(&component).to_string();
                return Err(failed(Error::NotAComponent { path, kind }));
            }
            let below = origin.as_ref().map(|origin| origin.append(entry, remote.as_ref()));
            accumulated = self.build_loaded(&path, &file, component, accumulated, below)?.0;
        }
        let transformers = self.plugin_configs(dir, &place, &file_name, &kustomization.transformers, &origin)?;
        let validators = self.plugin_configs(dir, &place, &file_name, &kustomization.validators, &origin)?;
        let mut read = |path: &str| self.read_text(dir, path);
        let mut record = |resources: &mut [Resource], kind: &'static str| {
            if let Some(origin) = &origin {
                origin::record_transformer(resources, &origin.builtin(&file_name, kind));
            }
        };
        let schema = self.schema.custom();
        let resources = &mut accumulated.resources;
        transform::run(&kustomization, &accumulated.config, resources, &mut read, &mut record, schema)
            .map_err(|message| place.error(message))?;
        // Replacements are the last of kustomize's built-in transformers; the `transformers` run
        // after them, then the validators; vars are declared last.
        replacements::run(&kustomization.replacements, resources, &mut read).map_err(|message| place.error(message))?;
        if !kustomization.replacements.is_empty() {
            record(resources, "ReplacementTransformer");
        }
        self.run_plugins(dir, &place, transformers, validators, resources)?;
        vars::declare(&mut accumulated.vars, &kustomization.vars, resources).map_err(|message| place.error(message))?;
        self.stack.pop();
        self.helm_namespace = inherited_namespace;
        Ok((accumulated, kustomization))
    }

    /// Takes the kustomization's `openapi` as the build's schema unless one was set before (its
    /// file is read all the same, as kustomize reads it).
    fn choose_schema(&mut self, dir: &Path, place: &Place, kustomization: &Kustomization) -> Result<(), Error> {
        let Some(openapi) = &kustomization.openapi else { return Ok(()) };
        let custom = match openapi.get("path") {
            Some(path) => Some(self.read_text(dir, path).map_err(|message| place.error(message))?),
            None => None,
        };
        if !matches!(self.schema, PatchSchema::Unset) {
            return Ok(());
        }
        let version = openapi.get("version");
        self.schema = match (custom, version.map(String::as_str)) {
            (Some(_), Some(_)) => {
                // kustomize names no file here.
                return Err(Error::BuiltinAndCustomSchema);
            }
            (Some(text), None) => PatchSchema::Custom(Arc::new(
                custom_schema(&text, self.resources_read)
                    .map_err(|source| place.error(Error::InvalidSchema { source: Box::new(source) }))?,
            )),
            (None, None | Some("")) => PatchSchema::Unset,
            (None, Some(BUILTIN_OPENAPI_VERSION)) => PatchSchema::Builtin,
            (None, Some(_)) => return Err(place.error(Error::UnknownOpenApiVersion)),
        };
        Ok(())
    }

    /// The built-in tables with the kustomization's `configurations` files merged in.
    fn own_config(
        &self,
        dir: &Path,
        place: &Place,
        kustomization: &Kustomization,
    ) -> Result<Cow<'static, Config>, Error> {
        if kustomization.configurations.is_empty() {
            return Ok(Cow::Borrowed(builtin()));
        }
        // As kustomize merges them: the files together first, then into the built-in tables.
        let mut files = Config::default();
        for entry in &kustomization.configurations {
            let text = self.read_text(dir, entry).map_err(|message| place.error(message))?;
            let file = Config::parse(&text)
                .map_err(|source| place.error(Error::InEntry { entry: entry.clone(), source: Box::new(source) }))?;
            files.merge(&file).map_err(|message| place.error(message))?;
        }
        let mut config = builtin().clone();
        config.merge(&files).map_err(|message| place.error(message))?;
        Ok(Cow::Owned(config))
    }

    fn read_kustomization(&self, file: &Path) -> Result<Kustomization, Error> {
        let place = Place { file };
        let bytes = self.loader.read(file).map_err(|err| place.error(err))?;
        let text = String::from_utf8(bytes).map_err(|_| place.error(Error::KustomizationNotUtf8))?;
        // kustomize reads its own file with sigs.k8s.io/yaml's go-yaml v2, as kubectl reads `-f`
        // (YAML 1.1: `y` and `on` are booleans), not with kyaml's v3 as it reads resources.
        // A repeated key keeps its last value there (sigs.k8s.io/yaml's non-strict decoding).
        let documents = manifest::parse_documents(&text, &file.display().to_string(), Dialect::KustomizationFile)?;
        // The first document go-yaml reads: a leading `---` starts it rather than ending an empty one.
        let document = documents
            .into_iter()
            .find(|document| !document.is_null())
            .unwrap_or_else(|| Value::Object(Default::default()));
        let kustomization =
            kustomization::parse(document).map_err(|source| place.error(Error::InvalidKustomization { source }))?;
        // kustomize's EnforceFields, on the kind and apiVersion its defaults fill in.
        let kind = kustomization.kind.as_deref().filter(|kind| !kind.is_empty()).unwrap_or("Kustomization");
        let required = if kind == "Component" { COMPONENT_VERSION } else { KUSTOMIZATION_VERSION };
        let mut problems = Vec::new();
        if kind != "Kustomization" && kind != "Component" {
            problems.push("kind should be Kustomization or Component".to_string());
        }
        if let Some(api_version) = kustomization.api_version.as_deref().filter(|version| !version.is_empty())
            && api_version != required
        {
            problems.push(format!("apiVersion for {kind} should be {required}"));
        }
        if !problems.is_empty() {
            let dir = file.parent().unwrap_or(file).to_path_buf();
            return Err(Error::KustomizationFields { dir, problems });
        }
        Ok(kustomization)
    }

    /// The directory `entry` of a kustomization in `dir` names as a base or a component
    /// (kustomize's `loader.New`): a repository's, fetched, when it is a remote target (and no
    /// local path has its name), else a local directory.
    pub(super) fn new_root(&self, dir: &Path, entry: &str) -> Result<(PathBuf, Option<remote::RepoSpec>), Error> {
        let local = normalize(&dir.join(entry));
        if let Some(repo) = remote::parse(entry).filter(|_| self.loader.entry(&local).is_none()) {
            let root = self.loader.checkout(&repo).map_err(Error::Clone)?;
            let path = normalize(&root.join(&repo.path));
            if self.loader.entry(&path) == Some(Entry::File) {
                let file = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
                return Err(Error::RepoPathIsFile { path, file });
            }
            return Ok((path, Some(repo)));
        }
        if Path::new(entry).is_absolute() {
            return Err(Error::AbsoluteRoot(entry.to_string()));
        }
        match self.loader.entry(&local) {
            Some(Entry::Dir) => Ok((local, None)),
            Some(Entry::File) => Err(Error::FileIsNotDirectory(local)),
            None => Err(Error::NotAValidDirectory(Box::new(self.missing(&local)))),
        }
    }
}

/// A custom OpenAPI schema (JSON or YAML) compiled for patches. Its objects keep fields it does
/// not declare (kustomize merges them without a schema rather than refusing them).
pub(super) fn custom_schema(text: &str, over_builtin: bool) -> Result<OpenApiSchema, Error> {
    let mut document: Value =
        if text.starts_with('{') { serde_json::from_str(text)? } else { serde_saphyr::from_str(text)? };
    if document.get("definitions").is_none() {
        document["definitions"] = Value::Object(Default::default());
    }
    open_objects(&mut document["definitions"]);
    if over_builtin {
        // kyaml adds a schema's definitions to those it holds (kustomize's global schema).
        let mut builtin = kyaml_merge::builtin_document();
        if let (Some(definitions), Some(added)) =
            (builtin["definitions"].as_object_mut(), document["definitions"].as_object())
        {
            definitions.extend(added.clone());
        }
        return Ok(OpenApiSchema::from_document(&builtin)?);
    }
    Ok(OpenApiSchema::from_document(&document)?)
}

/// Marks every schema with `properties` as keeping unknown fields.
fn open_objects(node: &mut Value) {
    match node {
        Value::Object(map) => {
            if map.get("properties").is_some_and(Value::is_object) {
                map.insert("x-kubernetes-preserve-unknown-fields".into(), Value::Bool(true));
            }
            map.values_mut().for_each(open_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(open_objects),
        _ => {}
    }
}
