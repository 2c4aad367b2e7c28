//! `kubeupd delete`: delete the objects named, the objects of `-f` files, or the objects of
//! types chosen by `-l` or `--all`, then wait until they are gone, as kubectl does. A delete
//! touches only what the user named: named objects are deleted by name, and selected ones are
//! listed first and deleted one by one.

use std::time::Duration;

use clap::Args;
use futures::StreamExt as _;
use futures::stream::FuturesOrdered;

use super::args::{DeletionArgs, DryRunArg, RawArg, SelectionArgs, TargetArgs};
use super::visit;
use super::{Error, GlobalArgs, Result};
use crate::apply::{DryRun, lost};
use crate::client::{self, Cluster, DeleteParams};
use crate::resource::{ObjectRef, Resolved};
use crate::wait::{self, Condition, Outcome, Target};

/// Options of `kubeupd delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub selection: SelectionArgs,
    /// Treat objects that are not there as deleted (always so with -l or --all).
    #[arg(long)]
    pub ignore_not_found: bool,
    /// Wait until the objects are gone (finalizers done) before returning.
    #[arg(long, default_value_t = true)]
    pub wait: bool,
    #[command(flatten)]
    pub deletion: DeletionArgs,
    /// End the objects at once (a grace period of 1 second).
    #[arg(long)]
    pub now: bool,
    /// With --grace-period=0: remove the objects from the API at once, without waiting for them to end.
    #[arg(long)]
    pub force: bool,
    /// How long to wait for the objects to go; 0 waits a week.
    #[arg(long, value_name = "DURATION", default_value = "0", value_parser = super::pflag::duration, allow_hyphen_values = true)]
    pub timeout: Duration,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    /// `name`: print `TYPE/NAME` per object deleted.
    #[arg(short = 'o', long, value_name = "FORMAT")]
    pub output: Option<String>,
    /// List the objects and delete them only if the answer (on stdin) is `y`.
    #[arg(short = 'i', long)]
    pub interactive: bool,
    #[command(flatten)]
    pub raw: RawArg,
}

/// The checked options.
#[derive(Debug)]
struct Options {
    params: DeleteParams,
    ignore_not_found: bool,
    names_only: bool,
    /// The word for each object: `deleted`, or `force deleted`.
    operation: &'static str,
}

/// What kubectl waits at most for a delete without --timeout.
const A_WEEK: Duration = Duration::from_secs(168 * 3600);

/// Validates the options as kubectl does; nothing is sent before this succeeds.
fn options(args: &DeleteArgs) -> Result<Options> {
    let names_only = match args.output.as_deref() {
        None | Some("") => false,
        Some("name") => true,
        Some(other) => {
            return Err(Error::msg(format!("unexpected -o output mode: {other}. We only support '-o name'")));
        }
    };
    if args.selection.all && args.selection.selector.is_some() {
        return Err(Error::msg("setting 'all' parameter but found a non empty selector. "));
    }
    // kubectl's delete hands --all to its builder as a selector of everything: objects named
    // beside it are refused in the builder's words, as beside -l.
    if args.selection.all {
        let targets = &args.targets.targets;
        if targets.iter().any(|arg| arg.contains('/')) {
            return Err(Error::msg("selectors and the all flag cannot be used when passing resource/name arguments"));
        }
        if targets.len() > 1 {
            return Err(Error::msg("name cannot be provided when a selector is specified"));
        }
    }
    let (DeleteParams { propagation, .. }, warning) = args.deletion.options()?;
    if let Some(warning) = warning {
        eprintln!("{warning}");
    }
    let mut grace_period = args.deletion.grace_period;
    if args.now {
        if grace_period != -1 {
            return Err(Error::msg("--now and --grace-period cannot be specified together"));
        }
        grace_period = 1;
    }
    // kubectl turns --grace-period=0 without --force into 1, and --force alone into 0.
    if grace_period == 0 && !args.force {
        grace_period = 1;
    }
    if args.force && grace_period < 0 {
        grace_period = 0;
    }
    if args.raw.path.is_none() {
        args.targets.require_some()?;
    }
    let force = args.force && grace_period == 0;
    Ok(Options {
        params: DeleteParams {
            grace_period: (grace_period >= 0).then_some(grace_period),
            propagation,
            dry_run: args.dry_run.mode() == DryRun::Server,
        },
        ignore_not_found: args.ignore_not_found || args.selection.by_type(),
        names_only,
        operation: if force { "force deleted" } else { "deleted" },
    })
}

/// One object to delete, and the file it came from (named in errors).
struct Doomed {
    target: ObjectRef,
    file: Option<String>,
}

