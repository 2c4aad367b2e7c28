//! One kustomization's build (kustomize's `KustTarget`): resources (files and nested
//! kustomizations), generators, components, then the transformers in kustomize's order and the
//! level's vars. The top build then appends content hashes, fixes name references, substitutes
//! vars, leaves local-config resources out and sorts.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::error::{Error, Failure};
use super::fetch::{self, FetchError};
use super::generate::{self, GeneratedKind};
use super::helm::Helm;
use super::loader::LoadRestrictor;
use super::loader::{Entry, Loader, normalize};
use super::origin::{self, Origin};
use super::replace::{replacements, vars};
use super::resource::{self, Resource};
use super::types::field_specs::{Config, builtin};
use super::types::kustomization::{self, Kustomization};
use super::types::plugins::{self, Role};
use super::{crds, empty_nulls, helm, kyaml_merge, names, order, remote, transform, value_add};
use crate::manifest::{self, Dialect};
use crate::parallel;
use crate::schema::OpenApiSchema;

/// How to build.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// Which files a kustomization may read.
    pub load_restrictor: LoadRestrictor,
    /// The value of an environment variable (for env files' bare keys); empty when unset.
    pub environment: &'a dyn Fn(&str) -> String,
    /// `--enable-helm`: `None` when not given.
    pub helm: Option<&'a Helm>,
    /// `--reorder`: the output's order when the kustomization has no `sortOptions`.
    pub reorder: Reorder,
    /// `--enable-managedby-label`: every object labelled as made by kustomize, as
    /// `buildMetadata: [managedByLabel]` asks.
    pub managed_by_label: bool,
    /// `--enable-alpha-plugins`: plugins other than the built-in ones are loaded (and checked as
    /// kustomize checks them), though never run.
    pub alpha_plugins: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            load_restrictor: LoadRestrictor::default(),
            environment: &|_| String::new(),
            helm: None,
            reorder: Reorder::default(),
            managed_by_label: false,
            alpha_plugins: false,
        }
    }
}

/// The value of the process's environment variable `key`, empty when unset: [`Options`]'
/// `environment` for a build on the command line.
pub fn process_environment(key: &str) -> String {
    std::env::var(key).unwrap_or_default()
}

/// kustomize's `ReorderOption` (`--reorder`, hidden and deprecated): how the objects come out
/// when the kustomization has no `sortOptions`, which wins over it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reorder {
    /// Not given (`kubectl kustomize` without the flag): the legacy order.
    #[default]
    Unspecified,
    /// `legacy` (and every verb's `-k`): the legacy order.
    Legacy,
    /// `none`: the order the resources were accumulated in.
    None,
}

/// kustomize's log line when the flag and the kustomization both choose an order.
const SORT_SET_TWICE: &str = "Warning: Sorting order is set both in 'kustomization.yaml' ('sortOptions') and in a CLI flag ('--reorder'). Using the kustomization file over the CLI flag.";

/// What a build makes.
#[derive(Debug, Clone, Default)]
pub struct Built {
    /// The objects, in kustomize's output order.
    pub objects: Vec<Value>,
    /// kustomize's warnings (deprecated fields), one line each, for stderr.
    pub warnings: Vec<String>,
    /// kustomize's log lines (Go's `log.Printf`, which kubectl routes through klog), after the
    /// warnings.
    pub logs: Vec<String>,
}

/// The apiVersions a kustomization and a component must have, when they name one.
const KUSTOMIZATION_VERSION: &str = "kustomize.config.k8s.io/v1beta1";
const COMPONENT_VERSION: &str = "kustomize.config.k8s.io/v1alpha1";

