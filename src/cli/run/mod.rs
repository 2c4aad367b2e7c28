//! `kubeupd run NAME --image=IMAGE`: kubectl 1.37's `run`. The Pod (and with `--expose` its
//! Service) is made by [`crate::generate::pod`], checked in kubectl's order, then printed
//! (`--dry-run=client`, `-o`) or created with the field manager `kubectl-run`. With `-i` or
//! `--attach` it waits for the pod to run, prints what it logged so far, attaches to it, and
//! (`--restart=Never|OnFailure`) waits for it to end and exits with its container's code; `--rm`
//! deletes what was created at the end.

use std::time::Duration;

use clap::Args;
use serde_json::Value;

use super::args::{DeletionArgs, DryRunArg, FieldManagerArg, OutputArgs, PodRunningTimeoutArg, RecordArg, StreamArgs};
use super::exec::Streams;
use super::{Error, GlobalArgs, Result, write_stdout};
use crate::apply::{DryRun, last_applied};
use crate::change::metadata;
use crate::client::{Cluster, DeleteParams, WriteOptions};
use crate::generate::pod::{self, PodOptions};
use crate::output::{self, Verb};
use crate::remote::channel::Outcome;
use crate::resource::pod::{PodState, log, wait_for};
use crate::schema::KindSchema;

/// Options of `kubeupd run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The pod's name, then the container's arguments (its command with --command).
    #[arg(value_name = "NAME")]
    words: Vec<String>,
    /// The container's arguments (its command with --command), after `--`.
    #[arg(last = true, value_name = "ARGS")]
    after_dash: Vec<String>,
    /// The image for the container to run.
    #[arg(long, value_name = "IMAGE")]
    image: Option<String>,
    /// The image pull policy for the container (Always, IfNotPresent, Never; default: the server's).
    #[arg(long, value_name = "POLICY", default_value = "")]
    image_pull_policy: String,
    /// An environment variable of the container, NAME=VALUE (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    env: Vec<String>,
    /// An annotation of the pod, KEY=VALUE (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    annotations: Vec<String>,
    /// The pod's labels, KEY=VALUE,... (default: run=NAME).
    #[arg(short = 'l', long, value_name = "KEY=VALUE,...", default_value = "")]
    labels: String,
    /// The port the container exposes.
    #[arg(long, value_name = "PORT", default_value = "")]
    port: String,
    /// The pod's restart policy: Always, OnFailure or Never.
    #[arg(long, value_name = "POLICY", default_value = "Always")]
    restart: String,
    /// The words after NAME are the container's command, not its arguments.
    #[arg(long)]
    command: bool,
    /// `-i` keeps stdin open on the container and attaches to it (unless --attach=false); `-t`
    /// needs it; `-q` prints nothing but what the pod prints.
    #[command(flatten)]
    streams: StreamArgs,
    /// Wait for the pod to run, then attach to it (default: with -i).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_parser = given_bool)]
    attach: Option<GivenBool>,
    /// Delete the pod after it ends (only when attaching).
    #[arg(long)]
    rm: bool,
    /// Leave stdin open after the first attach.
    #[arg(long)]
    leave_stdin_open: bool,
    /// Also create a ClusterIP Service for the pod's --port.
    #[arg(long)]
    expose: bool,
    /// Run the container privileged.
    #[arg(long)]
    privileged: bool,
    /// Taken for kubectl's sake: kubeupd does not detach on a key sequence.
    #[arg(long, value_name = "KEYS", default_value = "ctrl-p,ctrl-q")]
    detach_keys: String,
    /// How long to wait for the pod to run, and to end.
    #[command(flatten)]
    timeout: PodRunningTimeoutArg,
    /// A JSON patch of the generated pod (see --override-type).
    #[arg(long, value_name = "JSON", default_value = "")]
    overrides: String,
    /// How --overrides applies: merge (a JSON merge patch), json (a JSON patch) or strategic (a
    /// strategic merge patch).
    #[arg(long, value_name = "TYPE", default_value = "merge")]
    override_type: String,
    /// Record the pod in the last-applied annotation, so that `apply` can follow.
    #[arg(long)]
    save_config: bool,
    #[command(flatten)]
    dry_run: DryRunArg,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    field_manager: FieldManagerArg,
    #[command(flatten)]
    record: RecordArg,
    #[command(flatten)]
    deletion: DeletionArgs,
    /// kubectl's delete flags that its `run` takes and ignores.
    #[command(flatten)]
    ignored: IgnoredArgs,
}

