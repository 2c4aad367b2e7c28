//! kubectl's outputs where they never change for a given input (`kubectl kustomize`, `patch
//! --local`, usage errors, `--help`), recorded once into `testdata/golden/NAME.json` by
//! `scripts/golden.sh` and read back here, so that the offline tests need no kubectl.
//!
//! Each file holds the kubectl version that wrote it and a SHA-256 of its inputs (the files the
//! runs read and the runs' arguments): when they change, the test fails and says to record again.
//! With `KUBEUPD_GOLDEN=record` (what the script sets) the runs go to the kubectl on the PATH and
//! the file is written; with `KUBEUPD_GOLDEN=refresh` (`scripts/golden.sh --check`) only where the
//! inputs or that kubectl's version changed. The test then compares with what was just recorded.

use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

/// One kubectl command line and the directory it runs in.
pub struct Run {
    /// kubectl's arguments.
    pub args: Vec<String>,
    /// The working directory (the repository's root when `None`).
    pub cwd: Option<PathBuf>,
}

impl Run {
    /// `kubectl ARGS` in the repository's root.
    pub fn new(args: &[&str]) -> Run {
        Run { args: args.iter().map(|arg| arg.to_string()).collect(), cwd: None }
    }

    /// `kubectl ARGS` in `cwd`.
    pub fn in_dir(args: &[&str], cwd: &Path) -> Run {
        Run { cwd: Some(cwd.to_path_buf()), ..Run::new(args) }
    }

    /// The paths that differ between checkouts and runs, each with the word that stands for it
    /// in a golden file: the working directory first (it may lie inside the repository).
    fn placeholders(&self) -> Vec<(String, &'static str)> {
        let mut pairs = Vec::new();
        if let Some(cwd) = &self.cwd {
            pairs.push((cwd.display().to_string(), "$CWD"));
        }
        pairs.push((repository().display().to_string(), "$REPO"));
        pairs
    }

    /// `text` as a golden file holds it: the paths of this checkout and run replaced.
    fn hide_paths(&self, text: &str) -> String {
        self.placeholders().iter().fold(text.to_string(), |text, (path, word)| text.replace(path, word))
    }

    /// `text` of a golden file with this checkout's and run's paths put back.
    fn restore_paths(&self, text: &str) -> String {
        self.placeholders().iter().rev().fold(text.to_string(), |text, (path, word)| text.replace(word, path))
    }

