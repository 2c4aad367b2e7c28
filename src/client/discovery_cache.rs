//! The on-disk discovery cache: one file per server under
//! `<cache dir>/kubeupd/discovery/<host_port>/`, trusted for six hours like kubectl's.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::discovery::Discovery;

/// How long a cached discovery document is trusted (kubectl's default).
pub(crate) const DISCOVERY_TTL: Duration = Duration::from_secs(6 * 60 * 60);

const FILE_NAME: &str = "discovery.json";

/// Where one server's discovery is cached.
#[derive(Debug, Clone)]
pub(crate) struct DiscoveryCache {
    dir: PathBuf,
}

impl DiscoveryCache {
    /// The cache for the server at `server` (a URL) under the cache root `root`.
    pub(crate) fn new(root: &Path, server: &str) -> Self {
        DiscoveryCache { dir: root.join("kubeupd").join("discovery").join(server_dir_name(server)) }
    }

    /// The cached discovery if it exists, is readable and is younger than `ttl`.
    pub(crate) fn load(&self, ttl: Duration) -> Option<Discovery> {
        let path = self.dir.join(FILE_NAME);
        let modified = std::fs::metadata(&path).and_then(|meta| meta.modified()).ok()?;
        let age = SystemTime::now().duration_since(modified).unwrap_or_default();
        if age >= ttl {
            tracing::debug!("discovery cache {} is stale", path.display());
            return None;
        }
        let text = std::fs::read(&path).ok()?;
        match serde_json::from_slice(&text) {
            Ok(discovery) => Some(discovery),
            Err(err) => {
                tracing::debug!("ignoring unreadable discovery cache {}: {err}", path.display());
                None
            }
        }
    }

    /// Writes `discovery` atomically; a cache that cannot be written is only logged.
    pub(crate) fn store(&self, discovery: &Discovery) {
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&self.dir)?;
            let temporary = self.dir.join(format!(".{FILE_NAME}.{}", std::process::id()));
            std::fs::write(&temporary, serde_json::to_vec(discovery)?)?;
            std::fs::rename(&temporary, self.dir.join(FILE_NAME))
        };
        if let Err(err) = write() {
            tracing::debug!("cannot write the discovery cache in {}: {err}", self.dir.display());
        }
    }
}

/// kubectl's folder name for a server: the URL without its scheme, every character other than
/// word characters, `/` and `.` replaced by `_`.
fn server_dir_name(server: &str) -> String {
    let schemeless = server.strip_prefix("https://").or_else(|| server.strip_prefix("http://")).unwrap_or(server);
    schemeless
        .trim_end_matches('/')
        .chars()
        .map(|c| if c.is_alphanumeric() || matches!(c, '_' | '/' | '.') { c } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::resource::fixture;
    use super::*;

    #[test]
    fn folder_names_follow_kubectl() {
        assert_eq!(server_dir_name("https://127.0.0.1:6443"), "127.0.0.1_6443");
        assert_eq!(server_dir_name("https://example.com/k8s/clusters/c-1/"), "example.com/k8s/clusters/c_1");
    }

    #[test]
    fn stores_and_loads_within_the_ttl() {
        let root = tempfile::tempdir().unwrap();
        let cache = DiscoveryCache::new(root.path(), "https://127.0.0.1:6443");
        assert!(cache.load(DISCOVERY_TTL).is_none());
        let discovery = Discovery { resources: vec![fixture("apps", "v1", "deployments", "Deployment", true)] };
        cache.store(&discovery);
        assert!(root.path().join("kubeupd/discovery/127.0.0.1_6443/discovery.json").is_file());
        assert_eq!(cache.load(DISCOVERY_TTL), Some(discovery));
        assert!(cache.load(Duration::ZERO).is_none());
    }
}
