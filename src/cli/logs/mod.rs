//! `kubeupd logs`: a container's log, as kubectl 1.37 prints it. A pod, or `TYPE/NAME` of a
//! workload (its pods chosen as kubectl chooses them), or every pod `-l` selects; one container
//! (`-c`, the default-container annotation, else the first) or all of them; the log read once,
//! or followed (`-f`) until the server ends it, several followed logs interleaved by line.

mod stream;

use std::time::Duration;

use clap::Args;
use serde_json::Value;

use super::args::LabelSelectorArg;
use super::{Error, GlobalArgs, Result};
use crate::client::{self, Cluster, ListScope, LogOptions, Selectors, WatchEvent, WatchOptions};
use crate::pods;

/// kubectl's usage line, in its usage errors.
const USAGE: &str = "expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command";

/// The lines `-l` shows of each log unless `--tail` says otherwise.
const SELECTOR_TAIL: i64 = 10;

/// Options of `kubeupd logs`.
#[derive(Debug, Args)]
pub struct LogsArgs {
    /// The pod, or TYPE/NAME of a workload whose pod to read; then, optionally, the container.
    #[arg(value_name = "POD | TYPE/NAME [CONTAINER]")]
    pub args: Vec<String>,
    /// The log of this container.
    #[arg(short = 'c', long, value_name = "NAME")]
    pub container: Option<String>,
    /// The logs of every container of the pod(s).
    #[arg(long)]
    pub all_containers: bool,
    /// The logs of every pod of the workload, each line after its source (sets --prefix).
    #[arg(long)]
    pub all_pods: bool,
    /// Follow the log: print lines as they come, until the server ends the stream.
    #[arg(short = 'f', long)]
    pub follow: bool,
    /// Each line after the time it was written.
    #[arg(long)]
    pub timestamps: bool,
    /// At most this many bytes of each log (0: no limit).
    #[arg(long, value_name = "BYTES", default_value_t = 0, allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub limit_bytes: i64,
    /// The log of the previous instance of the container, if it restarted.
    #[arg(short = 'p', long)]
    pub previous: bool,
    /// The last this many lines (-1: all; 10 with a selector unless given).
    #[arg(long, value_name = "LINES", allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub tail: Option<i64>,
    /// With -f, print errors and go on instead of failing.
    #[arg(long)]
    pub ignore_errors: bool,
    /// Lines after this time (RFC 3339); only one of --since-time and --since.
    #[arg(long, value_name = "TIME")]
    pub since_time: Option<String>,
    /// Lines newer than this, e.g. 5s, 2m, 3h; only one of --since-time and --since.
    #[arg(long, value_name = "DURATION", default_value = "0s", allow_hyphen_values = true, value_parser = nanoseconds)]
    pub since: i64,
    /// Let the server skip checking the kubelet's certificate.
    #[arg(long)]
    pub insecure_skip_tls_verify_backend: bool,
    /// How long to wait for a pod of the workload, and how long -f retries a log not there yet.
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = super::pflag::duration)]
    pub pod_running_timeout: Duration,
    #[command(flatten)]
    pub selector: LabelSelectorArg<String>,
    /// With -f and several logs: follow at most this many at once, else fail.
    #[arg(long, value_name = "N", default_value_t = 5, allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub max_log_requests: i64,
    /// Each line after its source: `[pod/NAME/CONTAINER] `.
    #[arg(long)]
    pub prefix: bool,
}

/// pflag's `duration` in nanoseconds, the sign kept (`--since` refuses a negative one itself).
fn nanoseconds(text: &str) -> Result<i64, String> {
    crate::gocompat::time::parse_duration(text)
}

/// The checked options.
struct Options {
    /// `POD` or `TYPE/NAME`; `None` with a selector.
    resource: Option<String>,
    selector: Option<String>,
    /// `-c` or the inline container.
    container: Option<String>,
    all_containers: bool,
    all_pods: bool,
    prefix: bool,
    follow: bool,
    ignore_errors: bool,
    timeout: Duration,
    max_requests: i64,
    query: LogOptions,
}

fn usage(message: &str) -> Error {
    Error::msg(format!("{message}\nSee 'kubectl logs -h' for help and examples"))
}