/// `delete --raw PATH [-f FILE]`, checked as kubectl checks it: the file's bytes (or none) sent
/// with a DELETE to PATH, the answer printed as it came.
async fn delete_raw(args: &DeleteArgs, path: &str, global: &GlobalArgs) -> Result {
    let files = &args.targets.files;
    if args.interactive {
        return Err(Error::msg("--interactive can not be used with --raw"));
    }
    if files.filenames.len() > 1 {
        return Err(Error::msg("--raw can only use a single local file or stdin"));
    }
    if files.filenames.first().is_some_and(|file| {
        let file = file.to_string_lossy();
        file.starts_with("http://") || file.starts_with("https://")
    }) {
        return Err(Error::msg("--raw cannot read from a url"));
    }
    if files.recursive {
        return Err(Error::msg("--raw and --recursive are mutually exclusive"));
    }
    if args.output.as_deref().is_some_and(|output| !output.is_empty()) {
        return Err(Error::msg("--raw and --output are mutually exclusive"));
    }
    if !path.starts_with('/') && !path.contains("://") {
        return Err(Error::msg(format!("--raw must be a valid URL path: parse {path:?}: invalid URI for request")));
    }
    let body = match files.filenames.first() {
        None => Vec::new(),
        Some(file) if file.as_os_str() == "-" => {
            let mut body = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut body).map_err(|err| Error::Other(err.into()))?;
            body
        }
        Some(file) => std::fs::read(file).map_err(|err| {
            let reason = crate::gocompat::os::error_text(&err);
            Error::msg(format!("open {}: {reason}", file.display()))
        })?,
    };
    let cluster = global.connect().await?;
    let answer = cluster.raw(http::Method::DELETE, path, Some(body)).await?;
    super::write_stdout(&String::from_utf8_lossy(&answer))
}

/// `--interactive`: kubectl's list of the objects and question; whether the answer (kubectl 1.37:
/// the first line on stdin, without its surrounding blanks) is `y`.
fn confirmed(doomed: &[Doomed]) -> Result<bool> {
    let mut question = format!("You are about to delete the following {} resource(s):\n", doomed.len());
    for object in doomed {
        question.push_str(&format!("{}/{}\n", object.target.rt.group_kind_lower(), object.target.name));
    }
    question.push_str("Do you want to continue? (y/N): ");
    super::write_stdout(&question)?;
    std::io::Write::flush(&mut std::io::stdout()).map_err(|err| Error::Other(err.into()))?;
    let mut answer = String::new();
    // A line that cannot be read is no answer, as for kubectl: nothing is deleted.
    let _ = std::io::BufRead::read_line(&mut std::io::stdin().lock(), &mut answer);
    Ok(answer.trim().eq_ignore_ascii_case("y"))
}

/// Runs `kubeupd delete`.
pub async fn run(args: DeleteArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    if let Some(path) = &args.raw.path {
        return delete_raw(&args, path, global).await;
    }
    if options.operation == "force deleted" {
        eprintln!(
            "Warning: Immediate deletion does not wait for confirmation that the running resource has been \
             terminated. The resource may continue to run on the cluster indefinitely."
        );
    }
    let cluster = global.connect().await?;
    let (resolved, _) = visit::resolve(&cluster, global, "delete", &args.targets, &args.selection).await?;
    let mut errors = Vec::new();
    let mut doomed = Vec::new();
    let selectors = visit::selectors(&args.selection);
    for item in resolved {
        match item {
            Resolved::List { rt, namespace } => match visit::list(&cluster, &rt, namespace.as_deref(), selectors).await
            {
                Ok(objects) => {
                    doomed.extend(objects.into_iter().map(|object| Doomed { target: object.target, file: None }))
                }
                Err(err) => errors.push(err),
            },
            Resolved::Object(target) => doomed.push(Doomed { target, file: None }),
            Resolved::Manifest(manifest) => {
                doomed.push(Doomed { target: manifest.object, file: Some(manifest.source.file) })
            }
        }
    }
    if doomed.is_empty() && errors.is_empty() {
        return super::write_stdout("No resources found\n");
    }
    if args.interactive {
        // kubectl asks only when every object could be listed.
        if !errors.is_empty() {
            return Err(errors.remove(0));
        }
        if !confirmed(&doomed)? {
            return super::write_stdout("deletion is cancelled\n");
        }
    }
    // kubectl warns once when `-n` was given and a cluster-scoped object is deleted anyway (one of
    // a file's or a kustomization's).
    if global.namespace.is_some()
        && !args.selection.all_namespaces
        && doomed.iter().any(|object| !object.target.rt.namespaced)
    {
        eprintln!("Warning: deleting cluster-scoped resources, not scoped to the provided namespace");
    }
    // All at once, each line printed in order as soon as its delete is done: as kubectl, the
    // lines come before the wait, so a held object shows that its delete went through.
    let mut deletes: FuturesOrdered<_> =
        doomed.into_iter().map(|object| delete_one(&cluster, &options, &args, object)).collect();
    let mut gone = Vec::new();
    while let Some(delete) = deletes.next().await {
        match delete {
            Ok(Some((line, target))) => {
                super::write_stdout(&line)?;
                gone.extend(target);
            }
            Ok(None) => {}
            Err(err) => errors.push(err),
        }
    }
    // As kubectl, a run with failed deletes reports them without waiting for the others.
    if errors.is_empty() && args.wait && args.dry_run.mode() == DryRun::None && !gone.is_empty() {
        errors.extend(wait_until_gone(&cluster, gone, args.timeout).await);
    }
    super::print_visited(vec![Err(errors)])
}

