//! `kubeupd apply view-last-applied` and `kubeupd apply set-last-applied`: read or replace the
//! last-applied configuration that client-side apply keeps on objects.

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};

use super::GlobalArgs;
use super::options::DryRun;
use crate::client::{Cluster, ConnectOptions, WriteOptions, last_applied};
use crate::manifest;
use crate::merge::PatchType;
use crate::output::{self, OutputFormat};

/// The subcommands of `apply`.
#[derive(Debug, Subcommand)]
pub enum LastAppliedCommand {
    /// Print the last-applied configuration of objects.
    ViewLastApplied(ViewArgs),
    /// Set the last-applied configuration of objects to the files' contents, changing nothing else.
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
    /// TYPE NAME or TYPE/NAME.
    #[arg(value_name = "TYPE[/NAME]")]
    targets: Vec<String>,
    /// Files naming the objects.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    filenames: Vec<PathBuf>,
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Yaml)]
    output: ViewFormat,
}

/// Options of `apply set-last-applied`.
#[derive(Debug, Args)]
pub struct SetArgs {
    /// Files holding the configurations to record.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    filenames: Vec<PathBuf>,
    /// Add the annotation to objects that have none.
    #[arg(long)]
    create_annotation: bool,
    #[arg(long, value_enum, value_name = "MODE", default_value_t = DryRun::None, num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    dry_run: DryRun,
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    output: Option<OutputFormat>,
}

pub async fn run(command: LastAppliedCommand, global: &GlobalArgs) -> anyhow::Result<()> {
    let cluster = Cluster::connect(&ConnectOptions::from(global)).await?;
    match command {
        LastAppliedCommand::ViewLastApplied(args) => view(args, &cluster).await,
        LastAppliedCommand::SetLastApplied(args) => set(args, &cluster).await,
    }
}

async fn view(args: ViewArgs, cluster: &Cluster) -> anyhow::Result<()> {
    let targets = targets(&args, cluster).await?;
    for (rt, namespace, name) in targets {
        let object = cluster.get(&rt, namespace.as_deref(), &name).await?;
        let Some(recorded) = last_applied::recorded(&object) else {
            bail!("no last-applied-configuration annotation found on resource: {name}");
        };
        match args.output {
            ViewFormat::Json => print!("{}", output::to_json(&recorded)),
            ViewFormat::Yaml => print!("{}", output::render_objects(OutputFormat::Yaml, vec![recorded], true)),
        }
    }
    Ok(())
}

/// The objects `view-last-applied` names, as (type, namespace, name).
async fn targets(args: &ViewArgs, cluster: &Cluster) -> anyhow::Result<Vec<(crate::client::ResourceType, Option<String>, String)>> {
    let mut targets = Vec::new();
    for object in manifest::read_paths(&args.filenames, false)? {
        let rt = cluster.resolve_kind(object.api_version(), object.kind()).await?;
        let namespace = rt.namespaced.then(|| object.namespace().unwrap_or(cluster.default_namespace()).to_string());
        targets.push((rt, namespace, object.name().to_string()));
    }
    let pairs: Vec<(String, String)> = match args.targets.as_slice() {
        [] => Vec::new(),
        [type_arg, names @ ..] if !type_arg.contains('/') => {
            if names.is_empty() {
                bail!("you must specify the name of the object to view, e.g. `apply view-last-applied deployment/web`");
            }
            names.iter().map(|name| (type_arg.clone(), name.clone())).collect()
        }
        slashed => slashed
            .iter()
            .map(|target| target.split_once('/').map(|(t, n)| (t.to_string(), n.to_string())).context("use TYPE/NAME or TYPE NAME"))
            .collect::<anyhow::Result<_>>()?,
    };
    for (type_arg, name) in pairs {
        let rt = cluster.resolve(&type_arg).await?;
        let namespace = rt.namespaced.then(|| cluster.default_namespace().to_string());
        targets.push((rt, namespace, name));
    }
    if targets.is_empty() {
        bail!("name the objects to view: TYPE/NAME, TYPE NAME, or -f FILE");
    }
    Ok(targets)
}

async fn set(args: SetArgs, cluster: &Cluster) -> anyhow::Result<()> {
    let objects = manifest::read_paths(&args.filenames, false)?;
    let mut planned = Vec::with_capacity(objects.len());
    for object in objects {
        let rt = cluster.resolve_kind(object.api_version(), object.kind()).await?;
        let mut document = object.object.clone();
        let namespace = rt.namespaced.then(|| object.namespace().unwrap_or(cluster.default_namespace()).to_string());
        if let Some(namespace) = &namespace {
            document["metadata"]["namespace"] = Value::String(namespace.clone());
        }
        planned.push((rt, namespace, object.name().to_string(), document));
    }
    for (rt, namespace, name, document) in planned {
        let live = cluster.get(&rt, namespace.as_deref(), &name).await?;
        if last_applied::recorded(&live).is_none() && !args.create_annotation {
            bail!("no last-applied-configuration annotation found on resource: {name}, to create the annotation, run the command with --create-annotation");
        }
        let text = last_applied::configuration_text(&document);
        let patch = json!({"metadata": {"annotations": {last_applied::ANNOTATION: text}}});
        let object = if args.dry_run == DryRun::Client {
            crate::merge::json_merge::apply(live, &patch)
        } else {
            let write = WriteOptions { dry_run: args.dry_run == DryRun::Server, ..WriteOptions::default() };
            cluster.patch(&rt, namespace.as_deref(), &name, PatchType::Merge, serde_json::to_vec(&patch)?, &write).await?
        };
        let display = format!("{}/{name}", rt.group_kind_lower());
        match args.output {
            None => println!("{display} configured{}", args.dry_run.suffix()),
            Some(OutputFormat::Name) => println!("{display}"),
            Some(format) => {
                let mut object = object;
                output::strip_managed_fields(&mut object);
                print!("{}", output::render_objects(format, vec![object], true));
            }
        }
    }
    Ok(())
}
