//! `kubeupd set`: kubectl's setters (`image`, `env`, `resources`, `serviceaccount` of pod
//! templates; `selector` of Services, `subject` of role bindings). Each reads the objects (or the
//! `-f` files with `--local`), changes a copy through its [`Setter`], and sends the difference as
//! a strategic merge patch from the object as read, as kubectl sends it, with kubectl's manager
//! `kubectl-set`.

mod env;
mod image;
mod resources;
mod selector;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use futures::future::join_all;
use serde_json::Value;

use super::args::{DryRunArg, FieldManagerArg, LocalArg, OutputArgs, SelectionArgs, TargetArgs};
use super::visit::{self, Visited};
use super::{Error, GlobalArgs, Result};
use crate::apply::lost::WriteError;
use crate::apply::{self, DryRun, Landed};
use crate::change::metadata;
use crate::change::pod_template::NO_POD_TEMPLATE;
use crate::client::{Cluster, WriteOptions};
use crate::merge::KindPatcher;
use crate::output::{self, Printer, Verb};
use crate::resource::{Named, ObjectRef, Rules};

/// Options of `kubeupd set`.
#[derive(Debug, Args)]
pub struct SetArgs {
    #[command(subcommand)]
    pub command: SetCommand,
}

/// The setters.
#[derive(Debug, Subcommand)]
pub enum SetCommand {
    /// Set the images of containers: CONTAINER=IMAGE, or *=IMAGE for every container.
    #[command(after_help = image::EXAMPLES)]
    Image(image::ImageArgs),
    /// Set, remove or list environment variables of containers: KEY=VALUE, KEY-, or - (stdin).
    #[command(after_help = env::EXAMPLES)]
    Env(env::EnvArgs),
    /// Set the resource limits and requests of containers.
    #[command(after_help = resources::EXAMPLES)]
    Resources(resources::ResourcesArgs),
    /// Set the service account of pod templates.
    #[command(visible_alias = "sa", after_help = resources::SERVICE_ACCOUNT_EXAMPLES)]
    Serviceaccount(resources::ServiceAccountArgs),
    /// Replace the selector of Services.
    #[command(after_help = selector::SELECTOR_EXAMPLES)]
    Selector(selector::SelectorArgs),
    /// Add users, groups or service accounts to RoleBindings and ClusterRoleBindings.
    #[command(after_help = selector::SUBJECT_EXAMPLES)]
    Subject(selector::SubjectArgs),
}

/// Runs `kubeupd set`.
pub async fn run(args: SetArgs, global: &GlobalArgs) -> Result {
    match args.command {
        SetCommand::Image(args) => image::run(args, global).await,
        SetCommand::Env(args) => env::run(args, global).await,
        SetCommand::Resources(args) => resources::run(args, global).await,
        SetCommand::Serviceaccount(args) => resources::run_service_account(args, global).await,
        SetCommand::Selector(args) => selector::run_selector(args, global).await,
        SetCommand::Subject(args) => selector::run_subject(args, global).await,
    }
}

/// What every setter takes besides its own values: the objects, `--local`, selection, dry run,
/// manager and printer.
#[derive(Debug, Args)]
pub struct CommonArgs {
    #[command(flatten)]
    pub local: LocalArg,
    #[command(flatten)]
    pub selection: SelectionArgs,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

impl CommonArgs {
    /// kubectl's checks of the shared flags.
    fn validate(&self) -> Result {
        self.local_without_server_dry_run()?;
        self.selection.validate()
    }

    /// kubectl's refusal of `--local` with `--dry-run=server`.
    fn local_without_server_dry_run(&self) -> Result {
        match self.local.local && self.dry_run.mode() == DryRun::Server {
            true => Err(Error::msg("cannot specify --local and --dry-run=server - did you mean --dry-run=client?")),
            false => Ok(()),
        }
    }

    /// kubectl's refusal of objects named by argument with `--local` (`set image`, `resources`,
    /// `selector`, `subject`; `set env` and `set serviceaccount` leave them aside).
    fn refuse_local_targets(&self, targets: &TargetArgs) -> Result {
        match self.local.local && !targets.targets.is_empty() {
            true => Err(Error::msg(LOCAL_TAKES_FILES)),
            false => Ok(()),
        }
    }

