//! `kubeupd get`: display one or many objects, as a table or as JSON, YAML or names.

use std::io::Write as _;

use clap::Args;
use futures::future::join_all;
use serde_json::Value;

use super::args::{
    AllNamespacesArg, FieldSelectorArg, LabelSelectorArg, OutputArgs, RawArg, SubresourceArg, TargetArgs,
};
use super::{Error, GlobalArgs, Result};
use crate::client::{self, Cluster, ListScope, ResourceType, Selectors};
use crate::gocompat::tabwriter::TabWriter;
use crate::output::{self, Printer, Table, TableOptions, Verb};
use crate::resource::{self, Named, ObjectRef, Resolved, Resolver, Rules};

/// Options of `kubeupd get`.
#[derive(Debug, Args)]
pub struct GetArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub scope: AllNamespacesArg,
    #[command(flatten)]
    pub label: LabelSelectorArg<String>,
    #[command(flatten)]
    pub field: FieldSelectorArg,
    /// Leave out the header line of tables and custom columns.
    #[arg(long)]
    pub no_headers: bool,
    /// Add a LABELS column with every label of the object.
    #[arg(long)]
    pub show_labels: bool,
    /// Add a column with the value of this label (repeatable, or comma-separated).
    #[arg(short = 'L', long = "label-columns", value_name = "KEY", value_delimiter = ',')]
    pub label_columns: Vec<String>,
    /// Sort by the value this JSONPath finds in each object, e.g. `.metadata.creationTimestamp`.
    #[arg(long, value_name = "PATH")]
    pub sort_by: Option<String>,
    /// Print nothing (and succeed) for objects that do not exist.
    #[arg(long)]
    pub ignore_not_found: bool,
    /// Name objects as `kind/name` even when only one type is shown.
    #[arg(long)]
    pub show_kind: bool,
    /// Read lists in pages of this many objects (0: all at once).
    #[arg(long, value_name = "COUNT", default_value_t = 500, allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub chunk_size: i64,
    /// After printing the objects, print each change to them as it happens (until interrupted or
    /// the server ends the watch).
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// Print only the changes, not the objects as they are first.
    #[arg(long)]
    pub watch_only: bool,
    /// With --watch: print each object inside its event, `{"type": "MODIFIED", "object": ...}`.
    #[arg(long)]
    pub output_watch_events: bool,
    /// Let the server print the table (true), or print only each object's name and age (false).
    #[arg(long, value_name = "BOOL", default_value_t = true)]
    pub server_print: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub raw: RawArg,
    #[command(flatten)]
    pub subresource: SubresourceArg,
}

impl GetArgs {
    fn selectors(&self) -> Selectors<'_> {
        Selectors { label: self.label.selector.as_deref(), field: self.field.selector.as_deref() }
    }
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

/// What `get` is asked, checked before any request.
enum Options {
    /// `--raw PATH`: one GET of a path of the server, its answer printed as it is.
    Raw(String),
    /// The objects named, or listed by type, printed with `printer` (`None`: as tables).
    Objects { named: Vec<Named>, printer: Option<Printer> },
}

impl GetArgs {
    /// kubectl's checks of the flags, and the objects the arguments and files name.
    fn options(&self) -> Result<Options> {
        if let Some(path) = &self.raw.path {
            if !self.targets.targets.is_empty() || self.targets.files.given() {
                return Err(Error::msg("arguments may not be passed when --raw is specified"));
            }
            return Ok(Options::Raw(path.clone()));
        }
        // kubectl's checks of the printer flags, in its order (the second came with 1.37).
        let format = self.output.output.as_deref().unwrap_or_default();
        if self.show_labels && !format.is_empty() && format != "wide" {
            return Err(Error::msg(format!("--show-labels option cannot be used with {format} printer")));
        }
        if !self.label_columns.is_empty() && format.starts_with("custom-columns") {
            return Err(Error::msg(format!("--label-columns option cannot be used with {format} printer")));
        }
        if self.output_watch_events && !(self.watch || self.watch_only) {
            return Err(Error::msg("--output-watch-events option can only be used with --watch or --watch-only"));
        }
        if self.targets.targets.is_empty() && !self.targets.files.given() {
            // kubectl's two parts: a hint, then the error.
            eprintln!(
                "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n"
            );
            return Err(Error::msg(
                "Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubeupd get -h' for help and examples",
            ));
        }
        let printer = self.output.printer(Verb::Get)?.cloned();
        let selecting = self.label.selector.is_some() || self.field.selector.is_some();
        let rules = Rules { verb: "get", types_alone: true, selector: selecting };
        Ok(Options::Objects { named: self.targets.named(rules)?, printer })
    }
}

