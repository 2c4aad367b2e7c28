//! `kubeupd diff`: for each object in the files, the live object against what `apply` would make
//! of it, as a unified diff. The apply engine runs as a server dry run, so the comparison is with
//! exactly what apply would send. Exit status as kubectl's: 0 when nothing differs, 1 when
//! something does, above 1 on errors. With `KUBECTL_EXTERNAL_DIFF` set, that program compares
//! the objects instead (see [`external`]).

mod external;

use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::time::SystemTime;

use clap::Args;
use serde_json::{Value, json};

use super::apply::input::{COMPARE_FAILED, InputArgs, Preview};
use super::args::ExtraArgs;
use super::{Error, GlobalArgs, Result};
use crate::apply::preview::{Change, Effect, Shown};
use crate::output;
use crate::resource::ObjectRef;

/// Options of `kubeupd diff`; the flags shared with `apply` are worded for comparing.
#[derive(Debug, Args)]
#[command(
    mut_arg("server_side", |arg| arg.help("Compare with what a server-side apply would make")),
    mut_arg("force_conflicts", |arg| arg.help("With --server-side: as if taking over fields that other managers own")),
    mut_arg("concurrency", |arg| arg.help("How many objects to compare at once"))
)]
pub struct DiffArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Keep `metadata.managedFields` in the compared objects.
    #[arg(long)]
    show_managed_fields: bool,
    /// Show Secret values instead of `***`.
    #[arg(long)]
    show_secrets: bool,
    /// Instead of the diffs: one line per object that would change (`+` created, `~` changed,
    /// `-` pruned) and the totals.
    #[arg(long, conflicts_with = "output")]
    summary: bool,
    /// `json`: instead of the diffs, each object's action and changed field paths, and the totals.
    #[arg(short = 'o', long, value_name = "FORMAT", value_parser = ["json"])]
    output: Option<String>,
    /// Also write the plan to this file, for `apply --plan` to apply exactly it: each object's
    /// action, its live resourceVersion and a digest of its configuration (no Secret values).
    #[arg(long, value_name = "PLAN")]
    pub(in crate::cli) plan_out: Option<std::path::PathBuf>,
    #[command(flatten)]
    extra: ExtraArgs,
}

/// What `diff` compares and how it shows it, checked before any request.
struct Options<'a> {
    preview: Preview<'a>,
    /// The program `KUBECTL_EXTERNAL_DIFF` names, which compares the objects instead.
    external: Option<external::Program>,
}

/// kubectl's checks (no words after the verb, then those of the input as `apply --plan` checks
/// them: see [`Preview::new`]), and the program of the environment.
fn options(args: &DiffArgs) -> Result<Options<'_>> {
    args.extra.refuse("diff")?;
    let external = external::Program::from_env();
    let shown = Shown { managed_fields: args.show_managed_fields, secrets: args.show_secrets };
    let preview = Preview::new(&args.input, args.input.mode(true, false), shown)?;
    Ok(Options { preview, external })
}

/// Runs `kubeupd diff`; any failure, its options' too, is exit status 2.
pub async fn run(args: DiffArgs, global: &GlobalArgs) -> Result {
    let compared = match options(&args) {
        Ok(options) => compare_all(options, &args, global).await,
        Err(err) => Err(err),
    };
    match compared {
        Ok(true) => Err(Error::Reported(1)),
        Ok(false) => Ok(()),
        Err(Error::Reported(_)) => Err(Error::Reported(COMPARE_FAILED)),
        Err(err) => {
            eprintln!("{}", err.line());
            Err(Error::Reported(COMPARE_FAILED))
        }
    }
}

/// Prints the diffs as `diff -u -N` prints kubectl's folders (in the order of the objects' file
/// names, with headers naming files in the folders kubectl would make), or the summary or the JSON
/// change set (in input order, then the objects that would be pruned); `true` when something
/// differs.
async fn compare_all(options: Options<'_>, args: &DiffArgs, global: &GlobalArgs) -> Result<bool> {
    let Options { preview, external } = options;
    let changes = preview.run(global).await?;
    if let Some(path) = &args.plan_out {
        let text = preview.saved_plan(&changes).to_text();
        std::fs::write(path, text)
            .map_err(|err| Error::msg(format!("cannot write the plan to {}: {err}", path.display())))?;
    }
    let differs = changes.iter().any(|change| change.effect != Effect::Unchanged);
    if args.output.is_some() {
        print!("{}", output::to_json(&change_set(&changes)));
    } else if args.summary {
        print!("{}", summary(&changes));
    } else if let Some(program) = external {
        // The program's verdict is the result, as kubectl has it.
        return program.compare(&changes).map(|status| status == 1);
    } else {
        // The unified diffs are kubectl's; what they cannot say goes to stderr.
        for change in changes.iter().filter(|change| change.effect == Effect::Replace) {
            eprintln!(
                "{}{} would be replaced (deleted, then created again): {} cannot change",
                change.target.display_name(),
                in_namespace(&change.target),
                change.forced_by.join(", ")
            );
        }
        let color = std::io::stdout().is_terminal();
        let (live_dir, merged_dir) = (external::side_path("LIVE-"), external::side_path("MERGED-"));
        // diff walks kubectl's two folders in the order of the file names.
        let mut by_name: Vec<&Change> = changes.iter().collect();
        by_name.sort_by(|a, b| a.name.cmp(&b.name));
        for change in by_name {
            let sides = output::DiffSides { live_dir: &live_dir, merged_dir: &merged_dir, written: SystemTime::now() };
            print!("{}", output::unified_diff(&change.name, &change.before, &change.after, &sides, color));
        }
    }
    Ok(differs)
}

