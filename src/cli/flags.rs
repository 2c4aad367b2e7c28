//! Flag groups that several verbs share, flattened into each verb's options, and the clap
//! wrappers of library types (`--dry-run` modes, `-o` formats).

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::OnceLock;

use clap::{ArgMatches, Args, FromArgMatches, ValueEnum};
use serde_json::Value;

use super::Error;
use crate::apply;
use crate::client::{DeleteParams, FieldValidation, Propagation};
use crate::output::{self, Printer, Verb};
use crate::resource::{self, Named, Rules};

/// The objects a verb works on: `TYPE NAME...`, `TYPE/NAME...`, or the objects in `-f` files.
#[derive(Debug, Clone, Default, Args)]
pub struct TargetArgs {
    /// TYPE NAME..., TYPE/NAME..., or TYPE1,TYPE2 NAME...
    #[arg(value_name = "TYPE[/NAME]")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub files: FileArgs,
}

impl TargetArgs {
    /// What the arguments name, as `rules` allow; files are read here.
    pub fn named(&self, rules: Rules) -> Result<Vec<Named>, Error> {
        self.files.check()?;
        Ok(resource::parse(&self.targets, &self.files.files(), rules)?)
    }

    /// kubectl's refusal when neither arguments nor files name anything, for the verbs that say
    /// it before their other checks.
    pub fn require_some(&self) -> Result<(), Error> {
        match self.targets.is_empty() && !self.files.given() {
            true => Err(Error::msg(resource::NOTHING_NAMED)),
            false => Ok(()),
        }
    }
}

/// `-f` and `-R`: files, directories or `-` (stdin) holding objects; or `-k`: a kustomization
/// directory whose built objects are used.
#[derive(Debug, Clone, Default, Args)]
pub struct FileArgs {
    /// Files, directories or `-` (stdin) holding the objects; repeated, or separated by commas
    /// (`-f a.yaml,b.yaml`, as kubectl's list flags take them).
    #[arg(short = 'f', long = "filename", value_name = "PATH", value_delimiter = ',')]
    pub filenames: Vec<PathBuf>,
    /// Read directories recursively.
    #[arg(short = 'R', long)]
    pub recursive: bool,
    /// Use the objects the kustomization in DIR builds (as `kubeupd kustomize DIR` prints them).
    #[arg(short = 'k', long = "kustomize", value_name = "DIR")]
    pub kustomize: Option<PathBuf>,
}

impl FileArgs {
    /// Where the objects are, for `resource`.
    pub fn files(&self) -> resource::Files<'_> {
        match &self.kustomize {
            Some(dir) => resource::Files::Kustomization {
                dir,
                load_restrictor: Default::default(),
                notices: super::kustomize::print_notices,
            },
            None => resource::Files::Paths { paths: &self.filenames, recursive: self.recursive },
        }
    }

    /// Whether `-f` or `-k` was given.
    pub fn given(&self) -> bool {
        !self.filenames.is_empty() || self.kustomize.is_some()
    }

    /// kubectl's checks of `-f`, `-R` and `-k` together.
    pub fn check(&self) -> Result<(), Error> {
        match (&self.kustomize, self.filenames.is_empty()) {
            (Some(_), false) => Err(Error::msg("only one of -f or -k can be specified")),
            (Some(_), true) if self.recursive => Err(Error::msg("the -k flag can't be used with -f or -R")),
            _ => Ok(()),
        }
    }

    /// kubectl's check that a verb which reads its objects from files was given some.
    pub fn require(&self) -> Result<(), Error> {
        self.check()?;
        if !self.given() {
            return Err(Error::msg("must specify one of -f and -k"));
        }
        Ok(())
    }
}

/// `--cascade` and `--grace-period`: how `--force` deletes an object before creating it again.
#[derive(Debug, Clone, Args)]
pub struct DeletionArgs {
    /// What happens to the objects the deleted one owns: background, foreground or orphan.
    #[arg(long, value_name = "MODE", default_value = "background", num_args = 0..=1, require_equals = true,
          default_missing_value = "background")]
    pub cascade: String,
    /// Seconds the object gets to terminate gracefully; negative for its own default.
    #[arg(long, value_name = "SECONDS", default_value_t = -1, allow_hyphen_values = true, value_parser = super::pflag::int)]
    pub grace_period: i64,
}

