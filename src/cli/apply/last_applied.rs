//! `kubeupd apply view-last-applied` and `kubeupd apply set-last-applied`: read or replace the
//! last-applied configuration that client-side apply keeps on objects.

use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;

use crate::apply::{DryRun, last_applied};
use crate::cli::args::{AllArg, DryRunArg, ExtraArgs, FileArgs, LabelSelectorArg, OutputArgs, TargetArgs};
use crate::cli::{Error, GlobalArgs, Result, write_stdout};
use crate::client::{Cluster, Selectors, WriteOptions};
use crate::gocompat;
use crate::merge::Patch;
use crate::output::{self, Printer, Verb};
use crate::resource::{Named, Resolved, Resolver, Rules};

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

/// What `view-last-applied` shows: the objects named, and how.
struct ViewOptions {
    named: Vec<Named>,
    selectors: Option<String>,
    format: ViewFormat,
}

/// kubectl's checks of `view-last-applied`: what is named (the files read); nothing is sent
/// before they pass.
fn view_options(args: &ViewArgs) -> Result<ViewOptions> {
    let selector = args.label.selector.clone();
    let listing = selector.is_some() || args.all.all;
    let rules = Rules { verb: "apply view-last-applied", types_alone: listing, selector: selector.is_some() };
    Ok(ViewOptions { named: args.targets.named(rules)?, selectors: selector, format: args.output })
}

/// What `set-last-applied` records: the files' objects, printed as `-o` says.
struct SetOptions {
    named: Vec<Named>,
    printer: Option<Printer>,
    dry_run: DryRun,
    create_annotation: bool,
}

/// kubectl's checks of `set-last-applied`: the printer, then the files (read).
fn set_options(args: &SetArgs) -> Result<SetOptions> {
    let printer = args.output.printer(Verb::Write)?.cloned();
    let rules = Rules { verb: "apply set-last-applied", types_alone: false, selector: false };
    let named = TargetArgs { targets: Vec::new(), files: args.files.clone() }.named(rules)?;
    Ok(SetOptions { named, printer, dry_run: args.dry_run.mode(), create_annotation: args.create_annotation })
}

pub async fn run(command: LastAppliedCommand, global: &GlobalArgs) -> Result {
    match command {
        LastAppliedCommand::ViewLastApplied(args) => {
            let options = view_options(&args)?;
            let cluster = global.connect().await?;
            view(options, &cluster, &Resolver::new(&cluster, global.namespace.as_deref(), false)).await
        }
        LastAppliedCommand::SetLastApplied(args) => {
            let options = set_options(&args)?;
            let cluster = global.connect().await?;
            set(options, &args, &cluster, &Resolver::new(&cluster, global.namespace.as_deref(), false)).await
        }
    }
}

async fn view(options: ViewOptions, cluster: &Cluster, resolver: &Resolver<'_>) -> Result {
    let selectors = Selectors { label: options.selectors.as_deref(), field: None };
    let mut targets = Vec::new();
    for resolved in resolver.resolve(options.named).await? {
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
        write_stdout(&match options.format {
            ViewFormat::Json => output::to_json_indented(&recorded, "  "),
            ViewFormat::Yaml => output::to_yaml(&recorded),
        })?;
    }
    Ok(())
}

async fn set(options: SetOptions, args: &SetArgs, cluster: &Cluster, resolver: &Resolver<'_>) -> Result {
    for resolved in resolver.resolve(options.named).await? {
        let Resolved::Manifest(manifest) = resolved else { unreachable!("objects come from files") };
        let target = &manifest.object;
        let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
        let live = cluster.get(rt, namespace, name).await?;
        if last_applied::recorded(&live).is_none() && !options.create_annotation {
            return Err(Error::msg(format!(
                "no last-applied-configuration annotation found on resource: {name}, to create the annotation, run the command with --create-annotation"
            )));
        }
        // As kubectl records it here: the document as written (unlike apply, no empty
        // `annotations` map is added).
        let recorded = gocompat::json::to_compact(&manifest.document) + "\n";
        let patch = Patch::Merge(json!({"metadata": {"annotations": {last_applied::ANNOTATION: recorded}}}));
        let object = if options.dry_run == DryRun::Client {
            patch.apply(live, None).expect("a merge patch always applies")
        } else {
            let write = WriteOptions { dry_run: options.dry_run == DryRun::Server, ..WriteOptions::default() };
            cluster.patch(rt, namespace, name, &patch, &write).await?
        };
        write_stdout(&match &options.printer {
            None => format!("{} configured{}\n", target.display_name(), args.dry_run.suffix()),
            Some(Printer::Name) => format!("{}\n", target.display_name()),
            Some(printer) => args.output.render(printer, &object)?,
        })?;
    }
    Ok(())
}
