//! Reading what the user named: positional arguments in kubectl's forms, or `-f` files.

use std::path::{Path, PathBuf};

use super::Error;
use crate::kustomize;
use crate::manifest::{self, ManifestObject};

/// One thing the user named, before anything is asked of the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Named {
    /// Every object of a type: `TYPE` alone (`get` only).
    Type(String),
    /// One object: `TYPE NAME` or `TYPE/NAME`. `type_apart`: written the first way, with one
    /// type, where kubectl expands a category (`all`) before it reads the names, and so refuses
    /// a category there (`you must specify only one resource`).
    Object { type_arg: String, name: String, type_apart: bool },
    /// An object a file holds.
    Manifest(ManifestObject),
}

/// How a verb lets the user name objects.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The verb, for messages: `get`, `patch`.
    pub verb: &'static str,
    /// Whether a type alone names all its objects (`get deployments`).
    pub types_alone: bool,
    /// Whether a label selector (`-l`) was given: it selects among types, not names.
    pub selector: bool,
}

/// Where `-f` or `-k` say the objects are.
#[derive(Debug, Clone, Copy)]
pub enum Files<'a> {
    /// `-f` files, directories (read recursively when `recursive`) or `-` (stdin).
    Paths { paths: &'a [PathBuf], recursive: bool },
    /// `-k DIR`: the objects the kustomization in `DIR` builds; `notices` is given kustomize's
    /// warnings and log lines of the build, which kubectl prints before anything else.
    Kustomization { dir: &'a Path, load_restrictor: kustomize::LoadRestrictor, notices: BuildNotices },
}

/// Takes what kustomize reports of a `-k` build besides its objects: its warnings and log lines
/// (of a failed build, the warnings it gave before failing).
pub type BuildNotices = fn(warnings: &[String], logs: &[String]);

impl Files<'_> {
    /// Whether no files were named.
    pub fn is_empty(&self) -> bool {
        matches!(self, Files::Paths { paths: [], .. })
    }

    /// The objects, read (or built) in order.
    pub fn read(&self) -> Result<Vec<ManifestObject>, Error> {
        match *self {
            Files::Paths { paths, recursive } => Ok(manifest::read_paths(paths, recursive)?),
            Files::Kustomization { dir, load_restrictor, notices } => {
                // kubectl's -k asks for the legacy order (cli-runtime's KustomizeVisitor).
                let options = kustomize::Options {
                    load_restrictor,
                    environment: &kustomize::process_environment,
                    reorder: kustomize::Reorder::Legacy,
                    ..kustomize::Options::default()
                };
                match build_kustomization(dir, options) {
                    Ok(built) => {
                        notices(&built.warnings, &built.logs);
                        Ok(built.objects)
                    }
                    Err(Error::Kustomize(failure)) => {
                        notices(&failure.warnings, &[]);
                        Err(Error::Kustomize(failure))
                    }
                    Err(other) => Err(other),
                }
            }
        }
    }
}

/// The objects the kustomization in `dir` builds, each with where it came from
/// (`DIR (kustomization)`, its place in the output), and kustomize's warnings.
pub fn build_kustomization(dir: &Path, options: kustomize::Options<'_>) -> Result<Kustomized, Error> {
    let loader = kustomize::GitLoader::default();
    // A URL of a repository (`https://github.com/org/repo//overlays/prod?ref=v1`), unless a local
    // path by that name exists, as kustomize decides.
    let remote = dir.to_str().and_then(kustomize::remote::parse).filter(|_| !dir.exists());
    let absolute = match &remote {
        Some(repo) => {
            let root = kustomize::Loader::checkout(&loader, repo)
                .map_err(|source| kustomize::Error::Fetch { what: dir.display().to_string(), source })
                .map_err(kustomize::Failure::from)?;
            root.join(&repo.path)
        }
        None => std::path::absolute(dir)
            .map_err(|cause| manifest::Error::Read { path: dir.display().to_string(), cause })?,
    };
    let built = kustomize::build(&loader, &absolute, options)?;
    let source = format!("{} (kustomization)", dir.display());
    let objects = built
        .objects
        .into_iter()
        .enumerate()
        .map(|(index, object)| ManifestObject { source: source.clone(), document: index + 1, object })
        .collect();
    Ok(Kustomized { objects, warnings: built.warnings, logs: built.logs })
}

/// A kustomization's objects, warnings and log lines.
#[derive(Debug, Clone)]
pub struct Kustomized {
    pub objects: Vec<ManifestObject>,
    pub warnings: Vec<String>,
    pub logs: Vec<String>,
}

/// kubectl's answer when neither arguments nor files name anything.
pub const NOTHING_NAMED: &str = "You must provide one or more resources by argument or filename.
Example resource specifications include:
   '-f rsrc.yaml'
   '--filename=rsrc.json'
   '<resource> <name>'
   '<resource>'";

