//! Reading logs: each one line by line, several at once interleaved by line (kubectl's pipe),
//! and `-f`'s retries while a log is not there yet.

use std::io::Write as _;
use std::time::Duration;

use futures::StreamExt as _;
use futures::stream::FuturesUnordered;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::LogRequest;
use crate::cli::{Error, Result};
use crate::client::{self, Cluster, LogOptions};
use crate::pods::LineSplitter;

/// What a log's reader has to print.
enum Printed {
    Stdout(Vec<u8>),
    Stderr(String),
}

/// How logs are read: the query, and what `-f`, `--ignore-errors` and `--pod-running-timeout`
/// change.
pub(super) struct Consume<'a> {
    pub cluster: &'a Cluster,
    pub query: &'a LogOptions,
    pub follow: bool,
    pub ignore_errors: bool,
    pub timeout: Duration,
}

/// The error's text as Go's `err.Error()` gives it: the server's message alone.
fn go_text(err: &client::Error) -> String {
    match err.status() {
        Some(status) => status.message.clone(),
        None => err.line().trim_start_matches("error: ").to_string(),
    }
}

impl Consume<'_> {
    /// Reads the logs of `requests` at once and prints their lines as they come, each line whole;
    /// the first failure ends them all, after what came before it is printed.
    pub async fn together(&self, requests: &[LogRequest]) -> Result {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        let mut running: FuturesUnordered<_> =
            requests.iter().map(|request| self.one(request, sender.clone())).collect();
        drop(sender);
        let mut stdout = std::io::stdout().lock();
        let mut print = |printed: Printed| -> Result {
            match printed {
                Printed::Stdout(bytes) => match stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
                    Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Err(Error::Reported(0)),
                    other => other.map_err(|err| Error::Other(err.into())),
                },
                Printed::Stderr(text) => {
                    eprint!("{text}");
                    Ok(())
                }
            }
        };
        loop {
            tokio::select! {
                biased;
                Some(printed) = receiver.recv() => print(printed)?,
                Some(outcome) = running.next() => {
                    if let Err(err) = outcome {
                        while let Ok(printed) = receiver.try_recv() {
                            print(printed)?;
                        }
                        return Err(err);
                    }
                }
                else => return Ok(()),
            }
        }
    }

    /// One log: read once, or with `-f` tried again every second while the server answers with
    /// an error, until `--pod-running-timeout` has passed (kubectl's poll).
    async fn one(&self, request: &LogRequest, out: mpsc::UnboundedSender<Printed>) -> Result {
        let started = Instant::now();
        let mut attempts = 0;
        loop {
            let err = match self.read(request, &out).await {
                Ok(()) => return Ok(()),
                Err(err) => err,
            };
            if self.ignore_errors {
                let _ = out.send(Printed::Stdout(format!("error: {}\n", go_text(&err)).into_bytes()));
                return Ok(());
            }
            if !self.follow {
                return Err(err.into());
            }
            let _ = out.send(Printed::Stderr(format!("{}\n", go_text(&err))));
            if err.status().is_none() {
                return Err(err.into());
            }
            attempts += 1;
            let next = started + Duration::from_secs(attempts);
            let deadline = started + self.timeout;
            if next >= deadline {
                tokio::time::sleep_until(deadline).await;
                return Err(Error::msg("context deadline exceeded"));
            }
            tokio::time::sleep_until(next).await;
        }
    }

    /// Reads the log once to its end, sending each line (after its prefix) as it is complete.
    async fn read(&self, request: &LogRequest, out: &mpsc::UnboundedSender<Printed>) -> client::Result<()> {
        let query = LogOptions { container: request.container.clone(), ..self.query.clone() };
        let mut bytes = self.cluster.pod_logs(&request.namespace, &request.pod, &query).await?;
        let mut lines = LineSplitter::default();
        let send = |line: Vec<u8>| {
            let mut printed = request.prefix.clone().into_bytes();
            printed.extend(line);
            let _ = out.send(Printed::Stdout(printed));
        };
        while let Some(chunk) = bytes.next().await {
            lines.push(&chunk?).into_iter().for_each(send);
        }
        lines.finish().into_iter().for_each(send);
        Ok(())
    }
}
