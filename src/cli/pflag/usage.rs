//! pflag's and cobra's usage errors in kubectl's words (`error: unknown flag: --foo`, then `See
//! 'kubeupd apply --help' for usage.`), and cobra's suggestions for an unknown command.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, Command};

use super::argv::{CommandWords, command_path, takes_value};
use super::pflag_names;

/// kubectl's text for a usage error, or `None` for what clap shows as it is (help, version).
/// `args` is the command line as given, to tell `-l` from `--selector` as pflag does.
pub fn usage_error(err: &clap::Error, command: &Command, args: &[OsString]) -> Option<String> {
    let (path, verb) = command_path(command, args);
    let usage_of = || format!("See '{path} --help' for usage.");
    let text = match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            return None;
        }
        // Words a verb with subcommands does not take: a verb that runs itself (`apply`, beside
        // `view-last-applied`) refuses them all as arguments, a group of commands (`rollout`,
        // `set`) as an unknown command, each in kubectl's words.
        // (Flags before such words make clap see a conflict of the flags with a subcommand.)
        ErrorKind::InvalidSubcommand | ErrorKind::ArgumentConflict
            if !std::ptr::eq(verb, command) && verb.has_subcommands() =>
        {
            let words = CommandWords::of(command, args);
            let rest = words.subcommands.last().map_or(&args[1..], |(at, _)| &args[at + 1..]);
            let (words, unknown) = positionals(verb, command, rest);
            // pflag reads the flags first: one the command does not know is the error.
            if let Some(line) = unknown {
                return Some(format!("error: {line}\n{}\n", usage_of()));
            }
            let global = |id: &clap::Id| command.get_arguments().any(|arg| arg.get_id() == id);
            let runs_itself = verb.get_arguments().any(|arg| !global(arg.get_id()) && arg.get_id() != "help");
            return Some(match runs_itself {
                true => {
                    format!("error: Unexpected args: [{}]\nSee '{path} -h' for help and examples\n", words.join(" "))
                }
                false => {
                    format!("error: unknown command {:?}\nSee '{path} -h' for help and examples\n", words.join(" "))
                }
            });
        }
        ErrorKind::InvalidSubcommand => {
            let name = context_text(err, ContextKind::InvalidSubcommand).unwrap_or_default();
            let root = command.get_bin_name().unwrap_or(command.get_name());
            let mut text = format!("error: unknown command {name:?} for {root:?}\n");
            let suggested = cobra_suggestions(&name, command);
            if !suggested.is_empty() {
                text += "\nDid you mean this?\n";
                for name in suggested {
                    text += &format!("\t{name}\n");
                }
            }
            return Some(text);
        }
        ErrorKind::UnknownArgument => {
            let arg = context_text(err, ContextKind::InvalidArg).unwrap_or_default();
            match arg.strip_prefix("--") {
                Some(_) => format!("error: unknown flag: {}", arg.split('=').next().unwrap_or(&arg)),
                None if arg.starts_with('-') => {
                    let letter = arg.chars().nth(1).unwrap_or('-');
                    let given = given_short(args, letter).unwrap_or(arg.clone());
                    format!("error: unknown shorthand flag: '{letter}' in {given}")
                }
                None => {
                    return Some(format!(
                        "error: Unexpected args: [{}]\nSee '{path} -h' for help and examples\n",
                        trailing(err).join(" "),
                    ));
                }
            }
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals if is_missing_value(err) => {
            format!("error: flag needs an argument: {}", as_given(&flag_name(err, verb), args))
        }
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let value = context_text(err, ContextKind::InvalidValue).unwrap_or_default();
            let reason = match std::error::Error::source(err) {
                // Go's words for a number that does not parse, as pflag reports them.
                Some(source) if source.is::<std::num::ParseIntError>() => {
                    format!("strconv.ParseInt: parsing {value:?}: invalid syntax")
                }
                Some(source) => source.to_string(),
                None => match err.get(ContextKind::ValidValue) {
                    Some(ContextValue::Strings(valid)) => format!("must be one of {}", valid.join(", ")),
                    _ => "invalid value".to_string(),
                },
            };
            format!("error: invalid argument {value:?} for {:?} flag: {reason}", flag_name(err, verb))
        }
        _ => {
            let rendered = err.kind().as_str().map(str::to_string).unwrap_or_else(|| err.to_string());
            format!("error: {}", rendered.lines().next().unwrap_or_default().trim_start_matches("error: "))
        }
    };
    Some(format!("{text}\n{}\n", usage_of()))
}

