//! `kubeupd kustomize DIR`: the objects a kustomization builds, printed as `kubectl kustomize`
//! prints them. The build is [`crate::kustomize`]'s; this verb only prints it.

use std::path::{Path, PathBuf};

use clap::Args;

use super::args::ExtraArgs;
use super::{Error, Result, write_stdout};
use crate::kustomize::{self, Helm, LoadRestrictor, Reorder};
use crate::{gocompat, output, resource};

/// Options of `kubeupd kustomize`: the flags of kustomize's `build`, as kubectl 1.37 embeds it.
#[derive(Debug, Args)]
pub struct KustomizeArgs {
    /// The kustomization's directory.
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Refused: kustomize builds one directory.
    #[command(flatten)]
    pub extra: ExtraArgs,
    /// If specified, write output to this path: a file, or a directory that exists (a file per
    /// object there).
    #[arg(short = 'o', long, value_name = "PATH", default_value = "")]
    pub output: String,
    /// Which files a kustomization may read: only those in or below its own directory, or any.
    #[arg(long, value_name = "RESTRICTOR", default_value = "LoadRestrictionsRootOnly")]
    pub load_restrictor: String,
    /// Enable kustomize plugins (kubeupd runs none: a build that needs one fails).
    #[arg(long)]
    pub enable_alpha_plugins: bool,
    /// Let `helmCharts` be inflated (kubeupd does not run helm: such builds fail, in kustomize's
    /// words when helm is not installed).
    #[arg(long)]
    pub enable_helm: bool,
    /// The helm command (a path to the executable, or a name looked up on the PATH).
    #[arg(long, value_name = "COMMAND", default_value = "helm")]
    pub helm_command: String,
    /// Kubernetes api versions used by Helm for Capabilities.APIVersions.
    #[arg(long, value_name = "VERSIONS")]
    pub helm_api_versions: Vec<String>,
    /// Kubernetes version used by Helm for Capabilities.KubeVersion.
    #[arg(long, value_name = "VERSION", default_value = "")]
    pub helm_kube_version: String,
    /// Enable debug output from the Helm chart inflator generator.
    #[arg(long)]
    pub helm_debug: bool,
    /// Functions: enable network access for functions that declare it (kubeupd runs none).
    #[arg(long)]
    pub network: bool,
    /// Functions: the docker network to run the container in.
    #[arg(long, value_name = "NAME", default_value = "bridge")]
    pub network_name: String,
    /// Functions: a list of storage options read from the filesystem.
    #[arg(long, value_name = "MOUNT")]
    pub mount: Vec<String>,
    /// Functions: a list of environment variables to be used by functions.
    #[arg(short = 'e', long, value_name = "VAR")]
    pub env: Vec<String>,
    /// Functions: use the uid and gid of the command executor to run the function in the container.
    #[arg(long)]
    pub as_current_user: bool,
    /// Deprecated: the order of the output without `sortOptions`: `legacy` (kustomize's default)
    /// or `none`; kustomize tells the flag unset from `legacy`.
    #[arg(long, hide = true, value_name = "ORDER")]
    pub reorder: Option<String>,
    /// Deprecated: label every object `app.kubernetes.io/managed-by: kustomize-v5.8.1`.
    #[arg(long, hide = true)]
    pub enable_managedby_label: bool,
}

/// The build's options, in the library's terms.
struct Options {
    load_restrictor: LoadRestrictor,
    reorder: Reorder,
    managed_by_label: bool,
    /// With --enable-helm: how helm would be run.
    helm: Option<Helm>,
}

impl KustomizeArgs {
    /// The options, checked as kustomize's `build` checks its flags (before any file is read).
    fn options(&self) -> Result<Options> {
        if !self.extra.words.is_empty() {
            return Err(Error::msg("specify one path to kustomization.yaml"));
        }
        let load_restrictor = match self.load_restrictor.as_str() {
            "LoadRestrictionsRootOnly" | "" => LoadRestrictor::RootOnly,
            "LoadRestrictionsNone" => LoadRestrictor::None,
            other => {
                return Err(Error::msg(format!(
                    "illegal flag value --load-restrictor {other}; legal values: [LoadRestrictionsRootOnly LoadRestrictionsNone]"
                )));
            }
        };
        let reorder = match self.reorder.as_deref() {
            None => Reorder::Unspecified,
            Some("legacy") => Reorder::Legacy,
            Some("none") => Reorder::None,
            Some(other) => {
                return Err(Error::msg(format!("illegal flag value --reorder {other}; legal values: [legacy none]")));
            }
        };
        // kustomize reads the environment too (konfig.EnableManagedbyLabelEnv).
        let managed_by_label = self.enable_managedby_label
            || std::env::var("KUSTOMIZE_ENABLE_MANAGEDBY_LABEL").is_ok_and(|value| value == "on");
        let helm = self.enable_helm.then(|| Helm {
            command: self.helm_command.clone(),
            installed: installed(&self.helm_command),
            temporary_home: temporary_home(),
        });
        Ok(Options { load_restrictor, reorder, managed_by_label, helm })
    }
}

