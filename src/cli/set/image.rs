//! `set image`: containers' images, `CONTAINER=IMAGE` or `*=IMAGE`.

use anyhow::anyhow;
use clap::Args;
use serde_json::Value;

use super::{CommonArgs, Findings, ObjectError, Setter};
use crate::change::image::{self, ImageUpdates};
use crate::change::split_pairs;
use crate::cli::args::{RecordArg, TargetArgs};
use crate::cli::{Error, GlobalArgs, Result};
use crate::output::Printer;

pub const EXAMPLES: &str = "Examples:
  # Set the image of container app of deployment web
  kubeupd set image deployment/web app=registry.example/app:v2

  # Set the image of every container of every deployment and daemon set
  kubeupd set image deployments,daemonsets --all '*=nginx:1.27'

  # Print the objects of a file with a new image, without contacting the server
  kubeupd set image -f web.yaml app=nginx:1.27 --local -o yaml";

/// Options of `kubeupd set image`.
#[derive(Debug, Args)]
pub struct ImageArgs {
    /// The objects (TYPE NAME..., TYPE/NAME...), then CONTAINER=IMAGE pairs.
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub record: RecordArg,
}

impl Setter for ImageUpdates {
    const DONE: &'static str = "image updated";
    const FAILED: &'static str = "failed to patch image update to pod template: ";

    fn change(&self, object: &mut Value, findings: &mut Findings) -> std::result::Result<(), ObjectError> {
        match self.apply(object) {
            Ok(missing) => {
                findings.errors.extend(missing.into_iter().map(|err| Error::Other(anyhow!(err))));
                Ok(())
            }
            Err(image::Error::NoPodTemplate) => Err(ObjectError::NoPodTemplate),
            Err(err) => Err(ObjectError::Other(err.to_string())),
        }
    }
}

/// What `set image` does, checked before anything is read.
struct Options {
    /// The objects, the pairs taken off.
    targets: TargetArgs,
    updates: ImageUpdates,
    printer: Option<Printer>,
    /// What kubectl refuses once it has read the objects: `--all` with `-l`, no pair or `*`
    /// among others, `--local` with `--dry-run=server`.
    refusals: Vec<Error>,
}

/// kubectl's checks before it reads the objects, in its order: `-o`, the pairs read, no object
/// named with `--local`, an object named.
fn options(args: &ImageArgs) -> Result<Options> {
    let printer = args.common.printer()?;
    let (objects, pairs) = split_pairs(&args.targets.targets, "image").map_err(Error::msg)?;
    let updates = ImageUpdates::parse(&pairs).map_err(|err| Error::Other(anyhow!(err)))?;
    let targets = TargetArgs { targets: objects, files: args.targets.files.clone() };
    args.common.refuse_local_targets(&targets)?;
    targets.require_some()?;
    let refusals = [
        args.common.selection.validate(),
        updates.check().map_err(|err| Error::Other(anyhow!(err))),
        args.common.local_without_server_dry_run(),
    ];
    let refusals = refusals.into_iter().filter_map(Result::err).collect();
    Ok(Options { targets, updates, printer, refusals })
}

/// Runs `set image`.
pub async fn run(args: ImageArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let (cluster, objects) = super::objects(&options.targets, &args.common, global, "set image").await?;
    super::refused(options.refusals)?;
    let (setter, printer) = (&options.updates, options.printer.as_ref());
    super::run_setter(setter, printer, cluster, objects, &args.common, args.record.cause(global)).await
}

#[cfg(test)]
mod tests {
    use super::super::{SetCommand, parsed, refusal};
    use super::*;

    fn checked(line: &[&str]) -> Result<Options> {
        match parsed(&[&["image"], line].concat())? {
            SetCommand::Image(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = checked(&["deployment", "web", "app=nginx:1", "app=nginx:2"]).unwrap();
        assert_eq!(options.targets.targets, ["deployment", "web"]);
        assert_eq!(options.updates.images, [("app".to_string(), "nginx:2".to_string())]);
        assert!(options.printer.is_none());
        assert!(options.refusals.is_empty());
        assert!(checked(&["-f", "web.yaml", "app=nginx", "--local", "-o", "yaml"]).unwrap().printer.is_some());
        for (line, expected) in [
            (
                &["deployment/web", "app=x", "deployment/db"][..],
                "error: all resources must be specified before image changes: deployment/db",
            ),
            (&["deployment/web", "app-"], "error: invalid image format: app-"),
            (&["app=nginx"], "error: You must provide one or more resources by argument or filename."),
            (&["deployment/web", "app=x", "--local"], "error: you must specify resources by --filename when --local"),
            (
                &["deployment/web", "app=x", "deployment/db", "-o", "wide"],
                "error: unable to match a printer suitable for the output format",
            ),
        ] {
            let refused = refusal(checked(line));
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }

    #[test]
    fn some_refusals_wait_for_the_objects_as_in_kubectl() {
        let refusals =
            |line: &[&str]| -> Vec<String> { checked(line).unwrap().refusals.iter().map(Error::message).collect() };
        assert_eq!(refusals(&["deployment/web"]), ["at least one image update is required"]);
        assert_eq!(
            refusals(&["deployment/web", "app=x", "*=y"]),
            ["all containers are already specified by *, but saw more than one container_name=container_image pairs"]
        );
        assert_eq!(
            refusals(&["--all", "-l", "a=b", "-f", "web.yaml", "--local", "--dry-run=server"]),
            [
                "cannot set --all and --selector at the same time",
                "at least one image update is required",
                "cannot specify --local and --dry-run=server - did you mean --dry-run=client?"
            ]
        );
    }
}