    fn golden_args(&self) -> Vec<String> {
        self.args.iter().map(|arg| self.hide_paths(arg)).collect()
    }
}

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The golden `testdata/golden/NAME.json`, recorded first by `record` (given its path and the
/// inputs' hash) when `KUBEUPD_GOLDEN` asks for it; its inputs must hash to `inputs_sha256`.
fn golden(name: &str, inputs_sha256: &str, record: impl FnOnce(&Path, &str)) -> Value {
    let path = repository().join("testdata/golden").join(format!("{name}.json"));
    match std::env::var("KUBEUPD_GOLDEN").as_deref() {
        Ok("record") => record(&path, inputs_sha256),
        Ok("refresh") if is_stale(&path, inputs_sha256) => record(&path, inputs_sha256),
        _ => {}
    }
    let golden =
        read(&path).unwrap_or_else(|err| panic!("{}: {err}: record it with scripts/golden.sh", path.display()));
    assert_eq!(
        golden["inputs_sha256"].as_str(),
        Some(inputs_sha256),
        "{}: its inputs changed since kubectl {} recorded it: run scripts/golden.sh",
        path.display(),
        golden["kubectl"]
    );
    golden
}

/// kubectl's outputs of `runs`, in order, from `testdata/golden/NAME.json`. `inputs` are the files
/// and directories the runs read; they are hashed with the runs' arguments.
pub fn kubectl(name: &str, inputs: &[&Path], runs: &[Run]) -> Vec<Output> {
    let golden = golden(name, &inputs_sha256(inputs, runs), |path, sha256| record(path, sha256, runs));
    let recorded = golden["runs"].as_array().expect("the recorded runs");
    runs.iter()
        .zip(recorded)
        .map(|(run, recorded)| {
            let text = |key: &str| run.restore_paths(recorded[key].as_str().expect("recorded text")).into_bytes();
            let code = recorded["exit"].as_i64().expect("an exit code") as i32;
            Output { status: ExitStatus::from_raw(code << 8), stdout: text("stdout"), stderr: text("stderr") }
        })
        .collect()
}

/// kubectl's verdict on each of `runs`, from `testdata/golden/NAME.json`: its exit status and the
/// first line of its stderr (empty when it printed none), for the runs whose output does not
/// matter, only whether kubectl took the line (thousands of lines, each with `--help`). Recorded
/// as [`kubectl`] records, on all cores.
pub fn verdicts(name: &str, runs: &[Run]) -> Vec<(i32, String)> {
    let golden = golden(name, &inputs_sha256(&[], runs), |path, sha256| record_verdicts(path, sha256, runs));
    let recorded = golden["runs"].as_array().expect("the recorded runs");
    assert_eq!(recorded.len(), runs.len(), "{name}: one verdict a run");
    recorded
        .iter()
        .map(|verdict| {
            let code = verdict["exit"].as_i64().expect("an exit code") as i32;
            (code, verdict["stderr"].as_str().expect("a line").to_string())
        })
        .collect()
}

fn record_verdicts(path: &Path, inputs_sha256: &str, runs: &[Run]) {
    let version = kubectl_version();
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let recorded: Vec<Value> = std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .chunks(runs.len().div_ceil(workers).max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|run| {
                            let output = run_kubectl(&run.args, run.cwd.as_deref().unwrap_or(repository()));
                            let stderr = String::from_utf8_lossy(&output.stderr);
                            json!({
                                "args": run.golden_args(),
                                "exit": output.status.code().expect("kubectl exits"),
                                "stderr": run.hide_paths(stderr.lines().next().unwrap_or_default()),
                            })
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|handle| handle.join().unwrap()).collect()
    });
    let golden = json!({
        "recorded_by": "scripts/golden.sh",
        "kubectl": version["clientVersion"]["gitVersion"],
        "inputs_sha256": inputs_sha256,
        "runs": recorded,
    });
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(&golden).unwrap() + "\n").unwrap();
}

/// The JSON that `program` (its arguments after it, run in the repository's root) prints, from
/// `testdata/golden/NAME.json` under `output`, recorded as kubectl's outputs are: `inputs` (the
/// program's sources) are hashed with its arguments, and the file keeps the version of the kubectl
/// on the PATH, which the caller checks the program's against.
pub fn program_output(name: &str, inputs: &[&Path], program: &[&str]) -> Value {
    let path = repository().join("testdata/golden").join(format!("{name}.json"));
    let run = Run::new(program);
    let inputs_sha256 = inputs_sha256(inputs, std::slice::from_ref(&run));
    match std::env::var("KUBEUPD_GOLDEN").as_deref() {
        Ok("record") => record_program(&path, &inputs_sha256, &run),
        Ok("refresh") if is_stale(&path, &inputs_sha256) => record_program(&path, &inputs_sha256, &run),
        _ => {}
    }
    let mut golden =
        read(&path).unwrap_or_else(|err| panic!("{}: {err}: record it with scripts/golden.sh", path.display()));
    assert_eq!(
        golden["inputs_sha256"].as_str(),
        Some(inputs_sha256.as_str()),
        "{}: its inputs changed since it was recorded: run scripts/golden.sh",
        path.display(),
    );
    let mut output = golden["output"].take();
    output["kubectl"] = golden["kubectl"].take();
    output
}

