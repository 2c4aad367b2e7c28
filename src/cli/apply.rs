//! `kubeupd apply`: client-side three-way apply (the default) or server-side apply of every object
//! in the files. All documents are read and checked before the first write; namespaces and
//! CustomResourceDefinitions go first; the rest are applied with bounded concurrency; results are
//! reported in input order.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use clap::{ArgAction, Args};
use futures::stream::{self, StreamExt};
use serde_json::Value;

use super::apply_last_applied::LastAppliedCommand;
use super::apply_report::{Outcome, Report};
use super::options::DryRun;
use super::{GlobalArgs, Reported};
use crate::client::{
    Action, ApplyOptions, Cluster, ConnectOptions, ListScope, Live, MappingError, ResourceType, RetryPolicy,
    WriteOptions, last_applied,
};
use crate::manifest::{self, ManifestObject};
use crate::merge::PatchType;
use crate::output::OutputFormat;

/// From how many objects of one type in one namespace the live objects are listed at once.
const LIST_FROM: usize = 3;

/// The most an object's annotations may hold, all together (the API server's limit).
const ANNOTATIONS_LIMIT: usize = 256 * 1024;

/// The field manager of client-side applies: kubectl's, so that later server-side applies by
/// either tool recognise the fields these applies set.
pub(super) const CLIENT_SIDE_MANAGER: &str = "kubectl-client-side-apply";

/// The default field manager of server-side applies.
pub(super) const SERVER_SIDE_MANAGER: &str = "kubeupd";

/// Options of `kubeupd apply`, or one of its subcommands.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ApplyArgs {
    #[command(subcommand)]
    pub command: Option<LastAppliedCommand>,
    #[command(flatten)]
    pub flags: ApplyFlags,
}

/// Options of applying files.
#[derive(Debug, Args)]
pub struct ApplyFlags {
    /// Files, directories or `-` (stdin) holding the configuration.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub filenames: Vec<PathBuf>,
    /// Read directories recursively.
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// Let the server merge the configuration (server-side apply).
    #[arg(long)]
    pub server_side: bool,
    /// With --server-side: take over fields that other managers own.
    #[arg(long)]
    pub force_conflicts: bool,
    /// The manager recorded for the fields this apply sets.
    #[arg(long, value_name = "NAME")]
    pub field_manager: Option<String>,
    /// Overwrite fields that others changed since the last apply; with false, such changes are conflicts.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub overwrite: bool,
    /// When an object cannot be patched, delete it and create it again.
    #[arg(long)]
    pub force: bool,
    /// Only compute (client) or only let the server check (server) what would be applied.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = DryRun::None, num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    pub dry_run: DryRun,
    /// Print the applied objects as json or yaml, or their names.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
    /// Print the patch sent (or that would be sent) for each object.
    #[arg(long)]
    pub show_patch: bool,
    /// How many objects to apply at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub concurrency: usize,
}

/// One object to apply, checked.
pub(super) struct Planned {
    /// Its position in the input.
    pub index: usize,
    pub location: String,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
    /// The configuration, its namespace filled in.
    pub document: Value,
    /// `None` until the CustomResourceDefinition (in this input) that defines the kind is applied.
    pub rt: Option<ResourceType>,
}

impl Planned {
    /// `deployment.apps/web`, as kubectl names objects in its messages.
    pub fn display_name(&self) -> String {
        let kind = match &self.rt {
            Some(rt) => rt.group_kind_lower(),
            None => match group_of(&self.api_version) {
                "" => self.kind.to_lowercase(),
                group => format!("{}.{group}", self.kind.to_lowercase()),
            },
        };
        format!("{kind}/{}", self.name)
    }

    /// Namespaces and CustomResourceDefinitions are applied before everything else.
    fn goes_first(&self) -> bool {
        (self.api_version == "v1" && self.kind == "Namespace")
            || (group_of(&self.api_version) == "apiextensions.k8s.io" && self.kind == "CustomResourceDefinition")
    }

    /// What makes two documents the same object: they are applied one after the other.
    fn identity(&self) -> Identity {
        (group_of(&self.api_version).to_string(), self.kind.clone(), self.namespace.clone(), self.name.clone())
    }
}

/// Group, kind, namespace and name of an object.
type Identity = (String, String, Option<String>, String);

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

