//! The checks of every document before the first write: fields against the server's schema of
//! their kind, the size of the annotations client-side apply records, and the server's dry run
//! where it is the judge.

use std::collections::HashMap;

use serde_json::Value;

use super::super::error::ANNOTATIONS_LIMIT;
use super::super::object::{self, Live};
use super::super::validate::{self, InvalidFields, Verdict};
use super::super::{ApplyOptions, DryRun, Error, Mode, last_applied};
use crate::client::Cluster;
use crate::resource::{Entry, Source};

/// What checking the documents themselves found.
#[derive(Default)]
pub(super) struct Checked {
    pub(super) failures: Vec<(Source, Error)>,
    pub(super) warnings: Vec<(Source, InvalidFields)>,
    /// The last-applied configuration of each object, by input index.
    pub(super) recorded: HashMap<usize, String>,
    /// The entries (by position) whose fields the schema refuses, on a server that checks
    /// fields itself: that server decides.
    pub(super) suspects: Vec<usize>,
}

/// Checks each document's fields against the server's schema of its kind (as `options.validation`
/// asks) and, for client-side apply, the size of its annotations with the last-applied
/// configuration.
pub(super) async fn check_documents(cluster: &Cluster, entries: &[Entry], options: &ApplyOptions) -> Checked {
    let mut checked = Checked::default();
    // A dry run on the client sends nothing for such a server to judge: the schema decides.
    let server_decides = options.dry_run != DryRun::Client && cluster.supports_field_validation().await;
    for (position, entry) in entries.iter().enumerate() {
        let source = entry.source().clone();
        let document = match entry {
            Entry::Ready(manifest) => &manifest.document,
            Entry::Pending(pending) => &pending.document,
        };
        if matches!(entry, Entry::Ready(_)) {
            let verdict = match options.mode {
                Mode::ClientSide { .. } => validate::check(cluster, document, options.validation).await,
                Mode::ServerSide { .. } => {
                    validate::check_server_side_apply(cluster, document, options.validation).await
                }
            };
            match verdict {
                Verdict::Valid => {}
                Verdict::Warn(errors) => checked.warnings.push((source.clone(), InvalidFields(errors))),
                Verdict::Refuse(_) if server_decides => checked.suspects.push(position),
                Verdict::Refuse(errors) => checked.failures.push((source.clone(), InvalidFields(errors).into())),
            }
        }
        // An object whose annotations would be too long is applied server-side instead.
        if options.record_last_applied
            && matches!(options.mode, Mode::ClientSide { .. })
            && let Some(text) = recorded_within_limit(document)
        {
            checked.recorded.insert(source.index, text);
        }
        // The reads sent beside these checks share this thread: between documents, their requests
        // go out and their answers come in.
        tokio::task::yield_now().await;
    }
    checked
}

/// Sends each suspect's apply as a server dry run, one after the other (they are few): a server
/// that checks fields itself is kubectl's judge (kubectl 1.25 and later check nothing on the
/// client then), so what it takes goes on and what it refuses stops every document, in its words,
/// before the first write. Nothing is written.
pub(super) async fn confirm_on_server(
    cluster: &Cluster,
    entries: &[Entry],
    suspects: Vec<usize>,
    options: &ApplyOptions,
) -> Vec<(Source, Error)> {
    let dry_run = ApplyOptions { dry_run: DryRun::Server, ..options.clone() };
    let mut refused = Vec::new();
    for position in suspects {
        let Entry::Ready(manifest) = &entries[position] else { continue };
        if let Err(err) = object::apply(cluster, manifest, Live::Unread, None, &dry_run).await {
            refused.push((manifest.source.clone(), err));
        }
    }
    refused
}

/// The last-applied configuration of `document`, when its annotations with it stay within the
/// server's limit. Only the text is kept: a copy of every document, held until it is applied,
/// would cost more memory than making the copy again then.
fn recorded_within_limit(document: &Value) -> Option<String> {
    let text = last_applied::configuration_text(document);
    (last_applied::annotations_size(document, &text) <= ANNOTATIONS_LIMIT).then_some(text)
}
