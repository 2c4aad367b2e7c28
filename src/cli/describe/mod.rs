//! `kubeupd describe`: kubectl's description of objects (`kubectl describe`), with what kubectl
//! reads beside each (events, ReplicaSets, pods, EndpointSlices); the text is
//! [`crate::describe`]'s, what it is given is gathered in [`gather`].

mod gather;

use std::collections::HashSet;

use clap::Args;
use serde_json::Value;

use super::args::{AllNamespacesArg, LabelSelectorArg, TargetArgs};
use super::pflag::{Tristate, tristate};
use super::{Error, GlobalArgs, Result};
use crate::client::{Cluster, ListScope, ResourceType, Selectors};
use crate::resource::{self, Named, Resolved, Resolver, Rules};

/// Options of `kubeupd describe`.
#[derive(Debug, Args)]
pub struct DescribeArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub scope: AllNamespacesArg,
    #[command(flatten)]
    pub label: LabelSelectorArg<String>,
    /// Show the events of the described objects (by default: for one object, not for several nor
    /// for objects found by name prefix).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true",
        value_parser = tristate)]
    pub show_events: Option<Tristate>,
    /// Read lists in pages of this many objects (0: all at once).
    #[arg(long, value_name = "COUNT", default_value_t = 500, allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub chunk_size: i64,
}

/// kubectl's words when nothing is named.
const NOTHING_NAMED: &str = "You must specify the type of resource to describe. Use \"kubectl api-resources\" for a \
                             complete list of supported resources.";

/// The checked options.
struct Options {
    /// What the arguments and the files (read here) name.
    named: Vec<Named>,
    /// `--show-events` when given; without it, kubectl decides from what it finds.
    show_events: Option<bool>,
}

/// kubectl's checks before its first request: something named (its `Complete`), then the
/// arguments' form (its builder's, before the builder asks the server).
fn options(args: &DescribeArgs) -> Result<Options> {
    if args.targets.targets.is_empty() && !args.targets.files.given() {
        return Err(Error::msg(NOTHING_NAMED));
    }
    let selecting = args.label.selector.is_some();
    let named = args.targets.named(Rules { verb: "describe", types_alone: true, selector: selecting })?;
    Ok(Options { named, show_events: args.show_events.map(|Tristate(show)| show) })
}

/// Runs `kubeupd describe`.
pub async fn run(args: DescribeArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), args.scope.all_namespaces);
    let resolved = super::get::resolve_reading(&resolver, options.named).await?;
    let settings = gather::Settings { chunk_size: args.chunk_size, show_events: true };
    // kubectl reads the objects first (one GET per name, one list per type).
    let mut found: Vec<(ResourceType, Option<String>, String)> = Vec::new();
    let mut errors: Vec<Error> = Vec::new();
    for item in &resolved {
        match item {
            Resolved::List { rt, namespace } => {
                let scope = namespace.as_deref().map_or(ListScope::AllNamespaces, ListScope::Namespace);
                let selectors = Selectors { label: args.label.selector.as_deref(), field: None };
                match gather::list_all(&cluster, rt, scope, selectors, args.chunk_size).await {
                    Ok(items) => found.extend(items.iter().map(|item| named_in(rt, item))),
                    Err(err) => errors.push(err.into()),
                }
            }
            other => {
                let object = other.object().expect("not a list");
                match cluster.get(&object.rt, object.namespace.as_deref(), &object.name).await {
                    Ok(item) => found.push(named_in(&object.rt, &item)),
                    Err(err) => errors.push(err.into()),
                }
            }
        }
    }
    let show_events = options.show_events.unwrap_or(errors.is_empty() && found.len() <= 1);
    let settings = gather::Settings { show_events, ..settings };
    // kubectl's reading of `describe TYPE NAME` when no object is named NAME: NAME is a prefix.
    if let ([err], [type_arg, prefix]) = (errors.as_slice(), args.targets.targets.as_slice())
        && err.is_not_found()
    {
        let first = errors.remove(0);
        return describe_by_prefix(&cluster, global, type_arg, prefix, &settings).await.map_err(|prefix_err| {
            match prefix_err {
                PrefixError::NoMatch => first,
                PrefixError::Failed(err) => err,
            }
        });
    }
    let mut out = String::new();
    let mut seen: HashSet<String> = errors.iter().map(Error::line).collect();
    let mut described_errors = Vec::new();
    for (rt, namespace, name) in &found {
        match describe_one(&cluster, rt, namespace.as_deref(), name, &settings).await {
            Ok(text) => {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(&text);
            }
            Err(err) => {
                if seen.insert(err.line()) {
                    described_errors.push(err);
                }
            }
        }
    }
    super::write_stdout(&out)?;
    errors.extend(described_errors);
    if found.is_empty() && errors.is_empty() {
        match args.scope.all_namespaces {
            true => eprintln!("No resources found"),
            false => eprintln!("No resources found in {} namespace.", cluster.default_namespace()),
        }
    }
    match errors.len() {
        0 => Ok(()),
        1 => Err(errors.remove(0)),
        _ => {
            for err in &errors {
                eprintln!("{}", err.line());
            }
            Err(Error::Reported(1))
        }
    }
}

