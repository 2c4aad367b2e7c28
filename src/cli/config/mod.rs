//! `kubeupd config`: read and change kubeconfig files as `kubectl config` does (kubectl
//! pkg/cmd/config): the same files chosen (`--kubeconfig`, else `$KUBECONFIG`'s list, else
//! `~/.kube/config`), each change written to the file kubectl writes it to, in client-go's
//! serialization ([`crate::kubeconfig`]), and kubectl's lines and errors.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::pflag::{Tristate, tristate};
use super::{Error, GlobalArgs, Result, help, write_stdout};
use crate::kubeconfig::modify::{self, Access, Files};
use crate::kubeconfig::property::{self, Action};
use crate::kubeconfig::{self, AuthInfo, AuthProvider, Cluster, Config, Context, Exec};
use crate::output::{Printer, Verb};

/// Options of `kubeupd config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    pub command: Option<ConfigCommand>,
}

/// The `config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Display merged kubeconfig settings or a specified kubeconfig file.
    #[command(after_help = help::CONFIG_VIEW)]
    View(ViewArgs),
    /// Display the current-context.
    #[command(after_help = help::CONFIG_CURRENT_CONTEXT)]
    CurrentContext(NoArgs),
    /// Describe one or many contexts.
    #[command(after_help = help::CONFIG_GET_CONTEXTS)]
    GetContexts(GetContextsArgs),
    /// Display clusters defined in the kubeconfig.
    #[command(after_help = help::CONFIG_GET_CLUSTERS)]
    GetClusters(NoArgs),
    /// Display users defined in the kubeconfig.
    #[command(after_help = help::CONFIG_GET_USERS)]
    GetUsers(NoArgs),
    /// Set the current-context in a kubeconfig file.
    #[command(visible_alias = "use", after_help = help::CONFIG_USE_CONTEXT)]
    UseContext(NameArgs),
    /// Set a context entry in kubeconfig.
    #[command(after_help = help::CONFIG_SET_CONTEXT)]
    SetContext(SetContextArgs),
    /// Set a cluster entry in kubeconfig.
    #[command(after_help = help::CONFIG_SET_CLUSTER)]
    SetCluster(SetClusterArgs),
    /// Set a user entry in kubeconfig.
    #[command(after_help = help::CONFIG_SET_CREDENTIALS)]
    SetCredentials(Box<SetCredentialsArgs>),
    /// Set an individual value in a kubeconfig file.
    #[command(after_help = help::CONFIG_SET)]
    Set(SetArgs),
    /// Unset an individual value in a kubeconfig file.
    #[command(after_help = help::CONFIG_UNSET)]
    Unset(NameArgs),
    /// Delete the specified context from the kubeconfig.
    #[command(after_help = help::CONFIG_DELETE_CONTEXT)]
    DeleteContext(NameArgs),
    /// Delete the specified cluster from the kubeconfig.
    #[command(after_help = help::CONFIG_DELETE_CLUSTER)]
    DeleteCluster(NameArgs),
    /// Delete the specified user from the kubeconfig.
    #[command(after_help = help::CONFIG_DELETE_USER)]
    DeleteUser(NameArgs),
    /// Rename a context from the kubeconfig file.
    #[command(after_help = help::CONFIG_RENAME_CONTEXT)]
    RenameContext(NameArgs),
}

/// A subcommand's words.
#[derive(Debug, Args)]
pub struct NameArgs {
    #[arg(value_name = "NAME")]
    pub words: Vec<String>,
}

