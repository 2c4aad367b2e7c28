//! kustomize, built in: a kustomization directory in, the objects it makes out, as
//! `kubectl kustomize` makes them (kustomize v5.8.1, the version kubectl 1.37 embeds).
//!
//! Pure: files are read through a [`Loader`], patches go through [`crate::merge`] with
//! [`crate::schema`]'s patch metadata, and nothing is printed. The cut follows kustomize's, from
//! the bottom up: [`resource`] (the model: a resource, its ids, the ordered list a build
//! accumulates) and [`error`]; [`types`] (the configuration: the kustomization document, built-in
//! plugin configurations, the field-spec tables); the transformations over resources:
//! [`generate`] (ConfigMap and Secret generators and their hash), [`transform`] (the built-in
//! transformers), [`value_add`] (the one plugin no field configures), [`replace`]
//! (`replacements` and `vars`), [`names`] (name references), [`order`] (the legacy order),
//! [`crds`] (tables from OpenAPI definitions), [`origin`] (`buildMetadata`'s annotations) and
//! [`helm`] (helm's fields, checked, never run); and on top [`build`] (one target, recursing
//! into bases and components; [`fetch`] gets files named by URL), which uses them all and which none of them uses.

mod build;
mod crds;
mod empty_nulls;
mod error;
mod fetch;
mod generate;
mod helm;
mod kyaml_merge;
mod loader;
mod names;
mod node;
mod order;
mod origin;

pub use origin::kustomize_version;
mod pattern;
pub mod remote;
mod replace;
mod resource;
mod transform;
mod types;
mod value_add;

pub use build::{Built, Options, Reorder, build, process_environment};
pub use error::{Error, Failure};
pub use generate::content_hash;
pub use helm::Helm;
pub use loader::{DiskLoader, Entry, GitLoader, LoadRestrictor, Loader, MemoryLoader};
pub use resource::is_cluster_scoped;
