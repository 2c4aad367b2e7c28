//! kubectl's `kubectl create` generators for workloads, access rules, services, ingresses,
//! policies, tokens, ConfigMaps and Secrets, and `kubectl run`'s pod: typed options in, the
//! object kubectl's generator would send out (as JSON, fields as kubectl's Go types write them,
//! empty structs included), or kubectl's words for what is wrong with the options. Pure: what
//! needs the server (discovery for `role`, the CronJob of `job --from`) is looked up by the caller
//! and handed in.

pub mod data;
pub mod network;
pub mod pod;
pub mod policy;
pub mod rbac;
pub mod token;
pub mod workload;

use serde_json::Value;

/// What kubectl refuses in a generator's options, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("cannot specify multiple --image options and command")]
    ImagesWithCommand,
    #[error("either --image or --from must be specified")]
    ImageOrFrom,
    #[error("cannot specify --from and command")]
    FromWithCommand,
    #[error("from must be an existing cronjob")]
    FromNotACronJob,
    /// `job --from` named an object of another kind; kubectl names its Go type.
    #[error("unknown object type *{version}.{kind}")]
    FromUnknownKind { version: String, kind: String },
    #[error("at least one verb must be specified")]
    NoVerb,
    #[error("at least one resource must be specified")]
    NoResource,
    #[error("one of resource or nonResourceURL must be specified")]
    NoResourceOrUrl,
    #[error("resource must be specified if apiGroup/subresource specified")]
    GroupWithoutResource,
    /// `use`, `bind`, `escalate` and `impersonate` apply to a few resources only.
    #[error("can not perform '{verb}' on '{resource}' in group '{group}'")]
    SpecialVerb { verb: String, resource: String, group: String },
    /// Discovery has no such resource; kubectl prints this one without `error: `.
    #[error("the server doesn't have a resource type {resource:?}{}", in_group(.group))]
    UnknownResource { resource: String, group: String },
    #[error("invalid verb: '{0}' for nonResourceURL")]
    NonResourceVerb(String),
    #[error("nonResourceURL should start with /")]
    NonResourceUrlSlash,
    #[error("nonResourceURL only supports wildcard matches when '*' is at the end")]
    NonResourceUrlWildcard,
    #[error("aggregation rule must be specified without nonResourceURLs, verbs, resources or resourceNames")]
    AggregationWithRules,
    #[error("exactly one of clusterrole or role must be specified")]
    RoleOrClusterRole,
    #[error("serviceaccount must be <namespace>:<name>")]
    ServiceAccountFormat,
    #[error("at least one tcp port specifier must be provided")]
    NoTcpPort,
    #[error("invalid service external name {0}")]
    ExternalName(String),
    /// A `--tcp` pair that does not read, in Go's and apimachinery's words.
    #[error("{0}")]
    ServicePort(String),
    #[error(
        "not enough information provided: every ingress has to either specify a default-backend (which catches all \
         traffic) or a list of rules (which catch specific paths)"
    )]
    IngressEmpty,
    #[error("rule {0} is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]")]
    IngressRule(String),
    #[error("annotation {0} is invalid and should be in format key=[value]")]
    IngressAnnotation(String),
    #[error("default-backend should be in format servicename:serviceport")]
    IngressDefaultBackend,
    #[error("name must be specified")]
    NoName,
    #[error("a selector must be specified")]
    NoSelector,
    #[error("one of min-available or max-unavailable must be specified")]
    NoBudget,
    #[error("min-available and max-unavailable cannot be both specified")]
    BothBudgets,
    /// `--min-available` or `--max-unavailable` is neither a count nor a percentage.
    #[error("invalid format specified for {0}")]
    BudgetFormat(&'static str),
    /// The selector of a budget cannot be a `LabelSelector` (`!=`), in kubectl's words.
    #[error("{0}")]
    Selector(String),
    #[error("Invalid argument syntax {0}, expected <resource>=<value>")]
    QuotaSyntax(String),
    #[error(transparent)]
    Quantity(#[from] crate::gocompat::quantity::QuantityError),
    #[error("invalid resource quota scope \"\"")]
    EmptyScope,
    #[error("service account name is required")]
    NoServiceAccount,
    #[error("--duration must be greater than or equal to 0")]
    NegativeDuration,
    #[error("--duration cannot be expressed in units less than seconds")]
    SubsecondDuration,
    #[error("--audience must not be an empty string")]
    EmptyAudience,
    #[error("--bound-object-name can only be set if --bound-object-kind is provided")]
    BoundNameWithoutKind,
    #[error("--bound-object-uid can only be set if --bound-object-kind is provided")]
    BoundUidWithoutKind,
    /// The kinds a token can be bound to, listed.
    #[error("supported --bound-object-kind values are {0}")]
    BoundKind(String),
    #[error("--bound-object-name is required if --bound-object-kind is provided")]
    BoundKindWithoutName,
    #[error("invalid literal source {0}, expected key=value")]
    LiteralSource(String),
    /// A key of a ConfigMap or Secret given twice; `map` is `Data` or `BinaryData`.
    #[error("cannot add key {key:?}, another key by that name already exists in {map} for {kind} {name:?}")]
    DuplicateKey { key: String, map: &'static str, kind: String, name: String },
    #[error(
        "{key:?} is not a valid key name for a {kind}: a valid config key must consist of alphanumeric characters, \
         '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is \
         '[-._a-zA-Z0-9]+')"
    )]
    DataKey { key: String, kind: String },
    /// A key of an env file that is no environment variable's name.
    #[error("{key:?} is not a valid key name: {reason}")]
    EnvKey { key: String, reason: String },
    #[error(
        "either --from-file or the combination of --docker-username, --docker-password and --docker-server is required"
    )]
    DockerLogin,
    /// The certificate and key of a TLS Secret, refused in Go's `tls.X509KeyPair`'s words.
    #[error("{0}")]
    KeyPair(String),
    /// `run --labels`: a pair without exactly one `=`.
    #[error("unexpected label spec: {0}")]
    LabelSpec(String),
    #[error("unexpected empty label key")]
    EmptyLabelKey,
    /// `run --annotations`: the pairs that do not read, listed.
    #[error("invalid annotations format: {0}")]
    AnnotationPairs(String),
    #[error("invalid env: {0}")]
    Env(String),
    #[error("invalid restart policy: {0}, valid values are: Always, OnFailure, Never")]
    RestartPolicy(String),
    #[error("invalid image pull policy: {0}, valid values are: Always, IfNotPresent, Never")]
    ImagePullPolicy(String),
}

