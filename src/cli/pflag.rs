//! kubectl's flag grammar (spf13/pflag) on top of clap, applied to the whole command tree in one
//! place so that no verb has to remember it:
//!
//! - every boolean flag takes `--flag`, `--flag=true|false` and the other spellings of Go's
//!   `strconv.ParseBool` (`1`, `t`, `T`, `TRUE`, `True`, ...); as in pflag, `--flag false` is the
//!   flag followed by the argument `false`;
//! - a flag given twice keeps its last value, as pflag sets it again;
//! - a value is read by the parser of the flag's pflag type ([`duration`], [`int`], [`int32`],
//!   [`level`], ...), with Go's rules and words (`src/gocompat`); a `stringSlice` flag, declared
//!   with `value_delimiter = ','`, reads each value as one CSV record ([`split_slices`]);
//! - usage errors are printed in kubectl's words (`error: unknown flag: --foo`, then
//!   `See 'kubeupd apply --help' for usage.`), with exit status 1.

use std::ffi::OsString;
use std::time::Duration;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, Command};

use crate::gocompat::{self, strconv::NumError};

/// `command` with pflag's grammar for every flag, in it and in all its subcommands.
pub fn with_pflag_grammar(command: Command) -> Command {
    with_pflag_types(command).args_override_self(true)
}

fn with_pflag_types(command: Command) -> Command {
    command.mut_args(|arg| string_slice(pflag_boolean(arg))).mut_subcommands(with_pflag_types)
}

/// A boolean flag as pflag takes it: the value only after `=`, a bare flag meaning `true`, and
/// the default kept (`false` for a plain switch).
fn pflag_boolean(arg: Arg) -> Arg {
    let takes_bool = arg.get_value_parser().type_id() == std::any::TypeId::of::<bool>();
    let switch = matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::Set);
    if !takes_bool || !switch || arg.is_positional() {
        return arg;
    }
    let default = match arg.get_default_values() {
        [value] if gocompat::strconv::parse_bool(&value.to_string_lossy()) == Ok(true) => "true",
        _ => "false",
    };
    arg.action(ArgAction::Set)
        .num_args(0..=1)
        .require_equals(true)
        .default_missing_value("true")
        .default_value(default)
        .value_parser(gocompat::strconv::parse_bool)
        .hide_possible_values(true)
}

/// What marks a `stringSlice` flag once the tree is made: its values, which [`split_slices`]
/// has read as CSV, are separated by NUL, which no argument of a command line can hold.
const SLICE_SEPARATOR: char = '\0';

/// A `stringSlice` flag (declared with `value_delimiter = ','`) split only where
/// [`split_slices`] found its CSV fields, not at a comma inside quotes.
fn string_slice(arg: Arg) -> Arg {
    match arg.get_value_delimiter() {
        Some(',') => arg.value_delimiter(SLICE_SEPARATOR),
        _ => arg,
    }
}

fn is_string_slice(arg: &Arg) -> bool {
    arg.get_value_delimiter() == Some(SLICE_SEPARATOR)
}

/// pflag's `duration`: Go's `time.ParseDuration` (`1m30s`; a bare number other than 0 has no
/// unit). A negative duration counts as none (kubectl's waits end at once on it).
pub fn duration(text: &str) -> Result<Duration, String> {
    let nanoseconds = gocompat::time::parse_duration(text)?;
    Ok(Duration::from_nanos(u64::try_from(nanoseconds).unwrap_or(0)))
}

/// A duration flag of Go's own `flag` package, which klog adds to kubectl's flags
/// (`--log-flush-frequency`): Go's durations, every error `parse error`.
pub fn go_flag_duration(text: &str) -> Result<Duration, String> {
    duration(text).map_err(|_| "parse error".to_string())
}

/// pflag's `int` and `int64`: Go's `strconv.ParseInt` in base 0 (`0x1f`, `0o17`, `1_000`).
pub fn int(text: &str) -> Result<i64, NumError> {
    gocompat::strconv::parse_int(text, 64)
}

/// pflag's `int32`.
pub fn int32(text: &str) -> Result<i32, NumError> {
    gocompat::strconv::parse_int(text, 32).map(|value| value as i32)
}

/// klog's `Level` (`-v`): `strconv.ParseInt` in base 10, 32 bits.
pub fn level(text: &str) -> Result<i32, NumError> {
    gocompat::strconv::parse_int_base(text, 10, 32).map(|value| value as i32)
}

