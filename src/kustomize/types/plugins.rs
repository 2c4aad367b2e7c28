//! `generators`, `transformers` and `validators`: configurations of kustomize's built-in plugins
//! (`apiVersion: builtin`), each turned into the kustomization fields that configure the same
//! plugin, so that the same code runs them. kubeupd never runs other plugins: they are refused as
//! kubectl refuses them without `--enable-alpha-plugins`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::field_specs::{Config, FieldSpec};
use super::go_types;
use super::kustomization::{Generator, Image, Kustomization, PatchEntry, PatchOptions, Replica, Selector};
use super::replacement;
use crate::gocompat::unmarshal;
use crate::kustomize::error::Error;
use crate::kustomize::loader::normalize;
use crate::kustomize::resource::id_text;
use crate::manifest::Dialect;

/// What a plugin configuration is listed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Generator,
    Transformer,
    Validator,
}

/// A built-in plugin, as the kustomization fields and field specs that configure it.
#[derive(Debug, Clone, Default)]
pub struct Plugin {
    /// The fields that configure the same plugin in a kustomization.
    pub kustomization: Kustomization,
    /// The fields it changes: the configuration's own `fieldSpecs`, not the built-in tables.
    pub config: Config,
    /// A ValueAddTransformer, which no kustomization field configures.
    pub value_add: Option<ValueAdd>,
    /// A HashTransformer: the hash suffixes that generated names get at the end of the build,
    /// added now (and then once more at the end, as kustomize does).
    pub adds_hashes: bool,
    /// The objects a generator that no kustomization field configures makes (IAMPolicyGenerator).
    pub generated: Vec<Value>,
}

/// The built-in plugin `object` configures, for `role`; kustomize's words for what it refuses.
/// `external` is `--enable-alpha-plugins`: other plugins are loaded (and refused only then).
pub fn plugin(object: &Value, role: Role, external: bool) -> Result<Plugin, Error> {
    load(object, role, external).map_err(|err| match role {
        Role::Generator => Error::LoadingGenerator(Box::new(err)),
        Role::Transformer | Role::Validator => err,
    })
}

/// As kustomize loads a plugin: made by its kind, configured, then checked for its role.
fn load(object: &Value, role: Role, external: bool) -> Result<Plugin, Error> {
    let kind = object["kind"].as_str().unwrap_or_default();
    if object["apiVersion"].as_str() != Some("builtin") {
        if !external {
            return Err(Error::ExternalPlugin(kind.to_string()));
        }
        check_function_mounts(object)?;
        return Err(Error::PluginNotRun(id_text(object)));
    }
    let plugin = configure(object, kind)?;
    let generator = matches!(kind, "ConfigMapGenerator" | "SecretGenerator" | "IAMPolicyGenerator");
    if role != Role::Validator && generator != (role == Role::Generator) {
        let wanted = if role == Role::Generator { "generator" } else { "transformer" };
        return Err(Error::WrongRole { id: id_text(object), wanted });
    }
    Ok(plugin)
}

/// kustomize's check of a container function's mounts, before it would run it: each source a
/// path relative to the kustomization's directory and under it.
fn check_function_mounts(object: &Value) -> Result<(), Error> {
    let annotations = &object["metadata"]["annotations"];
    let spec = annotations["config.kubernetes.io/function"].as_str().or(annotations["config.k8s.io/function"].as_str());
    let Some(spec) = spec else { return Ok(()) };
    let documents = crate::manifest::parse_documents(spec, "config.kubernetes.io/function", Dialect::Kustomize)?;
    let mounts = documents.first().and_then(|spec| spec["container"]["mounts"].as_array().cloned()).unwrap_or_default();
    for mount in mounts {
        let source = mount["src"].as_str().unwrap_or_default();
        let cleaned = normalize(Path::new(source));
        if Path::new(source).is_absolute() {
            return Err(Error::FunctionMount { id: id_text(object), path: source.to_string(), rule: "relative to" });
        }
        if cleaned.to_string_lossy().starts_with("..") {
            return Err(Error::FunctionMount { id: id_text(object), path: source.to_string(), rule: "under" });
        }
    }
    Ok(())
}