/// A subcommand without words of its own.
#[derive(Debug, Args)]
pub struct NoArgs {
    #[arg(value_name = "ARGS", hide = true)]
    pub words: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ViewArgs {
    #[command(flatten)]
    pub output: super::args::OutputArgs,
    /// Merge the full hierarchy of kubeconfig files.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_parser = tristate)]
    pub merge: Option<Tristate>,
    /// Display raw byte data and sensitive data.
    #[arg(long)]
    pub raw: bool,
    /// Flatten the resulting kubeconfig file into self-contained output.
    #[arg(long)]
    pub flatten: bool,
    /// Remove all information not used by current-context from the output.
    #[arg(long)]
    pub minify: bool,
    #[arg(value_name = "ARGS", hide = true)]
    pub words: Vec<String>,
}

#[derive(Debug, Args)]
pub struct GetContextsArgs {
    /// Output format. One of: (name).
    #[arg(short = 'o', long, value_name = "FORMAT", default_value = "")]
    pub output: String,
    /// Don't print headers.
    #[arg(long)]
    pub no_headers: bool,
    #[arg(value_name = "CONTEXT")]
    pub names: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SetContextArgs {
    /// Modify the current context.
    #[arg(long)]
    pub current: bool,
    /// namespace for the context entry in kubeconfig (kubectl's --namespace here).
    #[arg(id = "context_namespace", long = "context-namespace", value_name = "NAME")]
    pub namespace: Option<String>,
    /// cluster for the context entry in kubeconfig (kubectl's --cluster here).
    #[arg(id = "context_cluster", long = "context-cluster", value_name = "NAME")]
    pub cluster: Option<String>,
    /// user for the context entry in kubeconfig (kubectl's --user here).
    #[arg(id = "context_user", long = "context-user", value_name = "NAME")]
    pub user: Option<String>,
    #[arg(value_name = "NAME")]
    pub words: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SetClusterArgs {
    /// server for the cluster entry in kubeconfig (kubectl's --server here).
    #[arg(id = "cluster_server", long = "cluster-server", value_name = "URL")]
    pub server: Option<String>,
    /// Path to certificate-authority file for the cluster entry in kubeconfig.
    #[arg(id = "cluster_certificate_authority", long = "cluster-certificate-authority", value_name = "PATH")]
    pub certificate_authority: Option<String>,
    /// insecure-skip-tls-verify for the cluster entry in kubeconfig.
    #[arg(id = "cluster_insecure_skip_tls_verify", long = "cluster-insecure-skip-tls-verify", value_name = "BOOL", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", value_parser = tristate)]
    pub insecure_skip_tls_verify: Option<Tristate>,
    /// tls-server-name for the cluster entry in kubeconfig.
    #[arg(id = "cluster_tls_server_name", long = "cluster-tls-server-name", value_name = "NAME")]
    pub tls_server_name: Option<String>,
    /// proxy-url for the cluster entry in kubeconfig.
    #[arg(id = "cluster_proxy_url", long = "cluster-proxy-url", value_name = "URL")]
    pub proxy_url: Option<String>,
    /// embed-certs for the cluster entry in kubeconfig.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_parser = tristate)]
    pub embed_certs: Option<Tristate>,
    #[arg(value_name = "NAME")]
    pub words: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SetCredentialsArgs {
    /// Path to client-certificate file for the user entry in kubeconfig.
    #[arg(id = "user_client_certificate", long = "user-client-certificate", value_name = "PATH")]
    pub client_certificate: Option<String>,
    /// Path to client-key file for the user entry in kubeconfig.
    #[arg(id = "user_client_key", long = "user-client-key", value_name = "PATH")]
    pub client_key: Option<String>,
    /// token for the user entry in kubeconfig.
    #[arg(id = "user_token", long = "user-token", value_name = "TOKEN")]
    pub token: Option<String>,
    /// username for the user entry in kubeconfig.
    #[arg(id = "user_username", long = "user-username", value_name = "NAME")]
    pub username: Option<String>,
    /// password for the user entry in kubeconfig.
    #[arg(id = "user_password", long = "user-password", value_name = "PASSWORD")]
    pub password: Option<String>,
    /// Auth provider for the user entry in kubeconfig.
    #[arg(long, value_name = "NAME")]
    pub auth_provider: Option<String>,
    /// 'key=value' arguments for the auth provider (`key-` removes one).
    #[arg(long, value_name = "KEY=VALUE", value_delimiter = ',')]
    pub auth_provider_arg: Vec<String>,
    /// Embed client cert/key for the user entry in kubeconfig.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_parser = tristate)]
    pub embed_certs: Option<Tristate>,
    /// Command for the exec credential plugin for the user entry in kubeconfig.
    #[arg(long, value_name = "COMMAND")]
    pub exec_command: Option<String>,
    /// API version of the exec credential plugin for the user entry in kubeconfig.
    #[arg(long, value_name = "VERSION")]
    pub exec_api_version: Option<String>,
    /// New arguments for the exec credential plugin command for the user entry in kubeconfig.
    #[arg(long, value_name = "ARG", value_delimiter = ',')]
    pub exec_arg: Option<Vec<String>>,
    /// 'key=value' environment values for the exec credential plugin (`key-` removes one).
    #[arg(long, value_name = "KEY=VALUE")]
    pub exec_env: Vec<String>,
    /// InteractiveMode of the exec credentials plugin: IfAvailable, Never or Always.
    #[arg(long, value_name = "MODE")]
    pub exec_interactive_mode: Option<String>,
    /// ProvideClusterInfo of the exec credentials plugin.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_parser = tristate)]
    pub exec_provide_cluster_info: Option<Tristate>,
    #[arg(value_name = "NAME")]
    pub words: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SetArgs {
    /// When writing a []byte PROPERTY_VALUE, write the given string directly without base64 decoding.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_parser = tristate)]
    pub set_raw_bytes: Option<Tristate>,
    #[arg(value_name = "PROPERTY_NAME PROPERTY_VALUE")]
    pub words: Vec<String>,
}

/// The kubeconfig files of this run, read once.
struct Kubeconfigs {
    access: Access,
    files: Files,
    cwd: PathBuf,
}

impl Kubeconfigs {
    fn open(global: &GlobalArgs) -> Result<Kubeconfigs> {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
        let env = std::env::var_os("KUBECONFIG");
        let access = Access::new(global.kubeconfig.clone(), env.as_deref(), &home);
        let files = Files::read(&access, |path| match std::fs::read_to_string(path) {
            Ok(text) => Ok(Some(text)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(kubeconfig::Error::Other(format!("open {}: {}", path.display(), kubeconfig::go_io(&err)))),
        })
        .map_err(Error::msg)?;
        let cwd = std::env::current_dir().unwrap_or_default();
        Ok(Kubeconfigs { access, files, cwd })
    }

    fn starting(&self) -> Result<Config> {
        self.files.starting(&self.access).map_err(Error::msg)
    }

    /// Writes `changed` as kubectl's `ModifyConfig` would, into the files it goes to.
    fn modify(mut self, starting: &Config, changed: &Config, relativize: bool) -> Result<()> {
        modify::modify(&self.access, &mut self.files, starting, changed, relativize, &self.cwd).map_err(Error::msg)?;
        for (path, text) in self.files.written() {
            write_file(&path, &text)?;
        }
        Ok(())
    }

    /// The file `config` names in its messages: `--kubeconfig`, else the default file.
    fn config_file(&self) -> PathBuf {
        self.access.default_filename(|path| path.exists())
    }
}

/// Writes a kubeconfig file as client-go does: its directory made when missing, a new file
/// readable by its owner only.
fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty() && !dir.exists()) {
        std::fs::create_dir_all(dir).map_err(|err| Error::msg(format!("mkdir {}: {err}", dir.display())))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|err| Error::msg(format!("open {}: {err}", path.display())))?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .map_err(|err| Error::msg(format!("write {}: {err}", path.display())))
}

/// An error kubectl gives after the subcommand's help on stdout: its `helpErrorf` for words a
/// subcommand does not take, and every error of `set-credentials`' `complete`.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
struct AfterHelp {
    /// The subcommand whose help comes first.
    subcommand: &'static str,
    message: String,
}

fn after_help(subcommand: &'static str, message: String) -> Error {
    Error::Other(anyhow::Error::new(AfterHelp { subcommand, message }))
}

/// kubectl's error for words a subcommand does not take, after its help.
fn unexpected(subcommand: &'static str, words: &[String]) -> Error {
    after_help(subcommand, format!("Unexpected args: [{}]", words.join(" ")))
}

/// kubeupd's help of `config SUBCOMMAND`, where kubectl prints its own.
fn help_of(subcommand: &str) -> String {
    let mut command = super::command();
    // Built as a parse builds it: the global flags and the command's path in its usage line.
    command.build();
    let config = command.find_subcommand_mut("config").expect("config is a verb");
    config.find_subcommand_mut(subcommand).expect("a config subcommand").render_help().to_string()
}

/// `result`, with the subcommand's help printed first when kubectl prints it with the error.
fn with_help(result: Result) -> Result {
    match result {
        Err(Error::Other(err)) if err.is::<AfterHelp>() => {
            let subcommand = err.downcast_ref::<AfterHelp>().map_or("", |after| after.subcommand);
            write_stdout(&help_of(subcommand))?;
            Err(Error::Other(err))
        }
        other => other,
    }
}

/// Runs `kubeupd config ...`.
pub fn run(args: ConfigArgs, global: &GlobalArgs) -> Result {
    let Some(command) = args.command else {
        // As kubectl: the help on stderr, exit 1.
        let mut command = super::command();
        let config = command.find_subcommand_mut("config").expect("config is a verb");
        eprint!("{}", config.render_help());
        return Err(Error::Reported(1));
    };
    with_help(match command {
        ConfigCommand::View(args) => view(args, global),
        ConfigCommand::CurrentContext(_) => {
            let config = Kubeconfigs::open(global)?.starting()?;
            if config.current_context.is_empty() {
                return Err(Error::msg("current-context is not set"));
            }
            write_stdout(&format!("{}\n", config.current_context))
        }
        ConfigCommand::GetContexts(args) => get_contexts(args, global),
        ConfigCommand::GetClusters(_) => {
            let config = Kubeconfigs::open(global)?.starting()?;
            // kubectl lists them in Go's map order, which is random; here, by name.
            let names: String = config.clusters.keys().map(|name| format!("{name}\n")).collect();
            write_stdout(&format!("NAME\n{names}"))
        }
        ConfigCommand::GetUsers(_) => {
            let config = Kubeconfigs::open(global)?.starting()?;
            let names: String = config.auth_infos.keys().map(|name| format!("{name}\n")).collect();
            write_stdout(&format!("NAME\n{names}"))
        }
        ConfigCommand::UseContext(args) => use_context(args, global),
        ConfigCommand::SetContext(args) => set_context(args, global),
        ConfigCommand::SetCluster(args) => set_cluster(args, global),
        ConfigCommand::SetCredentials(args) => set_credentials(*args, global),
        ConfigCommand::Set(args) => set(args, global),
        ConfigCommand::Unset(args) => unset(args, global),
        ConfigCommand::DeleteContext(args) => delete_context(args, global),
        ConfigCommand::DeleteCluster(args) => delete_cluster(args, global),
        ConfigCommand::DeleteUser(args) => delete_user(args, global),
        ConfigCommand::RenameContext(args) => rename_context(args, global),
    })
}

/// How `config view` prints the kubeconfig.
enum ViewPrinter {
    Yaml,
    /// client-go's JSON, its keys in its structs' order.
    Json,
    Other(Printer),
}

/// `config view`'s checked options.
struct ViewOptions {
    /// Merge the files (else: only `--kubeconfig`'s).
    merge: bool,
    printer: ViewPrinter,
}

/// kubectl's checks of `config view` before a file is read: no words, the printer (its
/// `Complete`), then `--merge=false` only with `--kubeconfig` (its `Validate`).
fn view_options(args: &ViewArgs, global: &GlobalArgs) -> Result<ViewOptions> {
    if !args.words.is_empty() {
        return Err(Error::msg(format!("unexpected arguments: [{}]", args.words.join(" "))));
    }
    let explicit = global.kubeconfig.as_ref().is_some_and(|path| !path.as_os_str().is_empty());
    let merge = args.merge.map_or(!explicit, |Tristate(merge)| merge);
    let printer = match args.output.output.as_deref() {
        None | Some("yaml") => ViewPrinter::Yaml,
        Some("json") => ViewPrinter::Json,
        Some(_) => args.output.printer(Verb::Write)?.cloned().map_or(ViewPrinter::Yaml, ViewPrinter::Other),
    };
    if !merge && !explicit {
        return Err(Error::msg("if merge==false a precise file must be specified"));
    }
    Ok(ViewOptions { merge, printer })
}

fn view(args: ViewArgs, global: &GlobalArgs) -> Result {
    let options = view_options(&args, global)?;
    let kubeconfigs = Kubeconfigs::open(global)?;
    let mut config = match (options.merge, &global.kubeconfig) {
        (false, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .map_err(|err| Error::msg(format!("open {}: {}", path.display(), kubeconfig::go_io(&err))))?;
            kubeconfig::parse(&text, &path.to_string_lossy()).map_err(Error::msg)?
        }
        _ => kubeconfigs.starting()?,
    };
    if args.minify {
        if let Some(context) = global.context.as_ref().filter(|context| !context.is_empty()) {
            config.current_context = context.clone();
        }
        kubeconfig::minify(&mut config).map_err(Error::msg)?;
    }
    if args.flatten {
        kubeconfig::flatten(&mut config, &kubeconfigs.cwd, &mut |path| std::fs::read(path)).map_err(Error::msg)?;
    } else if !args.raw {
        kubeconfig::redact(&mut config);
    }
    let text = match &options.printer {
        ViewPrinter::Json => kubeconfig::to_json(&config),
        ViewPrinter::Other(printer) => render(printer, &kubeconfig::to_value(&config))?,
        ViewPrinter::Yaml => crate::output::to_yaml(&kubeconfig::to_value(&config)),
    };
    write_stdout(&text)
}

fn render(printer: &Printer, value: &serde_json::Value) -> Result<String> {
    printer.render(value).map_err(|err| Error::msg(err.to_string()))
}

/// `config get-contexts`' checked options.
struct GetContextsOptions {
    /// `-o name`: the names alone.
    name_only: bool,
    /// The table's header line (not with `--no-headers`, nor with `-o name`).
    headers: bool,
}

/// kubectl's check of `config get-contexts` before a file is read: `-o` is empty or `name`.
fn get_contexts_options(args: &GetContextsArgs) -> Result<GetContextsOptions> {
    if !matches!(args.output.as_str(), "" | "name") {
        return Err(Error::msg(format!(
            "--output {} is not available in kubectl config get-contexts; resetting to default output format",
            args.output
        )));
    }
    let name_only = args.output == "name";
    Ok(GetContextsOptions { name_only, headers: !args.no_headers && !name_only })
}

fn get_contexts(args: GetContextsArgs, global: &GlobalArgs) -> Result {
    let GetContextsOptions { name_only, headers } = get_contexts_options(&args)?;
    let config = Kubeconfigs::open(global)?.starting()?;
    let mut errors = Vec::new();
    let mut names: Vec<&String> = Vec::new();
    if args.names.is_empty() {
        names.extend(config.contexts.keys());
    } else {
        for name in &args.names {
            match config.contexts.get_key_value(name) {
                Some((name, _)) => names.push(name),
                None => errors.push(format!("context {name} not found")),
            }
        }
    }
    names.sort();
    let mut table = crate::gocompat::tabwriter::TabWriter::kubectl();
    let mut text = String::new();
    if headers {
        text.push_str(&table.write("CURRENT\tNAME\tCLUSTER\tAUTHINFO\tNAMESPACE\n"));
    }
    for name in names {
        if name_only {
            text.push_str(&table.write(&format!("{name}\n")));
            continue;
        }
        let context = &config.contexts[name];
        let current = if config.current_context == *name { "*" } else { " " };
        text.push_str(
            &table.write(&format!(
                "{current}\t{name}\t{}\t{}\t{}\n",
                context.cluster, context.auth_info, context.namespace
            )),
        );
    }
    text.push_str(&table.flush());
    write_stdout(&text)?;
    match errors.as_slice() {
        [] => Ok(()),
        [one] => Err(Error::msg(one)),
        several => Err(Error::msg(format!("[{}]", several.join(", ")))),
    }
}

/// kubectl's check of `config use-context` before a file is read (its `complete`): one name.
fn use_context_options(args: &NameArgs) -> Result<&String> {
    let [name] = args.words.as_slice() else { return Err(unexpected("use-context", &args.words)) };
    Ok(name)
}

fn use_context(args: NameArgs, global: &GlobalArgs) -> Result {
    let name = use_context_options(&args)?;
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    // kubectl checks the name with the files read (its `validate`).
    if name.is_empty() {
        return Err(Error::msg("empty context names are not allowed"));
    }
    if !starting.contexts.contains_key(name) {
        return Err(Error::msg(format!("no context exists with the name: {name:?}")));
    }
    let changed = Config { current_context: name.clone(), ..starting.clone() };
    kubeconfigs.modify(&starting, &changed, true)?;
    write_stdout(&format!("Switched to context {name:?}.\n"))
}

/// kubectl's checks of `config set-context` before a file is read (its `complete`, then
/// `validate`): the context named, or `None` for `--current`.
fn set_context_options(args: &SetContextArgs) -> Result<Option<String>> {
    let name = match args.words.as_slice() {
        [] => String::new(),
        [name] => name.clone(),
        words => return Err(unexpected("set-context", words)),
    };
    if name.is_empty() && !args.current {
        return Err(Error::msg("you must specify a non-empty context name or --current"));
    }
    if !name.is_empty() && args.current {
        return Err(Error::msg("you cannot specify both a context name and --current"));
    }
    Ok(Some(name).filter(|name| !name.is_empty()))
}

fn set_context(args: SetContextArgs, global: &GlobalArgs) -> Result {
    let name = set_context_options(&args)?;
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    let name = match name {
        Some(name) => name,
        None if starting.current_context.is_empty() => return Err(Error::msg("no current context is set")),
        None => starting.current_context.clone(),
    };
    let exists = starting.contexts.contains_key(&name);
    let mut context = starting.contexts.get(&name).cloned().unwrap_or_default();
    if let Some(cluster) = &args.cluster {
        context.cluster = cluster.clone();
    }
    if let Some(user) = &args.user {
        context.auth_info = user.clone();
    }
    if let Some(namespace) = &args.namespace {
        context.namespace = namespace.clone();
    }
    let mut changed = starting.clone();
    changed.contexts.insert(name.clone(), context);
    kubeconfigs.modify(&starting, &changed, true)?;
    let verb = if exists { "modified" } else { "created" };
    write_stdout(&format!("Context {name:?} {verb}.\n"))
}

/// `config set-cluster`'s checked options.
struct SetClusterOptions<'a> {
    name: &'a String,
    /// `--embed-certs`: the certificate authority's file (there, checked) goes in the kubeconfig.
    embed: bool,
}

/// kubectl's checks of `config set-cluster` before a file is read (its `complete`, then
/// `validate`): one non-empty name, not both a certificate authority and insecure mode, and a
/// certificate authority file there to embed.
fn set_cluster_options(args: &SetClusterArgs) -> Result<SetClusterOptions<'_>> {
    let [name] = args.words.as_slice() else { return Err(unexpected("set-cluster", &args.words)) };
    if name.is_empty() {
        return Err(Error::msg("you must specify a non-empty cluster name"));
    }
    let insecure = args.insecure_skip_tls_verify.is_some_and(|Tristate(insecure)| insecure);
    let embed = args.embed_certs.is_some_and(|Tristate(embed)| embed);
    if insecure && args.certificate_authority.is_some() {
        return Err(Error::msg("you cannot specify a certificate authority and insecure mode at the same time"));
    }
    if embed {
        let Some(ca) = args.certificate_authority.as_ref().filter(|ca| !ca.is_empty()) else {
            return Err(Error::msg("you must specify a --certificate-authority to embed"));
        };
        if let Err(err) = std::fs::metadata(ca) {
            return Err(Error::msg(format!(
                "could not stat certificate-authority file {ca}: stat {ca}: {}",
                kubeconfig::go_io(&err)
            )));
        }
    }
    Ok(SetClusterOptions { name, embed })
}

fn set_cluster(args: SetClusterArgs, global: &GlobalArgs) -> Result {
    let SetClusterOptions { name, embed } = set_cluster_options(&args)?;
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    let mut cluster: Cluster = starting.clusters.get(name).cloned().unwrap_or_default();
    if let Some(server) = &args.server {
        cluster.server = server.clone();
        cluster.tls_server_name.clear();
    }
    if let Some(name) = &args.tls_server_name {
        cluster.tls_server_name = name.clone();
    }
    if let Some(Tristate(insecure)) = args.insecure_skip_tls_verify {
        cluster.insecure_skip_tls_verify = insecure;
        if insecure {
            cluster.certificate_authority.clear();
            cluster.certificate_authority_data = None;
        }
    }
    if let Some(ca) = &args.certificate_authority {
        if embed {
            cluster.certificate_authority_data = std::fs::read(ca).ok();
            cluster.insecure_skip_tls_verify = false;
            cluster.certificate_authority.clear();
        } else {
            cluster.certificate_authority = absolute_flag_path(ca, &kubeconfigs.cwd);
            if !cluster.certificate_authority.is_empty() {
                cluster.insecure_skip_tls_verify = false;
                cluster.certificate_authority_data = None;
            }
        }
    }
    if let Some(proxy) = &args.proxy_url {
        cluster.proxy_url = proxy.clone();
    }
    let mut changed = starting.clone();
    changed.clusters.insert(name.clone(), cluster);
    kubeconfigs.modify(&starting, &changed, true)?;
    write_stdout(&format!("Cluster {name:?} set.\n"))
}

/// A path from a flag as `filepath.Abs` makes it (an empty one stays empty for the checks after).
fn absolute_flag_path(path: &str, cwd: &Path) -> String {
    kubeconfig::absolute(cwd, Path::new(path)).to_string_lossy().into_owned()
}

/// What `key=value` pairs and `key-` removals ask for: the pairs to set, the keys to remove.
type PairChanges = (Vec<(String, String)>, Vec<String>);

/// `key=value` pairs and `key-` removals, as kubectl's `cmdutil.ParsePairs` reads them (a key
/// given twice: the last value).
fn key_values(flag: &str, items: &[String]) -> Result<PairChanges> {
    let (mut set, mut remove, mut invalid) = (Vec::<(String, String)>::new(), Vec::new(), Vec::new());
    for item in items {
        match item.split_once('=') {
            Some((key, value)) if !item.starts_with('=') => {
                set.retain(|(existing, _)| existing != key);
                set.push((key.to_string(), value.to_string()));
            }
            _ if item.ends_with('-') && item != "-" => remove.push(item[..item.len() - 1].to_string()),
            _ => invalid.push(item.as_str()),
        }
    }
    if !invalid.is_empty() {
        return Err(Error::msg(format!("invalid {flag} format: {}", invalid.join(", "))));
    }
    Ok((set, remove))
}

/// `config set-credentials`' checked options.
struct SetCredentialsOptions<'a> {
    name: &'a String,
    /// `--embed-certs`: the client certificate's and key's files (there, checked) go in the
    /// kubeconfig.
    embed: bool,
    /// `--auth-provider-arg`'s pairs to set and keys to remove.
    provider_args: PairChanges,
    /// `--exec-env`'s pairs to set and names to remove.
    env: PairChanges,
}

/// kubectl's checks of `config set-credentials` before a file is read: one name and the pairs
/// (its `complete`), then the name not empty, one authentication method, the files to embed
/// there, the interactive mode (its `validate`).
fn set_credentials_options(args: &SetCredentialsArgs) -> Result<SetCredentialsOptions<'_>> {
    let [name] = args.words.as_slice() else {
        return Err(after_help("set-credentials", format!("unexpected args: [{}]", args.words.join(" "))));
    };
    let in_complete = |err: Error| after_help("set-credentials", err.message());
    let provider_args = key_values("auth-provider-arg", &args.auth_provider_arg).map_err(in_complete)?;
    let env = key_values("exec-env", &args.exec_env).map_err(in_complete)?;
    if name.is_empty() {
        return Err(Error::msg("you must specify a non-empty user name"));
    }
    let mut methods = Vec::new();
    if args.token.as_deref().is_some_and(|token| !token.is_empty()) {
        methods.push("--token");
    }
    if args.username.as_deref().is_some_and(|name| !name.is_empty())
        || args.password.as_deref().is_some_and(|password| !password.is_empty())
    {
        methods.push("--username/--password");
    }
    if methods.len() > 1 {
        return Err(Error::msg(format!(
            "you cannot specify more than one authentication method at the same time: {}",
            methods.join(", ")
        )));
    }
    let embed = args.embed_certs.is_some_and(|Tristate(embed)| embed);
    if embed {
        let (cert, key) = (args.client_certificate.as_deref(), args.client_key.as_deref());
        if cert.is_none_or(str::is_empty) && key.is_none_or(str::is_empty) {
            return Err(Error::msg("you must specify a --client-certificate or --client-key to embed"));
        }
        for (flag, path) in [("client-certificate", cert), ("client-key", key)] {
            if let Some(path) = path.filter(|path| !path.is_empty())
                && let Err(err) = std::fs::metadata(path)
            {
                return Err(Error::msg(format!(
                    "could not stat {flag} file {path}: stat {path}: {}",
                    kubeconfig::go_io(&err)
                )));
            }
        }
    }
    if let Some(mode) = &args.exec_interactive_mode
        && !matches!(mode.as_str(), "IfAvailable" | "Never" | "Always")
    {
        return Err(Error::msg("invalid interactive mode type, can be only IfAvailable, Never, Always"));
    }
    Ok(SetCredentialsOptions { name, embed, provider_args, env })
}