    /// The printer `-o` asks for, made in a setter's options step.
    fn printer(&self) -> Result<Option<Printer>> {
        Ok(self.output.printer(Verb::Write)?.cloned())
    }
}

/// kubectl's words (cli-runtime's `LocalResourceError`) for objects named by argument with
/// `--local`.
const LOCAL_TAKES_FILES: &str = "error: you must specify resources by --filename when --local is set.
Example resource specifications include:
   '-f rsrc.yaml'
   '--filename=rsrc.json'";

/// kubectl's checks that come after the objects are read, all reported together as kubectl
/// reports them (one after `error: `, several each on its own line).
fn refused(refusals: Vec<Error>) -> Result {
    match refusals.is_empty() {
        true => Ok(()),
        false => super::print_visited(vec![Err(refusals)]),
    }
}

/// Why an object cannot take a setter's change.
pub enum ObjectError {
    /// Its kind has no pod spec.
    NoPodTemplate,
    /// kubectl's words for this object.
    Other(String),
}

/// What a setter found while changing the objects, besides the changes.
#[derive(Default)]
pub struct Findings {
    /// Errors that do not stop the other objects.
    pub errors: Vec<Error>,
    /// kubectl's `Warning:` lines.
    pub warnings: Vec<String>,
}

/// One of kubectl's setters.
trait Setter {
    /// kubectl's words after the object's name: `image updated`.
    const DONE: &'static str;
    /// kubectl's words before the reason of a failed patch, separator included; empty: the
    /// server's error as it is.
    const FAILED: &'static str;
    /// Whether an object left as it was is sent all the same (kubectl's `set serviceaccount`).
    const SENDS_UNCHANGED: bool = false;
    /// Changes `object`'s copy.
    fn change(&self, object: &mut Value, findings: &mut Findings) -> std::result::Result<(), ObjectError>;
}

/// One object changed in memory, waiting to be sent.
struct Changed {
    target: Option<ObjectRef>,
    before: Value,
    after: Value,
}

/// The objects named, read from the server or (with `--local`) from the files alone; `verb`
/// names the command in messages. Each setter's options step has checked that `targets` names
/// some.
async fn objects(
    targets: &TargetArgs,
    common: &CommonArgs,
    global: &GlobalArgs,
    verb: &'static str,
) -> Result<(Option<Cluster>, Vec<(Option<ObjectRef>, Value)>)> {
    if common.local.local {
        return Ok((None, local_objects(targets, verb)?));
    }
    let cluster = global.connect().await?;
    let objects = server_objects(&cluster, targets, common, global).await?;
    Ok((Some(cluster), objects))
}

/// The objects of the files, as `--local` reads them: kubectl reads the files alone, objects
/// named otherwise were refused by the options step, or are left aside.
fn local_objects(targets: &TargetArgs, verb: &'static str) -> Result<Vec<(Option<ObjectRef>, Value)>> {
    let files = TargetArgs { targets: Vec::new(), files: targets.files.clone() };
    files.require_some()?;
    let rules = Rules { verb, types_alone: false, selector: false };
    Ok(files
        .named(rules)?
        .into_iter()
        .filter_map(|named| match named {
            Named::Manifest(object) => Some((None, object.object)),
            _ => None,
        })
        .collect())
}

/// The objects named, read from the server.
async fn server_objects(
    cluster: &Cluster,
    targets: &TargetArgs,
    common: &CommonArgs,
    global: &GlobalArgs,
) -> Result<Vec<(Option<ObjectRef>, Value)>> {
    let (resolved, single) = visit::resolve(cluster, global, "set", targets, &common.selection).await?;
    // kubectl reads every object first; one that cannot be read stops all.
    let (read, unreadable): (Vec<_>, Vec<_>) =
        visit::read(cluster, resolved, &common.selection, single).await.objects.into_iter().partition(Result::is_ok);
    if !unreadable.is_empty() {
        super::print_visited(
            unreadable.into_iter().map(|err| err.map(|_| String::new()).map_err(|err| vec![err])).collect(),
        )?;
    }
    Ok(read.into_iter().flatten().map(|Visited { target, live }| (Some(target), live)).collect())
}

/// Changes each object with `setter` and sends what changed; kubectl's lines (or the objects as
/// `printer`, made by the setter's options step, prints them), then its errors. With `record`,
/// the change cause is written into each object changed (`--record`).
async fn run_setter<S: Setter>(
    setter: &S,
    printer: Option<&Printer>,
    cluster: Option<Cluster>,
    objects: Vec<(Option<ObjectRef>, Value)>,
    common: &CommonArgs,
    record: Option<&str>,
) -> Result {
    let mut findings = Findings::default();
    let mut changed = Vec::new();
    for (target, before) in objects {
        let mut after = before.clone();
        let changing = setter.change(&mut after, &mut findings);
        if let (Ok(()), Some(cause)) = (&changing, record) {
            metadata::record_change_cause(&mut after, cause);
        }
        match changing {
            Ok(()) if after != before || S::SENDS_UNCHANGED => changed.push(Changed { target, before, after }),
            // An object the change leaves as it was is skipped without a word, as kubectl skips it.
            Ok(()) => {}
            Err(err) => findings.errors.push(object_error(target.as_ref(), &before, err)),
        }
    }
    for warning in &findings.warnings {
        eprintln!("Warning: {warning}");
    }
    let sends = changed.into_iter().map(|object| send::<S>(cluster.as_ref(), printer, common, object));
    let mut texts = Vec::new();
    for result in join_all(sends).await {
        match result {
            Ok(text) => texts.push(Ok(text)),
            Err(err) => findings.errors.push(err),
        }
    }
    texts.push(if findings.errors.is_empty() { Ok(String::new()) } else { Err(findings.errors) });
    super::print_visited(super::yaml_documents(printer, texts))
}

/// kubectl's words for an object that cannot take the change: `error: deployments/web REASON`,
/// with Go's type name after an object without a pod spec (`*v1.ConfigMap`;
/// `*unstructured.Unstructured` for custom resources). Objects of files are named by their kind,
/// as kubectl names them without a server. The message ends with a newline, as kubectl's does:
/// among several errors, it leaves an empty line.
fn object_error(target: Option<&ObjectRef>, object: &Value, err: ObjectError) -> Error {
    let kind = object["kind"].as_str().unwrap_or_default();
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let (resource, version) = match target {
        Some(target) => (target.rt.resource.clone(), target.rt.version.clone()),
        None => (kind.to_lowercase(), api_version.rsplit('/').next().unwrap_or_default().to_string()),
    };
    let reason = match err {
        ObjectError::Other(reason) => reason,
        ObjectError::NoPodTemplate if crate::schema::is_builtin(api_version, kind) => {
            format!("{NO_POD_TEMPLATE}: *{version}.{kind}")
        }
        ObjectError::NoPodTemplate => format!("{NO_POD_TEMPLATE}: *unstructured.Unstructured"),
    };
    Error::msg(format!("error: {resource}/{name} {reason}\n"))
}

/// Sends one object's change (unless local or a client dry run) and says what happened.
async fn send<S: Setter>(
    cluster: Option<&Cluster>,
    printer: Option<&Printer>,
    common: &CommonArgs,
    object: Changed,
) -> Result<String> {
    let shown = match (cluster, &object.target) {
        (Some(cluster), Some(target)) if common.dry_run.mode() != DryRun::Client => {
            let api_version = target.rt.api_version();
            let schema = cluster.patch_schema(&api_version, &target.rt.kind).await;
            let patch = KindPatcher::for_kind(schema.as_ref())
                .two_way(&object.before, &object.after)
                .map_err(|err| Error::Other(anyhow!(err)))?;
            let write = WriteOptions {
                dry_run: common.dry_run.mode() == DryRun::Server,
                field_manager: Some(common.field_manager.or("kubectl-set")),
                ..WriteOptions::default()
            };
            let landed = Landed::AsPatched(schema.as_ref().map(|schema| schema.node()));
            match apply::send_patch(cluster, target, &patch, &write, landed).await {
                Ok(answer) => answer,
                // A setter without words of its own reports the server's error as it is.
                Err(WriteError::Failed(cause)) if !S::FAILED.is_empty() => {
                    return Err(Error::msg(format!("{}{}", S::FAILED, visit::reason(&cause))));
                }
                Err(err) => return Err(visit::write_error(target, None, err)),
            }
        }
        _ => object.after,
    };
    match printer {
        Some(printer) => common.output.render(printer, &shown),
        None => Ok(format!("{} {}{}\n", output::object_name(&shown), S::DONE, common.dry_run.suffix())),
    }
}

/// The `set` command of a line (the words after `kubeupd set`), for the setters' tests of their
/// options step.
#[cfg(test)]
fn parsed(line: &[&str]) -> std::result::Result<SetCommand, Error> {
    let cli = crate::cli::parse(["kubeupd", "set"].iter().chain(line)).map_err(Error::msg)?;
    match cli.command {
        crate::cli::Command::Set(args) => Ok(args.command),
        _ => unreachable!("a `set` line"),
    }
}

/// kubectl's line for what an options step refused; a panic when it accepted the line.
#[cfg(test)]
fn refusal<T>(checked: Result<T>) -> String {
    match checked {
        Ok(_) => panic!("accepted"),
        Err(err) => err.line(),
    }
}