/// The built-in plugin of `kind` that `object` configures.
fn configure(object: &Value, kind: &str) -> Result<Plugin, Error> {
    let mut plugin = Plugin::default();
    let (kustomization, config) = (&mut plugin.kustomization, &mut plugin.config);
    match kind {
        "ConfigMapGenerator" | "SecretGenerator" => {
            let generator = generator_args(object, kind)?;
            match kind {
                "ConfigMapGenerator" => kustomization.config_map_generator.push(generator),
                _ => kustomization.secret_generator.push(generator),
            }
        }
        "PrefixSuffixTransformer" | "PrefixTransformer" | "SuffixTransformer" => {
            let affixes: Affixes = affix_args(object)?;
            kustomization.name_prefix = affixes.prefix.filter(|_| kind != "SuffixTransformer");
            kustomization.name_suffix = affixes.suffix.filter(|_| kind != "PrefixTransformer");
            config.name_prefix = affixes.field_specs.clone();
            config.name_suffix = affixes.field_specs;
        }
        "LabelTransformer" => {
            let labels: Pairs = args(object, kind)?;
            kustomization.common_labels = labels.labels;
            config.common_labels = labels.field_specs;
        }
        "AnnotationsTransformer" => {
            let annotations: Pairs = args(object, kind)?;
            kustomization.common_annotations = annotations.annotations;
            config.common_annotations = annotations.field_specs;
        }
        "NamespaceTransformer" => {
            let namespace: Namespace = args(object, kind).map_err(|err| match err {
                Error::PluginConfiguration { id, source } => Error::NamespaceTransformerConfiguration { id, source },
                other => other,
            })?;
            if namespace.unset_only || !matches!(namespace.set_role_binding_subjects.as_str(), "" | "defaultOnly") {
                return Err(Error::NamespaceTransformerOptions);
            }
            kustomization.namespace = namespace.metadata.namespace;
            config.namespace = namespace.field_specs;
        }
        "PatchTransformer" => kustomization.patches.push(args::<Patch>(object, kind)?.into_entry()),
        "PatchStrategicMergeTransformer" => {
            let patches: StrategicPatches = args(object, kind)?;
            kustomization.patches_strategic_merge = patches.paths;
            kustomization.patches_strategic_merge.extend(patches.patches.filter(|text| !text.is_empty()));
        }
        "PatchJson6902Transformer" => {
            let patch: Json6902 = args(object, kind)?;
            if patch.target.as_ref().is_none_or(|target| target.name.is_empty()) {
                return Err(Error::PluginWithoutTargetName(id_text(object)));
            }
            let (path, patch, target) = (patch.path, patch.json_op, patch.target);
            kustomization.patches_json6902.push(PatchEntry { path, patch, target, ..PatchEntry::default() });
        }
        "ImageTagTransformer" => {
            let image: ImageTag = args(object, kind)?;
            kustomization.images.push(image.image_tag);
            config.images = image.field_specs;
        }
        "ReplicaCountTransformer" => {
            let replica: ReplicaCount = args(object, kind)?;
            kustomization.replicas.push(replica.replica);
            config.replicas = replica.field_specs;
        }
        "ReplacementTransformer" => kustomization.replacements = args::<Replacements>(object, kind)?.replacements,
        "ValueAddTransformer" => plugin.value_add = Some(args(object, kind)?),
        "HashTransformer" => plugin.adds_hashes = true,
        "IAMPolicyGenerator" => plugin.generated.push(iam_policy_service_account(args(object, kind)?)?),
        other => return Err(Error::UnknownBuiltin(other.to_string())),
    }
    Ok(plugin)
}

