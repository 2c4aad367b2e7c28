//! Every flag kubectl defines for the commands kubeupd has, read from kubectl's own source (not
//! typed in here, not read from its `--help`, which leaves hidden and deprecated flags out), must
//! parse in kubeupd with its type and kubectl's grammar: a boolean bare and with `=true` /
//! `=false`, a value after `=` and after a space (and refused without one), shorthands; a
//! deprecated flag warns as pflag does. A flag kubeupd refuses on purpose is listed in
//! docs/command-line.md with the reason. Each flag's values are read by its pflag type: values
//! of each type (`1_000` and `08` for an integer, `1m30s` and `30` for a duration, `a"b` for a
//! `stringSlice`, ...) are taken or refused as kubectl takes or refuses them, in its words.
//!
//! kubectl's command tree is dumped by scripts/kubectl-flags (a Go program built on the
//! k8s.io/kubectl of the reference kubectl) into `testdata/golden/kubectl-flags.json`; kubectl's
//! verdicts on the values (exit status and first line of stderr of `kubectl ... --flag=VALUE
//! --help`, which parses the flags and stops) into `testdata/golden/kubectl-flag-values.json`.

use std::path::Path;

use serde_json::Value;

use crate::golden::{self, Run};

/// One flag as kubectl's source defines it (pflag's fields).
#[derive(Debug, Clone)]
struct Flag {
    name: String,
    shorthand: Option<char>,
    kind: String,
    default: String,
    /// The value of the bare flag (pflag's `NoOptDefVal`): `true` for a boolean, `unchanged` for
    /// `--dry-run`; a flag with one takes its value only after `=`.
    no_opt_default: Option<String>,
    deprecated: Option<String>,
}

impl Flag {
    fn from_json(flag: &Value) -> Flag {
        let text = |key: &str| flag[key].as_str().filter(|text| !text.is_empty()).map(String::from);
        Flag {
            name: text("name").unwrap(),
            shorthand: text("shorthand").and_then(|short| short.chars().next()),
            kind: text("type").unwrap(),
            default: text("default").unwrap_or_default(),
            no_opt_default: text("no_opt_default"),
            deprecated: text("deprecated"),
        }
    }

    fn is_bool(&self) -> bool {
        self.kind == "bool"
    }

    /// A value kubectl accepts for the flag: its default where it has one, else a sample.
    fn sample(&self) -> String {
        let by_name = match self.name.as_str() {
            "output" => Some("json"),
            "selector" => Some("app=web"),
            "field-selector" => Some("metadata.name=web"),
            "subresource" => Some("status"),
            "sort-by" => Some(".metadata.name"),
            "kustomize" => Some("overlays/prod"),
            "template" => Some("{{.metadata.name}}"),
            "label-columns" => Some("app"),
            "patch" => Some("{}"),
            "raw" => Some("/api"),
            "for" => Some("delete"),
            "prune-allowlist" => Some("core/v1/ConfigMap"),
            "aggregation-rule" => Some("rbac.example.com/aggregate-to-edit=true"),
            "vmodule" => Some("x=1"),
            // A file that is there: kubectl refuses a missing kuberc named on the command line.
            "kuberc" => Some("/dev/null"),
            _ => None,
        };
        let default = Some(self.default.as_str()).filter(|default| !default.is_empty() && *default != "[]");
        let by_type = match self.kind.as_str() {
            "int" | "int32" | "int64" | "Level" => "1",
            "duration" => "1s",
            _ => "x",
        };
        by_name.or(default).unwrap_or(by_type).to_string()
    }

    /// The ways of writing the flag that kubectl takes, each a few words: with `all`, every form;
    /// else one (for a flag inherited from the root, whose every form is checked there).
    fn spellings(&self, all: bool) -> Vec<Vec<String>> {
        let long = format!("--{}", self.name);
        let mut spellings = Vec::new();
        if self.is_bool() {
            spellings.push(vec![long.clone()]);
            if all {
                spellings.push(vec![format!("{long}=false")]);
                spellings.push(vec![format!("{long}=true")]);
                if let Some(short) = self.shorthand {
                    spellings.push(vec![format!("-{short}")]);
                    spellings.push(vec![format!("-{short}=false")]);
                }
            }
            return spellings;
        }
        let value = self.sample();
        spellings.push(vec![format!("{long}={value}")]);
        if !all {
            return spellings;
        }
        match self.no_opt_default {
            Some(_) => spellings.push(vec![long.clone()]),
            None => spellings.push(vec![long.clone(), value.clone()]),
        }
        if let Some(short) = self.shorthand {
            spellings.push(vec![format!("-{short}"), value.clone()]);
            spellings.push(vec![format!("-{short}{value}")]);
            spellings.push(vec![format!("-{short}={value}")]);
        }
        spellings
    }
}