const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// What the kustomization in `dir` makes.
pub fn build(loader: &dyn Loader, dir: &Path, options: Options<'_>) -> Result<Built, Failure> {
    let root = normalize(dir);
    let root = if root.as_os_str().is_empty() { PathBuf::from(".") } else { root };
    // Every build reads the built-in field specs once its resources are in: they are parsed on
    // another core meanwhile.
    std::thread::spawn(builtin);
    let mut builder = Builder {
        loader,
        options,
        stack: Vec::new(),
        warnings: Vec::new(),
        logs: Vec::new(),
        schema: PatchSchema::Unset,
        compiling_kyaml_schema: false,
        resources_read: false,
        helm_namespace: String::new(),
    };
    match build_root(&mut builder, &root) {
        Ok(objects) => Ok(Built { objects, warnings: builder.warnings, logs: builder.logs }),
        Err(error) => Err(Failure { error, warnings: builder.warnings }),
    }
}

/// The objects the kustomization at `root` makes; the builder keeps the warnings.
fn build_root(builder: &mut Builder, root: &Path) -> Result<Vec<Value>, Error> {
    let (accumulated, kustomization) = builder.target(root, Accumulated::default(), None)?;
    let mut resources = accumulated.resources;
    names::add_hashes(&mut resources);
    names::fix_references(&mut resources, &accumulated.config.name_reference)?;
    // With every name final, vars take their values, in the fields of the merged varReference table.
    let unused =
        vars::substitute(&mut resources, &accumulated.vars, &accumulated.config.var_reference).map_err(|message| {
            let file = builder.kustomization_file(root).unwrap_or(root.to_path_buf());
            Place { file: &file }.error(message)
        })?;
    if !unused.is_empty() {
        builder.logs.push(format!("well-defined vars that were never replaced: {}", unused.join(",")));
    }
    resources.retain(|resource| !is_local_config(&resource.object));
    match (&kustomization.sort_options, builder.options.reorder) {
        (Some(options), reorder) => {
            if reorder != Reorder::Unspecified {
                builder.logs.push(SORT_SET_TWICE.to_string());
            }
            order::sort(&mut resources, Some(options))?;
        }
        (None, Reorder::None) => {}
        (None, Reorder::Legacy | Reorder::Unspecified) => order::sort(&mut resources, None)?,
    }
    let asked = |option: &str| kustomization.build_metadata.iter().any(|asked| asked == option);
    let managed_by_label = builder.options.managed_by_label || asked("managedByLabel");
    let mut objects: Vec<Value> = resources
        .into_iter()
        .map(|mut resource| {
            empty_nulls::empty_annotations_as_text(&mut resource.object, &resource.empty_nulls);
            resource.object
        })
        .collect();
    for object in &mut objects {
        if managed_by_label {
            object["metadata"]["labels"][origin::MANAGED_BY] = Value::String(origin::MANAGED_BY_VALUE.into());
        }
        origin::strip(object, asked("originAnnotations"), asked("transformerAnnotations"));
    }
    Ok(objects)
}

/// What a kustomization has built so far (kustomize's accumulator): the resources, the vars
/// declared for them, and the transformer configuration merged from it and every kustomization
/// below it.
#[derive(Default)]
struct Accumulated {
    resources: Vec<Resource>,
    vars: vars::Vars,
    config: Config,
}

struct Builder<'a> {
    loader: &'a dyn Loader,
    options: Options<'a>,
    /// The directories being built, outermost first, to find cycles.
    stack: Vec<PathBuf>,
    warnings: Vec<String>,
    logs: Vec<String>,
    schema: PatchSchema,
    /// Whether kyaml's built-in schema, which strategic merge patches need, is being compiled on
    /// another core: from the first kustomization with patches on, while resources are read.
    compiling_kyaml_schema: bool,
    /// Whether resources have been read: kustomize has then consulted (and loaded) kyaml's
    /// built-in schema, to which a custom schema set later is added rather than replacing it.
    resources_read: bool,
    /// The namespace a chart without one takes when its kustomization sets none: the nearest one
    /// set above the kustomization being built, as kustomize hands it down.
    helm_namespace: String,
}

