//! Choosing the cluster as kubectl does: kubeconfig files (`--kubeconfig`, else the files of
//! `$KUBECONFIG` merged, else `~/.kube/config`, else the in-cluster service account), a context,
//! and the connection flags that override what they say. With enough flags no kubeconfig is needed.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{AuthInfo, Context, KubeConfigOptions, Kubeconfig, NamedAuthInfo, NamedCluster, NamedContext};
use secrecy::SecretString;

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
    /// What the connection flags say instead of the kubeconfig.
    pub overrides: Overrides,
}

/// kubectl's connection and identity flags. Each one that is given replaces what the kubeconfig
/// says of the cluster or the user in use, with kubectl's precedence.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--server`: the API server's URL.
    pub server: Option<String>,
    /// `--cluster`: the kubeconfig cluster to use instead of the context's.
    pub cluster: Option<String>,
    /// `--user`: the kubeconfig user to use instead of the context's.
    pub user: Option<String>,
    /// `--certificate-authority`: the CA bundle that signs the server's certificate.
    pub certificate_authority: Option<PathBuf>,
    /// `--tls-server-name`: the name the server's certificate must carry, instead of the URL's host.
    pub tls_server_name: Option<String>,
    /// `--insecure-skip-tls-verify`: do not verify the server's certificate.
    pub insecure_skip_tls_verify: bool,
    /// `--disable-compression`: ask for uncompressed answers.
    pub disable_compression: bool,
    /// `--token`: a bearer token.
    pub token: Option<SecretString>,
    /// `--client-certificate`: a client certificate file for TLS authentication.
    pub client_certificate: Option<PathBuf>,
    /// `--client-key`: the client certificate's key file.
    pub client_key: Option<PathBuf>,
    /// `--username`: basic authentication's user.
    pub username: Option<String>,
    /// `--password`: basic authentication's password.
    pub password: Option<SecretString>,
    /// `--as`: the user to impersonate.
    pub impersonate: Option<String>,
    /// `--as-group`: groups to impersonate (with `--as`).
    pub impersonate_groups: Vec<String>,
    /// `--as-uid`: the UID to impersonate (with `--as`).
    pub impersonate_uid: Option<String>,
    /// `--as-user-extra KEY=VALUE`: extra fields of the user to impersonate (with `--as`).
    pub impersonate_extra: Vec<(String, String)>,
    /// `--proxy-url`: the proxy to reach the server through, over the kubeconfig's.
    pub proxy_url: Option<String>,
}

impl ConnectOptions {
    /// The cache root: `--cache-dir`, else `~/.kube/cache`.
    pub fn cache_root(&self) -> Option<PathBuf> {
        self.cache_dir.clone().or_else(|| home_dir().map(|home| home.join(".kube").join("cache")))
    }
}

/// The contexts of the kubeconfig the options select, in its order (merged files: the first
/// file's first): what a `--context` list or pattern is matched against.
pub fn context_names(opts: &ConnectOptions) -> Result<Vec<String>> {
    let kubeconfig = read_kubeconfig(opts)?.unwrap_or_default();
    Ok(kubeconfig.contexts.into_iter().map(|context| context.name).collect())
}

/// The names the chosen cluster, user and context get in the one-context kubeconfig handed to kube.
const SELECTED: &str = "selected";

/// Where the service account's credentials are mounted in a pod.
const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Builds kube's client configuration from the kubeconfig the options select and the flags.
pub(crate) async fn load(opts: &ConnectOptions) -> Result<kube::Config> {
    let found = read_kubeconfig(opts)?;
    let nothing_found = found.is_none();
    let kubeconfig = match found {
        Some(kubeconfig) => kubeconfig,
        None if opts.overrides.server.is_none() && std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() => {
            let host = std::env::var("KUBERNETES_SERVICE_HOST").unwrap_or_default();
            let port = std::env::var("KUBERNETES_SERVICE_PORT").unwrap_or_else(|_| "443".into());
            in_cluster(&host, &port, Path::new(SERVICE_ACCOUNT_DIR))?
        }
        None => Kubeconfig::default(),
    };
    let selected = select(kubeconfig, opts, nothing_found)?;
    let proxy_from_kubeconfig = selected.clusters[0].cluster.as_ref().and_then(|cluster| cluster.proxy_url.clone());
    let compression_setting = selected.clusters[0].cluster.as_ref().and_then(|cluster| cluster.disable_compression);
    let mut config = kube::Config::from_custom_kubeconfig(selected, &KubeConfigOptions::default())
        .await
        .map_err(|err| Error::Config(format!("invalid configuration: {err}")))?;
    if let Some(namespace) = &opts.namespace {
        config.default_namespace = namespace.clone();
    }
    // As Go's HTTPS_PROXY does, a proxy from the environment is not used for a server on loopback.
    if proxy_from_kubeconfig.is_none() && is_loopback(&config.cluster_url) {
        config.proxy_url = None;
    }
    config.disable_compression = without_compression(compression_setting, &config.cluster_url);
    Ok(config)
}

