//! What `kubeupd apply` prints: a line per object in input order (or the objects, with `-o`), the
//! patches with `--show-patch`, kubectl's warnings, a progress bar on a terminal, and a summary.

use std::collections::BTreeMap;
use std::io::IsTerminal as _;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use crate::apply::conflicts::shown;
use crate::apply::{self, Action, Outcome, StopReason, last_applied};
use crate::client;
use crate::fleet::Totals;
use crate::gocompat;
use crate::output::{self, Printer};
use crate::resource::{Entry, ObjectRef};

/// How the report shows results: the printer of `-o` (none: kubectl's lines), the dry run's
/// suffix (` (dry run)`), and whether each patch is shown (`--show-patch`).
pub(in crate::cli) struct ReportSettings {
    pub printer: Option<Printer>,
    pub suffix: &'static str,
    pub show_patch: bool,
}

/// Inputs with more objects than this get a progress bar on a terminal.
const PROGRESS_FROM: usize = 5;

/// kubectl's word for what applying did.
fn action_word(action: Action) -> &'static str {
    match action {
        Action::Created => "created",
        Action::Configured => "configured",
        Action::Unchanged => "unchanged",
        Action::ServerSideApplied => "serverside-applied",
        Action::Replaced => "replaced",
    }
}

struct Line {
    display: String,
    location: String,
}

/// Results as they come, printed in input order.
pub(in crate::cli) struct Report {
    entries: Vec<Line>,
    pending: BTreeMap<usize, Result<Outcome, apply::Error>>,
    next: usize,
    output: Option<Printer>,
    suffix: &'static str,
    show_patch: bool,
    objects: Vec<Value>,
    counts: BTreeMap<&'static str, usize>,
    /// What the server-side applies did (created, configured, unchanged), for the summary:
    /// stdout says only kubectl's `serverside-applied`.
    server_side_changes: BTreeMap<&'static str, usize>,
    failed: usize,
    /// Objects the run stopped before, or that the server did not answer for.
    not_applied: usize,
    /// Whether the server's going away was shown (once, with its cause).
    unreachable_shown: bool,
    progress: Option<ProgressBar>,
}