/// What `args` (positional arguments) or `files` (`-f` or `-k`) name, one way or the other, in
/// order. Files are read here; nothing is asked of the server.
pub fn parse(args: &[String], files: &Files, rules: Rules) -> Result<Vec<Named>, Error> {
    let named = match (args.is_empty(), files.is_empty()) {
        (true, true) => return Err(usage(NOTHING_NAMED)),
        (false, false) => {
            return Err(usage("arguments cannot be given together with -f: put the objects in the files, or drop -f"));
        }
        (false, true) => from_args(args, rules)?,
        (true, false) => files.read()?.into_iter().map(Named::Manifest).collect(),
    };
    if rules.selector && named.iter().any(|named| !matches!(named, Named::Type(_))) {
        // kubectl's builder tells `TYPE NAME` from `TYPE/NAME` (its resource tuples), which are
        // all or none of the arguments.
        return Err(usage(match args.iter().any(|arg| arg.contains('/')) {
            true => "selectors and the all flag cannot be used when passing resource/name arguments",
            false => "name cannot be provided when a selector is specified",
        }));
    }
    Ok(named)
}

fn usage(message: &str) -> Error {
    Error::Usage(message.to_string())
}

fn from_args(args: &[String], rules: Rules) -> Result<Vec<Named>, Error> {
    let with_slash = args.iter().filter(|arg| arg.contains('/')).count();
    if with_slash > 0 {
        if with_slash != args.len() {
            return Err(Error::Usage(format!(
                "there is no need to specify a resource type as a separate argument when passing arguments in \
                 resource/name form (e.g. 'kubeupd {verb} resource/<resource_name>' instead of \
                 'kubeupd {verb} resource resource/<resource_name>')",
                verb = rules.verb
            )));
        }
        return args
            .iter()
            .map(|arg| match arg.split_once('/') {
                Some((type_arg, name)) if !type_arg.is_empty() && !name.is_empty() && !name.contains('/') => {
                    Ok(Named::Object { type_arg: type_arg.into(), name: name.into(), type_apart: false })
                }
                _ => Err(Error::Usage(format!(
                    "arguments in resource/name form must have a single resource and name: {arg:?}"
                ))),
            })
            .collect();
    }
    let (types, names) = args.split_first().expect("checked to be non-empty");
    let types: Vec<&str> = types.split(',').filter(|type_arg| !type_arg.is_empty()).collect();
    if types.is_empty() {
        return Err(Error::Usage(format!("no resource type given in {:?}", args[0])));
    }
    if names.is_empty() && !rules.types_alone {
        return Err(usage("resource(s) were provided, but no name was specified"));
    }
    let type_apart = types.len() == 1;
    let mut named = Vec::new();
    for type_arg in types {
        if names.is_empty() {
            named.push(Named::Type(type_arg.to_string()));
        }
        named.extend(names.iter().map(|name| Named::Object {
            type_arg: type_arg.to_string(),
            name: name.clone(),
            type_apart,
        }));
    }
    Ok(named)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GET: Rules = Rules { verb: "get", types_alone: true, selector: false };
    const PATCH: Rules = Rules { verb: "patch", types_alone: false, selector: false };

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn named(rules: Rules, line: &str) -> Result<Vec<Named>, Error> {
        parse(&args(line), &Files::Paths { paths: &[], recursive: false }, rules)
    }

    fn object(type_arg: &str, name: &str) -> Named {
        Named::Object { type_arg: type_arg.into(), name: name.into(), type_apart: false }
    }

    fn apart(type_arg: &str, name: &str) -> Named {
        Named::Object { type_arg: type_arg.into(), name: name.into(), type_apart: true }
    }

    #[test]
    fn arguments_name_objects() {
        assert_eq!(named(PATCH, "deploy web").unwrap(), [apart("deploy", "web")]);
        assert_eq!(named(PATCH, "cm a b").unwrap(), [apart("cm", "a"), apart("cm", "b")]);
        assert_eq!(named(PATCH, "deploy/web cm/a").unwrap(), [object("deploy", "web"), object("cm", "a")]);
        assert_eq!(named(GET, "cm,deploy a").unwrap(), [object("cm", "a"), object("deploy", "a")]);
    }

    #[test]
    fn types_alone_name_lists_for_get_only() {
        assert_eq!(named(GET, "deploy").unwrap(), [Named::Type("deploy".into())]);
        assert_eq!(named(GET, "cm,deploy").unwrap(), [Named::Type("cm".into()), Named::Type("deploy".into())]);
        let selected = Rules { selector: true, ..GET };
        assert_eq!(named(selected, "cm").unwrap(), [Named::Type("cm".into())]);
        assert_eq!(
            named(selected, "cm a").unwrap_err().to_string(),
            "name cannot be provided when a selector is specified"
        );
        assert_eq!(
            named(selected, "cm/a deploy/b").unwrap_err().to_string(),
            "selectors and the all flag cannot be used when passing resource/name arguments"
        );
        assert_eq!(
            named(PATCH, "deploy").unwrap_err().to_string(),
            "resource(s) were provided, but no name was specified"
        );
    }

    #[test]
    fn incomplete_or_mixed_arguments_are_rejected() {
        for line in ["", "deploy deploy/web", "deploy/", "/web", "a/b/c", ","] {
            assert!(named(PATCH, line).is_err(), "{line:?}");
            assert!(named(GET, line).is_err(), "{line:?}");
        }
        assert!(
            parse(&args("deploy web"), &Files::Paths { paths: &[PathBuf::from("x.yaml")], recursive: false }, PATCH)
                .is_err()
        );
        let mixed = named(GET, "cm cm/a").unwrap_err().to_string();
        assert!(mixed.contains("'kubeupd get resource/<resource_name>'"), "{mixed}");
        assert!(named(GET, "").unwrap_err().to_string().starts_with("You must provide one or more resources"));
    }
}
