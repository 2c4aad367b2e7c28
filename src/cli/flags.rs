//! Flag groups that several verbs share, flattened into each verb's options, and the clap
//! wrappers of library types (`--dry-run` modes, `-o` formats).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::Value;

use super::Error;
use crate::apply;
use crate::client::FieldValidation;
use crate::output::{self, OutputFormat};
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
    pub fn named(&self, rules: Rules) -> Result<Vec<Named>, resource::Error> {
        resource::parse(&self.targets, &self.files.files(), rules)
    }
}

/// `-f` and `-R`: files, directories or `-` (stdin) holding objects; or `-k`: a kustomization
/// directory whose built objects are used.
#[derive(Debug, Clone, Default, Args)]
pub struct FileArgs {
    /// Files, directories or `-` (stdin) holding the objects.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,
    /// Read directories recursively.
    #[arg(short = 'R', long, conflicts_with = "kustomize")]
    pub recursive: bool,
    /// Use the objects the kustomization in DIR builds (as `kubeupd kustomize DIR` prints them).
    #[arg(short = 'k', long = "kustomize", value_name = "DIR", conflicts_with = "filenames")]
    pub kustomize: Option<PathBuf>,
}

impl FileArgs {
    /// Where the objects are, for `resource`.
    pub fn files(&self) -> resource::Files<'_> {
        match &self.kustomize {
            Some(dir) => resource::Files::Kustomization { dir, load_restrictor: Default::default() },
            None => resource::Files::Paths { paths: &self.filenames, recursive: self.recursive },
        }
    }

    /// Whether `-f` or `-k` was given.
    pub fn given(&self) -> bool {
        !self.filenames.is_empty() || self.kustomize.is_some()
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

/// The values of `-o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Indented JSON.
    Json,
    /// YAML.
    Yaml,
    /// `kind.group/name` per object.
    Name,
    /// The table with every column (`get` only).
    Wide,
}

impl From<Format> for OutputFormat {
    fn from(format: Format) -> Self {
        match format {
            Format::Json => OutputFormat::Json,
            Format::Yaml => OutputFormat::Yaml,
            Format::Name => OutputFormat::Name,
            Format::Wide => OutputFormat::Wide,
        }
    }
}

/// `-o` and `--show-managed-fields`.
#[derive(Debug, Clone, Default, Args)]
pub struct OutputArgs {
    /// Print the objects in this format instead of a line each (a table for get).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<Format>,
    /// Keep `metadata.managedFields` in JSON and YAML output.
    #[arg(long)]
    pub show_managed_fields: bool,
}

impl OutputArgs {
    /// The format, for verbs that write objects: they print objects or names, not tables.
    pub fn object_format(&self, verb: &str) -> Result<Option<OutputFormat>, Error> {
        match self.output {
            Some(Format::Wide) => {
                Err(Error::msg(format!("--output wide is not supported by {verb}; use json, yaml or name")))
            }
            format => Ok(format.map(OutputFormat::from)),
        }
    }

    /// `object` in `format`, without `metadata.managedFields` unless asked for, as kubectl prints it.
    pub fn render(&self, format: OutputFormat, object: &Value) -> String {
        if self.show_managed_fields || object.pointer("/metadata/managedFields").is_none() {
            return render(format, object);
        }
        let mut shown = object.clone();
        output::strip_managed_fields(&mut shown);
        render(format, &shown)
    }

    /// What a writing verb prints for one object: the object with `-o`, else kubectl's line
    /// `deployment.apps/web patched`, with ` (no change)` when the write changed nothing.
    pub fn written(&self, object: &Value, operation: &str, changed: bool, suffix: &str) -> String {
        match self.output {
            Some(format) => self.render(format.into(), object),
            None => {
                let unchanged = if changed { "" } else { " (no change)" };
                format!("{} {operation}{unchanged}{suffix}\n", output::object_name(object))
            }
        }
    }
}

/// One object in `format`: indented JSON, YAML, or `kind.group/name`, each ending with a newline.
fn render(format: OutputFormat, object: &Value) -> String {
    match format {
        OutputFormat::Json => output::to_json(object),
        OutputFormat::Yaml => output::to_yaml(object),
        OutputFormat::Name | OutputFormat::Wide => output::object_name(object) + "\n",
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
        assert_eq!(lines.written(&deployment, "patched", true, ""), "deployment.apps/web patched\n");
        assert_eq!(lines.written(&deployment, "patched", false, ""), "deployment.apps/web patched (no change)\n");
        assert_eq!(
            lines.written(&deployment, "updated", true, server.suffix()),
            "deployment.apps/web updated (server dry run)\n"
        );
        let name = OutputArgs { output: Some(Format::Name), ..OutputArgs::default() };
        assert_eq!(name.written(&deployment, "patched", true, ""), "deployment.apps/web\n");
        let yaml = OutputArgs { output: Some(Format::Yaml), ..OutputArgs::default() };
        assert_eq!(
            yaml.written(&deployment, "patched", true, ""),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
        );
        let managed = OutputArgs { show_managed_fields: true, ..yaml };
        assert!(managed.written(&deployment, "patched", true, "").contains("managedFields: []"));
    }
}

/// `--prune` and what says which objects it removes, shared by `apply` and `diff`.
#[derive(Debug, Clone, Default, Args)]
pub struct PruneArgs {
    /// Delete the objects an earlier apply made that the files no longer have: the members of
    /// --applyset, or (kubectl's older prune) the objects matching -l, or every one with --all.
    #[arg(long)]
    pub prune: bool,
    /// With --prune: the ApplySet, by its parent: NAME (a Secret), configmaps/NAME, or
    /// KIND.GROUP/NAME for a custom resource whose definition allows it.
    #[arg(long, value_name = "PARENT")]
    pub applyset: Option<String>,
    /// Only the objects of the files whose labels match (e.g. app=web,tier!=db); with --prune,
    /// only matching objects are pruned.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<resource::LabelSelector>,
    /// With --prune and no selector: prune every object of the allowlisted kinds.
    #[arg(long)]
    pub all: bool,
    /// With --prune: a kind to prune, as group/version/kind (core/v1/ConfigMap); repeatable.
    #[arg(long = "prune-allowlist", value_name = "GVK")]
    pub prune_allowlist: Vec<apply::prune::AllowedKind>,
}
