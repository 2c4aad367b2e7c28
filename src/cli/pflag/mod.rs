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
//!   `See 'kubeupd apply --help' for usage.`), with exit status 1 ([`usage`]).
//!
//! This file holds the grammar and the flag types; [`argv`] reads a command line's words as
//! cobra does, [`usage`] writes the usage errors.

use std::ffi::OsString;
use std::time::Duration;

use clap::{Arg, ArgAction, Command};

use crate::gocompat::{self, strconv::NumError};

mod argv;
mod usage;

pub use argv::{CommandWords, change_cause, command_first, shadowed_names, split_slices, unshadow};
pub use usage::usage_error;

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

/// A flag as pflag names it in errors: `--selector`, or `-l, --selector` with a shorthand (left
/// out when it is deprecated, as `run -f`'s).
fn pflag_names(arg: &Arg, verb: &Command) -> String {
    let deprecated_short = DEPRECATED.iter().any(|flag| {
        flag.shorthand.is_some()
            && flag.shorthand == arg.get_short()
            && Some(flag.name) == arg.get_long()
            && flag.verb.is_none_or(|name| name == verb.get_name())
    });
    match (arg.get_short().filter(|_| !deprecated_short), arg.get_long()) {
        (Some(short), Some(long)) => format!("-{short}, --{long}"),
        (None, Some(long)) => format!("--{long}"),
        (Some(short), None) => format!("-{short}"),
        (None, None) => arg.get_id().to_string(),
    }
}

/// A flag kubectl marks deprecated, with pflag's message for it.
struct Deprecated {
    /// The verb it is deprecated on; `None`: wherever it is defined.
    verb: Option<&'static str>,
    name: &'static str,
    /// Its shorthand, deprecated with it.
    shorthand: Option<char>,
    message: &'static str,
}

/// kubectl's deprecated flags.
const DEPRECATED: &[Deprecated] = &[
    Deprecated { verb: None, name: "record", shorthand: None, message: "--record will be removed in the future" },
    Deprecated {
        verb: None,
        name: "reorder",
        shorthand: None,
        message: "use the new 'sortOptions' field in kustomization.yaml instead.",
    },
    Deprecated {
        verb: None,
        name: "enable-managedby-label",
        shorthand: None,
        message: "The flag `enable-managedby-label` has been deprecated. Use the `managedByLabel` option in the \
                  `buildMetadata` field instead.",
    },
    Deprecated {
        verb: Some("run"),
        name: "filename",
        shorthand: Some('f'),
        message: "it is ignored by kubectl run and will be removed in a future release",
    },
];

/// pflag's warning for each deprecated flag `args` give, in order, as pflag prints them when it
/// sets the flag (`--record=false` too): `Flag --record has been deprecated, ...`, after
/// `Flag shorthand -f has been deprecated, ...` when the shorthand was used.
pub fn deprecations(root: &Command, args: &[OsString]) -> Vec<String> {
    let command = CommandWords::of(root, args).command(root);
    let words: Vec<&str> = args.iter().filter_map(|arg| arg.to_str()).take_while(|arg| *arg != "--").collect();
    let given_long = |name: &str| {
        let long = format!("--{name}");
        words
            .iter()
            .any(|arg| arg.strip_prefix(long.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('=')))
    };
    let given_short = |letter: char| {
        words.iter().any(|arg| {
            arg.strip_prefix('-').filter(|rest| !rest.starts_with('-')).is_some_and(|rest| rest.starts_with(letter))
        })
    };
    let defined = |name: &str| command.get_arguments().any(|arg| arg.get_long() == Some(name));
    let mut warnings = Vec::new();
    for flag in DEPRECATED {
        if !defined(flag.name) || flag.verb.is_some_and(|verb| verb != command.get_name()) {
            continue;
        }
        let short = flag.shorthand.filter(|letter| given_short(*letter));
        if let Some(letter) = short {
            warnings.push(format!("Flag shorthand -{letter} has been deprecated, {}", flag.message));
        }
        if short.is_some() || given_long(flag.name) {
            warnings.push(format!("Flag --{} has been deprecated, {}", flag.name, flag.message));
        }
    }
    warnings
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

/// A boolean flag whose absence is told from `false` (pflag's tristate, or a flag a command asks
/// `Changed()` of): declare it `Option<Tristate>` with `num_args = 0..=1, require_equals = true,
/// default_missing_value = "true", value_parser = tristate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tristate(pub bool);

/// Reads a [`Tristate`] as pflag reads a boolean.
pub fn tristate(text: &str) -> std::result::Result<Tristate, crate::gocompat::strconv::NumError> {
    crate::gocompat::strconv::parse_bool(text).map(Tristate)
}
