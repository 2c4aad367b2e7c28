//! Choosing the cluster: kubeconfig files, contexts and the connection flags.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::error::{Error, Result};

/// How to reach the cluster: which kubeconfig and context, and what overrides them (kubectl's
/// global flags).
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// Use only this kubeconfig file; `None` means `$KUBECONFIG` (a path list) or `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// The context to use instead of the kubeconfig's `current-context`.
    pub context: Option<String>,
    /// The namespace to use instead of the context's.
    pub namespace: Option<String>,
    /// The longest a single request may take; `None` waits forever.
    pub request_timeout: Option<Duration>,
    /// Where discovery is cached; `None` means `~/.kube/cache`.
    pub cache_dir: Option<PathBuf>,
    /// Skip verifying the server's certificate.
    pub insecure_skip_tls_verify: bool,
}

impl ConnectOptions {
    /// The cache root: `--cache-dir`, else `~/.kube/cache`.
    pub fn cache_root(&self) -> Option<PathBuf> {
        self.cache_dir.clone().or_else(|| home_dir().map(|home| home.join(".kube").join("cache")))
    }
}

/// Builds kube's client configuration from the kubeconfig the options select.
pub(crate) async fn load(opts: &ConnectOptions) -> Result<kube::Config> {
    let kubeconfig = match &opts.kubeconfig {
        Some(path) => read_file(path)?,
        None => match from_env()? {
            Some(merged) => merged,
            None => match home_dir().map(|home| home.join(".kube").join("config")) {
                Some(path) if path.exists() => read_file(&path)?,
                _ if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() => {
                    return in_cluster(opts);
                }
                _ => {
                    return Err(Error::Config(
                        "no kubeconfig found: set $KUBECONFIG, pass --kubeconfig, or create ~/.kube/config".into(),
                    ));
                }
            },
        },
    };
    if let Some(name) = &opts.context
        && !kubeconfig.contexts.iter().any(|context| &context.name == name)
    {
        return Err(Error::Config(format!("context was not found for specified context: {name}")));
    }
    if opts.context.is_none() && kubeconfig.current_context.as_deref().unwrap_or("").is_empty() {
        return Err(Error::Config("the kubeconfig has no current-context: pass --context".into()));
    }
    let options = KubeConfigOptions { context: opts.context.clone(), ..Default::default() };
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|err| Error::Config(format!("invalid kubeconfig: {err}")))?;
    apply_flags(&mut config, opts);
    Ok(config)
}

fn in_cluster(opts: &ConnectOptions) -> Result<kube::Config> {
    let mut config = kube::Config::incluster()
        .map_err(|err| Error::Config(format!("cannot use the in-cluster service account: {err}")))?;
    apply_flags(&mut config, opts);
    Ok(config)
}

fn apply_flags(config: &mut kube::Config, opts: &ConnectOptions) {
    if let Some(namespace) = &opts.namespace {
        config.default_namespace = namespace.clone();
    }
    if opts.insecure_skip_tls_verify {
        config.accept_invalid_certs = true;
        config.root_cert = None;
    }
}

/// The files listed in `$KUBECONFIG`, merged (the first to set a value wins); files that do not
/// exist are skipped, as kubectl does. `None` when the variable is unset or empty.
fn from_env() -> Result<Option<Kubeconfig>> {
    let Some(list) = std::env::var_os("KUBECONFIG").filter(|list| !list.is_empty()) else {
        return Ok(None);
    };
    let paths: Vec<PathBuf> = std::env::split_paths(&list).filter(|path| !path.as_os_str().is_empty()).collect();
    let mut merged: Option<Kubeconfig> = None;
    for path in paths.iter().filter(|path| path.exists()) {
        let next = read_file(path)?;
        merged = Some(match merged {
            Some(earlier) => {
                earlier.merge(next).map_err(|err| Error::Config(format!("cannot merge {}: {err}", path.display())))?
            }
            None => next,
        });
    }
    match merged {
        Some(merged) => Ok(Some(merged)),
        None => {
            Err(Error::Config(format!("none of the kubeconfig files in $KUBECONFIG exist: {}", list.to_string_lossy())))
        }
    }
}

fn read_file(path: &Path) -> Result<Kubeconfig> {
    if !path.exists() {
        return Err(Error::Config(format!("kubeconfig {} does not exist", path.display())));
    }
    // kube's error already names its cause; it is not chained again.
    Kubeconfig::read_from(path)
        .map_err(|err| Error::Config(format!("cannot load kubeconfig {}: {err}", path.display())))
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from)
}
