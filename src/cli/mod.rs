//! The command line: global flags, then one module per verb. The only layer that knows clap,
//! prints, or uses `anyhow`.
//!
//! Each verb follows kubectl's shape: its flags (`XArgs`, read by clap), then its options checked
//! before any request (`options()`: kubectl's checks, files read, printer made; no I/O but files),
//! then `run` on the library ([`crate::resource`] resolves what the user named, [`crate::apply`]
//! and [`crate::client`] do the work), the results printed with [`crate::output`]. A flag that
//! several verbs take is declared once, as a group of [`args`]; help that is not a flag's (the
//! verbs by kind, each verb's Examples) is in [`help`].

mod api_resources;
mod apply;
mod args;
mod attach;
mod cluster_info;
mod completion;
mod config;
mod cp;
mod create;
mod delete;
mod describe;
mod diff;
mod edit;
mod error;
mod events;
mod exec;
mod fallback;
mod fleet;
mod get;
mod help;
mod ignore;
mod kuberc;
mod kustomize;
mod label;
mod logs;
mod patch;
mod pflag;
mod port_forward;
mod proxy;
mod replace;
mod rollout;
mod run;
mod scale;
mod set;
mod update;
mod validation;
mod version;
mod visit;
mod wait;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use clap::{Args, CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use secrecy::SecretString;

use crate::change;
use crate::client::{Cluster, ConnectOptions, Overrides};

pub use error::{Error, Result};

/// kubeupd: create, read, change and delete Kubernetes objects as kubectl does, correctly and fast.
#[derive(Debug, Parser)]
#[command(name = "kubeupd", version, about, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
    /// pflag's warnings for the deprecated flags the line gives (see [`pflag::deprecations`]).
    #[arg(skip)]
    pub deprecated: Vec<String>,
}

