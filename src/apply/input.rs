//! Apply's input, as `apply` and `diff` read it: the objects of the files (`-f`, `-R`, `-k`),
//! resolved, narrowed to `--prune`'s selector and labelled as members of its ApplySet, then
//! checked as a whole ([`Batch`]) before anything is written. Every document that cannot be
//! applied is named, not only the first.

use super::applyset::{self, ApplySet};
use super::{ApplyOptions, Batch, Error};
use crate::client::Cluster;
use crate::resource::{self, Files, LabelSelector, Resolver, Source};

/// What `--prune` changes in reading the files: only the objects `selector` matches are applied,
/// and they are labelled as members of `applyset`.
#[derive(Default)]
pub struct Membership<'a> {
    pub selector: Option<&'a LabelSelector>,
    pub applyset: Option<&'a ApplySet>,
}

/// Why an input cannot be applied; nothing was written.
#[derive(Debug)]
pub enum InputError {
    /// The files cannot be read.
    Read(resource::Error),
    /// The files hold no objects (or none that `--prune`'s selector matches).
    Empty,
    /// The documents that cannot be applied, each with why, in input order.
    Refused(Vec<(Source, Refusal)>),
}

/// Why one document cannot be applied.
#[derive(Debug)]
pub enum Refusal {
    /// Its kind or namespace is not known.
    Unresolved(resource::Error),
    /// The object already belongs to another ApplySet.
    OtherSet(applyset::Error),
    /// It fails a check made before the first write (its fields, its annotations' size, a field
    /// that cannot change).
    Unfit(Error),
}

/// Reads the objects of `files`, resolves them and checks them: known kind (or one defined by a
/// CustomResourceDefinition in the same input), namespace, and what `options` require.
pub async fn read<'c>(
    files: Files<'_>,
    cluster: &'c Cluster,
    resolver: &Resolver<'_>,
    options: &ApplyOptions,
    membership: &Membership<'_>,
) -> Result<Batch<'c>, InputError> {
    let mut objects = files.read().map_err(InputError::Read)?;
    if let Some(cause) = &options.change_cause {
        for object in &mut objects {
            crate::change::metadata::record_change_cause(&mut object.object, cause);
        }
    }
    if let Some(selector) = membership.selector {
        objects.retain(|object| selector.matches(&object.object));
    }
    if objects.is_empty() {
        return Err(InputError::Empty);
    }
    let mut entries = Vec::with_capacity(objects.len());
    let mut refused = Vec::new();
    for entry in resolver.entries(objects).await {
        match entry {
            Ok(entry) => entries.push(entry),
            Err((source, err)) => refused.push((source, Refusal::Unresolved(err))),
        }
    }
    if let Some(set) = membership.applyset {
        set.label(&mut entries);
        let others = set.members_of_other_sets(cluster, &entries).await;
        refused.extend(others.into_iter().map(|(source, err)| (source, Refusal::OtherSet(err))));
    }
    match Batch::new(cluster, entries, options).await {
        Ok(batch) if refused.is_empty() => return Ok(batch),
        Ok(_) => {}
        Err(unfit) => refused.extend(unfit.into_iter().map(|(source, err)| (source, Refusal::Unfit(err)))),
    }
    refused.sort_by_key(|(source, _)| source.index);
    Err(InputError::Refused(refused))
}
