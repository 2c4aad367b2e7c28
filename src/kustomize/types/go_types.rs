//! kustomize's Go declarations of what it reads with Go's decoders (`api/types`, `kyaml/resid`
//! and the built-in plugins' structs in `api/internal/builtins`), as kustomize v5.8.1 declares
//! them, so that a value of the wrong type is refused in `encoding/json`'s words, naming the Go
//! struct, the field's path and its Go type (see [`GoTypes`]). Embedded structs
//! (`TypeMeta`, `ResId`, `Gvk`, `GeneratorArgs`, `KvPairSources`, `Replacement`, a plugin's
//! `ConfigMapArgs`) are named before the fields they bring, as Go names them in its errors.

use crate::gocompat::unmarshal::GoTypes;

/// A kustomization file.
pub static KUSTOMIZATION: GoTypes = GoTypes { root: "types.Kustomization", structs: STRUCTS };

/// A replacement in a file that a kustomization's or a plugin's `replacements` name.
pub static REPLACEMENT: GoTypes = GoTypes { root: "types.Replacement", structs: STRUCTS };

/// The configuration of the built-in plugin `kind`, if kustomize reads it with `sigs.k8s.io/yaml`
/// (the prefix and suffix transformers read theirs with go-yaml, which names no Go struct fields).
pub fn plugin(kind: &str) -> Option<&'static GoTypes> {
    PLUGINS
        .iter()
        .find(|types| types.root.strip_prefix("builtins.").and_then(|root| root.strip_suffix("Plugin")) == Some(kind))
}

static PLUGINS: [GoTypes; 12] = [
    GoTypes { root: "builtins.AnnotationsTransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.ConfigMapGeneratorPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.ImageTagTransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.LabelTransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.NamespaceTransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.PatchJson6902TransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.PatchStrategicMergeTransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.PatchTransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.ReplacementTransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.ReplicaCountTransformerPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.SecretGeneratorPlugin", structs: STRUCTS },
    GoTypes { root: "builtins.ValueAddTransformerPlugin", structs: STRUCTS },
];

/// Struct types by name, with their fields.
type Structs = &'static [(&'static str, &'static [(&'static str, &'static str)])];