/// Flags every verb accepts, with kubectl's names and meanings.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).
    #[arg(long, global = true, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use; several (`a,b,c`) or a pattern (`'prod-*'`) run the command
    /// on each of them at once, each line prefixed with its context.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,
    /// With several contexts: how many clusters to work on at once (default: all of them).
    #[arg(long, global = true, value_name = "N", default_value_t = 0)]
    pub cluster_concurrency: usize,
    /// The namespace scope for this request.
    #[arg(short = 'n', long, global = true, value_name = "NAME")]
    pub namespace: Option<String>,
    /// How long to wait for a single server request, e.g. 5s, 1m, 500ms, or a number of seconds;
    /// 0 waits forever. (A string flag in kubectl, read before the first request.)
    #[arg(long, global = true, value_name = "DURATION", default_value = "0")]
    pub request_timeout: String,
    /// Log verbosity: 6 and above logs every request.
    #[arg(short = 'v', long = "v", global = true, value_name = "LEVEL", default_value_t = 0,
          allow_negative_numbers = true, value_parser = pflag::level)]
    pub verbosity: i32,
    /// Directory for the discovery and OpenAPI caches (default: ~/.kube/cache).
    #[arg(long, global = true, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// The address and port of the Kubernetes API server, e.g. https://10.0.0.1:6443.
    #[arg(short = 's', long, global = true, value_name = "URL")]
    pub server: Option<String>,
    /// The kubeconfig cluster to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub cluster: Option<String>,
    /// The kubeconfig user to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub user: Option<String>,
    /// Path to a cert file for the certificate authority.
    #[arg(long, global = true, value_name = "PATH")]
    pub certificate_authority: Option<PathBuf>,
    /// Server name to use for server certificate validation (default: the server URL's host).
    #[arg(long, global = true, value_name = "NAME")]
    pub tls_server_name: Option<String>,
    /// Do not verify the server's certificate (insecure).
    #[arg(long, global = true, value_name = "BOOL")]
    pub insecure_skip_tls_verify: bool,
    /// Treat warnings from the server as errors: exit non-zero when any arrived.
    #[arg(long, global = true)]
    pub warnings_as_errors: bool,
    /// Ask the server for uncompressed answers.
    #[arg(long, global = true, value_name = "BOOL")]
    pub disable_compression: bool,
    /// Bearer token for authentication to the API server.
    #[arg(long, global = true, value_name = "TOKEN", value_parser = secret)]
    pub token: Option<SecretString>,
    /// Path to a client certificate file for TLS.
    #[arg(long, global = true, value_name = "PATH")]
    pub client_certificate: Option<PathBuf>,
    /// Path to a client key file for TLS.
    #[arg(long, global = true, value_name = "PATH")]
    pub client_key: Option<PathBuf>,
    /// Username for basic authentication to the API server.
    #[arg(long, global = true, value_name = "NAME")]
    pub username: Option<String>,
    /// Password for basic authentication to the API server.
    #[arg(long, global = true, value_name = "PASSWORD", value_parser = secret)]
    pub password: Option<SecretString>,
    /// Username to impersonate for the operation: a user or a service account.
    #[arg(long = "as", global = true, value_name = "USER")]
    pub impersonate: Option<String>,
    /// Group to impersonate for the operation; repeat for several groups.
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub impersonate_groups: Vec<String>,
    /// UID to impersonate for the operation.
    #[arg(long = "as-uid", global = true, value_name = "UID")]
    pub impersonate_uid: Option<String>,
    /// An extra field of the user to impersonate, KEY=VALUE; repeat for several values.
    #[arg(long = "as-user-extra", global = true, value_name = "KEY=VALUE")]
    pub impersonate_extra: Vec<String>,
    /// The proxy to reach the server through (http:// or socks5://), over the kubeconfig's.
    #[arg(long, global = true, value_name = "URL")]
    pub proxy_url: Option<String>,
    /// Accepted for kubectl's scripts; kubeupd writes its log lines as they come.
    #[arg(long, global = true, value_name = "DURATION", default_value = "5s", value_parser = pflag::go_flag_duration)]
    pub log_flush_frequency: Duration,
    /// Accepted for kubectl's scripts; kubeupd filters its log by -v only.
    #[arg(long, global = true, value_name = "PATTERN=N,...", value_parser = pflag::module_spec)]
    pub vmodule: Option<String>,
    /// Refused: kubeupd has no Kubernetes version of its own for the server's to match.
    #[arg(long, global = true)]
    pub match_server_version: bool,
    /// Only `none`: kubeupd has no Go profiles to capture.
    #[arg(long, global = true, value_name = "NAME", default_value = "none")]
    pub profile: String,
    /// Where --profile writes (unused: only --profile=none is taken).
    #[arg(long, global = true, value_name = "PATH", default_value = "profile.pprof")]
    pub profile_output: PathBuf,
    /// kubectl's preferences file (default: $KUBERC, else ~/.kube/kuberc): default options and aliases.
    #[arg(long, global = true, value_name = "PATH")]
    pub kuberc: Option<PathBuf>,
    /// The command line as `--record` records it (see [`pflag::change_cause`]).
    #[arg(skip)]
    pub change_cause: String,
}

/// Keeps a credential out of `Debug` output.
fn secret(text: &str) -> Result<SecretString, std::convert::Infallible> {
    Ok(SecretString::from(text))
}

/// How many distinct warnings the server sent in this run.
static WARNINGS_RECEIVED: AtomicUsize = AtomicUsize::new(0);

impl GlobalArgs {
    /// Refuses kubectl's global flags that have no meaning here, saying why.
    fn check(&self) -> Result {
        request_timeout(&self.request_timeout).map_err(Error::msg)?;
        if self.match_server_version {
            return Err(Error::msg(
                "--match-server-version is not supported: kubeupd has no Kubernetes version of its own to match",
            ));
        }
        if self.profile != "none" {
            return Err(Error::msg(format!(
                "--profile={} is not supported: kubeupd is not a Go program and has no Go profiles to capture",
                self.profile
            )));
        }
        Ok(())
    }