/// Runs `run` and writes what it printed, JSON as it printed it (its own layout kept, for diffs
/// that read well), to `path`.
fn record_program(path: &Path, inputs_sha256: &str, run: &Run) {
    let version = kubectl_version();
    let output = Command::new(&run.args[0])
        .args(&run.args[1..])
        .current_dir(repository())
        .output()
        .unwrap_or_else(|err| panic!("{}: {err}", run.args[0]));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(output.status.success(), "{:?}: {}", run.args, String::from_utf8_lossy(&output.stderr));
    serde_json::from_str::<Value>(&stdout).expect("the program prints JSON");
    let header = json!({
        "recorded_by": "scripts/golden.sh",
        "kubectl": version["clientVersion"]["gitVersion"],
        "inputs_sha256": inputs_sha256,
    });
    let header = serde_json::to_string_pretty(&header).unwrap();
    let text = format!("{},\n  \"output\": {}}}\n", header.trim_end_matches("\n}"), stdout.trim_end());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(path: &Path) -> std::io::Result<Value> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?).expect("a golden file is JSON"))
}

/// Whether the golden file at `path` is missing, or was recorded for other inputs or by another
/// kubectl than the one on the PATH.
fn is_stale(path: &Path, inputs_sha256: &str) -> bool {
    read(path).map_or(true, |golden| {
        golden["inputs_sha256"] != inputs_sha256
            || golden["kubectl"] != kubectl_version()["clientVersion"]["gitVersion"]
    })
}

/// `kubectl ARGS` in `cwd`, with the kubectl on the PATH, reading no kubeconfig or preferences.
fn run_kubectl(args: &[String], cwd: &Path) -> Output {
    Command::new("kubectl")
        .args(args)
        .current_dir(cwd)
        .env("KUBECONFIG", "/dev/null")
        .env("KUBERC", "off")
        .output()
        .expect("kubectl (the reference) is on the PATH")
}

/// `kubectl version --client` of the kubectl on the PATH.
fn kubectl_version() -> Value {
    let args = ["version", "--client", "-o", "json"].map(String::from);
    serde_json::from_slice(&run_kubectl(&args, repository()).stdout).expect("kubectl's version as JSON")
}

/// Runs `runs` with the kubectl on the PATH and writes their outputs to `path`.
fn record(path: &Path, inputs_sha256: &str, runs: &[Run]) {
    let version = kubectl_version();
    let recorded: Vec<Value> = runs
        .iter()
        .map(|run| {
            let output = run_kubectl(&run.args, run.cwd.as_deref().unwrap_or(repository()));
            let text = |bytes: &[u8]| run.hide_paths(std::str::from_utf8(bytes).expect("kubectl prints UTF-8"));
            json!({
                "args": run.golden_args(),
                "exit": output.status.code().expect("kubectl exits"),
                "stdout": text(&output.stdout),
                "stderr": text(&output.stderr),
            })
        })
        .collect();
    let golden = json!({
        "recorded_by": "scripts/golden.sh",
        "kubectl": version["clientVersion"]["gitVersion"],
        "kustomize": version["kustomizeVersion"],
        "inputs_sha256": inputs_sha256,
        "runs": recorded,
    });
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(&golden).unwrap() + "\n").unwrap();
}

/// SHA-256 of every file under `inputs` (by its path below the input) and of the runs' arguments.
fn inputs_sha256(inputs: &[&Path], runs: &[Run]) -> String {
    let mut hasher = Sha256::new();
    for input in inputs {
        for file in files(input) {
            let relative = file.strip_prefix(input).unwrap();
            hasher.update(relative.display().to_string().as_bytes());
            hasher.update([0]);
            hasher.update(std::fs::read(&file).unwrap());
            hasher.update([0]);
        }
    }
    for run in runs {
        hasher.update(serde_json::to_string(&run.golden_args()).unwrap().as_bytes());
    }
    hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The files under `path` (or `path` itself), sorted.
fn files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path).unwrap().map(|entry| entry.unwrap().path()).collect();
    entries.sort();
    entries.iter().flat_map(|entry| files(entry)).collect()
}