/// One kubectl command: its path (`create secret tls`), its own flags and the names of those it
/// inherits.
struct KubectlCommand {
    path: String,
    own: Vec<Flag>,
    inherited: Vec<String>,
}

/// kubectl's command tree from the golden file, after checking that it was dumped from the
/// k8s.io/kubectl of the reference kubectl (v0.X.Y for kubectl v1.X.Y).
fn kubectl_commands() -> Vec<KubectlCommand> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let program = root.join("scripts/kubectl-flags");
    let tree = golden::program_output("kubectl-flags", &[&program], &["go", "-C", "scripts/kubectl-flags", "run", "."]);
    let kubectl = tree["kubectl"].as_str().unwrap();
    let module = tree["kubectl_module"].as_str().unwrap();
    assert_eq!(
        module.strip_prefix("v0."),
        kubectl.strip_prefix("v1."),
        "scripts/kubectl-flags/go.mod pins k8s.io/kubectl {module}, not the reference kubectl's ({kubectl})"
    );
    let commands = tree["commands"].as_array().unwrap();
    commands
        .iter()
        .map(|command| KubectlCommand {
            path: command["path"].as_str().unwrap().to_string(),
            own: command["flags"].as_array().unwrap().iter().map(Flag::from_json).collect(),
            inherited: (command["inherited"].as_array().unwrap().iter())
                .map(|name| name.as_str().unwrap().to_string())
                .collect(),
        })
        .collect()
}

/// The flag `name` that `path` inherits: defined by the nearest command above it that owns it.
fn inherited<'a>(commands: &'a [KubectlCommand], path: &str, name: &str) -> &'a Flag {
    let mut words: Vec<&str> = path.split(' ').filter(|word| !word.is_empty()).collect();
    while words.pop().is_some() {
        let parent = words.join(" ");
        let owner = commands.iter().find(|command| command.path == parent);
        if let Some(flag) = owner.and_then(|owner| owner.own.iter().find(|flag| flag.name == name)) {
            return flag;
        }
    }
    panic!("{path}: no command above it defines --{name}")
}

/// Whether kubeupd has the command `path` (its words, from the root).
fn kubeupd_has(path: &str) -> bool {
    let mut command = &kubeupd::cli::command();
    for word in path.split(' ').filter(|word| !word.is_empty()) {
        match command.find_subcommand(word) {
            Some(sub) => command = sub,
            None => return false,
        }
    }
    true
}

/// The line a command needs before a flag can be checked alone: the root's flags with `get`, a
/// generator of `create` with the object's name.
fn base(path: &str) -> Vec<String> {
    let mut line = vec!["kubeupd".to_string()];
    line.extend(if path.is_empty() { "get" } else { path }.split(' ').map(String::from));
    if path.starts_with("create ") {
        line.push("x".into());
    }
    if path == "completion" {
        line.push("bash".into());
    }
    line
}

/// Flags that belong to an open issue of their own (none left).
fn pending(_path: &str, _flag: &Flag) -> bool {
    false
}

/// Whether docs/command-line.md lists `--name` as refused, alone (a global flag) or after `path`.
fn refused_in_docs(page: &str, path: &str, name: &str) -> bool {
    page.contains(&format!("- `--{name}")) || page.contains(&format!("- `{path} --{name}`"))
}