    /// How to reach the cluster, as the flags say.
    pub fn connect_options(&self) -> ConnectOptions {
        ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            namespace: self.namespace.clone(),
            request_timeout: request_timeout(&self.request_timeout).ok().filter(|timeout| !timeout.is_zero()),
            cache_dir: self.cache_dir.clone(),
            overrides: Overrides {
                server: self.server.clone(),
                cluster: self.cluster.clone(),
                user: self.user.clone(),
                certificate_authority: self.certificate_authority.clone(),
                tls_server_name: self.tls_server_name.clone(),
                insecure_skip_tls_verify: self.insecure_skip_tls_verify,
                disable_compression: self.disable_compression,
                token: self.token.clone(),
                client_certificate: self.client_certificate.clone(),
                client_key: self.client_key.clone(),
                username: self.username.clone(),
                password: self.password.clone(),
                impersonate: self.impersonate.clone(),
                impersonate_groups: self.impersonate_groups.clone(),
                impersonate_uid: self.impersonate_uid.clone(),
                // As kubectl 1.37 reads `--as-user-extra`: a value without `=` is left out.
                impersonate_extra: (self.impersonate_extra.iter())
                    .filter_map(|extra| extra.split_once('='))
                    .map(|(key, value)| (key.to_string(), value.to_string()))
                    .collect(),
                proxy_url: self.proxy_url.clone(),
            },
        }
    }

    /// Prepares a client for the cluster the flags select; sends no request yet. The server's
    /// warnings are shown as kubectl shows them, each once, on stderr.
    pub async fn connect(&self) -> Result<Cluster> {
        let cluster = Cluster::connect(&self.connect_options()).await?;
        cluster.on_warning(|text| {
            WARNINGS_RECEIVED.fetch_add(1, Ordering::Relaxed);
            eprintln!("Warning: {text}");
        });
        Ok(cluster)
    }
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Display one or many objects.
    #[command(after_help = help::GET)]
    Get(get::GetArgs),
    /// Replace objects, or change their fields, by read-modify-write, retrying on conflicts.
    #[command(after_help = help::UPDATE)]
    Update(update::UpdateArgs),
    /// Replace objects with the ones in files (kubectl's name for `update -f`); --force deletes and re-creates them.
    #[command(after_help = help::REPLACE)]
    Replace(replace::ReplaceArgs),
    /// Show details of objects and of what relates to them (events, pods, ReplicaSets, endpoints), as `kubectl describe`.
    #[command(after_help = help::DESCRIBE)]
    Describe(describe::DescribeArgs),
    /// Update fields of an object with a strategic merge, JSON merge or JSON patch.
    #[command(after_help = help::PATCH)]
    Patch(patch::PatchArgs),
    /// Apply a configuration to objects by file name or stdin.
    #[command(after_help = help::APPLY)]
    Apply(Box<apply::ApplyArgs>),
    /// Show what `apply` would change: the live objects against the configuration, as a diff.
    #[command(after_help = help::DIFF)]
    Diff(diff::DiffArgs),
    /// Manage the rollout of Deployments, DaemonSets and StatefulSets: restart, pause, resume.
    #[command(after_help = help::ROLLOUT)]
    Rollout(rollout::RolloutArgs),
    /// Set fields of objects: images, environment, resources, service account, selector, subjects.
    #[command(after_help = help::SET)]
    Set(set::SetArgs),
    /// Set or remove labels of objects: KEY=VALUE sets, KEY- removes.
    #[command(after_help = help::LABEL)]
    Label(label::MetadataArgs),
    /// Set or remove annotations of objects: KEY=VALUE sets, KEY- removes.
    #[command(after_help = help::ANNOTATE)]
    Annotate(label::MetadataArgs),
    /// Delete objects by name, by file, or by label selector, and wait until they are gone.
    #[command(after_help = help::DELETE)]
    Delete(delete::DeleteArgs),
    /// Set the number of replicas of objects through their scale subresource.
    #[command(after_help = help::SCALE)]
    Scale(scale::ScaleArgs),
    /// Create objects from files, or a ConfigMap, Secret, Namespace or ServiceAccount (--dry-run=client -o yaml prints it).
    #[command(after_help = help::CREATE)]
    Create(Box<create::CreateArgs>),
    /// Edit an object in your editor and send the difference as a patch.
    #[command(after_help = help::EDIT)]
    Edit(edit::EditArgs),
    /// Wait until objects are ready, deleted, or meet a condition.
    #[command(after_help = help::WAIT)]
    Wait(wait::WaitArgs),
    /// Build a kustomization directory and print the objects, as `kubectl kustomize` does.
    #[command(after_help = help::KUSTOMIZE)]
    Kustomize(kustomize::KustomizeArgs),
    /// Print the logs of a container of a pod, or of a workload's pod.
    #[command(after_help = help::LOGS)]
    Logs(logs::LogsArgs),
    /// List events, sorted by when they were last seen; --watch prints new ones as they come.
    #[command(after_help = help::EVENTS)]
    Events(events::EventsArgs),
    /// Serve the API server on a local port (or Unix socket), with the kubeconfig's credentials.
    #[command(after_help = help::PROXY)]
    Proxy(proxy::ProxyArgs),
    /// Execute a command in a container.
    #[command(after_help = help::EXEC)]
    Exec(exec::ExecArgs),
    /// Copy files and directories to and from containers.
    #[command(after_help = help::CP)]
    Cp(cp::CpArgs),
    /// Attach to a running container.
    #[command(after_help = help::ATTACH)]
    Attach(attach::AttachArgs),
    /// Run a particular image on the cluster.
    #[command(after_help = help::RUN)]
    Run(Box<run::RunArgs>),
    /// Forward one or more local ports to a pod.
    #[command(name = "port-forward", after_help = help::PORT_FORWARD)]
    PortForward(port_forward::PortForwardArgs),
    /// Print the client and server versions.
    #[command(after_help = help::VERSION)]
    Version(version::VersionArgs),
    /// Print a shell completion script.
    #[command(after_help = help::COMPLETION)]
    Completion(completion::CompletionArgs),
    /// Modify kubeconfig files: view, contexts, clusters, users, as `kubectl config` does.
    #[command(after_help = help::CONFIG)]
    Config(config::ConfigArgs),
    /// Print the supported API resources on the server.
    #[command(after_help = help::API_RESOURCES)]
    ApiResources(api_resources::ApiResourcesArgs),
    /// Print the supported API versions on the server, in the form of "group/version".
    #[command(after_help = help::API_VERSIONS)]
    ApiVersions(api_resources::ApiVersionsArgs),
    /// Display the addresses of the control plane and services with label kubernetes.io/cluster-service=true.
    #[command(after_help = help::CLUSTER_INFO)]
    ClusterInfo(cluster_info::ClusterInfoArgs),
}

