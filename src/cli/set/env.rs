//! `set env`: environment variables of containers ([`crate::change::env`] changes them):
//! `KEY=VALUE`, `KEY-`, `-` (stdin), `--from=configmap/NAME|secret/NAME` with `--keys` and
//! `--prefix`, `--overwrite=false`, and `--list` (with `--resolve`: the values of references).

use std::collections::BTreeMap;

use clap::Args;
use serde_json::Value;

use super::{CommonArgs, Findings, ObjectError, Setter};
use crate::change::env::{self, EnvChanges};
use crate::change::pod_template::{pod_spec_mut, selected_containers};
use crate::cli::args::TargetArgs;
use crate::cli::visit;
use crate::cli::{Error, GlobalArgs, Result};
use crate::client::Cluster;
use crate::output::Printer;

pub const EXAMPLES: &str = "Examples:
  # Set a variable in every container of deployment web
  kubeupd set env deployment/web STORAGE_DIR=/local

  # Remove a variable from container app
  kubeupd set env deployment/web -c app STORAGE_DIR-

  # Take every key of a config map as a variable, with a prefix
  kubeupd set env deployment/web --from=configmap/settings --prefix=APP_

  # List the variables of the pod templates of a file, without contacting the server
  kubeupd set env -f web.yaml --list --local";

/// Options of `kubeupd set env`.
#[derive(Debug, Args)]
pub struct EnvArgs {
    /// The objects (TYPE NAME..., TYPE/NAME...), then KEY=VALUE, KEY- or -.
    #[command(flatten)]
    pub targets: TargetArgs,
    /// The containers to change; may use wildcards.
    #[arg(short = 'c', long, value_name = "NAMES", default_value = "*")]
    pub containers: String,
    /// A config map or secret (configmap/NAME, secret/NAME) whose keys become variables.
    #[arg(long, value_name = "RESOURCE")]
    pub from: Option<String>,
    /// A prefix for the names of the variables.
    #[arg(long, value_name = "PREFIX", default_value = "")]
    pub prefix: String,
    /// KEY=VALUE to set (repeatable).
    #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// With --from: only these keys.
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    pub keys: Vec<String>,
    /// Print the variables (after the changes) instead of writing.
    #[arg(long)]
    pub list: bool,
    /// With --list: print the values of references to config maps, secrets, fields and resources.
    #[arg(long)]
    pub resolve: bool,
    /// Allow a variable to get another value (false: refuse).
    #[arg(long, value_name = "BOOL", default_value_t = true)]
    pub overwrite: bool,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The change `set env` makes to each object.
struct EnvSetter {
    changes: EnvChanges,
    containers: String,
    overwrite: bool,
}

impl Setter for EnvSetter {
    const DONE: &'static str = "env updated";
    const FAILED: &'static str = "failed to patch env update to pod template: ";