/// Runs `kubeupd kustomize`.
pub fn run(args: &KustomizeArgs) -> Result {
    let Options { load_restrictor, reorder, managed_by_label, helm } = args.options()?;
    let options = kustomize::Options {
        load_restrictor,
        environment: &kustomize::process_environment,
        helm: helm.as_ref(),
        reorder,
        managed_by_label,
        alpha_plugins: args.enable_alpha_plugins,
    };
    // kustomize's warnings come first, before the objects or the error, as kubectl prints them.
    let built = match crate::resource::build_kustomization(&args.dir, options) {
        Ok(built) => built,
        Err(resource::Error::Kustomize(failure)) => {
            print_notices(&failure.warnings, &[]);
            return Err(resource::Error::Kustomize(failure).into());
        }
        Err(other) => return Err(other.into()),
    };
    print_notices(&built.warnings, &built.logs);
    let objects: Vec<&serde_json::Value> = built.objects.iter().map(|object| &object.object).collect();
    if !args.output.is_empty() && Path::new(&args.output).is_dir() {
        return write_files(Path::new(&args.output), &objects);
    }
    // Each object written on its own, those of a large build on every core.
    let text = crate::parallel::map(&objects, |_| TYPICAL_YAML_BYTES, |object| output::to_yaml(object)).join("---\n");
    if !args.output.is_empty() {
        return std::fs::write(&args.output, text).map_err(|cause| Error::msg(format!("{}: {cause}", args.output)));
    }
    write_stdout(&text)?;
    Ok(())
}

/// `-o DIR`: each object in a file of its own in `dir`, named as kustomize's writer names it
/// (`group_version_kind_name.yaml`, lower case, the namespace first when the objects have more
/// than one), later files of the same name replacing earlier ones.
fn write_files(dir: &Path, objects: &[&serde_json::Value]) -> Result {
    let text = |object: &serde_json::Value, key: &str| object[key].as_str().unwrap_or_default().to_string();
    let file_name = |object: &serde_json::Value| {
        let api_version = text(object, "apiVersion");
        let (group, version) = api_version.split_once('/').unwrap_or(("", &api_version));
        let kind = text(object, "kind");
        let gvk: Vec<&str> = [group, version, kind.as_str()].into_iter().filter(|part| !part.is_empty()).collect();
        format!("{}_{}.yaml", gvk.join("_"), object["metadata"]["name"].as_str().unwrap_or_default()).to_lowercase()
    };
    let namespace = |object: &serde_json::Value| {
        let kind = text(object, "kind");
        if kustomize::is_cluster_scoped(&text(object, "apiVersion"), &kind) {
            return None;
        }
        Some(object["metadata"]["namespace"].as_str().filter(|ns| !ns.is_empty()).unwrap_or("default").to_string())
    };
    let namespaces: std::collections::BTreeSet<String> =
        objects.iter().filter_map(|object| namespace(object)).collect();
    for object in objects {
        let name = match namespace(object) {
            Some(ns) if namespaces.len() > 1 => format!("{}_{}", ns.to_lowercase(), file_name(object)),
            _ => file_name(object),
        };
        let path = dir.join(name);
        std::fs::write(&path, output::to_yaml(object))
            .map_err(|cause| Error::msg(format!("{}: {cause}", path.display())))?;
    }
    Ok(())
}

/// What one object's YAML usually weighs, for sharing the writing of many among threads.
const TYPICAL_YAML_BYTES: usize = 2048;

/// Whether `command` names an executable file: at its path when it has a `/`, else on the PATH.
fn installed(command: &str) -> bool {
    let executable = |path: &Path| {
        use std::os::unix::fs::PermissionsExt as _;
        path.metadata().is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
    };
    if command.contains('/') {
        return executable(Path::new(command));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|dir| executable(&dir.join(command)))
}

/// The name of the temporary directory kustomize would make for helm (`kustomize-helm-` and a
/// random number, in the temporary directory); kubeupd only names it in kustomize's message.
fn temporary_home() -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().subsec_nanos();
    let random = nanos ^ std::process::id().rotate_left(16);
    std::env::temp_dir().join(format!("kustomize-helm-{random}"))
}

/// kustomize's warnings, then its log lines with klog's header, as kubectl prints them for
/// `kustomize` and every verb's `-k`.
pub(super) fn print_notices(warnings: &[String], logs: &[String]) {
    for warning in warnings {
        eprintln!("{warning}");
    }
    for line in logs {
        eprintln!("{}", gocompat::klog::info_line(line, std::time::SystemTime::now(), std::process::id()));
    }
}