/// The whole command tree, with kubectl's flag grammar (see [`pflag`]).
pub fn command() -> clap::Command {
    help::with_verbs_by_kind(pflag::with_pflag_grammar(Cli::command()))
}

/// Parses `args` (the program name first) as `run` does; the error is kubectl's text for it.
pub fn parse<I, T>(args: I) -> std::result::Result<Cli, String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString>,
{
    match parse_line(args.into_iter().map(Into::into).collect(), false)? {
        Parsed::Cli(cli) => Ok(*cli),
        Parsed::Unknown(_) => unreachable!("only handed over when asked"),
    }
}

/// What a command line asks for: a command of kubeupd's, or a verb it does not have (the real
/// kubectl's to run, see [`fallback`]).
enum Parsed {
    Cli(Box<Cli>),
    Unknown(String),
}

/// [`parse`]; with `hand_over`, a verb kubeupd does not have is [`Parsed::Unknown`] (not when
/// kubeupd runs as kubectl's plugin: kubectl called it for its own verbs).
fn parse_line(args: Vec<std::ffi::OsString>, hand_over: bool) -> std::result::Result<Parsed, String> {
    let plugin = args.first().and_then(|argv0| plugin_name(argv0));
    let command = root_command(plugin.as_deref());
    let args = kuberc::apply(&command, args).map_err(|err| format!("{err}\n"))?;
    if let Some(verb) = unknown_verb(&command, &args).filter(|_| hand_over && plugin.is_none()) {
        std::mem::forget(command);
        return Ok(Parsed::Unknown(verb));
    }
    let args = pflag::command_first(&command, args)?;
    let args = pflag::unshadow(&command, args);
    let split = pflag::split_slices(&command, args.clone())?;
    // clap builds only the subcommands a command line names, and the verb named is the only one
    // parsed with its flags: a short-lived CLI does not pay for the whole tree, except to explain
    // a usage error.
    let (mut command, parsed) = match only_verb_named(command, &args) {
        (mut command, Some(verb)) => match command.try_get_matches_from_mut(&split) {
            Ok(matches) if matches.subcommand_name() == Some(verb.as_str()) => (command, Ok(matches)),
            _ => {
                std::mem::forget(command);
                let mut command = root_command(plugin.as_deref());
                let parsed = command.try_get_matches_from_mut(&split);
                (command, parsed)
            }
        },
        (mut command, None) => {
            let parsed = command.try_get_matches_from_mut(&split);
            (command, parsed)
        }
    };
    let matches = match parsed {
        Ok(matches) => matches,
        Err(err) => {
            command.build();
            let text = pflag::usage_error(&err, &command, &args).unwrap_or_else(|| {
                // Help and version: shown as clap renders them.
                let _ = err.print();
                String::new()
            });
            return Err(pflag::shadowed_names(&command, &args, text));
        }
    };
    let mut cli = Cli::from_arg_matches(&matches).map_err(|err| err.to_string())?;
    if args.iter().any(|arg| arg.to_str().is_some_and(|arg| arg.starts_with("--record"))) {
        cli.global.change_cause = pflag::change_cause(&command, &args);
    }
    cli.deprecated = pflag::deprecations(&command, &args);
    // The process ends with the verb: freeing the command tree would cost more than parsing.
    std::mem::forget(command);
    Ok(Parsed::Cli(Box::new(cli)))
}

