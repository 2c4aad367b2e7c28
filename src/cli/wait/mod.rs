//! `kubeupd wait`: kubectl's `wait` on the wait engine: `--for=delete`, `create`,
//! `condition=NAME[=VALUE]` and `jsonpath=EXPR[=VALUE]` as kubectl has them, given once or
//! several times (each object meets them in turn, as kubectl 1.36+ reads a repeated `--for`),
//! `ready` (the default) by kstatus's rules, and `--fail-on`, ours: conditions that end the wait
//! as a failure.

pub(super) mod report;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use clap::Args;

use self::report::{LiveList, not_ready_line, seconds};
use super::args::{LocalArg, OutputArgs, SelectionArgs, TargetArgs};
use super::{Error, GlobalArgs, Result};
use crate::client::{Cluster, Selectors};
use crate::output::Verb;
use crate::resource::{Named, ObjectRef, Resolver, Rules};
use crate::wait::{self, Condition, FailOn, Outcome, Progress, Target};

/// `wait --local`'s help: kubectl takes the flag (and 1.32 crashes on it).
const LOCAL_REFUSED: &str = "Refused: a condition can only be waited for on the server";

/// How long a negative `--timeout` waits: kubectl's week.
const A_WEEK: Duration = Duration::from_secs(7 * 24 * 3600);

/// How often `--for=create` asks again for the objects of a selection that matched none.
const SELECTION_POLL: Duration = Duration::from_millis(500);

/// Options of `kubeupd wait`.
#[derive(Debug, Args)]
#[command(mut_arg("local", |arg| arg.help(LOCAL_REFUSED)))]
pub struct WaitArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub selection: SelectionArgs<String>,
    #[command(flatten)]
    pub local: LocalArg,
    /// What to wait for: ready (by kstatus's rules; the default), delete, create,
    /// condition=NAME[=VALUE] (VALUE defaults to true, compared without regard to case) or
    /// jsonpath='{EXPR}'[=VALUE]. Given several times, each object must meet every condition, in
    /// turn (create first), as kubectl 1.36+ does.
    #[arg(long = "for", value_name = "CONDITION")]
    pub conditions: Vec<String>,
    /// Exit 1 as soon as an object meets this condition (condition=NAME[=VALUE] or
    /// jsonpath='{EXPR}'[=VALUE]), naming it; repeatable (kubeupd's own).
    #[arg(long = "fail-on", value_name = "CONDITION")]
    pub fail_on: Vec<String>,
    /// How long to wait: 0 checks once, a negative duration waits a week.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_timeout, allow_hyphen_values = true)]
    pub timeout: Duration,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// A duration (pflag's `duration`), or kubectl's week for a negative one.
pub(super) fn parse_timeout(text: &str) -> Result<Duration, String> {
    match crate::gocompat::time::parse_duration(text)? {
        ..0 => Ok(A_WEEK),
        nanoseconds => Ok(Duration::from_nanos(nanoseconds as u64)),
    }
}

/// What `wait` is asked, checked before any request.
struct Options {
    /// The conditions each object must meet, in turn.
    conditions: Vec<Condition>,
    fail_on: Vec<FailOn>,
    /// The objects the arguments and files name.
    named: Vec<Named>,
    /// Whether the objects are chosen by type (-l, --field-selector, --all), not by name.
    listing: bool,
}

impl WaitArgs {
    /// kubectl's checks of the flags, and the objects the arguments and files name.
    fn options(&self) -> Result<Options> {
        let conditions = match self.conditions.is_empty() {
            true => vec![Condition::Ready],
            false => self
                .conditions
                .iter()
                .map(|text| Condition::parse(text))
                .collect::<Result<_, _>>()
                .map_err(Error::msg)?,
        };
        let fail_on =
            self.fail_on.iter().map(|text| FailOn::parse(text)).collect::<Result<_, _>>().map_err(Error::msg)?;
        self.output.printer(Verb::Write)?;
        if self.local.local {
            return Err(Error::msg("wait --local is not supported: a condition can only be waited for on the server"));
        }
        let selection = &self.selection;
        let listing = selection.by_type();
        let rules = Rules { verb: "wait", types_alone: listing, selector: selection.selector.is_some() };
        Ok(Options { conditions, fail_on, named: self.targets.named(rules)?, listing })
    }
}

