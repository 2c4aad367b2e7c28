//! `--context` naming several contexts (`a,b,c`, `'prod-*'`): the command runs on every cluster at
//! once, each line prefixed with its context (`[prod-eu] deployment.apps/web configured`), then a
//! table of what each did; the exit status is 0 only when every cluster succeeded. kubeupd runs
//! itself once per context ([`crate::fleet`]), so what a context prints is what kubeupd prints
//! for it alone. `apply --canary N` applies to the first N contexts and waits until what it
//! applied there is ready before it touches the others; `diff --plan-out` writes one plan for all
//! of them, which `apply --plan` applies only if it still holds on every one.

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use serde_json::{Map, Value};

use super::apply::{ApplyFlags, plan_differences};
use super::{Command, Error, GlobalArgs, Result};
use crate::apply::saved_plan::SavedPlan;
use crate::client;
use crate::fleet::command_line::{self, document_output, reads_stdin};
use crate::fleet::run::{Job, Settings, run_all};
use crate::fleet::{self, Finished, FleetPlan, Stream};
use crate::gocompat::tabwriter::TabWriter;
use crate::output;

/// The flag that makes a canary's apply wait until what it applied is ready.
const READINESS_FLAG: &str = "--wait-ready";

/// The contexts `--context` selects when it names several; `None` for one context (the
/// kubeconfig is read only when the value is a list or a pattern).
pub(super) fn selection(global: &GlobalArgs) -> Result<Option<Vec<String>>> {
    let Some(value) = global.context.as_deref().filter(|value| value.contains([',', '*', '?', '['])) else {
        return Ok(None);
    };
    let names = client::context_names(&global.connect_options())?;
    fleet::select(value, &names).map_err(Error::msg)
}

/// What a context's row of the table says beyond its process's exit.
enum Row {
    Ran(Finished),
    /// Not started, and why.
    NotRun {
        context: String,
        reason: &'static str,
    },
}

/// What a run over several contexts does, checked before any context is started.
struct Options<'a> {
    /// The flags of an apply of files (not of its subcommands).
    apply: Option<&'a ApplyFlags>,
    /// How many contexts are the canaries (0: none).
    canary: usize,
    /// `apply --plan`: its file, and the plan read from it, which covers the contexts selected.
    plan: Option<(&'a Path, FleetPlan)>,
}

/// The commands that work on one context refused, `--canary` within the contexts, and
/// `apply --plan`'s file read and matched with the contexts selected.
fn options<'a>(command: &'a Command, contexts: &[String]) -> Result<Options<'a>> {
    let apply = match command {
        Command::Apply(apply) if apply.command.is_none() => Some(&apply.flags),
        Command::Edit(_) => return Err(Error::msg("edit works on one context at a time: --context names several")),
        Command::Proxy(_) => return Err(Error::msg("proxy serves one context at a time: --context names several")),
        _ => None,
    };
    let canary = apply.and_then(|flags| flags.canary).unwrap_or(0);
    if apply.and_then(|flags| flags.canary).is_some() && !(1..contexts.len()).contains(&canary) {
        return Err(Error::msg(format!(
            "--canary {canary}: from 1 to {} for {} contexts (the canaries, then the rest)",
            contexts.len() - 1,
            contexts.len()
        )));
    }
    let plan = match apply.and_then(|flags| flags.plan.as_deref()) {
        Some(path) => Some((path, read_fleet_plan(path, contexts)?)),
        None => None,
    };
    Ok(Options { apply, canary, plan })
}