fn set_credentials(args: SetCredentialsArgs, global: &GlobalArgs) -> Result {
    let SetCredentialsOptions { name, embed, provider_args: (provider_args, provider_remove), env: (env, env_remove) } =
        set_credentials_options(&args)?;
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    let mut user: AuthInfo = starting.auth_infos.get(name).cloned().unwrap_or_default();
    let (mut set_token, mut set_basic) = (false, false);
    if let Some(cert) = &args.client_certificate {
        if embed {
            user.client_certificate_data = std::fs::read(cert).ok();
            user.client_certificate.clear();
        } else {
            user.client_certificate = absolute_flag_path(cert, &kubeconfigs.cwd);
            if !user.client_certificate.is_empty() {
                user.client_certificate_data = None;
            }
        }
    }
    if let Some(key) = &args.client_key {
        if embed {
            user.client_key_data = std::fs::read(key).ok();
            user.client_key.clear();
        } else {
            user.client_key = absolute_flag_path(key, &kubeconfigs.cwd);
            if !user.client_key.is_empty() {
                user.client_key_data = None;
            }
        }
    }
    if let Some(token) = &args.token {
        user.token = token.clone();
        set_token = !user.token.is_empty();
    }
    if let Some(username) = &args.username {
        user.username = username.clone();
        set_basic |= !user.username.is_empty();
    }
    if let Some(password) = &args.password {
        user.password = password.clone();
        set_basic |= !user.password.is_empty();
    }
    if let Some(provider) = &args.auth_provider
        && user.auth_provider.as_ref().is_none_or(|existing| existing.name != *provider)
    {
        user.auth_provider = Some(AuthProvider { name: provider.clone(), config: None });
    }
    if let Some(provider) = &mut user.auth_provider {
        let config = provider.config.get_or_insert_default();
        for key in &provider_remove {
            config.remove(key);
        }
        for (key, value) in provider_args {
            config.insert(key, value);
        }
    }
    if let Some(command) = &args.exec_command {
        match &mut user.exec {
            None => user.exec = Some(Exec { command: command.clone(), ..Exec::default() }),
            Some(exec) => {
                exec.command = command.clone();
                exec.args = None;
            }
        }
    }
    if let Some(exec) = &mut user.exec {
        if let Some(version) = &args.exec_api_version {
            exec.api_version = version.clone();
        }
        if let Some(exec_args) = &args.exec_arg {
            exec.args = Some(exec_args.clone());
        }
        if let Some(mode) = &args.exec_interactive_mode {
            exec.interactive_mode = mode.clone();
        }
        if let Some(Tristate(provide)) = args.exec_provide_cluster_info {
            exec.provide_cluster_info = provide;
        }
        if !env_remove.is_empty() {
            let kept = exec.env.take().unwrap_or_default().into_iter().filter(|(name, _)| !env_remove.contains(name));
            exec.env = Some(kept.collect());
        }
        if !env.is_empty() {
            let mut current = exec.env.take().unwrap_or_default();
            let mut new = Vec::new();
            for (name, value) in env {
                match current.iter_mut().find(|(existing, _)| *existing == name) {
                    Some(existing) => existing.1 = value,
                    None => new.push((name, value)),
                }
            }
            current.extend(new);
            exec.env = Some(current);
        }
    }
    if set_token || set_basic {
        if !set_token {
            user.token.clear();
        }
        if !set_basic {
            user.username.clear();
            user.password.clear();
        }
    }
    let mut changed = starting.clone();
    changed.auth_infos.insert(name.clone(), user);
    kubeconfigs.modify(&starting, &changed, true)?;
    write_stdout(&format!("User {name:?} set.\n"))
}

