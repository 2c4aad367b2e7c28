//! kubectl's preferences file (kuberc, kubectl 1.33+): default option values per command, and
//! aliases, applied to the command line before it is parsed, as kubectl applies them.
//!
//! The file is `--kuberc PATH`, else `$KUBERC` (`off` turns preferences off), else
//! `~/.kube/kuberc` when it exists. `kubectl.config.k8s.io/v1beta1` has `defaults` and `aliases`
//! with `options`; v1alpha1 names them `overrides` and `flags`. An alias `kubeupd ALIAS ARGS`
//! becomes `kubeupd COMMAND PREPEND_ARGS ARGS APPEND_ARGS` with the alias's options that ARGS do
//! not set; defaults apply to the command itself (not to its aliases) for the options the
//! command line does not set.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Arg, Command};

use super::pflag::CommandWords;
use serde_json::Value;

/// The preferences that concern one command line.
#[derive(Debug, Default, PartialEq)]
struct Preferences {
    /// Per command (`apply`, `apply view-last-applied`): options and their default values.
    defaults: Vec<(String, Vec<(String, String)>)>,
    aliases: Vec<Alias>,
}

#[derive(Debug, PartialEq)]
struct Alias {
    name: String,
    command: String,
    prepend: Vec<String>,
    append: Vec<String>,
    options: Vec<(String, String)>,
}

/// `args` (the program name first) with the preferences of the kuberc file applied; an error in
/// kubectl's words when the file named cannot be read or names an option the command lacks.
pub fn apply(command: &Command, args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let Some(path) = file(&args) else { return Ok(args) };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && !explicit(&args) => return Ok(args),
        Err(err) => {
            return Err(format!(
                "error occurred while applying preferences kuberc error kuberc: open {}: {}",
                path.display(),
                crate::gocompat::os::error_text(&err)
            ));
        }
    };
    let preferences = parse(&text, &path)?;
    expand(command, args, &preferences)
}

/// The kuberc file in force: `--kuberc`, `$KUBERC`, or `~/.kube/kuberc`.
fn file(args: &[OsString]) -> Option<PathBuf> {
    if std::env::var("KUBECTL_KUBERC").is_ok_and(|gate| gate == "false") {
        return None;
    }
    if let Some(path) = flag_value(args) {
        return Some(PathBuf::from(path));
    }
    match std::env::var_os("KUBERC") {
        Some(value) if value == "off" => None,
        Some(value) if !value.is_empty() => Some(PathBuf::from(value)),
        _ => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".kube").join("kuberc")),
    }
}

fn explicit(args: &[OsString]) -> bool {
    flag_value(args).is_some() || std::env::var_os("KUBERC").is_some_and(|value| !value.is_empty())
}

/// The value of `--kuberc` on the command line.
fn flag_value(args: &[OsString]) -> Option<String> {
    let words: Vec<&str> = args.iter().filter_map(|arg| arg.to_str()).collect();
    let end = words.iter().position(|word| *word == "--").unwrap_or(words.len());
    words[..end].iter().enumerate().rev().find_map(|(at, word)| match word.strip_prefix("--kuberc") {
        Some(value) if value.starts_with('=') => Some(value[1..].to_string()),
        Some("") => words.get(at + 1).map(|value| value.to_string()),
        _ => None,
    })
}

/// The preferences of a kuberc document; unknown fields are warned about and left, as kubectl does.
fn parse(text: &str, path: &std::path::Path) -> Result<Preferences, String> {
    let document: Value = serde_saphyr::from_str(text)
        .map_err(|err| format!("error occurred while applying preferences kuberc: {}: {err}", path.display()))?;
    let Some(fields) = document.as_object() else { return Ok(Preferences::default()) };
    let alpha = document["apiVersion"] == "kubectl.config.k8s.io/v1alpha1";
    let (defaults_key, options_key) = if alpha { ("overrides", "flags") } else { ("defaults", "options") };
    const KNOWN: [&str; 6] =
        ["apiVersion", "kind", "aliases", "credentialPluginPolicy", "credentialPluginAllowlist", ""];
    for key in fields.keys().filter(|key| !KNOWN.contains(&key.as_str()) && key.as_str() != defaults_key) {
        eprintln!(
            "kuberc: ignoring strict decoding error in {}: strict decoding error: unknown field {key:?}",
            path.display()
        );
    }
    let strings = |value: &Value| -> Vec<String> {
        value.as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from).collect()
    };
    let options = |value: &Value| -> Vec<(String, String)> {
        value[options_key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|option| {
                let default = match &option["default"] {
                    Value::String(text) => text.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                Some((option["name"].as_str()?.to_string(), default))
            })
            .collect()
    };
    let defaults = document[defaults_key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| Some((entry["command"].as_str()?.to_string(), options(entry))))
        .collect();
    let aliases = document["aliases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|alias| {
            Some(Alias {
                name: alias["name"].as_str()?.to_string(),
                command: alias["command"].as_str()?.to_string(),
                prepend: strings(&alias["prependArgs"]),
                append: strings(&alias["appendArgs"]),
                options: options(alias),
            })
        })
        .collect();
    Ok(Preferences { defaults, aliases })
}

