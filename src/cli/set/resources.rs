//! `set resources` (containers' limits and requests) and `set serviceaccount` (the pod
//! template's service account).

use clap::Args;
use serde_json::{Map, Value};

use super::{CommonArgs, Findings, ObjectError, Setter};
use crate::change::pod_template::{self, pod_spec_mut};
use crate::cli::args::{RecordArg, TargetArgs};
use crate::cli::{Error, GlobalArgs, Result};

pub const EXAMPLES: &str = "Examples:
  # Set the limits of container app of deployment web
  kubeupd set resources deployment/web -c app --limits=cpu=200m,memory=512Mi

  # Set requests of every container of the deployments labelled app=web
  kubeupd set resources deployments -l app=web --requests=cpu=100m";

pub const SERVICE_ACCOUNT_EXAMPLES: &str = "Examples:
  # Run the pods of deployment web as service account builder
  kubeupd set serviceaccount deployment/web builder";

/// Options of `kubeupd set resources`.
#[derive(Debug, Args)]
pub struct ResourcesArgs {
    /// The objects (TYPE NAME..., TYPE/NAME...).
    #[command(flatten)]
    pub targets: TargetArgs,
    /// The containers to change; may use wildcards.
    #[arg(short = 'c', long, value_name = "NAMES", default_value = "*")]
    pub containers: String,
    /// Limits, e.g. `cpu=200m,memory=512Mi`.
    #[arg(long, value_name = "LIST", default_value = "")]
    pub limits: String,
    /// Requests, e.g. `cpu=100m,memory=256Mi`.
    #[arg(long, value_name = "LIST", default_value = "")]
    pub requests: String,
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub record: RecordArg,
}

struct ResourcesSetter {
    containers: String,
    limits: Map<String, Value>,
    requests: Map<String, Value>,
}

impl Setter for ResourcesSetter {
    const DONE: &'static str = "resource requirements updated";
    const FAILED: &'static str = "failed to patch resources update to pod template ";

    fn change(&self, object: &mut Value, findings: &mut Findings) -> std::result::Result<(), ObjectError> {
        let spec = pod_spec_mut(object).ok_or(ObjectError::NoPodTemplate)?;
        if !pod_template::set_resources(spec, &self.containers, &self.limits, &self.requests) {
            findings.errors.push(Error::msg(format!("error: unable to find container named {}", self.containers)));
        }
        Ok(())
    }
}

/// Runs `set resources`.
pub async fn run(args: ResourcesArgs, global: &GlobalArgs) -> Result {
    args.targets.require_some()?;
    args.common.validate()?;
    if args.limits.is_empty() && args.requests.is_empty() {
        return Err(Error::msg(
            "you must specify an update to requests or limits (in the form of --requests/--limits)",
        ));
    }
    let setter = ResourcesSetter {
        containers: args.containers.clone(),
        limits: pod_template::resource_list(&args.limits).map_err(Error::msg)?,
        requests: pod_template::resource_list(&args.requests).map_err(Error::msg)?,
    };
    args.common.output.printer(crate::output::Verb::Write)?;
    let (cluster, objects) = super::objects(&args.targets, &args.common, global, "set resources").await?;
    super::run_setter(&setter, cluster, objects, &args.common, args.record.cause(global)).await
}

/// Options of `kubeupd set serviceaccount`.
#[derive(Debug, Args)]
pub struct ServiceAccountArgs {
    /// The objects (TYPE NAME..., TYPE/NAME...), then the service account's name.
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub record: RecordArg,
}

struct ServiceAccountSetter(String);

impl Setter for ServiceAccountSetter {
    const DONE: &'static str = "serviceaccount updated";
    const FAILED: &'static str = "failed to patch ServiceAccountName ";
    const SENDS_UNCHANGED: bool = true;

    fn change(&self, object: &mut Value, _: &mut Findings) -> std::result::Result<(), ObjectError> {
        let spec = pod_spec_mut(object).ok_or(ObjectError::NoPodTemplate)?;
        spec["serviceAccountName"] = Value::String(self.0.clone());
        Ok(())
    }
}

/// Runs `set serviceaccount`: the last argument is the account.
pub async fn run_service_account(args: ServiceAccountArgs, global: &GlobalArgs) -> Result {
    let mut targets = args.targets.clone();
    let Some(account) = targets.targets.pop() else {
        return Err(Error::msg("serviceaccount is required"));
    };
    args.common.validate()?;
    args.common.output.printer(crate::output::Verb::Write)?;
    let (cluster, objects) = super::objects(&targets, &args.common, global, "set serviceaccount").await?;
    super::run_setter(&ServiceAccountSetter(account), cluster, objects, &args.common, args.record.cause(global)).await
}
