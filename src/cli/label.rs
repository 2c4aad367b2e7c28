//! `kubeupd label` and `kubeupd annotate`: set (`KEY=VALUE`) or remove (`KEY-`) labels or
//! annotations of objects, sent as a JSON merge patch of `metadata`, as kubectl sends it.

use anyhow::anyhow;
use clap::Args;
use futures::future::join_all;
use serde_json::Value;

use super::args::{DryRunArg, FieldManagerArg, LocalArg, OutputArgs, RecordArg, SelectionArgs, TargetArgs};
use super::visit::{self, Visited};
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, DryRun, Landed};
use crate::change::metadata::{self, Changes, MetadataMap};
use crate::change::split_pairs;
use crate::client::{Cluster, WriteOptions};
use crate::merge::{Patch, json_merge};
use crate::output::{self, Printer, Verb};
use crate::resource::{Named, Rules, group_of};

/// Options of `kubeupd label` and `kubeupd annotate`.
#[derive(Debug, Args)]
pub struct MetadataArgs {
    /// The objects (TYPE NAME..., TYPE/NAME...), then KEY=VALUE to set and KEY- to remove.
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Replace keys that already have another value; without it they are an error.
    #[arg(long)]
    pub overwrite: bool,
    /// Print the keys of each object (after the change, which is then not sent).
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub local: LocalArg,
    /// Only change the object if this is its current resourceVersion (one object only).
    #[arg(long, value_name = "VERSION")]
    pub resource_version: Option<String>,
    #[command(flatten)]
    pub selection: SelectionArgs,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub record: RecordArg,
}

/// The checked options.
struct Options {
    map: MetadataMap,
    changes: Changes,
    /// The objects, without the pairs.
    targets: TargetArgs,
    printer: Option<Printer>,
}

/// kubectl's examples of files in the `--local` messages.
fn file_example(map: MetadataMap) -> &'static str {
    match map {
        MetadataMap::Labels => "-f pod.yaml or --filename=pod.json",
        MetadataMap::Annotations => "-f rsrc.yaml or --filename=rsrc.json",
    }
}

/// Validates the options, in kubectl's order; nothing is sent before this succeeds.
fn options(args: &MetadataArgs, map: MetadataMap) -> Result<Options> {
    let pair_type = map.pair_type();
    let (objects, pairs) = split_pairs(&args.targets.targets, pair_type).map_err(Error::msg)?;
    let changes = Changes::parse(map, &pairs).map_err(|err| Error::Other(anyhow!(err)))?;
    if args.list && args.output.output.is_some() {
        return Err(Error::msg("--list and --output may not be specified together"));
    }
    args.selection.validate()?;
    let no_files = !args.targets.files.given();
    if args.local.local {
        if args.dry_run.mode() == DryRun::Server {
            return Err(Error::msg("cannot specify --local and --dry-run=server - did you mean --dry-run=client?"));
        }
        if !objects.is_empty() {
            return Err(Error::msg(format!(
                "can only use local files by {} when --local=true is set",
                file_example(map)
            )));
        }
        if no_files {
            return Err(Error::msg(format!("one or more files must be specified as {}", file_example(map))));
        }
    } else if objects.is_empty() && no_files {
        return Err(Error::msg("one or more resources must be specified as <resource> <name> or <resource>/<name>"));
    }
    if changes.is_empty() && !args.list {
        return Err(Error::msg(format!("at least one {pair_type} update is required")));
    }
    let printer = args.output.printer(Verb::Write)?.cloned();
    let targets = TargetArgs { targets: objects, files: args.targets.files.clone() };
    Ok(Options { map, changes, targets, printer })
}