impl DeletionArgs {
    /// The delete's options, with kubectl's deprecation warning for the boolean spellings of
    /// `--cascade`.
    pub fn options(&self) -> Result<(DeleteParams, Option<String>), Error> {
        let (propagation, warning) = match self.cascade.as_str() {
            "background" => (Propagation::Background, None),
            "foreground" => (Propagation::Foreground, None),
            "orphan" => (Propagation::Orphan, None),
            "true" => (Propagation::Background, Some("background")),
            "false" => (Propagation::Orphan, Some("orphan")),
            other => {
                return Err(Error::msg(format!(
                    "invalid cascade value ({other}). Must be \"background\", \"foreground\", or \"orphan\""
                )));
            }
        };
        let warning = warning.map(|mode| {
            format!(
                "warning: --cascade={} is deprecated (boolean value) and can be replaced with --cascade={mode}.",
                self.cascade
            )
        });
        let grace_period = (self.grace_period >= 0).then_some(self.grace_period);
        Ok((DeleteParams { grace_period, propagation: Some(propagation), dry_run: false }, warning))
    }
}

/// `--dry-run`, with kubectl's spelling: the mode only after `=`, a bare flag meaning `client`.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct DryRunArg {
    /// `client` computes the result and sends nothing; `server` has the server check the write
    /// without persisting it.
    #[arg(long = "dry-run", value_enum, value_name = "MODE", default_value_t = DryRunMode::None, num_args = 0..=1,
          require_equals = true, default_missing_value = "client")]
    pub mode: DryRunMode,
}

/// The values of `--dry-run`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum DryRunMode {
    #[default]
    None,
    Client,
    Server,
}

impl DryRunArg {
    /// The engine's mode.
    pub fn mode(self) -> apply::DryRun {
        match self.mode {
            DryRunMode::None => apply::DryRun::None,
            DryRunMode::Client => apply::DryRun::Client,
            DryRunMode::Server => apply::DryRun::Server,
        }
    }

    /// kubectl's suffix for messages: ` (dry run)`, ` (server dry run)`.
    pub fn suffix(self) -> &'static str {
        match self.mode {
            DryRunMode::None => "",
            DryRunMode::Client => " (dry run)",
            DryRunMode::Server => " (server dry run)",
        }
    }
}

/// `--validate`: check objects against their kind's schema before they are sent, as kubectl does.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ValidateArg {
    /// `strict` (or `true`): refuse unknown fields and values of the wrong type; `warn`: show them
    /// and go on; `ignore` (or `false`): send objects unchecked.
    #[arg(long = "validate", value_name = "MODE", default_value = "strict", num_args = 0..=1,
          require_equals = true, default_missing_value = "strict", value_parser = parse_validation)]
    pub directive: FieldValidation,
}

fn parse_validation(text: &str) -> Result<FieldValidation, String> {
    match text {
        "strict" | "true" => Ok(FieldValidation::Strict),
        "warn" => Ok(FieldValidation::Warn),
        "ignore" | "false" => Ok(FieldValidation::Ignore),
        other => Err(format!("invalid value {other:?}: use strict, warn or ignore (or true, false)")),
    }
}

/// `--field-manager`.
#[derive(Debug, Clone, Default, Args)]
pub struct FieldManagerArg {
    /// The manager recorded for the fields this write sets (default: kubectl's for the verb).
    #[arg(long = "field-manager", value_name = "NAME")]
    pub name: Option<String>,
}

impl FieldManagerArg {
    /// The manager given, else `default`.
    pub fn or(&self, default: &str) -> String {
        self.name.clone().unwrap_or_else(|| default.to_string())
    }
}

/// `-o`, its templates, and `--show-managed-fields`.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Output format: json, yaml, name, jsonpath=TEMPLATE, jsonpath-file=PATH, jsonpath-as-json=TEMPLATE;
    /// for get also wide, custom-columns=HEADER:PATH,... and custom-columns-file=PATH.
    #[arg(short = 'o', long, value_name = "FORMAT")]
    pub output: Option<String>,
    /// The template (or template file) of -o jsonpath or jsonpath-file when not given after `=`.
    #[arg(long, value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// With a template: a field that is missing prints nothing instead of failing.
    #[arg(long, value_name = "BOOL", default_value_t = true)]
    pub allow_missing_template_keys: bool,
    /// Keep `metadata.managedFields` in JSON and YAML output.
    #[arg(long)]
    pub show_managed_fields: bool,
    /// The printer, made from the flags the first time it is asked for.
    #[arg(skip)]
    printer: OnceLock<Result<Option<Printer>, String>>,
}