/// kubectl's checks of `config set` before a file is read (its `complete`, then `validate`): a
/// property and a value, neither empty.
fn set_options(args: &SetArgs) -> Result<(&String, &String)> {
    let [property, value] = args.words.as_slice() else { return Err(unexpected("set", &args.words)) };
    if value.is_empty() {
        return Err(Error::msg("you cannot use set to unset a property"));
    }
    if property.is_empty() {
        return Err(Error::msg("you must specify a property"));
    }
    Ok((property, value))
}

fn set(args: SetArgs, global: &GlobalArgs) -> Result {
    let (property, value) = set_options(&args)?;
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    let mut changed = starting.clone();
    let raw_bytes = args.set_raw_bytes.is_some_and(|Tristate(raw)| raw);
    property::change(&mut changed, property, Action::Set { value, raw_bytes }).map_err(Error::msg)?;
    kubeconfigs.modify(&starting, &changed, false)?;
    write_stdout(&format!("Property {property:?} set.\n"))
}

/// kubectl's checks of `config unset` before a file is read (its `complete`, then `validate`):
/// one property, not empty.
fn unset_options(args: &NameArgs) -> Result<&String> {
    let [property] = args.words.as_slice() else { return Err(unexpected("unset", &args.words)) };
    if property.is_empty() {
        return Err(Error::msg("you must specify a property"));
    }
    Ok(property)
}

