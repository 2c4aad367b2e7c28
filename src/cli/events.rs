//! `kubeupd events`: the events of a namespace (or of all, `-A`), of one object (`--for`), of
//! some types (`--types`), as kubectl 1.37's table (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE)
//! sorted by when each was last seen, or printed with `-o`; `-w` prints them as they come.

use std::time::{Duration, SystemTime};

use clap::Args;
use futures::StreamExt as _;
use serde_json::{Value, json};

use super::args::{AllNamespacesArg, OutputArgs};
use super::{Error, GlobalArgs, Result};
use crate::client::{Cluster, ListScope, Selectors, WatchEvent, WatchOptions};
use crate::gocompat::tabwriter::TabWriter;
use crate::output::{self, Printer, Verb};

/// The page size of kubectl's list of events (`cmdutil.DefaultChunkSize`; `--chunk-size` is not read).
const PAGE: u32 = 500;

/// How long a watch of events lasts before the server ends it, as the server's default does.
const WATCH_FOR: Duration = Duration::from_secs(1800);

/// Options of `kubeupd events`.
#[derive(Debug, Args)]
pub struct EventsArgs {
    #[command(flatten)]
    pub all_namespaces: AllNamespacesArg,
    /// Only the events of this object, TYPE/NAME.
    #[arg(long = "for", value_name = "TYPE/NAME")]
    pub for_object: Option<String>,
    /// Only the events of these types: Normal, Warning.
    #[arg(long, value_name = "TYPE,...", value_delimiter = ',')]
    pub types: Vec<String>,
    /// After the events there are, print each new one as it comes.
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// The table without its header line.
    #[arg(long)]
    pub no_headers: bool,
    /// Accepted for kubectl's scripts: kubectl's events reads in pages of 500 whatever it says.
    #[arg(long, value_name = "COUNT", default_value_t = 500, allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub chunk_size: i64,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--for`'s object: its type as the user wrote it, and its name.
struct ForObject {
    type_arg: String,
    name: String,
}

/// What is shown: the `-o` printer (`None`: kubectl's table) and the event types kept (empty:
/// all), sorted and each once.
struct Shown {
    printer: Option<Printer>,
    types: Vec<String>,
}

/// The checked options.
struct Options {
    for_object: Option<ForObject>,
    /// The printer and the types, or kubectl's error for them. kubectl checks them after it has
    /// asked the server for `--for`'s type, so with `--for` that error waits for the answer.
    shown: Result<Shown>,
}

/// kubectl's checks, in its order: `--for`'s form, then the printer, then the types. Without
/// `--for` no request comes between them and all are reported here.
fn options(args: &EventsArgs) -> Result<Options> {
    let for_object = match args.for_object.as_deref().filter(|text| !text.is_empty()) {
        None => None,
        Some(text) => match text.split('/').collect::<Vec<_>>().as_slice() {
            [_] => return Err(Error::msg("--for must be in resource/name form")),
            [type_arg, name] => Some(ForObject { type_arg: type_arg.to_string(), name: name.to_string() }),
            _ => return Err(Error::msg("arguments in resource/name form may not have more than one slash")),
        },
    };
    let shown = shown(args);
    match (for_object, shown) {
        (None, Err(err)) => Err(err),
        (for_object, shown) => Ok(Options { for_object, shown }),
    }
}

/// The printer, then the types, checked as kubectl checks them.
fn shown(args: &EventsArgs) -> Result<Shown> {
    let printer = args.output.printer(Verb::Write)?.cloned();
    let mut types: Vec<String> = args.types.clone();
    types.sort();
    types.dedup();
    if types.iter().any(|kind| !kind.eq_ignore_ascii_case("Normal") && !kind.eq_ignore_ascii_case("Warning")) {
        return Err(Error::msg("valid --types are Normal or Warning"));
    }
    Ok(Shown { printer, types })
}

/// Runs `kubeupd events`.
pub async fn run(args: EventsArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let field_selector = match &options.for_object {
        Some(ForObject { type_arg, name }) => {
            // kubectl prints the mapper's error as it is, without `error: `.
            let rt = match cluster.resolve(type_arg).await {
                Err(err @ crate::client::Error::Mapping(_)) => {
                    eprintln!("{}", err.line().trim_start_matches("error: "));
                    return Err(Error::Reported(1));
                }
                other => other?,
            };
            Some(format!(
                "involvedObject.kind={},involvedObject.apiVersion={},involvedObject.name={name}",
                rt.kind,
                rt.api_version()
            ))
        }
        None => None,
    };
    let Shown { printer, types } = options.shown?;
    let wanted = |event: &Value| {
        let kind = event["type"].as_str().unwrap_or_default();
        types.is_empty() || types.iter().any(|wanted| wanted.eq_ignore_ascii_case(kind))
    };
    let namespace = cluster.default_namespace().to_string();
    let scope =
        if args.all_namespaces.all_namespaces { ListScope::AllNamespaces } else { ListScope::Namespace(&namespace) };
    let selectors = Selectors { label: None, field: field_selector.as_deref() };
    let events_type = cluster.resolve("events").await?;
    let view = View { printer: printer.as_ref(), args: &args };
    if args.watch {
        return watch(&cluster, &events_type, scope, selectors, &view, &wanted).await;
    }
    let mut events = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut page = cluster.list_page(&events_type, scope, selectors, PAGE, token.as_deref()).await?;
        events.extend(page["items"].as_array_mut().map(std::mem::take).unwrap_or_default());
        match page["metadata"]["continue"].as_str().filter(|token| !token.is_empty()) {
            Some(next) => token = Some(next.to_string()),
            None => break,
        }
    }
    let mut events: Vec<Value> = events.into_iter().filter(|event| wanted(event)).map(typed).collect();
    if events.is_empty() {
        match args.all_namespaces.all_namespaces {
            true => eprintln!("No events found."),
            false => eprintln!("No events found in {namespace} namespace."),
        }
        return Ok(());
    }
    output::sort_events(&mut events);
    let text = match view.printer {
        None => {
            let mut table = TabWriter::kubectl();
            let mut text = String::new();
            if !args.no_headers {
                text += &table.write(&output::events_header(args.all_namespaces.all_namespaces));
            }
            let now = SystemTime::now();
            for event in &events {
                text += &table.write(&output::event_row(event, args.all_namespaces.all_namespaces, now));
            }
            text + &table.flush()
        }
        Some(printer) => view.objects(printer, events, true)?,
    };
    super::write_stdout(&text)
}