impl Default for OutputArgs {
    fn default() -> Self {
        OutputArgs {
            output: None,
            template: None,
            allow_missing_template_keys: true,
            show_managed_fields: false,
            printer: OnceLock::new(),
        }
    }
}

impl OutputArgs {
    /// The printer `-o` asks for (`None`: the verb's own lines, or get's table), as `verb` accepts
    /// it; the flags are read once, template files included.
    pub fn printer(&self, verb: Verb) -> Result<Option<&Printer>, Error> {
        let made = self.printer.get_or_init(|| self.make_printer(verb));
        made.as_ref().map(Option::as_ref).map_err(|err| Error::msg(err.clone()))
    }

    fn make_printer(&self, verb: Verb) -> Result<Option<Printer>, String> {
        // kubectl prints with a Go template when only --template is given.
        let template_alone = self.template.as_deref().filter(|template| !template.is_empty()).map(|_| "go-template");
        let Some(output) = self.output.as_deref().or(template_alone) else { return Ok(None) };
        let (format, inline) = match output.split_once('=') {
            Some((format, template)) => (format, Some(template)),
            None => (output, None),
        };
        let template = inline.or(self.template.as_deref());
        let from_file;
        let template = match (format.ends_with("-file") || format == "templatefile", template) {
            (true, Some(path)) if !path.is_empty() => {
                from_file = std::fs::read_to_string(path).map_err(|err| {
                    let reason = match err.kind() {
                        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
                        _ => err.to_string(),
                    };
                    format!("error reading --template {path}, open {path}: {reason}")
                })?;
                Some(from_file.as_str())
            }
            (_, template) => template,
        };
        let printer = Printer::new(format, template, self.allow_missing_template_keys, verb).map_err(|err| match err {
            output::PrinterError::Unknown { verb, .. } => output::PrinterError::Unknown { format: output.into(), verb },
            err => err,
        });
        printer.map(Some).map_err(|err| err.to_string())
    }

    /// `object` as `printer` prints it, without `metadata.managedFields` unless asked for.
    pub fn render(&self, printer: &Printer, object: &Value) -> Result<String, Error> {
        self.render_with(printer, object, Printer::render)
    }

    /// An object kubectl prints from a Go struct (what its generators make, before or after the
    /// server has it): as [`OutputArgs::render`], JSON in the struct's order of keys.
    pub fn render_typed(&self, printer: &Printer, object: &Value) -> Result<String, Error> {
        self.render_with(printer, object, Printer::render_typed)
    }

    fn render_with(
        &self,
        printer: &Printer,
        object: &Value,
        render: fn(&Printer, &Value) -> Result<String, output::PrintError>,
    ) -> Result<String, Error> {
        let shown_whole = self.show_managed_fields || !printer.hides_managed_fields();
        let printed = if shown_whole || object.pointer("/metadata/managedFields").is_none() {
            render(printer, object)
        } else {
            let mut shown = object.clone();
            output::strip_managed_fields(&mut shown);
            render(printer, &shown)
        };
        printed.map_err(print_error)
    }

    /// What a writing verb prints for one object: the object with `-o`, else kubectl's line
    /// `deployment.apps/web patched`, with ` (no change)` when the write changed nothing.
    pub fn written(&self, object: &Value, operation: &str, changed: bool, suffix: &str) -> Result<String, Error> {
        match self.printer(Verb::Write)? {
            Some(printer) => self.render(printer, object),
            None => {
                let unchanged = if changed { "" } else { " (no change)" };
                Ok(format!("{} {operation}{unchanged}{suffix}\n", output::object_name(object)))
            }
        }
    }
}

/// A printer's failure as the cli reports it.
pub fn print_error(err: output::PrintError) -> Error {
    match err {
        output::PrintError::Template(err) => Error::msg(err.to_string()),
        output::PrintError::Io(err) => Error::Other(err.into()),
        output::PrintError::Partial { printed, error } => match super::write_stdout(&printed) {
            Ok(()) => Error::msg(error.to_string()),
            Err(err) => err,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_objects_print_like_kubectl() {
        let deployment =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "managedFields": []}});
        let lines = OutputArgs::default();
        let server = DryRunArg { mode: DryRunMode::Server };
        let written = |args: &OutputArgs, operation, changed, suffix| {
            args.written(&deployment, operation, changed, suffix).unwrap()
        };
        assert_eq!(written(&lines, "patched", true, ""), "deployment.apps/web patched\n");
        assert_eq!(written(&lines, "patched", false, ""), "deployment.apps/web patched (no change)\n");
        assert_eq!(written(&lines, "updated", true, server.suffix()), "deployment.apps/web updated (server dry run)\n");
        let with = |format: &str| OutputArgs { output: Some(format.into()), ..OutputArgs::default() };
        assert_eq!(written(&with("name"), "patched", true, ""), "deployment.apps/web\n");
        assert_eq!(
            written(&with("yaml"), "patched", true, ""),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
        );
        assert_eq!(written(&with("jsonpath={.kind}"), "patched", true, ""), "Deployment");
        let managed = OutputArgs { show_managed_fields: true, ..with("yaml") };
        assert!(written(&managed, "patched", true, "").contains("managedFields: []"));
        let wide = with("wide").written(&deployment, "patched", true, "").unwrap_err().line();
        assert!(wide.starts_with("error: unable to match a printer suitable for the output format \"wide\""), "{wide}");
    }
}

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

