//! One kustomization's build (kustomize's `KustTarget`): resources (files and nested
//! kustomizations), generators, components, then the transformers in kustomize's order and the
//! level's vars. The top build then appends content hashes, fixes name references, substitutes
//! vars, leaves local-config resources out and sorts.
//!
//! Here the build's entry and its state; a target's own steps in [`target`], reading its files in
//! [`reading`], adding resources and generated objects in [`accumulation`], plugins in
//! [`plugins`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::error::{Error, Failure};
use super::helm::Helm;
use super::loader::LoadRestrictor;
use super::loader::{Loader, normalize};
use super::origin;
use super::replace::vars;
use super::resource::Resource;
use super::types::field_specs::{Config, builtin};
use super::{empty_nulls, names, order};
use crate::schema::OpenApiSchema;

mod accumulation;
mod plugins;
mod reading;
mod target;

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

/// Where a kustomization's problem is: its file.
struct Place<'a> {
    file: &'a Path,
}

impl Place<'_> {
    fn error(&self, source: impl Into<Error>) -> Error {
        Error::InFile { file: self.file.to_path_buf(), source: Box::new(source.into()) }
    }
}

/// Whether `object` is only an input of the build (a replacement's source, say): annotated
/// `config.kubernetes.io/local-config` with any value but "false", it is left out of the output.
fn is_local_config(object: &Value) -> bool {
    object["metadata"]["annotations"]
        .get("config.kubernetes.io/local-config")
        .is_some_and(|value| value.as_str() != Some("false"))
}

#[cfg(test)]
mod tests {
    use super::target::custom_schema;
    use super::*;
    use crate::kustomize::MemoryLoader;
    use crate::kustomize::transform;

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
