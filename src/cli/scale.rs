//! `kubeupd scale`: set the replica count of objects through their scale subresource, as kubectl
//! does: a JSON merge patch, or, with `--current-replicas` or `--resource-version`, a read, a check
//! and a PUT guarded by the version read. `--timeout` then waits for the replicas to run.

use anyhow::anyhow;
use clap::Args;
use serde_json::Value;

use super::args::{DryRunArg, OutputArgs, RecordArg, SelectionArgs, TargetArgs};
use super::visit::{self, Visited};
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, DryRun, Landed};
use crate::change::metadata::CHANGE_CAUSE;
use crate::change::scale::{self, Preconditions};
use crate::client::{Cluster, WriteOptions};
use crate::merge::Patch;
use crate::output::{self, Printer, Verb};

/// Options of `kubeupd scale`.
#[derive(Debug, Args)]
pub struct ScaleArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// The new number of replicas (required, at least 0).
    #[arg(long, value_name = "COUNT", allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub replicas: Option<i64>,
    /// Only scale if the current number of replicas is this (-1 or absent: no check).
    #[arg(long, value_name = "COUNT", default_value_t = -1, allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub current_replicas: i64,
    /// Only scale if this is the scale's current resourceVersion.
    #[arg(long, value_name = "VERSION")]
    pub resource_version: Option<String>,
    /// Wait this long for each object's replicas to be running (its scale's status); 0 waits not.
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = super::pflag::duration, allow_hyphen_values = true)]
    pub timeout: std::time::Duration,
    #[command(flatten)]
    pub selection: SelectionArgs,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub record: RecordArg,
}

/// The checked options.
struct Options {
    replicas: i64,
    preconditions: Preconditions,
    printer: Option<Printer>,
}

/// Validates the options; nothing is sent before this succeeds.
fn options(args: &ScaleArgs) -> Result<Options> {
    let replicas = match args.replicas {
        None => return Err(Error::msg("required flag(s) \"replicas\" not set")),
        Some(count) if count < 0 => {
            return Err(Error::msg(
                "The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
            ));
        }
        Some(count) => count,
    };
    args.selection.validate()?;
    args.targets.require_some()?;
    let preconditions = Preconditions {
        replicas: (args.current_replicas >= 0).then_some(args.current_replicas),
        resource_version: args.resource_version.clone().filter(|version| !version.is_empty()),
    };
    Ok(Options { replicas, preconditions, printer: args.output.printer(Verb::Write)?.cloned() })
}

/// Runs `kubeupd scale`. As in kubectl, objects that cannot be read are reported after the
/// others are scaled, and the first object that fails to scale stops the rest: its error alone
/// is reported.
pub async fn run(args: ScaleArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let (resolved, single) = visit::resolve(&cluster, global, "scale", &args.targets, &args.selection).await?;
    let visit = visit::read(&cluster, resolved, &args.selection, single).await;
    let (read, unreadable): (Vec<_>, Vec<_>) = visit.objects.into_iter().partition(Result::is_ok);
    if options.preconditions.resource_version.is_some() && read.len() > 1 {
        return Err(Error::msg("cannot use --resource-version with multiple resources"));
    }
    // kubectl 1.37 reports each object it could not read, as for any other visit.
    if read.is_empty() && unreadable.is_empty() {
        return Err(Error::msg("no objects passed to scale"));
    }
    // As kubectl, the first failure stops the run; a write whose answer was lost while the server
    // still answers fails only its own object.
    let mut lost = Vec::new();
    let yaml = matches!(options.printer, Some(Printer::Yaml));
    let mut printed = false;
    for object in read.into_iter().flatten() {
        match scale_one(&cluster, &options, &args, object, args.record.cause(global)).await {
            Ok(line) => {
                // kubectl's YAML printer starts each object after the first with `---`.
                let separated = yaml && std::mem::replace(&mut printed, true);
                super::write_stdout(&if separated { format!("---\n{line}") } else { line })?
            }
            Err(err @ Error::Lost { .. }) => lost.push(Err(vec![err])),
            Err(err) => return Err(err),
        }
    }
    let unreadable = unreadable.into_iter().map(|failed| failed.map(|_| String::new()).map_err(|err| vec![err]));
    super::print_visited(lost.into_iter().chain(unreadable).collect())
}

