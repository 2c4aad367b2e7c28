//! `kubeupd create configmap|secret generic|namespace|serviceaccount NAME`: kubectl's generators
//! for the objects scripts make most, printed (`--dry-run=client -o yaml`, to pipe into `apply`)
//! or created with kubectl's field manager `kubectl-create`. Sources are read by kubectl's rules
//! (no quotes taken off literals, keys checked, env files alone), which differ from kustomize's
//! generators; the `--append-hash` suffix is kustomize's, which kubectl shares.

mod generators;

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use secrecy::{ExposeSecret as _, SecretString};
use serde_json::{Value, json};

use futures::{StreamExt as _, stream};

use self::generators::{GeneratorName, one_name};
use super::args::{
    DryRunArg, ExtraArgs, FieldManagerArg, FileArgs, LabelSelectorArg, OutputArgs, RawArg, RecordArg, ValidateArg,
};
use super::edit::before_create::{self, EditFormat, ToEdit};
use super::{Error, GlobalArgs, Result, validation, visit, write_stdout};
use crate::apply::{DryRun, last_applied};
use crate::change::metadata;
use crate::client::WriteOptions;
use crate::generate::data;
use crate::output::{self, Verb};
use crate::resource::{self, Resolved, Resolver, Rules};

/// Options of `kubeupd create`: a generator, or `-f` files.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct CreateArgs {
    #[command(subcommand)]
    pub command: Option<CreateCommand>,
    #[command(flatten)]
    files: FileArgs,
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    label: LabelSelectorArg,
    #[command(flatten)]
    raw: RawArg,
    /// Open each object in the editor before it is created.
    #[arg(long)]
    edit: bool,
    /// With --edit: give the editor CRLF line endings.
    #[arg(long)]
    windows_line_endings: bool,
    #[command(flatten)]
    record: RecordArg,
    #[command(flatten)]
    extra: ExtraArgs,
}

/// The objects `create` makes.
#[derive(Debug, Subcommand)]
pub enum CreateCommand {
    /// Create a ConfigMap from literals, files, directories or env files.
    #[command(visible_alias = "cm", after_help = super::help::CREATE_CONFIGMAP)]
    Configmap(DataArgs),
    /// Create a Secret.
    #[command(subcommand, after_help = super::help::CREATE_SECRET)]
    Secret(SecretCommand),
    /// Create a Namespace.
    #[command(visible_alias = "ns", after_help = super::help::CREATE_NAMESPACE)]
    Namespace(NameArgs),
    /// Create a ServiceAccount.
    #[command(visible_alias = "sa", after_help = super::help::CREATE_SERVICEACCOUNT)]
    Serviceaccount(NameArgs),
    #[command(flatten)]
    Generator(generators::GeneratorCommand),
    /// Request a service account token.
    #[command(after_help = super::help::CREATE_TOKEN)]
    Token(generators::TokenArgs),
}

/// The kinds of Secret `create secret` makes.
#[derive(Debug, Subcommand)]
pub enum SecretCommand {
    /// Create a Secret from literals, files, directories or env files.
    #[command(after_help = super::help::CREATE_SECRET_GENERIC)]
    Generic(SecretArgs),
    /// Create a Secret for a Docker registry (type kubernetes.io/dockerconfigjson).
    #[command(after_help = super::help::CREATE_SECRET_DOCKER_REGISTRY)]
    DockerRegistry(DockerArgs),
    /// Create a TLS Secret from a certificate and its private key (type kubernetes.io/tls).
    #[command(after_help = super::help::CREATE_SECRET_TLS)]
    Tls(TlsArgs),
}

