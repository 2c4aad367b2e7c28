//! `kubeupd get`: display one or many objects, as a table or as JSON, YAML or names.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::bail;
use clap::Args;
use futures::future::join_all;
use serde_json::Value;

use super::{GlobalArgs, Reported};
use crate::client::{Cluster, ConnectOptions, ListScope, MappingError, ResourceType, Table};
use crate::manifest;
use crate::output::{self, OutputFormat, TableOptions};

/// Options of `kubeupd get`.
#[derive(Debug, Args)]
pub struct GetArgs {
    /// TYPE [NAME...], TYPE/NAME..., or TYPE1,TYPE2 [NAME...].
    #[arg(value_name = "TYPE[/NAME]")]
    pub targets: Vec<String>,
    /// Files, directories or `-` (stdin) naming the objects to get.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,
    /// List across all namespaces.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector to filter lists on, e.g. `app=web,tier!=db`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Output format; the default is a table.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
    /// Keep `metadata.managedFields` in JSON and YAML output.
    #[arg(long)]
    pub show_managed_fields: bool,
}

/// What the user asked for, validated but not yet resolved against the server.
#[derive(Debug, PartialEq, Eq)]
enum Request {
    /// Every object of a type (a list, maybe filtered by the selector).
    All { type_arg: String },
    /// Named objects of a type in the default namespace.
    Named { type_arg: String, names: Vec<String> },
    /// One object named in a manifest.
    FromManifest { source: String, api_version: String, kind: String, namespace: Option<String>, name: String },
}

/// One request resolved against discovery.
struct Visit {
    rt: ResourceType,
    /// The namespace to read in; `None` for all namespaces (or a cluster-scoped type).
    namespace: Option<String>,
    /// The objects to read; `None` lists them all.
    names: Option<Vec<String>>,
}

/// Parses the positional arguments the way kubectl does.
fn requests_from_args(args: &GetArgs) -> anyhow::Result<Vec<Request>> {
    let with_slash = args.targets.iter().filter(|target| target.contains('/')).count();
    if with_slash > 0 {
        if with_slash != args.targets.len() {
            bail!(
                "there is no need to specify a resource type as a separate argument when passing arguments in \
                 resource/name form (e.g. 'kubeupd get resource/<resource_name>' instead of \
                 'kubeupd get resource resource/<resource_name>')"
            );
        }
        return args
            .targets
            .iter()
            .map(|target| match target.split_once('/') {
                Some((type_arg, name)) if !type_arg.is_empty() && !name.is_empty() && !name.contains('/') => {
                    Ok(Request::Named { type_arg: type_arg.into(), names: vec![name.into()] })
                }
                _ => bail!("arguments in resource/name form must have a single resource and name: {target:?}"),
            })
            .collect();
    }
    let Some((types, names)) = args.targets.split_first() else {
        bail!(
            "you must specify the type of resource to get, e.g. 'kubeupd get deployments'; \
             'kubectl api-resources' lists the types a server serves"
        );
    };
    let mut requests = Vec::new();
    for type_arg in types.split(',').filter(|type_arg| !type_arg.is_empty()) {
        requests.push(if names.is_empty() {
            Request::All { type_arg: type_arg.into() }
        } else {
            Request::Named { type_arg: type_arg.into(), names: names.to_vec() }
        });
    }
    if requests.is_empty() {
        bail!("no resource type given in {types:?}");
    }
    Ok(requests)
}

/// Validates the options into the list of requests.
fn plan(args: &GetArgs) -> anyhow::Result<Vec<Request>> {
    let requests = if args.filenames.is_empty() {
        requests_from_args(args)?
    } else {
        if !args.targets.is_empty() {
            bail!("arguments cannot be given together with -f: put the objects in the files, or drop -f");
        }
        manifest::read_paths(&args.filenames, false)?
            .into_iter()
            .map(|object| Request::FromManifest {
                source: object.source.clone(),
                api_version: object.api_version().into(),
                kind: object.kind().into(),
                namespace: object.namespace().map(String::from),
                name: object.name().into(),
            })
            .collect()
    };
    let by_name = requests.iter().any(|request| !matches!(request, Request::All { .. }));
    if by_name && args.selector.is_some() {
        bail!("name cannot be provided when a selector is specified");
    }
    Ok(requests)
}

