//! `--prune`: which objects it removes, with kubectl's checks of the flags; shared by `apply` and
//! `diff`.

use std::collections::BTreeSet;

use crate::apply::applyset::{ApplySet, Members};
use crate::apply::prune::{AllowedKind, Scope, default_allowlist};
use crate::cli::args::PruneArgs;
use crate::cli::{Error, Result};
use crate::resource::LabelSelector;

/// What `--prune` removes.
pub(in crate::cli) enum Pruning<'a> {
    Off,
    /// The members of the ApplySet whose parent this names.
    ApplySet(&'a str),
    /// kubectl's older prune: objects of the allowlisted kinds matching `selector` (every one
    /// without a selector, with `--all`).
    Selector {
        selector: Option<&'a LabelSelector>,
        allowlist: Vec<AllowedKind>,
    },
}

impl PruneArgs {
    /// What the flags ask to prune; contradictory flags are refused as kubectl refuses them.
    pub(in crate::cli) fn pruning(&self) -> Result<Pruning<'_>> {
        if !self.prune {
            return match (&self.applyset, self.allow.kinds.is_empty()) {
                (Some(_), _) => Err(Error::msg("--applyset requires --prune")),
                (None, false) => Err(Error::msg("--prune-allow requires --prune")),
                (None, true) => Ok(Pruning::Off),
            };
        }
        if let Some(parent) = &self.applyset {
            let refused = [
                (self.selector.selector.is_some(), "--selector"),
                (self.all.all, "--all"),
                (!self.prune_allowlist.is_empty(), "--prune-allowlist"),
            ];
            if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
                return Err(Error::msg(format!("{flag} is incompatible with --applyset")));
            }
            return Ok(Pruning::ApplySet(parent));
        }
        match (self.all.all, &self.selector.selector) {
            (true, Some(_)) => Err(Error::msg("cannot set --all and --selector at the same time")),
            (false, None) => Err(Error::msg(
                "all resources selected for prune without explicitly passing --all. To prune all resources, pass the \
                 --all flag. If you did not mean to prune all resources, specify a label selector",
            )),
            (_, selector) => {
                let allowlist = match self.prune_allowlist.is_empty() {
                    true => default_allowlist(),
                    false => (self.prune_allowlist.iter())
                        .map(|kind| kind.parse::<AllowedKind>().map_err(|err| Error::msg(err.to_string())))
                        .collect::<Result<_>>()?,
                };
                Ok(Pruning::Selector { selector: selector.as_ref(), allowlist })
            }
        }
    }
}

impl Pruning<'_> {
    /// What to look through for objects to prune: the ApplySet `set` (opened for `--applyset`)
    /// with this apply's `members`, or the allowlisted kinds in `namespaces`, those this apply
    /// wrote to. `None` without `--prune`.
    pub(in crate::cli) fn scope<'a>(
        &'a self,
        set: Option<&'a ApplySet>,
        members: Option<&'a Members>,
        namespaces: &'a BTreeSet<String>,
    ) -> Option<Scope<'a>> {
        match (self, set, members) {
            (Pruning::Off, _, _) => None,
            (Pruning::Selector { selector, allowlist }, _, _) => {
                Some(Scope::Selector { selector: selector.map(LabelSelector::as_str), allowlist, namespaces })
            }
            (Pruning::ApplySet(_), Some(set), Some(members)) => Some(Scope::ApplySet { set, members }),
            (Pruning::ApplySet(_), _, _) => unreachable!("an ApplySet is opened for --applyset"),
        }
    }
}

#[cfg(test)]
mod tests {
    fn pruning_error(line: &[&str]) -> Option<String> {
        let cli = crate::cli::parse(["kubeupd", "apply", "-f", "x.yaml"].iter().chain(line)).unwrap();
        let crate::cli::Command::Apply(args) = cli.command else { unreachable!() };
        args.flags.input.prune.pruning().err().map(|err| err.to_string())
    }

    #[test]
    fn contradictory_flags_are_refused_as_kubectl_refuses_them() {
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["--applyset=s"], Some("--applyset requires --prune")),
            (&["--prune-allow=Namespace"], Some("--prune-allow requires --prune")),
            (&["--prune", "--all", "--prune-allow=ns,PersistentVolumeClaim"], None),
            (&["--prune"], Some("all resources selected for prune without explicitly passing --all.")),
            (&["--prune", "--applyset=s", "-l", "a=b"], Some("--selector is incompatible with --applyset")),
            (&["--prune", "--all", "-l", "a=b"], Some("cannot set --all and --selector at the same time")),
            (&["--prune", "--applyset=s"], None),
            (&["--prune", "-l", "a=b"], None),
            (&["--prune", "--all", "--prune-allowlist=core/v1/ConfigMap"], None),
            (&[], None),
        ];
        for (line, expected) in cases {
            let error = pruning_error(line);
            match expected {
                Some(expected) => {
                    assert!(error.as_deref().is_some_and(|e| e.starts_with(expected)), "{line:?}: {error:?}")
                }
                None => assert_eq!(error, None, "{line:?}"),
            }
        }
    }
}