/// The flags kubectl's `run` inherits from `delete` and never reads (`--rm` deletes without
/// waiting, with the pod's own grace period).
#[derive(Debug, Args)]
struct IgnoredArgs {
    /// Ignored (kubectl's delete flag).
    #[arg(long, hide = true)]
    force: bool,
    /// Ignored (kubectl's delete flag).
    #[arg(long, hide = true, value_name = "DURATION", default_value = "0s", value_parser = super::pflag::duration)]
    timeout: Duration,
    /// Ignored (kubectl's delete flag).
    #[arg(long, hide = true)]
    wait: bool,
    /// Ignored, deprecated in kubectl.
    #[arg(short = 'f', long = "filename", hide = true, value_name = "PATH", value_delimiter = ',')]
    filename: Vec<String>,
    /// Ignored (kubectl's delete flag).
    #[arg(short = 'R', long, hide = true)]
    recursive: bool,
    /// Ignored (kubectl's delete flag).
    #[arg(short = 'k', long = "kustomize", hide = true, value_name = "DIR")]
    kustomize: Option<String>,
}

/// A boolean flag whose being given counts (`--attach`'s default depends on `-i`).
#[derive(Debug, Clone, Copy)]
struct GivenBool(bool);

fn given_bool(text: &str) -> std::result::Result<GivenBool, crate::gocompat::strconv::NumError> {
    crate::gocompat::strconv::parse_bool(text).map(GivenBool)
}

/// What `run` does, checked before any request.
struct Options {
    pod: PodOptions,
    /// `--expose`: the Service's port.
    expose: Option<i32>,
    attach: bool,
    rm: bool,
    deletion: DeleteParams,
    /// `--pod-running-timeout`: for the pod to run, then to end.
    running_timeout: Duration,
}

