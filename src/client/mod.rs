//! The API: everything that talks to the API server. Kubeconfig and the connection flags, REST
//! calls on objects of any type, discovery and REST mapping (cached on disk), the OpenAPI
//! documents that give patch metadata (cached on disk), retries, and a typed [`Error`] that
//! callers match on. It knows nothing of the command line or of printing.

mod config;
mod discovery;
mod disk_cache;
mod dynamic;
mod error;
mod forward;
mod json;
mod logs;
mod mapping;
mod openapi;
pub(crate) mod resource;
mod retry;
mod stream;
mod transport;
mod version;
mod warnings;
mod watch;

use std::sync::Arc;

use tokio::sync::Mutex;

pub use config::{ConnectOptions, Overrides, context_names};
pub use discovery::Discovery;
pub use dynamic::{DeleteParams, FieldValidation, ListScope, Propagation, WriteOptions};
pub use error::{Error, Result, Status, StatusCause, StatusDetails, refused_line};
pub use json::{contains as json_contains, decode as decode_json};
pub use logs::{ByteStream, LogOptions};
pub use mapping::MappingError;
pub use resource::ResourceType;
pub use retry::RetryPolicy;
pub use stream::{Channels, Output, Session};
pub use version::VersionInfo;
pub use watch::{Selectors, WatchEvent, WatchOptions, WatchStream};

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
    pub async fn connect(opts: &ConnectOptions) -> Result<Cluster> {
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

    /// Hands every warning the server sends from now on (`Warning` headers) to `handler`, each
    /// distinct text once.
    pub fn on_warning(&self, handler: impl Fn(&str) + Send + Sync + 'static) {
        self.transport.warnings.set_handler(Box::new(handler));
    }

    /// The server's URL, e.g. `https://127.0.0.1:6443`.
    pub fn server(&self) -> &str {
        self.transport.server()
    }

    /// The resource type for a user's type argument (`deploy`, `Deployment`, `deployments.apps`).
    /// On a miss, discovery is refreshed from the server once before giving up.
    pub async fn resolve(&self, arg: &str) -> Result<ResourceType> {
        self.find(|discovery| discovery.resolve(arg).cloned())
            .await?
            .ok_or_else(|| MappingError::UnknownType(arg.to_string()).into())
    }

    /// The resource types a user's type argument lists: a category's (`all`), as kubectl expands
    /// it before it reads the argument as a type, or else the one type it names.
    pub async fn resolve_types(&self, arg: &str) -> Result<Vec<ResourceType>> {
        let lookup = |discovery: &Discovery| {
            let category = discovery.category(arg);
            match category.is_empty() {
                true => discovery.resolve(arg).map(|rt| vec![rt.clone()]),
                false => Some(category.into_iter().cloned().collect()),
            }
        };
        self.find(lookup).await?.ok_or_else(|| MappingError::UnknownType(arg.to_string()).into())
    }

    /// The resource type serving `kind` in `api_version`, for objects read from manifests.
    pub async fn resolve_kind(&self, api_version: &str, kind: &str) -> Result<ResourceType> {
        self.find(|discovery| discovery.resolve_kind(api_version, kind).cloned())
            .await?
            .ok_or_else(|| MappingError::UnknownKind { api_version: api_version.into(), kind: kind.into() }.into())
    }

    /// Every resource type the server serves, in priority order.
    pub async fn discovery(&self) -> Result<Arc<Discovery>> {
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
    pub async fn rediscover(&self) -> Result<()> {
        let mut state = self.discovery.lock().await;
        self.refresh(&mut state).await.map(drop)
    }

    /// Looks `lookup` up in discovery, refreshing from the server once on a miss.
    async fn find<T>(&self, lookup: impl Fn(&Discovery) -> Option<T>) -> Result<Option<T>> {
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

    async fn refresh(&self, state: &mut DiscoveryState) -> Result<Arc<Discovery>> {
        let fresh = Arc::new(discovery::fetch(&self.transport).await?);
        if let (Some(cache), Ok(bytes)) = (&self.discovery_cache, serde_json::to_vec(&*fresh)) {
            cache.store(DISCOVERY_FILE, &bytes);
        }
        state.from_server = true;
        Ok(state.current.insert(fresh).clone())
    }
}
