//! Resolving what the user named against the server's discovery.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;

use super::{Error, Manifest, Named, ObjectRef, Pending, Resolved, Source, group_of, numbered};
use crate::client::{self, Cluster, MappingError, ResourceType};
use crate::manifest::ManifestObject;

/// How long discovery is read again, after a CustomResourceDefinition was applied, before its
/// kind counts as not served.
const NEW_KIND_PATIENCE: Duration = Duration::from_secs(10);

/// Resolves named objects against one cluster's discovery.
pub struct Resolver<'a> {
    cluster: &'a Cluster,
    /// `-n`, when given: objects from files must name no other namespace.
    namespace_flag: Option<&'a str>,
    /// `-A`: lists cover every namespace.
    all_namespaces: bool,
}

/// An object of an input to apply: resolved, or waiting for its CustomResourceDefinition.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Ready(Manifest),
    Pending(Pending),
}

impl Entry {
    /// Where the object came from.
    pub fn source(&self) -> &Source {
        match self {
            Entry::Ready(manifest) => &manifest.source,
            Entry::Pending(pending) => &pending.source,
        }
    }

    /// The object's API group (empty for the core group) and kind.
    pub fn group_kind(&self) -> (&str, &str) {
        match self {
            Entry::Ready(manifest) => (&manifest.object.rt.group, &manifest.object.rt.kind),
            Entry::Pending(pending) => {
                let group = pending.api_version.rsplit_once('/').map_or("", |(group, _)| group);
                (group, &pending.kind)
            }
        }
    }
}

impl<'a> Resolver<'a> {
    /// A resolver for `cluster`, whose default namespace already reflects `-n`; `namespace_flag`
    /// is `-n` itself, and `all_namespaces` is `-A`.
    pub fn new(cluster: &'a Cluster, namespace_flag: Option<&'a str>, all_namespaces: bool) -> Self {
        Resolver { cluster, namespace_flag, all_namespaces }
    }

    /// Resolves every item in order; the first that cannot be resolved stops the rest.
    pub async fn resolve(&self, named: Vec<Named>) -> Result<Vec<Resolved>, Error> {
        let mut resolved = Vec::with_capacity(named.len());
        let mut manifests = 0;
        for item in named {
            resolved.push(match item {
                Named::Type(type_arg) => {
                    // A category lists several types, each in its place; as kubectl, a type
                    // named twice (`all,pods`, `po,pods`) is listed once, where first named.
                    for rt in self.cluster.resolve_types(&type_arg).await? {
                        if resolved
                            .iter()
                            .any(|seen| matches!(seen, Resolved::List { rt: listed, .. } if same_kind(listed, &rt)))
                        {
                            continue;
                        }
                        let namespace = (rt.namespaced && !self.all_namespaces).then(|| self.default_namespace());
                        resolved.push(Resolved::List { rt, namespace });
                    }
                    continue;
                }
                Named::Object { type_arg, name, type_apart } => {
                    let rt = match type_apart {
                        true => self.only_type(&type_arg).await?,
                        false => self.cluster.resolve(&type_arg).await?,
                    };
                    Resolved::Object(self.object(rt, None, name)?)
                }
                Named::Manifest(object) => {
                    let source = Source::of(manifests, &object);
                    manifests += 1;
                    let rt = match self.cluster.resolve_kind(object.api_version(), object.kind()).await {
                        Err(client::Error::Mapping(cause)) => return Err(unknown_kind(&object, cause)),
                        result => result?,
                    };
                    Resolved::Manifest(self.manifest(rt, source, object)?)
                }
            });
        }
        Ok(resolved)
    }

    /// The one type `type_arg` names where a category would name several, as kubectl reads
    /// `TYPE NAME`: a category of more than one type is refused.
    async fn only_type(&self, type_arg: &str) -> Result<ResourceType, Error> {
        let mut types = self.cluster.resolve_types(type_arg).await?;
        match types.len() {
            1 => Ok(types.remove(0)),
            _ => Err(Error::Usage("you must specify only one resource".into())),
        }
    }

    /// Resolves the objects of an input to apply, each on its own: an object whose kind the
    /// server does not serve is [`Entry::Pending`] when a CustomResourceDefinition in the same
    /// input defines the kind, and an error otherwise.
    pub async fn entries(&self, objects: Vec<ManifestObject>) -> Vec<Result<Entry, (Source, Error)>> {
        let defined = kinds_defined_by_crds(&objects);
        let mut entries = Vec::with_capacity(objects.len());
        for (source, object) in numbered(objects) {
            entries.push(self.entry(source.clone(), object, &defined).await.map_err(|err| (source, err)));
        }
        entries
    }

