//! `kubeupd exec`: run a command in a container, as kubectl 1.37 does: over WebSocket
//! (`v5.channel.k8s.io`), with stdin (`-i`), a terminal (`-t`), the container `-c` names or the
//! pod's default (and kubectl's note when it picked one among several), `TYPE/NAME` choosing a
//! pod, and the remote command's exit code as kubeupd's own. `cp`, `attach` and `run` stream
//! through the same [`stream`].

mod terminal;

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde_json::Value;
use tokio::sync::mpsc;

use super::args::{ContainerArg, PodRunningTimeoutArg, StreamArgs};
use super::{Error, GlobalArgs, Result};
use crate::client::{Cluster, Output, Session};
use crate::pods;
use crate::remote::channel::Outcome;
use crate::resource;

/// Options of `kubeupd exec`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The pod, or TYPE/NAME of a workload or Service whose first pod is used.
    #[arg(value_name = "POD | TYPE/NAME")]
    pub target: Option<String>,
    /// Words after the pod without `--`: refused, as kubectl refuses them.
    #[arg(value_name = "WORDS", hide = true)]
    pub extra: Vec<String>,
    /// The command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub container: ContainerArg,
    /// A file naming the object whose pod to use.
    #[arg(short = 'f', long = "filename", value_name = "PATH", value_delimiter = ',')]
    pub filename: Vec<PathBuf>,
    #[command(flatten)]
    pub timeout: PodRunningTimeoutArg,
    #[command(flatten)]
    pub streams: StreamArgs,
}

/// The streams a session wants: stdin (`-i`), a terminal (`-t`), and quiet (`-q`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Streams {
    pub stdin: bool,
    pub tty: bool,
    pub quiet: bool,
}

/// The checked options.
struct Options {
    /// The pod or `TYPE/NAME` to run the command in; an `-f` object names it as `KIND[.GROUP]/NAME`.
    target: String,
    /// The namespace the `-f` object names, if it names one.
    namespace: Option<String>,
    command: Vec<String>,
    container: Option<String>,
    pod_running_timeout: Duration,
    streams: Streams,
}

/// kubectl's checks of the flags and arguments, in its order (`Complete`, then `Validate`), then
/// the `-f` files read; nothing is sent before they pass.
fn options(args: &ExecArgs) -> Result<Options> {
    // kubectl's words for a command given without `--` (or words between the pod and `--`).
    if !args.extra.is_empty() || (args.command.is_empty() && args.target.is_some() && !args.filename.is_empty()) {
        return Err(Error::msg(
            "exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubeupd exec -h' for help and examples",
        ));
    }
    // kubectl reads the timeout (a usage error) before it checks what is named.
    if args.timeout.pod_running_timeout.is_zero() {
        return Err(Error::msg(
            "--pod-running-timeout must be higher than zero\nSee 'kubeupd exec -h' for help and examples",
        ));
    }
    if args.target.is_none() && args.filename.is_empty() {
        return Err(Error::msg("pod, type/name or --filename must be specified"));
    }
    if args.command.is_empty() {
        return Err(Error::msg("you must specify at least one command for the container"));
    }
    let (target, namespace) = match &args.target {
        Some(target) => (target.clone(), None),
        None => object_of_files(&args.filename)?,
    };
    Ok(Options {
        target,
        namespace,
        command: args.command.clone(),
        container: args.container.container.clone(),
        pod_running_timeout: args.timeout.pod_running_timeout,
        streams: Streams { stdin: args.streams.stdin, tty: args.streams.tty, quiet: args.streams.quiet },
    })
}

/// The object of `-f` files (one) as `KIND[.GROUP]/NAME`, and the namespace it names.
fn object_of_files(files: &[PathBuf]) -> Result<(String, Option<String>)> {
    let objects = crate::manifest::read_paths(files, false).map_err(resource::Error::from)?;
    let [object] = objects.as_slice() else {
        return Err(Error::msg("cannot exec into multiple objects at a time"));
    };
    let object = &object.object;
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let namespace = object["metadata"]["namespace"].as_str().map(String::from);
    let type_arg = match resource::group_of(object["apiVersion"].as_str().unwrap_or_default()) {
        "" => object["kind"].as_str().unwrap_or_default().to_string(),
        group => format!("{}.{group}", object["kind"].as_str().unwrap_or_default()),
    };
    Ok((format!("{type_arg}/{name}"), namespace))
}

