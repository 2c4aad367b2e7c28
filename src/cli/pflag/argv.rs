//! The one reading of a command line's words as pflag and cobra read them: which words name the
//! command ([`CommandWords`]), the command's words put first ([`command_first`]), shadowing local
//! flags renamed ([`unshadow`]), `stringSlice` values read as CSV ([`split_slices`]), and the line
//! `--record` writes ([`change_cause`]).

use std::ffi::OsString;

use clap::{Arg, Command};

use super::{SLICE_SEPARATOR, is_string_slice, pflag_names};
use crate::gocompat;

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
                pflag_names(arg, command)
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

/// kubectl's local flags that shadow a global flag of the same name in one command (`set subject
/// --user` names a subject, not the kubeconfig user): the command's words, the flag, and the
/// name the local flag has here.
const SHADOWING: &[(&[&str], &str, &str)] = &[
    (&["set", "subject"], "--user", "--subject-user"),
    (&["create", "rolebinding"], "--user", "--subject-user"),
    (&["create", "clusterrolebinding"], "--user", "--subject-user"),
    (&["config", "set-context"], "--namespace", "--context-namespace"),
    (&["config", "set-context"], "-n", "--context-namespace"),
    (&["config", "set-context"], "--cluster", "--context-cluster"),
    (&["config", "set-context"], "--user", "--context-user"),
    (&["config", "set-cluster"], "--server", "--cluster-server"),
    (&["config", "set-cluster"], "--certificate-authority", "--cluster-certificate-authority"),
    (&["config", "set-cluster"], "--insecure-skip-tls-verify", "--cluster-insecure-skip-tls-verify"),
    (&["config", "set-cluster"], "--tls-server-name", "--cluster-tls-server-name"),
    (&["config", "set-cluster"], "--proxy-url", "--cluster-proxy-url"),
    (&["config", "set-credentials"], "--client-certificate", "--user-client-certificate"),
    (&["config", "set-credentials"], "--client-key", "--user-client-key"),
    (&["config", "set-credentials"], "--token", "--user-token"),
    (&["config", "set-credentials"], "--username", "--user-username"),
    (&["config", "set-credentials"], "--password", "--user-password"),
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

/// `text`, a usage error about `args` (as [`unshadow`] left them), with the renamed local flags
/// called by the names the user wrote, as kubectl's errors call them.
pub fn shadowed_names(root: &Command, args: &[OsString], text: String) -> String {
    let words = CommandWords::of(root, args);
    let path: Vec<&str> = words.subcommands.iter().map(|(_, command)| command.get_name()).collect();
    SHADOWING
        .iter()
        .filter(|(command, global, _)| path == *command && global.starts_with("--"))
        .fold(text, |text, (_, global, local)| text.replace(&format!("\"{local}\""), &format!("\"{global}\"")))
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
pub(super) fn takes_value(arg: &Arg) -> bool {
    match arg.get_num_args() {
        Some(range) => range.min_values() > 0,
        None => arg.get_action().takes_values(),
    }
}

/// The command as the user would type it for help, e.g. `kubeupd apply` or `kubectl upd apply`.
pub(super) fn command_path<'a>(command: &'a Command, args: &[OsString]) -> (String, &'a Command) {
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