/// Runs `kubeupd get`.
pub async fn run(args: GetArgs, global: &GlobalArgs) -> anyhow::Result<()> {
    let requests = plan(&args)?;
    let single_object = matches!(requests.as_slice(), [Request::FromManifest { .. }])
        || matches!(requests.as_slice(), [Request::Named { names, .. }] if names.len() == 1);
    let cluster = Cluster::connect(&ConnectOptions::from(global)).await?;
    let visits = resolve(&cluster, requests, &args, global.namespace.as_deref()).await?;
    let mut errors = Vec::new();
    match args.output {
        None | Some(OutputFormat::Wide) => {
            super::write_stdout(&print_tables(&cluster, &visits, &args, &mut errors).await)?
        }
        Some(format) => print_objects(&cluster, &visits, &args, format, single_object, &mut errors).await?,
    }
    if errors.is_empty() {
        return Ok(());
    }
    for err in &errors {
        eprintln!("{}", super::error_line(err));
    }
    Err(Reported(1).into())
}

async fn resolve(
    cluster: &Cluster,
    requests: Vec<Request>,
    args: &GetArgs,
    namespace_flag: Option<&str>,
) -> anyhow::Result<Vec<Visit>> {
    let default_namespace = cluster.default_namespace().to_string();
    let mut visits: Vec<Visit> = Vec::with_capacity(requests.len());
    for request in requests {
        let visit = match request {
            Request::All { type_arg } => {
                let namespace = (!args.all_namespaces).then(|| default_namespace.clone());
                Visit { rt: cluster.resolve(&type_arg).await?, namespace, names: None }
            }
            Request::Named { type_arg, names } => Visit {
                rt: cluster.resolve(&type_arg).await?,
                namespace: Some(default_namespace.clone()),
                names: Some(names),
            },
            Request::FromManifest { source, api_version, kind, namespace, name } => {
                if let (Some(flag), Some(own)) = (namespace_flag, namespace.as_deref())
                    && flag != own
                {
                    bail!(
                        "the namespace from the provided object {own:?} does not match the namespace {flag:?}. \
                         You must pass '--namespace={own}' to perform this operation."
                    );
                }
                let rt = match cluster.resolve_kind(&api_version, &kind).await {
                    Err(err) if err.downcast_ref::<MappingError>().is_some() => {
                        let shown_namespace = namespace.as_deref().unwrap_or_default();
                        eprintln!(
                            "resource mapping not found for name: {name:?} namespace: {shown_namespace:?} from \
                             {source:?}: {err}\nensure CRDs are installed first"
                        );
                        return Err(Reported(1).into());
                    }
                    result => result?,
                };
                let namespace = namespace.unwrap_or_else(|| default_namespace.clone());
                Visit { rt, namespace: Some(namespace), names: Some(vec![name]) }
            }
        };
        if args.all_namespaces && visit.names.is_some() && visit.rt.namespaced {
            bail!("a resource cannot be retrieved by name across all namespaces");
        }
        // Objects of one type in one namespace are shown together, as kubectl does.
        match visits.last_mut() {
            Some(last)
                if last.rt == visit.rt
                    && last.namespace == visit.namespace
                    && last.names.is_some()
                    && visit.names.is_some() =>
            {
                last.names.as_mut().expect("checked").extend(visit.names.expect("checked"));
            }
            _ => visits.push(visit),
        }
    }
    Ok(visits)
}

fn scope(visit: &Visit) -> ListScope<'_> {
    match &visit.namespace {
        Some(namespace) => ListScope::Namespace(namespace),
        None => ListScope::AllNamespaces,
    }
}

/// Fetches every visit's table concurrently; a visit's tables are one per named object, or one list.
async fn fetch_tables(cluster: &Cluster, visits: &[Visit], selector: Option<&str>) -> Vec<Vec<anyhow::Result<Table>>> {
    join_all(visits.iter().map(|visit| async move {
        match &visit.names {
            Some(names) => {
                join_all(names.iter().map(|name| cluster.get_table(&visit.rt, visit.namespace.as_deref(), name))).await
            }
            None => vec![cluster.list_table(&visit.rt, scope(visit), selector).await],
        }
    }))
    .await
}

