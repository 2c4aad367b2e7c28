//! `kubeupd api-resources` and `kubeupd api-versions`: the resource types and group versions the
//! server serves, from kubeupd's discovery, as kubectl prints them (kubectl pkg/cmd/apiresources).

use std::collections::{BTreeSet, HashSet};

use clap::Args;

use super::pflag::{Tristate, tristate};
use super::{Error, GlobalArgs, Result, write_stdout};
use crate::client::ResourceType;
use crate::gocompat::tabwriter::TabWriter;

/// Options of `kubeupd api-resources`.
#[derive(Debug, Args)]
pub struct ApiResourcesArgs {
    /// Output format: wide or name (json and yaml are kubectl's only).
    #[arg(short = 'o', long, value_name = "FORMAT", default_value = "")]
    pub output: String,
    /// Limit to resources in the specified API group (`""`: the core group).
    #[arg(long, value_name = "GROUP")]
    pub api_group: Option<String>,
    /// If false, non-namespaced resources will be returned, otherwise only namespaced ones (all
    /// when not given).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_parser = tristate)]
    pub namespaced: Option<Tristate>,
    /// Limit to resources that support the specified verbs.
    #[arg(long, value_name = "VERB", value_delimiter = ',')]
    pub verbs: Vec<String>,
    /// Limit to resources that belong to the specified categories.
    #[arg(long, value_name = "CATEGORY", value_delimiter = ',')]
    pub categories: Vec<String>,
    /// Sort by `name` or `kind` (default: by API group).
    #[arg(long, value_name = "FIELD", default_value = "")]
    pub sort_by: String,
    /// When using the default or custom-column output format, don't print headers.
    #[arg(long)]
    pub no_headers: bool,
    /// Use the cached list of resources if available.
    #[arg(long)]
    pub cached: bool,
    /// Accepted for kubectl's scripts (only json and yaml would show managed fields).
    #[arg(long)]
    pub show_managed_fields: bool,
    #[arg(value_name = "ARGS", hide = true)]
    pub words: Vec<String>,
}

/// Options of `kubeupd api-versions`.
#[derive(Debug, Args)]
pub struct ApiVersionsArgs {
    #[arg(value_name = "ARGS", hide = true)]
    pub words: Vec<String>,
}

/// The formats kubectl's api-resources takes, for its error.
const FORMATS: &str = "json,kyaml,name,wide,yaml";

/// How the resources are printed (`-o`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Table,
    Wide,
    Name,
}

/// What the resources are sorted by before their name (`--sort-by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SortBy {
    Group,
    Name,
    Kind,
}

/// The checked options.
#[derive(Debug)]
struct Options {
    format: Format,
    sort_by: SortBy,
}

/// kubectl's checks, in its order: no words, the printer (`Complete`), then `--sort-by`
/// (`Validate`); all before it asks the server.
fn options(args: &ApiResourcesArgs) -> Result<Options> {
    if !args.words.is_empty() {
        return Err(Error::msg(format!(
            "unexpected arguments: [{}]\nSee 'kubectl api-resources -h' for help and examples",
            args.words.join(" ")
        )));
    }
    let format = match args.output.as_str() {
        "" => Format::Table,
        "wide" => Format::Wide,
        "name" => Format::Name,
        "json" | "yaml" | "kyaml" => {
            return Err(Error::msg(format!(
                "kubeupd api-resources does not print -o {}: use -o wide or -o name",
                args.output
            )));
        }
        other => {
            return Err(Error::msg(format!(
                "unable to match a printer suitable for the output format {other:?}, allowed formats are: {FORMATS}"
            )));
        }
    };
    let sort_by = match args.sort_by.as_str() {
        "" => SortBy::Group,
        "name" => SortBy::Name,
        "kind" => SortBy::Kind,
        _ => return Err(Error::msg("--sort-by accepts only name or kind")),
    };
    Ok(Options { format, sort_by })
}

pub async fn run(args: ApiResourcesArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    if !args.cached {
        cluster.rediscover().await?;
    }
    let discovery = cluster.discovery().await?;
    let resources = selected(&discovery.resources, &args, options.sort_by);
    write_stdout(&table(&resources, options.format, args.no_headers))
}

/// What kubectl's `ServerPreferredResources` gives, filtered by the flags and sorted: each
/// resource once, in the first version that has it (the group's preferred one first).
fn selected<'a>(all: &'a [ResourceType], args: &ApiResourcesArgs, sort_by: SortBy) -> Vec<&'a ResourceType> {
    let mut seen = HashSet::new();
    let mut resources: Vec<&ResourceType> = all
        .iter()
        .filter(|resource| seen.insert((resource.group.as_str(), resource.resource.as_str())))
        .filter(|resource| !resource.verbs.is_empty())
        .filter(|resource| args.api_group.as_ref().is_none_or(|group| *group == resource.group))
        .filter(|resource| args.namespaced.is_none_or(|Tristate(namespaced)| namespaced == resource.namespaced))
        .filter(|resource| args.verbs.iter().all(|verb| resource.verbs.contains(verb)))
        .filter(|resource| args.categories.iter().all(|category| resource.categories.contains(category)))
        .collect();
    let key = |resource: &&ResourceType| -> String {
        match sort_by {
            SortBy::Name => resource.resource.clone(),
            SortBy::Kind => resource.kind.clone(),
            SortBy::Group => resource.group.clone(),
        }
    };
    // kubectl's stable sort by the field, then the name.
    resources.sort_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.resource.cmp(&b.resource)));
    resources
}

