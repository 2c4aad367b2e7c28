//! Every flag that the installed kubectl lists for the verbs kubeupd has, read from kubectl's own
//! `--help` (not typed in here), must parse in kubeupd with kubectl's grammar: booleans bare and
//! with `=true` / `=false`, values after `=` and after a space, shorthands. Flags that kubeupd
//! refuses on purpose must still parse, and be listed in docs/command-line.md with the reason.
//!
//! kubectl's help is recorded in `testdata/golden/flags-help.json`.

use crate::golden::{self, Run};

/// The verbs whose flags are compared, as kubectl names them.
const VERBS: &[&str] = &[
    "get",
    "apply",
    "diff",
    "patch",
    "replace",
    "edit",
    "wait",
    "apply view-last-applied",
    "apply set-last-applied",
    "version",
    "label",
    "annotate",
    "scale",
    "set image",
    "set env",
    "set resources",
    "set serviceaccount",
    "set selector",
    "set subject",
    "rollout restart",
    "rollout pause",
    "rollout resume",
    "rollout status",
    "rollout history",
    "rollout undo",
    "create",
    "create configmap",
    "create secret generic",
    "create namespace",
    "create serviceaccount",
    "create secret tls",
    "create secret docker-registry",
    "delete",
    "kustomize",
];

/// One flag of kubectl's help: `-f, --filename=[]:` gives short `f`, long `filename`, default `[]`.
#[derive(Debug)]
struct Flag {
    short: Option<char>,
    long: String,
    default: String,
}

impl Flag {
    fn is_bool(&self) -> bool {
        self.default == "false" || self.default == "true"
    }

    /// A value kubectl accepts for the flag: its default where it has one, else a sample.
    fn sample(&self) -> String {
        let unquoted = self.default.trim_matches('\'');
        if !unquoted.is_empty() && unquoted != "[]" {
            return unquoted.to_string();
        }
        match self.long.as_str() {
            "output" => "json",
            "selector" => "app=web",
            "field-selector" => "metadata.name=web",
            "subresource" => "status",
            "sort-by" => ".metadata.name",
            "kustomize" => "overlays/prod",
            "template" => "{{.metadata.name}}",
            "label-columns" => "app",
            "patch" => "{}",
            "raw" => "/api",
            "for" => "delete",
            "prune-allowlist" => "core/v1/ConfigMap",
            // A file that is there: kubectl refuses a missing kuberc named on the command line.
            "kuberc" => "/dev/null",
            _ => "x",
        }
        .to_string()
    }
}

/// Flags whose value pflag takes only after `=` (kubectl gives them a default for the bare flag,
/// `NoOptDefVal`), which `--help` does not show: `--dry-run none` is the flag and an argument.
const VALUE_AFTER_EQUALS_ONLY: &[&str] = &["dry-run", "validate", "cascade"];

/// kubectl's help of each verb (`kubectl VERB --help`), and with `options` the flags every verb
/// takes (`kubectl options`).
fn kubectl_helps() -> Vec<(&'static str, String)> {
    let verbs: Vec<&str> = VERBS.iter().copied().chain(["options"]).collect();
    let runs: Vec<Run> = verbs
        .iter()
        .map(|verb| match *verb {
            "options" => Run::new(&["options"]),
            verb => Run::new(&[verb.split(' ').collect(), vec!["--help"]].concat()),
        })
        .collect();
    let outputs = golden::kubectl("flags-help", &[], &runs);
    verbs
        .into_iter()
        .zip(outputs)
        .map(|(verb, output)| {
            assert!(output.status.success(), "kubectl {verb} --help failed");
            (verb, String::from_utf8(output.stdout).unwrap())
        })
        .collect()
}

/// The flags of a verb's help, or with `options`, the flags every verb takes.
fn kubectl_flags(verb: &str, help: &str) -> Vec<Flag> {
    let heading = if verb == "options" { "can be passed to any command:\n" } else { "\nOptions:\n" };
    let options = help.split_once(heading).expect("an Options section").1;
    let flags: Vec<Flag> = options
        .lines()
        .map(str::trim)
        .filter(|line| line.starts_with('-') && line.ends_with(':'))
        .map(|line| {
            let line = line.trim_end_matches(':');
            let (names, default) = line.split_once('=').expect("--name=default");
            let (short, long) = match names.split_once(", ") {
                Some((short, long)) => (short.chars().nth(1), long),
                None => (None, names),
            };
            Flag { short, long: long.trim_start_matches("--").to_string(), default: default.to_string() }
        })
        .collect();
    assert!(flags.len() > 1, "no flags read from kubectl {verb} --help");
    flags
}

/// The arguments a verb needs before its flags can be checked alone (global flags: with `get`).
fn base(verb: &str) -> Vec<String> {
    let mut line = vec!["kubeupd".to_string()];
    line.extend(if verb == "options" { "get" } else { verb }.split(' ').map(String::from));
    // The generators of `create` take the object's name.
    if verb.starts_with("create ") {
        line.push("x".into());
    }
    line
}

/// Flags that belong to an open issue of their own: the kustomize issue (`kustomize`'s other helm
/// flags, plugin and function flags, `-o`).
fn pending(verb: &str, flag: &Flag) -> bool {
    verb == "kustomize" && !["load-restrictor", "enable-helm", "helm-command"].contains(&flag.long.as_str())
}

fn parses(line: &[String]) -> Result<(), String> {
    kubeupd::cli::parse(line).map(drop)
}

#[test]
fn every_kubectl_flag_parses_with_kubectls_grammar() {
    let mut refused = Vec::new();
    let mut checked = 0;
    for (verb, help) in kubectl_helps() {
        for flag in kubectl_flags(verb, &help) {
            if pending(verb, &flag) {
                continue;
            }
            let long = format!("--{}", flag.long);
            let mut spellings: Vec<Vec<String>> = Vec::new();
            if flag.is_bool() {
                spellings.push(vec![long.clone()]);
                spellings.push(vec![format!("{long}=true")]);
                spellings.push(vec![format!("{long}=false")]);
                if let Some(short) = flag.short {
                    spellings.push(vec![format!("-{short}")]);
                    spellings.push(vec![format!("-{short}=false")]);
                }
            } else {
                let value = flag.sample();
                spellings.push(vec![format!("{long}={value}")]);
                if !VALUE_AFTER_EQUALS_ONLY.contains(&flag.long.as_str()) {
                    spellings.push(vec![long.clone(), value.clone()]);
                }
                if let Some(short) = flag.short {
                    spellings.push(vec![format!("-{short}"), value.clone()]);
                    spellings.push(vec![format!("-{short}{value}")]);
                    spellings.push(vec![format!("-{short}={value}")]);
                }
            }
            for spelling in spellings {
                let mut line = base(verb);
                line.extend(spelling);
                checked += 1;
                if let Err(error) = parses(&line) {
                    refused.push(format!("{}: {}", line[1..].join(" "), error.lines().next().unwrap_or_default()));
                }
            }
        }
    }
    assert!(refused.is_empty(), "{} of {checked} spellings refused:\n{}", refused.len(), refused.join("\n"));
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
];
