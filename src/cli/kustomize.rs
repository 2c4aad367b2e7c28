//! `kubeupd kustomize DIR`: the objects a kustomization builds, printed as `kubectl kustomize`
//! prints them. The build is [`crate::kustomize`]'s; this verb only prints it.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::args::ExtraArgs;
use super::{Error, Result, write_stdout};
use crate::kustomize::{Helm, LoadRestrictor};
use crate::{gocompat, output, resource};

/// Options of `kubeupd kustomize`.
#[derive(Debug, Args)]
pub struct KustomizeArgs {
    /// The kustomization's directory.
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Refused: kustomize builds one directory.
    #[command(flatten)]
    pub extra: ExtraArgs,
    /// Which files a kustomization may read: only those in or below its own directory, or any.
    #[arg(long, value_enum, value_name = "RESTRICTOR", default_value_t = LoadRestrictorArg::LoadRestrictionsRootOnly)]
    pub load_restrictor: LoadRestrictorArg,
    /// Let `helmCharts` be inflated (kubeupd does not run helm: such builds fail, in kustomize's
    /// words when helm is not installed).
    #[arg(long)]
    pub enable_helm: bool,
    /// The helm command (a path to the executable, or a name looked up on the PATH).
    #[arg(long, value_name = "COMMAND", default_value = "helm")]
    pub helm_command: String,
}

/// The values of `--load-restrictor`, in kustomize's spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "verbatim")]
pub enum LoadRestrictorArg {
    LoadRestrictionsRootOnly,
    LoadRestrictionsNone,
}

/// The build's options, in the library's terms.
struct Options {
    load_restrictor: LoadRestrictor,
    /// With --enable-helm: how helm would be run.
    helm: Option<Helm>,
}

impl KustomizeArgs {
    fn options(&self) -> Options {
        let load_restrictor = match self.load_restrictor {
            LoadRestrictorArg::LoadRestrictionsRootOnly => LoadRestrictor::RootOnly,
            LoadRestrictorArg::LoadRestrictionsNone => LoadRestrictor::None,
        };
        let helm = self.enable_helm.then(|| Helm {
            command: self.helm_command.clone(),
            installed: installed(&self.helm_command),
            temporary_home: temporary_home(),
        });
        Options { load_restrictor, helm }
    }
}

/// Runs `kubeupd kustomize`.
pub fn run(args: &KustomizeArgs) -> Result {
    if !args.extra.words.is_empty() {
        return Err(Error::msg("specify one path to kustomization.yaml"));
    }
    let Options { load_restrictor, helm } = args.options();
    // kustomize's warnings come first, before the objects or the error, as kubectl prints them.
    let built = match crate::resource::build_kustomization(&args.dir, load_restrictor, helm.as_ref()) {
        Ok(built) => built,
        Err(resource::Error::Kustomize(failure)) => {
            print_notices(&failure.warnings, &[]);
            return Err(resource::Error::Kustomize(failure).into());
        }
        Err(other) => return Err(other.into()),
    };
    print_notices(&built.warnings, &built.logs);
    // Each object written on its own, those of a large build on every core.
    let text = crate::parallel::map(&built.objects, |_| TYPICAL_YAML_BYTES, |object| output::to_yaml(&object.object));
    write_stdout(&text.join("---\n"))?;
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