/// Runs `kubeupd get`.
pub async fn run(args: GetArgs, global: &GlobalArgs) -> Result {
    let (named, printer) = match args.options()? {
        Options::Raw(path) => {
            let cluster = global.connect().await?;
            let answer = cluster.raw(http::Method::GET, &path, None).await?;
            return super::write_stdout(&String::from_utf8_lossy(&answer));
        }
        Options::Objects { named, printer } => (named, printer),
    };
    let cluster = global.connect().await?;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), args.scope.all_namespaces);
    let resolved = resolve_reading(&resolver, named).await?;
    if args.subresource.name.is_some() && resolved.iter().any(|item| matches!(item, Resolved::List { .. })) {
        return Err(Error::msg("subresource cannot be used when bulk resources are specified"));
    }
    let single_object = matches!(resolved.as_slice(), [Resolved::Object(_) | Resolved::Manifest(_)]);
    let visits = visits(resolved);
    if args.watch || args.watch_only {
        let watching = watch(&cluster, &visits, &args, printer);
        // kubectl's watch is one request: --request-timeout ends it, quietly.
        return match global.connect_options().request_timeout {
            None => watching.await,
            Some(timeout) => tokio::time::timeout(timeout, watching).await.unwrap_or(Ok(())),
        };
    }
    let mut errors = Vec::new();
    match printer {
        None | Some(Printer::Wide) => {
            let wide = printer.is_some();
            super::write_stdout(&print_tables(&cluster, &visits, &args, wide, &mut errors).await)?;
        }
        Some(printer) => print_objects(&cluster, &visits, &args, printer, single_object, &mut errors).await?,
    }
    if args.ignore_not_found {
        errors.retain(|err| !err.is_not_found());
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
async fn fetch_tables(cluster: &Cluster, visits: &[Visit], args: &GetArgs) -> Vec<Vec<Result<Table>>> {
    let whole_objects = args.sort_by.is_some();
    let subresource = args.subresource.name.as_deref();
    if !args.server_print {
        return join_all(visits.iter().map(|visit| async move {
            let objects = match &visit.names {
                Some(names) => {
                    let namespace = visit.namespace.as_deref();
                    join_all(names.iter().map(|name| cluster.get_subresource(&visit.rt, namespace, name, subresource)))
                        .await
                }
                None => vec![list_all(cluster, visit, args).await.map_err(|err| list_error(err, &visit.rt, args))],
            };
            let now = std::time::SystemTime::now();
            let table = |read: client::Result<Value>| {
                let objects = match read? {
                    Value::Array(items) => items,
                    object => vec![object],
                };
                Ok(Table::of_objects(objects, now))
            };
            objects.into_iter().map(table).collect()
        }))
        .await;
    }
    let table =
        |document: client::Result<Value>| -> Result<Table> { Table::from_document(document?).map_err(invalid_table) };
    join_all(visits.iter().map(|visit| async move {
        match &visit.names {
            Some(names) => {
                join_all(names.iter().map(|name| async {
                    table(
                        cluster
                            .get_table(&visit.rt, visit.namespace.as_deref(), name, subresource, whole_objects)
                            .await,
                    )
                }))
                .await
            }
            None => {
                let list = cluster.list_table(&visit.rt, visit.scope(), args.selectors(), whole_objects).await;
                vec![table(list.map_err(|err| list_error(err, &visit.rt, args)))]
            }
        }
    }))
    .await
}

async fn print_tables(
    cluster: &Cluster,
    visits: &[Visit],
    args: &GetArgs,
    wide: bool,
    errors: &mut Vec<Error>,
) -> String {
    let several_types = visits.iter().any(|visit| visit.rt != visits[0].rt);
    let fetched = fetch_tables(cluster, visits, args).await;
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
        // A table that cannot be sorted shows nothing ("No resources found"), as kubectl's does.
        if let (Some(path), Some(table)) = (&args.sort_by, &mut merged)
            && output::sort::sort_by(&mut table.rows, path, |row| &row.object).is_err()
        {
            table.rows.clear();
        }
        let options = TableOptions {
            wide,
            namespace_column: args.scope.all_namespaces && visit.rt.namespaced,
            kind_prefix: (several_types || args.show_kind).then(|| visit.rt.group_kind_lower()),
            no_headers: args.no_headers,
            label_columns: args.label_columns.clone(),
            show_labels: args.show_labels,
        };
        let text = merged.map(|table| output::render_table(&table, &options)).unwrap_or_default();
        // A blank line between tables, as kubectl, but not between headerless ones.
        if !text.is_empty() && !out.is_empty() && !args.no_headers {
            out.push('\n');
        }
        out.push_str(&text);
    }
    if out.is_empty() && errors.is_empty() && !args.ignore_not_found {
        let every_type_namespaced = visits.iter().all(|visit| visit.rt.namespaced);
        match visits.first().and_then(|visit| visit.namespace.as_deref()) {
            Some(namespace) if every_type_namespaced && !args.scope.all_namespaces => {
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
    mut printer: Printer,
    single_object: bool,
    errors: &mut Vec<Error>,
) -> Result {
    if let Printer::CustomColumns(columns) = &mut printer {
        columns.no_headers = args.no_headers;
    }
    let subresource = args.subresource.name.as_deref();
    let fetched = join_all(visits.iter().map(|visit| async move {
        match &visit.names {
            Some(names) => {
                let namespace = visit.namespace.as_deref();
                join_all(names.iter().map(|name| cluster.get_subresource(&visit.rt, namespace, name, subresource)))
                    .await
            }
            None => vec![list_all(cluster, visit, args).await.map_err(|err| list_error(err, &visit.rt, args))],
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
    if !args.output.show_managed_fields && printer.hides_managed_fields() {
        objects.iter_mut().for_each(output::strip_managed_fields);
    }
    if single_object && objects.is_empty() {
        return Ok(());
    }
    if let Some(path) = &args.sort_by {
        output::sort::sort_by(&mut objects, path, |object| object).map_err(|err| Error::msg(err.to_string()))?;
    }
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let written = printer.write(&mut stdout, objects, single_object);
    match written.and_then(|()| stdout.flush().map_err(output::PrintError::Io)) {
        Err(output::PrintError::Io(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(err) => Err(super::args::print_error(err)),
        Ok(()) => Ok(()),
    }
}

/// A list the server refused (400 or 404), in kubectl's words: `Unable to find "/v1,
/// Resource=configmaps" that match label selector "", field selector "x=1": ...`.
fn list_error(err: client::Error, rt: &ResourceType, args: &GetArgs) -> client::Error {
    let resource = format!("{}/{}, Resource={}", rt.group, rt.version, rt.resource);
    let reword = |mut status: client::Status| {
        status.message = if args.label.selector.is_none() && args.field.selector.is_none() {
            format!("Unable to list {resource:?}: {}", status.message)
        } else {
            format!(
                "Unable to find {resource:?} that match label selector {:?}, field selector {:?}: {}",
                args.label.selector.as_deref().unwrap_or_default(),
                args.field.selector.as_deref().unwrap_or_default(),
                status.message
            )
        };
        status
    };
    match err {
        client::Error::BadRequest(status) => client::Error::BadRequest(reword(status)),
        client::Error::NotFound(status) => client::Error::NotFound(reword(status)),
        other => other,
    }
}

/// Every object of a list, read in pages of `--chunk-size` with the server's continue tokens.
async fn list_all(cluster: &Cluster, visit: &Visit, args: &GetArgs) -> client::Result<Value> {
    let Ok(chunk_size @ 1..) = u32::try_from(args.chunk_size.min(i64::from(u32::MAX))) else {
        return cluster.list(&visit.rt, visit.scope(), args.selectors()).await.map(|list| list_items(list, &visit.rt));
    };
    let mut items = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let page = cluster.list_page(&visit.rt, visit.scope(), args.selectors(), chunk_size, token.as_deref()).await?;
        token = page.pointer("/metadata/continue").and_then(Value::as_str).filter(|t| !t.is_empty()).map(String::from);
        if let Value::Array(page_items) = list_items(page, &visit.rt) {
            items.extend(page_items);
        }
        if token.is_none() {
            return Ok(Value::Array(items));
        }
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

/// How long one watch may stay open; the server may end it sooner, which ends `get --watch` as it
/// ends kubectl's.
const WATCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// `--watch`/`--watch-only`: the objects as they are (unless `--watch-only`), then each change,
/// printed as it comes: tables a row per change, other formats each object alone. As in kubectl,
/// everything passes through its tab writer, flushed after the first objects and each change.
async fn watch(cluster: &Cluster, visits: &[Visit], args: &GetArgs, printer: Option<Printer>) -> Result {
    let [visit] = visits else { return Err(Error::msg("you may only specify a single resource type")) };
    let name_selector = match visit.names.as_deref() {
        Some([name]) => {
            // kubectl reads the object first: one that does not exist is its error, or (1.34 and
            // later) nothing at all with --ignore-not-found.
            match cluster.get(&visit.rt, visit.namespace.as_deref(), name).await {
                Err(client::Error::NotFound(_)) if args.ignore_not_found => return Ok(()),
                Err(err) => return Err(err.into()),
                Ok(_) => Some(format!("metadata.name={name}")),
            }
        }
        Some(names) => {
            // kubectl shows the objects, then finds that it cannot watch several.
            if !args.watch_only {
                show_named(cluster, visit, names, args, printer).await?;
            }
            return Err(Error::msg("you may only watch a single resource or type of resource at a time"));
        }
        None => None,
    };
    let field = match (&name_selector, &args.field.selector) {
        (Some(name), Some(field)) => Some(format!("{name},{field}")),
        (name, field) => name.clone().or_else(|| field.clone()),
    };
    let selectors = Selectors { label: args.label.selector.as_deref(), field: field.as_deref() };
    let mut shown = match printer {
        None | Some(Printer::Wide) => Watched::Tables(output::TableStream::new(TableOptions {
            wide: printer.is_some(),
            namespace_column: args.scope.all_namespaces && visit.rt.namespaced,
            kind_prefix: args.show_kind.then(|| visit.rt.group_kind_lower()),
            no_headers: args.no_headers,
            label_columns: args.label_columns.clone(),
            show_labels: args.show_labels,
        })),
        Some(mut printer) => {
            if let Printer::CustomColumns(columns) = &mut printer {
                columns.no_headers = args.no_headers;
            }
            Watched::Objects(printer, TabWriter::kubectl(), true)
        }
    };
    // Tables the server prints, unless --server-print=false: then kubectl's own NAME and AGE.
    let tables = matches!(shown, Watched::Tables(_)) && args.server_print;
    let table_of = |object: Value| -> Result<Table> {
        match args.server_print {
            true => Table::from_document(object).map_err(invalid_table),
            false => {
                // The list first, then each changed object alone.
                let objects = match object.get("items") {
                    Some(_) => match list_items(object, &visit.rt) {
                        Value::Array(items) => items,
                        _ => Vec::new(),
                    },
                    None => vec![object],
                };
                Ok(Table::of_objects(objects, std::time::SystemTime::now()))
            }
        }
    };
    let list = match tables {
        true => cluster.list_table(&visit.rt, visit.scope(), selectors, false).await,
        false => cluster.list(&visit.rt, visit.scope(), selectors).await,
    };
    let list = list.map_err(|err| list_error(err, &visit.rt, args))?;
    let version = list.pointer("/metadata/resourceVersion").and_then(Value::as_str).map(String::from);
    if !args.watch_only {
        let text = match &mut shown {
            Watched::Tables(stream) => {
                let event = args.output_watch_events.then_some("ADDED");
                stream.print(event, table_of(list)?)
            }
            Watched::Objects(printer, writer, first) => {
                let mut text = String::new();
                if let Value::Array(items) = list_items(list, &visit.rt) {
                    for item in items {
                        text.push_str(&writer.write(&object_text(printer, args, "ADDED", item, first)?));
                    }
                }
                text + &writer.flush()
            }
        };
        show(&text)?;
    }
    let options = client::WatchOptions { selectors, resource_version: version.as_deref(), timeout: WATCH_TIMEOUT };
    let mut events = match tables {
        true => cluster.watch_tables(&visit.rt, visit.scope(), &options).await?,
        false => cluster.watch(&visit.rt, visit.scope(), &options).await?,
    };
    while let Some(event) = futures::StreamExt::next(&mut events).await {
        let (kind, object) = match event? {
            client::WatchEvent::Added(object) => ("ADDED", object),
            client::WatchEvent::Modified(object) => ("MODIFIED", object),
            client::WatchEvent::Deleted(object) => ("DELETED", object),
            client::WatchEvent::Bookmark(_) => continue,
        };
        let text = match &mut shown {
            Watched::Tables(stream) => {
                let event = args.output_watch_events.then_some(kind);
                stream.print(event, table_of(object)?)
            }
            Watched::Objects(printer, writer, first) => {
                writer.write(&object_text(printer, args, kind, object, first)?) + &writer.flush()
            }
        };
        show(&text)?;
    }
    Ok(())
}

/// The objects of `names` as `get --watch` shows them before it watches: a table of them, or each
/// alone; nothing when one cannot be read, whose error is the result.
async fn show_named(
    cluster: &Cluster,
    visit: &Visit,
    names: &[String],
    args: &GetArgs,
    printer: Option<Printer>,
) -> Result {
    let text = match printer {
        None | Some(Printer::Wide) => {
            let mut errors = Vec::new();
            let text = print_tables(cluster, std::slice::from_ref(visit), args, printer.is_some(), &mut errors).await;
            if let Some(err) = errors.into_iter().next() {
                return Err(err);
            }
            text
        }
        Some(printer) => {
            let (mut writer, mut first, mut text) = (TabWriter::kubectl(), true, String::new());
            for name in names {
                let object = cluster.get(&visit.rt, visit.namespace.as_deref(), name).await?;
                text.push_str(&writer.write(&object_text(&printer, args, "ADDED", object, &mut first)?));
            }
            text + &writer.flush()
        }
    };
    show(&text)
}

/// How `get --watch` shows what it sees.
enum Watched {
    Tables(output::TableStream),
    /// A printer of objects, the tab writer, and whether nothing was printed yet.
    Objects(Printer, TabWriter, bool),
}

/// One object as `printer` prints it in watch mode, inside its event with `--output-watch-events`;
/// custom columns as tabbed cells for the tab writer, their header before the `first` object.
fn object_text(printer: &Printer, args: &GetArgs, kind: &str, mut object: Value, first: &mut bool) -> Result<String> {
    if !args.output.show_managed_fields && printer.hides_managed_fields() {
        output::strip_managed_fields(&mut object);
    }
    let shown = if args.output_watch_events { serde_json::json!({"type": kind, "object": object}) } else { object };
    let header = std::mem::replace(first, false);
    match printer {
        Printer::CustomColumns(columns) => {
            columns.tabbed(&shown, header).map_err(|err| super::args::print_error(err.into()))
        }
        printer => printer.render(&shown).map_err(super::args::print_error),
    }
}

/// Prints `text` at once: each change is shown as it happens, even when no line ends.
fn show(text: &str) -> Result {
    super::write_stdout(text)?;
    std::io::Write::flush(&mut std::io::stdout()).map_err(|err| Error::Other(err.into()))
}

fn invalid_table(err: serde_json::Error) -> Error {
    Error::msg(format!("the server sent an invalid Table: {err}"))
}

/// What the user named, resolved as kubectl's reading verbs (`get`, `describe`) resolve it: an
/// unknown kind in a file is printed without kubectl's `error: ` prefix.
pub(super) async fn resolve_reading(resolver: &Resolver<'_>, named: Vec<resource::Named>) -> Result<Vec<Resolved>> {
    match resolver.resolve(named).await {
        Err(err @ resource::Error::UnknownKind { .. }) => {
            eprintln!("{err}");
            Err(Error::Reported(1))
        }
        resolved => Ok(resolved?),
    }
}