/// kubectl's checks of the flags, in its order; nothing is sent before they pass.
fn options(args: &LogsArgs) -> Result<Options> {
    let selector = args.selector.selector.clone().filter(|selector| !selector.is_empty());
    let (resource, inline) = match args.args.as_slice() {
        [] if selector.is_none() => return Err(usage(USAGE)),
        [] => (None, None),
        [_] if selector.is_some() => return Err(usage("only a selector (-l) or a POD name is allowed")),
        [resource] => (Some(resource.clone()), None),
        [resource, container] => (Some(resource.clone()), Some(container.clone())),
        _ => return Err(usage(USAGE)),
    };
    if args.pod_running_timeout.is_zero() {
        return Err(Error::msg("--pod-running-timeout must be higher than zero"));
    }
    let since_time = match args.since_time.as_deref().filter(|text| !text.is_empty()) {
        Some(text) => Some(crate::gocompat::time::parse_rfc3339(text).map_err(Error::msg)?),
        None => None,
    };
    if since_time.is_some() && args.since != 0 {
        return Err(Error::msg("at most one of `sinceTime` or `sinceSeconds` may be specified"));
    }
    let container = inline.clone().or_else(|| args.container.clone()).filter(|name| !name.is_empty());
    if args.all_containers
        && let Some(name) = &container
    {
        return Err(Error::msg(format!("--all-containers=true should not be specified with container name {name}")));
    }
    if args.container.is_some() && inline.is_some() {
        return Err(Error::msg("only one of -c or an inline [CONTAINER] arg is allowed"));
    }
    if args.limit_bytes < 0 {
        return Err(Error::msg("--limit-bytes must be greater than 0"));
    }
    // Go's Duration.Round(time.Second), then whole seconds.
    let since_seconds = (args.since != 0).then(|| {
        let (seconds, rest) = (args.since / 1_000_000_000, args.since % 1_000_000_000);
        if rest.abs() >= 500_000_000 { seconds + rest.signum() } else { seconds }
    });
    if since_seconds.is_some_and(|seconds| seconds < 0) {
        return Err(Error::msg("--since must be greater than 0"));
    }
    let tail_lines = match (&selector, args.tail) {
        (Some(_), None) => Some(SELECTOR_TAIL),
        (_, None | Some(-1)) => None,
        (_, tail) => tail,
    };
    if tail_lines.is_some_and(|tail| tail < -1) {
        return Err(Error::msg("--tail must be greater than or equal to -1"));
    }
    Ok(Options {
        resource,
        selector,
        container: container.clone(),
        all_containers: args.all_containers,
        all_pods: args.all_pods,
        prefix: args.prefix || args.all_pods,
        follow: args.follow,
        ignore_errors: args.ignore_errors,
        timeout: args.pod_running_timeout,
        max_requests: args.max_log_requests,
        query: LogOptions {
            container: container.unwrap_or_default(),
            follow: args.follow,
            previous: args.previous,
            timestamps: args.timestamps,
            since_seconds,
            since_time: since_time.map(crate::gocompat::time::timestamp),
            tail_lines,
            limit_bytes: (args.limit_bytes != 0).then_some(args.limit_bytes),
            insecure_skip_tls_verify_backend: args.insecure_skip_tls_verify_backend,
        },
    })
}

/// One log to read: a container of a pod.
#[derive(Debug, Clone)]
pub(super) struct LogRequest {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    /// `[pod/NAME/CONTAINER] ` with `--prefix`, else empty.
    pub prefix: String,
}

/// Runs `kubeupd logs`.
pub async fn run(args: LogsArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let namespace = cluster.default_namespace().to_string();
    let pods_type = cluster.resolve("pods").await?;
    let requests = match (&options.resource, &options.selector) {
        (_, Some(selector)) => {
            let selectors = Selectors { label: Some(selector), field: None };
            let list = cluster.list(&pods_type, ListScope::Namespace(&namespace), selectors).await?;
            let pods = list["items"].as_array().cloned().unwrap_or_default();
            if pods.is_empty() {
                eprintln!("No resources found in {namespace} namespace.");
            }
            requests_of_pods(&pods, &options, options.all_pods)?
        }
        (Some(resource), None) => {
            let object = named_object(&cluster, &namespace, resource).await?;
            match object["kind"].as_str() {
                Some("Pod") if object["apiVersion"] == "v1" => requests_of_pods(&[object], &options, options.all_pods)?,
                _ => {
                    let selector = pods::pod_selector(&object)
                        .map_err(|err| Error::msg(format!("cannot get the logs from {err}")))?;
                    let pods = pods_of(&cluster, &pods_type, &namespace, &selector, options.timeout).await?;
                    match (pods.len(), options.all_pods) {
                        (1, _) | (_, true) => requests_of_pods(&pods, &options, options.all_pods)?,
                        (count, false) => {
                            let first = &pods[0];
                            eprintln!(
                                "Found {count} pods, using pod/{}",
                                first["metadata"]["name"].as_str().unwrap_or_default()
                            );
                            requests_of_pods(std::slice::from_ref(first), &options, false)?
                        }
                    }
                }
            }
        }
        (None, None) => unreachable!("options() requires a pod or a selector"),
    };
    if options.follow && requests.len() > 1 && requests.len() as i64 > options.max_requests {
        return Err(Error::msg(format!(
            "you are attempting to follow {} log streams, but maximum allowed concurrency is {}, use --max-log-requests to increase the limit",
            requests.len(),
            options.max_requests
        )));
    }
    let consume = stream::Consume {
        cluster: &cluster,
        query: &options.query,
        follow: options.follow,
        ignore_errors: options.ignore_errors,
        timeout: options.timeout,
    };
    if options.follow && requests.len() > 1 {
        return consume.together(&requests).await;
    }
    for request in &requests {
        consume.together(std::slice::from_ref(request)).await?;
    }
    Ok(())
}