/// kubeupd's command tree, named as kubectl names a plugin when kubeupd runs as one.
fn root_command(plugin: Option<&str>) -> clap::Command {
    let command = command();
    match plugin {
        Some(plugin) => command.display_name(format!("kubectl-{plugin}")).bin_name(format!("kubectl {plugin}")),
        None => command,
    }
}

/// `command` with every verb but the one `args` name left as an empty command of the same name,
/// and that verb's name; `command` as it was when `args` name none (or `help`, which shows the
/// others). clap gives each verb a copy of every global flag when it parses, and copying them
/// into the dozens of verbs a line does not name cost more than the rest of the parse.
fn only_verb_named(command: clap::Command, args: &[std::ffi::OsString]) -> (clap::Command, Option<String>) {
    let named =
        pflag::CommandWords::of(&command, args).subcommands.first().map(|(_, verb)| verb.get_name().to_string());
    let Some(verb) = named.filter(|verb| verb != "help") else { return (command, None) };
    let command = command.mut_subcommands(|subcommand| {
        if subcommand.get_name() == verb {
            return subcommand;
        }
        let name = subcommand.get_name().to_string();
        // Not freed: the process ends with the verb, and freeing a tree costs more than parsing.
        std::mem::forget(subcommand);
        clap::Command::new(name)
    });
    (command, Some(verb))
}

/// The verb of a line whose first word is no command kubeupd has but one of kubectl's (`top`) or
/// a kubectl plugin's: kubectl's to run (see [`fallback`]). Any other word is a usage error, in
/// cobra's words with its suggestions, as kubectl prints it.
fn unknown_verb(command: &clap::Command, args: &[std::ffi::OsString]) -> Option<String> {
    let words = pflag::CommandWords::of(command, args);
    let path: Vec<&str> = words.subcommands.iter().map(|(_, command)| command.get_name()).collect();
    if HANDED_OVER.contains(&path.as_slice()) {
        return Some(path.join(" "));
    }
    let at = words.first_other.filter(|_| words.subcommands.is_empty())?;
    let word = args[at].to_string_lossy().into_owned();
    fallback::is_kubectls(&word).then_some(word)
}

/// Commands kubeupd knows (their flags are parsed, for help and checks) but leaves to kubectl.
const HANDED_OVER: &[&[&str]] = &[&["cluster-info", "dump"]];

/// Prints a warning about what a manifest reader read, each once: a fleet's contexts and
/// `apply --plan` read the same files again.
fn print_reading_warning(text: &str) {
    static SHOWN: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut shown = SHOWN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if shown.insert(text.to_string()) {
        eprintln!("Warning: {text}");
    }
}