/// Whether to ask for answers uncompressed: as the kubeconfig's `disable-compression` (or
/// `--disable-compression`) says; where neither says, from a server on loopback. There nothing is
/// saved on the wire, and gzip costs the server more than sending: a definition of hundreds of KB
/// is compressed on every read and every write's answer.
fn without_compression(setting: Option<bool>, server: &http::Uri) -> bool {
    setting.unwrap_or_else(|| is_loopback(server))
}

/// The kubeconfig, as kubectl finds it: `--kubeconfig` alone; else the files of `$KUBECONFIG`
/// that exist, merged; else `~/.kube/config`. `None` when there is none.
fn read_kubeconfig(opts: &ConnectOptions) -> Result<Option<Kubeconfig>> {
    if let Some(path) = &opts.kubeconfig {
        return read_file(path).map(Some);
    }
    if let Some(list) = std::env::var_os("KUBECONFIG").filter(|list| !list.is_empty()) {
        return merge_files(std::env::split_paths(&list).filter(|path| path.exists()));
    }
    match home_dir().map(|home| home.join(".kube").join("config")) {
        Some(path) if path.exists() => read_file(&path).map(Some),
        _ => Ok(None),
    }
}

/// The files merged as kubectl merges `$KUBECONFIG`: the first file to name a cluster, user or
/// context wins it whole (later entries of that name are ignored, not merged in), and the first
/// file to set `current-context` sets it. `None` when there are no files.
fn merge_files(paths: impl Iterator<Item = PathBuf>) -> Result<Option<Kubeconfig>> {
    let mut merged: Option<Kubeconfig> = None;
    for path in paths {
        let next = read_file(&path)?;
        merged = Some(match merged {
            Some(earlier) => {
                earlier.merge(next).map_err(|err| Error::Config(format!("cannot merge {}: {err}", path.display())))?
            }
            None => next,
        });
    }
    Ok(merged)
}

fn read_file(path: &Path) -> Result<Kubeconfig> {
    if !path.exists() {
        return Err(Error::Config(format!("kubeconfig {} does not exist", path.display())));
    }
    // kube's error already names its cause; it is not chained again.
    Kubeconfig::read_from(path)
        .map_err(|err| Error::Config(format!("cannot load kubeconfig {}: {err}", path.display())))
}

/// The pod's service account as a kubeconfig, so that the flags override it like any other.
/// `host` and `port` are the service's (`$KUBERNETES_SERVICE_HOST`, `_PORT`); `dir` holds the
/// service account's token, CA and namespace.
fn in_cluster(host: &str, port: &str, dir: &Path) -> Result<Kubeconfig> {
    let host = if host.parse::<std::net::Ipv6Addr>().is_ok() { format!("[{host}]") } else { host.to_string() };
    let token = dir.join("token");
    if !token.exists() {
        return Err(Error::Config(format!(
            "cannot use the in-cluster service account: {} does not exist",
            token.display()
        )));
    }
    let namespace = std::fs::read_to_string(dir.join("namespace")).ok().map(|text| text.trim().to_string());
    let cluster = kube::config::Cluster {
        server: Some(format!("https://{host}:{port}")),
        certificate_authority: Some(dir.join("ca.crt").to_string_lossy().into_owned()),
        ..Default::default()
    };
    let user = AuthInfo { token_file: Some(token.to_string_lossy().into_owned()), ..Default::default() };
    let context = Context { cluster: SELECTED.into(), user: Some(SELECTED.into()), namespace, ..Default::default() };
    Ok(single_context(cluster, user, context))
}