async fn print_tables(cluster: &Cluster, visits: &[Visit], args: &GetArgs, errors: &mut Vec<anyhow::Error>) -> String {
    let several_types = visits.iter().any(|visit| visit.rt != visits[0].rt);
    let fetched = fetch_tables(cluster, visits, args.selector.as_deref()).await;
    let mut out = String::new();
    for (visit, results) in visits.iter().zip(fetched) {
        let mut merged: Option<Table> = None;
        for result in results {
            match (result, &mut merged) {
                (Ok(table), Some(merged)) => merged.rows.extend(table.rows),
                (Ok(table), None) => merged = Some(table),
                (Err(err), _) => errors.push(err),
            }
        }
        let options = TableOptions {
            wide: args.output == Some(OutputFormat::Wide),
            namespace_column: args.all_namespaces && visit.rt.namespaced,
            kind_prefix: several_types.then(|| visit.rt.group_kind_lower()),
        };
        let text = merged.map(|table| output::render_table(&table, &options)).unwrap_or_default();
        if !text.is_empty() && !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&text);
    }
    if out.is_empty() && errors.is_empty() {
        let every_type_namespaced = visits.iter().all(|visit| visit.rt.namespaced);
        match visits.first().and_then(|visit| visit.namespace.as_deref()) {
            Some(namespace) if every_type_namespaced && !args.all_namespaces => {
                eprintln!("No resources found in {namespace} namespace.")
            }
            _ => eprintln!("No resources found"),
        }
    }
    out
}

async fn print_objects(
    cluster: &Cluster,
    visits: &[Visit],
    args: &GetArgs,
    format: OutputFormat,
    single_object: bool,
    errors: &mut Vec<anyhow::Error>,
) -> anyhow::Result<()> {
    let selector = args.selector.as_deref();
    let fetched = join_all(visits.iter().map(|visit| async move {
        match &visit.names {
            Some(names) => {
                join_all(names.iter().map(|name| cluster.get(&visit.rt, visit.namespace.as_deref(), name))).await
            }
            None => vec![cluster.list(&visit.rt, scope(visit), selector).await.map(|list| list_items(list, &visit.rt))],
        }
    }))
    .await;
    let mut objects = Vec::new();
    for result in fetched.into_iter().flatten() {
        match result {
            Ok(Value::Array(items)) => objects.extend(items),
            Ok(object) => objects.push(object),
            Err(err) => errors.push(err),
        }
    }
    if !args.show_managed_fields {
        objects.iter_mut().for_each(output::strip_managed_fields);
    }
    if single_object && objects.is_empty() {
        return Ok(());
    }
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match output::write_objects(&mut stdout, format, objects, single_object).and_then(|()| stdout.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(err.into()),
        _ => Ok(()),
    }
}

/// A list's items with `apiVersion` and `kind` set, which servers leave out of list items.
fn list_items(list: Value, rt: &ResourceType) -> Value {
    let Value::Object(mut list) = list else { return Value::Array(Vec::new()) };
    let Some(Value::Array(mut items)) = list.remove("items") else { return Value::Array(Vec::new()) };
    for item in &mut items {
        if let Value::Object(item) = item {
            item.insert("apiVersion".into(), rt.api_version().into());
            item.insert("kind".into(), rt.kind.clone().into());
        }
    }
    Value::Array(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn parse(line: &str) -> anyhow::Result<Vec<Request>> {
        let cli = crate::cli::Cli::try_parse_from(line.split_whitespace())?;
        match cli.command {
            crate::cli::Command::Get(args) => plan(&args),
            _ => unreachable!(),
        }
    }

    fn all(type_arg: &str) -> Request {
        Request::All { type_arg: type_arg.into() }
    }

    fn named(type_arg: &str, names: &[&str]) -> Request {
        Request::Named { type_arg: type_arg.into(), names: names.iter().map(|name| name.to_string()).collect() }
    }

    #[test]
    fn arguments_become_requests() {
        assert_eq!(parse("kubeupd get deploy").unwrap(), [all("deploy")]);
        assert_eq!(parse("kubeupd get cm a b").unwrap(), [named("cm", &["a", "b"])]);
        assert_eq!(parse("kubeupd get cm,deploy").unwrap(), [all("cm"), all("deploy")]);
        assert_eq!(parse("kubeupd get cm/a deploy/b").unwrap(), [named("cm", &["a"]), named("deploy", &["b"])]);
        assert_eq!(parse("kubeupd get cm -A -l app=web").unwrap(), [all("cm")]);
    }

    #[test]
    fn contradictory_arguments_are_rejected() {
        for line in
            ["kubeupd get", "kubeupd get cm cm/a", "kubeupd get cm/", "kubeupd get cm a -l x=y", "kubeupd get ,"]
        {
            assert!(parse(line).is_err(), "{line}");
        }
    }
}