/// The order in which kubectl 1.37 adds the commands kubeupd has, which cobra suggests in; cobra
/// adds `help` last. kubeupd's own commands follow.
const KUBECTL_ORDER: &[&str] = &[
    "create",
    "run",
    "set",
    "get",
    "edit",
    "delete",
    "rollout",
    "scale",
    "cluster-info",
    "describe",
    "logs",
    "attach",
    "exec",
    "port-forward",
    "proxy",
    "cp",
    "events",
    "diff",
    "apply",
    "patch",
    "replace",
    "wait",
    "kustomize",
    "label",
    "annotate",
    "completion",
    "config",
    "version",
    "api-versions",
    "api-resources",
    "help",
];

/// cobra's `SuggestFor` of kubectl 1.37's commands: words that suggest them whatever their
/// distance (`get` for `list` and `ls`, `delete` for `rm` and `remove`).
const SUGGEST_FOR: [(&str, &[&str]); 2] = [("get", &["list", "ls"]), ("delete", &["rm", "remove"])];

/// The commands cobra suggests for an unknown `typed` one: those at most two edits away
/// (case-insensitively), those it begins, and those whose `SuggestFor` names it.
fn cobra_suggestions(typed: &str, root: &Command) -> Vec<String> {
    let mut names: Vec<String> = root
        .get_subcommands()
        .filter(|command| !command.is_hide_set())
        .map(|command| command.get_name().to_string())
        .chain(std::iter::once("help".to_string()))
        .collect();
    names.dedup();
    let rank = |name: &String| KUBECTL_ORDER.iter().position(|known| known == name).unwrap_or(KUBECTL_ORDER.len());
    names.sort_by_key(rank);
    let typed_lower = typed.to_lowercase();
    let mut suggested = Vec::new();
    for name in names {
        if edit_distance(&typed_lower, &name.to_lowercase()) <= 2 || name.to_lowercase().starts_with(&typed_lower) {
            suggested.push(name.clone());
        }
        let explicit = SUGGEST_FOR.iter().filter(|(command, _)| *command == name).flat_map(|(_, words)| words.iter());
        for word in explicit {
            if word.eq_ignore_ascii_case(typed) {
                suggested.push(name.clone());
            }
        }
    }
    suggested
}

/// Levenshtein distance between two texts, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

fn context_text(err: &clap::Error, kind: ContextKind) -> Option<String> {
    match err.get(kind)? {
        ContextValue::String(text) => Some(text.clone()),
        ContextValue::Strings(texts) => texts.first().cloned(),
        ContextValue::StyledStr(text) => Some(text.to_string()),
        _ => None,
    }
}

/// The positional words of `args`, flags and their values left out, and pflag's words for the
/// first flag neither `verb` nor the global flags know.
fn positionals(verb: &Command, root: &Command, args: &[OsString]) -> (Vec<String>, Option<String>) {
    let mut words = Vec::new();
    let mut unknown = None;
    let mut given = args.iter().filter_map(|arg| arg.to_str());
    while let Some(word) = given.next() {
        let named =
            |found: &dyn Fn(&Arg) -> bool| verb.get_arguments().chain(root.get_arguments()).find(|arg| found(arg));
        if word == "--" {
            words.extend(given.by_ref().map(String::from));
        } else if let Some(long) = word.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            match named(&|arg| arg.get_long() == Some(name)) {
                Some(arg) if !long.contains('=') && takes_value(arg) => {
                    given.next();
                }
                Some(_) => {}
                None => {
                    unknown.get_or_insert(format!("unknown flag: --{name}"));
                }
            }
        } else if let Some(letter) = word.strip_prefix('-').and_then(|short| short.chars().next()) {
            match named(&|arg| arg.get_short() == Some(letter)) {
                Some(arg) if word.chars().count() == 2 && takes_value(arg) => {
                    given.next();
                }
                Some(_) => {}
                None => {
                    unknown.get_or_insert(format!("unknown shorthand flag: '{letter}' in {word}"));
                }
            }
        } else if !word.starts_with('-') {
            words.push(word.to_string());
        }
    }
    (words, unknown)
}

