//! The command line of each context's process, written from the one given: the same words with
//! `--context NAME` instead of the selection, and without the flags only the parent reads.

use std::ffi::{OsStr, OsString};

/// Flags (all taking a value) that the process running many contexts reads and no child sees.
const PARENT_FLAGS: &[&str] = &["--context", "--cluster-concurrency", "--canary"];

/// `args` (the program first) for the process of `context`: `--context=NAME` first, the parent's
/// flags left out, the value of each flag in `values` replaced (`--plan-out` written to a file
/// of the context's own), and `extra` added at the end (before a `--`).
pub fn for_context(args: &[OsString], context: &str, values: &[(&str, &OsStr)], extra: &[&str]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len() + 1 + extra.len());
    let mut words = args.iter();
    out.extend(words.next().cloned());
    out.push(format!("--context={context}").into());
    let mut extra_added = false;
    while let Some(word) = words.next() {
        let Some(text) = word.to_str() else {
            out.push(word.clone());
            continue;
        };
        if text == "--" {
            out.extend(extra.iter().map(OsString::from));
            extra_added = true;
            out.push(word.clone());
            out.extend(words.by_ref().cloned());
            break;
        }
        let (name, inline_value) = match text.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (text, None),
        };
        if PARENT_FLAGS.contains(&name) {
            if inline_value.is_none() {
                words.next();
            }
            continue;
        }
        if let Some((_, value)) = values.iter().find(|(flag, _)| *flag == name) {
            if inline_value.is_none() {
                words.next();
            }
            let mut replaced = OsString::from(format!("{name}="));
            replaced.push(value);
            out.push(replaced);
            continue;
        }
        out.push(word.clone());
    }
    if !extra_added {
        out.extend(extra.iter().map(OsString::from));
    }
    out
}

/// Whether a `-f -` (or `--filename=-`, `-f-`) reads the standard input: the parent then reads it
/// once and hands each context the same bytes.
pub fn reads_stdin(args: &[OsString]) -> bool {
    flag_values(args, "-f", "--filename").iter().any(|value| value == "-")
}

/// The printer `-o`/`--output` asks for, when it prints documents the parent can gather into one
/// keyed by context: `json` or `yaml`.
pub fn document_output(args: &[OsString]) -> Option<&'static str> {
    match flag_values(args, "-o", "--output").last()?.as_str() {
        "json" => Some("json"),
        "yaml" => Some("yaml"),
        _ => None,
    }
}

/// Every value given to the flag `short`/`long`, in pflag's spellings (`-f x`, `-fx`, `-f=x`,
/// `--filename x`, `--filename=x`), up to a `--`.
fn flag_values(args: &[OsString], short: &str, long: &str) -> Vec<String> {
    let mut values = Vec::new();
    let mut words = args.iter().skip(1).filter_map(|word| word.to_str());
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        if word == short || word == long {
            values.extend(words.next().map(String::from));
        } else if let Some(value) = word.strip_prefix(long).and_then(|rest| rest.strip_prefix('=')) {
            values.push(value.into());
        } else if let Some(rest) = word.strip_prefix(short).filter(|_| !word.starts_with("--")) {
            values.push(rest.strip_prefix('=').unwrap_or(rest).into());
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<OsString> {
        text.split(' ').map(OsString::from).collect()
    }

    fn joined(args: Vec<OsString>) -> String {
        args.iter().map(|word| word.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn each_context_gets_its_name_and_none_of_the_parents_flags() {
        let args = words("kubeupd apply --context a,b -f x.yaml --canary=1 --cluster-concurrency 2 -n web");
        assert_eq!(joined(for_context(&args, "a", &[], &[])), "kubeupd --context=a apply -f x.yaml -n web");
        let args = words("kubeupd --context=prod-* get pods");
        assert_eq!(joined(for_context(&args, "prod-eu", &[], &[])), "kubeupd --context=prod-eu get pods");
    }

    #[test]
    fn values_are_replaced_and_extras_come_before_a_double_dash() {
        let args = words("kubeupd diff -f x.yaml --plan-out all.plan");
        let own = OsStr::new("/tmp/a.plan");
        assert_eq!(
            joined(for_context(&args, "a", &[("--plan-out", own)], &[])),
            "kubeupd --context=a diff -f x.yaml --plan-out=/tmp/a.plan"
        );
        let args = words("kubeupd apply -f x.yaml -- --context");
        assert_eq!(
            joined(for_context(&args, "a", &[], &["--wait-ready"])),
            "kubeupd --context=a apply -f x.yaml --wait-ready -- --context"
        );
    }

    #[test]
    fn stdin_and_document_output_are_read_in_pflags_spellings() {
        assert!(reads_stdin(&words("kubeupd apply -f -")));
        assert!(reads_stdin(&words("kubeupd apply --filename=-")));
        assert!(reads_stdin(&words("kubeupd apply -f-")));
        assert!(!reads_stdin(&words("kubeupd apply -f x.yaml")));
        assert_eq!(document_output(&words("kubeupd get cm -ojson")), Some("json"));
        assert_eq!(document_output(&words("kubeupd get cm --output=yaml")), Some("yaml"));
        assert_eq!(document_output(&words("kubeupd get cm -o wide")), None);
        assert_eq!(document_output(&words("kubeupd get cm")), None);
    }
}
