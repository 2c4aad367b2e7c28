//! `kubeupd get`: display one or many objects, as a table or as JSON, YAML or names.

use std::io::Write as _;

use clap::Args;
use futures::future::join_all;
use serde_json::Value;

use super::flags::{Format, OutputArgs, TargetArgs};
use super::{Error, GlobalArgs, Result};
use crate::client::{self, Cluster, ListScope, ResourceType, Selectors};
use crate::output::{self, OutputFormat, Table, TableOptions};
use crate::resource::{self, ObjectRef, Resolved, Resolver, Rules};

/// Options of `kubeupd get`.
#[derive(Debug, Args)]
pub struct GetArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// List across all namespaces.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector to filter lists on, e.g. `app=web,tier!=db`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Read this path of the server (e.g. /readyz, /apis/apps/v1) and print the answer as it is.
    #[arg(long, value_name = "PATH")]
    pub raw: Option<String>,
    /// Read this subresource of the objects named (e.g. status, scale) instead of the objects.
    #[arg(long, value_name = "NAME")]
    pub subresource: Option<String>,
}

/// What is read at once: a list, or objects of one type in one namespace, shown together.
struct Visit {
    rt: ResourceType,
    /// The namespace to read in; `None` for all namespaces (or a cluster-scoped type).
    namespace: Option<String>,
    /// The objects to read; `None` lists them all.
    names: Option<Vec<String>>,
}

impl Visit {
    fn scope(&self) -> ListScope<'_> {
        match &self.namespace {
            Some(namespace) => ListScope::Namespace(namespace),
            None => ListScope::AllNamespaces,
        }
    }
}

/// Runs `kubeupd get`.
pub async fn run(args: GetArgs, global: &GlobalArgs) -> Result {
    if let Some(path) = &args.raw {
        if !args.targets.targets.is_empty() || !args.targets.files.filenames.is_empty() {
            return Err(Error::msg("arguments may not be passed when --raw is specified"));
        }
        let cluster = global.connect().await?;
        let answer = cluster.raw(http::Method::GET, path, None).await?;
        return super::write_stdout(&String::from_utf8_lossy(&answer));
    }
    let rules = Rules { verb: "get", types_alone: true, selector: args.selector.is_some() };
    let named = args.targets.named(rules)?;
    let cluster = global.connect().await?;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), args.all_namespaces);
    let resolved = match resolver.resolve(named).await {
        // kubectl prints an unknown kind in a file without its `error: ` prefix.
        Err(err @ resource::Error::UnknownKind { .. }) => {
            eprintln!("{err}");
            return Err(Error::Reported(1));
        }
        resolved => resolved?,
    };
    if args.subresource.is_some() && resolved.iter().any(|item| matches!(item, Resolved::List { .. })) {
        return Err(Error::msg("subresource cannot be used when bulk resources are specified"));
    }
    let single_object = matches!(resolved.as_slice(), [Resolved::Object(_) | Resolved::Manifest(_)]);
    let visits = visits(resolved);
    let mut errors = Vec::new();
    match args.output.output {
        None | Some(Format::Wide) => {
            super::write_stdout(&print_tables(&cluster, &visits, &args, &mut errors).await)?;
        }
        Some(format) => print_objects(&cluster, &visits, &args, format.into(), single_object, &mut errors).await?,
    }
    if errors.is_empty() {
        return Ok(());
    }
    for err in &errors {
        eprintln!("{}", err.line());
    }
    Err(Error::Reported(1))
}

/// Groups the resolved items: objects of one type in one namespace that follow each other are
/// read and shown together, as kubectl does.
fn visits(resolved: Vec<Resolved>) -> Vec<Visit> {
    let mut visits: Vec<Visit> = Vec::with_capacity(resolved.len());
    for item in resolved {
        let visit = match item {
            Resolved::List { rt, namespace } => Visit { rt, namespace, names: None },
            Resolved::Object(ObjectRef { rt, namespace, name })
            | Resolved::Manifest(resource::Manifest { object: ObjectRef { rt, namespace, name }, .. }) => {
                Visit { rt, namespace, names: Some(vec![name]) }
            }
        };
        match (visits.last_mut(), &visit.names) {
            (Some(last), Some(names)) if last.rt == visit.rt && last.namespace == visit.namespace => {
                match &mut last.names {
                    Some(last_names) => last_names.extend(names.iter().cloned()),
                    None => visits.push(visit),
                }
            }
            _ => visits.push(visit),
        }
    }
    visits
}

/// Fetches every visit's table concurrently; a visit's tables are one per named object, or one list.
async fn fetch_tables(
    cluster: &Cluster,
    visits: &[Visit],
    selector: Option<&str>,
    subresource: Option<&str>,
) -> Vec<Vec<Result<Table>>> {
    let table = |document: client::Result<Value>| -> Result<Table> {
        Table::from_document(document?).map_err(|err| Error::msg(format!("the server sent an invalid Table: {err}")))
    };
    join_all(visits.iter().map(|visit| async move {
        match &visit.names {
            Some(names) => {
                join_all(names.iter().map(|name| async {
                    table(cluster.get_table(&visit.rt, visit.namespace.as_deref(), name, subresource).await)
                }))
                .await
            }
            None => vec![table(
                cluster.list_table(&visit.rt, visit.scope(), Selectors { label: selector, field: None }).await,
            )],
        }
    }))
    .await
}

async fn print_tables(cluster: &Cluster, visits: &[Visit], args: &GetArgs, errors: &mut Vec<Error>) -> String {
    let several_types = visits.iter().any(|visit| visit.rt != visits[0].rt);
    let fetched = fetch_tables(cluster, visits, args.selector.as_deref(), args.subresource.as_deref()).await;
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
            wide: args.output.output == Some(Format::Wide),
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
    errors: &mut Vec<Error>,
) -> Result {
    let (selector, subresource) = (args.selector.as_deref(), args.subresource.as_deref());
    let fetched = join_all(visits.iter().map(|visit| async move {
        match &visit.names {
            Some(names) => {
                let namespace = visit.namespace.as_deref();
                join_all(names.iter().map(|name| cluster.get_subresource(&visit.rt, namespace, name, subresource)))
                    .await
            }
            None => {
                vec![
                    cluster
                        .list(&visit.rt, visit.scope(), Selectors { label: selector, field: None })
                        .await
                        .map(|list| list_items(list, &visit.rt)),
                ]
            }
        }
    }))
    .await;
    let mut objects = Vec::new();
    for result in fetched.into_iter().flatten() {
        match result {
            Ok(Value::Array(items)) => objects.extend(items),
            Ok(object) => objects.push(object),
            Err(err) => errors.push(err.into()),
        }
    }
    if !args.output.show_managed_fields {
        objects.iter_mut().for_each(output::strip_managed_fields);
    }
    if single_object && objects.is_empty() {
        return Ok(());
    }
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match output::write_objects(&mut stdout, format, objects, single_object).and_then(|()| stdout.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Other(err.into())),
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