/// Runs `kubeupd label` (`map` is the labels) or `kubeupd annotate`.
pub async fn run(args: MetadataArgs, map: MetadataMap, global: &GlobalArgs) -> Result {
    let options = options(&args, map)?;
    if args.local.local {
        let verb = map.pair_type();
        let rules = Rules { verb, types_alone: false, selector: false };
        let named = options.targets.named(rules)?;
        let several = named.len() > 1;
        let results = named
            .into_iter()
            .map(|named| {
                let Named::Manifest(object) = named else { unreachable!("--local takes objects from files only") };
                change_locally(&options, &args, object.object, !several)
            })
            .collect();
        return print(map, &options, results);
    }
    let verb = match map {
        MetadataMap::Labels => "label",
        MetadataMap::Annotations => "annotate",
    };
    let cluster = global.connect().await?;
    let (resolved, single) = visit::resolve(&cluster, global, verb, &options.targets, &args.selection).await?;
    if args.resource_version.is_some() && !single {
        return Err(Error::msg("--resource-version may only be used with a single resource"));
    }
    let visit = visit::read(&cluster, resolved, &args.selection, single).await;
    let results = join_all(visit.objects.into_iter().map(|read| async {
        match read {
            Ok(object) => change_one(&cluster, &options, &args, object, visit.single, args.record.cause(global)).await,
            Err(err) => Err(vec![err]),
        }
    }))
    .await;
    print(map, &options, results)
}

/// kubectl's annotate prints every object with one printer, which separates YAML documents;
/// label makes a printer for each object.
fn print(map: MetadataMap, options: &Options, results: Vec<Result<String, Vec<Error>>>) -> Result {
    match map {
        MetadataMap::Annotations => super::print_visited(super::yaml_documents(options.printer.as_ref(), results)),
        MetadataMap::Labels => super::print_visited(results),
    }
}

/// Changes one object as read, sends the change unless only asked to show it, and says what
/// happened in kubectl's words.
async fn change_one(
    cluster: &Cluster,
    options: &Options,
    args: &MetadataArgs,
    object: Visited,
    single: bool,
    record: Option<&str>,
) -> Result<String, Vec<Error>> {
    let mut before = object.live;
    // With --resource-version the version is always in the patch, as a precondition.
    if args.resource_version.is_some()
        && let Some(metadata) = before.get_mut("metadata").and_then(Value::as_object_mut)
    {
        metadata.remove("resourceVersion");
    }
    let mut after = changed(options, args, &before)?;
    if args.list || args.dry_run.mode() == DryRun::Client {
        return report(options, args, &before, &after, single).map_err(|err| vec![err]);
    }
    let mut text = String::new();
    if options.map == MetadataMap::Labels {
        for key in options.changes.missing(&before) {
            text.push_str(&format!("label {key:?} not found.\n"));
        }
        // As kubectl 1.36 and later: no request when no label changes (the cause that --record
        // would write goes unsent with it).
        if !metadata::labels_change(&before, &after) {
            text.push_str(&report(options, args, &before, &after, single).map_err(|err| vec![err])?);
            return Ok(text);
        }
    }
    // As kubectl: annotate records the cause in every patch, label in those that change labels.
    if let Some(cause) = record {
        metadata::record_change_cause(&mut after, cause);
    }
    let patch = json_merge::create_two_way(&before, &after).map_err(|err| vec![Error::Other(anyhow!(err))])?;
    let write = WriteOptions {
        dry_run: args.dry_run.mode() == DryRun::Server,
        field_manager: Some(args.field_manager.or(&format!("kubectl-{}", verb_of(options.map)))),
        ..WriteOptions::default()
    };
    let target = &object.target;
    let patch = Patch::Merge(patch);
    let answer = apply::send_patch(cluster, target, &patch, &write, Landed::AsPatched(None))
        .await
        .map_err(|err| vec![visit::write_error(target, None, err)])?;
    // kubectl prints the object it changed for label, and the server's answer for annotate.
    let shown = match options.map {
        MetadataMap::Labels => after,
        MetadataMap::Annotations => answer,
    };
    text.push_str(&report(options, args, &before, &shown, single).map_err(|err| vec![err])?);
    Ok(text)
}

fn verb_of(map: MetadataMap) -> &'static str {
    match map {
        MetadataMap::Labels => "label",
        MetadataMap::Annotations => "annotate",
    }
}

/// `before` with the changes, and `--resource-version` as its version.
fn changed(options: &Options, args: &MetadataArgs, before: &Value) -> Result<Value, Vec<Error>> {
    let mut after = before.clone();
    options
        .changes
        .apply(&mut after, args.overwrite)
        .map_err(|errors| errors.into_iter().map(|err| Error::Other(anyhow!(err))).collect::<Vec<_>>())?;
    if let (Some(version), Some(metadata)) =
        (&args.resource_version, after.get_mut("metadata").and_then(Value::as_object_mut))
    {
        metadata.insert("resourceVersion".into(), version.clone().into());
    }
    Ok(after)
}

