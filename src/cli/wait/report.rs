//! What waiting shows, for `apply --wait-ready` and `wait`: on a terminal, a live list of the objects
//! not there yet with their reasons; lines as objects get there; at the end, one line per object
//! that did not, saying why.

use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::wait::Outcome;

/// The live list shows at most this many objects, then how many more.
const LIVE_LINES: usize = 15;

/// The live list of objects still waited for, on a terminal only.
pub(in crate::cli) struct LiveList {
    names: Vec<String>,
    /// Lines go to stderr, when stdout carries objects (`apply -o json`).
    lines_to_stderr: bool,
    waiting: BTreeMap<usize, String>,
    bar: Option<ProgressBar>,
}

impl LiveList {
    /// A list for the objects `names` (by target index), all waiting; shown when stderr is a
    /// terminal. Lines are printed to stdout, or to stderr with `lines_to_stderr`.
    pub(in crate::cli) fn new(names: Vec<String>, lines_to_stderr: bool) -> Self {
        let waiting = (0..names.len()).map(|index| (index, "not checked yet".to_string())).collect();
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        let list = LiveList { names, lines_to_stderr, waiting, bar };
        list.redraw();
        list
    }

    /// The object at `index` is still waiting, for `reason`.
    pub(in crate::cli) fn waiting(&mut self, index: usize, reason: &str) {
        self.waiting.insert(index, reason.to_string());
        self.redraw();
    }

    /// The object at `index` is done.
    pub(in crate::cli) fn done(&mut self, index: usize) {
        self.waiting.remove(&index);
        self.redraw();
    }

    /// Prints `line` above the list.
    pub(in crate::cli) fn print(&self, line: &str) {
        let print = || match self.lines_to_stderr {
            true => eprintln!("{line}"),
            false => println!("{line}"),
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    /// Takes the list off the terminal.
    pub(in crate::cli) fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }

    fn redraw(&self) {
        let Some(bar) = &self.bar else { return };
        let mut text = format!("waiting for {} of {} objects:", self.waiting.len(), self.names.len());
        for (index, reason) in self.waiting.iter().take(LIVE_LINES) {
            text.push_str(&format!("\n  {}: {reason}", self.names[*index]));
        }
        if self.waiting.len() > LIVE_LINES {
            text.push_str(&format!("\n  ... and {} more", self.waiting.len() - LIVE_LINES));
        }
        bar.set_message(text);
    }
}

/// Why the object `name` is not `word` (ready, deleted), after waiting `timeout` in all (`elapsed` when the wait
/// ended early), or `None` when it is: `error: deployment.apps/web not ready after 5m0s: 1 of 3
/// replicas available`.
pub(in crate::cli) fn not_ready_line(
    name: &str,
    outcome: &Outcome,
    word: &str,
    timeout: Duration,
    elapsed: Duration,
) -> Option<String> {
    match outcome {
        Outcome::Met { .. } => None,
        Outcome::Failed(reason) | Outcome::FailedOn(reason) => {
            Some(format!("error: {name} failed after {}: {reason}", seconds(elapsed)))
        }
        Outcome::NotMet(reason) => {
            Some(format!("error: {name} not {word} after {}: {reason}", seconds(timeout.min(elapsed))))
        }
        Outcome::Error(err) => Some(format!("error: {name}: {}", err.line().trim_start_matches("error: "))),
    }
}

/// `40ms`, `12.3s`, `30s`, `5m0s`, `1h2m3s`: Go's way of writing durations, to a tenth of a second.
pub(in crate::cli) fn seconds(duration: Duration) -> String {
    if duration < Duration::from_millis(950) {
        return format!("{}ms", duration.as_millis());
    }
    let tenths = (duration.as_millis() + 50) / 100;
    let (whole, tenth) = (tenths / 10, tenths % 10);
    let fraction = if tenth == 0 { String::new() } else { format!(".{tenth}") };
    match (whole / 3600, whole / 60 % 60, whole % 60) {
        (0, 0, secs) => format!("{secs}{fraction}s"),
        (0, minutes, secs) => format!("{minutes}m{secs}{fraction}s"),
        (hours, minutes, secs) => format!("{hours}h{minutes}m{secs}{fraction}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_go() {
        assert_eq!(seconds(Duration::from_millis(12_340)), "12.3s");
        assert_eq!(seconds(Duration::from_secs(30)), "30s");
        assert_eq!(seconds(Duration::from_secs(300)), "5m0s");
        assert_eq!(seconds(Duration::from_millis(3_723_400)), "1h2m3.4s");
        assert_eq!(seconds(Duration::from_millis(40)), "40ms");
        assert_eq!(seconds(Duration::from_millis(960)), "1s");
    }

    #[test]
    fn not_ready_lines_say_why() {
        let timeout = Duration::from_secs(300);
        let reason = "1 of 3 replicas available".to_string();
        assert_eq!(
            not_ready_line("deployment.apps/web", &Outcome::NotMet(reason.clone()), "ready", timeout, timeout).unwrap(),
            "error: deployment.apps/web not ready after 5m0s: 1 of 3 replicas available"
        );
        assert_eq!(
            not_ready_line(
                "deployment.apps/web",
                &Outcome::Failed(reason),
                "ready",
                timeout,
                Duration::from_millis(2_100)
            ),
            Some("error: deployment.apps/web failed after 2.1s: 1 of 3 replicas available".into())
        );
        let met = Outcome::Met { object: None, after: Duration::ZERO };
        assert_eq!(not_ready_line("configmap/x", &met, "ready", timeout, timeout), None);
    }
}