/// klog's `moduleSpec` (`--vmodule`): `PATTERN=N` items separated by commas, N a level (base 10)
/// not negative; the text kept as given.
pub fn module_spec(text: &str) -> Result<String, String> {
    for item in text.split(',').filter(|item| !item.is_empty()) {
        let syntax = || "syntax error: expect comma-separated list of filename=N".to_string();
        let [pattern, level] = item.split('=').collect::<Vec<_>>()[..] else { return Err(syntax()) };
        if pattern.is_empty() || level.is_empty() {
            return Err(syntax());
        }
        if gocompat::strconv::parse_int_base(level, 10, 32).map_err(|_| syntax())? < 0 {
            return Err("negative value for vmodule level".to_string());
        }
    }
    Ok(text.to_string())
}

/// `args` with the value of each `stringSlice` flag read as pflag reads it, one CSV record
/// (Go's `encoding/csv`: `--from-file="a,b",c` names `a,b` and `c`), its fields passed on to clap
/// separated by [`SLICE_SEPARATOR`]; an empty value sets nothing. A value that is not CSV is
/// pflag's usage error. `args` have their command first (see [`command_first`]).
pub fn split_slices(root: &Command, args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let command = CommandWords::of(root, &args).command(root);
    let named =
        |found: &dyn Fn(&Arg) -> bool| command.get_arguments().chain(root.get_arguments()).find(|arg| found(arg));
    if !command.get_arguments().any(is_string_slice) {
        return Ok(args);
    }
    let split = |arg: &Arg, value: &str| -> Result<Option<OsString>, String> {
        if value.is_empty() {
            return Ok(None);
        }
        let fields = gocompat::csv::read_record(value).map_err(|reason| {
            let (path, _) = command_path(root, &args);
            format!(
                "error: invalid argument {} for {:?} flag: {reason}\nSee '{path} --help' for usage.\n",
                gocompat::fmt::quote(value),
                pflag_names(arg)
            )
        })?;
        let long = arg.get_long().unwrap_or(arg.get_id().as_str());
        Ok(Some(OsString::from(format!("--{long}={}", fields.join(&SLICE_SEPARATOR.to_string())))))
    };
    let mut out = Vec::with_capacity(args.len());
    let mut given = args.iter().cloned();
    out.extend(given.next());
    while let Some(word) = given.next() {
        let Some(text) = word.to_str() else {
            out.push(word);
            continue;
        };
        if text == "--" {
            out.push(word);
            out.extend(given.by_ref());
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = long.split_once('=').map_or((long, None), |(name, value)| (name, Some(value)));
            match named(&|arg| arg.get_long() == Some(name)) {
                Some(arg) if is_string_slice(arg) => {
                    let value = match value {
                        Some(value) => value.to_string(),
                        None => match given.next() {
                            Some(value) => value.to_string_lossy().into_owned(),
                            // Missing: clap's error says so.
                            None => {
                                out.push(word);
                                continue;
                            }
                        },
                    };
                    out.extend(split(arg, &value)?);
                }
                Some(arg) if value.is_none() && takes_value(arg) => {
                    out.push(word);
                    out.extend(given.next());
                }
                _ => out.push(word),
            }
            continue;
        }
        let Some(shorts) = text.strip_prefix('-').filter(|shorts| !shorts.is_empty()) else {
            out.push(word);
            continue;
        };
        // A cluster of shorthands: switches, then at most one that takes the rest (or the next
        // word) as its value.
        let mut kept = word.clone();
        let mut next_is_value = false;
        for (at, letter) in shorts.char_indices() {
            let Some(arg) = named(&|arg| arg.get_short() == Some(letter)) else { break };
            if !takes_value(arg) {
                continue;
            }
            let rest = &shorts[at + letter.len_utf8()..];
            let inline = rest.strip_prefix('=').or(Some(rest).filter(|rest| !rest.is_empty()));
            if is_string_slice(arg) {
                let value = match inline {
                    Some(value) => Some(value.to_string()),
                    None => given.next().map(|value| value.to_string_lossy().into_owned()),
                };
                if let Some(value) = value {
                    let before = &shorts[..at];
                    kept = OsString::new();
                    if !before.is_empty() {
                        out.push(OsString::from(format!("-{before}")));
                    }
                    out.extend(split(arg, &value)?);
                }
            } else {
                next_is_value = inline.is_none();
            }
            break;
        }
        if !kept.is_empty() {
            out.push(kept);
        }
        if next_is_value {
            out.extend(given.next());
        }
    }
    Ok(out)
}