/// The command line with the alias it starts with expanded, or the defaults of its command added.
fn expand(root: &Command, args: Vec<OsString>, preferences: &Preferences) -> Result<Vec<OsString>, String> {
    let named = CommandWords::of(root, &args);
    let words: Vec<String> = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
    let alias = match (named.subcommands.first(), named.first_other) {
        (None, Some(first)) => {
            preferences.aliases.iter().find(|alias| alias.name == words[first]).map(|alias| (first, alias))
        }
        _ => None,
    };
    let (mut line, path_end, options, command_name) = match alias {
        Some((first, alias)) => {
            let mut line: Vec<String> = words[..first].to_vec();
            line.extend(alias.command.split(' ').map(String::from));
            let path_end = line.len();
            line.extend(alias.prepend.iter().cloned());
            line.extend(words[first + 1..].iter().cloned());
            line.extend(alias.append.iter().cloned());
            (line, path_end, alias.options.clone(), alias.command.clone())
        }
        None => {
            let Some((last, _)) = named.subcommands.last() else { return Ok(args) };
            let path: Vec<&str> = named.subcommands.iter().map(|(_, sub)| sub.get_name()).collect();
            let path = path.join(" ");
            let options = preferences
                .defaults
                .iter()
                .find(|(command, _)| *command == path)
                .map(|(_, options)| options.clone())
                .unwrap_or_default();
            (words, last + 1, options, path)
        }
    };
    let Some(verb) = command_name.split(' ').try_fold(root, |command, name| command.find_subcommand(name)) else {
        return Ok(line.into_iter().map(OsString::from).collect());
    };
    let mut added = Vec::new();
    for (name, default) in &options {
        let Some(arg) = verb.get_arguments().chain(root.get_arguments()).find(|arg| arg.get_long() == Some(name))
        else {
            return Err(format!(
                "error occurred while applying preferences invalid flag {name} for command {command_name}"
            ));
        };
        if !given(arg, &line[path_end..]) {
            added.push(format!("--{name}={default}"));
        }
    }
    line.splice(path_end..path_end, added);
    Ok(line.into_iter().map(OsString::from).collect())
}

/// Whether `words` set the option `arg`, by its long name or its shorthand.
fn given(arg: &Arg, words: &[String]) -> bool {
    let long = arg.get_long().map(|long| format!("--{long}"));
    words.iter().take_while(|word| *word != "--").any(|word| {
        let by_long = long.as_ref().is_some_and(|long| word == long || word.starts_with(&format!("{long}=")));
        let by_short = arg.get_short().is_some_and(|short| {
            word.strip_prefix('-').is_some_and(|rest| !rest.starts_with('-') && rest.starts_with(short))
        });
        by_long || by_short
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBERC: &str = "
apiVersion: kubectl.config.k8s.io/v1beta1
kind: Preference
defaults:
- command: apply
  options:
  - {name: server-side, default: \"true\"}
- command: get
  options:
  - {name: output, default: name}
aliases:
- name: getcm
  command: get
  prependArgs: [configmaps]
  appendArgs: [extra]
  options:
  - {name: output, default: json}
- name: get
  command: version
";

    fn expanded(line: &str) -> Result<String, String> {
        let preferences = parse(KUBERC, std::path::Path::new("kuberc")).unwrap();
        let mut root = crate::cli::command();
        root.build();
        let args = line.split(' ').map(OsString::from).collect();
        let words = expand(&root, args, &preferences)?;
        Ok(words.iter().map(|word| word.to_string_lossy()).collect::<Vec<_>>().join(" "))
    }

    #[test]
    fn defaults_fill_in_what_the_line_does_not_set() {
        assert_eq!(expanded("kubeupd apply -f x.yaml").unwrap(), "kubeupd apply --server-side=true -f x.yaml");
        assert_eq!(
            expanded("kubeupd apply -f x.yaml --server-side=false").unwrap(),
            "kubeupd apply -f x.yaml --server-side=false"
        );
        assert_eq!(expanded("kubeupd -n x get cm").unwrap(), "kubeupd -n x get --output=name cm");
        assert_eq!(expanded("kubeupd get cm -oyaml").unwrap(), "kubeupd get cm -oyaml");
        assert_eq!(expanded("kubeupd diff -f x").unwrap(), "kubeupd diff -f x");
    }

    #[test]
    fn aliases_expand_and_never_shadow_a_verb() {
        assert_eq!(expanded("kubeupd getcm a").unwrap(), "kubeupd get --output=json configmaps a extra");
        assert_eq!(expanded("kubeupd getcm a -o name").unwrap(), "kubeupd get configmaps a -o name extra");
        assert_eq!(expanded("kubeupd get cm").unwrap(), "kubeupd get --output=name cm", "the verb wins");
    }

    #[test]
    fn an_option_the_command_lacks_is_an_error() {
        let preferences = parse(
            "apiVersion: kubectl.config.k8s.io/v1alpha1\nkind: Preference\noverrides:\n- command: get\n  flags:\n  - {name: nosuchflag, default: x}\n",
            std::path::Path::new("kuberc"),
        )
        .unwrap();
        let mut root = crate::cli::command();
        root.build();
        let err = expand(&root, vec!["kubeupd".into(), "get".into(), "cm".into()], &preferences).unwrap_err();
        assert_eq!(err, "error occurred while applying preferences invalid flag nosuchflag for command get");
    }
}