/// Runs `kubeupd exec`: the pod named, once running, then the command in its container.
pub async fn run(args: ExecArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let namespace = match options.namespace {
        Some(namespace) => namespace,
        None => global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string()),
    };
    let pod = resource::pod::attachable(&cluster, &namespace, &options.target, options.pod_running_timeout).await?;
    // The pod's phase and containers are the server's: kubectl checks them once it has the pod.
    let phase = pod["status"]["phase"].as_str().unwrap_or_default();
    if phase == "Succeeded" || phase == "Failed" {
        return Err(Error::msg(format!("cannot exec into a container in a completed pod; current phase is {phase}")));
    }
    let container =
        choose_container(&pod, options.container.as_deref(), options.streams.quiet, &mut |note| eprintln!("{note}"))?;
    let (outcome, _) = interactive(&cluster, &pod, &container, "exec", &options.command, &options.streams).await?;
    finish(outcome)
}

/// The container `-c` names or the pod's default; the note about a default picked among several
/// goes to `note` unless `quiet`.
pub(super) fn choose_container(
    pod: &Value,
    flag: Option<&str>,
    quiet: bool,
    note: &mut dyn FnMut(&str),
) -> Result<String> {
    let (container, default_note) = pods::command_container(pod, flag).map_err(Error::msg)?;
    if let Some(text) = default_note.filter(|_| !quiet) {
        note(&text);
    }
    Ok(container.name)
}

/// kubectl's end of a remote command: its exit code as ours (after `command terminated with exit
/// code N`), its failure in the server's words.
pub(super) fn finish(outcome: Outcome) -> Result {
    match outcome {
        Outcome::Success => Ok(()),
        Outcome::Exited(code) => {
            eprintln!("command terminated with exit code {code}");
            Err(Error::Reported(code))
        }
        Outcome::Failed(message) => Err(Error::msg(message)),
    }
}

/// The streams a request to a pod's `exec` or `attach` asks for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Wanted {
    pub stdin: bool,
    pub stdout: bool,
    pub stderr: bool,
    pub tty: bool,
}

/// The path of a pod's `exec` (with `command`) or `attach` subresource and its query.
pub(super) fn subresource_path(
    pod: &Value,
    subresource: &str,
    container: &str,
    command: &[String],
    wanted: Wanted,
) -> String {
    let Wanted { stdin, stdout, stderr, tty } = wanted;
    let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("container", container);
    for word in command {
        query.append_pair("command", word);
    }
    for (key, on) in [("stdin", stdin), ("stdout", stdout), ("stderr", stderr), ("tty", tty)] {
        if on {
            query.append_pair(key, "true");
        }
    }
    let segment =
        |text: &str| percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string();
    format!("/api/v1/namespaces/{}/pods/{}/{subresource}?{}", segment(namespace), segment(name), query.finish())
}

/// Stdout as the session writes it: each chunk at once.
pub(super) fn stdout() -> Output {
    Box::new(|bytes| {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        out.write_all(bytes).and_then(|()| out.flush())
    })
}

/// Stderr as the session writes it.
pub(super) fn stderr() -> Output {
    Box::new(|bytes| {
        use std::io::Write as _;
        let mut err = std::io::stderr().lock();
        err.write_all(bytes).and_then(|()| err.flush())
    })
}