/// kubectl's checks, in its order (`Complete`, then `Validate`), and the pod they describe;
/// `warnings` gets what kubectl warns of on the way, which it prints even when a later check fails.
fn options(args: &RunArgs, warnings: &mut Vec<String>) -> Result<Options> {
    let Some(image) = &args.image else {
        return Err(Error::msg(r#"required flag(s) "image" not set"#));
    };
    let annotations = pod::annotations(&args.annotations)?;
    let labels = pod::labels(&args.labels)?;
    let env = pod::env(&args.env)?;
    let restart_policy = pod::restart_policy(&args.restart, args.streams.stdin)?;
    let image_pull_policy = pod::image_pull_policy(&args.image_pull_policy)?;
    if args.timeout.pod_running_timeout.is_zero() {
        return Err(Error::msg("--pod-running-timeout must be higher than zero"));
    }
    let attach = args.attach.map_or(args.streams.stdin, |GivenBool(given)| given);
    args.output.printer(Verb::Write)?;
    let (deletion, warning) = args.deletion.options()?;
    warnings.extend(warning);
    // kubectl 1.37 takes the words after `--` as the name too when none comes before.
    let mut words = args.words.iter().chain(&args.after_dash);
    let Some(name) = words.next() else {
        return Err(Error::msg("NAME is required for run"));
    };
    if image.is_empty() {
        return Err(Error::msg("--image is required"));
    }
    if !pod::valid_image(image) {
        return Err(Error::msg(format!("invalid image name {image:?}: invalid reference format")));
    }
    if args.streams.tty && !args.streams.stdin {
        return Err(Error::msg("-i/--stdin is required for containers with -t/--tty=true"));
    }
    if args.expose && args.port.is_empty() {
        return Err(Error::msg("--port must be set when exposing a service"));
    }
    let port = match args.port.as_str() {
        "" => None,
        text => Some(text.parse::<i64>().map_err(|_| Error::msg("--port must be a number"))? as i32),
    };
    if !attach && args.rm {
        return Err(Error::msg("--rm should only be used for attached containers"));
    }
    if attach && args.dry_run.mode() != DryRun::None {
        return Err(Error::msg(
            "--dry-run=[server|client] can't be used with attached containers options (--attach, --stdin, or --tty)",
        ));
    }
    let arguments = words.cloned().collect();
    let pod = PodOptions {
        name: name.clone(),
        image: image.clone(),
        labels,
        annotations,
        env,
        port,
        stdin: args.streams.stdin,
        tty: args.streams.tty,
        leave_stdin_open: args.leave_stdin_open,
        restart_policy,
        image_pull_policy,
        privileged: args.privileged,
        arguments,
        command: args.command,
    };
    let deletion = DeleteParams { grace_period: None, ..deletion };
    Ok(Options {
        pod,
        expose: port.filter(|_| args.expose),
        attach,
        rm: args.rm,
        deletion,
        running_timeout: args.timeout.pod_running_timeout,
    })
}

/// `--overrides` applied to the generated `object` as `--override-type` says.
fn overridden(object: Value, args: &RunArgs) -> Result<Value> {
    if args.overrides.is_empty() {
        return Ok(object);
    }
    let parsed: std::result::Result<Value, _> = serde_json::from_str(&args.overrides);
    let overridden = match args.override_type.as_str() {
        "merge" => match parsed {
            Ok(patch @ Value::Object(_)) => Ok(crate::merge::json_merge::apply(object, &patch)),
            // The array itself, which kubectl then fails to read as an object.
            Ok(Value::Array(_)) => Err(Error::msg(ARRAY_AS_OBJECT)),
            _ => Err(Error::msg("Invalid JSON Patch")),
        },
        "json" => {
            let patch = parsed.map_err(|err| Error::msg(err.to_string()))?;
            let patch = crate::merge::json_patch::parse(&patch).map_err(|err| Error::msg(err.to_string()))?;
            let mut object = object;
            crate::merge::json_patch::apply(&mut object, &patch).map_err(|err| Error::msg(err.to_string()))?;
            Ok(object)
        }
        "strategic" => {
            // Go reads `null` as an empty patch.
            let patch = match parsed {
                Ok(patch @ Value::Object(_)) => patch,
                Ok(Value::Null) => Value::Object(serde_json::Map::new()),
                _ => return Err(Error::msg("invalid JSON document")),
            };
            // kubectl merges by the patch metadata of its Go type for pods: the built-in schema's.
            let schema = KindSchema::for_builtin(None, "v1", "Pod").expect("Pod is a built-in kind");
            crate::merge::strategic::apply(object, patch, &schema.node()).map_err(|err| Error::msg(err.to_string()))
        }
        other => Err(Error::msg(format!("invalid override type: {other}"))),
    };
    overridden.map(pod::with_go_structs)
}

/// kubectl's words for a merge override that is a JSON array (which replaces the whole pod).
const ARRAY_AS_OBJECT: &str = "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value \
                               of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \
                               \"json:\\\"kind,omitempty\\\"\" }";

/// Runs `kubeupd run`.
pub async fn run(args: RunArgs, global: &GlobalArgs) -> Result {
    let mut warnings = Vec::new();
    let checked = options(&args, &mut warnings);
    for warning in warnings {
        eprintln!("{warning}");
    }
    let options = checked?;
    let dry_run = args.dry_run.mode();
    let mut pod = overridden(pod::pod(&options.pod), &args)?;
    if let Some(cause) = args.record.cause(global) {
        metadata::record_change_cause(&mut pod, cause);
    }
    let mut objects = vec![pod];
    if let Some(port) = options.expose {
        objects.push(pod::service(&options.pod, port));
    }
    if dry_run == DryRun::Client {
        // kubectl names the namespace in the object only when -n names it.
        if let Some(namespace) = &global.namespace {
            for object in &mut objects {
                object["metadata"]["namespace"] = namespace.clone().into();
            }
        }
        return print_all(&objects, &args);
    }
    let cluster = global.connect().await?;
    let namespace = global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
    let mut created = Vec::new();
    let mut failure = None;
    for object in objects {
        match create(&cluster, &namespace, object, &args).await {
            Ok(object) => created.push(object),
            // The pod's failure ends the command; the Service's is reported after the pod.
            Err(err) if created.is_empty() => return Err(err),
            Err(err) => failure = Some(err),
        }
    }
    if !options.attach {
        print_all(&created, &args)?;
        return failure.map_or(Ok(()), Err);
    }
    let result = attach_and_wait(&cluster, &created[0], &options, args.streams.quiet).await;
    if options.rm {
        remove(&cluster, &created, &options.deletion, args.streams.quiet).await;
    }
    result
}

/// The objects as `-o` prints them, else kubectl's `pod/NAME created` lines.
fn print_all(objects: &[Value], args: &RunArgs) -> Result {
    let printer = args.output.printer(Verb::Write)?;
    for (at, object) in objects.iter().enumerate() {
        match printer {
            // kubectl's YAML printer starts each document after the first with `---`.
            Some(printer @ output::Printer::Yaml) if at > 0 => {
                write_stdout(&format!("---\n{}", args.output.render_typed(printer, object)?))?
            }
            Some(printer) => write_stdout(&args.output.render_typed(printer, object)?)?,
            None => write_stdout(&format!("{} created{}\n", output::object_name(object), args.dry_run.suffix()))?,
        }
    }
    Ok(())
}

/// Creates `object` (with the last-applied annotation for `--save-config`) in `namespace` as the
/// field manager `kubectl-run` (or `--field-manager`); the server's object.
async fn create(cluster: &Cluster, namespace: &str, mut object: Value, args: &RunArgs) -> Result<Value> {
    if args.save_config {
        object = last_applied::with_annotation(&object);
    }
    let rt = cluster.resolve_kind("v1", object["kind"].as_str().unwrap_or_default()).await?;
    let write = WriteOptions {
        dry_run: args.dry_run.mode() == DryRun::Server,
        field_manager: Some(args.field_manager.or("kubectl-run")),
        ..WriteOptions::default()
    };
    Ok(cluster.create(&rt, Some(namespace), &object, &write).await?)
}

/// kubectl's `run` after the pod is created: wait for it to run (or end), show its logs so far,
/// attach, then, for a pod that is not restarted for ever, wait for its end and take its
/// container's exit code.
async fn attach_and_wait(cluster: &Cluster, pod: &Value, options: &Options, quiet: bool) -> Result {
    let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default().to_string();
    let name = pod["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let running_timeout = options.running_timeout;
    let pod = wait_for(cluster, &namespace, &name, PodState::RunningAndReady, running_timeout).await?;
    let container = super::exec::choose_container(&pod, None, quiet, &mut |note| eprintln!("{note}"))?;
    let phase = pod["status"]["phase"].as_str().unwrap_or_default();
    if matches!(phase, "Succeeded" | "Failed") {
        let logged = log(cluster, &namespace, &name, &container).await?;
        write_stdout(&String::from_utf8_lossy(&logged))?;
    } else {
        match log(cluster, &namespace, &name, &container).await {
            Ok(logged) => write_stdout(&String::from_utf8_lossy(&logged))?,
            Err(err) => eprintln!("warning: couldn't fetch pre-attach logs: {}", Error::from(err).message()),
        }
        let streams = Streams { stdin: options.pod.stdin, tty: options.pod.tty, quiet };
        let failure = match super::attach::attach_to(cluster, &pod, Some(&container), &streams).await {
            Ok(Outcome::Success) => None,
            Ok(Outcome::Exited(code)) => Some(format!("command terminated with exit code {code}")),
            Ok(Outcome::Failed(message)) => Some(message),
            Err(err) => Some(err.message()),
        };
        if let Some(failure) = failure {
            eprintln!("warning: couldn't attach to pod/{name}, falling back to streaming logs: {failure}");
            let logged = log(cluster, &namespace, &name, &container).await?;
            write_stdout(&String::from_utf8_lossy(&logged))?;
        }
    }
    let ending = match options.pod.restart_policy.as_str() {
        _ if options.pod.leave_stdin_open => return Ok(()),
        "Never" => PodState::Completed,
        "OnFailure" => PodState::Succeeded,
        _ => return Ok(()),
    };
    let pod = wait_for(cluster, &namespace, &name, ending, running_timeout).await?;
    exit_of(&pod)
}

/// kubectl's verdict on an ended pod: success, or its first container's exit code after
/// `pod NS/NAME terminated (REASON)` and the container's message on stderr.
fn exit_of(pod: &Value) -> Result {
    let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    match pod["status"]["phase"].as_str().unwrap_or_default() {
        "Succeeded" => Ok(()),
        "Failed" => {
            let terminated = &pod["status"]["containerStatuses"][0]["state"]["terminated"];
            let code = terminated["exitCode"].as_i64().unwrap_or_default();
            if !terminated.is_object() || code == 0 {
                return Err(Error::msg(format!("pod {namespace}/{name} failed with unknown exit code")));
            }
            let reason = terminated["reason"].as_str().unwrap_or_default();
            let message = terminated["message"].as_str().unwrap_or_default();
            // An exit code's error, which kubectl prints as it is, without `error: `.
            let mut text = format!("pod {namespace}/{name} terminated ({reason})\n{message}");
            if !text.ends_with('\n') {
                text.push('\n');
            }
            eprint!("{text}");
            Err(Error::Reported(code as u8))
        }
        phase => Err(Error::msg(format!("pod {namespace}/{name} left in phase {phase}"))),
    }
}

/// `--rm`: deletes what `run` created, without waiting, with kubectl's line for each (unless
/// quiet); failures are not reported, as kubectl does not report them.
async fn remove(cluster: &Cluster, created: &[Value], deletion: &DeleteParams, quiet: bool) {
    for object in created {
        let kind = object["kind"].as_str().unwrap_or_default();
        let namespace = object["metadata"]["namespace"].as_str().unwrap_or_default();
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        let Ok(rt) = cluster.resolve_kind("v1", kind).await else { continue };
        if cluster.delete_with(&rt, Some(namespace), name, deletion).await.is_ok() && !quiet {
            println!("{} {name:?} deleted from {namespace} namespace", kind.to_lowercase());
        }
    }
}