/// `--local`: changes an object of a file and shows it.
fn change_locally(options: &Options, args: &MetadataArgs, object: Value, single: bool) -> Result<String, Vec<Error>> {
    let after = changed(options, args, &object)?;
    report(options, args, &object, &after, single).map_err(|err| vec![err])
}

/// What kubectl prints for one object: its keys with `--list`, the object with `-o`, else
/// `configmap/settings labeled`.
fn report(options: &Options, args: &MetadataArgs, before: &Value, after: &Value, single: bool) -> Result<String> {
    if args.list {
        return Ok(list(options.map, after, single));
    }
    let outcome = match options.map {
        MetadataMap::Labels => metadata::label_outcome(before, after),
        MetadataMap::Annotations => "annotated",
    };
    match &options.printer {
        Some(printer) => args.output.render(printer, after),
        None => Ok(format!("{} {outcome}{}\n", output::object_name(after), args.dry_run.suffix())),
    }
}

/// `--list`: `KEY=VALUE` lines, sorted (kubectl prints them in Go's random map order); for
/// several objects each under a heading, indented.
fn list(map: MetadataMap, object: &Value, single: bool) -> String {
    let mut text = String::new();
    let indent = if single { "" } else { " " };
    if !single {
        let kind = object["kind"].as_str().unwrap_or_default();
        let group = group_of(object["apiVersion"].as_str().unwrap_or_default());
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        let title = match map {
            MetadataMap::Labels => "labels",
            MetadataMap::Annotations => "annotations",
        };
        text.push_str(&format!("Listing {title} for {kind}.{group}/{name}:\n"));
    }
    let mut pairs: Vec<(&String, &Value)> = map.of(object).into_iter().flatten().collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    for (key, value) in pairs {
        text.push_str(&format!("{indent}{key}={}\n", value.as_str().unwrap_or_default()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(verb: &str, line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", verb].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Label(args) => options(&args, MetadataMap::Labels),
            crate::cli::Command::Annotate(args) => options(&args, MetadataMap::Annotations),
            _ => unreachable!(),
        }
    }

    #[test]
    fn arguments_split_into_objects_and_pairs() {
        let options = parse("label", &["deploy", "web", "a=1", "b-"]).unwrap();
        assert_eq!(options.targets.targets, ["deploy", "web"]);
        assert_eq!(options.changes.set, [("a".to_string(), "1".to_string())]);
        assert_eq!(options.changes.remove, ["b"]);
    }

    #[test]
    fn bad_options_fail_with_kubectls_words() {
        let cases: &[(&str, &[&str], &str)] = &[
            ("label", &["deploy", "web"], "error: at least one label update is required"),
            ("annotate", &["deploy", "web"], "error: at least one annotation update is required"),
            (
                "label",
                &["x=1"],
                "error: one or more resources must be specified as <resource> <name> or <resource>/<name>",
            ),
            ("label", &["cm", "a", "x=1", "b"], "error: all resources must be specified before label changes: b"),
            (
                "label",
                &["cm", "a", "x=1", "--list", "-o", "yaml"],
                "error: --list and --output may not be specified together",
            ),
            ("label", &["cm", "--all", "-l", "a=b", "x=1"], "error: cannot set --all and --selector at the same time"),
            (
                "label",
                &["--local", "cm", "a", "x=1"],
                "error: can only use local files by -f pod.yaml or --filename=pod.json when --local=true is set",
            ),
            (
                "annotate",
                &["--local", "x=1"],
                "error: one or more files must be specified as -f rsrc.yaml or --filename=rsrc.json",
            ),
            (
                "label",
                &["--local", "-f", "x", "--dry-run=server", "x=1"],
                "error: cannot specify --local and --dry-run=server - did you mean --dry-run=client?",
            ),
        ];
        for (verb, line, expected) in cases {
            let err = parse(verb, line).err().unwrap_or_else(|| panic!("{verb} {line:?} is accepted"));
            assert_eq!(err.line(), *expected, "{verb} {line:?}");
        }
    }

    #[test]
    fn lists_are_sorted_and_headed_for_several_objects() {
        let object = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"b": "2", "a": "1"}}});
        assert_eq!(list(MetadataMap::Labels, &object, true), "a=1\nb=2\n");
        assert_eq!(list(MetadataMap::Labels, &object, false), "Listing labels for Deployment.apps/web:\n a=1\n b=2\n");
    }
}
