//! The tests that need a real kube-apiserver (`KUBEUPD_TEST_KUBECONFIG`, started by
//! `scripts/test.sh`) or kubectl run live against one: one module per verb or subject, each
//! comparing kubeupd with kubectl on twin objects. Built only with `--features cluster-tests`;
//! select a module with its name, e.g. `cargo test --features cluster-tests --test cluster apply::`.

#[path = "../support/mod.rs"]
mod support;

mod apply;
mod bad_input;
mod checks;
mod client;
mod command_line;
mod config;
mod conflicts;
mod connection;
mod crd_heavy;
mod create;
mod create_generators;
mod delete;
mod deploys;
mod describe;
mod discovery_verbs;
mod edit;
mod faults;
mod fleet;
mod force;
mod get;
mod handed_over;
mod ignore;
mod kuberc;
mod kustomize_apply;
mod kustomize_remote;
mod label;
mod logs;
mod openapi;
mod patch;
mod plan;
mod printers;
mod prune;
mod reliability;
mod replace;
mod replace_immutable;
mod rollout;
mod rollout_failures;
mod run;
mod scale;
mod security;
mod server_side;
mod set;
mod streaming;
mod update;
mod urls;
mod validate;
mod validation_table;
mod version;
mod wait;
mod warnings;
mod yaml11;
