//! The server's OpenAPI documents, read for patch metadata: v3 for the object's group-version when
//! the server serves it, else v2. Both are pruned to what patching needs and cached on disk (v3 by
//! the content hash the server gives, v2 by server version; the v3 index and the version for as long
//! as discovery), and each is read at most once per run. When the server's documents cannot be
//! read, the embedded metadata is used.

use std::collections::HashMap;
use std::sync::Arc;

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
}

#[derive(Default)]
struct Memory {
    /// The `/openapi/v3` index; `Some(None)` when the server does not serve v3.
    v3_index: Option<Option<Value>>,
    /// The v2 document; `Some(None)` when it could not be read.
    v2: Option<Option<Arc<OpenApiSchema>>>,
    /// The document chosen for each `apiVersion`.
    by_api_version: HashMap<String, Option<Arc<OpenApiSchema>>>,
}

impl OpenApiCache {
    pub(crate) fn new(disk: Option<DiskCache>) -> Self {
        OpenApiCache { disk, memory: Mutex::default() }
    }
}

impl Cluster {
    /// The strategic-merge metadata of `kind` in `api_version`, or `None` when the kind is not built
    /// into Kubernetes (custom resources are patched with JSON merge patches, as kubectl does).
    pub async fn patch_schema(&self, api_version: &str, kind: &str) -> Option<KindSchema> {
        if !schema::is_builtin(api_version, kind) {
            return None;
        }
        let document = self.openapi_document(api_version).await;
        KindSchema::for_builtin(document, api_version, kind)
    }

    async fn openapi_document(&self, api_version: &str) -> Option<Arc<OpenApiSchema>> {
        let mut memory = self.openapi.memory.lock().await;
        if let Some(document) = memory.by_api_version.get(api_version) {
            return document.clone();
        }
        let document = match self.openapi_v3(&mut memory, api_version).await {
            Ok(Some(document)) => Some(document),
            Ok(None) => self.openapi_v2(&mut memory).await,
            Err(err) => {
                tracing::debug!("cannot read the OpenAPI v3 document of {api_version}: {err:#}");
                self.openapi_v2(&mut memory).await
            }
        };
        memory.by_api_version.insert(api_version.to_string(), document.clone());
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
        let cached = if hash.is_empty() { None } else { self.cached_openapi(&cache_name) };
        match cached {
            Some(document) => Ok(Some(document)),
            None => self.fetch_openapi(&url, &cache_name).await.map(Some),
        }
    }

    /// The v2 document; `None` when it cannot be read.
    async fn openapi_v2(&self, memory: &mut Memory) -> Option<Arc<OpenApiSchema>> {
        if let Some(document) = &memory.v2 {
            return document.clone();
        }
        let read = async {
            let version = match self.cached_small(VERSION) {
                Some(version) => version,
                None => {
                    let version = self.get_json("/version").await?;
                    self.store_small(VERSION, &version);
                    version
                }
            };
            let git_version = version["gitVersion"].as_str().unwrap_or("unknown");
            let cache_name =
                format!("v2-{}.json", git_version.replace(|c: char| !c.is_ascii_alphanumeric() && c != '.', "_"));
            match self.cached_openapi(&cache_name) {
                Some(document) => Ok(document),
                None => self.fetch_openapi("/openapi/v2", &cache_name).await,
            }
        };
        let document = match read.await {
            Ok(document) => Some(document),
            Err(err) => {
                tracing::warn!("cannot read the server's OpenAPI document, using the built-in patch metadata: {err:#}");
                None
            }
        };
        memory.v2 = Some(document.clone());
        document
    }

    /// A small answer cached for as long as discovery (the v3 index, the server version).
    fn cached_small(&self, name: &str) -> Option<Value> {
        let bytes = self.openapi.disk.as_ref()?.load(name, Some(DISCOVERY_TTL))?;
        serde_json::from_slice(&bytes).ok()
    }

    fn store_small(&self, name: &str, value: &Value) {
        if let (Some(disk), Ok(bytes)) = (&self.openapi.disk, serde_json::to_vec(value)) {
            disk.store(name, &bytes);
        }
    }

    fn cached_openapi(&self, name: &str) -> Option<Arc<OpenApiSchema>> {
        let bytes = self.openapi.disk.as_ref()?.load(name, None)?;
        let document = serde_json::from_slice(&bytes).ok()?;
        tracing::debug!("using the cached OpenAPI document {name}");
        OpenApiSchema::from_document(&document).ok().map(Arc::new)
    }

    async fn fetch_openapi(&self, path: &str, cache_name: &str) -> Result<Arc<OpenApiSchema>> {
        let pruned = schema::prune(&self.get_json(path).await?);
        let schema = OpenApiSchema::from_document(&pruned)
            .map_err(|err| Error::InvalidResponse { path: path.to_string(), reason: err.to_string() })?;
        if let Some(disk) = &self.openapi.disk {
            disk.store(cache_name, &serde_json::to_vec(&pruned).expect("a JSON value always serializes"));
        }
        Ok(Arc::new(schema))
    }

    async fn get_json(&self, path: &str) -> Result<Value> {
        let body = self.transport.get(path, "application/json").await?;
        super::json::decode(&body)
            .map_err(|err| Error::InvalidResponse { path: path.to_string(), reason: format!("invalid JSON: {err}") })
    }
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