    fn change(&self, object: &mut Value, findings: &mut Findings) -> std::result::Result<(), ObjectError> {
        let (kind, name) = kind_and_name(object);
        let spec = pod_spec_mut(object).ok_or(ObjectError::NoPodTemplate)?;
        let selected = selected_containers(spec, &self.containers);
        if selected.is_empty() {
            findings
                .warnings
                .push(format!("{kind}/{name} does not have any containers matching {:?}", self.containers));
            return Ok(());
        }
        for (list, i) in selected {
            env::update_container(&mut spec[list][i], &self.changes, self.overwrite).map_err(ObjectError::Other)?;
        }
        Ok(())
    }
}

fn kind_and_name(object: &Value) -> (String, String) {
    let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
    (text(&object["kind"]), text(&object["metadata"]["name"]))
}

/// What `set env` does, checked before anything is read from the server.
struct Options {
    /// The objects, the variables taken off.
    targets: TargetArgs,
    /// The variables of the arguments and `-e` (`--from`'s are added once read).
    setter: EnvSetter,
    printer: Option<Printer>,
}

/// kubectl's checks in its order (`--all` with `-l`, the arguments split, `-o`, the others), then
/// the variables read (from the standard input too, for a `-`, as kubectl
/// reads it before its first request).
fn options(args: &EnvArgs) -> Result<Options> {
    if args.common.selection.all && args.common.selection.selector.is_some() {
        return Err(Error::msg("cannot set --all and --selector at the same time"));
    }
    let Some((objects, variables)) = env::split_arguments(&args.targets.targets) else {
        return Err(Error::msg(format!(
            "all resources must be specified before environment changes: {}",
            args.targets.targets.join(" ")
        )));
    };
    let targets = TargetArgs { targets: objects, files: args.targets.files.clone() };
    let printer = args.common.printer()?;
    args.common.validate()?;
    if targets.targets.is_empty() && !targets.files.given() {
        return Err(Error::msg("one or more resources must be specified as <resource> <name> or <resource>/<name>"));
    }
    if args.list && args.common.output.output.is_some() {
        return Err(Error::msg("--list and --output may not be specified together"));
    }
    if !args.keys.is_empty() && args.from.is_none() {
        return Err(Error::msg("when specifying --keys, a configmap or secret must be provided with --from"));
    }
    let specs: Vec<String> = args.env.iter().chain(&variables).cloned().collect();
    let read_stdin = || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|err| err.to_string())?;
        Ok(text)
    };
    let (changes, _) = env::parse(&specs, read_stdin).map_err(Error::msg)?;
    let setter = EnvSetter { changes, containers: args.containers.clone(), overwrite: args.overwrite };
    Ok(Options { targets, setter, printer })
}

/// Runs `set env`: `--from`'s sources read first, as kubectl reads them (with `--local`, its
/// builder reads the files in their place), their variables joining the others; then the
/// objects.
pub async fn run(args: EnvArgs, global: &GlobalArgs) -> Result {
    let Options { targets, mut setter, printer } = options(&args)?;
    let cluster = match args.common.local.local {
        true => None,
        false => Some(global.connect().await?),
    };
    if let Some(from) = &args.from {
        let sources = match &cluster {
            Some(cluster) => sources(cluster, global, from, &args).await?,
            None => super::local_objects(&targets, "set env")?.into_iter().map(|(_, object)| object).collect(),
        };
        let mut warnings = Vec::new();
        for source in sources {
            let (variables, renamed) = env::from_source(&source, &args.keys).map_err(Error::msg)?;
            setter.changes.set.extend(variables);
            warnings.extend(renamed);
        }
        for warning in warnings {
            eprintln!("Warning: {warning}");
        }
    }
    for variable in &mut setter.changes.set {
        let name = format!("{}{}", args.prefix, variable["name"].as_str().unwrap_or_default());
        variable["name"] = Value::String(name);
    }
    let objects = match &cluster {
        Some(cluster) => super::server_objects(cluster, &targets, &args.common, global).await?,
        None => super::local_objects(&targets, "set env")?,
    };
    if args.list {
        return list(&setter, cluster.as_ref(), objects, args.resolve).await;
    }
    super::run_setter(&setter, printer.as_ref(), cluster, objects, &args.common, None).await
}

/// The objects `--from` names (with `-l`/`--all`, every one of the type), read from the server.
async fn sources(cluster: &Cluster, global: &GlobalArgs, from: &str, args: &EnvArgs) -> Result<Vec<Value>> {
    let targets = TargetArgs { targets: vec![from.to_string()], ..TargetArgs::default() };
    let (resolved, single) = visit::resolve(cluster, global, "set", &targets, &args.common.selection).await?;
    let mut sources = Vec::new();
    for read in visit::read(cluster, resolved, &args.common.selection, single).await.objects {
        sources.push(read?.live);
    }
    Ok(sources)
}