/// The schema of strategic merge patches. kustomize holds one for the whole build: the first
/// kustomization entered (the top one first) whose `openapi` names a file or a version sets it.
enum PatchSchema {
    Unset,
    /// Kubernetes' built-in kinds.
    Builtin,
    /// A custom schema: its kinds, and no others unless resources were read before it was set
    /// (then kyaml's built-in kinds too, as kustomize's global schema holds them).
    Custom(Arc<OpenApiSchema>),
}

impl PatchSchema {
    /// The custom schema, when the build has one.
    fn custom(&self) -> Option<&Arc<OpenApiSchema>> {
        match self {
            PatchSchema::Custom(schema) => Some(schema),
            PatchSchema::Unset | PatchSchema::Builtin => None,
        }
    }
}

/// kustomize's only built-in OpenAPI version.
const BUILTIN_OPENAPI_VERSION: &str = "v1.21.2";

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
fn is_malformed(error: &Error) -> bool {
    error.to_string().contains("MalformedYAMLError")
}

/// Whether `error` is a fetch that ran out of time.
fn is_timeout(error: &Error) -> bool {
    matches!(error, Error::Clone(source) if source.kind() == std::io::ErrorKind::TimedOut)
}

/// Whether a kustomization is a component.
fn is_component(kustomization: &Kustomization) -> bool {
    kind_of(kustomization) == "Component"
}

/// A kustomization's kind, `Kustomization` when it names none.
fn kind_of(kustomization: &Kustomization) -> &str {
    kustomization.kind.as_deref().filter(|kind| !kind.is_empty()).unwrap_or("Kustomization")
}

/// `found`, annotated with `origin` when there is one.
fn with_origin(mut found: Vec<Resource>, origin: Option<&Origin>) -> Vec<Resource> {
    if let Some(origin) = origin {
        for resource in found.iter_mut() {
            origin::set_origin(resource, origin);
        }
    }
    found
}

/// Adds `found` to the accumulated resources, refusing an id already there.
fn append_resources(accumulated: &mut Accumulated, found: Vec<Resource>) -> Result<(), Error> {
    for resource in found {
        resource::append(&mut accumulated.resources, resource)?;
    }
    Ok(())
}

/// Where a kustomization's problem is: its file.
struct Place<'a> {
    file: &'a Path,
}

impl Place<'_> {
    fn error(&self, source: impl Into<Error>) -> Error {
        Error::InFile { file: self.file.to_path_buf(), source: Box::new(source.into()) }
    }
}