const STRUCTS: Structs = &[
    (
        "types.Kustomization",
        &[
            ("TypeMeta.kind", "string"),
            ("TypeMeta.apiVersion", "string"),
            ("metadata", "*types.ObjectMeta"),
            ("openapi", "map[string]string"),
            ("namePrefix", "string"),
            ("nameSuffix", "string"),
            ("namespace", "string"),
            ("commonLabels", "map[string]string"),
            ("labels", "[]types.Label"),
            ("commonAnnotations", "map[string]string"),
            ("patchesStrategicMerge", "[]types.PatchStrategicMerge"),
            ("patchesJson6902", "[]types.Patch"),
            ("patches", "[]types.Patch"),
            ("images", "[]types.Image"),
            ("imageTags", "[]types.Image"),
            ("replacements", "[]types.ReplacementField"),
            ("replicas", "[]types.Replica"),
            ("vars", "[]types.Var"),
            ("sortOptions", "*types.SortOptions"),
            ("resources", "[]string"),
            ("components", "[]string"),
            ("crds", "[]string"),
            ("bases", "[]string"),
            ("configMapGenerator", "[]types.ConfigMapArgs"),
            ("secretGenerator", "[]types.SecretArgs"),
            ("helmGlobals", "*types.HelmGlobals"),
            ("helmCharts", "[]types.HelmChart"),
            ("helmChartInflationGenerator", "[]types.HelmChartArgs"),
            ("generatorOptions", "*types.GeneratorOptions"),
            ("configurations", "[]string"),
            ("generators", "[]string"),
            ("transformers", "[]string"),
            ("validators", "[]string"),
            ("buildMetadata", "[]string"),
        ],
    ),
    (
        "types.ObjectMeta",
        &[
            ("name", "string"),
            ("namespace", "string"),
            ("labels", "map[string]string"),
            ("annotations", "map[string]string"),
        ],
    ),
    (
        "types.Label",
        &[
            ("pairs", "map[string]string"),
            ("includeSelectors", "bool"),
            ("includeTemplates", "bool"),
            ("fields", "[]types.FieldSpec"),
        ],
    ),
    (
        "types.FieldSpec",
        &[
            ("Gvk.group", "string"),
            ("Gvk.version", "string"),
            ("Gvk.kind", "string"),
            ("path", "string"),
            ("create", "bool"),
        ],
    ),
    (
        "types.Image",
        &[
            ("name", "string"),
            ("newName", "string"),
            ("tagSuffix", "string"),
            ("newTag", "string"),
            ("digest", "string"),
        ],
    ),
    ("types.Replica", &[("name", "string"), ("count", "int64")]),
    (
        "types.Patch",
        &[("path", "string"), ("patch", "string"), ("target", "*types.Selector"), ("options", "*types.PatchArgs")],
    ),
    ("types.PatchArgs", &[("allowNameChange", "bool"), ("allowKindChange", "bool")]),
    (
        "types.Selector",
        &[
            ("ResId.Gvk.group", "string"),
            ("ResId.Gvk.version", "string"),
            ("ResId.Gvk.kind", "string"),
            ("ResId.name", "string"),
            ("ResId.namespace", "string"),
            ("annotationSelector", "string"),
            ("labelSelector", "string"),
        ],
    ),
    ("types.ConfigMapArgs", &GENERATOR_ARGS),
    ("types.SecretArgs", &SECRET_ARGS),
    (
        "types.GeneratorOptions",
        &[
            ("labels", "map[string]string"),
            ("annotations", "map[string]string"),
            ("disableNameSuffixHash", "bool"),
            ("immutable", "bool"),
        ],
    ),
    ("types.SortOptions", &[("order", "types.SortOrder"), ("legacySortOptions", "*types.LegacySortOptions")]),
    ("types.LegacySortOptions", &[("orderFirst", "[]string"), ("orderLast", "[]string")]),
    (
        "types.ReplacementField",
        &[
            ("Replacement.source", "*types.SourceSelector"),
            ("Replacement.targets", "[]*types.TargetSelector"),
            ("Replacement.sourceValue", "*string"),
            ("path", "string"),
        ],
    ),
    (
        "types.Replacement",
        &[("source", "*types.SourceSelector"), ("targets", "[]*types.TargetSelector"), ("sourceValue", "*string")],
    ),
    (
        "types.SourceSelector",
        &[
            ("ResId.Gvk.group", "string"),
            ("ResId.Gvk.version", "string"),
            ("ResId.Gvk.kind", "string"),
            ("ResId.name", "string"),
            ("ResId.namespace", "string"),
            ("fieldPath", "string"),
            ("options", "*types.FieldOptions"),
        ],
    ),
    (
        "types.TargetSelector",
        &[
            ("select", "*types.Selector"),
            ("reject", "[]*types.Selector"),
            ("fieldPaths", "[]string"),
            ("options", "*types.FieldOptions"),
        ],
    ),
    ("types.FieldOptions", &[("delimiter", "string"), ("index", "int"), ("encoding", "string"), ("create", "bool")]),
    ("types.Var", &[("name", "string"), ("objref", "types.Target"), ("fieldref", "types.FieldSelector")]),
    (
        "types.Target",
        &[
            ("apiVersion", "string"),
            ("Gvk.group", "string"),
            ("Gvk.version", "string"),
            ("Gvk.kind", "string"),
            ("name", "string"),
            ("namespace", "string"),
        ],
    ),
    ("types.FieldSelector", &[("fieldPath", "string")]),
    ("types.HelmGlobals", &[("chartHome", "string"), ("configHome", "string")]),
    (
        "types.HelmChart",
        &[
            ("name", "string"),
            ("version", "string"),
            ("repo", "string"),
            ("releaseName", "string"),
            ("namespace", "string"),
            ("additionalValuesFiles", "[]string"),
            ("valuesFile", "string"),
            ("valuesInline", "map[string]interface {}"),
            ("valuesMerge", "string"),
            ("includeCRDs", "bool"),
            ("skipHooks", "bool"),
            ("apiVersions", "[]string"),
            ("kubeVersion", "string"),
            ("nameTemplate", "string"),
            ("skipTests", "bool"),
            ("debug", "bool"),
            ("devel", "bool"),
        ],
    ),
    (
        "types.HelmChartArgs",
        &[
            ("chartName", "string"),
            ("chartVersion", "string"),
            ("chartRepoUrl", "string"),
            ("chartHome", "string"),
            ("chartRepoName", "string"),
            ("helmBin", "string"),
            ("helmHome", "string"),
            ("values", "string"),
            ("valuesLocal", "map[string]interface {}"),
            ("valuesMerge", "string"),
            ("releaseName", "string"),
            ("releaseNamespace", "string"),
            ("extraArgs", "[]string"),
        ],
    ),
    (
        "builtins.AnnotationsTransformerPlugin",
        &[("annotations", "map[string]string"), ("fieldSpecs", "[]types.FieldSpec")],
    ),
    ("builtins.LabelTransformerPlugin", &[("labels", "map[string]string"), ("fieldSpecs", "[]types.FieldSpec")]),
    ("builtins.ImageTagTransformerPlugin", &[("imageTag", "types.Image"), ("fieldSpecs", "[]types.FieldSpec")]),
    ("builtins.ReplicaCountTransformerPlugin", &[("replica", "types.Replica"), ("fieldSpecs", "[]types.FieldSpec")]),
    (
        "builtins.NamespaceTransformerPlugin",
        &[
            ("metadata", "types.ObjectMeta"),
            ("fieldSpecs", "[]types.FieldSpec"),
            ("unsetOnly", "bool"),
            ("setRoleBindingSubjects", "namespace.RoleBindingSubjectMode"),
        ],
    ),
    (
        "builtins.PatchTransformerPlugin",
        &[("path", "string"), ("patch", "string"), ("target", "*types.Selector"), ("options", "*types.PatchArgs")],
    ),
    (
        "builtins.PatchJson6902TransformerPlugin",
        &[("target", "*types.Selector"), ("path", "string"), ("jsonOp", "string")],
    ),
    (
        "builtins.PatchStrategicMergeTransformerPlugin",
        &[("paths", "[]types.PatchStrategicMerge"), ("patches", "string")],
    ),
    ("builtins.ReplacementTransformerPlugin", &[("replacements", "[]types.ReplacementField")]),
    (
        "builtins.ValueAddTransformerPlugin",
        &[("value", "string"), ("targets", "[]builtins.Target"), ("targetFilePath", "string")],
    ),
    ("builtins.Target", &[("selector", "*types.Selector"), ("fieldPath", "string"), ("filePathPosition", "int")]),
    (
        "builtins.ConfigMapGeneratorPlugin",
        &[
            ("metadata", "types.ObjectMeta"),
            ("ConfigMapArgs.GeneratorArgs.namespace", "string"),
            ("ConfigMapArgs.GeneratorArgs.name", "string"),
            ("ConfigMapArgs.GeneratorArgs.behavior", "string"),
            ("ConfigMapArgs.GeneratorArgs.KvPairSources.literals", "[]string"),
            ("ConfigMapArgs.GeneratorArgs.KvPairSources.files", "[]string"),
            ("ConfigMapArgs.GeneratorArgs.KvPairSources.envs", "[]string"),
            ("ConfigMapArgs.GeneratorArgs.KvPairSources.env", "string"),
            ("ConfigMapArgs.GeneratorArgs.options", "*types.GeneratorOptions"),
        ],
    ),
    (
        "builtins.SecretGeneratorPlugin",
        &[
            ("metadata", "types.ObjectMeta"),
            ("SecretArgs.GeneratorArgs.namespace", "string"),
            ("SecretArgs.GeneratorArgs.name", "string"),
            ("SecretArgs.GeneratorArgs.behavior", "string"),
            ("SecretArgs.GeneratorArgs.KvPairSources.literals", "[]string"),
            ("SecretArgs.GeneratorArgs.KvPairSources.files", "[]string"),
            ("SecretArgs.GeneratorArgs.KvPairSources.envs", "[]string"),
            ("SecretArgs.GeneratorArgs.KvPairSources.env", "string"),
            ("SecretArgs.GeneratorArgs.options", "*types.GeneratorOptions"),
            ("SecretArgs.type", "string"),
        ],
    ),
];