/// Deletes one object (unless a client dry run); returns kubectl's line for it and, when it is
/// to be waited for, the object with its UID. `None`: not there, and that is fine.
async fn delete_one(
    cluster: &Cluster,
    options: &Options,
    args: &DeleteArgs,
    object: Doomed,
) -> Result<Option<(String, Option<Target>)>> {
    let target = object.target;
    let line = if options.names_only {
        format!("{}\n", target.display_name())
    } else {
        deleted_line(&target, options.operation, args.dry_run.suffix())
    };
    if args.dry_run.mode() == DryRun::Client {
        return Ok(Some((line, None)));
    }
    match cluster.delete_with(&target.rt, target.namespace.as_deref(), &target.name, &options.params).await {
        Ok(answer) => {
            // The server answers with the object while finalizers or a grace period hold it, and
            // with a Status naming its UID when it went at once.
            let uid =
                answer["metadata"]["uid"].as_str().or_else(|| answer["details"]["uid"].as_str()).map(String::from);
            Ok(Some((line, Some(Target::deleted(target, uid)))))
        }
        Err(client::Error::NotFound(_)) if options.ignore_not_found => Ok(None),
        Err(err) if err.is_transport() && !options.params.dry_run => {
            Err(visit::write_failed(cluster, &target, None, err, lost::deleted(None)).await)
        }
        Err(err) => Err(match object.file {
            Some(file) => err.in_context(&format!("error when deleting {file:?}")).into(),
            None => err.into(),
        }),
    }
}

/// kubectl 1.37's line for a deleted object: `configmap "a" deleted from ns namespace (dry run)`;
/// a cluster-scoped object is named without a namespace.
pub(super) fn deleted_line(target: &ObjectRef, operation: &str, suffix: &str) -> String {
    let kind = target.rt.group_kind_lower();
    match &target.namespace {
        Some(namespace) => format!("{kind} {:?} {operation} from {namespace} namespace{suffix}\n", target.name),
        None => format!("{kind} {:?} {operation}{suffix}\n", target.name),
    }
}

/// Waits until every deleted object is gone, on the watch engine; kubectl's words for those that
/// are still there when the time is up.
async fn wait_until_gone(cluster: &Cluster, gone: Vec<Target>, timeout: Duration) -> Vec<Error> {
    let timeout = if timeout.is_zero() { A_WEEK } else { timeout };
    let names: Vec<String> =
        gone.iter().map(|target| format!("{}/{}", target.object.rt.resource, target.object.name)).collect();
    let outcomes = wait::wait(cluster, gone, &Condition::Deleted, timeout, |_, _| {}).await;
    outcomes
        .into_iter()
        .zip(names)
        .filter_map(|(outcome, name)| match outcome {
            Outcome::Met { .. } | Outcome::Error(client::Error::NotFound(_)) => None,
            Outcome::Error(err) => Some(err.into()),
            Outcome::NotMet(_) | Outcome::Failed(_) | Outcome::FailedOn(_) => {
                Some(Error::msg(format!("timed out waiting for the condition on {name}")))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Propagation;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "delete"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Delete(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn grace_periods_and_cascades_are_read_as_kubectl_reads_them() {
        let options = parse(&["cm", "x"]).unwrap();
        assert_eq!(
            options.params,
            DeleteParams { grace_period: None, propagation: Some(Propagation::Background), dry_run: false }
        );
        assert_eq!(options.operation, "deleted");
        assert_eq!(parse(&["cm", "x", "--now"]).unwrap().params.grace_period, Some(1));
        assert_eq!(parse(&["cm", "x", "--grace-period=0"]).unwrap().params.grace_period, Some(1));
        let forced = parse(&["cm", "x", "--force"]).unwrap();
        assert_eq!((forced.params.grace_period, forced.operation), (Some(0), "force deleted"));
        assert_eq!(parse(&["cm", "x", "--cascade=orphan"]).unwrap().params.propagation, Some(Propagation::Orphan));
        assert_eq!(parse(&["cm", "x", "--cascade"]).unwrap().params.propagation, Some(Propagation::Background));
        assert!(parse(&["cm", "--all"]).unwrap().ignore_not_found);
        for (line, expected) in [
            (
                &["cm", "x", "--cascade=bogus"][..],
                "error: invalid cascade value (bogus). Must be \"background\", \"foreground\", or \"orphan\"",
            ),
            (&["cm", "x", "--now", "--grace-period=3"], "error: --now and --grace-period cannot be specified together"),
            (&["cm", "x", "-o", "yaml"], "error: unexpected -o output mode: yaml. We only support '-o name'"),
            (&["cm", "--all", "-l", "a=b"], "error: setting 'all' parameter but found a non empty selector. "),
            (&["cm", "x", "--all"], "error: name cannot be provided when a selector is specified"),
            (
                &["cm/x", "--all"],
                "error: selectors and the all flag cannot be used when passing resource/name arguments",
            ),
        ] {
            assert_eq!(parse(line).unwrap_err().line(), expected, "{line:?}");
        }
    }
}