/// Picks the context, cluster and user, applies the flags to them, and returns them as a
/// kubeconfig of one context. `nothing_found`: no kubeconfig file was found, for the message when
/// the flags do not name a server either.
fn select(kubeconfig: Kubeconfig, opts: &ConnectOptions, nothing_found: bool) -> Result<Kubeconfig> {
    let flags = &opts.overrides;
    let context_name = opts.context.clone().or_else(|| kubeconfig.current_context.clone()).filter(|n| !n.is_empty());
    let context = match &context_name {
        Some(name) => named(&kubeconfig.contexts, name, |entry| (&entry.name, &entry.context))
            .ok_or_else(|| Error::Config(format!("context was not found for specified context: {name}")))?
            .unwrap_or_default(),
        None => Context::default(),
    };
    let cluster_name = flags.cluster.clone().or_else(|| Some(context.cluster.clone())).filter(|n| !n.is_empty());
    let mut cluster = cluster_name
        .as_ref()
        .and_then(|name| named(&kubeconfig.clusters, name, |entry| (&entry.name, &entry.cluster)))
        .flatten()
        .unwrap_or_default();
    override_cluster(&mut cluster, flags)?;
    if cluster.server.as_deref().unwrap_or("").is_empty() {
        return Err(Error::Config(match (&cluster_name, &context_name) {
            (Some(name), _) => format!("no server found for cluster {name:?}"),
            _ if nothing_found => {
                "no kubeconfig found: set $KUBECONFIG, pass --kubeconfig or --server, or create ~/.kube/config".into()
            }
            (None, None) => "the kubeconfig has no current-context: pass --context, or --server".into(),
            (None, Some(name)) => format!("context {name:?} names no cluster: pass --cluster, or --server"),
        }));
    }
    let user_name = flags.user.clone().or_else(|| context.user.clone()).filter(|n| !n.is_empty());
    let mut user = match &user_name {
        Some(name) => match named(&kubeconfig.auth_infos, name, |entry| (&entry.name, &entry.auth_info)) {
            Some(user) => user.unwrap_or_default(),
            None if flags.user.is_some() => return Err(Error::Config(format!("auth info {name:?} does not exist"))),
            None => AuthInfo::default(),
        },
        None => AuthInfo::default(),
    };
    override_user(&mut user, flags);
    check_user(&user, user_name.as_deref().unwrap_or(""))?;
    if cluster.server.as_deref().is_some_and(|server| server.starts_with("http://")) {
        // As client-go: credentials go only over TLS; impersonation is not a secret.
        tracing::debug!("not sending credentials to a server without TLS");
        user = AuthInfo {
            impersonate: user.impersonate,
            impersonate_groups: user.impersonate_groups,
            impersonate_uid: user.impersonate_uid,
            impersonate_user_extra: user.impersonate_user_extra,
            ..AuthInfo::default()
        };
    }
    read_token_file(&mut user)?;
    let context = Context { cluster: SELECTED.into(), user: Some(SELECTED.into()), ..context };
    Ok(single_context(cluster, user, context))
}

/// The entry called `name`, as the kubeconfig gives it (its body may be missing).
fn named<T, B: Clone>(entries: &[T], name: &str, parts: impl Fn(&T) -> (&String, &Option<B>)) -> Option<Option<B>> {
    entries.iter().map(&parts).find(|(entry_name, _)| entry_name.as_str() == name).map(|(_, body)| body.clone())
}

/// The cluster flags over the kubeconfig's cluster, with client-go's rules: a CA or
/// `--insecure-skip-tls-verify` replaces both the CA and the insecure setting; `--server` without
/// `--tls-server-name` drops the kubeconfig's server name, which belongs to the old server.
fn override_cluster(cluster: &mut kube::config::Cluster, flags: &Overrides) -> Result<()> {
    if let Some(server) = &flags.server {
        cluster.server = Some(server.clone());
    }
    if let Some(proxy) = &flags.proxy_url {
        cluster.proxy_url = Some(proxy.clone());
    }
    if flags.server.is_some() || flags.tls_server_name.is_some() {
        cluster.tls_server_name = flags.tls_server_name.clone();
    }
    if flags.insecure_skip_tls_verify || flags.certificate_authority.is_some() {
        if flags.insecure_skip_tls_verify && flags.certificate_authority.is_some() {
            return Err(Error::Config(
                "specifying a root certificates file with the insecure flag is not allowed".into(),
            ));
        }
        cluster.insecure_skip_tls_verify = Some(flags.insecure_skip_tls_verify);
        cluster.certificate_authority = flags.certificate_authority.as_ref().map(|path| path.display().to_string());
        cluster.certificate_authority_data = None;
    }
    if flags.disable_compression {
        cluster.disable_compression = Some(true);
    }
    Ok(())
}

