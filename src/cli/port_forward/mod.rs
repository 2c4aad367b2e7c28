//! `kubeupd port-forward`: forward local ports to a pod, as kubectl does: `POD` or `TYPE/NAME`
//! (a Service's ports translated to its pods' ports, named ports to numbers), `LOCAL:REMOTE`,
//! `:REMOTE` (any free local port), `--address`, the `Forwarding from ...` and `Handling
//! connection for ...` lines. Each local connection is carried by a WebSocket of the kubelet's
//! port-forward protocol (see docs/differences.md); the process runs until interrupted.

use std::time::Duration;

use clap::Args;
use tokio::sync::mpsc;

use super::args::PodRunningTimeoutArg;
use super::{Error, GlobalArgs, Result};
use crate::client::Cluster;
use crate::remote::ports::{self, ForwardedPort};
use crate::resource;

/// Options of `kubeupd port-forward`.
#[derive(Debug, Args)]
pub struct PortForwardArgs {
    /// The pod or TYPE/NAME, then the ports: `[LOCAL_PORT:]REMOTE_PORT`.
    #[arg(value_name = "TYPE/NAME [LOCAL_PORT:]REMOTE_PORT")]
    pub args: Vec<String>,
    /// Addresses to listen on (comma separated): IP addresses, or localhost (127.0.0.1 and ::1).
    #[arg(long, value_name = "ADDRESS", value_delimiter = ',', default_value = "localhost")]
    pub address: Vec<String>,
    #[command(flatten)]
    pub timeout: PodRunningTimeoutArg,
}

/// The checked options.
struct Options {
    /// The type of the object named (`pods` when only a name is given) and its name.
    type_arg: String,
    name: String,
    /// The ports as given: `[LOCAL:]REMOTE`, the remote one a number or a name.
    port_specs: Vec<String>,
    /// `--address` as given: kubectl reads it only once it has the pod.
    addresses: Vec<String>,
    pod_running_timeout: Duration,
}

/// kubectl's checks of the arguments, in its order; nothing is sent before they pass.
fn options(args: &PortForwardArgs) -> Result<Options> {
    let [target, port_specs @ ..] = args.args.as_slice() else {
        return Err(usage());
    };
    if port_specs.is_empty() {
        return Err(usage());
    }
    if args.timeout.pod_running_timeout.is_zero() {
        return Err(Error::msg(
            "--pod-running-timeout must be higher than zero\nSee 'kubeupd port-forward -h' for help and examples",
        ));
    }
    let (type_arg, name) = target.split_once('/').unwrap_or(("pods", target));
    Ok(Options {
        type_arg: type_arg.to_string(),
        name: name.to_string(),
        port_specs: port_specs.to_vec(),
        addresses: args.address.clone(),
        pod_running_timeout: args.timeout.pod_running_timeout,
    })
}