impl Report {
    pub(in crate::cli) fn new(entries: &[Entry], settings: ReportSettings) -> Self {
        let lines = entries
            .iter()
            .map(|entry| Line { display: display_name(entry), location: entry.source().location() })
            .collect();
        let progress = (entries.len() > PROGRESS_FROM && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(entries.len() as u64);
            if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} objects applied") {
                bar.set_style(style);
            }
            bar
        });
        Report {
            entries: lines,
            pending: BTreeMap::new(),
            next: 0,
            output: settings.printer,
            suffix: settings.suffix,
            show_patch: settings.show_patch,
            objects: Vec::new(),
            counts: BTreeMap::new(),
            server_side_changes: BTreeMap::new(),
            failed: 0,
            not_applied: 0,
            unreachable_shown: false,
            progress,
        }
    }

    /// Records the result of the object at `index`, and prints every result now in order.
    pub(in crate::cli) fn record(&mut self, index: usize, result: Result<Outcome, apply::Error>) {
        self.pending.insert(index, result);
        if let Some(bar) = &self.progress {
            bar.inc(1);
        }
        while let Some(result) = self.pending.remove(&self.next) {
            let entry = &self.entries[self.next];
            let lines = match result {
                Ok(outcome) => self.success(self.next, outcome),
                Err(apply::Error::NotApplied) => {
                    self.not_applied += 1;
                    Lines::default()
                }
                // The server went away (a request failed at the transport, and the server did not answer a
                // probe either): said once, with its cause, not for every object.
                Err(err) if err.client().is_some_and(client::Error::is_transport) => {
                    self.not_applied += 1;
                    let shown = std::mem::replace(&mut self.unreachable_shown, true);
                    let stderr = if shown { Vec::new() } else { vec![failure(&entry.location, &err)] };
                    Lines { stderr, ..Lines::default() }
                }
                Err(err) => {
                    self.failed += 1;
                    Lines { stderr: vec![failure(&entry.location, &err)], ..Lines::default() }
                }
            };
            self.print(lines);
            self.next += 1;
        }
    }

    fn success(&mut self, index: usize, mut outcome: Outcome) -> Lines {
        let entry = &self.entries[index];
        let word = action_word(outcome.action);
        *self.counts.entry(word).or_default() += 1;
        let mut lines = Lines::default();
        if outcome.missing_last_applied {
            let resource = &outcome.target.rt.resource;
            lines.stderr.push(format!(
                "Warning: resource {resource}/{} is missing the {} annotation which is required by kubectl apply. \
                 kubectl apply should only be used on resources created declaratively by either kubectl create --save-config \
                 or kubectl apply. The missing annotation will be patched automatically.",
                entry.display.rsplit('/').next().unwrap_or_default(),
                last_applied::ANNOTATION,
            ));
        }
        lines.stderr.extend(outcome.warnings.iter().map(|warning| format!("Warning: {warning}")));
        lines.stderr.extend(outcome.taken.iter().map(|taken| format!("{}: {taken}", entry.display)));
        if let (true, Some(patch)) = (self.show_patch, &outcome.patch) {
            lines.stdout.push(format!(
                "# {} {}: {}",
                entry.display,
                patch.patch_type().content_type(),
                gocompat::json::to_compact(&patch.to_json())
            ));
        }
        match &self.output {
            Some(Printer::Name) => lines.stdout.push(entry.display.clone()),
            Some(printer) => {
                if printer.hides_managed_fields() {
                    output::strip_managed_fields(&mut outcome.object);
                }
                self.objects.push(outcome.object);
            }
            None => lines.stdout.push(format!("{} {word}{}", entry.display, self.suffix)),
        }
        if let Some(change) = outcome.change {
            *self.server_side_changes.entry(action_word(change)).or_default() += 1;
        }
        lines
    }

    /// Whether every object was applied: pruning depends on it.
    pub(in crate::cli) fn all_applied(&self) -> bool {
        self.failed == 0 && self.not_applied == 0 && self.next == self.entries.len()
    }

    /// An object pruned (or, with `result` an error, not), in kubectl's words: `configmap/c pruned`.
    pub(in crate::cli) fn pruned(&mut self, target: &ObjectRef, result: Result<(), apply::Error>) {
        let lines = match result {
            Ok(()) => {
                *self.counts.entry("pruned").or_default() += 1;
                let line = format!("{} pruned{}", target.display_name(), self.suffix);
                match &self.output {
                    // stdout carries the objects.
                    Some(printer) if printer.prints_objects() => Lines { stderr: vec![line], ..Lines::default() },
                    _ => Lines { stdout: vec![line], ..Lines::default() },
                }
            }
            Err(err) => {
                self.failed += 1;
                let line = err.line();
                let reason = line.strip_prefix("error: ").unwrap_or(&line);
                Lines {
                    stderr: vec![format!("error: pruning {}: {reason}", target.display_name())],
                    ..Lines::default()
                }
            }
        };
        self.print(lines);
    }

    /// Pruning could not go on.
    pub(in crate::cli) fn prune_failed(&mut self, err: &apply::Error) {
        self.failed += 1;
        let line = err.line();
        self.print(Lines {
            stderr: vec![format!("error: pruning: {}", line.strip_prefix("error: ").unwrap_or(&line))],
            ..Lines::default()
        });
    }

    /// Nothing is pruned after a run where some object was not applied, or is not ready: what it
    /// would prune may be what failed; `why` says which.
    pub(in crate::cli) fn not_pruned(&self, why: &str) {
        self.print(Lines { stderr: vec![format!("error: nothing was pruned, because {why}")], ..Lines::default() });
    }

    /// Clears the progress bar, before waiting: the wait shows its own.
    pub(in crate::cli) fn end_progress(&mut self) {
        if let Some(bar) = self.progress.take() {
            bar.finish_and_clear();
        }
    }

    /// An object prune found and leaves alone, and why (on stderr).
    pub(in crate::cli) fn kept(&self, kept: &crate::apply::prune::Kept) {
        let line = format!("{} not pruned{}: {}", kept.target.display_name(), self.suffix, kept.why);
        self.print(Lines { stderr: vec![line], ..Lines::default() });
    }

    fn print(&self, lines: Lines) {
        let write = || {
            for line in &lines.stderr {
                eprintln!("{line}");
            }
            for line in &lines.stdout {
                println!("{line}");
            }
        };
        match &self.progress {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }

    /// What the applies did, by what each did to its object (a server-side apply by what it did,
    /// not by its `serverside-applied`); objects not applied count as failed.
    pub(in crate::cli) fn totals(&self) -> Totals {
        let count = |word: &str| {
            self.counts.get(word).copied().unwrap_or(0) + self.server_side_changes.get(word).copied().unwrap_or(0)
        };
        Totals {
            created: count("created"),
            // A replaced object is one more changed.
            configured: count("configured") + count("replaced"),
            unchanged: count("unchanged"),
            pruned: count("pruned"),
            failed: self.failed + self.not_applied + (self.entries.len() - self.next),
        }
    }

    /// Prints the objects (with `-o json|yaml`) and the summary; returns the exit status: 0 when
    /// every object was applied, 130 when the run was interrupted, 1 otherwise.
    pub(in crate::cli) fn finish(self, stopped: Option<StopReason>) -> u8 {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
        let mut printed = true;
        if let Some(printer) = self.output.as_ref().filter(|printer| printer.prints_objects())
            && !self.objects.is_empty()
        {
            let mut stdout = std::io::stdout().lock();
            if let Err(err) = printer.write_applied(&mut stdout, self.objects) {
                eprintln!("{}", crate::cli::args::print_error(err).line());
                printed = false;
            }
        }
        let changes =
            self.server_side_changes.iter().map(|(word, count)| format!("{count} {word}")).collect::<Vec<_>>();
        let mut parts: Vec<String> = self
            .counts
            .iter()
            .map(|(word, count)| match *word {
                "serverside-applied" if !changes.is_empty() => format!("{count} {word} ({})", changes.join(", ")),
                _ => format!("{count} {word}"),
            })
            .collect();
        let applied: usize = self.counts.values().sum();
        if self.failed > 0 {
            parts.push(format!("{} failed", self.failed));
        }
        // Objects a run cut short never reported.
        let not_applied = self.not_applied + (self.entries.len() - self.next);
        if stopped == Some(StopReason::Interrupted) {
            parts.push(format!("{not_applied} not applied"));
            eprintln!("interrupted: {}{}", parts.join(", "), self.suffix);
            return 130;
        }
        if not_applied > 0 {
            eprintln!(
                "error: the API server stopped answering after {applied} objects; {not_applied} {} not applied; \
                 run the same command again to continue",
                if not_applied == 1 { "was" } else { "were" }
            );
            return 1;
        }
        if self.entries.len() > 1 {
            eprintln!("{} objects: {}{}", self.entries.len(), parts.join(", "), self.suffix);
        }
        u8::from(self.failed > 0 || !printed)
    }
}