/// Parses the command line, runs the verb, prints errors the way kubectl does and returns the exit code.
pub fn run() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match parse_line(args.clone(), true) {
        Ok(Parsed::Cli(cli)) => *cli,
        Ok(Parsed::Unknown(verb)) => return fallback::run(&args, &verb),
        Err(text) if text.is_empty() => return ExitCode::SUCCESS,
        Err(text) => {
            eprint!("{text}");
            return ExitCode::FAILURE;
        }
    };
    for warning in &cli.deprecated {
        eprintln!("{warning}");
    }
    init_logging(cli.global.verbosity);
    crate::manifest::on_warning(print_reading_warning);
    let warnings_as_errors = cli.global.warnings_as_errors;
    let result = match cli.command {
        _ if let Err(err) = cli.global.check() => Err(err),
        Command::Completion(args) => completion::run(&args),
        Command::Kustomize(args) => kustomize::run(&args),
        Command::Config(args) => config::run(args, &cli.global),
        command => match fleet::selection(&cli.global) {
            Err(err) => Err(err),
            Ok(Some(contexts)) => block_on(fleet::run(&command, &args, contexts, &cli.global)),
            Ok(None) => block_on(dispatch(command, cli.global)),
        },
    };
    let result = result.and_then(|()| match WARNINGS_RECEIVED.load(Ordering::Relaxed) {
        count if warnings_as_errors && count > 0 => {
            let noun = if count == 1 { "warning" } else { "warnings" };
            Err(Error::msg(format!("{count} {noun} received")))
        }
        _ => Ok(()),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let line = err.line();
            if !line.is_empty() {
                eprintln!("{line}");
            }
            ExitCode::from(err.exit_status())
        }
    }
}

/// `upd` when the program was invoked as `kubectl-upd`: kubectl runs plugins named `kubectl-NAME`
/// on the PATH for `kubectl NAME ...`, with the arguments after NAME.
fn plugin_name(argv0: &std::ffi::OsStr) -> Option<String> {
    let file = std::path::Path::new(argv0).file_stem()?.to_str()?;
    file.strip_prefix("kubectl-").filter(|name| !name.is_empty()).map(String::from)
}

/// Runs `future` to its end on a runtime of one thread: a command line's requests wait on the
/// network, not on the CPU.
fn block_on(future: impl std::future::Future<Output = Result>) -> Result {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| Error::Other(err.into()))
        .and_then(|runtime| runtime.block_on(future))
}

async fn dispatch(command: Command, global: GlobalArgs) -> Result {
    match command {
        Command::Get(args) => get::run(args, &global).await,
        Command::Describe(args) => describe::run(args, &global).await,
        Command::Update(args) => update::run(args, &global).await,
        Command::Replace(args) => replace::run(args, &global).await,
        Command::Patch(args) => patch::run(args, &global).await,
        Command::Apply(args) => apply::run(*args, &global).await,
        Command::Diff(args) => diff::run(args, &global).await,
        Command::Edit(args) => edit::run(args, &global).await,
        Command::Delete(args) => delete::run(args, &global).await,
        Command::Scale(args) => scale::run(args, &global).await,
        Command::Create(args) => create::run(*args, &global).await,
        Command::Set(args) => set::run(args, &global).await,
        Command::Rollout(args) => rollout::run(args, &global).await,
        Command::Label(args) => label::run(args, change::metadata::MetadataMap::Labels, &global).await,
        Command::Annotate(args) => label::run(args, change::metadata::MetadataMap::Annotations, &global).await,
        Command::Wait(args) => wait::run(args, &global).await,
        Command::Version(args) => version::run(args, &global).await,
        Command::ApiResources(args) => api_resources::run(args, &global).await,
        Command::ApiVersions(args) => api_resources::run_versions(args, &global).await,
        Command::ClusterInfo(args) => cluster_info::run(args, &global).await,
        Command::Logs(args) => logs::run(args, &global).await,
        Command::Events(args) => events::run(args, &global).await,
        Command::Proxy(args) => proxy::run(args, &global).await,
        Command::Exec(args) => exec::run(args, &global).await,
        Command::Cp(args) => cp::run(args, &global).await,
        Command::PortForward(args) => port_forward::run(args, &global).await,
        Command::Attach(args) => attach::run(args, &global).await,
        Command::Run(args) => run::run(*args, &global).await,
        Command::Completion(_) | Command::Kustomize(_) | Command::Config(_) => {
            unreachable!("runs without a runtime")
        }
    }
}