/// Applies the files, or runs `view-last-applied` / `set-last-applied`.
pub async fn run(args: ApplyArgs, global: &GlobalArgs) -> anyhow::Result<()> {
    if let Some(command) = args.command {
        return super::apply_last_applied::run(command, global).await;
    }
    let flags = args.flags;
    validate(&flags)?;
    let cluster = Cluster::connect(&ConnectOptions::from(global)).await?;
    let planned =
        plan(&flags.filenames, flags.recursive, flags.server_side, &cluster, global.namespace.as_deref()).await?;
    let mut report = Report::new(&planned, &flags);
    let (first, rest): (Vec<Planned>, Vec<Planned>) = planned.into_iter().partition(Planned::goes_first);
    let crds: Vec<String> = first
        .iter()
        .filter(|planned| planned.kind == "CustomResourceDefinition")
        .map(|planned| planned.name.clone())
        .collect();
    execute(&cluster, &flags, first, &mut report).await;
    let mut rest = rest;
    if rest.iter().any(|planned| planned.rt.is_none()) {
        resolve_defined_kinds(&cluster, &flags, &crds, &mut rest, &mut report).await;
    }
    execute(&cluster, &flags, rest, &mut report).await;
    if report.finish() > 0 {
        return Err(Reported(1).into());
    }
    Ok(())
}

fn validate(flags: &ApplyFlags) -> anyhow::Result<()> {
    if flags.output == Some(OutputFormat::Wide) {
        bail!("--output wide is not supported by apply; use json, yaml or name");
    }
    if flags.force_conflicts && !flags.server_side {
        bail!("--force-conflicts only works with --server-side");
    }
    if flags.server_side && flags.dry_run == DryRun::Client {
        bail!("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)");
    }
    if flags.server_side && flags.force {
        bail!("--force cannot be used with --server-side");
    }
    if flags.concurrency == 0 {
        bail!("--concurrency must be at least 1");
    }
    Ok(())
}

/// Reads every document and checks it: known kind (or one defined by a CustomResourceDefinition
/// in the same input), namespace, and for client-side apply the annotation size. Any problem
/// stops everything before a write.
pub(super) async fn plan(
    filenames: &[PathBuf],
    recursive: bool,
    server_side: bool,
    cluster: &Cluster,
    namespace_flag: Option<&str>,
) -> anyhow::Result<Vec<Planned>> {
    let objects = manifest::read_paths(filenames, recursive)?;
    if objects.is_empty() {
        let names: Vec<String> = filenames.iter().map(|path| path.display().to_string()).collect();
        bail!("no objects passed to apply: {} holds none", names.join(", "));
    }
    let defined = kinds_defined_by_crds(&objects);
    let mut planned = Vec::with_capacity(objects.len());
    let mut errors = Vec::new();
    for (index, object) in objects.into_iter().enumerate() {
        let location = object.location();
        match plan_one(index, object, server_side, cluster, namespace_flag, &defined).await {
            Ok(one) => planned.push(one),
            Err(err) => errors.push(format!("error: {location}: {err:#}")),
        }
    }
    if !errors.is_empty() {
        for error in &errors {
            eprintln!("{error}");
        }
        if errors.len() > 1 {
            eprintln!("error: nothing was applied: {} of the objects cannot be applied", errors.len());
        }
        return Err(Reported(1).into());
    }
    Ok(planned)
}

async fn plan_one(
    index: usize,
    object: ManifestObject,
    server_side: bool,
    cluster: &Cluster,
    namespace_flag: Option<&str>,
    defined: &HashMap<(String, String), bool>,
) -> anyhow::Result<Planned> {
    let (api_version, kind, name) =
        (object.api_version().to_string(), object.kind().to_string(), object.name().to_string());
    let (rt, namespaced) = match cluster.resolve_kind(&api_version, &kind).await {
        Ok(rt) => {
            let namespaced = rt.namespaced;
            (Some(rt), namespaced)
        }
        Err(err) if err.downcast_ref::<MappingError>().is_some() => {
            match defined.get(&(group_of(&api_version).to_string(), kind.clone())) {
                Some(&namespaced) => (None, namespaced),
                None => bail!("resource mapping not found for {kind} {name:?}: {err}; ensure CRDs are installed first"),
            }
        }
        Err(err) => return Err(err),
    };
    let namespace = if namespaced {
        Some(match (object.namespace(), namespace_flag) {
            (Some(own), Some(flag)) if own != flag => bail!(
                "the namespace from the provided object {own:?} does not match the namespace {flag:?}. \
                 You must pass '--namespace={own}' to perform this operation."
            ),
            (Some(own), _) => own.to_string(),
            (None, _) => cluster.default_namespace().to_string(),
        })
    } else {
        None
    };
    let location = object.location();
    let mut document = object.object;
    if let Some(namespace) = &namespace {
        document["metadata"]["namespace"] = Value::String(namespace.clone());
    }
    if !server_side {
        check_annotation_size(&document)?;
    }
    Ok(Planned { index, location, api_version, kind, name, namespace, document, rt })
}