/// What went wrong with `flag` on `path`: spellings refused, a value flag taken without a value,
/// a deprecated flag that does not warn.
fn check(path: &str, flag: &Flag, all: bool) -> Vec<String> {
    let mut wrong = Vec::new();
    for spelling in flag.spellings(all) {
        let mut line = base(path);
        line.extend(spelling);
        match kubeupd::cli::parse(&line) {
            Err(error) => wrong.push(format!("{}: {}", line[1..].join(" "), error.lines().next().unwrap_or_default())),
            Ok(cli) => {
                let Some(message) = &flag.deprecated else { continue };
                let warning = format!("Flag --{} has been deprecated, {message}", flag.name);
                if !cli.deprecated.contains(&warning) {
                    wrong.push(format!("{}: does not warn {warning:?}", line[1..].join(" ")));
                }
            }
        }
    }
    // A flag that takes a value must not be taken without one (it would be a boolean).
    if all && !flag.is_bool() && flag.no_opt_default.is_none() {
        let mut line = base(path);
        line.push(format!("--{}", flag.name));
        match kubeupd::cli::parse(&line) {
            Err(error) if error.contains("flag needs an argument") => {}
            other => wrong.push(format!("{}: taken without a value: {:?}", line[1..].join(" "), other.map(drop))),
        }
    }
    wrong
}

/// What is wrong with the flags of `command` (refusals that docs/command-line.md lists left out),
/// and how many were checked; the kustomize issue's flags are listed in `pending`.
fn check_command(
    commands: &[KubectlCommand],
    command: &KubectlCommand,
    page: &str,
) -> (Vec<String>, Vec<String>, usize) {
    let (mut wrong, mut pending_flags, mut checked) = (Vec::new(), Vec::new(), 0);
    let prefix = format!("{} ", command.path);
    if command.own.is_empty() && commands.iter().any(|sub| sub.path.starts_with(&prefix)) {
        // A group (`set`, `create secret`) runs no verb: its flags are checked on its verbs.
        return (wrong, pending_flags, checked);
    }
    // Own flags in every spelling (the root's with `get`), inherited ones once each.
    let inherited = command.inherited.iter().map(|name| (inherited(commands, &command.path, name), false));
    for (flag, all) in command.own.iter().map(|flag| (flag, true)).chain(inherited) {
        if all && pending(&command.path, flag) {
            pending_flags.push(format!("{} --{}", command.path, flag.name));
            continue;
        }
        checked += 1;
        let problems = check(&command.path, flag, all);
        if !problems.is_empty() && !refused_in_docs(page, &command.path, &flag.name) {
            wrong.extend(problems);
        }
    }
    (wrong, pending_flags, checked)
}