impl Builder<'_> {
    /// The kustomization file in `dir`, if there is one.
    fn kustomization_file(&self, dir: &Path) -> Option<PathBuf> {
        KUSTOMIZATION_FILES.iter().map(|name| dir.join(name)).find(|path| self.loader.entry(path) == Some(Entry::File))
    }

    /// Builds the kustomization in `dir` on top of `input`. `origin` is where `dir` is, when the
    /// top kustomization asks for `buildMetadata` (and only its own counts).
    fn target(
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
    fn load_below(&self, path: &Path, failed: impl Fn(Error) -> Error) -> Result<(PathBuf, Kustomization), Error> {
        self.check_cycle(path).map_err(&failed)?;
        self.load(path).map_err(|source| match source {
            inner @ Error::InFile { .. } => inner,
            source => failed(Error::CouldNotMakeTarget { path: path.to_path_buf(), source: Box::new(source) }),
        })
    }

    /// Builds the kustomization (or component) `kustomization`, read from `file` in `dir`, on top
    /// of `input`.
    fn build_loaded(
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

    /// Runs the built-in transformers `transformers` configure, then fails as kustomize does on a
    /// built-in validator.
    fn run_plugins(
        &self,
        dir: &Path,
        place: &Place,
        transformers: Vec<(Value, Option<Origin>)>,
        validators: Vec<(Value, Option<Origin>)>,
        resources: &mut Vec<Resource>,
    ) -> Result<(), Error> {
        let mut read = |path: &str| self.read_text(dir, path);
        let schema = self.schema.custom();
        for (object, plugin_origin) in transformers {
            let plugin = plugins::plugin(&object, Role::Transformer, self.options.alpha_plugins)
                .map_err(|message| place.error(message))?;
            transform::run(&plugin.kustomization, &plugin.config, resources, &mut read, &mut |_, _| {}, schema)
                .map_err(|message| place.error(message))?;
            replacements::run(&plugin.kustomization.replacements, resources, &mut read)
                .map_err(|message| place.error(message))?;
            if plugin.adds_hashes {
                names::add_hashes(resources);
            }
            if let Some(value_add) = &plugin.value_add {
                let directory_name = dir.file_name().unwrap_or_default().to_string_lossy();
                value_add::run(value_add, &directory_name, resources, &mut read)
                    .map_err(|message| place.error(message))?;
            }
            if let Some(plugin_origin) = plugin_origin {
                origin::record_transformer(resources, &plugin_origin);
            }
        }
        for (object, _) in validators {
            plugins::plugin(&object, Role::Validator, self.options.alpha_plugins)
                .map_err(|message| place.error(message))?;
            // kustomize compares the objects before and after a validator as YAML nodes, which a
            // built-in transformer never leaves equal, whatever it changes.
            if let Some(first) = resources.first() {
                return Err(place.error(Error::ValidatorChanged(first.id())));
            }
        }
        Ok(())
    }

    /// The plugin configurations `entries` name (inline YAML first, then files and kustomization
    /// directories, as kustomize takes them), each with its origin when the build records origins.
    fn plugin_configs(
        &mut self,
        dir: &Path,
        place: &Place,
        file_name: &str,
        entries: &[String],
        origin: &Option<Origin>,
    ) -> Result<Vec<(Value, Option<Origin>)>, Error> {
        let mut configs = Vec::new();
        let is_inline = |entry: &&String| entry.contains('\n') || entry.trim_start().starts_with('{');
        let (inline, paths): (Vec<&String>, Vec<&String>) = entries.iter().partition(is_inline);
        for entry in inline {
            let objects = manifest::parse_as(entry, &place.file.display().to_string(), Dialect::Kustomize)
                .map_err(|err| place.error(err))?;
            let configured_in = origin.as_ref().map(|origin| origin.append(file_name, None));
            for object in objects {
                let plugin_origin = configured_in.as_ref().map(|configured_in| configured_in.plugin(&object.object));
                configs.push((object.object, plugin_origin));
            }
        }
        for entry in paths {
            let mut accumulated = Accumulated::default();
            self.accumulate(dir, entry, None, &mut accumulated, origin.as_ref()).map_err(|error| match error {
                inner @ Error::InFile { .. } => inner,
                failure => place.error(failure),
            })?;
            for resource in accumulated.resources {
                let plugin_origin = origin.as_ref().map(|_| Origin::of(&resource.object).plugin(&resource.object));
                configs.push((resource.object, plugin_origin));
            }
        }
        Ok(configs)
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
    fn new_root(&self, dir: &Path, entry: &str) -> Result<(PathBuf, Option<remote::RepoSpec>), Error> {
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

    /// Why `path`, which does not exist, cannot be resolved: Go's `filepath.EvalSymlinks` on the
    /// first part of it that is missing.
    fn missing(&self, path: &Path) -> Error {
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
    fn read_bytes(&self, dir: &Path, entry: &str) -> Result<Vec<u8>, Error> {
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
    fn read_text(&self, dir: &Path, entry: &str) -> Result<String, Error> {
        let bytes = self.read_bytes(dir, entry)?;
        String::from_utf8(bytes).map_err(|_| Error::NotUtf8(entry.to_string()))
    }

    /// The resources of each of `entries` that is a file of this tree, read and parsed on all
    /// cores at once (reading YAML is most of a large build); `None` for the others
    /// (kustomizations, remote files and repositories, files that cannot be read), which
    /// [`Builder::accumulate`] reads in turn. A file's error waits there for its turn too, so
    /// that the first one in the kustomization's order is the one reported.
    fn read_files_ahead(&self, dir: &Path, entries: &[&String]) -> Vec<Option<Result<Vec<Resource>, Error>>> {
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

    /// Adds the resources `entry` names, as kustomize's `accumulateResources` does: read as a file
    /// (already parsed when `ahead` has it, fetched when it is a URL), else built as a base (a
    /// directory, or a repository fetched). When both fail, the error is kustomize's, both
    /// failures in it; an error of a kustomization below passes through (it names its file).
    fn accumulate(
        &mut self,
        dir: &Path,
        entry: &str,
        ahead: Option<Result<Vec<Resource>, Error>>,
        accumulated: &mut Accumulated,
        origin: Option<&Origin>,
    ) -> Result<(), Error> {
        let file_failure = match self.file_resources(dir, entry, ahead, origin) {
            Ok(found) => {
                self.resources_read = true;
                let Err(source) = append_resources(accumulated, found) else { return Ok(()) };
                let merging = Error::MergingResources { entry: entry.to_string(), source: Box::new(source) };
                let base = match Path::new(entry).is_absolute() {
                    true => Error::AbsoluteRoot(entry.to_string()),
                    false => Error::FileIsNotDirectory(normalize(&dir.join(entry))),
                };
                return Err(Error::AccumulationFailed { file: merging.to_string(), base: Box::new(base) });
            }
            Err(source) => Error::Accumulating { entry: entry.to_string(), source: Box::new(source) },
        };
        // An answer over HTTP that is not a repository's: no base to try.
        if matches!(&file_failure, Error::Accumulating { source, .. } if matches!(**source, Error::Fetching(FetchError::Status(_))))
        {
            return Err(file_failure);
        }
        let failed = |base: Error| Error::AccumulationFailed { file: file_failure.to_string(), base: Box::new(base) };
        let (path, remote) = match self.new_root(dir, entry) {
            Ok(found) => found,
            // A file that is not YAML is reported alone, unless its name is a repository that
            // could not be fetched in time.
            Err(base) if is_malformed(&file_failure) && !is_timeout(&base) => return Err(file_failure),
            Err(base) => return Err(failed(base)),
        };
        let (file, kustomization) = self.load_below(&path, failed)?;
        if is_component(&kustomization) {
            return Err(failed(Error::ComponentAsResource(path)));
        }
        let origin = origin.map(|origin| origin.append(entry, remote.as_ref()));
        let below = self.build_loaded(&path, &file, kustomization, Accumulated::default(), origin)?.0;
        let recursed = |source: Error| failed(Error::RecursedMerging { path: path.clone(), source: Box::new(source) });
        accumulated.config.merge(&below.config).map_err(recursed)?;
        append_resources(accumulated, below.resources).map_err(recursed)?;
        accumulated.vars.merge(below.vars).map_err(recursed)
    }

    /// The resources of `entry` read as kustomize's file loader reads a file: fetched when it is
    /// an http(s) URL, else within the load restrictor's bounds.
    fn file_resources(
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

    fn generate(
        &self,
        dir: &Path,
        place: &Place,
        kustomization: &Kustomization,
        charts_namespace: &str,
        resources: &mut Vec<Resource>,
        origin: &dyn Fn(&str) -> Option<Origin>,
    ) -> Result<(), Error> {
        let mut exists = |path: &str| self.read_text(dir, path).map(drop);
        helm::configure(kustomization, charts_namespace, self.options.helm, &mut exists)
            .map_err(|message| place.error(message))?;
        let generators = kustomization
            .config_map_generator
            .iter()
            .map(|generator| (GeneratedKind::ConfigMap, generator))
            .chain(kustomization.secret_generator.iter().map(|generator| (GeneratedKind::Secret, generator)));
        for (kind, generator) in generators {
            let mut read = |path: &str| self.read_bytes(dir, path);
            let pairs = generate::pairs(generator, &mut read, self.options.environment)
                .map_err(|message| place.error(message))?;
            let options = generate::merge_options(kustomization.generator_options.as_ref(), generator.options.as_ref());
            let object = generate::object(kind, generator, &pairs, &options);
            let behavior = generator.behavior.as_deref().unwrap_or("create");
            let mut generated = Resource::new(object);
            let kind_name = match kind {
                GeneratedKind::ConfigMap => "ConfigMapGenerator",
                GeneratedKind::Secret => "SecretGenerator",
            };
            if let Some(origin) = origin(kind_name) {
                origin::set_origin(&mut generated, &origin);
            }
            generated.needs_hash = !options.disable_name_suffix_hash;
            // kustomize reads a behavior it does not know as unspecified, which creates.
            let namespace = generator.namespace.as_deref().unwrap_or_default();
            let existing = resources
                .iter_mut()
                .find(|resource| resource.kind() == generated.kind() && resource.had_id(&generator.name, namespace));
            let go_id = || go_resource_id(generated.kind(), &generator.name, namespace);
            match (behavior, existing) {
                ("merge" | "replace", Some(existing)) => {
                    merge_generated(existing, generated, behavior == "replace", &options);
                }
                ("merge" | "replace", None) => {
                    return Err(place.error(Error::GeneratedIdMissing(go_id())));
                }
                (_, Some(_)) => {
                    let behavior =
                        if generator.behavior.as_deref() == Some("create") { "create" } else { "unspecified" };
                    return Err(place.error(Error::GeneratedIdExists { id: go_id(), behavior }));
                }
                (_, None) => resource::append(resources, generated).map_err(|message| place.error(message))?,
            }
        }
        helm::inflate(kustomization, self.options.helm).map_err(|message| place.error(message))
    }
}

/// A custom OpenAPI schema (JSON or YAML) compiled for patches. Its objects keep fields it does
/// not declare (kustomize merges them without a schema rather than refusing them).
fn custom_schema(text: &str, over_builtin: bool) -> Result<OpenApiSchema, Error> {
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

/// Whether `object` is only an input of the build (a replacement's source, say): annotated
/// `config.kubernetes.io/local-config` with any value but "false", it is left out of the output.
fn is_local_config(object: &Value) -> bool {
    object["metadata"]["annotations"]
        .get("config.kubernetes.io/local-config")
        .is_some_and(|value| value.as_str() != Some("false"))
}

/// A generated object's id as kustomize's messages print it (Go's `%#v` of a `resid.ResId`).
fn go_resource_id(kind: &str, name: &str, namespace: &str) -> String {
    format!(
        "resid.ResId{{Gvk:resid.Gvk{{Group:\"\", Version:\"v1\", Kind:{kind:?}, isClusterScoped:false}}, \
         Name:{name:?}, Namespace:{namespace:?}}}"
    )
}

/// An overlay's generator applied to the object a base generated, as kustomize does it: the
/// result is the generated object, with the existing one's name, namespace, labels and annotations
/// under its own, and (when merging) the existing data under its own. Whatever else the existing
/// object had (`stringData`, its `type`) is gone.
fn merge_generated(
    existing: &mut Resource,
    generated: Resource,
    replace: bool,
    options: &kustomization::GeneratorOptions,
) {
    let mut object = generated.object;
    let old = &existing.object;
    let mut fields = vec!["labels", "annotations"];
    if !replace {
        fields.extend(["data", "binaryData"]);
    }
    for field in fields {
        let in_metadata = matches!(field, "labels" | "annotations");
        let place =
            |object: &Value| if in_metadata { object["metadata"][field].clone() } else { object[field].clone() };
        let mut merged = match place(old) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if let Value::Object(added) = place(&object) {
            for (key, value) in added {
                // A merged object keeps the origin of the generator that made it first.
                if replace || !(key == origin::ORIGIN && merged.contains_key(&key)) {
                    merged.insert(key, value);
                }
            }
        }
        let target = if in_metadata { &mut object["metadata"] } else { &mut object };
        let Some(target) = target.as_object_mut() else { continue };
        // kustomize sets these maps whole, and an empty one not at all.
        if merged.is_empty() {
            target.remove(field);
        } else {
            target.insert(field.to_string(), Value::Object(merged));
        }
    }
    for field in ["name", "namespace"] {
        match old["metadata"].get(field) {
            Some(value) => object["metadata"][field] = value.clone(),
            None => {
                if let Some(metadata) = object["metadata"].as_object_mut() {
                    metadata.remove(field);
                }
            }
        }
    }
    existing.object = object;
    // The merged object keeps the existing one's suffix, unless the generator disables it.
    if options.disable_name_suffix_hash {
        existing.needs_hash = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kustomize::MemoryLoader;

    fn built(loader: &MemoryLoader, dir: &str) -> Result<Built, Failure> {
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
    fn replacements_run_per_level_and_vars_at_the_end() {
        let loader = MemoryLoader::default()
            .with(
                "/k/base/kustomization.yaml",
                "resources: [res.yaml]\nreplacements: [{path: r.yaml}]\nvars:\n- {name: SVC, objref: {kind: Service, name: svc, apiVersion: v1}}\n- {name: IDLE, objref: {kind: Service, name: svc, apiVersion: v1}}\n",
            )
            .with(
                "/k/base/r.yaml",
                "- source: {kind: Service, name: svc}\n  targets:\n  - select: {kind: Pod}\n    fieldPaths: [metadata.labels.svc]\n    options: {create: true}\n",
            )
            .with(
                "/k/base/res.yaml",
                "apiVersion: v1\nkind: Service\nmetadata: {name: svc}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: c, image: i, args: [\"$(SVC)\"]}\n",
            )
            .with("/k/overlay/kustomization.yaml", "namePrefix: o-\nresources: [../base, local.yaml]\n")
            .with(
                "/k/overlay/local.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: input\n  annotations: {config.kubernetes.io/local-config: \"true\"}\n",
            );
        let built = built(&loader, "/k/overlay").unwrap();
        let pod = built.objects.iter().find(|object| object["kind"] == "Pod").unwrap();
        // The base's replacement saw the base's name; the var, the final one.
        assert_eq!(pod["metadata"]["labels"]["svc"], "svc");
        assert_eq!(pod["spec"]["containers"][0]["args"][0], "o-svc");
        assert_eq!(built.objects.len(), 2, "the local-config ConfigMap is left out");
        let unused = "well-defined vars that were never replaced: IDLE";
        assert_eq!(built.logs, [unused]);
    }

    #[test]
    fn a_bases_configurations_reach_the_overlay_and_its_references() {
        let loader = MemoryLoader::default()
            .with("/k/base/kustomization.yaml", "resources: [job.yaml]\nconfigurations: [refs.yaml]\n")
            .with(
                "/k/base/refs.yaml",
                "nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - kind: Task\n    path: spec/config\n\
                 commonLabels:\n- kind: Task\n  path: spec/podLabels\n  create: true\n",
            )
            .with("/k/base/job.yaml", "apiVersion: x.io/v1\nkind: Task\nmetadata: {name: t}\nspec: {config: c}\n")
            .with(
                "/k/overlay/kustomization.yaml",
                "resources: [../base]\nnamePrefix: o-\ncommonLabels: {team: a}\nconfigMapGenerator:\n- name: c\n",
            );
        let built = built(&loader, "/k/overlay").unwrap();
        let task = built.objects.iter().find(|object| object["kind"] == "Task").unwrap();
        let config_map = built.objects.iter().find(|object| object["kind"] == "ConfigMap").unwrap();
        assert_eq!(task["spec"]["config"], config_map["metadata"]["name"]);
        assert_eq!(task["spec"]["podLabels"], serde_json::json!({"team": "a"}));
    }

    #[test]
    fn a_custom_schema_describes_its_kinds_only_and_keeps_undeclared_fields() {
        let text = "definitions:\n  v1.Thing:\n    x-kubernetes-group-version-kind: [{group: x.io, version: v1, kind: Thing}]\n\
                    \x20   properties:\n      spec:\n        properties:\n          items:\n            type: array\n\
                    \x20           x-kubernetes-patch-merge-key: name\n            x-kubernetes-patch-strategy: merge\n\
                    \x20           items: {properties: {name: {type: string}}}\n";
        let schema = Arc::new(custom_schema(text, false).unwrap());
        assert!(crate::schema::KindSchema::for_kind(schema.clone(), "apps/v1", "Deployment").is_none());
        // Set once resources were read, it is added to kyaml's built-in schema.
        let over_builtin = Arc::new(custom_schema(text, true).unwrap());
        assert!(crate::schema::KindSchema::for_kind(over_builtin.clone(), "apps/v1", "Deployment").is_some());
        assert!(crate::schema::KindSchema::for_kind(over_builtin, "x.io/v1", "Thing").is_some());
        let object = serde_json::json!({"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"name": "t"},
            "spec": {"items": [{"name": "a", "v": 1}, {"name": "b"}]}});
        let patch = serde_json::json!({"spec": {"items": [{"name": "a", "v": 2}], "other": true}});
        let patched = transform::strategic(object, &patch, Some(&schema)).unwrap();
        assert_eq!(patched["spec"]["items"], serde_json::json!([{"name": "a", "v": 2}, {"name": "b"}]));
        assert_eq!(patched["spec"]["other"], true);
    }

    #[test]
    fn renames_by_patches_are_followed_by_references() {
        let loader = MemoryLoader::default()
            .with(
                "/k/kustomization.yaml",
                "resources: [res.yaml]\npatches:\n- target: {kind: ConfigMap}\n  options: {allowNameChange: true}\n  patch: |\n    kind: ConfigMap\n    metadata: {name: new, namespace: other}\n",
            )
            .with(
                "/k/res.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  volumes:\n  - name: v\n    configMap: {name: old}\n",
            );
        let built = built(&loader, "/k").unwrap();
        assert_eq!(built.objects[0]["metadata"], serde_json::json!({"name": "new"}), "the namespace stays");
        assert_eq!(built.objects[1]["spec"]["volumes"][0]["configMap"]["name"], "new");
    }

    #[test]
    fn cycles_missing_files_and_files_outside_the_root_are_errors() {
        let loader = MemoryLoader::default()
            .with("/k/a/kustomization.yaml", "resources: [../b]\n")
            .with("/k/b/kustomization.yaml", "resources: [../a]\n")
            .with("/k/c/kustomization.yaml", "resources: [gone.yaml]\n")
            .with("/k/d/kustomization.yaml", "resources: [../shared.yaml]\n")
            .with("/k/shared.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\n");
        assert_eq!(
            built(&loader, "/k/a").unwrap_err().to_string(),
            "/k/b/kustomization.yaml: accumulating resources: accumulation err='accumulating resources from '../a': \
             '/k/a' must resolve to a file': cycle detected: /k/a -> /k/b -> /k/a"
        );
        assert_eq!(
            built(&loader, "/k/c").unwrap_err().to_string(),
            "/k/c/kustomization.yaml: accumulating resources: accumulation err='accumulating resources from 'gone.yaml': \
             evalsymlink failure on '/k/c/gone.yaml' : lstat /k/c/gone.yaml: no such file or directory': must build at \
             directory: not a valid directory: evalsymlink failure on '/k/c/gone.yaml' : lstat /k/c/gone.yaml: no such file \
             or directory"
        );
        assert!(built(&loader, "/k/d").unwrap_err().to_string().contains("security; file '/k/shared.yaml'"));
        let deprecated =
            MemoryLoader::default().with("/k/kustomization.yaml", "commonLabels: {a: b}\nresources: [gone.yaml]\n");
        let failure = built(&deprecated, "/k").unwrap_err();
        assert!(
            failure.warnings.len() == 1 && failure.warnings[0].contains("'commonLabels' is deprecated"),
            "{failure:?}"
        );
        let options = Options { load_restrictor: LoadRestrictor::None, ..Options::default() };
        assert_eq!(build(&loader, Path::new("/k/d"), options).unwrap().objects.len(), 1);
    }
}
