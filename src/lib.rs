//! kubeupd: a kubectl-style client that updates Kubernetes objects correctly.
//!
//! Data flows one way: [`cli`] parses and validates options, [`client`] talks to the API server,
//! and [`merge`] computes patches without any I/O, guided by [`schema`] patch metadata.

pub mod cli;
pub mod client;
pub mod manifest;
pub mod merge;
pub mod output;
pub mod schema;