/// The GKE service account an IAMPolicyGenerator makes, bound to a Google service account by
/// Workload Identity's annotation; the only cloud kustomize knows.
fn iam_policy_service_account(policy: IamPolicy) -> Result<Value, Error> {
    if policy.cloud != "gke" {
        return Err(Error::CloudNotSupported(policy.cloud));
    }
    let account = &policy.service_account;
    let mut metadata = serde_json::Map::new();
    let google_account = format!("{}@{}.iam.gserviceaccount.com", account.name, account.project_id);
    metadata.insert("annotations".into(), serde_json::json!({ "iam.gke.io/gcp-service-account": google_account }));
    metadata.insert("name".into(), Value::String(policy.kubernetes_service.name));
    if !policy.kubernetes_service.namespace.is_empty() {
        metadata.insert("namespace".into(), Value::String(policy.kubernetes_service.namespace));
    }
    Ok(serde_json::json!({ "apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata }))
}

/// An IAMPolicyGenerator's configuration (kustomize's `IAMPolicyGeneratorArgs`).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct IamPolicy {
    cloud: String,
    kubernetes_service: KubernetesService,
    service_account: GoogleServiceAccount,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct KubernetesService {
    name: String,
    namespace: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct GoogleServiceAccount {
    name: String,
    project_id: String,
}

/// The configuration of the plugin `kind`, read as the plugin reads it: `sigs.k8s.io/yaml`'s
/// `yaml.Unmarshal` into its Go struct (unknown fields ignored, field names in any case, numbers
/// and booleans read as text where strings are wanted, a value of the wrong type refused in
/// `encoding/json`'s words).
fn args<T: DeserializeOwned>(object: &Value, kind: &str) -> Result<T, Error> {
    let rules = unmarshal::Rules { go_types: go_types::plugin(kind), ..unmarshal::PLUGIN };
    unmarshal::sigs_yaml(object.clone(), rules)
        .map_err(|source| Error::PluginConfiguration { id: id_text(object), source })
}

/// The prefix and suffix transformers' configuration, which they read with go-yaml: field names
/// as written, numbers as go-yaml wrote them.
fn affix_args(object: &Value) -> Result<Affixes, Error> {
    unmarshal::from_value(object.clone(), unmarshal::GO_YAML)
        .map_err(|source| Error::PluginConfiguration { id: id_text(object), source })
}

/// A generator's arguments; its name and namespace default to the configuration's own.
fn generator_args(object: &Value, kind: &str) -> Result<Generator, Error> {
    let mut generator: Generator = args(object, kind)?;
    if generator.name.is_empty() {
        generator.name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
    }
    if generator.namespace.as_deref().unwrap_or_default().is_empty() {
        generator.namespace = object["metadata"]["namespace"].as_str().map(String::from);
    }
    Ok(generator)
}

/// A ValueAddTransformer's configuration.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ValueAdd {
    pub value: String,
    pub targets: Vec<ValueAddTarget>,
    /// A file whose `targets` are added to these.
    pub target_file_path: String,
}

/// Where the value goes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ValueAddTarget {
    /// The resources; all of them when unset.
    pub selector: Option<Selector>,
    /// Slash-separated (`\/` is a slash in a field name); `metadata/namespace` is set as
    /// kustomize's namespace filter sets it.
    pub field_path: String,
    /// When positive, the value is inserted as the path part at this position (from 1) of the
    /// path the field holds, rather than replacing it.
    pub file_path_position: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[derive(Default)]
struct Affixes {
    prefix: Option<String>,
    suffix: Option<String>,
    field_specs: Vec<FieldSpec>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Pairs {
    labels: BTreeMap<String, String>,
    annotations: BTreeMap<String, String>,
    field_specs: Vec<FieldSpec>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Namespace {
    metadata: NamespaceMetadata,
    field_specs: Vec<FieldSpec>,
    unset_only: bool,
    set_role_binding_subjects: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NamespaceMetadata {
    namespace: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Patch {
    path: Option<String>,
    patch: Option<String>,
    target: Option<Selector>,
    options: PatchOptions,
}

impl Patch {
    fn into_entry(self) -> PatchEntry {
        PatchEntry { path: self.path, patch: self.patch, target: self.target, options: self.options }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct StrategicPatches {
    paths: Vec<String>,
    patches: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Json6902 {
    target: Option<Selector>,
    path: Option<String>,
    json_op: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ImageTag {
    image_tag: Image,
    field_specs: Vec<FieldSpec>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Replacements {
    replacements: Vec<replacement::Entry>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ReplicaCount {
    replica: Replica,
    field_specs: Vec<FieldSpec>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn built_in_configurations_become_kustomization_fields_with_their_own_field_specs() {
        let prefixer = json!({"apiVersion": "builtin", "kind": "PrefixSuffixTransformer", "metadata": {"name": "p"},
            "prefix": "a-", "fieldSpecs": [{"path": "metadata/name"}]});
        let prefixing = plugin(&prefixer, Role::Transformer, false).unwrap();
        assert_eq!(prefixing.kustomization.name_prefix.as_deref(), Some("a-"));
        assert_eq!(prefixing.config.name_prefix, [FieldSpec::any_kind("metadata/name", false)]);
        assert!(prefixing.config.common_labels.is_empty());
        let generator = json!({"apiVersion": "builtin", "kind": "ConfigMapGenerator", "metadata": {"name": "cm", "namespace": "ns"},
            "literals": ["a=1"]});
        let generated = plugin(&generator, Role::Generator, false).unwrap().kustomization.config_map_generator;
        assert_eq!((generated[0].name.as_str(), generated[0].namespace.as_deref()), ("cm", Some("ns")));
        let replacer = json!({"apiVersion": "builtin", "kind": "ReplacementTransformer", "metadata": {"name": "r"},
            "replacements": [{"path": "r.yaml"}, {"source": {"kind": "ConfigMap"}, "targets": []}]});
        let replacing = plugin(&replacer, Role::Transformer, false).unwrap().kustomization.replacements;
        assert_eq!(
            (replacing[0].path.as_str(), replacing[1].source.as_ref().map(|source| source.kind.as_str())),
            ("r.yaml", Some("ConfigMap"))
        );
    }

    #[test]
    fn other_plugins_are_refused_in_kustomizes_words() {
        let external = json!({"apiVersion": "example.com/v1", "kind": "ChartInflator", "metadata": {"name": "x"}});
        assert_eq!(
            plugin(&external, Role::Generator, false).unwrap_err().to_string(),
            "loading generator plugins: failed to load generator: external plugins disabled; unable to load external plugin 'ChartInflator'"
        );
        assert_eq!(
            plugin(&external, Role::Transformer, false).unwrap_err().to_string(),
            "external plugins disabled; unable to load external plugin 'ChartInflator'"
        );
        let function = |source: &str| {
            let spec = format!(
                "container:\n  image: example.com/fn\n  mounts:\n  - {{type: bind, src: '{source}', dst: /d}}\n"
            );
            json!({"apiVersion": "v1", "kind": "Fn", "metadata": {"name": "f", "annotations": {"config.kubernetes.io/function": spec}}})
        };
        let refused = |source: &str| plugin(&function(source), Role::Transformer, true).unwrap_err().to_string();
        assert_eq!(
            refused("/abs"),
            "plugin Fn.v1.[noGrp]/f.[noNs] with mount path '/abs' is not permitted; mount paths must be relative to the current kustomization directory"
        );
        assert!(refused("./a/../../b").ends_with("mount paths must be under the current kustomization directory"));
        assert!(refused("./charts").contains("runs no plugins"));
        let iam = json!({"apiVersion": "builtin", "kind": "IAMPolicyGenerator", "metadata": {"name": "g"}, "cloud": "gke",
            "kubernetesService": {"name": "k"}, "serviceAccount": {"name": "gsa", "projectId": "p"}});
        let generated = plugin(&iam, Role::Generator, false).unwrap().generated;
        assert_eq!(
            generated[0]["metadata"]["annotations"]["iam.gke.io/gcp-service-account"],
            "gsa@p.iam.gserviceaccount.com"
        );
        let aws =
            json!({"apiVersion": "builtin", "kind": "IAMPolicyGenerator", "metadata": {"name": "g"}, "cloud": "aws"});
        assert!(
            plugin(&aws, Role::Generator, false)
                .unwrap_err()
                .to_string()
                .ends_with("cloud provider aws not supported yet")
        );
    }
}
