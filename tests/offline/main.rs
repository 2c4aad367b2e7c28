//! The tests that need no cluster and no kubectl, run by a plain `cargo test`: the merge engine's
//! properties and upstream conformance cases, the command line, and kubeupd against kubectl's
//! outputs recorded in `testdata/golden` (`kustomize`, `patch --local`, usage errors, `--help`,
//! the command tree with its flags).

#[path = "../support/golden.rs"]
mod golden;

mod cli;
mod fuzz_regressions;
mod kubectl_differential;
mod kubectl_flags;
mod kustomize;
mod merge_properties;
mod strategic_conformance;
mod yaml11;
