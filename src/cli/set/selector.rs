//! `set selector` (a Service's `spec.selector`, replaced whole) and `set subject` (users, groups
//! and service accounts added to RoleBindings and ClusterRoleBindings).

use clap::{ArgAction, Args};
use serde_json::{Value, json};

use super::{CommonArgs, Findings, ObjectError, Setter};
use crate::cli::args::{RecordArg, TargetArgs};
use crate::cli::{Error, GlobalArgs, Result};
use crate::output::Printer;
use crate::resource::LabelSelector;

pub const SELECTOR_EXAMPLES: &str = "Examples:
  # Send the traffic of service web to the pods labelled app=web,track=canary
  kubeupd set selector service/web 'app=web,track=canary'";

pub const SUBJECT_EXAMPLES: &str = "Examples:
  # Bind role binding admin to a user and a service account
  kubeupd set subject rolebinding/admin --user=alice --serviceaccount=ci:deployer";

/// Options of `kubeupd set selector`.
#[derive(Debug, Args)]
pub struct SelectorArgs {
    /// The objects (TYPE NAME..., TYPE/NAME...), then the selector (`key=value,...`).
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Only if this is the object's resourceVersion (one object).
    #[arg(long, value_name = "VERSION", default_value = "")]
    pub resource_version: String,
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(flatten)]
    pub record: RecordArg,
}

struct SelectorSetter {
    selector: LabelSelector,
    resource_version: String,
}

impl Setter for SelectorSetter {
    const DONE: &'static str = "selector updated";
    const FAILED: &'static str = "";
    const SENDS_UNCHANGED: bool = true;

    fn change(&self, object: &mut Value, _: &mut Findings) -> std::result::Result<(), ObjectError> {
        if object["kind"] != "Service" || object["apiVersion"] != "v1" {
            return Err(ObjectError::Other("setting a selector is only supported for Services".into()));
        }
        object["spec"]["selector"] = Value::Object(self.selector.service_selector().map_err(ObjectError::Other)?);
        if !self.resource_version.is_empty() {
            object["metadata"]["resourceVersion"] = Value::String(self.resource_version.clone());
        }
        Ok(())
    }
}

/// What `set selector` does, checked before anything is read.
struct Options {
    /// The objects, the selector taken off.
    targets: TargetArgs,
    setter: SelectorSetter,
    printer: Option<Printer>,
}

/// kubectl's checks before it reads the objects, in its order: the selector (the last argument)
/// read, `-o`, a selector given, no object named with `--local`, an object named.
fn options(args: &SelectorArgs) -> Result<Options> {
    let mut targets = args.targets.clone();
    let selector = match targets.targets.pop() {
        Some(text) => Some(text.parse::<LabelSelector>().map_err(|err| Error::msg(err.to_string()))?),
        None => None,
    };
    let printer = args.common.printer()?;
    let Some(selector) = selector else { return Err(Error::msg("one selector is required")) };
    args.common.refuse_local_targets(&targets)?;
    targets.require_some()?;
    let setter = SelectorSetter { selector, resource_version: args.resource_version.clone() };
    Ok(Options { targets, setter, printer })
}

/// Runs `set selector`: as kubectl, one object after the other, each sent even when unchanged;
/// the failures are told at the end.
pub async fn run_selector(args: SelectorArgs, global: &GlobalArgs) -> Result {
    let Options { targets, setter, printer } = options(&args)?;
    let printer = printer.as_ref();
    let (cluster, objects) = super::objects(&targets, &args.common, global, "set selector").await?;
    let mut results = Vec::new();
    for (target, mut before) in objects {
        let mut after = before.clone();
        if !setter.resource_version.is_empty() {
            // The version given becomes a precondition of the patch.
            before["metadata"]["resourceVersion"] = Value::Null;
        }
        let result = match setter.change(&mut after, &mut Findings::default()) {
            Err(ObjectError::Other(reason)) => Err(Error::msg(reason)),
            Err(ObjectError::NoPodTemplate) => unreachable!("a selector needs no pod template"),
            Ok(()) => {
                if let Some(cause) = args.record.cause(global) {
                    crate::change::metadata::record_change_cause(&mut after, cause);
                }
                let changed = super::Changed { target, before, after };
                super::send::<SelectorSetter>(cluster.as_ref(), printer, &args.common, changed).await
            }
        };
        results.push(result.map_err(|err| vec![err]));
    }
    super::super::print_visited(super::super::yaml_documents(printer, results))
}

