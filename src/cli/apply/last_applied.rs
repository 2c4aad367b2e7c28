//! `kubeupd apply view-last-applied` and `kubeupd apply set-last-applied`: read or replace the
//! last-applied configuration that client-side apply keeps on objects.

use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;

use crate::apply::{DryRun, last_applied};
use crate::cli::args::{AllArg, DryRunArg, ExtraArgs, FileArgs, LabelSelectorArg, OutputArgs, TargetArgs};
use crate::cli::{Error, GlobalArgs, Result};
use crate::client::{Cluster, Selectors, WriteOptions};
use crate::gocompat;
use crate::merge::Patch;
use crate::output::{self, Printer, Verb};
use crate::resource::{Resolved, Resolver, Rules};

/// The subcommands of `apply`.
#[derive(Debug, Subcommand)]
pub enum LastAppliedCommand {
    /// Print the last-applied configuration of objects.
    #[command(after_help = crate::cli::help::VIEW_LAST_APPLIED)]
    ViewLastApplied(ViewArgs),
    /// Set the last-applied configuration of objects to the files' contents, changing nothing else.
    #[command(after_help = crate::cli::help::SET_LAST_APPLIED)]
    SetLastApplied(SetArgs),
}

/// How the last-applied configuration is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ViewFormat {
    Yaml,
    Json,
}

/// Options of `apply view-last-applied`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    #[command(flatten)]
    targets: TargetArgs,
    #[command(flatten)]
    label: LabelSelectorArg<String>,
    #[command(flatten)]
    all: AllArg,
    /// Output format: yaml or json.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Yaml)]
    output: ViewFormat,
}

/// Options of `apply set-last-applied`.
#[derive(Debug, Args)]
pub struct SetArgs {
    /// Files holding the configurations to record.
    #[command(flatten)]
    files: FileArgs,
    /// Words kubectl leaves unread here.
    #[command(flatten)]
    _ignored: ExtraArgs,
    /// Add the annotation to objects that have none.
    #[arg(long)]
    create_annotation: bool,
    #[command(flatten)]
    dry_run: DryRunArg,
    #[command(flatten)]
    output: OutputArgs,
}

pub async fn run(command: LastAppliedCommand, global: &GlobalArgs) -> Result {
    let cluster = global.connect().await?;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), false);
    match command {
        LastAppliedCommand::ViewLastApplied(args) => view(args, &cluster, &resolver).await,
        LastAppliedCommand::SetLastApplied(args) => set(args, &cluster, &resolver).await,
    }
}

async fn view(args: ViewArgs, cluster: &Cluster, resolver: &Resolver<'_>) -> Result {
    let selector = args.label.selector.as_deref();
    let listing = selector.is_some() || args.all.all;
    let rules = Rules { verb: "apply view-last-applied", types_alone: listing, selector: selector.is_some() };
    let selectors = Selectors { label: selector, field: None };
    let mut targets = Vec::new();
    for resolved in resolver.resolve(args.targets.named(rules)?).await? {
        targets.extend(resolved.objects(cluster, selectors).await?);
    }
    for target in &targets {
        let object = cluster.get(&target.rt, target.namespace.as_deref(), &target.name).await?;
        let Some(recorded) = last_applied::recorded(&object) else {
            return Err(Error::msg(format!(
                "no last-applied-configuration annotation found on resource: {}",
                target.name
            )));
        };
        match args.output {
            ViewFormat::Json => print!("{}", output::to_json_indented(&recorded, "  ")),
            ViewFormat::Yaml => print!("{}", output::to_yaml(&recorded)),
        }
    }
    Ok(())
}

async fn set(args: SetArgs, cluster: &Cluster, resolver: &Resolver<'_>) -> Result {
    let printer = args.output.printer(Verb::Write)?;
    let rules = Rules { verb: "apply set-last-applied", types_alone: false, selector: false };
    let named = TargetArgs { targets: Vec::new(), files: args.files.clone() }.named(rules)?;
    for resolved in resolver.resolve(named).await? {
        let Resolved::Manifest(manifest) = resolved else { unreachable!("objects come from files") };
        let target = &manifest.object;
        let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
        let live = cluster.get(rt, namespace, name).await?;
        if last_applied::recorded(&live).is_none() && !args.create_annotation {
            return Err(Error::msg(format!(
                "no last-applied-configuration annotation found on resource: {name}, to create the annotation, run the command with --create-annotation"
            )));
        }
        // As kubectl records it here: the document as written (unlike apply, no empty
        // `annotations` map is added).
        let recorded = gocompat::json::to_compact(&manifest.document) + "\n";
        let patch = Patch::Merge(json!({"metadata": {"annotations": {last_applied::ANNOTATION: recorded}}}));
        let object = if args.dry_run.mode() == DryRun::Client {
            patch.apply(live, None).expect("a merge patch always applies")
        } else {
            let write = WriteOptions { dry_run: args.dry_run.mode() == DryRun::Server, ..WriteOptions::default() };
            cluster.patch(rt, namespace, name, &patch, &write).await?
        };
        match printer {
            None => println!("{} configured{}", target.display_name(), args.dry_run.suffix()),
            Some(Printer::Name) => println!("{}", target.display_name()),
            Some(printer) => print!("{}", args.output.render(printer, &object)?),
        }
    }
    Ok(())
}