/// `--list`: each selected container's variables after the change, kubectl's way; with
/// `--resolve`, references read (config maps and secrets once each) and their failures named on
/// stderr. Nothing is written, and the exit status is 0, as kubectl's.
async fn list(
    setter: &EnvSetter,
    cluster: Option<&Cluster>,
    objects: Vec<(Option<crate::resource::ObjectRef>, Value)>,
    resolve: bool,
) -> Result {
    let mut out = String::new();
    let mut store: BTreeMap<(String, String), Option<Value>> = BTreeMap::new();
    for (_, object) in objects {
        let mut after = object.clone();
        let mut findings = Findings::default();
        // kubectl lists and writes nothing: an object that cannot take the change is left out
        // without a word, as are the failures to read references (named on stderr).
        if setter.change(&mut after, &mut findings).is_err() {
            continue;
        }
        for warning in &findings.warnings {
            eprintln!("Warning: {warning}");
        }
        let (kind, name) = kind_and_name(&after);
        let namespace = after["metadata"]["namespace"].as_str().unwrap_or("default").to_string();
        let Some(spec) = pod_spec_mut(&mut after) else { continue };
        let spec = spec.clone();
        let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (list, i) in selected_containers(&spec, &setter.containers) {
            let container = &spec[list][i];
            out.push_str(&format!("# {kind} {name}, container {}\n", container["name"].as_str().unwrap_or_default()));
            for variable in container["env"].as_array().into_iter().flatten() {
                let var_name = variable["name"].as_str().unwrap_or_default();
                let Some(from) = variable.get("valueFrom") else {
                    out.push_str(&format!("{var_name}={}\n", variable["value"].as_str().unwrap_or_default()));
                    continue;
                };
                let reference = env::reference_text(from);
                if !resolve {
                    out.push_str(&format!("# {var_name} from {reference}\n"));
                    continue;
                }
                match resolved(cluster, &namespace, &mut store, from, &object, container).await {
                    Ok(value) => out.push_str(&format!("{var_name}={value}\n")),
                    Err(problem) => {
                        out.push_str(&format!("# {var_name} from {reference}\n"));
                        problems.entry(problem).or_default().push(var_name.to_string());
                    }
                }
            }
        }
        let mut lines: Vec<String> = problems
            .into_iter()
            .map(|(problem, mut names)| {
                names.sort();
                format!("error retrieving reference for {}: {problem}", names.join(", "))
            })
            .collect();
        lines.sort();
        for line in lines {
            eprintln!("{line}");
        }
    }
    crate::cli::write_stdout(&out)
}

/// The value of a reference, as kubectl's `--resolve` reads it.
async fn resolved(
    cluster: Option<&Cluster>,
    namespace: &str,
    store: &mut BTreeMap<(String, String), Option<Value>>,
    from: &Value,
    object: &Value,
    container: &Value,
) -> std::result::Result<String, String> {
    for (field, kind, words) in [("secretKeyRef", "Secret", "secret"), ("configMapKeyRef", "ConfigMap", "config map")] {
        let Some(key) = from.get(field) else { continue };
        let name = key["name"].as_str().unwrap_or_default();
        let wanted = key["key"].as_str().unwrap_or_default();
        let source = match store.get(&(kind.to_string(), name.to_string())) {
            Some(found) => found.clone(),
            None => {
                let cluster = cluster.ok_or("no server to read from")?;
                let rt = cluster.resolve_kind("v1", kind).await.map_err(|err| err.to_string())?;
                let read = cluster.get(&rt, Some(namespace), name).await;
                let found = match read {
                    Ok(found) => Some(found),
                    Err(err) => {
                        return Err(err.status().map_or_else(|| err.to_string(), |status| status.message.clone()));
                    }
                };
                store.insert((kind.to_string(), name.to_string()), found.clone());
                found
            }
        };
        let data = source.as_ref().map(|source| &source["data"][wanted]).and_then(Value::as_str);
        return match (kind, data) {
            ("Secret", Some(encoded)) => {
                use base64::Engine as _;
                let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).map_err(|err| err.to_string())?;
                Ok(String::from_utf8_lossy(&bytes).into_owned())
            }
            (_, Some(value)) => Ok(value.to_string()),
            (_, None) => Err(format!("key {wanted} not found in {words} {name}")),
        };
    }
    if let Some(field) = from.get("fieldRef") {
        return field_value(object, field["fieldPath"].as_str().unwrap_or_default());
    }
    if let Some(reference) = from.get("resourceFieldRef") {
        let resource = reference["resource"].as_str().unwrap_or_default();
        return crate::manifest::container_resource(container, reference)
            .map(|value| value.to_string())
            .ok_or_else(|| format!("Unsupported container resource : {resource}"));
    }
    Err("invalid valueFrom".to_string())
}

