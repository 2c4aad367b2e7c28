//! `generators`, `transformers` and `validators`: configurations of kustomize's built-in plugins
//! (`apiVersion: builtin`), each turned into the kustomization fields that configure the same
//! plugin, so that the same code runs them. kubeupd never runs other plugins: they are refused as
//! kubectl refuses them without `--enable-alpha-plugins`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::field_specs::{Config, FieldSpec};
use super::go_types;
use super::kustomization::{Generator, Image, Kustomization, PatchEntry, PatchOptions, Replica, Selector};
use super::replacement;
use crate::gocompat::unmarshal;
use crate::kustomize::error::Error;
use crate::kustomize::resource::id_text;

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
}

/// The built-in plugin `object` configures, for `role`; kustomize's words for what it refuses.
pub fn plugin(object: &Value, role: Role) -> Result<Plugin, Error> {
    load(object, role).map_err(|err| match role {
        Role::Generator => Error::LoadingGenerator(Box::new(err)),
        Role::Transformer | Role::Validator => err,
    })
}

/// As kustomize loads a plugin: made by its kind, configured, then checked for its role.
fn load(object: &Value, role: Role) -> Result<Plugin, Error> {
    let kind = object["kind"].as_str().unwrap_or_default();
    if object["apiVersion"].as_str() != Some("builtin") {
        return Err(Error::ExternalPlugin(kind.to_string()));
    }
    let plugin = configure(object, kind)?;
    let generator = matches!(kind, "ConfigMapGenerator" | "SecretGenerator");
    if role != Role::Validator && generator != (role == Role::Generator) {
        let wanted = if role == Role::Generator { "generator" } else { "transformer" };
        return Err(Error::WrongRole { id: id_text(object), wanted });
    }
    Ok(plugin)
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
        "IAMPolicyGenerator" => return Err(Error::UnsupportedPlugin(kind.to_string())),
        other => return Err(Error::UnknownBuiltin(other.to_string())),
    }
    Ok(plugin)
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
        let prefixing = plugin(&prefixer, Role::Transformer).unwrap();
        assert_eq!(prefixing.kustomization.name_prefix.as_deref(), Some("a-"));
        assert_eq!(prefixing.config.name_prefix, [FieldSpec::any_kind("metadata/name", false)]);
        assert!(prefixing.config.common_labels.is_empty());
        let generator = json!({"apiVersion": "builtin", "kind": "ConfigMapGenerator", "metadata": {"name": "cm", "namespace": "ns"},
            "literals": ["a=1"]});
        let generated = plugin(&generator, Role::Generator).unwrap().kustomization.config_map_generator;
        assert_eq!((generated[0].name.as_str(), generated[0].namespace.as_deref()), ("cm", Some("ns")));
        let replacer = json!({"apiVersion": "builtin", "kind": "ReplacementTransformer", "metadata": {"name": "r"},
            "replacements": [{"path": "r.yaml"}, {"source": {"kind": "ConfigMap"}, "targets": []}]});
        let replacing = plugin(&replacer, Role::Transformer).unwrap().kustomization.replacements;
        assert_eq!(
            (replacing[0].path.as_str(), replacing[1].source.as_ref().map(|source| source.kind.as_str())),
            ("r.yaml", Some("ConfigMap"))
        );
    }

    #[test]
    fn other_plugins_are_refused_in_kustomizes_words() {
        let external = json!({"apiVersion": "example.com/v1", "kind": "ChartInflator", "metadata": {"name": "x"}});
        assert_eq!(
            plugin(&external, Role::Generator).unwrap_err().to_string(),
            "loading generator plugins: failed to load generator: external plugins disabled; unable to load external plugin 'ChartInflator'"
        );
        assert_eq!(
            plugin(&external, Role::Transformer).unwrap_err().to_string(),
            "external plugins disabled; unable to load external plugin 'ChartInflator'"
        );
    }
}
