//! The configuration a build reads (kustomize's `api/types`): the kustomization document and
//! its parts, the configurations of built-in plugins, and the field-spec tables that say which
//! fields each transformer changes. Plain data with the checks kustomize makes on reading it.

pub mod field_specs;
pub mod go_types;
pub mod helm;
pub mod kustomization;
pub mod plugins;
pub mod replacement;
pub mod var;