fn unset(args: NameArgs, global: &GlobalArgs) -> Result {
    let property = unset_options(&args)?;
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    let mut changed = starting.clone();
    property::change(&mut changed, property, Action::Unset).map_err(Error::msg)?;
    kubeconfigs.modify(&starting, &changed, false)?;
    write_stdout(&format!("Property {property:?} unset.\n"))
}

fn delete_context(args: NameArgs, global: &GlobalArgs) -> Result {
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    // kubectl reads the files, then shows its help for anything but one name, and succeeds.
    let [name] = args.words.as_slice() else { return write_stdout(&help_of("delete-context")) };
    let file = kubeconfigs.config_file();
    if !starting.contexts.contains_key(name) {
        return Err(Error::msg(format!("cannot delete context {name}, not in {}", file.display())));
    }
    if starting.current_context == *name {
        eprintln!(
            "warning: this removed your active context, use \"kubectl config use-context\" to select a different one"
        );
    }
    let mut changed = starting.clone();
    changed.contexts.remove(name);
    kubeconfigs.modify(&starting, &changed, true)?;
    write_stdout(&format!("deleted context {name} from {}\n", file.display()))
}

fn delete_cluster(args: NameArgs, global: &GlobalArgs) -> Result {
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    let [name] = args.words.as_slice() else { return write_stdout(&help_of("delete-cluster")) };
    let file = kubeconfigs.config_file();
    if !starting.clusters.contains_key(name) {
        return Err(Error::msg(format!("cannot delete cluster {name}, not in {}", file.display())));
    }
    let mut changed = starting.clone();
    changed.clusters.remove(name);
    kubeconfigs.modify(&starting, &changed, true)?;
    write_stdout(&format!("deleted cluster {name} from {}\n", file.display()))
}

