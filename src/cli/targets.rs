//! Which objects a writing verb works on: `TYPE NAME...`, `TYPE/NAME...`, or the objects in `-f` files.

use std::path::PathBuf;

use anyhow::bail;
use serde_json::Value;

use crate::client::{Cluster, MappingError, ResourceType};
use crate::manifest::{self, ManifestObject};

/// An object the user named, not yet resolved against discovery.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjectRef {
    /// Named on the command line, in the default namespace.
    Named { type_arg: String, name: String },
    /// Read from a manifest, which gives its type, namespace and name (and content).
    FromManifest(ManifestObject),
}

/// One object to write, resolved.
#[derive(Debug, Clone)]
pub struct Target {
    pub rt: ResourceType,
    /// `None` for cluster-scoped types.
    pub namespace: Option<String>,
    pub name: String,
    /// The object as the manifest gives it, for objects read from files.
    pub manifest: Option<Value>,
}

impl Target {
    /// `deployment.apps/web`, for messages.
    pub fn display_name(&self) -> String {
        format!("{}/{}", self.rt.group_kind_lower(), self.name)
    }
}

/// The objects named by positional `args` (`TYPE NAME...` or `TYPE/NAME...`) or in `filenames`,
/// one way or the other.
pub fn plan(args: &[String], filenames: &[PathBuf]) -> anyhow::Result<Vec<ObjectRef>> {
    match (args.is_empty(), filenames.is_empty()) {
        (true, true) => bail!("you must name the objects: TYPE NAME, TYPE/NAME, or -f FILE"),
        (false, false) => bail!("arguments cannot be given together with -f: put the objects in the files, or drop -f"),
        (false, true) => from_args(args),
        (true, false) => Ok(manifest::read_paths(filenames, false)?.into_iter().map(ObjectRef::FromManifest).collect()),
    }
}

fn from_args(args: &[String]) -> anyhow::Result<Vec<ObjectRef>> {
    let with_slash = args.iter().filter(|arg| arg.contains('/')).count();
    if with_slash == 0 {
        let (type_arg, names) = args.split_first().expect("checked to be non-empty");
        if names.is_empty() {
            bail!("resource(s) were provided, but no name was specified");
        }
        return Ok(names
            .iter()
            .map(|name| ObjectRef::Named { type_arg: type_arg.clone(), name: name.clone() })
            .collect());
    }
    if with_slash != args.len() {
        bail!(
            "there is no need to specify a resource type as a separate argument when passing arguments in \
             resource/name form (e.g. 'kubeupd patch resource/<resource_name>' instead of \
             'kubeupd patch resource resource/<resource_name>')"
        );
    }
    args.iter()
        .map(|arg| match arg.split_once('/') {
            Some((type_arg, name)) if !type_arg.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok(ObjectRef::Named { type_arg: type_arg.into(), name: name.into() })
            }
            _ => bail!("arguments in resource/name form must have a single resource and name: {arg:?}"),
        })
        .collect()
}

/// Resolves the objects' types; objects from manifests keep their namespace, which must agree
/// with `-n` when both are given.
pub async fn resolve(
    cluster: &Cluster,
    refs: Vec<ObjectRef>,
    namespace_flag: Option<&str>,
) -> anyhow::Result<Vec<Target>> {
    let mut targets = Vec::with_capacity(refs.len());
    for object_ref in refs {
        let (rt, namespace, name, manifest) = match object_ref {
            ObjectRef::Named { type_arg, name } => (cluster.resolve(&type_arg).await?, None, name, None),
            ObjectRef::FromManifest(object) => {
                let namespace = object.namespace().map(String::from);
                if let (Some(flag), Some(own)) = (namespace_flag, namespace.as_deref())
                    && flag != own
                {
                    bail!(
                        "the namespace from the provided object {own:?} does not match the namespace {flag:?}. \
                         You must pass '--namespace={own}' to perform this operation."
                    );
                }
                let rt = match cluster.resolve_kind(object.api_version(), object.kind()).await {
                    Err(err) if err.downcast_ref::<MappingError>().is_some() => bail!(
                        "resource mapping not found for name: {:?} namespace: {:?} from {:?}: {err}\nensure CRDs are installed first",
                        object.name(),
                        namespace.as_deref().unwrap_or_default(),
                        object.source
                    ),
                    result => result?,
                };
                (rt, namespace, object.name().to_string(), Some(object.object))
            }
        };
        let namespace = rt.namespaced.then(|| namespace.unwrap_or_else(|| cluster.default_namespace().to_string()));
        targets.push(Target { rt, namespace, name, manifest });
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn named(type_arg: &str, name: &str) -> ObjectRef {
        ObjectRef::Named { type_arg: type_arg.into(), name: name.into() }
    }

    #[test]
    fn arguments_name_objects() {
        assert_eq!(plan(&args("deploy web"), &[]).unwrap(), [named("deploy", "web")]);
        assert_eq!(plan(&args("cm a b"), &[]).unwrap(), [named("cm", "a"), named("cm", "b")]);
        assert_eq!(plan(&args("deploy/web cm/a"), &[]).unwrap(), [named("deploy", "web"), named("cm", "a")]);
    }

    #[test]
    fn incomplete_or_mixed_arguments_are_rejected() {
        for line in ["", "deploy", "deploy deploy/web", "deploy/", "/web", "a/b/c"] {
            assert!(plan(&args(line), &[]).is_err(), "{line:?}");
        }
        assert!(plan(&args("deploy web"), &[PathBuf::from("x.yaml")]).is_err());
        assert_eq!(
            plan(&args("deploy"), &[]).unwrap_err().to_string(),
            "resource(s) were provided, but no name was specified"
        );
    }
}
