//! What `kubeupd apply` prints: a line per object in input order (or the objects, with `-o`), the
//! patches with `--show-patch`, kubectl's warnings, a progress bar on a terminal, and a summary.

use std::collections::BTreeMap;
use std::io::IsTerminal as _;

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;

use super::apply::{ApplyFlags, Planned, action_word};
use super::error_line;
use crate::client::{Applied, ResourceType, api_error, last_applied};
use crate::merge::PatchType;
use crate::output::{self, OutputFormat};

/// Inputs with more objects than this get a progress bar on a terminal.
const PROGRESS_FROM: usize = 5;

/// What happened to one object.
pub(super) struct Outcome {
    /// kubectl's word: `created`, `configured`, `unchanged`, `serverside-applied`.
    word: &'static str,
    object: Value,
    patch: Option<(PatchType, Value)>,
    /// The live object had no last-applied annotation: its resource name, for kubectl's warning.
    missing_annotation: Option<String>,
}

impl Outcome {
    pub(super) fn client_side(applied: Applied, rt: &ResourceType) -> Self {
        let patch_type = if applied.strategic { PatchType::Strategic } else { PatchType::Merge };
        Outcome {
            word: action_word(applied.action),
            missing_annotation: applied.missing_last_applied.then(|| rt.resource.clone()),
            object: applied.object,
            patch: applied.patch.map(|patch| (patch_type, patch)),
        }
    }

    pub(super) fn server_side(object: Value, document: Value) -> Self {
        Outcome {
            word: "serverside-applied",
            object,
            patch: Some((PatchType::Apply, document)),
            missing_annotation: None,
        }
    }
}

struct Entry {
    display: String,
    location: String,
}

/// Results as they come, printed in input order.
pub(super) struct Report {
    entries: Vec<Entry>,
    pending: BTreeMap<usize, anyhow::Result<Outcome>>,
    next: usize,
    output: Option<OutputFormat>,
    suffix: &'static str,
    show_patch: bool,
    objects: Vec<Value>,
    counts: BTreeMap<&'static str, usize>,
    failed: usize,
    progress: Option<ProgressBar>,
}

