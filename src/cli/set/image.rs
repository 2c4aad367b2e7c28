//! `set image`: containers' images, `CONTAINER=IMAGE` or `*=IMAGE`.

use anyhow::anyhow;
use clap::Args;
use serde_json::Value;

use super::{CommonArgs, Findings, ObjectError, Setter};
use crate::change::image::{self, ImageUpdates};
use crate::change::split_pairs;
use crate::cli::args::{RecordArg, TargetArgs};
use crate::cli::{Error, GlobalArgs, Result};

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

/// Runs `set image`: the options checked in kubectl's order before anything is read.
pub async fn run(args: ImageArgs, global: &GlobalArgs) -> Result {
    let (objects, pairs) = split_pairs(&args.targets.targets, "image").map_err(Error::msg)?;
    let updates = ImageUpdates::parse(&pairs).map_err(|err| Error::Other(anyhow!(err)))?;
    let targets = TargetArgs { targets: objects, files: args.targets.files.clone() };
    targets.require_some()?;
    args.common.validate()?;
    args.common.output.printer(crate::output::Verb::Write)?;
    let (cluster, objects) = super::objects(&targets, &args.common, global, "set image").await?;
    super::run_setter(&updates, cluster, objects, &args.common, args.record.cause(global)).await
}