/// The identity flags over the kubeconfig's user, field by field as client-go merges them;
/// `--token` replaces the kubeconfig's token file too, and a client certificate or key file its
/// inline data.
fn override_user(user: &mut AuthInfo, flags: &Overrides) {
    if let Some(token) = &flags.token {
        user.token = Some(token.clone());
        user.token_file = None;
    }
    if let Some(username) = &flags.username {
        user.username = Some(username.clone());
    }
    if let Some(password) = &flags.password {
        user.password = Some(password.clone());
    }
    if let Some(certificate) = &flags.client_certificate {
        user.client_certificate = Some(certificate.display().to_string());
        user.client_certificate_data = None;
    }
    if let Some(key) = &flags.client_key {
        user.client_key = Some(key.display().to_string());
        user.client_key_data = None;
    }
    if let Some(name) = &flags.impersonate {
        user.impersonate = Some(name.clone());
    }
    if !flags.impersonate_groups.is_empty() {
        user.impersonate_groups = Some(flags.impersonate_groups.clone());
    }
    if let Some(uid) = &flags.impersonate_uid {
        user.impersonate_uid = Some(uid.clone());
    }
    for (key, value) in &flags.impersonate_extra {
        user.impersonate_user_extra.get_or_insert_default().entry(key.clone()).or_default().push(value.clone());
    }
}

/// client-go's checks of a user: one way to authenticate with a secret (a token or basic
/// credentials), and impersonation details only with a user to impersonate.
fn check_user(user: &AuthInfo, name: &str) -> Result<()> {
    let token = user.token.is_some() || user.token_file.is_some();
    if token && (user.username.is_some() || user.password.is_some()) {
        return Err(Error::Config(format!(
            "more than one authentication method found for {name}; found [token basicAuth], only one is allowed"
        )));
    }
    let impersonates_details = user.impersonate_groups.as_ref().is_some_and(|groups| !groups.is_empty())
        || user.impersonate_uid.is_some()
        || user.impersonate_user_extra.as_ref().is_some_and(|extra| !extra.is_empty());
    if user.impersonate.is_none() && impersonates_details {
        return Err(Error::Config(format!(
            "requesting uid, groups or user-extra for {name} without impersonating a user"
        )));
    }
    Ok(())
}

/// Reads the user's `tokenFile` into its token, without the whitespace around it (a file usually
/// ends with a newline), as client-go does; a token given inline wins over the file.
fn read_token_file(user: &mut AuthInfo) -> Result<()> {
    if let (None, Some(path)) = (&user.token, user.token_file.take()) {
        let text = std::fs::read_to_string(&path)
            .map_err(|err| Error::Config(format!("cannot read the token file {path}: {err}")))?;
        user.token = Some(SecretString::from(text.trim()));
    }
    Ok(())
}

fn single_context(cluster: kube::config::Cluster, user: AuthInfo, context: Context) -> Kubeconfig {
    Kubeconfig {
        clusters: vec![NamedCluster { name: SELECTED.into(), cluster: Some(cluster), ..Default::default() }],
        auth_infos: vec![NamedAuthInfo { name: SELECTED.into(), auth_info: Some(user), ..Default::default() }],
        contexts: vec![NamedContext { name: SELECTED.into(), context: Some(context), ..Default::default() }],
        current_context: Some(SELECTED.into()),
        ..Default::default()
    }
}