/// Waits for the objects named, and prints `configmap/x condition met` (or the object, with
/// `-o`) for each in order, once per condition; exits 1 when any did not get there.
pub async fn run(args: WaitArgs, global: &GlobalArgs) -> Result {
    let Options { conditions, fail_on, named, listing } = args.options()?;
    let creating = conditions.contains(&Condition::Created);
    let cluster = global.connect().await?;
    let selection = &args.selection;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), selection.all_namespaces);
    let selectors = Selectors { label: selection.selector.as_deref(), field: selection.field_selector.as_deref() };
    let select = || async {
        let mut objects = Vec::new();
        for resolved in resolver.resolve(named.clone()).await? {
            objects.extend(resolved.objects(&cluster, selectors).await?);
        }
        Ok::<_, Error>(objects)
    };
    let selecting = Instant::now();
    let mut objects = select().await?;
    let mut polled = false;
    // kubectl 1.37 waits for a selection to match something before it waits for its creation,
    // asking again every half second, within the same time.
    while objects.is_empty() && listing && creating {
        if selecting.elapsed() + SELECTION_POLL > args.timeout {
            return Err(Error::msg("timed out waiting for the condition"));
        }
        tokio::time::sleep(SELECTION_POLL).await;
        objects = select().await?;
        polled = true;
    }
    if objects.is_empty() && !conditions.contains(&Condition::Deleted) {
        return Err(Error::msg("no matching resources found"));
    }
    // The time counts from the start of the wait, or of the selection's when it was asked again.
    let counting = if polled { selecting } else { Instant::now() };
    let left = || args.timeout.saturating_sub(counting.elapsed());
    // Among several conditions, kubectl waits until every object named is there before the others.
    if creating && conditions.len() > 1 && !listing {
        let targets = objects.iter().cloned().map(Target::named).collect();
        let outcomes = wait::wait(&cluster, targets, &Condition::Created, left(), |_, _| {}).await;
        if outcomes.iter().any(|outcome| !matches!(outcome, Outcome::Met { .. })) {
            return Err(Error::msg("timed out waiting for the condition"));
        }
    }
    let names: Vec<String> = objects.iter().map(ObjectRef::display_name).collect();
    let locations: Vec<String> =
        objects.iter().map(|object| format!("{}/{}", object.rt.resource, object.name)).collect();
    let live = RefCell::new(LiveList::new(names.clone(), false));
    let printing = RefCell::new(Printing {
        // kubectl's YAML printer starts each object after the first with `---`.
        yaml: matches!(args.output.printer(Verb::Write)?, Some(crate::output::Printer::Yaml)),
        ..Printing::default()
    });
    // Each object's lines so far, and how its wait ended: (stage, outcome) when it did not get there.
    let blocks: RefCell<Vec<Option<Vec<String>>>> = RefCell::new(vec![Some(Vec::new()); objects.len()]);
    // Prints the lines of the object at `index`, whose wait ended, once those before it are out.
    let flush = |index: usize| {
        let Some(lines) = blocks.borrow_mut()[index].take() else { return };
        live.borrow_mut().done(index);
        for line in printing.borrow_mut().add(index, lines) {
            live.borrow().print(&line);
        }
    };
    let mut ends: Vec<Option<(usize, Outcome)>> = vec![None; objects.len()];
    let mut going: Vec<usize> = (0..objects.len()).collect();
    let started = Instant::now();
    for (stage, condition) in conditions.iter().enumerate() {
        let last = stage + 1 == conditions.len();
        let targets = going.iter().map(|index| Target::named(objects[*index].clone())).collect();
        let outcomes = wait::wait_or_fail(&cluster, targets, condition, &fail_on, left(), |at, progress| {
            let index = going[at];
            match progress {
                Progress::Waiting(reason) => live.borrow_mut().waiting(index, reason),
                Progress::Done(outcome) => {
                    let line = met_line(&args.output, outcome);
                    // A deleted object that was never there has nothing more to meet.
                    let ended = !matches!(outcome, Outcome::Met { .. }) || last || line.is_none();
                    if let Some(block) = blocks.borrow_mut()[index].as_mut() {
                        block.extend(line);
                    }
                    if ended {
                        flush(index);
                    }
                }
            }
        })
        .await;
        let mut next = Vec::new();
        for (at, outcome) in outcomes.into_iter().enumerate() {
            let index = going[at];
            match outcome {
                Outcome::Met { object: Some(_), .. } if !last => next.push(index),
                Outcome::Met { .. } => {}
                outcome => ends[index] = Some((stage, outcome)),
            }
        }
        let failed =
            ends.iter().flatten().any(|(_, outcome)| matches!(outcome, Outcome::Failed(_) | Outcome::FailedOn(_)));
        if failed {
            // An object that failed ends the whole wait: the others are not waited for further.
            for index in next {
                ends[index] = Some((stage + 1, Outcome::NotMet("the wait ended as another object failed".into())));
            }
            break;
        }
        for index in (0..objects.len()).filter(|index| !next.contains(index)) {
            flush(index);
        }
        going = next;
    }
    for index in 0..objects.len() {
        flush(index);
    }
    live.into_inner().finish();
    let elapsed = started.elapsed();
    let cut_short =
        ends.iter().flatten().any(|(_, outcome)| matches!(outcome, Outcome::Failed(_) | Outcome::FailedOn(_)));
    let mut failed = false;
    for (index, end) in ends.iter().enumerate() {
        let Some((stage, outcome)) = end else { continue };
        let condition = &conditions[(*stage).min(conditions.len() - 1)];
        let why = Why { name: &names[index], location: &locations[index], timeout: args.timeout, elapsed, cut_short };
        if let Some(line) = failure_line(condition, outcome, &why) {
            failed = true;
            eprintln!("{line}");
        }
    }
    if failed { Err(Error::Reported(1)) } else { Ok(()) }
}

