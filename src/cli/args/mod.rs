//! Flag groups that several verbs share, one file a group, flattened into each verb's options,
//! and the clap wrappers of library types (`--dry-run` modes, `-o` formats). A verb names a
//! group as `args::OutputArgs`.

mod deletion;
mod dry_run;
mod extra;
mod field_manager;
mod local;
mod output;
mod prune;
mod raw;
mod record;
mod replace_immutable;
mod selection;
mod session;
mod subresource;
mod target;
mod validate;

pub use deletion::DeletionArgs;
pub use dry_run::DryRunArg;
pub use extra::ExtraArgs;
pub use field_manager::FieldManagerArg;
pub use local::LocalArg;
pub use output::{OutputArgs, print_error};
pub use prune::PruneArgs;
pub use raw::RawArg;
pub use record::RecordArg;
pub use replace_immutable::ReplaceImmutableArg;
pub use selection::{AllArg, AllNamespacesArg, FieldSelectorArg, LabelSelectorArg, SelectionArgs};
pub use session::{ContainerArg, PodRunningTimeoutArg, StreamArgs};
pub use subresource::SubresourceArg;
pub use target::{FileArgs, TargetArgs};
pub use validate::ValidateArg;

#[cfg(test)]
mod group_tests {
    use clap::Parser;

    use super::*;

    /// A verb with every shared group, read with kubectl's grammar as the real tree is.
    #[derive(Debug, Parser)]
    struct Verb {
        #[command(flatten)]
        selection: SelectionArgs,
        #[command(flatten)]
        subresource: SubresourceArg,
        #[command(flatten)]
        raw: RawArg,
        #[command(flatten)]
        local: LocalArg,
    }

    /// A verb that leaves the selector to the server (`get`, `wait`).
    #[derive(Debug, Parser)]
    struct ServerSelected {
        #[command(flatten)]
        label: LabelSelectorArg<String>,
    }

    fn parse<P: Parser>(line: &[&str]) -> Result<P, clap::Error> {
        let mut command = crate::cli::pflag::with_pflag_grammar(P::command());
        let matches = command.try_get_matches_from_mut(std::iter::once("verb").chain(line.iter().copied()))?;
        P::from_arg_matches(&matches)
    }

    fn verb(line: &[&str]) -> Verb {
        parse(line).unwrap_or_else(|err| panic!("{line:?}: {err}"))
    }

    #[test]
    fn label_selectors_take_kubectls_spellings() {
        for line in [&["-l", "a=b"][..], &["-la=b"], &["-l=a=b"], &["--selector=a=b"], &["--selector", "a=b"]] {
            let selector = verb(line).selection.selector.map(|selector| selector.as_str().to_string());
            assert_eq!(selector.as_deref(), Some("a=b"), "{line:?}");
        }
        // Given twice, the last counts, as in kubectl.
        let last = verb(&["-l", "a=b", "-l", "c=d"]).selection.selector.map(|selector| selector.as_str().to_string());
        assert_eq!(last.as_deref(), Some("c=d"));
        // Checked as the flag is read, or left to the server as given.
        assert!(parse::<Verb>(&["-l", "a b=c"]).is_err());
        let server: ServerSelected = parse(&["-l", "a gt 1"]).unwrap();
        assert_eq!(server.label.selector.as_deref(), Some("a gt 1"));
    }

    #[test]
    fn selection_flags_take_kubectls_spellings() {
        let selection = verb(&["--field-selector=metadata.name=web", "-A"]).selection;
        assert_eq!((selection.field_selector.as_deref(), selection.all_namespaces), (Some("metadata.name=web"), true));
        assert!(selection.by_type() && !selection.all);
        assert!(verb(&["--all-namespaces=true", "--all"]).selection.all_namespaces);
        assert!(!verb(&["-A=false"]).selection.all_namespaces);
        let all = verb(&["--all", "-l", "a=b"]).selection;
        assert_eq!(all.validate().unwrap_err().line(), "error: cannot set --all and --selector at the same time");
        assert!(!verb(&["--all=false"]).selection.all);
    }

    #[test]
    fn subresource_raw_and_local_take_kubectls_spellings() {
        let parsed = verb(&["--subresource", "status", "--raw=/readyz", "--local"]);
        assert_eq!(parsed.subresource.name.as_deref(), Some("status"));
        assert_eq!(parsed.raw.path.as_deref(), Some("/readyz"));
        assert!(parsed.local.local);
        let parsed = verb(&["--subresource=scale", "--raw", "/livez", "--local=false"]);
        assert_eq!((parsed.subresource.name.as_deref(), parsed.raw.path.as_deref()), (Some("scale"), Some("/livez")));
        assert!(!parsed.local.local);
        assert!(parse::<Verb>(&["--raw"]).is_err());
    }
}