    async fn entry(
        &self,
        source: Source,
        object: ManifestObject,
        defined: &HashMap<(String, String), bool>,
    ) -> Result<Entry, Error> {
        let cause = match self.cluster.resolve_kind(object.api_version(), object.kind()).await {
            Ok(rt) => return Ok(Entry::Ready(self.manifest(rt, source, object)?)),
            Err(client::Error::Mapping(cause)) => cause,
            Err(err) => return Err(err.into()),
        };
        let key = (group_of(object.api_version()).to_string(), object.kind().to_string());
        let Some(&namespaced) = defined.get(&key) else { return Err(unknown_kind(&object, cause)) };
        let namespace = namespaced.then(|| self.namespace_of(&object)).transpose()?;
        let (api_version, kind, name) =
            (object.api_version().to_string(), object.kind().to_string(), object.name().to_string());
        let document = with_namespace(object.object, namespace.as_deref());
        Ok(Entry::Pending(Pending { source, api_version, kind, name, namespace, document }))
    }

    /// Resolves an object whose CustomResourceDefinition was just applied: discovery is read
    /// again, for a few seconds while the server starts serving the kind.
    pub async fn resolve_pending(&self, pending: Pending) -> Result<Manifest, Error> {
        let deadline = tokio::time::Instant::now() + NEW_KIND_PATIENCE;
        let rt = loop {
            self.cluster.rediscover().await?;
            match self.cluster.resolve_kind(&pending.api_version, &pending.kind).await {
                Err(client::Error::Mapping(_)) if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                result => break result?,
            }
        };
        let object = ObjectRef { rt, namespace: pending.namespace, name: pending.name };
        Ok(Manifest { object, source: pending.source, document: pending.document })
    }

    fn manifest(&self, rt: ResourceType, source: Source, object: ManifestObject) -> Result<Manifest, Error> {
        let namespace = rt.namespaced.then(|| self.namespace_of(&object)).transpose()?;
        let name = object.name().to_string();
        let document = with_namespace(object.object, namespace.as_deref());
        Ok(Manifest { object: self.object(rt, namespace, name)?, source, document })
    }

    /// The object of type `rt`, in `namespace` (else the default) when the type is namespaced.
    fn object(&self, rt: ResourceType, namespace: Option<String>, name: String) -> Result<ObjectRef, Error> {
        if self.all_namespaces && rt.namespaced {
            return Err(Error::NamedAcrossNamespaces);
        }
        let namespace = rt.namespaced.then(|| namespace.unwrap_or_else(|| self.default_namespace()));
        Ok(ObjectRef { rt, namespace, name })
    }

    /// The namespace a file's object goes to: its own, which must agree with `-n`, else the default.
    fn namespace_of(&self, object: &ManifestObject) -> Result<String, Error> {
        match (object.namespace(), self.namespace_flag) {
            (Some(own), Some(flag)) if own != flag => {
                Err(Error::NamespaceMismatch { own: own.to_string(), flag: flag.to_string() })
            }
            (Some(own), _) => Ok(own.to_string()),
            (None, _) => Ok(self.default_namespace()),
        }
    }

    fn default_namespace(&self) -> String {
        self.cluster.default_namespace().to_string()
    }
}

/// Whether two types serve the same kind in the same group version, as kubectl tells mappings apart.
fn same_kind(one: &ResourceType, other: &ResourceType) -> bool {
    (&one.group, &one.version, &one.kind) == (&other.group, &other.version, &other.kind)
}

/// `document` with `metadata.namespace` set, for namespaced types.
fn with_namespace(mut document: Value, namespace: Option<&str>) -> Value {
    if let Some(namespace) = namespace {
        document["metadata"]["namespace"] = Value::String(namespace.to_string());
    }
    document
}

fn unknown_kind(object: &ManifestObject, cause: MappingError) -> Error {
    let (name, namespace, source) = (object.name(), object.namespace().unwrap_or_default(), &object.source);
    Error::UnknownKind { object: format!("name: {name:?} namespace: {namespace:?} from {source:?}"), cause }
}

/// The kinds that CustomResourceDefinitions in the input define (by group and kind), with
/// whether they are namespaced.
fn kinds_defined_by_crds(objects: &[ManifestObject]) -> HashMap<(String, String), bool> {
    objects
        .iter()
        .filter(|object| object.kind() == "CustomResourceDefinition")
        .filter_map(|crd| {
            let spec = &crd.object["spec"];
            let group = spec["group"].as_str()?.to_string();
            let kind = spec["names"]["kind"].as_str()?.to_string();
            Some(((group, kind), spec["scope"].as_str() != Some("Cluster")))
        })
        .collect()
}
