//! `set resources` (containers' limits and requests) and `set serviceaccount` (the pod
//! template's service account).

use clap::Args;
use serde_json::{Map, Value};

use super::{CommonArgs, Findings, ObjectError, Setter};
use crate::change::pod_template::{self, pod_spec_mut};
use crate::cli::args::{RecordArg, TargetArgs};
use crate::cli::{Error, GlobalArgs, Result};
use crate::output::Printer;

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

/// What `set resources` does, checked before anything is read.
struct Options {
    /// The change, or what kubectl refuses once it has read the objects.
    setter: Result<ResourcesSetter>,
    printer: Option<Printer>,
}

/// kubectl's checks before it reads the objects, in its order: `-o`, no object named with
/// `--local`, an object named.
fn options(args: &ResourcesArgs) -> Result<Options> {
    let printer = args.common.printer()?;
    args.common.refuse_local_targets(&args.targets)?;
    args.targets.require_some()?;
    Ok(Options { setter: setter(args), printer })
}

/// kubectl's checks once the objects are read, in its order: the shared flags, an update
/// given, the quantities read.
fn setter(args: &ResourcesArgs) -> Result<ResourcesSetter> {
    args.common.validate()?;
    if args.limits.is_empty() && args.requests.is_empty() {
        return Err(Error::msg(
            "you must specify an update to requests or limits (in the form of --requests/--limits)",
        ));
    }
    Ok(ResourcesSetter {
        containers: args.containers.clone(),
        limits: pod_template::resource_list(&args.limits).map_err(Error::msg)?,
        requests: pod_template::resource_list(&args.requests).map_err(Error::msg)?,
    })
}

/// Runs `set resources`.
pub async fn run(args: ResourcesArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let (cluster, objects) = super::objects(&args.targets, &args.common, global, "set resources").await?;
    let (setter, printer) = (&options.setter?, options.printer.as_ref());
    super::run_setter(setter, printer, cluster, objects, &args.common, args.record.cause(global)).await
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

/// What `set serviceaccount` does, checked before anything is read.
struct ServiceAccountOptions {
    /// The objects, the account taken off.
    targets: TargetArgs,
    setter: ServiceAccountSetter,
    printer: Option<Printer>,
}

/// kubectl's checks before it reads the objects, in its order: the shared flags, `-o`, the
/// account (the last argument), an object named. With `--local` kubectl reads the files alone
/// and leaves the objects named by argument aside.
fn service_account_options(args: &ServiceAccountArgs) -> Result<ServiceAccountOptions> {
    args.common.validate()?;
    let printer = args.common.printer()?;
    let mut targets = args.targets.clone();
    let Some(account) = targets.targets.pop() else {
        return Err(Error::msg("serviceaccount is required"));
    };
    targets.require_some()?;
    Ok(ServiceAccountOptions { targets, setter: ServiceAccountSetter(account), printer })
}

/// Runs `set serviceaccount`.
pub async fn run_service_account(args: ServiceAccountArgs, global: &GlobalArgs) -> Result {
    let options = service_account_options(&args)?;
    let (cluster, objects) = super::objects(&options.targets, &args.common, global, "set serviceaccount").await?;
    let (setter, printer) = (&options.setter, options.printer.as_ref());
    super::run_setter(setter, printer, cluster, objects, &args.common, args.record.cause(global)).await
}

#[cfg(test)]
mod tests {
    use super::super::{SetCommand, parsed, refusal};
    use super::*;

    fn resources(line: &[&str]) -> Result<Options> {
        match parsed(&[&["resources"], line].concat())? {
            SetCommand::Resources(args) => options(&args),
            _ => unreachable!(),
        }
    }

    fn service_account(line: &[&str]) -> Result<ServiceAccountOptions> {
        match parsed(&[&["serviceaccount"], line].concat())? {
            SetCommand::Serviceaccount(args) => service_account_options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn resources_options_are_checked_as_kubectl_checks_them() {
        let options = resources(&["deployment/web", "-c", "app", "--limits=cpu=200m,memory=512Mi"]).unwrap();
        let setter = options.setter.unwrap();
        assert_eq!(setter.containers, "app");
        assert_eq!(setter.limits["cpu"], "200m");
        assert_eq!(setter.limits["memory"], "512Mi");
        assert!(setter.requests.is_empty());
        for (line, expected) in [
            (&["--limits=cpu=1"][..], "error: You must provide one or more resources by argument or filename."),
            (&["deployment/web", "--local", "--limits=cpu=1"], "error: you must specify resources by --filename"),
            (&["deployment/web", "--local", "-o", "wide"], "error: unable to match a printer"),
        ] {
            let refused = refusal(resources(line));
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }

    #[test]
    fn resources_refusals_wait_for_the_objects_as_in_kubectl() {
        for (line, expected) in [
            (
                &["-f", "web.yaml", "--local", "--dry-run=server", "--all", "-l", "a=b"][..],
                "error: cannot specify --local and --dry-run=server - did you mean --dry-run=client?",
            ),
            (&["deployments", "--all", "-l", "a=b"], "error: cannot set --all and --selector at the same time"),
            (
                &["deployment/web"],
                "error: you must specify an update to requests or limits (in the form of --requests/--limits)",
            ),
            (&["deployment/web", "--requests=cpu"], "error: invalid argument syntax cpu, expected <resource>=<value>"),
        ] {
            let refused = refusal(resources(line).unwrap().setter);
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }

    #[test]
    fn service_account_options_are_checked_as_kubectl_checks_them() {
        let options = service_account(&["deployment", "web", "builder"]).unwrap();
        assert_eq!(options.targets.targets, ["deployment", "web"]);
        assert_eq!(options.setter.0, "builder");
        for (line, expected) in [
            (&[][..], "error: serviceaccount is required"),
            (&["--local", "--dry-run=server"], "error: cannot specify --local and --dry-run=server"),
            (&["-o", "wide"], "error: unable to match a printer"),
            (&["builder"], "error: You must provide one or more resources by argument or filename."),
            (&["deployment/web", "builder", "-o", "wide"], "error: unable to match a printer"),
        ] {
            let refused = refusal(service_account(line));
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }
}
