//! Running each context's process, at most so many at once, handing on their output line by line.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::join_all;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWriteExt as _, BufReader};
use tokio::process::Command;
use tokio::sync::Semaphore;

use super::totals::{TOTALS_FILE_ENV, Totals};

/// Which of a process's outputs a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// One context's run.
pub struct Job {
    pub context: String,
    /// The whole command line, the program first.
    pub args: Vec<OsString>,
}

/// How the jobs run.
pub struct Settings<'a> {
    pub program: &'a Path,
    /// The most processes at once; 0 means all.
    pub concurrency: usize,
    /// What every process reads on its standard input (none: nothing).
    pub stdin: Option<Arc<Vec<u8>>>,
    /// Keep each process's standard output whole, instead of handing it on line by line.
    pub keep_stdout: bool,
    /// Where each process writes its [`Totals`]: a file per context in this directory.
    pub totals_dir: &'a Path,
}

/// What one context's process did.
#[derive(Debug)]
pub struct Finished {
    pub context: String,
    /// The exit code; `None` when the process could not be started (`spawn_error` says why) or
    /// was ended by a signal.
    pub code: Option<i32>,
    pub spawn_error: Option<String>,
    pub elapsed: Duration,
    /// The whole standard output, when kept.
    pub stdout: Vec<u8>,
    /// What its apply did, when it applied.
    pub totals: Option<Totals>,
}

impl Finished {
    pub fn succeeded(&self) -> bool {
        self.code == Some(0)
    }
}

/// Runs the jobs, `settings.concurrency` at a time, in their order; `on_line` gets each whole
/// line (without its newline) as it comes. Returns what each did, in the jobs' order.
pub async fn run_all(
    jobs: Vec<Job>,
    settings: &Settings<'_>,
    on_line: &(dyn Fn(&str, Stream, &str) + Sync),
) -> Vec<Finished> {
    let permits =
        Arc::new(Semaphore::new(if settings.concurrency == 0 { jobs.len().max(1) } else { settings.concurrency }));
    join_all(jobs.into_iter().map(|job| {
        let permits = permits.clone();
        async move {
            let _permit = permits.acquire_owned().await.expect("the semaphore is never closed");
            run_one(job, settings, on_line).await
        }
    }))
    .await
}

async fn run_one(job: Job, settings: &Settings<'_>, on_line: &(dyn Fn(&str, Stream, &str) + Sync)) -> Finished {
    let started = Instant::now();
    let totals_file = totals_file(settings.totals_dir, &job.context);
    let _ = std::fs::remove_file(&totals_file);
    let mut command = Command::new(settings.program);
    command
        .args(job.args.iter().skip(1))
        .env(TOTALS_FILE_ENV, &totals_file)
        .stdin(if settings.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return Finished {
                context: job.context,
                code: None,
                spawn_error: Some(format!("cannot run {}: {err}", settings.program.display())),
                elapsed: started.elapsed(),
                stdout: Vec::new(),
                totals: None,
            };
        }
    };
    let feed = async {
        if let (Some(mut stdin), Some(bytes)) = (child.stdin.take(), settings.stdin.as_ref()) {
            // A process that stops reading early is not an error of the run.
            let _ = stdin.write_all(bytes).await;
        }
    };
    let context = job.context.as_str();
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let read_stdout = async {
        if settings.keep_stdout {
            let mut kept = Vec::new();
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut BufReader::new(stdout), &mut kept).await;
            kept
        } else {
            lines(stdout, |line| on_line(context, Stream::Stdout, line)).await;
            Vec::new()
        }
    };
    let read_stderr = lines(stderr, |line| on_line(context, Stream::Stderr, line));
    let ((), kept, ()) = tokio::join!(feed, read_stdout, read_stderr);
    let code = child.wait().await.ok().and_then(|status| status.code());
    Finished {
        context: job.context,
        code,
        spawn_error: None,
        elapsed: started.elapsed(),
        stdout: kept,
        totals: Totals::read(&totals_file),
    }
}

/// Hands on each line of `reader` as it comes; a last line without a newline too.
async fn lines(reader: impl AsyncRead + Unpin, mut on_line: impl FnMut(&str)) {
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let text = String::from_utf8_lossy(&line);
                on_line(text.strip_suffix('\n').unwrap_or(&text));
            }
        }
    }
}

fn totals_file(dir: &Path, context: &str) -> PathBuf {
    // A context's name may hold any character: the file is named by its plain characters and a
    // hash of the whole name, which keeps apart two names that differ only elsewhere.
    let safe: String = context.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    dir.join(format!("{safe}-{:x}.json", fnv1a(context)))
}

/// FNV-1a: a small stable hash.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf29ce484222325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x100000001b3))
}