/// `--replace-immutable`: delete and create again the objects whose change touches a field that
/// cannot change, instead of refusing them.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ReplaceImmutableArg {
    /// Replace (delete, wait until gone, create again) each object whose configuration changes a
    /// field the server does not let change, such as a Job's pod template; without it such an
    /// object is refused before any write, unless it opts in itself (kapp's
    /// kapp.k14s.io/update-strategy: fallback-on-replace, Argo CD's
    /// argocd.argoproj.io/sync-options: Replace=true or Force=true, Flux's
    /// kustomize.toolkit.fluxcd.io/force: enabled).
    #[arg(long = "replace-immutable")]
    pub replace_immutable: bool,
}

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

/// `--subresource`: a verb's read or write goes to this subresource of each object.
#[derive(Debug, Clone, Default, Args)]
pub struct SubresourceArg {
    /// Work on this subresource of each object (e.g. status, scale) instead of the object.
    #[arg(id = "subresource", long = "subresource", value_name = "NAME")]
    pub name: Option<String>,
}

/// `--raw`: a request to a path of the server, its answer printed as it is.
#[derive(Debug, Clone, Default, Args)]
pub struct RawArg {
    /// Send the request to this path of the server (e.g. /api/v1/namespaces/default/configmaps/x)
    /// and print the answer as it is.
    #[arg(id = "raw", long = "raw", value_name = "PATH")]
    pub path: Option<String>,
}

/// `--local`: change the objects of the `-f` files, not the server's.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct LocalArg {
    /// Change the objects of the -f files and print them, without contacting the server.
    #[arg(long)]
    pub local: bool,
}

/// Words after a verb that names no objects by them: cobra gives every verb any words, and each
/// of kubectl's verbs then refuses them ([`ExtraArgs::refuse`]) or leaves them unread.
#[derive(Debug, Clone, Default, Args)]
pub struct ExtraArgs {
    /// Not read (kubectl's scripts may pass them).
    #[arg(value_name = "ARGS", hide = true)]
    pub words: Vec<String>,
}

impl ExtraArgs {
    /// kubectl's usage error when words were given to the verb `path` (`apply`, `create`, `diff`).
    pub fn refuse(&self, path: &str) -> Result<(), Error> {
        match self.words.is_empty() {
            true => Ok(()),
            false => Err(Error::msg(format!(
                "Unexpected args: [{}]\nSee 'kubeupd {path} -h' for help and examples",
                self.words.join(" ")
            ))),
        }
    }
}

/// `--record` (deprecated and hidden, as in kubectl): write the command line into the changed
/// object's `kubernetes.io/change-cause` annotation, which `rollout history` shows.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct RecordArg {
    /// Deprecated: record the command line in the object's kubernetes.io/change-cause annotation.
    #[arg(long = "record", hide = true)]
    pub record: bool,
}

impl RecordArg {
    /// The change cause to write, when asked: the command line as `global` holds it.
    pub fn cause(self, global: &super::GlobalArgs) -> Option<&str> {
        self.record.then_some(global.change_cause.as_str())
    }
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
        let mut command = super::super::pflag::with_pflag_grammar(P::command());
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

/// A boolean flag whose absence is told from `false` (pflag's tristate, or a flag a command asks
/// `Changed()` of): declare it `Option<Tristate>` with `num_args = 0..=1, require_equals = true,
/// default_missing_value = "true", value_parser = tristate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tristate(pub bool);

/// Reads a [`Tristate`] as pflag reads a boolean.
pub fn tristate(text: &str) -> std::result::Result<Tristate, crate::gocompat::strconv::NumError> {
    crate::gocompat::strconv::parse_bool(text).map(Tristate)
}