/// Options of `kubeupd set subject`.
#[derive(Debug, Args)]
pub struct SubjectArgs {
    /// The role bindings (TYPE NAME..., TYPE/NAME...).
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Users to bind (repeatable); given as `--user`, as in kubectl (here
    /// `--user` names a subject, not the kubeconfig user).
    #[arg(id = "subject_user", long = "subject-user", value_name = "NAME", action = ArgAction::Append)]
    pub user: Vec<String>,
    /// Groups to bind (repeatable).
    #[arg(long, value_name = "NAME", action = ArgAction::Append)]
    pub group: Vec<String>,
    /// Service accounts to bind, NAMESPACE:NAME (repeatable).
    #[arg(long, value_name = "NAMESPACE:NAME", action = ArgAction::Append)]
    pub serviceaccount: Vec<String>,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The subjects `set subject` adds, in kubectl's order: users, groups, service accounts, each
/// sorted and without repeats.
struct SubjectSetter(Vec<Value>);

impl Setter for SubjectSetter {
    const DONE: &'static str = "subjects updated";
    const FAILED: &'static str = "failed to patch subjects to rolebinding: ";

    fn change(&self, object: &mut Value, _: &mut Findings) -> std::result::Result<(), ObjectError> {
        let binding = matches!(object["kind"].as_str(), Some("RoleBinding" | "ClusterRoleBinding"))
            && object["apiVersion"].as_str().is_some_and(|v| v.starts_with("rbac.authorization.k8s.io/"));
        if !binding {
            return Err(ObjectError::Other(
                "setting subjects is only supported for RoleBinding/ClusterRoleBinding".into(),
            ));
        }
        let mut subjects = object["subjects"].as_array().cloned().unwrap_or_default();
        let existing = subjects.clone();
        for subject in &self.0 {
            if !existing.iter().any(|old| same_subject(old, subject)) {
                subjects.push(subject.clone());
            }
        }
        object["subjects"] = Value::Array(subjects);
        Ok(())
    }
}

/// Whether two subjects are the same, as Go compares the structs (an absent field is empty).
fn same_subject(a: &Value, b: &Value) -> bool {
    ["kind", "apiGroup", "name", "namespace"]
        .iter()
        .all(|field| a[field].as_str().unwrap_or_default() == b[field].as_str().unwrap_or_default())
}

fn sorted_unique(names: &[String]) -> Vec<String> {
    let mut names = names.to_vec();
    names.sort();
    names.dedup();
    names
}

/// What `set subject` checks before anything is read; the subjects are checked once the
/// bindings are read, as kubectl checks them.
struct SubjectOptions {
    printer: Option<Printer>,
}

/// kubectl's checks before its first request, in its order: `-o`, no object named with
/// `--local`, an object named.
fn subject_options(args: &SubjectArgs) -> Result<SubjectOptions> {
    let printer = args.common.printer()?;
    args.common.refuse_local_targets(&args.targets)?;
    args.targets.require_some()?;
    Ok(SubjectOptions { printer })
}

/// Runs `set subject`; as kubectl, the bindings are read before the subjects are checked.
pub async fn run_subject(args: SubjectArgs, global: &GlobalArgs) -> Result {
    let options = subject_options(&args)?;
    let (cluster, objects) = super::objects(&args.targets, &args.common, global, "set subject").await?;
    args.common.validate()?;
    if args.user.is_empty() && args.group.is_empty() && args.serviceaccount.is_empty() {
        return Err(Error::msg("you must specify at least one value of user, group or serviceaccount"));
    }
    for account in &args.serviceaccount {
        let parts: Vec<&str> = account.split(':').collect();
        if parts.len() != 2 || parts[1].is_empty() {
            return Err(Error::msg("serviceaccount must be <namespace>:<name>"));
        }
        if parts[0].is_empty() && objects.iter().any(|(_, object)| object["kind"] == "ClusterRoleBinding") {
            return Err(Error::msg("serviceaccount must be <namespace>:<name>, namespace must be specified"));
        }
    }
    let namespace = match &global.namespace {
        Some(namespace) => namespace.clone(),
        None => match &cluster {
            Some(cluster) => cluster.default_namespace().to_string(),
            None => "default".to_string(),
        },
    };
    let group = "rbac.authorization.k8s.io";
    let mut subjects = Vec::new();
    for user in sorted_unique(&args.user) {
        subjects.push(json!({"kind": "User", "apiGroup": group, "name": user}));
    }
    for name in sorted_unique(&args.group) {
        subjects.push(json!({"kind": "Group", "apiGroup": group, "name": name}));
    }
    for account in sorted_unique(&args.serviceaccount) {
        let (account_namespace, name) = account.split_once(':').unwrap_or_default();
        let account_namespace = if account_namespace.is_empty() { namespace.as_str() } else { account_namespace };
        subjects.push(json!({"kind": "ServiceAccount", "namespace": account_namespace, "name": name}));
    }
    let setter = SubjectSetter(subjects);
    super::run_setter(&setter, options.printer.as_ref(), cluster, objects, &args.common, None).await
}

#[cfg(test)]
mod tests {
    use super::super::{SetCommand, parsed, refusal};
    use super::*;

    fn selector(line: &[&str]) -> Result<Options> {
        match parsed(&[&["selector"], line].concat())? {
            SetCommand::Selector(args) => options(&args),
            _ => unreachable!(),
        }
    }

    fn subject(line: &[&str]) -> Result<SubjectOptions> {
        match parsed(&[&["subject"], line].concat())? {
            SetCommand::Subject(args) => subject_options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn selector_options_are_checked_as_kubectl_checks_them() {
        let options = selector(&["service", "web", "app=web,track=canary", "--resource-version=7"]).unwrap();
        assert_eq!(options.targets.targets, ["service", "web"]);
        assert_eq!(options.setter.selector, "app=web,track=canary".parse().unwrap());
        assert_eq!(options.setter.resource_version, "7");
        for (line, expected) in [
            (&[][..], "error: one selector is required"),
            (&["-o", "wide"], "error: unable to match a printer"),
            (&["service/web", "app=web", "-o", "wide"], "error: unable to match a printer"),
            (&["service/web", "app=web", "--local"], "error: you must specify resources by --filename"),
            (&["app=web"], "error: You must provide one or more resources by argument or filename."),
        ] {
            let refused = refusal(selector(line));
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
        assert!(selector(&["service/web", "a in (b"]).is_err());
    }

    #[test]
    fn subject_options_are_checked_as_kubectl_checks_them() {
        assert!(subject(&["rolebinding/admin", "--user=alice", "-o", "yaml"]).unwrap().printer.is_some());
        // The subjects are checked once the bindings are read.
        assert!(subject(&["rolebinding/admin"]).is_ok());
        for (line, expected) in [
            (
                &["rolebinding/admin", "--local", "--user=alice"][..],
                "error: you must specify resources by --filename when --local is set.\nExample resource",
            ),
            (&["rolebinding/admin", "-o", "wide"], "error: unable to match a printer"),
            (&["rolebinding/admin", "--local", "-o", "wide"], "error: unable to match a printer"),
            (&["--user=alice"], "error: You must provide one or more resources by argument or filename."),
        ] {
            let refused = refusal(subject(line));
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }
}