/// The lines of each object, printed in the objects' order as soon as all before them are in.
#[derive(Default)]
struct Printing {
    in_order: InOrder,
    yaml: bool,
    printed: bool,
}

impl Printing {
    /// Takes in the lines of the object at `index`, and gives out those that can be printed now.
    fn add(&mut self, index: usize, lines: Vec<String>) -> Vec<String> {
        self.in_order.add(index, lines);
        let mut ready = Vec::new();
        for line in self.in_order.ready() {
            let separated = self.yaml && std::mem::replace(&mut self.printed, true);
            ready.push(if separated { format!("---\n{line}") } else { line });
        }
        ready
    }
}

/// Waits until the objects `apply` just wrote are ready and the objects it pruned are gone, for
/// at most `timeout`: a line per object as it gets there (to stderr with `lines_to_stderr`), and
/// one per object that does not, saying why.
pub(super) async fn until_applied_are_ready(
    cluster: &Cluster,
    mut written: Vec<(usize, Target)>,
    pruned: Vec<Target>,
    timeout: Duration,
    lines_to_stderr: bool,
) -> Result {
    // Several documents of one object: its last write is the one to see through.
    written.sort_by_key(|(index, _)| *index);
    let mut targets: Vec<Target> = Vec::with_capacity(written.len());
    for (_, target) in written.into_iter().rev() {
        if !targets.iter().any(|seen| seen.object == target.object) {
            targets.push(target);
        }
    }
    targets.reverse();
    let first_pruned = targets.len();
    let names: Vec<String> = targets.iter().chain(&pruned).map(|target| target.object.display_name()).collect();
    let live = RefCell::new(LiveList::new(names.clone(), lines_to_stderr));
    let started = Instant::now();
    let progress = |offset: usize, word: &'static str| {
        let (live, names) = (&live, &names);
        move |index: usize, progress: Progress<'_>| {
            let index = offset + index;
            match progress {
                Progress::Waiting(reason) => live.borrow_mut().waiting(index, reason),
                Progress::Done(outcome) => {
                    live.borrow_mut().done(index);
                    if let Outcome::Met { after, .. } = outcome {
                        live.borrow().print(&format!("{} {word} after {}", names[index], seconds(*after)));
                    }
                }
            }
        }
    };
    let (ready, gone) = {
        let ready = wait::wait(cluster, targets, &Condition::Ready, timeout, progress(0, "ready"));
        let gone = wait::wait(cluster, pruned, &Condition::Deleted, timeout, progress(first_pruned, "deleted"));
        tokio::pin!(ready, gone);
        // An object that failed ends the whole wait, pruned objects included.
        let failed = |outcomes: &[Outcome]| outcomes.iter().any(|outcome| matches!(outcome, Outcome::Failed(_)));
        tokio::select! {
            ready = &mut ready => {
                let gone = if failed(&ready) { Vec::new() } else { gone.await };
                (ready, gone)
            }
            gone = &mut gone => (ready.await, gone),
        }
    };
    live.into_inner().finish();
    let elapsed = started.elapsed();
    let outcomes =
        ready.iter().map(|outcome| (outcome, "ready")).chain(gone.iter().map(|outcome| (outcome, "deleted")));
    let failures: Vec<String> = outcomes
        .zip(&names)
        .filter_map(|((outcome, word), name)| not_ready_line(name, outcome, word, timeout, elapsed))
        .collect();
    for line in &failures {
        eprintln!("{line}");
    }
    if failures.is_empty() { Ok(()) } else { Err(Error::Reported(1)) }
}