/// Runs `kubeupd port-forward` until interrupted: the object named and its pod read, the ports
/// translated to the pod's, then the listeners.
pub async fn run(args: PortForwardArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let namespace = global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
    let rt = cluster.resolve(&options.type_arg).await?;
    let object = cluster.get(&rt, Some(&namespace), &options.name).await?;
    let is_pod = rt.group.is_empty() && rt.kind == "Pod";
    let pod = match is_pod {
        true => object.clone(),
        false => resource::pod::from_object(&cluster, &object, options.pod_running_timeout).await?,
    };
    // The ports are checked against the object's and the pod's, as kubectl checks them once read.
    let port_specs = &options.port_specs;
    let is_service = rt.group.is_empty() && rt.kind == "Service";
    let specs = match is_service {
        true => {
            ports::check_udp(port_specs, &object, true).map_err(Error::msg)?;
            ports::service_ports(port_specs, &object, &pod).map_err(Error::msg)?
        }
        false => {
            ports::check_udp(port_specs, &pod, false).map_err(Error::msg)?;
            ports::pod_ports(port_specs, &pod).map_err(Error::msg)?
        }
    };
    let addresses = ports::parse_addresses(&options.addresses).map_err(Error::msg)?;
    let forwards = ports::parse_ports(&specs).map_err(Error::msg)?;
    let pod_name = pod["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let pods = cluster.resolve("pods").await?;
    let pod = cluster.get(&pods, Some(&namespace), &pod_name).await?;
    let phase = pod["status"]["phase"].as_str().unwrap_or_default();
    if phase != "Running" {
        return Err(Error::msg(format!("unable to forward port because pod is not running. Current status={phase}")));
    }
    let segment =
        |text: &str| percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string();
    let base = format!("/api/v1/namespaces/{}/pods/{}/portforward", segment(&namespace), segment(&pod_name));
    forward(cluster, &base, &addresses, forwards).await
}

fn usage() -> Error {
    Error::msg(
        "TYPE/NAME and list of ports are required for port-forward\nSee 'kubeupd port-forward -h' for help and examples",
    )
}

/// Listens on each port and address, then carries each connection until interrupted; a failure
/// the pod's side reports ends the command, as kubectl's lost connection does.
async fn forward(
    cluster: Cluster,
    base: &str,
    addresses: &[ports::ListenAddress],
    mut forwards: Vec<ForwardedPort>,
) -> Result {
    let cluster = std::sync::Arc::new(cluster);
    let (lost_sender, mut lost) = mpsc::channel::<String>(1);
    let mut any = false;
    for port in forwards.iter_mut() {
        let mut failures = Vec::new();
        let (mut all_ok, mut all_failed, mut any_failed) = (0, 0, 0);
        let mut listeners = Vec::new();
        for address in addresses {
            let spot = ports::join_host_port(&address.address, port.local);
            match std::net::TcpListener::bind(&spot) {
                Ok(listener) => {
                    let local = listener.local_addr().map(|addr| addr.port()).unwrap_or(port.local);
                    port.local = local;
                    println!("Forwarding from {} -> {}", ports::join_host_port(&address.address, local), port.remote);
                    listeners.push(listener);
                    if address.all_must_fail {
                        all_ok += 1;
                    }
                }
                Err(err) => {
                    let family = if address.address.contains(':') { "tcp6" } else { "tcp4" };
                    failures.push(format!(
                        "unable to create listener: Error listen {family} {spot}: {}",
                        go_listen_error(&err)
                    ));
                    match address.all_must_fail {
                        true => all_failed += 1,
                        false => any_failed += 1,
                    }
                }
            }
        }
        if (all_ok == 0 && all_failed > 0) || any_failed > 0 {
            eprintln!(
                "Unable to listen on port {}: Listeners failed to create with the following errors: [{}]",
                port.local,
                failures.join(" ")
            );
            continue;
        }
        any = true;
        for listener in listeners {
            listener.set_nonblocking(true).map_err(|err| Error::Other(err.into()))?;
            let listener = tokio::net::TcpListener::from_std(listener).map_err(|err| Error::Other(err.into()))?;
            let path = format!("{base}?ports={}", port.remote);
            tokio::spawn(accept(cluster.clone(), listener, path, *port, lost_sender.clone()));
        }
    }
    if !any {
        let list: Vec<String> = forwards.iter().map(ToString::to_string).collect();
        return Err(Error::msg(format!("unable to listen on any of the requested ports: [{}]", list.join(" "))));
    }
    tokio::select! {
        _ = tokio::signal::ctrl_c() => Ok(()),
        Some(message) = lost.recv() => {
            eprintln!("{message}");
            Err(Error::msg("lost connection to pod"))
        }
    }
}

/// Go's words for the usual listen failures.
fn go_listen_error(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::AddrInUse => "bind: address already in use".into(),
        std::io::ErrorKind::AddrNotAvailable => "bind: cannot assign requested address".into(),
        std::io::ErrorKind::PermissionDenied => "bind: permission denied".into(),
        _ => err.to_string(),
    }
}

async fn accept(
    cluster: std::sync::Arc<Cluster>,
    listener: tokio::net::TcpListener,
    path: String,
    port: ForwardedPort,
    lost: mpsc::Sender<String>,
) {
    while let Ok((connection, _)) = listener.accept().await {
        println!("Handling connection for {}", port.local);
        let (cluster, path, lost) = (cluster.clone(), path.clone(), lost.clone());
        tokio::spawn(async move {
            let forwarded = async { cluster.open_channels(&path).await?.forward(connection).await }.await;
            if let Err(err) = forwarded {
                let _ = lost
                    .send(format!(
                        "error: an error occurred forwarding {} -> {}: {}",
                        port.local,
                        port.remote,
                        err.line().trim_start_matches("error: ")
                    ))
                    .await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "port-forward"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::PortForward(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = parse(&["svc/web", "8080:http", ":9090", "--address", "0.0.0.0,::"]).unwrap();
        assert_eq!((options.type_arg.as_str(), options.name.as_str()), ("svc", "web"));
        assert_eq!(options.port_specs, ["8080:http", ":9090"]);
        assert_eq!(options.addresses, ["0.0.0.0", "::"]);
        assert_eq!(options.pod_running_timeout, Duration::from_secs(60));
        let options = parse(&["web", "80", "--pod-running-timeout=5s"]).unwrap();
        assert_eq!((options.type_arg.as_str(), options.name.as_str()), ("pods", "web"));
        assert_eq!(
            (options.addresses, options.pod_running_timeout),
            (vec!["localhost".into()], Duration::from_secs(5))
        );
        // The ports and addresses are read once the pod is: kubectl's order.
        assert!(parse(&["web", "http", "--address=nowhere"]).is_ok());
        let usage = "error: TYPE/NAME and list of ports are required for port-forward\nSee 'kubeupd port-forward -h' for help and examples";
        let zero = "error: --pod-running-timeout must be higher than zero\nSee 'kubeupd port-forward -h' for help and examples";
        for (line, expected) in [
            (&[][..], usage),
            (&["pod/web"], usage),
            (&["pod/web", "--pod-running-timeout=0"], usage),
            (&["pod/web", "80", "--pod-running-timeout=0"], zero),
        ] {
            let said = parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert_eq!(said, expected, "{line:?}");
        }
    }
}