/// kubectl's `extractFieldPathAsString` on the object itself (its metadata only).
fn field_value(object: &Value, path: &str) -> std::result::Result<String, String> {
    let metadata = &object["metadata"];
    let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
    if let Some(subscripted) = path.strip_suffix("']")
        && let Some((field, key)) = subscripted.split_once("['")
        && !field.is_empty()
    {
        return match field {
            "metadata.annotations" => Ok(text(&metadata["annotations"][key])),
            "metadata.labels" => Ok(text(&metadata["labels"][key])),
            _ => Err(format!("fieldPath {path:?} does not support subscript")),
        };
    }
    let map = |value: &Value| {
        let lines: Vec<String> = value
            .as_object()
            .into_iter()
            .flatten()
            .map(|(key, value)| {
                format!("{key}={}", crate::output::jsonpath::go_quote(value.as_str().unwrap_or_default()))
            })
            .collect();
        lines.join("\n")
    };
    match path {
        "metadata.annotations" => Ok(map(&metadata["annotations"])),
        "metadata.labels" => Ok(map(&metadata["labels"])),
        "metadata.name" => Ok(text(&metadata["name"])),
        "metadata.namespace" => Ok(text(&metadata["namespace"])),
        "metadata.uid" => Ok(text(&metadata["uid"])),
        _ => Err(format!("unsupported fieldPath: {path}")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{SetCommand, parsed, refusal};
    use super::*;

    fn checked(line: &[&str]) -> Result<Options> {
        match parsed(&[&["env"], line].concat())? {
            SetCommand::Env(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = checked(&["deployment", "web", "A=1", "B-", "-e", "C=3", "-c", "app"]).unwrap();
        assert_eq!(options.targets.targets, ["deployment", "web"]);
        let names: Vec<&str> = options.setter.changes.set.iter().map(|v| v["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["C", "A"]);
        assert_eq!(options.setter.changes.remove, ["B"]);
        assert_eq!(options.setter.containers, "app");
        assert!(options.setter.overwrite);
        for (line, expected) in [
            (
                &["deployment", "--all", "-l", "a=b", "A=1"][..],
                "error: cannot set --all and --selector at the same time",
            ),
            (
                &["deployment/web", "A=1", "deployment/db"],
                "error: all resources must be specified before environment changes: deployment/web A=1 deployment/db",
            ),
            (
                &["deployment/web", "A=1", "--local", "--dry-run=server"],
                "error: cannot specify --local and --dry-run=server - did you mean --dry-run=client?",
            ),
            (&["A=1"], "error: one or more resources must be specified as <resource> <name> or <resource>/<name>"),
            (&["deployment/web", "--list", "-o", "yaml"], "error: --list and --output may not be specified together"),
            (
                &["deployment/web", "--keys=a"],
                "error: when specifying --keys, a configmap or secret must be provided with --from",
            ),
            (&["deployment/web", "A=1", "-o", "wide"], "error: unable to match a printer"),
            (&["--list", "-o", "wide"], "error: unable to match a printer"),
            (&["deployment/web", "1A=x"], "error: \"1A\" is not a valid key name: "),
        ] {
            let refused = refusal(checked(line));
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }
}
