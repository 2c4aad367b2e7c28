//! kustomize, built in: a kustomization directory in, the objects it makes out, as
//! `kubectl kustomize` makes them (kustomize v5.8.1, the version kubectl 1.37 embeds).
//!
//! Pure: files are read through a [`Loader`], patches go through [`crate::merge`] with
//! [`crate::schema`]'s patch metadata, and nothing is printed. The cut follows kustomize's:
//! [`kustomization`] (the document), [`build`] (one target, recursing into bases and components),
//! [`generate`] (ConfigMap and Secret generators and their hash), [`transform`] (the built-in
//! transformers), [`plugins`] (built-in plugin configurations as the fields that configure the
//! same transformers, and [`value_add`], which no field configures), [`replace`] (`replacements`
//! and `vars`), [`names`] (name references),
//! [`order`] (the legacy order), [`field_specs`] (the built-in tables, as data, and the
//! `configurations` merged into them), [`crds`] (tables from OpenAPI definitions), [`origin`]
//! (`buildMetadata`'s annotations) and [`helm`] (helm's fields, checked, never run).

mod build;
mod crds;
mod empty_nulls;
mod field_specs;
mod generate;
mod helm;
mod kustomization;
mod loader;
mod names;
mod order;
mod origin;
mod pattern;
mod plugins;
pub mod remote;
mod replace;
mod transform;
mod value_add;

use std::path::Path;

use serde_json::Value;

pub use generate::content_hash;
pub use helm::Helm;
pub use loader::{DiskLoader, Entry, GitLoader, LoadRestrictor, Loader, MemoryLoader};

/// Why a kustomization could not be built. The message names the file or directory.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub String);

/// A build that failed, with the warnings kustomize gave before it failed (kubectl prints them
/// before the error).
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct Failure {
    pub error: Error,
    pub warnings: Vec<String>,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure { error, warnings: Vec::new() }
    }
}

/// How to build.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// Which files a kustomization may read.
    pub load_restrictor: LoadRestrictor,
    /// The value of an environment variable (for env files' bare keys); empty when unset.
    pub environment: &'a dyn Fn(&str) -> String,
    /// `--enable-helm`: `None` when not given.
    pub helm: Option<&'a Helm>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options { load_restrictor: LoadRestrictor::default(), environment: &|_| String::new(), helm: None }
    }
}

/// What a build makes.
#[derive(Debug, Clone, Default)]
pub struct Built {
    /// The objects, in kustomize's output order.
    pub objects: Vec<Value>,
    /// kustomize's warnings (deprecated fields), one line each, for stderr.
    pub warnings: Vec<String>,
    /// kustomize's log lines (Go's `log.Printf`, which kubectl routes through klog), after the
    /// warnings.
    pub logs: Vec<String>,
}

/// What the kustomization in `dir` makes.
pub fn build(loader: &dyn Loader, dir: &Path, options: Options<'_>) -> Result<Built, Failure> {
    build::build(loader, dir, options)
}