/// The arguments clap found unexpected (the first, and any after it).
fn trailing(err: &clap::Error) -> Vec<String> {
    context_text(err, ContextKind::InvalidArg).into_iter().collect()
}

fn is_missing_value(err: &clap::Error) -> bool {
    matches!(err.get(ContextKind::InvalidValue), Some(ContextValue::String(value)) if value.is_empty())
        || err.kind() == ErrorKind::NoEquals
}

/// The flag in pflag's naming: `--selector`, or `-l, --selector` for a flag with a shorthand.
fn flag_name(err: &clap::Error, verb: &Command) -> String {
    // clap renders the flag as `--selector <SELECTOR>`, `--server-side[=<BOOL>]` or `-l <SELECTOR>`.
    let rendered = context_text(err, ContextKind::InvalidArg).unwrap_or_default();
    let word = rendered.split([' ', '[', '<', '=']).next().unwrap_or_default();
    let arg = match word.strip_prefix("--") {
        Some(long) => verb.get_arguments().find(|arg| arg.get_long() == Some(long)),
        None => word.chars().nth(1).and_then(|letter| verb.get_arguments().find(|arg| arg.get_short() == Some(letter))),
    };
    match arg {
        Some(arg) if arg.get_long().is_some() => pflag_names(arg, verb),
        _ => word.to_string(),
    }
}

/// The spelling the user gave of a flag that lacks its value: `'l' in -l` for a shorthand, else
/// the long name.
fn as_given(names: &str, args: &[OsString]) -> String {
    let long = names.split(", ").find(|name| name.starts_with("--")).unwrap_or(names).to_string();
    let short = names.split(", ").find(|name| name.len() == 2).and_then(|name| name.chars().nth(1));
    match short.and_then(|letter| given_short(args, letter).map(|given| (letter, given))) {
        Some((letter, given)) if !args.iter().any(|arg| arg.to_str() == Some(long.as_str())) => {
            format!("'{letter}' in {given}")
        }
        _ => long,
    }
}

/// The last argument that spells the shorthand `letter` (`-l`, or a cluster such as `-Al`).
fn given_short(args: &[OsString], letter: char) -> Option<String> {
    args.iter().rev().filter_map(|arg| arg.to_str()).find_map(|arg| {
        let cluster = arg.strip_prefix('-').filter(|rest| !rest.starts_with('-'))?;
        cluster.split('=').next()?.contains(letter).then(|| arg.to_string())
    })
}

#[cfg(test)]
mod suggestion_tests {
    #[test]
    fn unknown_commands_get_cobras_suggestions() {
        // By distance, by prefix, and kubectl 1.37's SuggestFor words.
        let suggested = |typed: &str| crate::cli::parse(["kubeupd", typed]).err().unwrap();
        assert_eq!(
            suggested("ls"),
            "error: unknown command \"ls\" for \"kubeupd\"\n\nDid you mean this?\n\tget\n\tlogs\n\tcp\n"
        );
        assert_eq!(
            suggested("remove"),
            "error: unknown command \"remove\" for \"kubeupd\"\n\nDid you mean this?\n\tdelete\n"
        );
        assert_eq!(suggested("lab"), "error: unknown command \"lab\" for \"kubeupd\"\n\nDid you mean this?\n\tlabel\n");
        assert_eq!(
            suggested("sett"),
            "error: unknown command \"sett\" for \"kubeupd\"\n\nDid you mean this?\n\tset\n\tget\n"
        );
        assert_eq!(suggested("xyzzy"), "error: unknown command \"xyzzy\" for \"kubeupd\"\n");
    }
}
