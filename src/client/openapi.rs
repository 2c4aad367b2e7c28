//! The server's OpenAPI documents, read for patch metadata and for checking fields: v3 for the
//! object's group-version when the server serves it, else v2. Both are pruned to what kubeupd needs
//! and cached on disk: v3 by the content hash the server gives; v2 by server version, and also, per
//! kind, the few definitions that kind reaches, so that a run reads a few kilobytes instead of the
//! whole document; the v3 index and the version for as long as discovery. Each is read at most once
//! per run. When the server's documents cannot be read, the embedded metadata is used for patching.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use tokio::sync::Mutex;

use super::Cluster;
use super::disk_cache::{DISCOVERY_TTL, DiskCache};
use super::error::{Error, Result};
use crate::schema::{self, KindSchema, OpenApiSchema};

/// Cache file of the `/openapi/v3` index (`null` when the server does not serve v3).
const V3_INDEX: &str = "v3-index.json";
/// Cache file of the server's `/version`.
const VERSION: &str = "version.json";

/// The OpenAPI documents read so far in this run, and where they are cached on disk.
pub(crate) struct OpenApiCache {
    disk: Option<DiskCache>,
    memory: Mutex<Memory>,
    /// Whether this run said that it patches with the built-in metadata.
    warned: AtomicBool,
    /// The server's `/version`, once read: every document checked asks for it.
    version: OnceLock<Value>,
}

#[derive(Default)]
struct Memory {
    /// The `/openapi/v3` index; `Some(None)` when the server does not serve v3.
    v3_index: Option<Option<Value>>,
    /// The whole pruned v2 document, read when a kind's definitions are not cached yet;
    /// `Some(None)` when it could not be read.
    v2: Option<Option<Arc<Value>>>,
    /// The document chosen for each kind (by `apiVersion` and kind).
    by_kind: HashMap<(String, String), Option<Arc<OpenApiSchema>>>,
    /// Whether the v2 document in memory was read from the server in this run (not the cache).
    v2_from_server: bool,
}

impl OpenApiCache {
    pub(crate) fn new(disk: Option<DiskCache>) -> Self {
        OpenApiCache { disk, memory: Mutex::default(), warned: AtomicBool::new(false), version: OnceLock::new() }
    }
}