/// A flag as pflag names it in errors: `--selector`, or `-l, --selector` with a shorthand.
fn pflag_names(arg: &Arg) -> String {
    match (arg.get_short(), arg.get_long()) {
        (Some(short), Some(long)) => format!("-{short}, --{long}"),
        (None, Some(long)) => format!("--{long}"),
        (Some(short), None) => format!("-{short}"),
        (None, None) => arg.get_id().to_string(),
    }
}

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
const KUBECTL_ORDER: [&str; 18] = [
    "create",
    "set",
    "get",
    "edit",
    "delete",
    "rollout",
    "scale",
    "diff",
    "apply",
    "patch",
    "replace",
    "wait",
    "kustomize",
    "label",
    "annotate",
    "completion",
    "version",
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

/// kubectl's local flags that shadow a global flag of the same name in one command (`set subject
/// --user` names a subject, not the kubeconfig user): the command's words, the flag, and the
/// name the local flag has here.
const SHADOWING: &[(&[&str], &str, &str)] = &[
    (&["set", "subject"], "--user", "--subject-user"),
    (&["create", "rolebinding"], "--user", "--subject-user"),
    (&["create", "clusterrolebinding"], "--user", "--subject-user"),
];

/// `args` with the words naming the command (`create secret tls`) first, as kubectl reads a line
/// whose flags come before the verb or between its words (`kubectl -n x create secret tls ...`,
/// `kubectl create -n x secret tls ...`): cobra finds the command first, then parses every flag
/// with the command's. A line whose verb cannot be found after a leading flag is kubectl's error.
pub fn command_first(root: &Command, args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let words = CommandWords::of(root, &args);
    if words.subcommands.is_empty() {
        let leading_flag = args.get(1).and_then(|arg| arg.to_str()).filter(|arg| arg.starts_with('-'));
        return match (words.first_other, leading_flag) {
            (Some(_), Some(flag)) => Err(format!("Error: flags cannot be placed before plugin name: {flag}\n")),
            _ => Ok(args),
        };
    }
    let path: Vec<usize> = words.subcommands.iter().map(|(at, _)| *at).collect();
    let mut ordered = Vec::with_capacity(args.len());
    ordered.push(args[0].clone());
    ordered.extend(path.iter().map(|at| args[*at].clone()));
    ordered.extend((1..args.len()).filter(|at| !path.contains(at)).map(|at| args[at].clone()));
    Ok(ordered)
}

/// `args` with the local flags that shadow global ones renamed to their names here, so that the
/// command's own flag gets the value, as in kubectl.
pub fn unshadow(root: &Command, mut args: Vec<OsString>) -> Vec<OsString> {
    let words = CommandWords::of(root, &args);
    let path: Vec<&str> = words.subcommands.iter().map(|(_, command)| command.get_name()).collect();
    for (command, global, local) in SHADOWING {
        if path != *command {
            continue;
        }
        for arg in &mut args {
            let Some(text) = arg.to_str() else { continue };
            if text == *global {
                *arg = OsString::from(*local);
            } else if let Some(value) = text.strip_prefix(global).and_then(|rest| rest.strip_prefix('=')) {
                *arg = OsString::from(format!("{local}={value}"));
            }
        }
    }
    args
}

/// How a command line names its command: the words (by index in `args`) that name subcommands,
/// each with its command, and the first other positional word; flags and their values skipped.
/// As cobra finds a command (its `stripFlags`), which kubectl's users rely on when they write
/// flags before the verb (`kubectl -n x --overwrite=true annotate ...`): a word is a flag's value
/// when it follows a flag written without `=` that is not a boolean, `--name` or a lone `-x`,
/// and a flag the command does not know is taken to have one.
pub struct CommandWords<'a> {
    pub subcommands: Vec<(usize, &'a Command)>,
    pub first_other: Option<usize>,
}

impl<'a> CommandWords<'a> {
    /// Reads `args` (the program name first) against `root`.
    pub fn of(root: &'a Command, args: &[OsString]) -> CommandWords<'a> {
        let mut words = CommandWords { subcommands: Vec::new(), first_other: None };
        let mut current = root;
        let mut at = 1;
        while let Some(word) = args.get(at).and_then(|arg| arg.to_str()) {
            at += 1;
            if word == "--" {
                break;
            }
            let known = |matches: &dyn Fn(&Arg) -> bool| {
                current.get_arguments().chain(root.get_arguments()).find(|arg| matches(arg))
            };
            if let Some(long) = word.strip_prefix("--") {
                let is_switch = known(&|arg| arg.get_long() == Some(long)).is_some_and(|arg| !takes_value(arg));
                at += usize::from(!long.contains('=') && !is_switch);
                continue;
            }
            if let Some(shorts) = word.strip_prefix('-').filter(|shorts| !shorts.is_empty()) {
                let mut letters = shorts.chars();
                if let (Some(letter), None) = (letters.next(), letters.next()) {
                    let is_switch = known(&|arg| arg.get_short() == Some(letter)).is_some_and(|arg| !takes_value(arg));
                    at += usize::from(!is_switch);
                }
                continue;
            }
            match current.find_subcommand(word) {
                Some(sub) => {
                    words.subcommands.push((at - 1, sub));
                    current = sub;
                }
                None => {
                    words.first_other = Some(at - 1);
                    break;
                }
            }
        }
        words
    }

    /// The command named last (the root when none is).
    pub fn command(&self, root: &'a Command) -> &'a Command {
        self.subcommands.last().map_or(root, |(_, command)| command)
    }
}

/// Whether the flag takes a value, before clap builds the command (which sets `num_args`) too.
fn takes_value(arg: &Arg) -> bool {
    match arg.get_num_args() {
        Some(range) => range.min_values() > 0,
        None => arg.get_action().takes_values(),
    }
}

/// The command as the user would type it for help, e.g. `kubeupd apply` or `kubectl upd apply`.
fn command_path<'a>(command: &'a Command, args: &[OsString]) -> (String, &'a Command) {
    let words = CommandWords::of(command, args);
    let mut path = vec![command.get_bin_name().unwrap_or(command.get_name()).to_string()];
    path.extend(words.subcommands.iter().map(|(_, sub)| sub.get_name().to_string()));
    (path.join(" "), words.command(command))
}

/// The command line as kubectl records it in the `kubernetes.io/change-cause` annotation
/// (`--record`): the program's file name, the arguments, then each flag given, in the order
/// given, as `--name=value` (credentials as `CLASSIFIED`).
pub fn change_cause(command: &Command, args: &[OsString]) -> String {
    let program = args.first().map(std::path::Path::new).and_then(|path| path.file_name());
    let mut words = vec![program.map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()];
    let mut flags = Vec::new();
    let mut current = command;
    let mut given = args.iter().skip(1).map(|arg| arg.to_string_lossy().into_owned());
    let mut flag = |arg: &Arg, value: Option<String>, given: &mut dyn Iterator<Item = String>| {
        let value = match value {
            Some(value) => value,
            None if takes_value(arg) => given.next().unwrap_or_default(),
            None => "true".to_string(),
        };
        let name = arg.get_long().unwrap_or(arg.get_id().as_str());
        let value = if matches!(name, "token" | "password") { "CLASSIFIED".to_string() } else { value };
        flags.push(format!("--{name}={value}"));
    };
    while let Some(word) = given.next() {
        if word == "--" {
            words.extend(given.by_ref());
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (long, None),
            };
            if let Some(arg) =
                current.get_arguments().chain(command.get_arguments()).find(|arg| arg.get_long() == Some(name))
            {
                flag(arg, value, &mut given);
            }
        } else if let Some(shorts) = word.strip_prefix('-').filter(|shorts| !shorts.is_empty()) {
            for (at, letter) in shorts.char_indices() {
                let Some(arg) =
                    current.get_arguments().chain(command.get_arguments()).find(|arg| arg.get_short() == Some(letter))
                else {
                    break;
                };
                let rest = &shorts[at + letter.len_utf8()..];
                if let Some(value) = rest.strip_prefix('=') {
                    flag(arg, Some(value.to_string()), &mut given);
                    break;
                }
                if takes_value(arg) && !rest.is_empty() {
                    flag(arg, Some(rest.to_string()), &mut given);
                    break;
                }
                flag(arg, None, &mut given);
            }
        } else {
            if let Some(sub) = current.find_subcommand(&word) {
                current = sub;
            }
            words.push(word);
        }
    }
    words.extend(flags);
    words.join(" ")
}

/// kubectl's deprecated flags, by long name, with pflag's message for them (the same wherever the
/// flag is defined).
const DEPRECATED: &[(&str, &str)] = &[
    ("record", "--record will be removed in the future"),
    ("reorder", "use the new 'sortOptions' field in kustomization.yaml instead."),
    (
        "enable-managedby-label",
        "The flag `enable-managedby-label` has been deprecated. Use the `managedByLabel` option in the `buildMetadata` field instead.",
    ),
];

/// pflag's warning for each deprecated flag `args` give, in order, as pflag prints them when it
/// sets the flag (`--record=false` too): `Flag --record has been deprecated, ...`.
pub fn deprecations(root: &Command, args: &[OsString]) -> Vec<String> {
    let command = CommandWords::of(root, args).command(root);
    let given = |name: &str| {
        let long = format!("--{name}");
        args.iter()
            .filter_map(|arg| arg.to_str())
            .take_while(|arg| *arg != "--")
            .any(|arg| arg.strip_prefix(long.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('=')))
    };
    let defined = |name: &str| command.get_arguments().any(|arg| arg.get_long() == Some(name));
    DEPRECATED
        .iter()
        .filter(|(name, _)| defined(name) && given(name))
        .map(|(name, message)| format!("Flag --{name} has been deprecated, {message}"))
        .collect()
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
        Some(arg) if arg.get_long().is_some() => pflag_names(arg),
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
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    #[command(name = "kubeupd")]
    struct Example {
        #[command(subcommand)]
        verb: Verb,
    }

    #[derive(Debug, clap::Subcommand)]
    enum Verb {
        Apply {
            #[arg(long)]
            server_side: bool,
            #[arg(short = 'R', long)]
            recursive: bool,
            #[arg(short = 'A', long)]
            all_namespaces: bool,
            #[arg(long, default_value_t = true, action = ArgAction::Set)]
            overwrite: bool,
            #[arg(short = 'l', long)]
            selector: Option<String>,
            #[arg(short = 'f', long = "filename")]
            files: Vec<String>,
            #[arg(long)]
            grace_period: Option<i64>,
            names: Vec<String>,
        },
    }

    fn parse(line: &[&str]) -> Result<Verb, String> {
        let args: Vec<OsString> = ["kubeupd"].iter().chain(line).map(OsString::from).collect();
        let mut command = with_pflag_grammar(<Example as clap::CommandFactory>::command());
        command.build();
        let matches =
            command.clone().try_get_matches_from(&args).map_err(|err| usage_error(&err, &command, &args).unwrap())?;
        Ok(<Example as clap::FromArgMatches>::from_arg_matches(&matches).unwrap().verb)
    }

    fn flags(line: &[&str]) -> (bool, bool, bool, bool, Vec<String>) {
        let Verb::Apply { server_side, recursive, all_namespaces, overwrite, names, .. } = parse(line).unwrap();
        (server_side, recursive, all_namespaces, overwrite, names)
    }

    #[test]
    fn booleans_take_every_spelling_of_go() {
        for yes in ["1", "t", "T", "TRUE", "true", "True"] {
            assert!(flags(&["apply", &format!("--server-side={yes}")]).0, "{yes}");
        }
        for no in ["0", "f", "F", "FALSE", "false", "False"] {
            assert!(!flags(&["apply", &format!("--server-side={no}")]).0, "{no}");
            assert!(!flags(&["apply", &format!("--overwrite={no}")]).3, "{no}");
        }
        assert_eq!(flags(&["apply"]), (false, false, false, true, vec![]));
        assert_eq!(flags(&["apply", "--server-side", "--overwrite"]), (true, false, false, true, vec![]));
        // As in pflag, a value after a space is an argument of its own.
        assert_eq!(flags(&["apply", "--server-side", "false"]), (true, false, false, true, vec!["false".into()]));
    }

    #[test]
    fn short_booleans_combine_and_take_values() {
        assert!(flags(&["apply", "-R"]).1);
        assert!(!flags(&["apply", "-R=false"]).1);
        let (_, recursive, all, _, _) = flags(&["apply", "-AR"]);
        assert!(recursive && all);
    }

    #[test]
    fn values_take_pflag_forms() {
        for line in
            [&["apply", "-l", "a=b"][..], &["apply", "-la=b"], &["apply", "-l=a=b"], &["apply", "--selector=a=b"]]
        {
            let Verb::Apply { selector, .. } = parse(line).unwrap();
            assert_eq!(selector.as_deref(), Some("a=b"), "{line:?}");
        }
        let Verb::Apply { names, server_side, .. } = parse(&["apply", "--", "--server-side"]).unwrap();
        assert_eq!((names, server_side), (vec!["--server-side".to_string()], false));
    }

    #[test]
    fn the_change_cause_is_the_command_line_as_kubectl_records_it() {
        let mut command = with_pflag_grammar(<Example as clap::CommandFactory>::command());
        command.build();
        let args: Vec<OsString> =
            ["/usr/bin/kubeupd", "apply", "web", "-l", "a=b", "--server-side", "-AR=false", "-fx.yaml", "--", "-y"]
                .into_iter()
                .map(OsString::from)
                .collect();
        assert_eq!(
            change_cause(&command, &args),
            "kubeupd apply web -y --selector=a=b --server-side=true --all-namespaces=true --recursive=false \
             --filename=x.yaml"
        );
    }

    #[test]
    fn global_flags_after_the_verb_are_read_before_the_tree_is_built() {
        let args: Vec<OsString> = ["kubeupd", "patch", "cm", "x", "-n", "ns", "-p", "{}", "--record"]
            .into_iter()
            .map(OsString::from)
            .collect();
        let command = crate::cli::command();
        assert_eq!(change_cause(&command, &args), "kubeupd patch cm x --namespace=ns --patch={} --record=true");
        let words = CommandWords::of(&command, &args);
        assert_eq!((words.subcommands.len(), words.first_other), (1, Some(2)));
    }

    #[test]
    fn usage_errors_in_kubectls_words() {
        let see = "\nSee 'kubeupd apply --help' for usage.\n";
        assert_eq!(parse(&["apply", "--foo"]).unwrap_err(), format!("error: unknown flag: --foo{see}"));
        assert_eq!(parse(&["apply", "--foo=bar"]).unwrap_err(), format!("error: unknown flag: --foo{see}"));
        assert_eq!(parse(&["apply", "-x"]).unwrap_err(), format!("error: unknown shorthand flag: 'x' in -x{see}"));
        assert_eq!(
            parse(&["apply", "--server-side=maybe"]).unwrap_err(),
            format!(
                "error: invalid argument \"maybe\" for \"--server-side\" flag: strconv.ParseBool: parsing \"maybe\": \
                 invalid syntax{see}"
            )
        );
        assert_eq!(parse(&["apply", "-l"]).unwrap_err(), format!("error: flag needs an argument: 'l' in -l{see}"));
        assert_eq!(
            parse(&["apply", "--selector"]).unwrap_err(),
            format!("error: flag needs an argument: --selector{see}")
        );
        assert_eq!(
            parse(&["apply", "--grace-period=abc"]).unwrap_err(),
            format!(
                "error: invalid argument \"abc\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"abc\": \
                 invalid syntax{see}"
            )
        );
        assert_eq!(
            parse(&["aply"]).unwrap_err(),
            "error: unknown command \"aply\" for \"kubeupd\"\n\nDid you mean this?\n\tapply\n"
        );
    }
}
#[cfg(test)]
mod unshadow_tests {
    #[test]
    fn set_subject_user_is_the_subjects() {
        let args: Vec<std::ffi::OsString> =
            ["kubeupd", "-n", "x", "set", "subject", "rb/a", "--user=alice", "--user", "bob"]
                .iter()
                .map(Into::into)
                .collect();
        let out = super::unshadow(&crate::cli::command(), args);
        assert_eq!(out[6], "--subject-user=alice");
        assert_eq!(out[7], "--subject-user");
    }
}

#[cfg(test)]
mod command_first_tests {
    use std::ffi::OsString;

    fn reordered(line: &str) -> Result<String, String> {
        let args: Vec<OsString> = line.split(' ').map(Into::into).collect();
        let out = super::command_first(&crate::cli::command(), args)?;
        Ok(out.iter().map(|arg| arg.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" "))
    }

    #[test]
    fn the_command_comes_first_wherever_its_words_are() {
        assert_eq!(
            reordered("kubeupd --namespace x --overwrite=true annotate pod p a=b").unwrap(),
            "kubeupd annotate --namespace x --overwrite=true pod p a=b"
        );
        assert_eq!(
            reordered("kubeupd create -n argocd secret tls t --cert=c --key=k").unwrap(),
            "kubeupd create secret tls -n argocd t --cert=c --key=k"
        );
        // A flag's value that is also a verb's name stays the value (`-o name`).
        assert_eq!(reordered("kubeupd -o name get pods").unwrap(), "kubeupd get -o name pods");
        assert_eq!(reordered("kubeupd get pods -- apply").unwrap(), "kubeupd get pods -- apply");
    }

    #[test]
    fn a_flag_before_an_unknown_word_is_kubectls_error() {
        // As cobra reads it, `-A` (not a global flag) takes `get` as its value: no verb is left.
        assert_eq!(
            reordered("kubeupd -A get pods").unwrap_err(),
            "Error: flags cannot be placed before plugin name: -A\n"
        );
        assert_eq!(
            reordered("kubeupd --bogus get pods").unwrap_err(),
            "Error: flags cannot be placed before plugin name: --bogus\n"
        );
        // A boolean global flag takes no value; `--flag=value` never does.
        assert!(reordered("kubeupd --insecure-skip-tls-verify get pods").is_ok());
        assert!(reordered("kubeupd --bogus=1 get pods").is_ok());
    }
}
#[cfg(test)]
mod suggestion_tests {
    #[test]
    fn unknown_commands_get_cobras_suggestions() {
        // By distance, by prefix, and kubectl 1.37's SuggestFor words.
        let suggested = |typed: &str| crate::cli::parse(["kubeupd", typed]).err().unwrap();
        assert_eq!(suggested("ls"), "error: unknown command \"ls\" for \"kubeupd\"\n\nDid you mean this?\n\tget\n");
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

#[cfg(test)]
mod typed_value_tests {
    use std::ffi::OsString;

    use super::*;

    /// The line after [`split_slices`], NUL shown as `|`.
    fn split(line: &[&str]) -> Result<String, String> {
        let args: Vec<OsString> = std::iter::once("kubeupd").chain(line.iter().copied()).map(Into::into).collect();
        let out = split_slices(&crate::cli::command(), args)?;
        Ok(out.iter().skip(1).map(|arg| arg.to_string_lossy().replace('\0', "|")).collect::<Vec<_>>().join(" "))
    }

    #[test]
    fn string_slices_are_read_as_one_csv_record() {
        assert_eq!(split(&["apply", "-f", "\"a,b\",c"]).unwrap(), "apply --filename=a,b|c");
        assert_eq!(split(&["apply", "-Rf", "a,b"]).unwrap(), "apply -R --filename=a|b");
        assert_eq!(split(&["apply", "-Rfa,b", "-n", "x"]).unwrap(), "apply -R --filename=a|b -n x");
        assert_eq!(split(&["apply", "--filename", "a", "-l", "x=y"]).unwrap(), "apply --filename=a -l x=y");
        // An empty value sets nothing; after `--` nothing is a flag.
        assert_eq!(split(&["apply", "-f=", "-n", "x"]).unwrap(), "apply -n x");
        assert_eq!(split(&["apply", "-n", "-f", "--", "-f", "a,b"]).unwrap(), "apply -n -f -- -f a,b");
        // A value taken by another flag is not one.
        assert_eq!(split(&["apply", "-l", "-f", "x"]).unwrap(), "apply -l -f x");
        assert_eq!(
            split(&["apply", "-f", "a\"b"]).unwrap_err(),
            "error: invalid argument \"a\\\"b\" for \"-f, --filename\" flag: parse error on line 1, column 2: bare \" \
             in non-quoted-field\nSee 'kubeupd apply --help' for usage.\n"
        );
    }

    #[test]
    fn klog_flags_read_as_klog_reads_them() {
        assert_eq!(module_spec("a=1,b*=2,").unwrap(), "a=1,b*=2,");
        assert_eq!(module_spec("x").unwrap_err(), "syntax error: expect comma-separated list of filename=N");
        assert_eq!(module_spec("x=0x1").unwrap_err(), "syntax error: expect comma-separated list of filename=N");
        assert_eq!(module_spec("x=-1").unwrap_err(), "negative value for vmodule level");
        assert_eq!(level("3"), Ok(3));
        assert!(level("0x3").is_err());
        assert_eq!(go_flag_duration("5").unwrap_err(), "parse error");
        assert_eq!(duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(duration("-1s"), Ok(Duration::ZERO));
        assert_eq!(duration("30").unwrap_err(), "time: missing unit in duration \"30\"");
    }
}