/// `+ configmap/a`, `~ deployment.apps/web`, `-/+ job.batch/init (spec.template)`, `- configmap/c`
/// for each object that would change, then the totals (those to replace only when there are some).
fn summary(changes: &[Change]) -> String {
    let mut text = String::new();
    let mut totals: BTreeMap<u8, usize> = BTreeMap::new();
    for change in changes {
        let (sign, order) = match change.effect {
            Effect::Create => ("+", 0),
            Effect::Change => ("~", 1),
            Effect::Prune => ("-", 2),
            Effect::Unchanged => (" ", 3),
            Effect::Replace => ("-/+", 4),
        };
        *totals.entry(order).or_default() += 1;
        let forced_by = match change.effect {
            Effect::Replace => format!(" ({})", change.forced_by.join(", ")),
            _ => String::new(),
        };
        if change.effect != Effect::Unchanged {
            let (name, namespace) = (change.target.display_name(), in_namespace(&change.target));
            let phase = change.phase.map(|phase| format!(" (phase {phase})")).unwrap_or_default();
            text.push_str(&format!("{sign} {name}{namespace}{forced_by}{phase}\n"));
        }
    }
    let count = |order: u8| totals.get(&order).copied().unwrap_or(0);
    let replace = match count(4) {
        0 => String::new(),
        replaced => format!("{replaced} to replace, "),
    };
    text.push_str(&format!(
        "{} to create, {} to change, {replace}{} to prune, {} unchanged\n",
        count(0),
        count(1),
        count(2),
        count(3)
    ));
    text
}

fn in_namespace(target: &ObjectRef) -> String {
    target.namespace.as_deref().map(|namespace| format!(" -n {namespace}")).unwrap_or_default()
}

/// The change set as JSON: each object's action, identity and changed field paths, in order, and
/// the totals.
fn change_set(changes: &[Change]) -> Value {
    let mut totals = serde_json::Map::new();
    for effect in [Effect::Create, Effect::Change, Effect::Replace, Effect::Prune, Effect::Unchanged] {
        let count = changes.iter().filter(|change| change.effect == effect).count();
        totals.insert(effect.word().to_string(), json!(count));
    }
    let objects: Vec<Value> = changes
        .iter()
        .map(|change| {
            let target = &change.target;
            let mut object = json!({
                "action": change.effect.word(),
                "object": target.display_name(),
                "apiVersion": target.rt.api_version(),
                "kind": target.rt.kind,
                "namespace": target.namespace,
                "name": target.name,
                "fields": change.fields,
            });
            if let Some(phase) = change.phase {
                object["phase"] = json!(phase);
            }
            if change.effect == Effect::Replace {
                object["forcedBy"] = json!(change.forced_by);
            }
            object
        })
        .collect();
    json!({"objects": objects, "totals": totals})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff_args(line: &[&str]) -> DiffArgs {
        match crate::cli::parse(["kubeupd", "diff"].iter().chain(line)).unwrap().command {
            crate::cli::Command::Diff(args) => args,
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        assert!(options(&diff_args(&["-f", "web.yaml"])).is_ok());
        assert!(options(&diff_args(&["-f", "web.yaml", "--prune", "-l", "app=web", "--server-side"])).is_ok());
        for (line, expected) in [
            (&["-f", "web.yaml", "configmap"][..], "error: Unexpected args: [configmap]\nSee 'kubeupd diff -h'"),
            (&[], "error: must specify one of -f and -k"),
            (&["-f", "web.yaml", "-k", "dir"], "error: only one of -f or -k can be specified"),
            (&["-f", "web.yaml", "--force-conflicts"], "error: --force-conflicts only works with --server-side"),
            (&["-f", "web.yaml", "--applyset=set"], "error: --applyset requires --prune"),
            (
                &["-f", "web.yaml", "--prune"],
                "error: all resources selected for prune without explicitly passing --all.",
            ),
            (
                &["-f", "web.yaml", "--prune", "--all", "-l", "a=b"],
                "error: cannot set --all and --selector at the same time",
            ),
        ] {
            let args = diff_args(line);
            let refused = options(&args).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }
}