fn api_version(resource: &ResourceType) -> String {
    match resource.group.as_str() {
        "" => resource.version.clone(),
        group => format!("{group}/{}", resource.version),
    }
}

fn table(resources: &[&ResourceType], format: Format, no_headers: bool) -> String {
    if format == Format::Name {
        return resources
            .iter()
            .map(|resource| match resource.group.as_str() {
                "" => format!("{}\n", resource.resource),
                group => format!("{}.{group}\n", resource.resource),
            })
            .collect();
    }
    let wide = format == Format::Wide;
    let mut writer = TabWriter::kubectl();
    let mut text = String::new();
    if !no_headers {
        let extra = if wide { "\tVERBS\tCATEGORIES" } else { "" };
        text.push_str(&writer.write(&format!("NAME\tSHORTNAMES\tAPIVERSION\tNAMESPACED\tKIND{extra}\n")));
    }
    for resource in resources {
        let mut line = format!(
            "{}\t{}\t{}\t{}\t{}",
            resource.resource,
            resource.short_names.join(","),
            api_version(resource),
            resource.namespaced,
            resource.kind
        );
        if wide {
            line.push_str(&format!("\t{}\t{}", resource.verbs.join(","), resource.categories.join(",")));
        }
        line.push('\n');
        text.push_str(&writer.write(&line));
    }
    text.push_str(&writer.flush());
    text
}

/// kubectl's one check of `api-versions` (its `Complete`), before it asks the server: no words.
fn versions_options(args: &ApiVersionsArgs) -> Result {
    match args.words.as_slice() {
        [] => Ok(()),
        words => Err(Error::msg(format!(
            "unexpected arguments: [{}]\nSee 'kubectl api-versions -h' for help and examples",
            words.join(" ")
        ))),
    }
}

pub async fn run_versions(args: ApiVersionsArgs, global: &GlobalArgs) -> Result {
    versions_options(&args)?;
    let cluster = global.connect().await?;
    cluster.rediscover().await?;
    let discovery = cluster.discovery().await?;
    let versions: BTreeSet<String> = discovery.resources.iter().map(api_version).collect();
    write_stdout(&versions.into_iter().map(|version| format!("{version}\n")).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(group: &str, version: &str, name: &str, kind: &str, namespaced: bool) -> ResourceType {
        ResourceType {
            group: group.into(),
            version: version.into(),
            resource: name.into(),
            kind: kind.into(),
            namespaced,
            verbs: vec!["get".into(), "list".into()],
            short_names: Vec::new(),
            categories: Vec::new(),
            singular: String::new(),
            status_subresource: false,
        }
    }

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "api-resources"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::ApiResources(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = parse(&[]).unwrap();
        assert_eq!((options.format, options.sort_by), (Format::Table, SortBy::Group));
        let options = parse(&["-o", "wide", "--sort-by", "kind"]).unwrap();
        assert_eq!((options.format, options.sort_by), (Format::Wide, SortBy::Kind));
        let options = parse(&["-o=name", "--sort-by=name"]).unwrap();
        assert_eq!((options.format, options.sort_by), (Format::Name, SortBy::Name));
        // The words first, then the printer, then --sort-by.
        for (line, expected) in [
            (
                &["pods", "-o", "bad", "--sort-by", "age"][..],
                "error: unexpected arguments: [pods]\nSee 'kubectl api-resources -h' for help and examples",
            ),
            (
                &["-o", "bad", "--sort-by", "age"],
                "error: unable to match a printer suitable for the output format \"bad\", allowed formats are: \
                 json,kyaml,name,wide,yaml",
            ),
            (&["-o", "json"], "error: kubeupd api-resources does not print -o json: use -o wide or -o name"),
            (&["--sort-by", "age"], "error: --sort-by accepts only name or kind"),
        ] {
            let refused = parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert_eq!(refused, expected, "{line:?}");
        }
    }

    #[test]
    fn api_versions_takes_no_words_as_kubectl() {
        let versions_options = |line: &[&str]| {
            let cli = crate::cli::parse(["kubeupd", "api-versions"].iter().chain(line)).unwrap();
            match cli.command {
                crate::cli::Command::ApiVersions(args) => versions_options(&args),
                _ => unreachable!(),
            }
        };
        assert!(versions_options(&[]).is_ok());
        assert_eq!(
            versions_options(&["apps", "v1"]).unwrap_err().line(),
            "error: unexpected arguments: [apps v1]\nSee 'kubectl api-versions -h' for help and examples"
        );
    }

    #[test]
    fn each_resource_once_in_its_first_version_sorted_by_group_then_name() {
        let all = vec![
            resource("", "v1", "pods", "Pod", true),
            resource("apps", "v1", "deployments", "Deployment", true),
            resource("", "v1", "configmaps", "ConfigMap", true),
            resource("apps", "v1beta1", "deployments", "Deployment", true),
            resource("apps", "v1beta1", "old", "Old", false),
        ];
        let args = ApiResourcesArgs {
            output: String::new(),
            api_group: None,
            namespaced: None,
            verbs: Vec::new(),
            categories: Vec::new(),
            sort_by: String::new(),
            no_headers: true,
            cached: false,
            show_managed_fields: false,
            words: Vec::new(),
        };
        let names: Vec<String> =
            selected(&all, &args, SortBy::Group).iter().map(|r| format!("{}/{}", api_version(r), r.resource)).collect();
        assert_eq!(names, ["v1/configmaps", "v1/pods", "apps/v1/deployments", "apps/v1beta1/old"]);
        let args = ApiResourcesArgs { namespaced: Some(Tristate(false)), ..args };
        assert_eq!(selected(&all, &args, SortBy::Group).len(), 1);
    }
}
