//! Reading the objects an update verb changes, as kubectl's resource builder does for `label`,
//! `annotate` and `scale`: named objects, the objects of `-f` files, or the objects of types
//! chosen by `-l`, `--field-selector` or `--all`, each read fresh from the server. One object
//! that cannot be read does not stop the others.

use futures::future::join_all;
use serde_json::Value;

use super::args::{SelectionArgs, TargetArgs};
use super::{Error, GlobalArgs, Result};
use crate::apply::lost::{self, WriteError};
use crate::client::{self, Cluster, ListScope, ResourceType, Selectors};
use crate::resource::{Named, ObjectRef, Resolved, Resolver, Rules};

/// One object as the server has it now.
#[derive(Debug, Clone)]
pub struct Visited {
    pub target: ObjectRef,
    pub live: Value,
}

/// The objects read, in the order named, and whether one object was named (kubectl's "single
/// item implied": `TYPE NAME` or `TYPE/NAME` once, or one file of one object).
pub struct Visit {
    pub objects: Vec<Result<Visited>>,
    pub single: bool,
}

/// What `targets` and `selection` name, resolved; nothing is read yet. Errors in the arguments
/// and unknown types stop everything, as in kubectl.
pub async fn resolve(
    cluster: &Cluster,
    global: &GlobalArgs,
    verb: &'static str,
    targets: &TargetArgs,
    selection: &SelectionArgs,
) -> Result<(Vec<Resolved>, bool)> {
    let by_type = selection.by_type();
    // kubectl's builder visits by selector whenever one is given, `--all` or not.
    let selecting = selection.selector.is_some() || selection.field_selector.is_some();
    let rules = Rules { verb, types_alone: by_type, selector: selecting };
    let named = targets.named(rules)?;
    let single = match named.as_slice() {
        [Named::Object { .. }] => true,
        [Named::Manifest(_)] => targets.files.filenames.len() == 1 && !targets.files.filenames[0].is_dir(),
        _ => false,
    };
    let resolver = Resolver::new(cluster, global.namespace.as_deref(), selection.all_namespaces);
    Ok((resolver.resolve(named).await?, single))
}

/// The selectors of `selection`, for lists.
pub fn selectors(selection: &SelectionArgs) -> Selectors<'_> {
    Selectors {
        label: selection.selector.as_ref().map(|selector| selector.as_str()),
        field: selection.field_selector.as_deref(),
    }
}

/// The objects of a type that `selectors` select, in `namespace` (`None`: every namespace).
pub async fn list(
    cluster: &Cluster,
    rt: &ResourceType,
    namespace: Option<&str>,
    selectors: Selectors<'_>,
) -> Result<Vec<Visited>> {
    let scope = namespace.map_or(ListScope::AllNamespaces, ListScope::Namespace);
    let list = cluster.list(rt, scope, selectors).await?;
    Ok(list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            let mut live = item.clone();
            live["apiVersion"] = rt.api_version().into();
            live["kind"] = rt.kind.clone().into();
            let target = ObjectRef {
                namespace: item["metadata"]["namespace"].as_str().map(String::from),
                name: item["metadata"]["name"].as_str().unwrap_or_default().to_string(),
                rt: rt.clone(),
            };
            Visited { target, live }
        })
        .collect())
}

/// Reads every object `resolved` names: named objects one by one, types as lists.
pub async fn read(cluster: &Cluster, resolved: Vec<Resolved>, selection: &SelectionArgs, single: bool) -> Visit {
    let selectors = selectors(selection);
    let reads = join_all(resolved.into_iter().map(|item| async move {
        match item {
            Resolved::List { rt, namespace } => match list(cluster, &rt, namespace.as_deref(), selectors).await {
                Ok(objects) => objects.into_iter().map(Ok).collect(),
                Err(err) => vec![Err(err)],
            },
            Resolved::Object(target) | Resolved::Manifest(crate::resource::Manifest { object: target, .. }) => {
                let live = cluster.get(&target.rt, target.namespace.as_deref(), &target.name).await;
                vec![live.map(|live| Visited { target, live }).map_err(Error::from)]
            }
        }
    }))
    .await;
    Visit { objects: reads.into_iter().flatten().collect(), single }
}

/// A write of `target` that failed with `cause`, in kubectl's words ([`write_error`]); a lost
/// answer is read back, and `applied` judges the object found ([`lost::write_failed`]).
pub async fn write_failed(
    cluster: &Cluster,
    target: &ObjectRef,
    context: Option<&'static str>,
    cause: client::Error,
    applied: impl Fn(Option<&Value>) -> bool,
) -> Error {
    write_error(target, context, lost::write_failed(cluster, target, cause, applied).await)
}

/// A write of `target` that failed, in kubectl's words. A lost answer is the object's own
/// failure ([`Error::Lost`]), with what reading the object back showed; otherwise the failure as
/// it is, or with `context` (kubectl's words for the write, such as `failed to patch`) first,
/// then the server's reason.
pub fn write_error(target: &ObjectRef, context: Option<&'static str>, err: WriteError) -> Error {
    match (err, context) {
        (WriteError::Lost(lost), context) => Error::Lost { context, object: target.display_name(), lost },
        (WriteError::Failed(cause), Some(context)) => Error::msg(format!("{context}: {}", reason(&cause))),
        (WriteError::Failed(cause), None) => cause.into(),
    }
}

/// The server's words for a failed request (its message alone), or the failure as it is.
pub fn reason(cause: &client::Error) -> String {
    cause.status().map_or_else(|| cause.to_string(), |status| status.message.clone())
}