/// kubectl's line for an object that got there, or the object with `-o`; nothing for an object
/// that was already gone when waiting for its deletion began, as kubectl prints nothing for it.
fn met_line(output: &OutputArgs, outcome: &Outcome) -> Option<String> {
    match outcome {
        Outcome::Met { object: Some(object), .. } => {
            // A template that fails on the object shows its error in the object's place.
            let line = output.written(object, "condition met", true, "").unwrap_or_else(|err| err.line());
            Some(line.trim_end_matches('\n').to_string())
        }
        _ => None,
    }
}

/// What a failure line says of one object.
struct Why<'a> {
    name: &'a str,
    location: &'a str,
    timeout: Duration,
    elapsed: Duration,
    /// The wait ended early, as an object failed.
    cut_short: bool,
}

/// Why an object did not get there, in kubectl's words for its conditions, and with the reason
/// for `ready` and for the failures kubeupd adds.
fn failure_line(condition: &Condition, outcome: &Outcome, why: &Why) -> Option<String> {
    let Why { name, location, timeout, elapsed, cut_short } = *why;
    match (outcome, condition) {
        (Outcome::Met { .. }, _) => None,
        (Outcome::Error(err), _) => Some(err.line()),
        (Outcome::FailedOn(_), _) => not_ready_line(name, outcome, "ready", timeout, elapsed),
        (_, Condition::Ready) => not_ready_line(name, outcome, "ready", timeout, elapsed),
        (Outcome::NotMet(_), _) if cut_short => not_ready_line(name, outcome, "met", timeout, elapsed),
        (Outcome::NotMet(_), _) if timeout.is_zero() => Some(format!("error: condition not met for {location}")),
        (Outcome::NotMet(_), _) => Some(format!("error: timed out waiting for the condition on {location}")),
        (Outcome::Failed(reason), _) => Some(format!("error: {reason}")),
    }
}

/// Lines by index, given out in index order as soon as all before them are in.
#[derive(Default)]
struct InOrder {
    lines: BTreeMap<usize, Vec<String>>,
    next: usize,
}

impl InOrder {
    fn add(&mut self, index: usize, lines: Vec<String>) {
        self.lines.insert(index, lines);
    }

    fn ready(&mut self) -> Vec<String> {
        let mut ready = Vec::new();
        while let Some(lines) = self.lines.remove(&self.next) {
            ready.extend(lines);
            self.next += 1;
        }
        ready
    }
}