/// Kinds that CustomResourceDefinitions in the input define, with whether they are namespaced.
fn kinds_defined_by_crds(objects: &[ManifestObject]) -> HashMap<(String, String), bool> {
    objects
        .iter()
        .filter(|object| object.kind() == "CustomResourceDefinition")
        .filter_map(|crd| {
            let spec = &crd.object["spec"];
            let group = spec["group"].as_str()?.to_string();
            let kind = spec["names"]["kind"].as_str()?.to_string();
            Some(((group, kind), spec["scope"].as_str() != Some("Cluster")))
        })
        .collect()
}

/// The annotations, with the last-applied configuration added, must stay within the server's limit.
fn check_annotation_size(document: &Value) -> anyhow::Result<()> {
    let annotated = last_applied::with_annotation(document);
    let annotations = annotated["metadata"]["annotations"].as_object().into_iter().flatten();
    let total: usize = annotations.map(|(key, value)| key.len() + value.as_str().map_or(0, str::len)).sum();
    if total > ANNOTATIONS_LIMIT {
        let recorded = last_applied::configuration_text(document).len();
        bail!(
            "metadata.annotations: Too long: with the {recorded}-byte {} annotation the annotations take {total} bytes, \
             more than the {ANNOTATIONS_LIMIT} the server accepts; apply this object with --server-side, which does not need that annotation",
            last_applied::ANNOTATION
        );
    }
    Ok(())
}

/// Waits until the CustomResourceDefinitions just applied serve their kinds, then finds the
/// resource types of the objects of those kinds.
async fn resolve_defined_kinds(
    cluster: &Cluster,
    flags: &ApplyFlags,
    crds: &[String],
    objects: &mut Vec<Planned>,
    report: &mut Report,
) {
    if flags.dry_run == DryRun::None
        && let Ok(crd_type) = cluster.resolve_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition").await
    {
        for name in crds {
            wait_until_established(cluster, &crd_type, name).await;
        }
    }
    let mut resolved = Vec::with_capacity(objects.len());
    for mut planned in std::mem::take(objects) {
        if planned.rt.is_none() {
            match resolve_new_kind(cluster, &planned).await {
                Ok(rt) => planned.rt = Some(rt),
                Err(err) => {
                    let err = if flags.dry_run == DryRun::None {
                        err
                    } else {
                        anyhow::anyhow!(
                            "{err}: its CustomResourceDefinition is in this input, and a dry run does not create it"
                        )
                    };
                    report.record(planned.index, Err(err));
                    continue;
                }
            }
        }
        resolved.push(planned);
    }
    *objects = resolved;
}

/// The resource type of a kind whose CustomResourceDefinition was just applied: discovery is read
/// again, for a few seconds while the server starts serving it.
async fn resolve_new_kind(cluster: &Cluster, planned: &Planned) -> anyhow::Result<ResourceType> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        cluster.rediscover().await?;
        match cluster.resolve_kind(&planned.api_version, &planned.kind).await {
            Err(err) if err.downcast_ref::<MappingError>().is_some() && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            result => return result,
        }
    }
}

