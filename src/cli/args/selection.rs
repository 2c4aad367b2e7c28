//! `-l`, `--field-selector`, `--all` and `-A`, alone or together as [`SelectionArgs`].

use std::str::FromStr;

use clap::{ArgMatches, Args, FromArgMatches};

use crate::cli::Error;
use crate::resource;

/// What `-l` reads into: the library's selector, or its text (see [`LabelSelectorArg`]).
pub trait SelectorValue:
    FromStr<Err: std::error::Error + Send + Sync + 'static> + Clone + Send + Sync + 'static
{
}

impl<T: FromStr<Err: std::error::Error + Send + Sync + 'static> + Clone + Send + Sync + 'static> SelectorValue for T {}

/// `-l`, `--selector`: the objects of the named types whose labels match.
///
/// The selector is the library's [`resource::LabelSelector`], checked as the flag is read; `get`,
/// `wait` and `apply view-last-applied` take it as a `String` and leave it to the server, as
/// kubectl does (the server's words for a bad one, and the `gt`/`lt` operators).
#[derive(Debug, Clone, Args)]
pub struct LabelSelectorArg<Selector: SelectorValue = resource::LabelSelector> {
    /// Selector (label query) to filter on, e.g. `app=web,tier!=db`.
    // Given twice, the last one counts, as pflag keeps the last value of a flag.
    #[arg(short = 'l', long, value_name = "SELECTOR", overrides_with = "selector")]
    pub selector: Option<Selector>,
}

/// No selector (derived, it would ask `Selector: Default`).
impl<Selector: SelectorValue> Default for LabelSelectorArg<Selector> {
    fn default() -> Self {
        LabelSelectorArg { selector: None }
    }
}

/// `--field-selector`.
#[derive(Debug, Clone, Default, Args)]
pub struct FieldSelectorArg {
    /// Selector (field query) to filter on, e.g. `metadata.name=web`; the server supports few fields per type.
    #[arg(id = "field_selector", long = "field-selector", value_name = "SELECTOR")]
    pub selector: Option<String>,
}

/// `--all`.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct AllArg {
    /// Select all objects of the named types in the namespace.
    #[arg(long)]
    pub all: bool,
}

/// `-A`, `--all-namespaces`.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct AllNamespacesArg {
    /// The objects of every namespace, not only the current one.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
}

/// `-l`, `--field-selector`, `--all` and `-A` together: choose objects of the named types by what
/// they are, not by name; shared by the verbs that change objects in bulk (`label`, `annotate`,
/// `scale`, `delete`, `set`, `wait`).
///
/// Its flags are the groups' above, declared there once; its fields are flat for the verbs that
/// read them, so `Args` is written out here rather than derived.
#[derive(Debug, Clone)]
pub struct SelectionArgs<Selector = resource::LabelSelector> {
    pub selector: Option<Selector>,
    pub field_selector: Option<String>,
    pub all: bool,
    pub all_namespaces: bool,
}

/// Nothing selected (derived, it would ask `Selector: Default`).
impl<Selector> Default for SelectionArgs<Selector> {
    fn default() -> Self {
        SelectionArgs { selector: None, field_selector: None, all: false, all_namespaces: false }
    }
}

impl<Selector: SelectorValue> FromArgMatches for SelectionArgs<Selector> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(SelectionArgs {
            selector: LabelSelectorArg::<Selector>::from_arg_matches(matches)?.selector,
            field_selector: FieldSelectorArg::from_arg_matches(matches)?.selector,
            all: AllArg::from_arg_matches(matches)?.all,
            all_namespaces: AllNamespacesArg::from_arg_matches(matches)?.all_namespaces,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<Selector: SelectorValue> Args for SelectionArgs<Selector> {
    fn augment_args(command: clap::Command) -> clap::Command {
        let command = LabelSelectorArg::<Selector>::augment_args(command);
        let command = FieldSelectorArg::augment_args(command);
        let command = AllArg::augment_args(command);
        AllNamespacesArg::augment_args(command)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl<Selector> SelectionArgs<Selector> {
    /// Whether the types are given alone, their objects chosen by selector or `--all`.
    pub fn by_type(&self) -> bool {
        self.all || self.selector.is_some() || self.field_selector.is_some()
    }

    /// kubectl's checks of flags that exclude each other.
    pub fn validate(&self) -> Result<(), Error> {
        match (self.all, &self.selector, &self.field_selector) {
            (true, Some(_), _) => Err(Error::msg("cannot set --all and --selector at the same time")),
            (true, _, Some(_)) => Err(Error::msg("cannot set --all and --field-selector at the same time")),
            _ => Ok(()),
        }
    }
}
