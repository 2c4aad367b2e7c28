//! `kubeupd attach`: attach to the process a container already runs, as kubectl 1.37 does: the
//! pod's `attach` subresource over WebSocket (`v5.channel.k8s.io`), the container `-c` names or
//! the pod's default, `-i` and `-t` as `exec` has them (a container started with a terminal
//! forces one, as kubectl forces it), kubectl's notes before and after. `run -i` attaches
//! through [`attach_to`].

use std::time::Duration;

use clap::Args;
use serde_json::Value;

use super::args::{ContainerArg, PodRunningTimeoutArg, StreamArgs};
use super::exec::{self, Streams};
use super::{Error, GlobalArgs, Result};
use crate::client::Cluster;
use crate::remote::channel::Outcome;
use crate::resource;

/// Options of `kubeupd attach`.
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The pod (`POD`, `TYPE/NAME` or `TYPE NAME`; a workload's or Service's most active pod).
    #[arg(value_name = "POD | TYPE/NAME")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub container: ContainerArg,
    #[command(flatten)]
    pub timeout: PodRunningTimeoutArg,
    #[command(flatten)]
    pub streams: StreamArgs,
    /// Taken for kubectl's sake: kubeupd does not detach on a key sequence.
    #[arg(long, value_name = "KEYS", default_value = "ctrl-p,ctrl-q")]
    pub detach_keys: String,
}

/// The checked options.
struct Options {
    /// `POD` or `TYPE/NAME` (kubectl's `TYPE NAME` joined).
    target: String,
    container: Option<String>,
    pod_running_timeout: Duration,
    streams: Streams,
}

/// kubectl's checks of the flags and arguments, in its order (`Complete`, then `Validate`);
/// nothing is sent before they pass.
fn options(args: &AttachArgs) -> Result<Options> {
    // kubectl reads the timeout (a usage error) before it counts the arguments.
    if args.timeout.pod_running_timeout.is_zero() {
        return Err(Error::msg(
            "--pod-running-timeout must be higher than zero\nSee 'kubeupd attach -h' for help and examples",
        ));
    }
    let target = match args.targets.as_slice() {
        [] => return Err(Error::msg("at least 1 argument is required for attach")),
        [target] => target.clone(),
        [kind, name] => format!("{kind}/{name}"),
        more => {
            return Err(Error::msg(format!(
                "expected POD, TYPE/NAME, or TYPE NAME, (at most 2 arguments) saw {}: [{}]",
                more.len(),
                more.join(" ")
            )));
        }
    };
    Ok(Options {
        target,
        container: args.container.container.clone(),
        pod_running_timeout: args.timeout.pod_running_timeout,
        streams: Streams { stdin: args.streams.stdin, tty: args.streams.tty, quiet: args.streams.quiet },
    })
}

/// Runs `kubeupd attach`: the pod it names, once running, then the session.
pub async fn run(args: AttachArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let namespace = global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
    let pod = resource::pod::attachable(&cluster, &namespace, &options.target, options.pod_running_timeout).await?;
    // The pod's phase is the server's: kubectl checks it once it has the pod.
    let phase = pod["status"]["phase"].as_str().unwrap_or_default();
    if phase == "Succeeded" || phase == "Failed" {
        return Err(Error::msg(format!("cannot attach a container in a completed pod; current phase is {phase}")));
    }
    exec::finish(attach_to(&cluster, &pod, options.container.as_deref(), &options.streams).await?)
}

/// Attaches to the container `container` names (or the default one) of the running `pod`:
/// kubectl's notes on stderr (unless quiet), the session, then kubectl's line on how to attach
/// again after a terminal session that ended well; how the session ended.
pub(super) async fn attach_to(
    cluster: &Cluster,
    pod: &Value,
    container: Option<&str>,
    streams: &Streams,
) -> Result<Outcome> {
    let name = exec::choose_container(pod, container, streams.quiet, &mut |note| eprintln!("{note}"))
        .map_err(|err| Error::msg(format!("cannot attach to the container: {}", err.message())))?;
    let allocated = (pod["spec"]["containers"].as_array().into_iter().flatten())
        .chain(pod["spec"]["initContainers"].as_array().into_iter().flatten())
        .chain(pod["spec"]["ephemeralContainers"].as_array().into_iter().flatten())
        .find(|spec| spec["name"].as_str() == Some(name.as_str()))
        .is_some_and(|spec| spec["tty"].as_bool() == Some(true));
    // The container's terminal decides: asked for without one, refused; not asked for, forced.
    if streams.tty && !allocated && !streams.quiet {
        eprintln!("error: Unable to use a TTY - container {name} did not allocate one");
    }
    let streams = Streams { tty: allocated, ..*streams };
    if !streams.quiet {
        eprintln!(
            "All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt."
        );
        eprintln!("If you don't see a command prompt, try pressing enter.");
    }
    let (outcome, raw) = exec::interactive(cluster, pod, &name, "attach", &[], &streams).await?;
    if raw && !streams.quiet && outcome == Outcome::Success {
        let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
        let pod_name = pod["metadata"]["name"].as_str().unwrap_or_default();
        let ephemeral = (pod["spec"]["ephemeralContainers"].as_array().into_iter().flatten())
            .any(|spec| spec["name"].as_str() == Some(name.as_str()));
        match ephemeral {
            true => println!(
                "Session ended, the ephemeral container will not be restarted but may be reattached using 'kubeupd attach {pod_name} -c {name} -n {namespace} -i -t' if it is still running"
            ),
            false => println!(
                "Session ended, resume using 'kubeupd attach {pod_name} -c {name} -n {namespace} -i -t' command"
            ),
        }
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "attach"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Attach(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = parse(&["web", "-c", "app", "-it", "--pod-running-timeout=5s"]).unwrap();
        assert_eq!(options.target, "web");
        assert_eq!(options.container.as_deref(), Some("app"));
        assert_eq!(options.pod_running_timeout, Duration::from_secs(5));
        assert!(options.streams.stdin && options.streams.tty && !options.streams.quiet);
        let options = parse(&["deploy", "web", "-q"]).unwrap();
        assert_eq!(options.target, "deploy/web");
        assert_eq!(options.pod_running_timeout, Duration::from_secs(60));
        assert!(options.streams.quiet && !options.streams.stdin);
        for (line, expected) in [
            (
                &["--pod-running-timeout=0"][..],
                "error: --pod-running-timeout must be higher than zero\nSee 'kubeupd attach -h' for help and examples",
            ),
            (&[], "error: at least 1 argument is required for attach"),
            (&["a", "b", "c"], "error: expected POD, TYPE/NAME, or TYPE NAME, (at most 2 arguments) saw 3: [a b c]"),
        ] {
            let said = parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert_eq!(said, expected, "{line:?}");
        }
    }
}
