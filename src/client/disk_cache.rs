//! Per-server caches on disk, under `<cache dir>/kubeupd/<what>/<host_port>/`, laid out like kubectl's.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long cached discovery is trusted (kubectl's default).
pub(crate) const DISCOVERY_TTL: Duration = Duration::from_secs(6 * 60 * 60);

/// One server's cache of one kind of document (discovery, OpenAPI).
#[derive(Debug, Clone)]
pub(crate) struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// The cache of `what` for the server at `server` (a URL) under the cache root `root`.
    pub(crate) fn new(root: &Path, what: &str, server: &str) -> Self {
        DiskCache { dir: root.join("kubeupd").join(what).join(server_dir_name(server)) }
    }

    /// The file `name` if it exists and, when `ttl` is given, is younger than that.
    pub(crate) fn load(&self, name: &str, ttl: Option<Duration>) -> Option<Vec<u8>> {
        let path = self.dir.join(name);
        if let Some(ttl) = ttl {
            let modified = std::fs::metadata(&path).and_then(|meta| meta.modified()).ok()?;
            if SystemTime::now().duration_since(modified).unwrap_or_default() >= ttl {
                tracing::debug!("cache {} is stale", path.display());
                return None;
            }
        }
        std::fs::read(&path).ok()
    }

    /// Writes the file `name` atomically; a cache that cannot be written is only logged.
    pub(crate) fn store(&self, name: &str, contents: &[u8]) {
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&self.dir)?;
            let temporary = self.dir.join(format!(".{name}.{}", std::process::id()));
            std::fs::write(&temporary, contents)?;
            std::fs::rename(&temporary, self.dir.join(name))
        };
        if let Err(err) = write() {
            tracing::debug!("cannot write the cache in {}: {err}", self.dir.display());
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
    use super::*;

    #[test]
    fn folder_names_follow_kubectl() {
        assert_eq!(server_dir_name("https://127.0.0.1:6443"), "127.0.0.1_6443");
        assert_eq!(server_dir_name("https://example.com/k8s/clusters/c-1/"), "example.com/k8s/clusters/c_1");
    }

    #[test]
    fn stores_and_loads_within_the_ttl() {
        let root = tempfile::tempdir().unwrap();
        let cache = DiskCache::new(root.path(), "discovery", "https://127.0.0.1:6443");
        assert!(cache.load("discovery.json", Some(DISCOVERY_TTL)).is_none());
        cache.store("discovery.json", b"{}");
        assert!(root.path().join("kubeupd/discovery/127.0.0.1_6443/discovery.json").is_file());
        assert_eq!(cache.load("discovery.json", Some(DISCOVERY_TTL)).as_deref(), Some(&b"{}"[..]));
        assert!(cache.load("discovery.json", Some(Duration::ZERO)).is_none());
        assert!(cache.load("discovery.json", None).is_some());
    }
}