/// An event as kubectl prints it: the `apiVersion` and `kind` a list's items lack.
fn typed(mut event: Value) -> Value {
    if let Some(map) = event.as_object_mut() {
        map.entry("apiVersion").or_insert_with(|| "v1".into());
        map.entry("kind").or_insert_with(|| "Event".into());
    }
    event
}

/// How events are printed: kubectl's table, or the `-o` printer.
struct View<'a> {
    printer: Option<&'a Printer>,
    args: &'a EventsArgs,
}

impl View<'_> {
    /// `events` through `printer`: in an `EventList` (`as_list`), or one alone.
    fn objects(&self, printer: &Printer, mut events: Vec<Value>, as_list: bool) -> Result<String> {
        if printer.hides_managed_fields() && !self.args.output.show_managed_fields {
            events.iter_mut().for_each(output::strip_managed_fields);
        }
        let document = match (printer, as_list) {
            // kubectl's name printer prints nothing of the EventList it builds.
            (Printer::Name, true) => return Ok(String::new()),
            (_, true) => json!({"apiVersion": "v1", "kind": "EventList", "metadata": {}, "items": events}),
            (_, false) => events.into_iter().next().unwrap_or_default(),
        };
        // kubectl prints Go structs: JSON with the keys in their fields' order.
        printer.render_typed(&document).map_err(|err| Error::msg(err.to_string()))
    }
}

/// `-w`: each event as the watch brings it (the present ones first, in the server's order),
/// deleted ones left out; until the server ends the watch.
async fn watch(
    cluster: &Cluster,
    events_type: &crate::client::ResourceType,
    scope: ListScope<'_>,
    selectors: Selectors<'_>,
    view: &View<'_>,
    wanted: &dyn Fn(&Value) -> bool,
) -> Result {
    let options = WatchOptions { selectors, resource_version: None, timeout: WATCH_FOR };
    let mut stream = cluster.watch(events_type, scope, &options).await?;
    let all_namespaces = view.args.all_namespaces.all_namespaces;
    let mut table = TabWriter::kubectl();
    let mut header = !view.args.no_headers;
    let mut printed = 0;
    while let Some(event) = stream.next().await {
        let event = match event {
            Ok(WatchEvent::Added(event) | WatchEvent::Modified(event)) if wanted(&event) => typed(event),
            Ok(_) => continue,
            // kubectl ends quietly when the watch fails or ends.
            Err(_) => return Ok(()),
        };
        let text = match view.printer {
            None => {
                let mut text = String::new();
                if std::mem::take(&mut header) {
                    text += &table.write(&output::events_header(all_namespaces));
                }
                text += &table.write(&output::event_row(&event, all_namespaces, SystemTime::now()));
                text + &table.flush()
            }
            Some(printer) => {
                let text = view.objects(printer, vec![event], false)?;
                let separated = matches!(printer, Printer::Yaml) && printed > 0;
                if separated { format!("---\n{text}") } else { text }
            }
        };
        printed += 1;
        super::write_stdout(&text)?;
        let _ = std::io::Write::flush(&mut std::io::stdout());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "events"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Events(args) => options(&args),
            _ => unreachable!(),
        }
    }

    fn refusal(line: &[&str]) -> String {
        parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line()
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = parse(&["--for", "pod/web", "--types", "warning,Normal,warning", "-o", "name"]).unwrap();
        let for_object = options.for_object.unwrap();
        assert_eq!((for_object.type_arg.as_str(), for_object.name.as_str()), ("pod", "web"));
        let shown = options.shown.unwrap();
        assert_eq!(shown.types, ["Normal", "warning"]);
        assert!(matches!(shown.printer, Some(Printer::Name)));
        let options = parse(&[]).unwrap();
        assert!(options.for_object.is_none());
        assert!(options.shown.is_ok_and(|shown| shown.printer.is_none() && shown.types.is_empty()));
        // The form of --for first, then the printer, then the types.
        for (line, expected) in [
            (&["--for", "web", "-o", "bad"][..], "error: --for must be in resource/name form"),
            (
                &["--for", "a/b/c", "-o", "bad"],
                "error: arguments in resource/name form may not have more than one slash",
            ),
            (&["-o", "bad", "--types", "X"], "error: unable to match a printer suitable for the output format \"bad\""),
            (&["--types", "Normal,X"], "error: valid --types are Normal or Warning"),
        ] {
            let refused = refusal(line);
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }

    #[test]
    fn with_for_the_printer_and_types_are_refused_after_its_type_is_read() {
        let options = parse(&["--for", "pods/web", "-o", "bad", "--types", "X"]).unwrap();
        let refused = options.shown.err().expect("refused").line();
        assert!(refused.starts_with("error: unable to match a printer"), "{refused}");
        let options = parse(&["--for", "pods/web", "--types", "X"]).unwrap();
        assert_eq!(options.shown.err().expect("refused").line(), "error: valid --types are Normal or Warning");
    }
}