fn in_group(group: &str) -> String {
    if group.is_empty() { String::new() } else { format!(" in group {group:?}") }
}

/// kubectl's words before the server's reason when it refuses to create the generated `object`,
/// e.g. `failed to create deployment: `; `None` where kubectl shows the server's error as it is
/// (roles and cluster roles).
pub fn creation_failure(object: &Value) -> Option<String> {
    Some(match object["kind"].as_str().unwrap_or_default() {
        "ConfigMap" => "failed to create configmap: ".into(),
        "Secret" => "failed to create secret ".into(),
        "ServiceAccount" => "failed to create serviceaccount: ".into(),
        "Deployment" => "failed to create deployment: ".into(),
        "Job" => "failed to create job: ".into(),
        "CronJob" => "failed to create cronjob: ".into(),
        "RoleBinding" => "failed to create rolebinding: ".into(),
        "ClusterRoleBinding" => "failed to create clusterrolebinding: ".into(),
        // kubectl names the Service's type: `failed to create NodePort service: `.
        "Service" => format!("failed to create {} service: ", object["spec"]["type"].as_str().unwrap_or_default()),
        "Ingress" => "failed to create ingress: ".into(),
        "PodDisruptionBudget" => "failed to create poddisruptionbudgets: ".into(),
        "PriorityClass" => "failed to create priorityclass: ".into(),
        "ResourceQuota" => "failed to create quota: ".into(),
        _ => return None,
    })
}

/// Whether kubectl's generator of `kind` heeds `--save-config`: `create service` takes the flag
/// but never reads it, so a Service is created without the last-applied annotation.
pub fn saves_config(kind: &str) -> bool {
    kind != "Service"
}

/// Whether objects of `kind`, among those the generators make, live outside namespaces (`-n`
/// then does not name one in the object).
pub fn cluster_scoped(kind: &str) -> bool {
    matches!(kind, "Namespace" | "ClusterRole" | "ClusterRoleBinding" | "PriorityClass")
}

/// `values` without repeats, first occurrences kept in order, as kubectl dedups flag values.
fn unique(values: &[String]) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(values.len());
    for value in values {
        if !kept.contains(value) {
            kept.push(value.clone());
        }
    }
    kept
}

/// A JSON array of strings.
fn strings(values: &[String]) -> Value {
    Value::from(values.to_vec())
}