impl Cluster {
    /// The strategic-merge metadata of `kind` in `api_version`, or `None` when the kind is not built
    /// into Kubernetes (custom resources are patched with JSON merge patches, as kubectl does).
    pub async fn patch_schema(&self, api_version: &str, kind: &str) -> Option<KindSchema> {
        if !schema::is_builtin(api_version, kind) {
            return None;
        }
        let document = self.openapi_document(api_version, kind).await;
        if document.is_none() && !self.openapi.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!("cannot read the server's OpenAPI document, using the built-in patch metadata");
        }
        KindSchema::for_builtin(document, api_version, kind)
    }

    /// The schema of `kind` in `api_version` as the server's OpenAPI documents describe it, custom
    /// resources included, for checking objects before they are sent; `None` when the server
    /// describes no such kind. A kind the cached v2 document does not know (its
    /// CustomResourceDefinition is newer) has the document read again.
    pub async fn kind_schema(&self, api_version: &str, kind: &str) -> Option<KindSchema> {
        if let Some(schema) = self.openapi_document(api_version, kind).await {
            return KindSchema::for_kind(schema, api_version, kind);
        }
        if schema::is_builtin(api_version, kind) { None } else { self.fresh_kind_schema(api_version, kind).await }
    }

    /// [`Cluster::kind_schema`] from a v2 document read from the server in this run, not from the
    /// cache: a custom resource's schema changes with its CustomResourceDefinition, which the
    /// server version does not tell. The document is read at most once per run.
    pub async fn fresh_kind_schema(&self, api_version: &str, kind: &str) -> Option<KindSchema> {
        let mut memory = self.openapi.memory.lock().await;
        let cache_name = self.v2_cache_name().await.ok()?;
        if !memory.v2_from_server {
            let fresh = self.fetch_pruned("/openapi/v2", &cache_name).await;
            memory.v2 = Some(fresh.ok().map(Arc::new));
            memory.v2_from_server = true;
        }
        let whole = memory.v2.clone().flatten()?;
        let subset = schema::kind_subset(&whole, api_version, kind)?;
        self.store(&kind_cache_name(&cache_name, api_version, kind), &subset);
        let document = OpenApiSchema::from_document(&subset).ok().map(Arc::new);
        memory.by_kind.insert((api_version.to_string(), kind.to_string()), document.clone());
        KindSchema::for_kind(document?, api_version, kind)
    }

    /// Whether the server checks fields itself when asked (`fieldValidation`, Kubernetes 1.25 and
    /// later).
    pub async fn supports_field_validation(&self) -> bool {
        self.server_is_at_least(1, 25).await
    }

    /// Whether a write to an object gives its manager none of the fields the object's status
    /// subresource keeps (Kubernetes 1.22 and later reset them before tracking ownership; 1.20
    /// gives the writer the status fields it sent).
    pub async fn keeps_status_ownership_to_subresource(&self) -> bool {
        self.server_is_at_least(1, 22).await
    }

    /// Whether the server is Kubernetes `major.minor` or later, by its version, which is cached
    /// for as long as discovery.
    async fn server_is_at_least(&self, major: u32, minor: u32) -> bool {
        match self.cached_server_version().await {
            Ok(version) => {
                let number = |key: &str| {
                    let text = version[key].as_str().unwrap_or_default();
                    text.trim_end_matches(|c: char| !c.is_ascii_digit()).parse::<u32>().unwrap_or(0)
                };
                (number("major"), number("minor")) >= (major, minor)
            }
            Err(err) => {
                tracing::debug!("cannot read the server's version: {err}");
                false
            }
        }
    }

    /// The document that describes `kind` in `api_version`: the group-version's v3 document, else
    /// the kind's definitions from v2. `None` when neither can be read or describes the kind.
    async fn openapi_document(&self, api_version: &str, kind: &str) -> Option<Arc<OpenApiSchema>> {
        let mut memory = self.openapi.memory.lock().await;
        let key = (api_version.to_string(), kind.to_string());
        if let Some(document) = memory.by_kind.get(&key) {
            return document.clone();
        }
        let document = match self.openapi_v3(&mut memory, api_version).await {
            Ok(Some(document)) => Some(document),
            result => {
                if let Err(err) = result {
                    tracing::debug!("cannot read the OpenAPI v3 document of {api_version}: {err:#}");
                }
                match self.v2_cache_name().await {
                    Ok(cache_name) => self.v2_kind_document(&mut memory, &cache_name, api_version, kind).await,
                    Err(err) => {
                        tracing::debug!("cannot read the server's version: {err}");
                        None
                    }
                }
            }
        };
        memory.by_kind.insert(key, document.clone());
        document
    }

    /// The v3 document of the group-version, or `None` when the server does not serve v3 or it.
    async fn openapi_v3(&self, memory: &mut Memory, api_version: &str) -> Result<Option<Arc<OpenApiSchema>>> {
        if memory.v3_index.is_none() {
            let index = match self.cached_small(V3_INDEX) {
                Some(index) => index,
                None => {
                    let index = match self.get_json("/openapi/v3").await {
                        Ok(index) => index,
                        Err(Error::NotFound(_)) => Value::Null,
                        Err(err) => return Err(err),
                    };
                    self.store_small(V3_INDEX, &index);
                    index
                }
            };
            memory.v3_index = Some(Some(index).filter(|index| !index.is_null()));
        }
        let Some(Some(index)) = &memory.v3_index else { return Ok(None) };
        let Some(url) = v3_document_url(index, api_version) else { return Ok(None) };
        let hash = url.split_once("hash=").map_or("", |(_, hash)| hash.split('&').next().unwrap_or(""));
        let cache_name = format!("v3-{}-{hash}.json", group_version_path(api_version).replace('/', "_"));
        let cached = if hash.is_empty() { None } else { self.cached_pruned(&cache_name) };
        let document = match cached {
            Some(document) => document,
            None => self.fetch_pruned(&url, &cache_name).await?,
        };
        let schema = OpenApiSchema::from_document(&document)
            .map_err(|err| Error::InvalidResponse { path: url, reason: err.to_string() })?;
        Ok(Some(Arc::new(schema)))
    }

    /// The definitions of `kind` from the v2 document: cached per kind, else taken from the whole
    /// document (cached by server version, else read from the server) and cached for the next run.
    async fn v2_kind_document(
        &self,
        memory: &mut Memory,
        cache_name: &str,
        api_version: &str,
        kind: &str,
    ) -> Option<Arc<OpenApiSchema>> {
        let kind_cache = kind_cache_name(cache_name, api_version, kind);
        let subset = match self.cached_pruned(&kind_cache) {
            Some(subset) => subset,
            None => {
                let whole = self.whole_v2(memory, cache_name).await?;
                let subset = schema::kind_subset(&whole, api_version, kind)?;
                self.store(&kind_cache, &subset);
                subset
            }
        };
        OpenApiSchema::from_document(&subset).ok().map(Arc::new)
    }

    /// The whole pruned v2 document: as read before in this run, else cached, else from the server.
    async fn whole_v2(&self, memory: &mut Memory, cache_name: &str) -> Option<Arc<Value>> {
        if memory.v2.is_none() {
            let whole = match self.cached_pruned(cache_name) {
                Some(whole) => Some(whole),
                None => {
                    memory.v2_from_server = true;
                    self.fetch_pruned("/openapi/v2", cache_name)
                        .await
                        .inspect_err(|err| tracing::debug!("cannot read the server's OpenAPI v2 document: {err:#}"))
                        .ok()
                }
            };
            memory.v2 = Some(whole.map(Arc::new));
        }
        memory.v2.clone().flatten()
    }

    /// The server's `/version`, cached for as long as discovery.
    async fn cached_server_version(&self) -> Result<Value> {
        if let Some(version) = self.openapi.version.get() {
            return Ok(version.clone());
        }
        let version = match self.cached_small(VERSION) {
            Some(version) => version,
            None => {
                let version = self.get_json("/version").await?;
                self.store_small(VERSION, &version);
                version
            }
        };
        Ok(self.openapi.version.get_or_init(|| version).clone())
    }

    /// The cache file of the whole v2 document, by server version.
    async fn v2_cache_name(&self) -> Result<String> {
        let version = self.cached_server_version().await?;
        let git_version = version["gitVersion"].as_str().unwrap_or("unknown");
        Ok(format!("v2-{}.json", git_version.replace(|c: char| !c.is_ascii_alphanumeric() && c != '.', "_")))
    }

    /// A small answer cached for as long as discovery (the v3 index, the server version).
    fn cached_small(&self, name: &str) -> Option<Value> {
        let bytes = self.openapi.disk.as_ref()?.load(name, Some(DISCOVERY_TTL))?;
        serde_json::from_slice(&bytes).ok()
    }

    fn store_small(&self, name: &str, value: &Value) {
        self.store(name, value);
    }

    fn store(&self, name: &str, value: &Value) {
        if let (Some(disk), Ok(bytes)) = (&self.openapi.disk, serde_json::to_vec(value)) {
            disk.store(name, &bytes);
        }
    }

    /// A pruned document from the cache, unless an older kubeupd pruned it differently.
    fn cached_pruned(&self, name: &str) -> Option<Value> {
        let bytes = self.openapi.disk.as_ref()?.load(name, None)?;
        let document: Value = super::json::decode(&bytes).ok()?;
        let (marker, format) = schema::PRUNED_FORMAT;
        if document.get(marker).and_then(Value::as_u64) != Some(format) {
            tracing::debug!("the cached OpenAPI document {name} was pruned by an older kubeupd; reading it again");
            return None;
        }
        tracing::debug!("using the cached OpenAPI document {name}");
        Some(document)
    }

    /// Reads the document at `path`, prunes it and caches it as `cache_name`.
    async fn fetch_pruned(&self, path: &str, cache_name: &str) -> Result<Value> {
        let pruned = schema::prune(&self.get_json(path).await?);
        self.store(cache_name, &pruned);
        Ok(pruned)
    }

    async fn get_json(&self, path: &str) -> Result<Value> {
        let body = self.transport.get(path, "application/json").await?;
        super::json::decode(&body)
            .map_err(|err| Error::InvalidResponse { path: path.to_string(), reason: format!("invalid JSON: {err}") })
    }
}