/// `create secret docker-registry`.
#[derive(Debug, Args)]
pub struct DockerArgs {
    #[command(flatten)]
    name: GeneratorName,
    /// Username for the registry.
    #[arg(long, value_name = "USER", default_value = "")]
    docker_username: String,
    /// Password for the registry (kept out of `Debug`, as the `--token` is).
    #[arg(long, value_name = "PASSWORD", default_value = "", value_parser = super::secret)]
    docker_password: SecretString,
    /// Email for the registry.
    #[arg(long, value_name = "EMAIL", default_value = "")]
    docker_email: String,
    /// The registry's server.
    #[arg(long, value_name = "SERVER", default_value = "https://index.docker.io/v1/")]
    docker_server: String,
    /// A config file (key .dockerconfigjson unless KEY= is given), or a directory (repeatable).
    #[arg(long, value_name = "[KEY=]SOURCE", value_delimiter = ',')]
    from_file: Vec<String>,
    /// Append a hash of the content to the name.
    #[arg(long)]
    append_hash: bool,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create secret tls`.
#[derive(Debug, Args)]
pub struct TlsArgs {
    #[command(flatten)]
    name: GeneratorName,
    /// The PEM certificate (chain) file.
    #[arg(long, value_name = "PATH", default_value = "")]
    cert: String,
    /// The PEM private key file.
    #[arg(long, value_name = "PATH", default_value = "")]
    key: String,
    /// Append a hash of the content to the name.
    #[arg(long)]
    append_hash: bool,
    #[command(flatten)]
    common: CommonArgs,
}

/// What every generator takes.
#[derive(Debug, Args)]
pub struct CommonArgs {
    #[command(flatten)]
    dry_run: DryRunArg,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    field_manager: FieldManagerArg,
    #[command(flatten)]
    validate: ValidateArg,
    /// Record the object in the last-applied annotation, so that `apply` can follow.
    #[arg(long)]
    save_config: bool,
}

impl CommonArgs {
    /// The one NAME, then the printer `-o` asks for: what kubectl's generators read first (their
    /// `Complete`), before their own checks and any source is read.
    fn named(&self, names: &[String], generator: &str) -> Result<String> {
        let name = one_name(names, generator)?;
        self.output.printer(Verb::Write)?;
        Ok(name)
    }
}

/// `create namespace` and `create serviceaccount`.
#[derive(Debug, Args)]
pub struct NameArgs {
    #[command(flatten)]
    name: GeneratorName,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create configmap` and the data of `create secret generic`.
#[derive(Debug, Args)]
pub struct DataArgs {
    #[command(flatten)]
    name: GeneratorName,
    /// A key and a literal value: KEY=VALUE (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    from_literal: Vec<String>,
    /// A file (its name is the key), KEY=FILE, or a directory (each file in it) (repeatable, or
    /// separated by commas).
    #[arg(long, value_name = "[KEY=]SOURCE", value_delimiter = ',')]
    from_file: Vec<String>,
    /// A file of KEY=VALUE lines (repeatable, or separated by commas; not with --from-file or
    /// --from-literal).
    #[arg(long, value_name = "FILE", value_delimiter = ',')]
    from_env_file: Vec<PathBuf>,
    /// Append a hash of the content to the name.
    #[arg(long)]
    append_hash: bool,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create secret generic`.
#[derive(Debug, Args)]
pub struct SecretArgs {
    #[command(flatten)]
    data: DataArgs,
    /// The Secret's type.
    #[arg(long = "type", value_name = "TYPE")]
    secret_type: Option<String>,
}

/// Runs `kubeupd create`.
pub async fn run(args: CreateArgs, global: &GlobalArgs) -> Result {
    let Some(command) = &args.command else {
        let options = options(&args)?;
        return match options.source {
            Source::Raw { path, file } => create_raw(path, file, global).await,
            Source::Edit => edit_then_create(&args, &options, global).await,
            Source::Files => create_files(&args, &options, global).await,
        };
    };
    let (object, common) = match command {
        CreateCommand::Configmap(data) => (config_map(data)?, &data.common),
        CreateCommand::Secret(SecretCommand::Generic(secret)) => (generic_secret(secret)?, &secret.data.common),
        CreateCommand::Secret(SecretCommand::DockerRegistry(docker)) => (docker_secret(docker)?, &docker.common),
        CreateCommand::Secret(SecretCommand::Tls(tls)) => (tls_secret(tls)?, &tls.common),
        CreateCommand::Namespace(named) => (
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": named.common.named(&named.name.names, "namespace")?}, "spec": {}, "status": {}}),
            &named.common,
        ),
        CreateCommand::Serviceaccount(named) => {
            let name = named.common.named(&named.name.names, "serviceaccount")?;
            (json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}), &named.common)
        }
        CreateCommand::Generator(generator) => (generator.object(global).await?, generator.common()),
        CreateCommand::Token(token) => return generators::request_token(token, global).await,
    };
    create(object, common, global).await
}

const RULES: Rules = Rules { verb: "create", types_alone: false, selector: false };

/// The checked options of `kubeupd create -f`.
struct Options<'a> {
    source: Source<'a>,
    dry_run: DryRun,
    write: WriteOptions,
}

/// Where `create -f` takes its objects.
enum Source<'a> {
    /// `--raw PATH`: the one file's bytes, POSTed to the path.
    Raw { path: &'a str, file: &'a Path },
    /// `--edit`: each object, as saved in the editor.
    Edit,
    /// The objects of the files.
    Files,
}

/// Checks `create -f`'s flags as kubectl does; nothing is read, from the files or the server,
/// before this succeeds.
fn options(args: &CreateArgs) -> Result<Options<'_>> {
    args.extra.refuse("create")?;
    args.files.require()?;
    let source = match &args.raw.path {
        Some(path) => Source::Raw { path, file: raw_file(args, path)? },
        None => {
            args.common.output.printer(Verb::Write)?;
            if args.edit { Source::Edit } else { Source::Files }
        }
    };
    Ok(Options { source, dry_run: args.common.dry_run.mode(), write: write_options(&args.common) })
}

/// How `create` writes: kubectl's field manager `kubectl-create` unless `--field-manager` names
/// another.
fn write_options(common: &CommonArgs) -> WriteOptions {
    WriteOptions {
        dry_run: common.dry_run.mode() == DryRun::Server,
        field_manager: Some(common.field_manager.or("kubectl-create")),
        field_validation: Some(common.validate.directive),
        ..WriteOptions::default()
    }
}

/// `create -f`: each object of the files created (checked first, all of them), kubectl's line
/// for each, the server's refusal of one object in kubectl's words; the others go on.
async fn create_files(args: &CreateArgs, options: &Options<'_>, global: &GlobalArgs) -> Result {
    let common = &args.common;
    let mut named = resource::parse(&[], &args.files.files(), RULES)?;
    if let Some(selector) = &args.label.selector {
        named.retain(|named| match named {
            resource::Named::Manifest(manifest) => selector.matches(&manifest.object),
            _ => true,
        });
    }
    if named.is_empty() {
        return Err(Error::msg("no objects passed to create"));
    }
    let cluster = global.connect().await?;
    let resolved = Resolver::new(&cluster, global.namespace.as_deref(), false).resolve(named).await?;
    validation::check_files(&cluster, &resolved, common.validate.directive).await?;
    let dry_run = options.dry_run;
    // As many creates at once as apply sends writes by default, not every object at once.
    let (cluster, write) = (&cluster, &options.write);
    let creates = stream::iter(&resolved).map(|item| async move {
        let Resolved::Manifest(manifest) = item else { unreachable!("create reads its objects from files") };
        let mut document = match common.save_config {
            true => last_applied::with_annotation(&manifest.document),
            false => manifest.document.clone(),
        };
        // As kubectl: recorded after the last-applied annotation, which leaves the cause out.
        if let Some(cause) = args.record.cause(global) {
            metadata::record_change_cause(&mut document, cause);
        }
        let target = &manifest.object;
        let created = match dry_run {
            DryRun::Client => document,
            _ => match cluster.create(&target.rt, target.namespace.as_deref(), &document, write).await {
                Ok(created) => created,
                Err(cause) if cause.is_transport() && !write.dry_run => {
                    let exists = |live: Option<&Value>| live.is_some();
                    return Err(visit::write_failed(cluster, target, None, cause, exists).await);
                }
                Err(err) => {
                    let context = format!("error when creating {:?}", manifest.source.file);
                    return Err(Error::Client(err.in_context(&context)));
                }
            },
        };
        Ok(created)
    });
    let results: Vec<_> = creates.buffered(crate::apply::DEFAULT_CONCURRENCY).collect().await;
    // Printed in the files' order once all are written (a printer failing part way writes what
    // it printed as it fails).
    let printed = results
        .into_iter()
        .map(|result| {
            result.and_then(|created| common.output.written(&created, "created", true, common.dry_run.suffix()))
        })
        .collect();
    super::print_results(super::yaml_documents(common.output.printer(Verb::Write)?, printed))
}

/// The one file of `create --raw PATH -f FILE`, its flags checked as kubectl checks them.
fn raw_file<'a>(args: &'a CreateArgs, path: &str) -> Result<&'a Path> {
    let files = &args.files;
    if args.edit {
        return Err(Error::msg("--raw and --edit are mutually exclusive"));
    }
    let [file] = files.filenames.as_slice() else {
        return Err(Error::msg("--raw can only use a single local file or stdin"));
    };
    let name = file.to_string_lossy();
    if name.starts_with("http://") || name.starts_with("https://") {
        return Err(Error::msg("--raw cannot read from a url"));
    }
    if files.recursive {
        return Err(Error::msg("--raw and --recursive are mutually exclusive"));
    }
    if args.label.selector.is_some() {
        return Err(Error::msg("--raw and --selector (-l) are mutually exclusive"));
    }
    if args.common.output.output.as_deref().is_some_and(|output| !output.is_empty()) {
        return Err(Error::msg("--raw and --output are mutually exclusive"));
    }
    if !path.starts_with('/') && !path.contains("://") {
        return Err(Error::msg(format!("--raw must be a valid URL path: parse {path:?}: invalid URI for request")));
    }
    Ok(file)
}

/// `create --raw PATH -f FILE`: the file's bytes POSTed to PATH, the answer printed as it came.
async fn create_raw(path: &str, file: &Path, global: &GlobalArgs) -> Result {
    let name = file.to_string_lossy();
    let body = if name == "-" {
        let mut body = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut body).map_err(|err| Error::Other(err.into()))?;
        body
    } else {
        std::fs::read(file)
            .map_err(|err| Error::msg(format!("open {name}: {}", crate::gocompat::os::error_text(&err))))?
    };
    let cluster = global.connect().await?;
    let answer = cluster.raw(http::Method::POST, path, Some(body)).await?;
    write_stdout(&String::from_utf8_lossy(&answer))
}

/// `create --edit`: each object opened in the editor, then what was saved created with
/// kubectl-create (recorded in the last-applied annotation with `--save-config`).
async fn edit_then_create(args: &CreateArgs, options: &Options<'_>, global: &GlobalArgs) -> Result {
    // kubectl's edit-before-create reads the files alone: -l does not apply.
    let named = resource::parse(&[], &args.files.files(), RULES)?;
    let cluster = global.connect().await?;
    // Resolved as kubectl's builder does: the editor shows each object with its namespace.
    let resolved = Resolver::new(&cluster, global.namespace.as_deref(), false).resolve(named).await?;
    let objects = resolved.into_iter().filter_map(|resolved| match resolved {
        Resolved::Manifest(manifest) => {
            let label = format!("{} {:?}", manifest.object.rt.group_resource(), manifest.object.name);
            Some(ToEdit { label, object: manifest.document })
        }
        _ => None,
    });
    let common = &args.common;
    let format = EditFormat::from_output(common.output.output.as_deref()).map_err(Error::msg)?.unwrap_or_default();
    let (dry_run, write) = (options.dry_run, &options.write);
    let create = async |edited: Vec<Value>| {
        for object in edited {
            let mut object = if common.save_config { last_applied::with_annotation(&object) } else { object };
            if let Some(cause) = args.record.cause(global) {
                metadata::record_change_cause(&mut object, cause);
            }
            let api_version = object["apiVersion"].as_str().unwrap_or_default();
            let rt = cluster.resolve_kind(api_version, object["kind"].as_str().unwrap_or_default()).await?;
            let namespace = rt.namespaced.then(|| {
                object["metadata"]["namespace"]
                    .as_str()
                    .map(String::from)
                    .or_else(|| global.namespace.clone())
                    .unwrap_or_else(|| cluster.default_namespace().to_string())
            });
            let created = match dry_run {
                DryRun::Client => object,
                _ => cluster.create(&rt, namespace.as_deref(), &object, write).await?,
            };
            write_stdout(&common.output.written(&created, "created", true, common.dry_run.suffix())?)?;
        }
        Ok(())
    };
    let failures = before_create::edit_each(objects.collect(), format, args.windows_line_endings, create).await?;
    super::print_visited(vec![if failures.is_empty() { Ok(String::new()) } else { Err(failures) }])
}

/// Prints or creates `object`, as `common` says.
async fn create(mut object: Value, common: &CommonArgs, global: &GlobalArgs) -> Result {
    let printer = common.output.printer(Verb::Write)?.cloned();
    let kind = object["kind"].as_str().unwrap_or_default().to_string();
    let namespaced = !crate::generate::cluster_scoped(&kind);
    // kubectl names the namespace in the object only when -n names it.
    if namespaced && let Some(namespace) = &global.namespace {
        object["metadata"]["namespace"] = namespace.clone().into();
    }
    if common.save_config && crate::generate::saves_config(&kind) {
        object = last_applied::with_annotation(&object);
    }
    let dry_run = common.dry_run.mode();
    // The object as kubectl's generator makes it (kubectl 1.37 leaves out the creation time that
    // 1.32 printed as `null`).
    let shown = if dry_run == DryRun::Client {
        object
    } else {
        let cluster = global.connect().await?;
        let rt = cluster.resolve_kind(object["apiVersion"].as_str().unwrap_or_default(), &kind).await?;
        let namespace =
            namespaced.then(|| global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().into()));
        cluster.create(&rt, namespace.as_deref(), &object, &write_options(common)).await.map_err(|err| {
            // kubectl's generators wrap the server's refusal, each in its own words.
            let reason = err.status().map_or_else(|| err.to_string(), |status| status.message.clone());
            match crate::generate::creation_failure(&object) {
                Some(words) => Error::msg(format!("{words}{reason}")),
                None => err.into(),
            }
        })?
    };
    match &printer {
        Some(printer) => write_stdout(&common.output.render_typed(printer, &shown)?),
        None => write_stdout(&format!("{} created{}\n", output::object_name(&shown), common.dry_run.suffix())),
    }
}

/// The entries of `args`' sources, read in kubectl's order: literals, files, env files.
fn data_entries(args: &DataArgs) -> Result<Vec<data::Entry>> {
    if !args.from_env_file.is_empty() && (!args.from_file.is_empty() || !args.from_literal.is_empty()) {
        return Err(Error::msg("from-env-file cannot be combined with from-file or from-literal"));
    }
    let mut entries = Vec::new();
    for literal in &args.from_literal {
        entries.push(data::literal(literal)?);
    }
    for source in &args.from_file {
        entries.extend(file_source(source)?);
    }
    for path in &args.from_env_file {
        let text = std::fs::read_to_string(path).map_err(|err| {
            Error::msg(format!("error reading {}: {}", path.display(), crate::gocompat::os::error_text(&err)))
        })?;
        entries.extend(data::env_file(&text, |key| std::env::var(key).ok())?);
    }
    Ok(entries)
}

/// `create configmap`.
fn config_map(args: &DataArgs) -> Result<Value> {
    let name = args.common.named(&args.name.names, "configmap")?;
    Ok(data::config_map(&name, data_entries(args)?, args.append_hash)?)
}

/// `create secret generic`.
fn generic_secret(args: &SecretArgs) -> Result<Value> {
    let name = args.data.common.named(&args.data.name.names, "secret generic")?;
    let entries = data_entries(&args.data)?;
    Ok(data::generic_secret(&name, entries, args.secret_type.as_deref(), args.data.append_hash)?)
}

/// `create secret docker-registry`: the files given (each keyed `.dockerconfigjson` unless the
/// user names its key), else the login of the flags.
fn docker_secret(args: &DockerArgs) -> Result<Value> {
    let name = args.common.named(&args.name.names, "secret docker-registry")?;
    let login = data::DockerLogin {
        server: &args.docker_server,
        username: &args.docker_username,
        password: args.docker_password.expose_secret(),
        email: &args.docker_email,
    };
    if args.from_file.is_empty() && !login.complete() {
        return Err(crate::generate::Error::DockerLogin.into());
    }
    let source = match args.from_file.is_empty() {
        true => data::DockerSource::Login(login),
        false => {
            let mut entries = Vec::new();
            for source in &args.from_file {
                let source = if source.contains('=') { source.clone() } else { format!(".dockerconfigjson={source}") };
                entries.extend(file_source(&source)?);
            }
            data::DockerSource::Files(entries)
        }
    };
    Ok(data::docker_secret(&name, source, args.append_hash)?)
}

/// `create secret tls`.
fn tls_secret(args: &TlsArgs) -> Result<Value> {
    let name = args.common.named(&args.name.names, "secret tls")?;
    if args.key.is_empty() || args.cert.is_empty() {
        return Err(Error::msg("key and cert must be specified"));
    }
    let read = |path: &str| {
        std::fs::read(path).map_err(|err| {
            Error::msg(format!("Cannot read file {path}, open {path}: {}", crate::gocompat::os::error_text(&err)))
        })
    };
    let (cert, key) = (read(&args.cert)?, read(&args.key)?);
    Ok(data::tls_secret(&name, &cert, &key, args.append_hash)?)
}

/// `--from-file`: a file (keyed by its name), `KEY=FILE`, or a directory's regular files.
fn file_source(source: &str) -> Result<Vec<data::Entry>> {
    let (key, path) = match source.split_once('=') {
        Some((key, path)) => (Some(key.to_string()), Path::new(path)),
        None => (None, Path::new(source)),
    };
    let read = |path: &Path| {
        std::fs::read(path).map_err(|err| {
            Error::msg(format!("error reading {}: {}", path.display(), crate::gocompat::os::error_text(&err)))
        })
    };
    if path.is_dir() {
        if key.is_some() {
            return Err(Error::msg(format!("cannot give a key name for a directory path {}", path.display())));
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|err| Error::msg(format!("error listing files in {}: {err}", path.display())))?
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.is_file())
            .collect();
        files.sort();
        return files
            .iter()
            .map(|file| Ok((file.file_name().unwrap_or_default().to_string_lossy().into_owned(), read(file)?)))
            .collect();
    }
    let key = key.unwrap_or_else(|| path.file_name().unwrap_or_default().to_string_lossy().into_owned());
    Ok(vec![(key, read(path)?)])
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_docker_password_is_kept_out_of_debug() {
        let line = ["kubeupd", "create", "secret", "docker-registry", "reg", "--docker-username=bot"];
        let cli = crate::cli::parse(line.iter().chain(&["--docker-password=pa55-w0rd-here"])).unwrap();
        let shown = format!("{cli:?}");
        assert!(shown.contains("bot"), "{shown}");
        assert!(!shown.contains("pa55-w0rd-here"), "{shown}");
    }
}
