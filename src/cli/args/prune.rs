//! `--prune` and its flags (what they select is worked out in `cli/apply/pruning.rs`).

use clap::Args;

use super::{AllArg, LabelSelectorArg};
use crate::apply;

/// `--prune` and what says which objects it removes, shared by `apply` and `diff`.
#[derive(Debug, Clone, Default, Args)]
#[command(mut_arg("selector", |arg| arg.help(
    "Only the objects of the files whose labels match (e.g. app=web,tier!=db); with --prune, only matching objects are pruned."
)))]
#[command(mut_arg("all", |arg| arg.help("With --prune and no selector: prune every object of the allowlisted kinds.")))]
pub struct PruneArgs {
    /// Delete the objects an earlier apply made that the files no longer have: the members of
    /// --applyset, or (kubectl's older prune) the objects matching -l, or every one with --all.
    #[arg(long)]
    pub prune: bool,
    /// With --prune: the ApplySet, by its parent: NAME (a Secret), configmaps/NAME, or
    /// KIND.GROUP/NAME for a custom resource whose definition allows it.
    #[arg(long, value_name = "PARENT")]
    pub applyset: Option<String>,
    #[command(flatten)]
    pub selector: LabelSelectorArg,
    #[command(flatten)]
    pub all: AllArg,
    /// With --prune: a kind to prune, as group/version/kind (core/v1/ConfigMap); repeatable.
    #[arg(long = "prune-allowlist", value_name = "GVK")]
    // A stringArray in kubectl, each read when pruning starts.
    pub prune_allowlist: Vec<String>,
    #[command(flatten)]
    pub allow: PruneAllowArg,
}

/// `--prune-allow`: the kinds that hold data, which prune leaves alone unless named here.
#[derive(Debug, Clone, Default, Args)]
pub struct PruneAllowArg {
    /// With --prune: also prune objects of these kinds, which hold data and are otherwise never
    /// pruned: Namespace, CustomResourceDefinition, PersistentVolumeClaim (comma-separated).
    #[arg(long = "prune-allow", value_name = "KIND,...", value_delimiter = ',')]
    pub kinds: Vec<apply::prune::GuardedKind>,
}