/// The cache file of one kind's definitions from the v2 document cached as `whole`.
fn kind_cache_name(whole: &str, api_version: &str, kind: &str) -> String {
    let safe = |text: &str| text.replace(|c: char| !c.is_ascii_alphanumeric() && c != '.', "_");
    format!("{}-{}-{}.json", whole.trim_end_matches(".json"), safe(api_version), safe(kind))
}

/// `api/v1` for the core group, `apis/<group>/<version>` otherwise: the keys of the v3 index.
fn group_version_path(api_version: &str) -> String {
    if api_version.contains('/') { format!("apis/{api_version}") } else { format!("api/{api_version}") }
}

/// The server-relative URL of a group-version's v3 document, from the `/openapi/v3` index.
fn v3_document_url(index: &Value, api_version: &str) -> Option<String> {
    let path = group_version_path(api_version);
    index["paths"][path.as_str()]["serverRelativeURL"].as_str().map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_group_version_documents_in_the_v3_index() {
        let index = json!({"paths": {
            "api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=AAA"},
            "apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=BBB"}
        }});
        assert_eq!(v3_document_url(&index, "v1").as_deref(), Some("/openapi/v3/api/v1?hash=AAA"));
        assert_eq!(v3_document_url(&index, "apps/v1").as_deref(), Some("/openapi/v3/apis/apps/v1?hash=BBB"));
        assert_eq!(v3_document_url(&index, "batch/v1"), None);
    }
}