impl Report {
    pub(super) fn new(planned: &[Planned], flags: &ApplyFlags) -> Self {
        let entries = planned
            .iter()
            .map(|planned| Entry { display: planned.display_name(), location: planned.location.clone() })
            .collect();
        let progress = (planned.len() > PROGRESS_FROM && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(planned.len() as u64);
            if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} objects applied") {
                bar.set_style(style);
            }
            bar
        });
        Report {
            entries,
            pending: BTreeMap::new(),
            next: 0,
            output: flags.output,
            suffix: flags.dry_run.suffix(),
            show_patch: flags.show_patch,
            objects: Vec::new(),
            counts: BTreeMap::new(),
            failed: 0,
            progress,
        }
    }

    /// Records the result of the object at `index`, and prints every result now in order.
    pub(super) fn record(&mut self, index: usize, result: anyhow::Result<Outcome>) {
        self.pending.insert(index, result);
        if let Some(bar) = &self.progress {
            bar.inc(1);
        }
        while let Some(result) = self.pending.remove(&self.next) {
            let entry = &self.entries[self.next];
            let lines = match result {
                Ok(outcome) => self.success(self.next, outcome),
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
        *self.counts.entry(outcome.word).or_default() += 1;
        let mut lines = Lines::default();
        if let Some(resource) = &outcome.missing_annotation {
            lines.stderr.push(format!(
                "Warning: resource {resource}/{} is missing the {} annotation which is required by kubectl apply. \
                 kubectl apply should only be used on resources created declaratively by either kubectl create --save-config \
                 or kubectl apply. The missing annotation will be patched automatically.",
                entry.display.rsplit('/').next().unwrap_or_default(),
                last_applied::ANNOTATION,
            ));
        }
        if let (true, Some((patch_type, patch))) = (self.show_patch, &outcome.patch) {
            lines.stdout.push(format!(
                "# {} {}: {}",
                entry.display,
                patch_type.content_type(),
                output::to_compact_json(patch)
            ));
        }
        match self.output {
            Some(OutputFormat::Name) => lines.stdout.push(entry.display.clone()),
            Some(_) => {
                output::strip_managed_fields(&mut outcome.object);
                self.objects.push(outcome.object);
            }
            None => lines.stdout.push(format!("{} {}{}", entry.display, outcome.word, self.suffix)),
        }
        lines
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

    /// Prints the objects (with `-o json|yaml`) and the summary; returns how many objects failed.
    pub(super) fn finish(self) -> usize {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
        if let Some(format @ (OutputFormat::Json | OutputFormat::Yaml)) = self.output {
            let single = self.objects.len() == 1;
            if !self.objects.is_empty() {
                print!("{}", output::render_objects(format, self.objects, single));
            }
        }
        if self.entries.len() > 1 {
            let mut parts: Vec<String> = self.counts.iter().map(|(word, count)| format!("{count} {word}")).collect();
            if self.failed > 0 {
                parts.push(format!("{} failed", self.failed));
            }
            eprintln!("{} objects: {}{}", self.entries.len(), parts.join(", "), self.suffix);
        }
        self.failed
    }
}

#[derive(Default)]
struct Lines {
    stdout: Vec<String>,
    stderr: Vec<String>,
}

/// One error for an object: where it came from, and what went wrong.
fn failure(location: &str, err: &anyhow::Error) -> String {
    if let Some(conflicts) = apply_conflicts(err) {
        return format!("error: when applying {location}: {conflicts}");
    }
    // Several causes of an invalid object are listed on one line, each after "* ".
    let line = error_line(err).replace(": \n* ", ": * ").replace("\n* ", "; * ");
    format!("error: when applying {location}: {}", line.strip_prefix("error: ").unwrap_or(&line))
}

/// A server-side apply's conflicts, each field with its manager, and how to resolve them.
fn apply_conflicts(err: &anyhow::Error) -> Option<String> {
    let server = api_error(err).filter(|server| server.code == 409)?;
    let causes: Vec<_> = server
        .details
        .iter()
        .flat_map(|details| &details.causes)
        .filter(|cause| cause.reason == "FieldManagerConflict")
        .collect();
    if causes.is_empty() {
        return None;
    }
    let mut text = format!(
        "Apply failed with {} conflict{}: these fields have other managers:",
        causes.len(),
        if causes.len() == 1 { "" } else { "s" }
    );
    for cause in causes {
        let manager = cause.message.strip_prefix("conflict with ").unwrap_or(&cause.message);
        text.push_str(&format!("\n  {}: managed by {manager}", cause.field));
    }
    text.push_str(
        "\nTo take these fields over, apply again with --force-conflicts; to leave them to their managers, \
         remove them from your configuration; to share them, set them to their current values.",
    );
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{ApiError, StatusCause, StatusDetails};

    #[test]
    fn apply_conflicts_name_each_field_and_manager() {
        let cause = |field: &str, manager: &str| StatusCause {
            reason: "FieldManagerConflict".into(),
            message: format!("conflict with \"{manager}\" using apps/v1"),
            field: field.into(),
        };
        let err: anyhow::Error = ApiError {
            code: 409,
            reason: "Conflict".into(),
            message: "Apply failed with 2 conflicts".into(),
            details: Some(StatusDetails {
                causes: vec![cause(".spec.replicas", "kubectl"), cause(".spec.paused", "hpa")],
                ..StatusDetails::default()
            }),
        }
        .into();
        let text = failure("app.yaml (document 1)", &err);
        assert!(
            text.starts_with("error: when applying app.yaml (document 1): Apply failed with 2 conflicts"),
            "{text}"
        );
        assert!(text.contains("\n  .spec.replicas: managed by \"kubectl\" using apps/v1"), "{text}");
        assert!(text.contains("--force-conflicts"), "{text}");
    }

    #[test]
    fn other_errors_say_where() {
        let err = anyhow::anyhow!("boom");
        assert_eq!(failure("STDIN (document 2)", &err), "error: when applying STDIN (document 2): boom");
    }
}