#[test]
fn every_kubectl_flag_parses_with_its_type_and_kubectls_grammar() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/command-line.md")).unwrap();
    let commands = kubectl_commands();
    let (ours, missing): (Vec<&KubectlCommand>, Vec<&KubectlCommand>) =
        commands.iter().partition(|command| kubeupd_has(&command.path));
    // Each parse builds the command tree: the commands are checked on every core.
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let results: Vec<(Vec<String>, Vec<String>, usize)> = std::thread::scope(|scope| {
        let chunks = ours.chunks(ours.len().div_ceil(workers));
        let handles: Vec<_> = chunks
            .map(|chunk| {
                let (commands, page) = (&commands, &page);
                scope.spawn(move || {
                    chunk.iter().map(|command| check_command(commands, command, page)).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|handle| handle.join().unwrap()).collect()
    });
    let wrong: Vec<String> = results.iter().flat_map(|(wrong, _, _)| wrong.clone()).collect();
    let pending_flags: Vec<String> = results.iter().flat_map(|(_, pending, _)| pending.clone()).collect();
    let flags_checked: usize = results.iter().map(|(_, _, checked)| checked).sum();
    let missing: Vec<&str> = missing.iter().map(|command| command.path.as_str()).collect();
    println!("kubectl commands kubeupd does not have ({}): {}", missing.len(), missing.join(", "));
    println!("flags left to the kustomize issue ({}): {}", pending_flags.len(), pending_flags.join(", "));
    println!("{flags_checked} flags of {} commands checked", ours.len());
    assert!(ours.len() > 40 && flags_checked > 1000, "{} commands, {flags_checked} flags", ours.len());
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn flags_refused_on_purpose_say_why_and_are_in_the_docs() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/command-line.md")).unwrap();
    for (line, reason) in REFUSED {
        // Named alone (a global flag) or after its verb.
        let flag = line[1].split('=').next().unwrap();
        let listed = page.contains(&format!("- `{flag}")) || page.contains(&format!("- `{} {flag}`", line[0]));
        assert!(listed, "docs/command-line.md lists {flag}");
        let output = assert_cmd::Command::cargo_bin("kubeupd").unwrap().args(*line).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{line:?}: {stderr}");
        assert!(stderr.contains(reason), "{line:?} says why: {stderr}");
    }
}

/// Flags kubeupd refuses on purpose, a command line each, with words of the reason it gives.
const REFUSED: &[(&[&str], &str)] = &[
    (&["wait", "--local", "cm/x"], "a condition can only be waited for on the server"),
    (&["get", "--match-server-version", "cm"], "no Kubernetes version of its own"),
    (&["get", "--profile=cpu", "cm"], "no Go profiles"),
    (&["proxy", "--www=/tmp"], "not static files"),
    (&["proxy", "--append-server-path"], "always puts the server URL's path"),
];

/// Values of a flag of pflag type `kind`, some taken and some refused by kubectl: Go's integers
/// in base 0 (klog's `-v` in base 10) and their ranges, Go's durations, CSV for `stringSlice`
/// (none for a `string`, which takes any value).
fn values(kind: &str) -> &'static [&'static str] {
    match kind {
        "bool" => &["T", "yes"],
        "int" | "int32" | "int64" | "Level" => {
            &["0x1F", "1_000", "0o17", "08", "-1", "1.5", "2147483648", "9223372036854775808"]
        }
        "duration" => &["1m30s", "30", "0", "-1s", "1.5h", "", "5q", ".5s"],
        "stringSlice" => &["a,b", "\"a,b\",c", "a\"b", "\"a", ""],
        "stringArray" => &["a,\"b"],
        "stringToString" | "mapStringString" => &["a=b,c=d", "a", ""],
        "moduleSpec" => &["x=1", "x"],
        "tristate" => &["true", "maybe"],
        _ => &[],
    }
}

/// Each flag of the commands kubeupd has (its own, the root's with `get`), with a value for it:
/// the command's path, the flag, and the line after the program's name.
fn value_lines(commands: &[KubectlCommand], page: &str) -> Vec<(String, String, Vec<String>)> {
    let mut lines = Vec::new();
    for command in commands.iter().filter(|command| kubeupd_has(&command.path)) {
        for flag in &command.own {
            let skipped = pending(&command.path, flag)
                || refused_in_docs(page, &command.path, &flag.name)
                // Another change reads `wait --for` (a stringArray in kubectl 1.37).
                || (command.path == "wait" && flag.name == "for");
            if skipped {
                continue;
            }
            for value in values(&flag.kind) {
                let mut line = base(&command.path);
                line.remove(0);
                line.push(format!("--{}={value}", flag.name));
                lines.push((command.path.clone(), flag.name.clone(), line));
            }
        }
    }
    lines
}

#[test]
fn every_flag_takes_and_refuses_values_as_kubectl_does() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/command-line.md")).unwrap();
    let commands = kubectl_commands();
    let lines = value_lines(&commands, &page);
    let runs: Vec<Run> = lines
        .iter()
        .map(|(_, _, line)| {
            let mut args: Vec<&str> = line.iter().map(String::as_str).collect();
            args.push("--help");
            Run::new(&args)
        })
        .collect();
    let verdicts = golden::verdicts("kubectl-flag-values", &runs);
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let checks: Vec<_> = lines.iter().zip(&verdicts).collect();
    let wrong: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = checks
            .chunks(checks.len().div_ceil(workers))
            .map(|chunk| {
                scope.spawn(move || {
                    let mut wrong = Vec::new();
                    for ((_, _, line), (exit, first_line)) in chunk {
                        let ours =
                            kubeupd::cli::parse(std::iter::once("kubeupd").chain(line.iter().map(String::as_str)));
                        let theirs = if *exit == 0 { Ok(()) } else { Err(first_line.as_str()) };
                        let ours_first = ours.as_ref().map(drop).map_err(|err| err.lines().next().unwrap_or_default());
                        if ours_first != theirs {
                            wrong
                                .push(format!("{}:\n  kubectl: {theirs:?}\n  kubeupd: {ours_first:?}", line.join(" ")));
                        }
                    }
                    wrong
                })
            })
            .collect();
        handles.into_iter().flat_map(|handle| handle.join().unwrap()).collect()
    });
    let refused = verdicts.iter().filter(|(exit, _)| *exit != 0).count();
    println!("{} values checked, {refused} of them refused by kubectl", lines.len());
    assert!(lines.len() > 500 && refused > 100, "{} values, {refused} refused", lines.len());
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}