/// Runs `command` (given as `args`) on every context of `contexts`.
pub(super) async fn run(command: &Command, args: &[OsString], contexts: Vec<String>, global: &GlobalArgs) -> Result {
    let Options { apply, canary, plan } = options(command, &contexts)?;
    let work = tempfile::tempdir().map_err(|err| Error::msg(format!("cannot make a working directory: {err}")))?;
    let part_file =
        |context: &str| work.path().join(format!("{}.plan", contexts.iter().position(|c| c == context).unwrap_or(0)));
    let mut replaced_flag = None;
    let stdin = if reads_stdin(args) {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
            .map_err(|err| Error::msg(format!("cannot read the standard input: {err}")))?;
        Some(Arc::new(bytes))
    } else {
        None
    };
    if let Some(flags) = apply
        && let Some((path, plan)) = &plan
    {
        let mut flags = flags.clone();
        if let Some(bytes) = &stdin {
            // Each context's check reads the input: the standard input, read once, as a file.
            let file = work.path().join("stdin");
            std::fs::write(&file, bytes.as_slice())
                .map_err(|err| Error::msg(format!("cannot write {}: {err}", file.display())))?;
            flags
                .input
                .files
                .filenames
                .iter_mut()
                .filter(|name| name.as_os_str() == "-")
                .for_each(|name| *name = file.clone());
        }
        check_plan_everywhere(plan, path, &flags, global).await?;
        for (context, part) in &plan.contexts {
            std::fs::write(part_file(context), part.to_text())
                .map_err(|err| Error::msg(format!("cannot write {}: {err}", part_file(context).display())))?;
        }
        replaced_flag = Some("--plan");
    }
    let plan_out = match command {
        Command::Diff(diff) => diff.plan_out.clone(),
        _ => None,
    };
    if plan_out.is_some() {
        replaced_flag = Some("--plan-out");
    }
    let program = std::env::current_exe().map_err(|err| Error::msg(format!("cannot find kubeupd itself: {err}")))?;
    let document = document_output(args);
    let settings = Settings {
        program: &program,
        concurrency: global.cluster_concurrency,
        stdin,
        keep_stdout: document.is_some(),
        totals_dir: work.path(),
    };
    let jobs = |contexts: &[String], extra: &[&str]| -> Vec<Job> {
        (contexts.iter())
            .map(|context| {
                let file = part_file(context);
                let values: Vec<(&str, &OsStr)> = replaced_flag.iter().map(|flag| (*flag, file.as_os_str())).collect();
                Job { context: context.clone(), args: command_line::for_context(args, context, &values, extra) }
            })
            .collect()
    };
    let mut rows = Vec::new();
    let (canaries, rest) = contexts.split_at(canary);
    if !canaries.is_empty() {
        let finished = run_all(jobs(canaries, &[READINESS_FLAG]), &settings, &print_line).await;
        let failed: Vec<&str> =
            finished.iter().filter(|run| !run.succeeded()).map(|run| run.context.as_str()).collect();
        if !failed.is_empty() {
            eprintln!(
                "error: the canary failed on {}: {} not touched",
                failed.join(", "),
                if rest.len() == 1 { "the other context was" } else { "the other contexts were" }
            );
            rows.extend(finished.into_iter().map(Row::Ran));
            rows.extend(
                rest.iter()
                    .map(|context| Row::NotRun { context: context.clone(), reason: "not run: the canary failed" }),
            );
            print_table(&rows);
            return Err(Error::Reported(1));
        }
        rows.extend(finished.into_iter().map(Row::Ran));
    }
    rows.extend(run_all(jobs(rest, &[]), &settings, &print_line).await.into_iter().map(Row::Ran));
    let finished: Vec<&Finished> = rows
        .iter()
        .filter_map(|row| match row {
            Row::Ran(run) => Some(run),
            Row::NotRun { .. } => None,
        })
        .collect();
    if let Some(format) = document {
        print!("{}", gathered_documents(&finished, format));
    }
    let mut status = finished.iter().map(|run| exit_status(run)).max().unwrap_or(0);
    if let Some(path) = &plan_out {
        status = status.max(write_fleet_plan(path, &finished, &part_file));
    }
    print_table(&rows);
    match status {
        0 => Ok(()),
        status => Err(Error::Reported(status)),
    }
}

/// A line of one context's output, prefixed with it, written whole.
fn print_line(context: &str, stream: Stream, line: &str) {
    let text = format!("[{context}] {line}\n");
    // A reader that went away (`| head`) ends the run's printing, not the run.
    let _ = match stream {
        Stream::Stdout => std::io::stdout().lock().write_all(text.as_bytes()),
        Stream::Stderr => std::io::stderr().lock().write_all(text.as_bytes()),
    };
}