/// Chunks of this process's stdin, read by a thread of their own (a blocking read must not hold
/// the runtime when the remote command ends first).
pub(super) fn stdin_chunks() -> mpsc::Receiver<Vec<u8>> {
    let (sender, receiver) = mpsc::channel(4);
    std::thread::spawn(move || {
        use std::io::Read as _;
        let mut stdin = std::io::stdin().lock();
        let mut buffer = vec![0u8; 32 * 1024];
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(count) => {
                    if sender.blocking_send(buffer[..count].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    receiver
}

/// Runs `command` (exec) or attaches (`subresource` attach) with this process's stdin, stdout
/// and stderr, and a terminal as kubectl sets one up (`-t` with `-i` on a terminal: raw mode, no
/// separate stderr); also says whether the terminal was in raw mode.
pub(super) async fn interactive(
    cluster: &Cluster,
    pod: &Value,
    container: &str,
    subresource: &str,
    command: &[String],
    streams: &Streams,
) -> Result<(Outcome, bool)> {
    let mut tty = streams.stdin && streams.tty;
    if tty && !terminal::stdin_is_terminal() {
        tty = false;
        if !streams.quiet {
            eprintln!("Unable to use a TTY - input is not a terminal or the right kind of file");
        }
    }
    let raw = if tty { terminal::Raw::enter() } else { None };
    let path = subresource_path(
        pod,
        subresource,
        container,
        command,
        Wanted { stdin: streams.stdin, stdout: true, stderr: !tty, tty },
    );
    let resize = tty.then(|| {
        let (sender, receiver) = mpsc::channel(1);
        if let Some(size) = terminal::size() {
            let _ = sender.try_send(size);
        }
        receiver
    });
    let session =
        Session { stdin: streams.stdin.then(stdin_chunks), stdout: stdout(), stderr: (!tty).then(stderr), resize };
    let outcome = async { cluster.open_channels(&path).await?.run(session).await }.await;
    let was_raw = raw.is_some();
    drop(raw);
    Ok((outcome?, was_raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "exec"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Exec(args) => options(&args),
            _ => unreachable!(),
        }
    }

    fn refusal(line: &[&str]) -> String {
        parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line()
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = parse(&["web", "-c", "app", "-i", "--", "ls", "-l"]).unwrap();
        assert_eq!((options.target.as_str(), options.namespace), ("web", None));
        assert_eq!(options.command, ["ls", "-l"]);
        assert_eq!(options.container.as_deref(), Some("app"));
        assert_eq!(options.pod_running_timeout, Duration::from_secs(60));
        assert!(options.streams.stdin && !options.streams.tty);
        let not_supported = "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubeupd exec -h' for help and examples";
        assert_eq!(refusal(&["web", "ls"]), not_supported);
        assert_eq!(refusal(&["web", "ls", "--", "ls"]), not_supported);
        assert_eq!(refusal(&["web", "-f", "pod.yaml"]), not_supported);
        let zero = "error: --pod-running-timeout must be higher than zero\nSee 'kubeupd exec -h' for help and examples";
        assert_eq!(refusal(&["--pod-running-timeout=0"]), zero);
        assert_eq!(refusal(&["web", "ls", "--pod-running-timeout=0"]), not_supported);
        assert_eq!(refusal(&["--", "ls"]), "error: pod, type/name or --filename must be specified");
        assert_eq!(refusal(&["web"]), "error: you must specify at least one command for the container");
        // The files are read only once the words pass.
        assert_eq!(
            refusal(&["-f", "/no/such/file.yaml"]),
            "error: you must specify at least one command for the container"
        );
    }

    #[test]
    fn one_object_of_the_files_names_the_pod_and_its_namespace() {
        let dir = tempfile::tempdir().unwrap();
        let one = dir.path().join("one.yaml");
        std::fs::write(&one, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n")
            .unwrap();
        let options = parse(&["-f", one.to_str().unwrap(), "--", "date"]).unwrap();
        assert_eq!((options.target.as_str(), options.namespace.as_deref()), ("Deployment.apps/web", Some("shop")));
        let pod = dir.path().join("pod.yaml");
        std::fs::write(&pod, "apiVersion: v1\nkind: Pod\nmetadata: {name: db}\n").unwrap();
        let options = parse(&["-f", pod.to_str().unwrap(), "--", "date"]).unwrap();
        assert_eq!((options.target.as_str(), options.namespace), ("Pod/db", None));
        let both = format!("{},{}", one.display(), pod.display());
        assert_eq!(refusal(&["-f", &both, "--", "date"]), "error: cannot exec into multiple objects at a time");
    }
}