fn is_loopback(url: &http::Uri) -> bool {
    let host = url.host().unwrap_or("").trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret as _;

    const FIRST: &str = "apiVersion: v1\nkind: Config\ncurrent-context: a\n\
        contexts:\n- name: a\n  context: {cluster: shared, user: shared, namespace: first}\n\
        users:\n- name: shared\n  user: {token: first-token}\n";
    const SECOND: &str = "apiVersion: v1\nkind: Config\ncurrent-context: b\n\
        contexts:\n- name: a\n  context: {cluster: other, user: other}\n- name: b\n  context: {cluster: shared, user: other}\n\
        clusters:\n- name: shared\n  cluster: {server: 'https://second:6443', tls-server-name: second.example}\n\
        users:\n- name: shared\n  user: {token: second-token}\n- name: other\n  user: {username: u, password: p}\n";

    fn merged(files: &[&str]) -> Kubeconfig {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = files
            .iter()
            .enumerate()
            .map(|(index, text)| {
                let path = dir.path().join(format!("config-{index}"));
                std::fs::write(&path, text).unwrap();
                path
            })
            .collect();
        merge_files(paths.into_iter()).unwrap().unwrap()
    }

    fn options(overrides: Overrides) -> ConnectOptions {
        ConnectOptions { overrides, ..ConnectOptions::default() }
    }

    fn chosen(kubeconfig: Kubeconfig, opts: &ConnectOptions) -> (kube::config::Cluster, AuthInfo, Context) {
        let selected = select(kubeconfig, opts, false).unwrap();
        (
            selected.clusters[0].cluster.clone().unwrap(),
            selected.auth_infos[0].auth_info.clone().unwrap(),
            selected.contexts[0].context.clone().unwrap(),
        )
    }

    fn token(user: &AuthInfo) -> Option<&str> {
        user.token.as_ref().map(|token| token.expose_secret())
    }

    #[test]
    fn the_first_file_to_name_an_entry_wins_it_whole() {
        let (cluster, user, context) = chosen(merged(&[FIRST, SECOND]), &ConnectOptions::default());
        assert_eq!(context.namespace.as_deref(), Some("first"), "current-context and context a from the first file");
        assert_eq!(cluster.server.as_deref(), Some("https://second:6443"), "a cluster only the second file names");
        assert_eq!(token(&user), Some("first-token"));
        let (_, user, _) = chosen(merged(&[SECOND, FIRST]), &ConnectOptions::default());
        assert_eq!(user.username.as_deref(), Some("u"), "current-context b from the first file");
    }

    #[test]
    fn flags_override_the_kubeconfig() {
        let flags = Overrides {
            server: Some("https://flag:443".into()),
            token: Some("flag-token".into()),
            impersonate: Some("u1".into()),
            impersonate_groups: vec!["g1".into(), "g2".into()],
            disable_compression: true,
            ..Overrides::default()
        };
        let (cluster, user, context) = chosen(merged(&[FIRST, SECOND]), &options(flags));
        assert_eq!(cluster.server.as_deref(), Some("https://flag:443"));
        assert_eq!(cluster.tls_server_name, None, "--server drops the old server's name");
        assert_eq!(cluster.disable_compression, Some(true));
        assert_eq!(token(&user), Some("flag-token"));
        assert_eq!(user.impersonate.as_deref(), Some("u1"));
        assert_eq!(user.impersonate_groups, Some(vec!["g1".to_string(), "g2".to_string()]));
        assert_eq!(context.namespace.as_deref(), Some("first"));
    }

    #[test]
    fn credentials_go_only_over_tls() {
        let flags = Overrides {
            server: Some("http://127.0.0.1:8080".into()),
            token: Some("t".into()),
            impersonate: Some("u1".into()),
            ..Overrides::default()
        };
        let (_, user, _) = chosen(merged(&[FIRST, SECOND]), &options(flags));
        assert_eq!((token(&user), user.impersonate.as_deref()), (None, Some("u1")));
    }

    #[test]
    fn a_certificate_authority_or_insecure_flag_replaces_both() {
        let mut kubeconfig = merged(&[FIRST, SECOND]);
        let cluster = kubeconfig.clusters[0].cluster.as_mut().unwrap();
        cluster.certificate_authority_data = Some("Q0EK".into());
        let insecure = Overrides { insecure_skip_tls_verify: true, ..Overrides::default() };
        let (cluster, _, _) = chosen(kubeconfig.clone(), &options(insecure.clone()));
        assert_eq!((cluster.insecure_skip_tls_verify, cluster.certificate_authority_data), (Some(true), None));
        assert_eq!(cluster.tls_server_name.as_deref(), Some("second.example"));
        let ca = Overrides { certificate_authority: Some("ca.crt".into()), ..Overrides::default() };
        let (cluster, _, _) = chosen(kubeconfig.clone(), &options(ca.clone()));
        assert_eq!(cluster.certificate_authority.as_deref(), Some("ca.crt"));
        assert_eq!(cluster.certificate_authority_data, None);
        let both = Overrides { certificate_authority: ca.certificate_authority, ..insecure };
        let err = select(kubeconfig, &options(both), false).unwrap_err();
        assert_eq!(err.to_string(), "specifying a root certificates file with the insecure flag is not allowed");
    }

    #[test]
    fn flags_alone_are_enough() {
        let flags =
            Overrides { server: Some("https://10.0.0.1".into()), token: Some("t".into()), ..Overrides::default() };
        let (cluster, user, context) = chosen(Kubeconfig::default(), &options(flags));
        assert_eq!(cluster.server.as_deref(), Some("https://10.0.0.1"));
        assert_eq!(token(&user), Some("t"));
        assert_eq!(context.namespace, None);
        let err = select(Kubeconfig::default(), &ConnectOptions::default(), true).unwrap_err();
        assert!(err.to_string().starts_with("no kubeconfig found"), "{err}");
    }

    #[test]
    fn what_does_not_exist_or_does_not_fit_is_an_error() {
        let cases = [
            (
                ConnectOptions { context: Some("nope".into()), ..ConnectOptions::default() },
                "context was not found for specified context: nope",
            ),
            (
                options(Overrides { cluster: Some("nope".into()), ..Overrides::default() }),
                "no server found for cluster \"nope\"",
            ),
            (
                options(Overrides { user: Some("nope".into()), ..Overrides::default() }),
                "auth info \"nope\" does not exist",
            ),
            (
                options(Overrides { user: Some("other".into()), token: Some("t".into()), ..Overrides::default() }),
                "more than one authentication method found for other; found [token basicAuth], only one is allowed",
            ),
            (
                options(Overrides { impersonate_uid: Some("1".into()), ..Overrides::default() }),
                "requesting uid, groups or user-extra for shared without impersonating a user",
            ),
        ];
        for (opts, expected) in cases {
            assert_eq!(select(merged(&[FIRST, SECOND]), &opts, false).unwrap_err().to_string(), expected);
        }
    }

    #[test]
    fn a_pods_service_account_is_a_kubeconfig_like_any_other() {
        let dir = tempfile::tempdir().unwrap();
        assert!(in_cluster("10.0.0.1", "443", dir.path()).unwrap_err().to_string().contains("token does not exist"));
        std::fs::write(dir.path().join("token"), "sa-token\n").unwrap();
        std::fs::write(dir.path().join("namespace"), "apps\n").unwrap();
        let flags = Overrides { impersonate: Some("u1".into()), ..Overrides::default() };
        let (cluster, user, context) = chosen(in_cluster("fd00::1", "6443", dir.path()).unwrap(), &options(flags));
        assert_eq!(cluster.server.as_deref(), Some("https://[fd00::1]:6443"));
        assert_eq!(cluster.certificate_authority, Some(dir.path().join("ca.crt").display().to_string()));
        assert_eq!((token(&user), user.impersonate.as_deref()), (Some("sa-token"), Some("u1")));
        assert_eq!(context.namespace.as_deref(), Some("apps"));
    }

    #[test]
    fn answers_from_loopback_come_uncompressed_unless_the_kubeconfig_says() {
        let (local, remote) = ("https://127.0.0.1:6443".parse().unwrap(), "https://10.0.0.1".parse().unwrap());
        assert!(without_compression(None, &local));
        assert!(!without_compression(None, &remote));
        assert!(!without_compression(Some(false), &local));
        assert!(without_compression(Some(true), &remote));
    }

    #[test]
    fn loopback_servers_are_recognised() {
        for (url, loopback) in [
            ("https://127.0.0.1:6443", true),
            ("https://localhost", true),
            ("https://[::1]:6443", true),
            ("https://10.0.0.1", false),
            ("https://example.com", false),
        ] {
            assert_eq!(is_loopback(&url.parse().unwrap()), loopback, "{url}");
        }
    }
}