/// The type, namespace and name of an object read from the server.
fn named_in(rt: &ResourceType, object: &Value) -> (ResourceType, Option<String>, String) {
    let metadata = &object["metadata"];
    let namespace = metadata["namespace"].as_str().filter(|ns| !ns.is_empty()).map(String::from);
    (rt.clone(), namespace, metadata["name"].as_str().unwrap_or_default().to_string())
}

/// Reads the object again, and what its describer reads beside it, and describes it.
async fn describe_one(
    cluster: &Cluster,
    rt: &ResourceType,
    namespace: Option<&str>,
    name: &str,
    settings: &gather::Settings,
) -> Result<String> {
    let object = gather::object(cluster, rt, namespace, name).await?;
    let related = gather::related(cluster, &object, settings).await?;
    Ok(crate::describe::describe(&object, &related, std::time::SystemTime::now()))
}

enum PrefixError {
    /// No object's name starts with the prefix: the first error stands.
    NoMatch,
    Failed(Error),
}

/// `describe TYPE NAME` where no object is named NAME: every object TYPE names in the namespace
/// (not across namespaces, even with `-A`) whose name starts with NAME, each followed by a blank
/// line, as kubectl does. TYPE may name one object (`TYPE/NAME`): kubectl reads it the same way.
async fn describe_by_prefix(
    cluster: &Cluster,
    global: &GlobalArgs,
    type_arg: &str,
    prefix: &str,
    settings: &gather::Settings,
) -> std::result::Result<(), PrefixError> {
    let failed = |err: Error| PrefixError::Failed(err);
    let rules = Rules { verb: "describe", types_alone: true, selector: false };
    let named =
        resource::parse(&[type_arg.to_string()], &resource::Files::Paths { paths: &[], recursive: false }, rules)
            .map_err(|err| failed(err.into()))?;
    let resolver = Resolver::new(cluster, global.namespace.as_deref(), false);
    let resolved = resolver.resolve(named).await.map_err(|err| failed(err.into()))?;
    let mut items: Vec<(ResourceType, Value)> = Vec::new();
    for item in resolved {
        match item {
            Resolved::List { rt, namespace } => {
                let scope = namespace.as_deref().map_or(ListScope::AllNamespaces, ListScope::Namespace);
                let listed = gather::list_all(cluster, &rt, scope, Selectors::default(), settings.chunk_size)
                    .await
                    .map_err(|err| failed(err.into()))?;
                items.extend(listed.into_iter().map(|object| (rt.clone(), object)));
            }
            other => {
                let object = other.object().expect("not a list");
                let read = cluster.get(&object.rt, object.namespace.as_deref(), &object.name).await;
                items.push((object.rt.clone(), read.map_err(|err| failed(err.into()))?));
            }
        }
    }
    let mut any = false;
    for (rt, item) in &items {
        let (rt, namespace, name) = named_in(rt, item);
        if !name.starts_with(prefix) {
            continue;
        }
        any = true;
        let text = describe_one(cluster, &rt, namespace.as_deref(), &name, settings).await.map_err(failed)?;
        super::write_stdout(&format!("{text}\n")).map_err(failed)?;
    }
    if any { Ok(()) } else { Err(PrefixError::NoMatch) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "describe"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Describe(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = parse(&["deploy", "web", "api", "--show-events=false"]).unwrap();
        assert_eq!(options.named.len(), 2);
        assert!(
            matches!(&options.named[0], Named::Object { type_arg, name, .. } if type_arg == "deploy" && name == "web")
        );
        assert_eq!(options.show_events, Some(false));
        let options = parse(&["pods", "-l", "app=web"]).unwrap();
        assert!(matches!(options.named.as_slice(), [Named::Type(type_arg)] if type_arg == "pods"));
        assert_eq!(options.show_events, None);
        for (line, expected) in [
            (&["--show-events"][..], format!("error: {NOTHING_NAMED}")),
            (&["-l", "app=web"], format!("error: {NOTHING_NAMED}")),
            (
                &["pods", "web", "-l", "app=web"],
                "error: name cannot be provided when a selector is specified".to_string(),
            ),
        ] {
            let refused = parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert!(refused.starts_with(&expected), "{line:?}: {refused}");
        }
    }
}