/// Prints each object's result in order, output to stdout and errors to stderr as kubectl words
/// them; fails with exit status 1 when any object failed.
fn print_results(results: Vec<Result<String>>) -> Result {
    let mut failed = false;
    for result in results {
        match result {
            Ok(text) => write_stdout(&text)?,
            Err(err) => {
                failed = true;
                eprintln!("{}", err.line());
            }
        }
    }
    if failed { Err(Error::Reported(1)) } else { Ok(()) }
}

/// kubectl's YAML printer puts `---` before each object it prints after the first: the texts of
/// several objects printed as YAML made one stream of documents (other printers: as they are).
fn yaml_documents<E>(
    printer: Option<&crate::output::Printer>,
    results: Vec<Result<String, E>>,
) -> Vec<Result<String, E>> {
    if !matches!(printer, Some(crate::output::Printer::Yaml)) {
        return results;
    }
    let mut first = true;
    let mut separated = |text: String| match text.is_empty() || std::mem::replace(&mut first, false) {
        true => text,
        false => format!("---\n{text}"),
    };
    results.into_iter().map(|result| result.map(&mut separated)).collect()
}

/// Prints what each object's change printed, then the errors the way kubectl reports those of a
/// visit over several objects: one error as `error: ...`, several one per line without the prefix.
fn print_visited(results: Vec<Result<String, Vec<Error>>>) -> Result {
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(text) => write_stdout(&text)?,
            Err(failures) => errors.extend(failures),
        }
    }
    match errors.as_slice() {
        [] => return Ok(()),
        [one] => eprintln!("{}", one.line()),
        several => {
            for err in several {
                eprintln!("{}", err.message());
            }
        }
    }
    Err(Error::Reported(1))
}

/// Writes the output in one go; a closed pipe (`| head`) is not an error.
fn write_stdout(text: &str) -> Result {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Other(err.into())),
        _ => Ok(()),
    }
}

fn init_logging(verbosity: i32) {
    let level = match verbosity {
        ..=0 => "warn",
        1..=5 => "info",
        6..=7 => "debug",
        _ => "trace",
    };
    // Only kubeupd's own events are shown: library traces could carry credentials, and library
    // error events (kube, rustls) repeat failures kubeupd already reports in one line.
    let filter = tracing_subscriber::EnvFilter::new(format!("off,kubeupd={level}"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .init();
}

/// `--request-timeout` as client-go's `ParseTimeout` reads it: a whole number of seconds
/// (`strconv.ParseInt`, base 10, not negative), else Go's duration (a negative one waits
/// forever here, as 0 does).
fn request_timeout(text: &str) -> Result<Duration, String> {
    match crate::gocompat::strconv::parse_int_base(text, 10, 64) {
        Ok(seconds @ 0..) => Ok(Duration::from_secs(seconds as u64)),
        _ => pflag::duration(text).map_err(|_| {
            "Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a \
             corresponding time unit (e.g. 1s | 2m | 3h)"
                .to_string()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_timeouts_read_as_client_go_reads_them() {
        assert_eq!(request_timeout("0").unwrap(), Duration::ZERO);
        assert_eq!(request_timeout("5").unwrap(), Duration::from_secs(5));
        assert_eq!(request_timeout("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(request_timeout("1m30s").unwrap(), Duration::from_secs(90));
        assert!(request_timeout("5 parsecs").unwrap_err().starts_with("Invalid timeout value."));
        assert!(request_timeout("").is_err());
        assert!(request_timeout("-5").is_err());
        assert_eq!(request_timeout("-5s").unwrap(), Duration::ZERO);
    }

    #[test]
    fn kubectl_plugin_names_are_recognised() {
        let name = |argv0: &str| plugin_name(std::ffi::OsStr::new(argv0));
        assert_eq!(name("/usr/local/bin/kubectl-upd").as_deref(), Some("upd"));
        assert_eq!(name("kubectl-upd.exe").as_deref(), Some("upd"));
        assert_eq!(name("/usr/bin/kubeupd"), None);
        assert_eq!(name("kubectl-"), None);
    }

    #[test]
    fn command_tree_is_consistent() {
        command().debug_assert();
    }
}