/// `types.GeneratorArgs`, embedded in `types.ConfigMapArgs` and `types.SecretArgs`.
const GENERATOR_ARGS: [(&str, &str); 8] = [
    ("GeneratorArgs.namespace", "string"),
    ("GeneratorArgs.name", "string"),
    ("GeneratorArgs.behavior", "string"),
    ("GeneratorArgs.KvPairSources.literals", "[]string"),
    ("GeneratorArgs.KvPairSources.files", "[]string"),
    ("GeneratorArgs.KvPairSources.envs", "[]string"),
    ("GeneratorArgs.KvPairSources.env", "string"),
    ("GeneratorArgs.options", "*types.GeneratorOptions"),
];

/// `types.SecretArgs`: the generator's arguments and the secret's `type`.
const SECRET_ARGS: [(&str, &str); 9] = with_field(GENERATOR_ARGS, ("type", "string"));

/// `fields` and one more after them (`M` is one more than `N`).
const fn with_field<const N: usize, const M: usize>(
    fields: [(&'static str, &'static str); N],
    last: (&'static str, &'static str),
) -> [(&'static str, &'static str); M] {
    assert!(M == N + 1, "one field more");
    let mut all = [last; M];
    let mut at = 0;
    while at < N {
        all[at] = fields[at];
        at += 1;
    }
    all
}