/// Scales one object (unless a client dry run) and prints it as kubectl does; with `record`, then
/// writes the change cause.
async fn scale_one(
    cluster: &Cluster,
    options: &Options,
    args: &ScaleArgs,
    object: Visited,
    record: Option<&str>,
) -> Result<String> {
    let target = &object.target;
    let namespace = target.namespace.as_deref();
    let dry_run = args.dry_run.mode();
    if dry_run != DryRun::Client {
        // kubectl names no field manager here: the server records the client's own name.
        let write = WriteOptions {
            dry_run: dry_run == DryRun::Server,
            subresource: Some("scale".into()),
            ..WriteOptions::default()
        };
        let scaled = |live: &Value| live["spec"]["replicas"] == options.replicas;
        if options.preconditions.any() {
            let current = cluster.get_subresource(&target.rt, namespace, &target.name, Some("scale")).await?;
            options.preconditions.check(&current).map_err(|err| Error::Other(anyhow!(err)))?;
            let wanted = scale::with_replicas(current, options.replicas);
            if let Err(cause) = cluster.replace(&target.rt, namespace, &target.name, &wanted, &write).await {
                let applied = |live: Option<&Value>| !write.dry_run && live.is_some_and(scaled);
                return Err(visit::write_failed(cluster, target, None, cause, applied).await);
            }
        } else {
            let patch = Patch::Merge(scale::replicas_patch(options.replicas));
            apply::send_patch(cluster, target, &patch, &write, Landed::When(&scaled))
                .await
                .map_err(|err| visit::write_error(target, None, err))?;
        }
        if dry_run == DryRun::None && !args.timeout.is_zero() {
            wait_for_replicas(cluster, &object, options.replicas, args.timeout).await?;
        }
        if let Some(cause) = record {
            // As kubectl: a patch of its own, never a dry run (even with --dry-run=server), with no
            // field manager, its failure only logged.
            let patch = Patch::Merge(serde_json::json!({"metadata": {"annotations": {CHANGE_CAUSE: cause}}}));
            let write = WriteOptions::default();
            if let Err(err) = cluster.patch(&target.rt, namespace, &target.name, &patch, &write).await {
                tracing::info!("error recording reason: {err}");
            }
        }
    }
    match &options.printer {
        Some(printer) => {
            // kubectl 1.37 prints the object as read with the new count (1.32: as read).
            let mut scaled = object.live;
            scaled["spec"]["replicas"] = options.replicas.into();
            args.output.render(printer, &scaled)
        }
        None => Ok(format!("{} scaled{}\n", output::object_name(&object.live), args.dry_run.suffix())),
    }
}

/// kubectl's `scale --timeout`: the scale subresource read each second until it has the replicas
/// (or someone else set another count), else kubectl's words.
async fn wait_for_replicas(cluster: &Cluster, object: &Visited, replicas: i64, timeout: std::time::Duration) -> Result {
    let target = &object.target;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let scale =
            cluster.get_subresource(&target.rt, target.namespace.as_deref(), &target.name, Some("scale")).await?;
        if scale::has_desired_replicas(&scale, replicas) {
            return Ok(());
        }
        if tokio::time::Instant::now() + std::time::Duration::from_secs(1) > deadline {
            return Err(Error::msg(format!("timed out waiting for {:?} to be synced", target.name)));
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "scale"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Scale(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = parse(&["deploy", "web", "--replicas=0", "--current-replicas", "2"]).unwrap();
        assert_eq!(options.replicas, 0);
        assert_eq!(options.preconditions, Preconditions { replicas: Some(2), resource_version: None });
        assert!(!parse(&["deploy/web", "--replicas", "3"]).unwrap().preconditions.any());
        for (line, expected) in [
            (&["deploy", "web"][..], "error: required flag(s) \"replicas\" not set"),
            (
                &["deploy", "web", "--replicas=-1"],
                "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0",
            ),
            (&["--replicas=1"], "error: You must provide one or more resources by argument or filename.\nExample"),
            (
                &["deploy", "--all", "-l", "a=b", "--replicas=1"],
                "error: cannot set --all and --selector at the same time",
            ),
        ] {
            let line_of = parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert!(line_of.starts_with(expected), "{line:?}: {line_of}");
        }
    }
}
