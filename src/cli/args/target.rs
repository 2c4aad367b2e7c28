//! `TYPE NAME...` and `-f`/`-R`/`-k`: the objects a verb works on.

use std::path::PathBuf;

use clap::Args;

use crate::cli::Error;
use crate::resource::{self, Named, Rules};

/// The objects a verb works on: `TYPE NAME...`, `TYPE/NAME...`, or the objects in `-f` files.
#[derive(Debug, Clone, Default, Args)]
pub struct TargetArgs {
    /// TYPE NAME..., TYPE/NAME..., or TYPE1,TYPE2 NAME...
    #[arg(value_name = "TYPE[/NAME]")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub files: FileArgs,
}

impl TargetArgs {
    /// What the arguments name, as `rules` allow; files are read here.
    pub fn named(&self, rules: Rules) -> Result<Vec<Named>, Error> {
        self.files.check()?;
        Ok(resource::parse(&self.targets, &self.files.files(), rules)?)
    }

    /// kubectl's refusal when neither arguments nor files name anything, for the verbs that say
    /// it before their other checks.
    pub fn require_some(&self) -> Result<(), Error> {
        match self.targets.is_empty() && !self.files.given() {
            true => Err(Error::msg(resource::NOTHING_NAMED)),
            false => Ok(()),
        }
    }
}

/// `-f` and `-R`: files, directories or `-` (stdin) holding objects; or `-k`: a kustomization
/// directory whose built objects are used.
#[derive(Debug, Clone, Default, Args)]
pub struct FileArgs {
    /// Files, directories or `-` (stdin) holding the objects; repeated, or separated by commas
    /// (`-f a.yaml,b.yaml`, as kubectl's list flags take them).
    #[arg(short = 'f', long = "filename", value_name = "PATH", value_delimiter = ',')]
    pub filenames: Vec<PathBuf>,
    /// Read directories recursively.
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// Use the objects the kustomization in DIR builds (as `kubeupd kustomize DIR` prints them).
    #[arg(short = 'k', long = "kustomize", value_name = "DIR")]
    pub kustomize: Option<PathBuf>,
}

impl FileArgs {
    /// Where the objects are, for `resource`.
    pub fn files(&self) -> resource::Files<'_> {
        match &self.kustomize {
            Some(dir) => resource::Files::Kustomization {
                dir,
                load_restrictor: Default::default(),
                notices: crate::cli::kustomize::print_notices,
            },
            None => resource::Files::Paths { paths: &self.filenames, recursive: self.recursive },
        }
    }

    /// Whether `-f` or `-k` was given.
    pub fn given(&self) -> bool {
        !self.filenames.is_empty() || self.kustomize.is_some()
    }

    /// kubectl's checks of `-f`, `-R` and `-k` together.
    pub fn check(&self) -> Result<(), Error> {
        match (&self.kustomize, self.filenames.is_empty()) {
            (Some(_), false) => Err(Error::msg("only one of -f or -k can be specified")),
            (Some(_), true) if self.recursive => Err(Error::msg("the -k flag can't be used with -f or -R")),
            _ => Ok(()),
        }
    }

    /// kubectl's check that a verb which reads its objects from files was given some.
    pub fn require(&self) -> Result<(), Error> {
        self.check()?;
        if !self.given() {
            return Err(Error::msg("must specify one of -f and -k"));
        }
        Ok(())
    }
}