async fn wait_until_established(cluster: &Cluster, crd_type: &ResourceType, name: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while tokio::time::Instant::now() < deadline {
        if let Ok(crd) = cluster.get(crd_type, None, name).await {
            let conditions = crd["status"]["conditions"].as_array().into_iter().flatten();
            if conditions
                .into_iter()
                .any(|condition| condition["type"] == "Established" && condition["status"] == "True")
            {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tracing::warn!("CustomResourceDefinition {name} is not established after 30s");
}

/// Applies `objects`, several at once; documents of the same object one after the other.
async fn execute(cluster: &Cluster, flags: &ApplyFlags, objects: Vec<Planned>, report: &mut Report) {
    let mut live = if flags.server_side { HashMap::new() } else { list_live_objects(cluster, &objects).await };
    let mut groups: BTreeMap<Identity, Vec<(Planned, Live)>> = BTreeMap::new();
    for planned in objects {
        let group = groups.entry(planned.identity()).or_default();
        // A list shows the object as it was before this run: good for its first document only.
        let listed = live.get_mut(&(planned.rt.as_ref().map(ResourceType::group_resource), planned.namespace.clone()));
        let known = match listed {
            Some(listed) if group.is_empty() => listed.remove(&planned.name).map_or(Live::Absent, Live::Read),
            _ => Live::Unread,
        };
        group.push((planned, known));
    }
    let mut results = stream::iter(groups.into_values())
        .map(|group| async move {
            let mut results = Vec::with_capacity(group.len());
            for (planned, known) in group {
                results.push((planned.index, apply_one(cluster, flags, &planned, known).await));
            }
            results
        })
        .buffer_unordered(flags.concurrency);
    while let Some(group) = results.next().await {
        for (index, result) in group {
            report.record(index, result);
        }
    }
}

/// Objects of one type in one namespace, by name, as one list showed them.
type Listed = HashMap<(Option<String>, Option<String>), HashMap<String, Value>>;

/// Lists the live objects of every type and namespace that has several objects to apply: one
/// request instead of one read per object. Where a list fails, objects are read one by one.
async fn list_live_objects(cluster: &Cluster, objects: &[Planned]) -> Listed {
    let mut counts: HashMap<(String, Option<String>), (usize, &ResourceType)> = HashMap::new();
    for planned in objects {
        if let Some(rt) = &planned.rt {
            counts.entry((rt.group_resource(), planned.namespace.clone())).or_insert((0, rt)).0 += 1;
        }
    }
    let lists = counts.into_iter().filter(|(_, (count, _))| *count >= LIST_FROM).map(
        |((resource, namespace), (_, rt))| async move {
            let scope = match &namespace {
                Some(namespace) => ListScope::Namespace(namespace),
                None => ListScope::AllNamespaces,
            };
            let listed = cluster.list(rt, scope, None).await.ok().map(|list| {
                let items = list["items"].as_array().cloned().unwrap_or_default();
                items
                    .into_iter()
                    .filter_map(|mut item| {
                        // Items of a list leave out their apiVersion and kind.
                        item["apiVersion"] = Value::String(rt.api_version());
                        item["kind"] = Value::String(rt.kind.clone());
                        Some((item["metadata"]["name"].as_str()?.to_string(), item))
                    })
                    .collect::<HashMap<_, _>>()
            });
            ((Some(resource), namespace), listed)
        },
    );
    futures::future::join_all(lists).await.into_iter().filter_map(|(key, listed)| Some((key, listed?))).collect()
}

async fn apply_one(cluster: &Cluster, flags: &ApplyFlags, planned: &Planned, known: Live) -> anyhow::Result<Outcome> {
    let rt = planned.rt.as_ref().expect("kinds are resolved before objects are applied");
    let namespace = planned.namespace.as_deref();
    if flags.server_side {
        let write = WriteOptions {
            dry_run: flags.dry_run == DryRun::Server,
            field_manager: Some(flags.field_manager.clone().unwrap_or_else(|| SERVER_SIDE_MANAGER.to_string())),
            force: flags.force_conflicts,
            subresource: None,
        };
        let body = serde_json::to_vec(&planned.document)?;
        let object = cluster.patch(rt, namespace, &planned.name, PatchType::Apply, body, &write).await?;
        return Ok(Outcome::server_side(object, planned.document.clone()));
    }
    let options = ApplyOptions {
        overwrite: flags.overwrite,
        force: flags.force,
        client_dry_run: flags.dry_run == DryRun::Client,
        write: WriteOptions {
            dry_run: flags.dry_run == DryRun::Server,
            field_manager: Some(flags.field_manager.clone().unwrap_or_else(|| CLIENT_SIDE_MANAGER.to_string())),
            force: false,
            subresource: None,
        },
        retry: RetryPolicy::default(),
        record: true,
    };
    let applied = cluster.apply(rt, namespace, &planned.document, known, &options).await?;
    Ok(Outcome::client_side(applied, rt))
}

/// The action word kubectl prints for a client-side apply.
pub(super) fn action_word(action: Action) -> &'static str {
    match action {
        Action::Created => "created",
        Action::Configured => "configured",
        Action::Unchanged => "unchanged",
    }
}
