//! Talking to the API server: kubeconfig and contexts, discovery and REST mapping, dynamic object access.

mod apply;
mod config;
mod discovery;
mod disk_cache;
mod dynamic;
mod error;
mod json;
pub mod last_applied;
mod mapping;
mod openapi;
mod resource;
mod retry;
mod table;
mod transport;

use std::sync::Arc;

use serde::Deserialize as _;
use tokio::sync::Mutex;

pub use apply::{Action, Applied, ApplyOptions, Live};
pub use config::ConnectOptions;
pub use discovery::Discovery;
pub use dynamic::{ListScope, WriteOptions};
pub use error::{ApiError, ConnectionError, StatusCause, StatusDetails, api_error};
pub use json::decode as decode_json;
pub use mapping::MappingError;
pub use resource::ResourceType;
pub use retry::{Modified, ModifyOptions, RetryPolicy, is_conflict};
pub use table::{Table, TableColumn, TableRow};

use disk_cache::{DISCOVERY_TTL, DiskCache};
use transport::Transport;

const DISCOVERY_FILE: &str = "discovery.json";

/// A connection to one cluster: the client, the namespace to use, and discovery (fetched lazily,
/// at most once per run, and cached on disk).
pub struct Cluster {
    transport: Transport,
    default_namespace: String,
    discovery_cache: Option<DiskCache>,
    discovery: Mutex<DiscoveryState>,
    openapi: openapi::OpenApiCache,
}

#[derive(Default)]
struct DiscoveryState {
    current: Option<Arc<Discovery>>,
    from_server: bool,
}

impl Cluster {
    /// Loads the kubeconfig the options select and prepares a client; sends no request yet.
    pub async fn connect(opts: &ConnectOptions) -> anyhow::Result<Cluster> {
        let config = config::load(opts).await?;
        let transport = Transport::new(&config, opts.request_timeout)?;
        let cache = |what| opts.cache_root().map(|root| DiskCache::new(&root, what, transport.server()));
        Ok(Cluster {
            discovery_cache: cache("discovery"),
            openapi: openapi::OpenApiCache::new(cache("openapi")),
            transport,
            default_namespace: config.default_namespace,
            discovery: Mutex::default(),
        })
    }

    /// The namespace for requests that name none: `-n`, else the context's, else `default`.
    pub fn default_namespace(&self) -> &str {
        &self.default_namespace
    }

    /// The server's URL, e.g. `https://127.0.0.1:6443`.
    pub fn server(&self) -> &str {
        self.transport.server()
    }

    /// The resource type for a user's type argument (`deploy`, `Deployment`, `deployments.apps`).
    /// On a miss, discovery is refreshed from the server once before giving up.
    pub async fn resolve(&self, arg: &str) -> anyhow::Result<ResourceType> {
        self.find(|discovery| discovery.resolve(arg).cloned())
            .await?
            .ok_or_else(|| MappingError::UnknownType(arg.to_string()).into())
    }

    /// The resource type serving `kind` in `api_version`, for objects read from manifests.
    pub async fn resolve_kind(&self, api_version: &str, kind: &str) -> anyhow::Result<ResourceType> {
        self.find(|discovery| discovery.resolve_kind(api_version, kind).cloned())
            .await?
            .ok_or_else(|| MappingError::UnknownKind { api_version: api_version.into(), kind: kind.into() }.into())
    }

    /// Every resource type the server serves, in priority order.
    pub async fn discovery(&self) -> anyhow::Result<Arc<Discovery>> {
        let mut state = self.discovery.lock().await;
        if let Some(current) = &state.current {
            return Ok(current.clone());
        }
        let cached = self.discovery_cache.as_ref().and_then(|cache| cache.load(DISCOVERY_FILE, Some(DISCOVERY_TTL)));
        match cached.map(|bytes| serde_json::from_slice::<Discovery>(&bytes)) {
            Some(Ok(cached)) => {
                tracing::debug!("using cached discovery for {}", self.server());
                return Ok(state.current.insert(Arc::new(cached)).clone());
            }
            Some(Err(err)) => tracing::debug!("ignoring unreadable discovery cache: {err}"),
            None => {}
        }
        self.refresh(&mut state).await
    }

    /// Reads discovery from the server again, e.g. after creating CustomResourceDefinitions.
    pub async fn rediscover(&self) -> anyhow::Result<()> {
        let mut state = self.discovery.lock().await;
        self.refresh(&mut state).await.map(drop)
    }

    /// Looks `lookup` up in discovery, refreshing from the server once on a miss.
    async fn find<T>(&self, lookup: impl Fn(&Discovery) -> Option<T>) -> anyhow::Result<Option<T>> {
        if let Some(found) = lookup(&*self.discovery().await?) {
            return Ok(Some(found));
        }
        let mut state = self.discovery.lock().await;
        if state.from_server {
            return Ok(None);
        }
        let fresh = self.refresh(&mut state).await?;
        Ok(lookup(&fresh))
    }

    async fn refresh(&self, state: &mut DiscoveryState) -> anyhow::Result<Arc<Discovery>> {
        let fresh = Arc::new(discovery::fetch(&self.transport).await?);
        if let (Some(cache), Ok(bytes)) = (&self.discovery_cache, serde_json::to_vec(&*fresh)) {
            cache.store(DISCOVERY_FILE, &bytes);
        }
        state.from_server = true;
        Ok(state.current.insert(fresh).clone())
    }
}

/// Reads a JSON `null` as the type's default: Go servers send `null` for empty lists.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + serde::Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}