/// The object `POD` or `TYPE/NAME` names, as kubectl's builder reads it (kind and apiVersion
/// set); a missing one in kubectl's words.
async fn named_object(cluster: &Cluster, namespace: &str, resource: &str) -> Result<Value> {
    let (type_arg, name) = match resource.split_once('/') {
        Some((type_arg, name)) => (type_arg, name),
        None => ("pods", resource),
    };
    if name.contains('/') {
        return Err(Error::msg("arguments in resource/name form may not have more than one slash"));
    }
    let rt = cluster.resolve(type_arg).await?;
    let mut object = match cluster.get(&rt, Some(namespace), name).await {
        Err(client::Error::NotFound(status)) => {
            return Err(Error::msg(format!(
                "error from server (NotFound): {} in namespace {namespace:?}",
                status.message
            )));
        }
        other => other?,
    };
    object["apiVersion"] = rt.api_version().into();
    object["kind"] = rt.kind.clone().into();
    Ok(object)
}

/// The pods `selector` selects in `namespace`, in kubectl's order of preference; when there is
/// none yet, the first one a watch sees within `timeout`.
async fn pods_of(
    cluster: &Cluster,
    pods_type: &client::ResourceType,
    namespace: &str,
    selector: &str,
    timeout: Duration,
) -> Result<Vec<Value>> {
    let selectors = Selectors { label: Some(selector), field: None };
    let list = cluster.list(pods_type, ListScope::Namespace(namespace), selectors).await?;
    let mut pods = list["items"].as_array().cloned().unwrap_or_default();
    if !pods.is_empty() {
        pods::sort_for_logging(&mut pods);
        return Ok(pods);
    }
    let version = list["metadata"]["resourceVersion"].as_str().map(String::from);
    let watch_options =
        WatchOptions { selectors, resource_version: version.as_deref(), timeout: timeout + Duration::from_secs(1) };
    let first = async {
        use futures::StreamExt as _;
        let mut events = cluster.watch(pods_type, ListScope::Namespace(namespace), &watch_options).await?;
        while let Some(event) = events.next().await {
            if let WatchEvent::Added(pod) | WatchEvent::Modified(pod) = event? {
                return Ok(Some(pod));
            }
        }
        Ok::<_, Error>(None)
    };
    match tokio::time::timeout(timeout, first).await {
        Ok(Ok(Some(pod))) => Ok(vec![pod]),
        Ok(Err(err)) => Err(err),
        Ok(Ok(None)) | Err(_) => Err(Error::msg("timed out waiting for the condition")),
    }
}

/// The logs to read of `pods`: each one's container (printing kubectl's notices unless `quiet`),
/// or all of them with `--all-containers`.
fn requests_of_pods(pods: &[Value], options: &Options, quiet: bool) -> Result<Vec<LogRequest>> {
    let mut requests = Vec::new();
    for pod in pods {
        let name = pod["metadata"]["name"].as_str().unwrap_or_default();
        let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
        let containers = match options.all_containers {
            true => pods::all_containers(pod),
            false => {
                let (container, notices) =
                    pods::log_container(pod, options.container.as_deref(), quiet).map_err(Error::msg)?;
                for notice in notices {
                    eprintln!("{notice}");
                }
                vec![container]
            }
        };
        for container in containers {
            requests.push(LogRequest {
                namespace: namespace.to_string(),
                pod: name.to_string(),
                prefix: if options.prefix { pods::log_prefix(name, &container.name) } else { String::new() },
                container: container.name,
            });
        }
    }
    Ok(requests)
}
