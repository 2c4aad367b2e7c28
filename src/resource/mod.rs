//! What the user named, resolved: kubectl's `resource.Builder` for every verb.
//!
//! A verb hands over its positional arguments (`TYPE NAME...`, `TYPE/NAME...`, `TYPE1,TYPE2`)
//! or its `-f` files; [`parse`] reads them into [`Named`] items without asking the server
//! anything, and a [`Resolver`] turns those into [`Resolved`] items: resource types from
//! discovery, namespaces filled in (and checked against `-n`), documents kept with where they came
//! from. Objects whose kind a CustomResourceDefinition in the same input defines stay [`Pending`]
//! until that definition is applied.

mod args;
pub mod pod;
mod resolve;

use serde_json::Value;

use crate::client::{self, ResourceType};
use crate::kustomize;
use crate::manifest::{self, ManifestObject};

pub use crate::manifest::{BadSelector, LabelSelector};
pub use args::{BuildNotices, Files, Kustomized, NOTHING_NAMED, Named, Rules, build_kustomization, parse};
pub use resolve::{Entry, Resolver};

/// Why what the user named cannot be resolved.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The arguments do not name objects in a form the verb takes.
    #[error("{0}")]
    Usage(String),
    /// The files could not be read.
    #[error(transparent)]
    Manifest(#[from] manifest::Error),
    /// The kustomization (`-k`) could not be built.
    #[error(transparent)]
    Kustomize(#[from] kustomize::Failure),
    /// An object names a namespace other than `-n`.
    #[error(
        "the namespace from the provided object {own:?} does not match the namespace {flag:?}. \
         You must pass '--namespace={own}' to perform this operation."
    )]
    NamespaceMismatch { own: String, flag: String },
    /// A file's object has a kind the server does not serve; `object` says which, as kubectl
    /// does: `name: "x" namespace: "ns" from "app.yaml"`.
    #[error("resource mapping not found for {object}: {cause}\nensure CRDs are installed first")]
    UnknownKind { object: String, cause: client::MappingError },
    /// Objects cannot be named across all namespaces.
    #[error("a resource cannot be retrieved by name across all namespaces")]
    NamedAcrossNamespaces,
    /// The server could not answer (discovery).
    #[error(transparent)]
    Client(#[from] client::Error),
}

impl Error {
    /// kubectl's line for this error on its own (see [`client::Error::line`]).
    pub fn line(&self) -> String {
        match self {
            Error::Client(err) => err.line(),
            // kubectl prints several of its builder's errors a line each, without `error: `.
            Error::Manifest(manifest::Error::Paths(problems)) if problems.len() > 1 => problems.join("\n"),
            Error::Manifest(manifest::Error::Url(manifest::UrlError::Get(err))) => match err.refused_host() {
                Some(host) => client::refused_line(host),
                None => format!("error: {err}"),
            },
            other => format!("error: {other}"),
        }
    }
}

/// One object, resolved: where it lives on the server.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectRef {
    pub rt: ResourceType,
    /// `None` for cluster-scoped types.
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectRef {
    /// `deployment.apps/web`, as kubectl names objects in its messages.
    pub fn display_name(&self) -> String {
        format!("{}/{}", self.rt.group_kind_lower(), self.name)
    }
}

/// Where a document came from: its place in the whole input, and its file and document number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its position among all the objects of the input, from 0.
    pub index: usize,
    /// The file, or `STDIN`.
    pub file: String,
    /// Its document in the file, from 1.
    pub document: usize,
}

impl Source {
    fn of(index: usize, object: &ManifestObject) -> Source {
        Source { index, file: object.source.clone(), document: object.document }
    }

    /// `app.yaml (document 2)`, for messages.
    pub fn location(&self) -> String {
        format!("{} (document {})", self.file, self.document)
    }
}

/// An object a file holds, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub object: ObjectRef,
    pub source: Source,
    /// The object as the file gives it, with its namespace filled in for namespaced types.
    pub document: Value,
}

impl Manifest {
    /// Whether this is a Namespace: applied before everything else, which may be in it.
    pub fn is_namespace(&self) -> bool {
        self.object.rt.group.is_empty() && self.object.rt.kind == "Namespace"
    }

    /// The group and kind a CustomResourceDefinition defines (`None` for other objects).
    pub fn defined_kind(&self) -> Option<(&str, &str)> {
        let rt = &self.object.rt;
        if rt.group != "apiextensions.k8s.io" || rt.kind != "CustomResourceDefinition" {
            return None;
        }
        let spec = &self.document["spec"];
        Some((spec["group"].as_str()?, spec["names"]["kind"].as_str()?))
    }
}

/// An object a file holds whose kind the server does not serve yet, but a
/// CustomResourceDefinition in the same input defines: resolved once that definition is applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    pub source: Source,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// The namespace it will be in, for a namespaced kind.
    pub namespace: Option<String>,
    /// The object as the file gives it, with its namespace filled in for namespaced kinds.
    pub document: Value,
}

impl Pending {
    /// `sprocket.example.com/first`, as kubectl will name the object once its kind is served.
    pub fn display_name(&self) -> String {
        let kind = self.kind.to_lowercase();
        match group_of(&self.api_version) {
            "" => format!("{kind}/{}", self.name),
            group => format!("{kind}.{group}/{}", self.name),
        }
    }
}

/// What a verb works on, resolved against discovery.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// Every object of a type in a namespace, or in all namespaces (`None`); `get` only.
    List { rt: ResourceType, namespace: Option<String> },
    /// An object named on the command line.
    Object(ObjectRef),
    /// An object a file holds.
    Manifest(Manifest),
}

impl Resolved {
    /// The objects this names: a list's are read from the server, those `selectors` select.
    pub async fn objects(
        self,
        cluster: &client::Cluster,
        selectors: client::Selectors<'_>,
    ) -> client::Result<Vec<ObjectRef>> {
        let (rt, namespace) = match self {
            Resolved::List { rt, namespace } => (rt, namespace),
            other => return Ok(other.object().cloned().into_iter().collect()),
        };
        let scope = namespace.as_deref().map_or(client::ListScope::AllNamespaces, client::ListScope::Namespace);
        let list = cluster.list(&rt, scope, selectors).await?;
        let items = list["items"].as_array().into_iter().flatten();
        Ok(items
            .filter_map(|item| {
                let name = item["metadata"]["name"].as_str()?.to_string();
                let namespace = item["metadata"]["namespace"].as_str().map(String::from);
                Some(ObjectRef { rt: rt.clone(), namespace, name })
            })
            .collect())
    }

    /// The object this names, unless it is a list.
    pub fn object(&self) -> Option<&ObjectRef> {
        match self {
            Resolved::List { .. } => None,
            Resolved::Object(object) => Some(object),
            Resolved::Manifest(manifest) => Some(&manifest.object),
        }
    }
}

/// The group of an `apiVersion`: empty for the core group's `v1`.
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

/// The objects of an input, numbered in input order.
fn numbered(objects: Vec<ManifestObject>) -> impl Iterator<Item = (Source, ManifestObject)> {
    objects.into_iter().enumerate().map(|(index, object)| (Source::of(index, &object), object))
}
