//! `kubeupd kustomize DIR`: the objects a kustomization builds, printed as `kubectl kustomize`
//! prints them. The build is [`crate::kustomize`]'s; this verb only prints it.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{Result, write_stdout};
use crate::kustomize::LoadRestrictor;
use crate::output;

/// Options of `kubeupd kustomize`.
#[derive(Debug, Args)]
pub struct KustomizeArgs {
    /// The kustomization's directory.
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Which files a kustomization may read: only those in or below its own directory, or any.
    #[arg(long, value_enum, value_name = "RESTRICTOR", default_value_t = LoadRestrictorArg::LoadRestrictionsRootOnly)]
    pub load_restrictor: LoadRestrictorArg,
}

/// The values of `--load-restrictor`, in kustomize's spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "verbatim")]
pub enum LoadRestrictorArg {
    LoadRestrictionsRootOnly,
    LoadRestrictionsNone,
}

/// Runs `kubeupd kustomize`.
pub fn run(args: &KustomizeArgs) -> Result {
    let load_restrictor = match args.load_restrictor {
        LoadRestrictorArg::LoadRestrictionsRootOnly => LoadRestrictor::RootOnly,
        LoadRestrictorArg::LoadRestrictionsNone => LoadRestrictor::None,
    };
    let built = crate::resource::build_kustomization(&args.dir, load_restrictor)?;
    for warning in &built.warnings {
        eprintln!("{warning}");
    }
    let text: Vec<String> = built.objects.iter().map(|object| output::to_yaml(&object.object)).collect();
    write_stdout(&text.join("---\n"))?;
    Ok(())
}
