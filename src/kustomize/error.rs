//! Why a build failed. Each message is kustomize's (or, where kubeupd refuses what kustomize
//! would do, kubeupd's) word for word: kubectl's tests compare them. Variants that wrap another
//! error add the context kustomize adds (the file, the entry, the step) in front of its message.

use std::io;
use std::path::PathBuf;

use super::fetch::FetchError;
use crate::gocompat::unmarshal;
use crate::manifest;
use crate::merge::MergeError;
use crate::merge::json_patch::JsonPatchError;
use crate::schema::SchemaError;

/// Why a kustomization could not be built. The message names the file or directory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // Where: the context kustomize puts in front of a message.
    #[error("{}: {source}", file.display())]
    InFile { file: PathBuf, source: Box<Error> },
    #[error("{entry}: {source}")]
    InEntry { entry: String, source: Box<Error> },
    #[error("accumulating resources from '{entry}': {source}")]
    Accumulating { entry: String, source: Box<Error> },
    /// An entry of `resources` that could be read neither as a file nor as a base.
    #[error("accumulation err='{file}': {base}")]
    AccumulationFailed { file: String, base: Box<Error> },
    /// What put an entry of `resources` in the kustomization fails: the entry's failure.
    #[error("accumulating resources: {0}")]
    AccumulatingResources(Box<Error>),
    #[error("merging resources from '{entry}': {source}")]
    MergingResources { entry: String, source: Box<Error> },
    #[error("accumulating components: {0}")]
    AccumulatingComponents(Box<Error>),
    /// A component that could not be loaded, quoted as Go's `%q` quotes.
    #[error("loader.New {0:?}")]
    ComponentLoader(String),
    /// A component's directory that could not be built, quoted as Go's `%q` quotes.
    #[error("accumulateDirectory: {0:?}")]
    ComponentDirectory(String),
    #[error("couldn't make target for path '{}': {source}", path.display())]
    CouldNotMakeTarget { path: PathBuf, source: Box<Error> },
    #[error("recursed merging from path '{}': {source}", path.display())]
    RecursedMerging { path: PathBuf, source: Box<Error> },
    #[error("merging vars [{vars}]: {source}")]
    MergingVars { vars: String, source: Box<Error> },
    #[error("loading CRDs: unable to parse open API definition from '{entry}': {source}")]
    LoadingCrds { entry: String, source: Box<Error> },
    #[error("merging CRDs: {source}")]
    MergingCrds { source: Box<Error> },
    #[error("invalid schema file: {source}")]
    InvalidSchema { source: Box<Error> },
    #[error("invalid Kustomization: {source}")]
    InvalidKustomization { source: unmarshal::Error },
    #[error("unable to find patch target \"{target}\" in `resources`: {source}")]
    PatchTargetNotFound { target: String, source: Box<Error> },
    #[error("patching {id}: {source}")]
    Patching { id: String, source: Box<Error> },
    #[error("error looking up replacement source: {source}")]
    LookingUpSource { source: Box<Error> },
    #[error("{not_found}: {source}")]
    TargetField { not_found: Box<Error>, source: Box<Error> },

    // Errors of the libraries below, in their words.
    #[error(transparent)]
    Manifest(#[from] manifest::Error),
    #[error(transparent)]
    Unmarshal(#[from] unmarshal::Error),
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    // Boxed: these are large, and every step of a build passes errors up.
    #[error(transparent)]
    Yaml(Box<serde_saphyr::Error>),
    #[error(transparent)]
    Schema(Box<SchemaError>),
    #[error(transparent)]
    StrategicMerge(Box<MergeError>),
    #[error(transparent)]
    JsonPatch(Box<JsonPatchError>),
    #[error(transparent)]
    KyamlMerge(Box<super::kyaml_merge::Error>),

    // Name references.
    #[error("updating name reference in '{path}' field of '{referrer}': {source}")]
    NameReference { path: String, referrer: String, source: Box<Error> },
    #[error("found multiple possible referrals: {ids}\n{details}")]
    ManyReferrals { ids: String, details: String },
    #[error("Invalid Input: namespace is blank for resource \"{0}\"\n")]
    BlankNamespace(String),

    // Reading the kustomization and the files it names.
    #[error("Found multiple kustomization files under: {}\n", .0.display())]
    MultipleKustomizations(PathBuf),
    #[error("Failed to read kustomization file under {}:\n{}", dir.display(), problems.join("\n"))]
    KustomizationFields { dir: PathBuf, problems: Vec<String> },
    #[error("cycle detected: {}", .0.join(" -> "))]
    Cycle(Vec<String>),
    #[error(
        "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
        .0.display()
    )]
    NoKustomization(PathBuf),
    #[error("not UTF-8 text")]
    KustomizationNotUtf8,
    #[error("'{0}' is not UTF-8 text")]
    NotUtf8(String),
    #[error("{what}: cannot fetch it: {source}")]
    Fetch { what: String, source: io::Error },
    #[error(transparent)]
    Fetching(#[from] FetchError),
    #[error("cannot read '{entry}': {source}")]
    CannotFetch { entry: String, source: FetchError },
    #[error("URL is a git repository")]
    UrlIsGitRepository,
    /// A repository that could not be fetched, in the words of kustomize's git runner.
    #[error(transparent)]
    Clone(io::Error),
    #[error("'{}' refers to file '{file}'; expecting directory", path.display())]
    RepoPathIsFile { path: PathBuf, file: String },
    #[error("'{}' must resolve to a file", .0.display())]
    MustResolveToAFile(PathBuf),
    /// A path that does not exist, as Go's `filepath.EvalSymlinks` reports it.
    #[error("evalsymlink failure on '{}' : lstat {}: {reason}", path.display(), missing.display())]
    EvalSymlink { path: PathBuf, missing: PathBuf, reason: &'static str },
    #[error("must build at directory: not a valid directory: {0}")]
    NotAValidDirectory(Box<Error>),
    #[error("must build at directory: '{}': file is not directory", .0.display())]
    FileIsNotDirectory(PathBuf),
    #[error("new root '{0}' cannot be absolute")]
    AbsoluteRoot(String),
    #[error("read {}: is a directory", .0.display())]
    IsADirectory(PathBuf),
    #[error("open {}: no such file or directory", .0.display())]
    NoSuchFile(PathBuf),
    /// A resource file that is not YAML, in kyaml's words (the parser's message is ours).
    #[error("MalformedYAMLError: yaml: {message} in File: {file}")]
    MalformedYaml { message: String, file: String },
    #[error("security; file '{}' is not in or below '{}'", path.display(), dir.display())]
    OutsideRoot { path: PathBuf, dir: PathBuf },
    #[error("cannot read '{entry}': {source}")]
    CannotRead { entry: String, source: io::Error },
    #[error("expected kind 'Component' for path '{}' but got '{kind}'", path.display())]
    NotAComponent { path: PathBuf, kind: String },
    #[error("expected kind != 'Component' for path '{}'", .0.display())]
    ComponentAsResource(PathBuf),
    #[error("builtin version and custom schema provided, cannot use both")]
    BuiltinAndCustomSchema,
    #[error("the specified OpenAPI version is not built in")]
    UnknownOpenApiVersion,
    #[error("the definitions are not a map of type names")]
    DefinitionsNotAMap,
    #[error(transparent)]
    ConfigurationJson(unmarshal::Error),

    // The resource map.
    #[error("may not add resource with an already registered id: {0}")]
    AlreadyRegistered(String),

    // Field-spec tables.
    #[error("failed to merge {table} fieldSpec: {source}")]
    MergeTable { table: &'static str, source: Conflict },
    #[error("failed to merge fieldSpec: {0}")]
    MergeCrdFieldSpec(Conflict),
    #[error("failed to merge labels: {0}")]
    MergeLabels(Conflict),

    // Generators.
    #[error("invalid literal source {0}, expected key=value")]
    InvalidLiteral(String),
    #[error("env file '{0}' is not UTF-8 text")]
    EnvFileNotUtf8(String),
    #[error("configmap {name} illegally repeats the key `{key}`")]
    RepeatedKey { name: String, key: String },
    #[error("merging from generator: id {0} does not exist; cannot merge or replace")]
    GeneratedIdMissing(String),
    #[error(
        "merging from generator: id {id} exists; can not use behavior: '{behavior}', behavior must be merge or replace"
    )]
    GeneratedIdExists { id: String, behavior: &'static str },

    // Plugins.
    #[error("loading generator plugins: failed to load generator: {0}")]
    LoadingGenerator(Box<Error>),
    #[error("external plugins disabled; unable to load external plugin '{0}'")]
    ExternalPlugin(String),
    #[error(
        "plugin {id} with mount path '{path}' is not permitted; mount paths must be {rule} the current kustomization directory"
    )]
    FunctionMount { id: String, path: String, rule: &'static str },
    #[error("plugin {0}: kubeupd's kustomize runs no plugins but kustomize's built-in ones")]
    PluginNotRun(String),
    #[error("plugin {id} not a {wanted}")]
    WrongRole { id: String, wanted: &'static str },
    #[error(
        "NamespaceTransformer: only the default unsetOnly and setRoleBindingSubjects are supported by kubeupd's kustomize"
    )]
    NamespaceTransformerOptions,
    #[error("plugin {id} fails configuration: {source}")]
    PluginConfiguration { id: String, source: unmarshal::Error },
    #[error("plugin {id} fails configuration: unmarshalling NamespaceTransformer config: {source}")]
    NamespaceTransformerConfiguration { id: String, source: unmarshal::Error },
    #[error("plugin {0} fails configuration: must specify the target name")]
    PluginWithoutTargetName(String),
    #[error(
        "replacement target {0:?}: kubeupd's kustomize cannot yet write back a YAML document held in a string that has comments, anchors, aliases or tags"
    )]
    StructuredYamlNotKept(String),
    #[error("cloud provider {0} not supported yet")]
    CloudNotSupported(String),
    #[error("unable to load builtin {0}.builtin.[noGrp]")]
    UnknownBuiltin(String),
    #[error("validator shouldn't modify the resource map: nodes unequal: {0}")]
    ValidatorChanged(String),

    // Helm.
    #[error("trouble configuring builtin HelmChartInflationGenerator with config: `\n{config}`: {problem}")]
    HelmChart { config: String, problem: Box<Error> },
    #[error("must specify --enable-helm")]
    HelmNotEnabled,
    #[error("chart name cannot be empty")]
    ChartNameEmpty,
    #[error("could not load additionalValuesFile: {0}")]
    AdditionalValuesFile(Box<Error>),
    #[error("valuesMerge must be one of [{0}]")]
    ValuesMerge(String),
    #[error("the field 'helmCharts' is not supported by kubeupd's kustomize: it does not run helm")]
    HelmNotRun,
    #[error(
        "unable to run: '{command} version --short' with env=[HELM_CONFIG_HOME={} HELM_CACHE_HOME={} \
         HELM_DATA_HOME={}] (is '{command}' installed?): {reason}",
        home.display(),
        home.join(".cache").display(),
        home.join(".data").display()
    )]
    HelmNotInstalled { command: String, home: PathBuf, reason: String },

    // The built-in transformers.
    #[error("trouble configuring builtin PatchJson6902Transformer with config: `\n{0}`: must specify the target name")]
    Json6902WithoutTargetName(String),
    #[error("a JSON 6902 patch in 'patches' needs a target")]
    Json6902WithoutTarget,
    #[error("patch appears to be empty; files=[{}], Patch=", .0.join(" "))]
    EmptyPatches(Vec<String>),
    #[error("a patch needs exactly one of 'path' and 'patch'")]
    PathAndPatch,
    /// kustomize's search for the one resource with a strategic merge patch's id.
    #[error("{} matches for Id {id}; failed to find unique target for patch {id}", if *.many { "multiple" } else { "no" })]
    PatchTargetById { id: String, many: bool },
    /// The same, for a patch of `patches`, which says which patch first.
    #[error("no resource matches strategic merge patch \"{id}\": {source}")]
    NoPatchTarget { id: String, source: Box<Error> },
    #[error("invalid JSON 6902 patch: {0}")]
    InvalidJson6902(Box<JsonPatchError>),
    /// A JSON 6902 operation whose path evanphx/json-patch v4 cannot follow, in its words.
    #[error("{0}")]
    Json6902Path(String),
    #[error("resource with name {name} does not match a config with the following GVK [{gvks}]")]
    ReplicasMatchNothing { name: String, gvks: String },
    #[error("namespace transformation produces ID conflict: [{0}]")]
    NamespaceConflict(String),
    #[error("must specify at least one target")]
    ValueAddWithoutTarget,
    #[error("fieldPath cannot be empty")]
    ValueAddEmptyFieldPath,
    #[error("value of FilePathPosition ({0}) cannot be negative")]
    NegativeFilePathPosition(i64),
    #[error("wrong node kind on the way to {0}: expected a map")]
    ValueAddNotAMap(String),
    #[error("wrong node kind at {0}: expected a scalar")]
    ValueAddNotAScalar(String),
    #[error("error parsing regexp: {code}: `{fragment}`")]
    Regexp { code: &'static str, fragment: String },

    // Field paths (kyaml's PathGetter).
    #[error("list path element must contain fieldName=fieldValue for element to match")]
    ListSelectorWithoutEquals,
    #[error("array index {0} cannot be negative")]
    NegativeIndex(i64),
    #[error("wildcard is not supported in PathGetter")]
    Wildcard,
    #[error("index {position} specified but only {count} elements found")]
    IndexOutOfRange { position: usize, count: usize },
    #[error("wrong node kind: expected {expected} but got {found}")]
    WrongNodeKind { expected: &'static str, found: &'static str },
    #[error("yaml: cannot decode {tag} `{text}` as a {target}")]
    CannotDecode { tag: &'static str, text: String, target: &'static str },

    // Sorting.
    #[error("the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'")]
    FifoWithLegacyOptions,
    #[error("the field 'sortOptions.order' must be one of [fifo, legacy]")]
    UnknownSortOrder(String),

    // Replacements and vars.
    #[error("cannot specify both path and inline replacement")]
    PathAndInlineReplacement,
    #[error("unsupported replacement type encountered within replacement path: {0}")]
    UnsupportedReplacementType(&'static str),
    #[error("replacements must specify a source and at least one target")]
    ReplacementWithoutSourceOrTarget,
    #[error("value and resource selectors are mutually exclusive")]
    ValueAndSource,
    #[error("target must specify resources to select")]
    TargetWithoutSelect,
    #[error("error creating target selector: {0}")]
    TargetSelector(Box<Error>),
    #[error("nothing selected by {0}")]
    NothingSelected(String),
    #[error("multiple matches for selector {0}")]
    ManySelected(String),
    #[error("fieldPath `{field_path}` is missing for replacement source {source_id}")]
    SourceFieldMissing { field_path: String, source_id: String },
    #[error("delimiter option can only be used with scalar nodes")]
    DelimiterOnNonScalar,
    #[error("options.index {index} is out of bounds for value {value}")]
    IndexOutOfBounds { index: i64, value: String },
    #[error("unable to find field {0:?} in replacement target")]
    TargetFieldNotFound(String),
    #[error("unable to find or create field {0:?} in replacement target")]
    TargetFieldNotCreated(String),
    #[error("var '{0}' already encountered")]
    VarRedeclared(String),
    #[error("found {count} resId matches for var {var} (unable to disambiguate)")]
    AmbiguousVar { count: usize, var: String },
    #[error("var '{0}' cannot be mapped to a field in the set of known resources")]
    UnmappedVar(String),
    #[error("field specified in var '{0}' not found in corresponding resource")]
    VarFieldMissing(String),
}

/// `From` for the errors kept in a box.
macro_rules! from_boxed {
    ($($variant:ident($source:ty)),*) => {$(
        impl From<$source> for Error {
            fn from(source: $source) -> Self {
                Error::$variant(Box::new(source))
            }
        }
    )*};
}

from_boxed!(
    Yaml(serde_saphyr::Error),
    Schema(SchemaError),
    StrategicMerge(MergeError),
    JsonPatch(JsonPatchError),
    KyamlMerge(super::kyaml_merge::Error)
);

/// Two field specs that kustomize counts as one but that disagree on `create`.
#[derive(Debug, thiserror::Error)]
#[error("conflicting fieldspecs")]
pub struct Conflict;

/// A build that failed, with the warnings kustomize gave before it failed (kubectl prints them
/// before the error).
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct Failure {
    pub error: Error,
    pub warnings: Vec<String>,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure { error, warnings: Vec::new() }
    }
}
