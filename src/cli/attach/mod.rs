//! `kubeupd attach`: attach to the process a container already runs, as kubectl 1.37 does: the
//! pod's `attach` subresource over WebSocket (`v5.channel.k8s.io`), the container `-c` names or
//! the pod's default, `-i` and `-t` as `exec` has them (a container started with a terminal
//! forces one, as kubectl forces it), kubectl's notes before and after. `run -i` attaches
//! through [`attach_to`].

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

/// Runs `kubeupd attach`.
pub async fn run(args: AttachArgs, global: &GlobalArgs) -> Result {
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
    let cluster = global.connect().await?;
    let namespace = global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
    let pod = resource::pod::attachable(&cluster, &namespace, &target, args.timeout.pod_running_timeout).await?;
    let phase = pod["status"]["phase"].as_str().unwrap_or_default();
    if phase == "Succeeded" || phase == "Failed" {
        return Err(Error::msg(format!("cannot attach a container in a completed pod; current phase is {phase}")));
    }
    let streams = Streams { stdin: args.streams.stdin, tty: args.streams.tty, quiet: args.streams.quiet };
    exec::finish(attach_to(&cluster, &pod, args.container.container.as_deref(), &streams).await?)
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