/// A context's exit status as the run's: a process that could not start or was killed is 1.
fn exit_status(run: &Finished) -> u8 {
    match run.code {
        Some(code) => u8::try_from(code).unwrap_or(1),
        None => 1,
    }
}

/// The plan file of `apply --plan`, which must cover exactly the contexts selected.
fn read_fleet_plan(path: &Path, contexts: &[String]) -> Result<FleetPlan> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| Error::msg(format!("cannot read the plan {}: {err}", path.display())))?;
    if !FleetPlan::is_fleet_plan(&text) && SavedPlan::read(&text).is_ok() {
        return Err(Error::msg(format!(
            "the plan in {} was made for one context: apply it with that --context alone",
            path.display()
        )));
    }
    let plan = FleetPlan::read(&text).map_err(|err| Error::msg(format!("{}: {err}", path.display())))?;
    let mut planned = plan.context_names();
    let mut selected: Vec<&str> = contexts.iter().map(String::as_str).collect();
    planned.sort_unstable();
    selected.sort_unstable();
    if planned != selected {
        return Err(Error::msg(format!(
            "the plan in {} is for the contexts {}, --context selects {}: nothing was applied",
            path.display(),
            plan.context_names().join(", "),
            contexts.join(", ")
        )));
    }
    Ok(plan)
}

/// Computes every context's plan again, all at once, and refuses the whole run, before any write
/// anywhere, if one of them moved.
async fn check_plan_everywhere(plan: &FleetPlan, path: &Path, flags: &ApplyFlags, global: &GlobalArgs) -> Result {
    let checks = plan.contexts.iter().map(|(context, planned)| async move {
        let global = GlobalArgs { context: Some(context.clone()), ..global.clone() };
        match plan_differences(planned, flags, &global).await {
            Ok(differences) => differences,
            Err(err) => vec![err.line().strip_prefix("error: ").map(String::from).unwrap_or_else(|| err.line())],
        }
    });
    let results = join_all(checks).await;
    let mut moved = 0;
    for ((context, _), differences) in plan.contexts.iter().zip(&results) {
        moved += usize::from(!differences.is_empty());
        for difference in differences {
            eprintln!("[{context}] error: {difference}");
        }
    }
    if moved == 0 {
        return Ok(());
    }
    eprintln!(
        "error: the plan in {} no longer holds on {moved} of {} contexts: nothing was applied anywhere",
        path.display(),
        plan.contexts.len()
    );
    Err(Error::Reported(1))
}

/// `diff --plan-out` over several contexts: every context's plan in one file. Written only when
/// every context computed its plan (a diff's exit status 0 or 1); otherwise the status is 2 (a
/// failed diff's status) and the file is not written.
fn write_fleet_plan(path: &Path, finished: &[&Finished], part_file: &dyn Fn(&str) -> std::path::PathBuf) -> u8 {
    let mut contexts = Vec::new();
    for run in finished {
        let part = std::fs::read_to_string(part_file(&run.context)).ok().and_then(|text| SavedPlan::read(&text).ok());
        match part {
            Some(plan) if exit_status(run) <= 1 => contexts.push((run.context.clone(), plan)),
            _ => {
                eprintln!("error: no plan written to {}: the diff failed on {}", path.display(), run.context);
                return 2;
            }
        }
    }
    match std::fs::write(path, FleetPlan { contexts }.to_text()) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("error: cannot write the plan to {}: {err}", path.display());
            2
        }
    }
}

/// Every context's `-o json|yaml` output as one document keyed by context: a context that printed
/// several documents gives their list, one that printed nothing (it failed) `null`.
fn gathered_documents(finished: &[&Finished], format: &str) -> String {
    let mut by_context = Map::new();
    for run in finished {
        let text = String::from_utf8_lossy(&run.stdout);
        let document = match format {
            "json" => serde_json::from_str(&text).unwrap_or(Value::Null),
            _ => yaml_documents(&text),
        };
        by_context.insert(run.context.clone(), document);
    }
    let gathered = Value::Object(by_context);
    match format {
        "json" => output::to_json(&gathered),
        _ => output::to_yaml(&gathered),
    }
}