/// How kubectl names an object about to be applied, in messages: `deployment.apps/web`.
fn display_name(entry: &Entry) -> String {
    match entry {
        Entry::Ready(manifest) => manifest.object.display_name(),
        Entry::Pending(pending) => pending.display_name(),
    }
}

#[derive(Default)]
struct Lines {
    stdout: Vec<String>,
    stderr: Vec<String>,
}

/// One error for an object: where it came from, and what went wrong.
fn failure(location: &str, err: &apply::Error) -> String {
    if let apply::Error::ApplyConflicts { conflicts, .. } = err
        && !conflicts.is_empty()
    {
        return format!("error: when applying {location}: {}", conflict_table(conflicts));
    }
    // Several causes of an invalid object are listed on one line, each after "* ".
    let line = err.line().replace(": \n* ", ": * ").replace("\n* ", "; * ");
    format!("error: when applying {location}: {}", line.strip_prefix("error: ").unwrap_or(&line))
}

/// A server-side apply's conflicts as a table (each field, its manager, the live value and ours),
/// and how to resolve them.
fn conflict_table(conflicts: &[apply::Conflict]) -> String {
    let mut rows = vec![["FIELD".to_string(), "MANAGER".into(), "LIVE".into(), "OURS".into()]];
    rows.extend(conflicts.iter().map(|conflict| {
        [conflict.field.clone(), conflict.owner.clone(), shown(&conflict.live), shown(&conflict.ours)]
    }));
    let widths: Vec<usize> = (0..4).map(|column| rows.iter().map(|row| row[column].len()).max().unwrap_or(0)).collect();
    let mut text = format!(
        "Apply failed with {} conflict{}: these fields have other managers:",
        conflicts.len(),
        if conflicts.len() == 1 { "" } else { "s" }
    );
    for row in &rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, width)| format!("{cell:<width$}")).collect();
        text.push_str(&format!("\n  {}", cells.join("   ").trim_end()));
    }
    text.push_str(
        "\nTo take these fields over, apply again with --force-conflicts; to leave them to their managers, \
         remove them from your configuration; to share them, set them to their current values.",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Status;

    #[test]
    fn apply_conflicts_are_a_table_of_fields_managers_and_values() {
        let conflict = |field: &str, owner: &str, live: serde_json::Value, ours: serde_json::Value| apply::Conflict {
            field: field.into(),
            owner: owner.into(),
            live: Some(live),
            ours: Some(ours),
        };
        let err = apply::Error::ApplyConflicts {
            status: Status {
                code: 409,
                reason: "Conflict".into(),
                message: "Apply failed with 2 conflicts".into(),
                details: None,
            },
            conflicts: vec![
                conflict(".spec.replicas", "kube-controller-manager", 10.into(), 3.into()),
                conflict(".spec.paused", "hpa", true.into(), false.into()),
            ],
        };
        assert_eq!(
            failure("app.yaml (document 1)", &err),
            "error: when applying app.yaml (document 1): Apply failed with 2 conflicts: these fields have other \
             managers:\n  \
             FIELD            MANAGER                   LIVE   OURS\n  \
             .spec.replicas   kube-controller-manager   10     3\n  \
             .spec.paused     hpa                       true   false\n\
             To take these fields over, apply again with --force-conflicts; to leave them to their managers, remove \
             them from your configuration; to share them, set them to their current values."
        );
    }

    #[test]
    fn other_errors_say_where() {
        let err = apply::Error::StillThere { resource: "configmaps".into(), name: "x".into() };
        assert_eq!(
            failure("STDIN (document 2)", &err),
            "error: when applying STDIN (document 2): timed out waiting for the condition on configmaps/x"
        );
    }
}