fn delete_user(args: NameArgs, global: &GlobalArgs) -> Result {
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    // kubectl's usage error (cmdutil.UsageErrorf) for anything but one name.
    let [name] = args.words.as_slice() else {
        return Err(Error::msg(
            "user to delete is required\nSee 'kubeupd config delete-user -h' for help and examples",
        ));
    };
    let file = kubeconfigs.config_file();
    if !starting.auth_infos.contains_key(name) {
        return Err(Error::msg(format!("cannot delete user {name}, not in {}", file.display())));
    }
    let mut changed = starting.clone();
    changed.auth_infos.remove(name);
    kubeconfigs.modify(&starting, &changed, true)?;
    write_stdout(&format!("deleted user {name} from {}\n", file.display()))
}

/// kubectl's checks of `config rename-context` before a file is read (its `Complete`, then
/// `Validate`): the old name and a non-empty new one.
fn rename_context_options(args: &NameArgs) -> Result<(&String, &String)> {
    let [old, new] = args.words.as_slice() else { return Err(unexpected("rename-context", &args.words)) };
    if new.is_empty() {
        return Err(Error::msg("You must specify a new non-empty context name"));
    }
    Ok((old, new))
}

fn rename_context(args: NameArgs, global: &GlobalArgs) -> Result {
    let (old, new) = rename_context_options(&args)?;
    let kubeconfigs = Kubeconfigs::open(global)?;
    let starting = kubeconfigs.starting()?;
    let file = kubeconfigs.config_file();
    let Some(context) = starting.contexts.get(old).cloned() else {
        return Err(Error::msg(format!("cannot rename the context {old:?}, it's not in {}", file.display())));
    };
    if starting.contexts.contains_key(new) {
        return Err(Error::msg(format!(
            "cannot rename the context {old:?}, the context {new:?} already exists in {}",
            file.display()
        )));
    }
    let mut changed = starting.clone();
    changed.contexts.remove(old);
    changed.contexts.insert(new.clone(), Context { ..context });
    if changed.current_context == *old {
        changed.current_context = new.clone();
    }
    kubeconfigs.modify(&starting, &changed, true)?;
    write_stdout(&format!("Context {old:?} renamed to {new:?}.\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `config` subcommand of `kubeupd config LINE`, and the global flags.
    fn parse(line: &[&str]) -> (ConfigCommand, GlobalArgs) {
        let cli = crate::cli::parse(["kubeupd"].iter().chain(line)).expect("the line parses");
        match cli.command {
            crate::cli::Command::Config(ConfigArgs { command: Some(command) }) => (command, cli.global),
            _ => unreachable!(),
        }
    }

    /// What kubeupd prints for `result`'s error.
    fn refusal<T>(result: Result<T>) -> String {
        result.err().expect("refused").line()
    }

    #[test]
    fn view_is_checked_as_kubectl_checks_it() {
        let view = |line: &[&str]| match parse(line) {
            (ConfigCommand::View(args), global) => view_options(&args, &global),
            _ => unreachable!(),
        };
        let options = view(&["config", "view"]).unwrap();
        assert!(options.merge && matches!(options.printer, ViewPrinter::Yaml));
        let options = view(&["--kubeconfig", "k", "config", "view", "-o", "json"]).unwrap();
        assert!(!options.merge && matches!(options.printer, ViewPrinter::Json));
        let options = view(&["config", "view", "-o", "jsonpath={.kind}"]).unwrap();
        assert!(matches!(options.printer, ViewPrinter::Other(_)));
        // The words first, then the printer, then --merge.
        assert_eq!(refusal(view(&["config", "view", "x", "-o", "bad"])), "error: unexpected arguments: [x]");
        let refused = refusal(view(&["config", "view", "-o", "bad", "--merge=false"]));
        assert!(refused.starts_with("error: unable to match a printer suitable for the output format \"bad\""));
        assert_eq!(
            refusal(view(&["config", "view", "--merge=false"])),
            "error: if merge==false a precise file must be specified"
        );
    }

    #[test]
    fn get_contexts_is_checked_as_kubectl_checks_it() {
        let get_contexts = |line: &[&str]| match parse(line) {
            (ConfigCommand::GetContexts(args), _) => get_contexts_options(&args),
            _ => unreachable!(),
        };
        let options = get_contexts(&["config", "get-contexts", "-o", "name"]).unwrap();
        assert!(options.name_only && !options.headers);
        let options = get_contexts(&["config", "get-contexts", "--no-headers", "a"]).unwrap();
        assert!(!options.name_only && !options.headers);
        assert!(get_contexts(&["config", "get-contexts"]).unwrap().headers);
        assert_eq!(
            refusal(get_contexts(&["config", "get-contexts", "-o", "wide"])),
            "error: --output wide is not available in kubectl config get-contexts; resetting to default output format"
        );
    }

    #[test]
    fn names_are_checked_as_kubectl_checks_them() {
        let words = |line: &[&str]| match parse(line) {
            (
                ConfigCommand::UseContext(args)
                | ConfigCommand::Unset(args)
                | ConfigCommand::RenameContext(args)
                | ConfigCommand::DeleteContext(args),
                _,
            ) => args,
            _ => unreachable!(),
        };
        // An empty name is refused by kubectl only once the files are read.
        assert_eq!(use_context_options(&words(&["config", "use-context", ""])).unwrap(), "");
        assert_eq!(use_context_options(&words(&["config", "use", "a"])).unwrap(), "a");
        assert_eq!(refusal(use_context_options(&words(&["config", "use-context"]))), "error: Unexpected args: []");
        assert_eq!(unset_options(&words(&["config", "unset", "users.u.token"])).unwrap(), "users.u.token");
        assert_eq!(refusal(unset_options(&words(&["config", "unset", ""]))), "error: you must specify a property");
        assert_eq!(refusal(unset_options(&words(&["config", "unset", "a", "b"]))), "error: Unexpected args: [a b]");
        assert_eq!(
            rename_context_options(&words(&["config", "rename-context", "a", "b"])).unwrap(),
            (&"a".into(), &"b".into())
        );
        assert_eq!(
            refusal(rename_context_options(&words(&["config", "rename-context", "a", ""]))),
            "error: You must specify a new non-empty context name"
        );
        assert_eq!(
            refusal(rename_context_options(&words(&["config", "rename-context", "a"]))),
            "error: Unexpected args: [a]"
        );
        let set = |line: &[&str]| match parse(line) {
            (ConfigCommand::Set(args), _) => {
                set_options(&args).map(|(property, value)| (property.clone(), value.clone()))
            }
            _ => unreachable!(),
        };
        assert_eq!(set(&["config", "set", "current-context", "a"]).unwrap(), ("current-context".into(), "a".into()));
        assert_eq!(refusal(set(&["config", "set", "", ""])), "error: you cannot use set to unset a property");
        assert_eq!(refusal(set(&["config", "set", "", "a"])), "error: you must specify a property");
        assert_eq!(refusal(set(&["config", "set", "a"])), "error: Unexpected args: [a]");
    }

    #[test]
    fn set_context_is_checked_as_kubectl_checks_it() {
        let set_context = |line: &[&str]| match parse(line) {
            (ConfigCommand::SetContext(args), _) => set_context_options(&args),
            _ => unreachable!(),
        };
        assert_eq!(set_context(&["config", "set-context", "c", "--namespace=n"]).unwrap(), Some("c".into()));
        assert_eq!(set_context(&["config", "set-context", "--current"]).unwrap(), None);
        for (line, expected) in [
            (&["config", "set-context", "a", "b"][..], "error: Unexpected args: [a b]"),
            (&["config", "set-context"], "error: you must specify a non-empty context name or --current"),
            (
                &["config", "set-context", "c", "--current"],
                "error: you cannot specify both a context name and --current",
            ),
        ] {
            assert_eq!(refusal(set_context(line)), expected, "{line:?}");
        }
    }

    #[test]
    fn set_cluster_is_checked_as_kubectl_checks_it() {
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.crt");
        std::fs::write(&ca, "CA").unwrap();
        let ca = format!("--certificate-authority={}", ca.display());
        let set_cluster = |line: &[&str]| match parse(line) {
            (ConfigCommand::SetCluster(args), _) => {
                set_cluster_options(&args).map(|options| (options.name.clone(), options.embed))
            }
            _ => unreachable!(),
        };
        assert_eq!(set_cluster(&["config", "set-cluster", "c", "--embed-certs", &ca]).unwrap(), ("c".into(), true));
        assert_eq!(set_cluster(&["config", "set-cluster", "c", "--server=https://s"]).unwrap(), ("c".into(), false));
        for (line, expected) in [
            (&["config", "set-cluster", "--embed-certs"][..], "error: Unexpected args: []"),
            (&["config", "set-cluster", "", "--embed-certs"], "error: you must specify a non-empty cluster name"),
            (
                &["config", "set-cluster", "c", "--insecure-skip-tls-verify", "--embed-certs", &ca],
                "error: you cannot specify a certificate authority and insecure mode at the same time",
            ),
            (
                &["config", "set-cluster", "c", "--embed-certs"],
                "error: you must specify a --certificate-authority to embed",
            ),
            (
                &["config", "set-cluster", "c", "--embed-certs", "--certificate-authority=/no/such/ca.crt"],
                "error: could not stat certificate-authority file /no/such/ca.crt: stat /no/such/ca.crt: no such file or \
                 directory",
            ),
        ] {
            assert_eq!(refusal(set_cluster(line)), expected, "{line:?}");
        }
    }

    #[test]
    fn set_credentials_is_checked_as_kubectl_checks_it() {
        let set_credentials = |line: &[&str]| match parse(line) {
            (ConfigCommand::SetCredentials(args), _) => set_credentials_options(&args)
                .map(|options| (options.name.clone(), options.embed, options.provider_args, options.env)),
            _ => unreachable!(),
        };
        let (name, embed, provider_args, env) = set_credentials(&[
            "config",
            "set-credentials",
            "u",
            "--auth-provider-arg=a=1,b-",
            "--exec-env=E=2",
            "--exec-env=F-",
            "--token=t",
        ])
        .unwrap();
        assert_eq!((name.as_str(), embed), ("u", false));
        assert_eq!(provider_args, (vec![("a".into(), "1".into())], vec!["b".into()]));
        assert_eq!(env, (vec![("E".into(), "2".into())], vec!["F".into()]));
        // The words and the pairs (kubectl's `complete`) first, then the rest (its `validate`).
        for (line, expected) in [
            (&["config", "set-credentials", "--auth-provider-arg=bad"][..], "error: unexpected args: []"),
            (
                &["config", "set-credentials", "", "--auth-provider-arg=bad"],
                "error: invalid auth-provider-arg format: bad",
            ),
            (&["config", "set-credentials", "", "--exec-env=bad"], "error: invalid exec-env format: bad"),
            (
                &["config", "set-credentials", "", "--token=t", "--username=u"],
                "error: you must specify a non-empty user name",
            ),
            (
                &["config", "set-credentials", "u", "--token=t", "--password=p", "--embed-certs"],
                "error: you cannot specify more than one authentication method at the same time: --token, \
                 --username/--password",
            ),
            (
                &["config", "set-credentials", "u", "--embed-certs", "--exec-interactive-mode=Sometimes"],
                "error: you must specify a --client-certificate or --client-key to embed",
            ),
            (
                &["config", "set-credentials", "u", "--embed-certs", "--client-key=/no/such/key"],
                "error: could not stat client-key file /no/such/key: stat /no/such/key: no such file or directory",
            ),
            (
                &["config", "set-credentials", "u", "--exec-interactive-mode=Sometimes"],
                "error: invalid interactive mode type, can be only IfAvailable, Never, Always",
            ),
        ] {
            assert_eq!(refusal(set_credentials(line)), expected, "{line:?}");
        }
    }
}