fn yaml_documents(text: &str) -> Value {
    let mut documents: Vec<Value> = text
        .split("\n---\n")
        .filter(|part| !part.trim().is_empty())
        .filter_map(|part| serde_saphyr::from_str(part).ok())
        .collect();
    match documents.len() {
        0 => Value::Null,
        1 => documents.remove(0),
        _ => Value::Array(documents),
    }
}

/// The table of what each context did, on stderr: its result and time, and with an apply, how
/// many objects it created, configured, left unchanged, pruned, or failed on.
fn print_table(rows: &[Row]) {
    let applied = rows.iter().any(|row| matches!(row, Row::Ran(run) if run.totals.is_some()));
    let mut table = TabWriter::kubectl();
    let mut text = String::from("CONTEXT\tRESULT\t");
    if applied {
        text.push_str("CREATED\tCONFIGURED\tUNCHANGED\tPRUNED\tFAILED\t");
    }
    text.push_str("TIME\n");
    for row in rows {
        match row {
            Row::Ran(run) => {
                let result = match (&run.spawn_error, run.code) {
                    (Some(error), _) => error.clone(),
                    (None, Some(0)) => "ok".into(),
                    (None, Some(code)) => format!("exit {code}"),
                    (None, None) => "killed".into(),
                };
                text.push_str(&format!("{}\t{result}\t", run.context));
                if applied {
                    match run.totals {
                        Some(t) => text.push_str(&format!(
                            "{}\t{}\t{}\t{}\t{}\t",
                            t.created, t.configured, t.unchanged, t.pruned, t.failed
                        )),
                        None => text.push_str("-\t-\t-\t-\t-\t"),
                    }
                }
                text.push_str(&format!("{}\n", seconds(run.elapsed)));
            }
            Row::NotRun { context, reason } => {
                text.push_str(&format!("{context}\t{reason}\t"));
                if applied {
                    text.push_str("-\t-\t-\t-\t-\t");
                }
                text.push_str("-\n");
            }
        }
    }
    let mut out = table.write(&text);
    out.push_str(&table.flush());
    eprint!("{out}");
}

fn seconds(elapsed: Duration) -> String {
    format!("{:.1}s", elapsed.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(line: &[&str]) -> Command {
        crate::cli::parse(["kubeupd"].iter().chain(line)).unwrap().command
    }

    fn refusal(line: &[&str], contexts: &[&str]) -> String {
        let contexts: Vec<String> = contexts.iter().map(|context| context.to_string()).collect();
        match options(&command(line), &contexts) {
            Ok(_) => panic!("{line:?} is accepted"),
            Err(err) => err.line(),
        }
    }

    #[test]
    fn options_are_checked_before_any_context_is_started() {
        let contexts = ["a".to_string(), "b".to_string(), "c".to_string()];
        let apply = command(&["apply", "-f", "web.yaml", "--canary", "2"]);
        let checked = options(&apply, &contexts).unwrap();
        assert_eq!(checked.canary, 2);
        assert!(checked.apply.is_some() && checked.plan.is_none());
        let get = command(&["get", "pods"]);
        let checked = options(&get, &contexts).unwrap();
        assert!(checked.apply.is_none() && checked.canary == 0);
        for (line, expected) in [
            (&["edit", "deployment/web"][..], "error: edit works on one context at a time: --context names several"),
            (&["proxy"], "error: proxy serves one context at a time: --context names several"),
            (
                &["apply", "-f", "web.yaml", "--canary", "2"],
                "error: --canary 2: from 1 to 1 for 2 contexts (the canaries, then the rest)",
            ),
            (
                &["apply", "-f", "web.yaml", "--canary", "0"],
                "error: --canary 0: from 1 to 1 for 2 contexts (the canaries, then the rest)",
            ),
            (
                &["apply", "-f", "web.yaml", "--plan", "/nonexistent/kubeupd.plan"],
                "error: cannot read the plan /nonexistent/kubeupd.plan: ",
            ),
        ] {
            let refused = refusal(line, &["a", "b"]);
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }
}
