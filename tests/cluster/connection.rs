//! Reaching the cluster as kubectl does, from a throwaway HOME with no kubeconfig: the connection
//! and identity flags, each compared with kubectl's result; impersonation under RBAC made in the
//! test; several kubeconfig files merged; and the kubeconfig's `proxy-url`, `tokenFile`,
//! `tls-server-name`, `disable-compression` and impersonation fields.
use crate::support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use serde_json::json;
use support::fake_server::{FakeServer, Reply};
use support::{TestNamespace, assert_same_output, credentials};

/// A HOME without a kubeconfig, the test cluster's server, CA (as `ca.crt` in HOME) and token,
/// and both tools run from HOME with `$KUBECONFIG` unset unless a test sets it.
struct Bare {
    home: tempfile::TempDir,
    server: String,
    token: String,
}

impl Bare {
    fn new() -> Self {
        let credentials = credentials();
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("ca.crt"), &credentials.ca_pem).unwrap();
        Bare { home, server: credentials.server, token: credentials.token }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.home.path().join(relative)
    }

    /// The flags that reach the test cluster without a kubeconfig.
    fn flags(&self) -> Vec<String> {
        ["--server", &self.server, "--certificate-authority", "ca.crt", "--token", &self.token]
            .map(String::from)
            .to_vec()
    }

    fn run(&self, mut command: Command, args: &[String], kubeconfig_env: Option<&str>) -> Output {
        command.args(args).current_dir(self.home.path()).env("HOME", self.home.path()).stdin(Stdio::null());
        match kubeconfig_env {
            Some(list) => command.env("KUBECONFIG", list),
            None => command.env_remove("KUBECONFIG"),
        };
        command.output().expect("the tool runs")
    }

    /// kubectl's and kubeupd's results for the same arguments.
    fn both(&self, args: &[String], kubeconfig_env: Option<&str>) -> (Output, Output) {
        let kubeupd = Command::new(assert_cmd::cargo::cargo_bin("kubeupd"));
        (self.run(Command::new("kubectl"), args, kubeconfig_env), self.run(kubeupd, args, kubeconfig_env))
    }

    /// Asserts that kubeupd prints what kubectl prints, on stdout and stderr, and exits as it does.
    fn assert_same_with(&self, args: &[String], kubeconfig_env: Option<&str>) -> Output {
        let (theirs, ours) = self.both(args, kubeconfig_env);
        assert_same_output(&ours, &theirs, &format!("{args:?}"));
        ours
    }

    fn assert_same(&self, args: &[String]) -> Output {
        self.assert_same_with(args, None)
    }
}

/// `base` followed by `more`, as owned arguments.
fn args(base: &[String], more: &[&str]) -> Vec<String> {
    base.iter().cloned().chain(more.iter().map(|arg| arg.to_string())).collect()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const GET_DEFAULT: [&str; 5] = ["get", "namespace", "default", "-o", "name"];

#[test]
fn connection_flags_alone_reach_the_cluster() {
    let bare = Bare::new();
    let reached = bare.assert_same(&args(&bare.flags(), &GET_DEFAULT));
    assert_eq!(stdout(&reached), "namespace/default\n");
    let short = ["-s", &bare.server, "--certificate-authority", "ca.crt", "--token", &bare.token];
    bare.assert_same(&args(&[], &[&short[..], &GET_DEFAULT].concat()));
    for extra in [&["--disable-compression"][..], &["--tls-server-name", "kubernetes"]] {
        let output = bare.assert_same(&args(&bare.flags(), &[extra, &GET_DEFAULT].concat()));
        assert_eq!(stdout(&output), "namespace/default\n", "{extra:?}");
    }
    let insecure = ["--server", &bare.server, "--insecure-skip-tls-verify", "--token", &bare.token];
    let output = bare.assert_same(&args(&[], &[&insecure[..], &GET_DEFAULT].concat()));
    assert_eq!(stdout(&output), "namespace/default\n");
    let (certificate, key) = support::client_certificate(bare.home.path());
    let (certificate, key) = (certificate.to_str().unwrap(), key.to_str().unwrap());
    let with_certificate = ["--client-certificate", certificate, "--client-key", key];
    let output = bare.assert_same(&args(&bare.flags(), &[&with_certificate[..], &GET_DEFAULT].concat()));
    assert_eq!(stdout(&output), "namespace/default\n");
}

#[test]
fn flags_that_do_not_authenticate_fail_as_with_kubectl() {
    let bare = Bare::new();
    let with = |flags: &[&str]| {
        args(&[], &[&["--server", &bare.server, "--certificate-authority", "ca.crt"], flags, &GET_DEFAULT].concat())
    };
    // With discovery cached, as after any earlier command, kubectl words a refused token as kubeupd does.
    bare.assert_same(&args(&bare.flags(), &GET_DEFAULT));
    let refused = bare.assert_same(&with(&["--token", "not-the-token"]));
    assert_eq!(stderr(&refused), "error: You must be logged in to the server (Unauthorized)\n");
    // Kubernetes 1.20 has no basic authentication: the request is anonymous.
    let anonymous = bare.assert_same(&with(&["--username", "someone", "--password", "secret"]));
    assert!(
        stderr(&anonymous).contains(r#"User "system:anonymous" cannot get resource "namespaces""#),
        "{}",
        stderr(&anonymous)
    );
    let two_ways = bare.assert_same(&with(&["--token", "t", "--username", "someone", "--password", "secret"]));
    assert_eq!(
        stderr(&two_ways),
        "error: more than one authentication method found for ; found [token basicAuth], only one is allowed\n"
    );
    let both = args(&bare.flags(), &[&["--insecure-skip-tls-verify=true"][..], &GET_DEFAULT].concat());
    let contradiction = bare.assert_same(&both);
    assert_eq!(
        stderr(&contradiction),
        "error: specifying a root certificates file with the insecure flag is not allowed\n"
    );
    // The certificate is checked against the name given, and neither tool accepts it.
    let elsewhere = args(&bare.flags(), &[&["--tls-server-name", "elsewhere.example"][..], &GET_DEFAULT].concat());
    assert_same_refusal(bare.both(&elsewhere, None));
    let untrusted = args(&[], &[&["--server", &bare.server, "--token", &bare.token][..], &GET_DEFAULT].concat());
    assert_same_refusal(bare.both(&untrusted, None));
    // Without a kubeconfig or --server, kubectl tries localhost:8080; kubeupd says what is missing.
    let (_, nothing) = bare.both(&args(&[], &GET_DEFAULT), None);
    assert_eq!(nothing.status.code(), Some(1));
    assert_eq!(
        stderr(&nothing),
        "error: no kubeconfig found: set $KUBECONFIG, pass --kubeconfig or --server, or create ~/.kube/config\n"
    );
}

/// Both tools refused the server's certificate: kubectl's last line (after its discovery log
/// lines) is kubeupd's only one, `Unable to connect to the server: tls: failed to verify
/// certificate: x509: ...`, and both exit 1.
fn assert_same_refusal((theirs, ours): (Output, Output)) {
    assert_eq!((ours.status.code(), theirs.status.code()), (Some(1), Some(1)), "{}", stderr(&ours));
    let kubectls = stderr(&theirs).lines().last().unwrap_or_default().to_string();
    assert!(
        kubectls.starts_with("Unable to connect to the server: tls: failed to verify certificate: x509: "),
        "{kubectls}"
    );
    assert_eq!(stderr(&ours), format!("{kubectls}\n"));
    assert!(stdout(&ours).is_empty());
}

/// A kubeconfig whose CA did not sign the server's certificate: kubeupd says so at once (one
/// discovery read, no retries), in kubectl's words.
#[test]
fn a_certificate_from_another_authority_is_refused_at_once_in_kubectls_words() {
    let bare = Bare::new();
    let other_ca = std::fs::read(support::testdata("tls/rsa.crt")).unwrap();
    let data = base64::engine::general_purpose::STANDARD.encode(other_ca);
    let cluster = json!({"certificate-authority": null, "certificate-authority-data": data});
    let config = write_kubeconfig(&bare, "wrong-ca/config", cluster, json!({"token": bare.token}));
    let with = |more: &[&str]| args(&["--kubeconfig".to_string(), config.to_str().unwrap().to_string()], more);
    assert_same_refusal(bare.both(&with(&GET_DEFAULT), None));
    let (_, logged) = bare.both(&with(&[&GET_DEFAULT[..], &["-v=6"]].concat()), None);
    let reads = stderr(&logged).lines().filter(|line| line.contains("GET ") && line.contains("/api")).count();
    assert!((1..=2).contains(&reads), "discovery is read once, not again:\n{}", stderr(&logged));
}

/// A Role that lets its subjects read configmaps, bound to the user `u1` and the group `readers`.
const READERS: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: configmap-reader}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: u1-reads}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: configmap-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: u1}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: readers-read}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: configmap-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: readers}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
data: {a: "1"}
"#;

/// `get configmaps -o name` in a namespace that holds [`READERS`]' `x`: with the controllers'
/// kube-root-ca.crt, where they run.
fn listed_configmaps() -> &'static str {
    if support::runs_namespace_controllers() { "configmap/kube-root-ca.crt\nconfigmap/x\n" } else { "configmap/x\n" }
}

#[test]
fn impersonation_gets_what_rbac_allows_and_kubectls_errors() {
    let namespace = TestNamespace::new("conn-as");
    namespace.apply(READERS);
    let ns = namespace.name.as_str();
    let bare = Bare::new();
    let as_u1 = args(&bare.flags(), &["--as", "u1", "-n", ns]);
    let listed = bare.assert_same(&args(&as_u1, &["get", "configmaps", "-o", "name"]));
    assert_eq!(stdout(&listed), listed_configmaps());
    let forbidden = bare.assert_same(&args(&as_u1, &["get", "secrets"]));
    assert_eq!(
        stderr(&forbidden),
        format!(
            "Error from server (Forbidden): secrets is forbidden: User \"u1\" cannot list resource \"secrets\" in API group \"\" in the namespace \"{ns}\"\n"
        )
    );
    bare.assert_same(&args(&as_u1, &["get", "secret", "s"]));
    let patch = bare.assert_same(&args(&as_u1, &["patch", "configmap", "x", "-p", r#"{"data":{"a":"2"}}"#]));
    assert!(stderr(&patch).contains(r#"User "u1" cannot patch resource "configmaps""#), "{}", stderr(&patch));
    std::fs::write(bare.path("x.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: \"3\"}\n")
        .unwrap();
    let replace = bare.assert_same(&args(&as_u1, &["replace", "-f", "x.yaml"]));
    assert!(
        stderr(&replace).contains(r#"error when replacing "x.yaml": configmaps "x" is forbidden"#),
        "{}",
        stderr(&replace)
    );
    // 1.20 does not know UIDs in impersonation, and ignores them.
    bare.assert_same(&args(&as_u1, &["--as-uid", "1234", "get", "configmaps", "-o", "name"]));
    // A group's permissions come with --as-group.
    let as_u2 = args(&bare.flags(), &["--as", "u2", "-n", ns]);
    let grouped = bare.assert_same(&args(
        &as_u2,
        &["--as-group", "readers", "--as-group", "others", "get", "configmaps", "-o", "name"],
    ));
    assert_eq!(stdout(&grouped), listed_configmaps());
    let alone = bare.assert_same(&args(&as_u2, &["get", "configmaps", "-o", "name"]));
    assert!(stderr(&alone).contains(r#"User "u2" cannot list resource "configmaps""#), "{}", stderr(&alone));
    // Groups without a user to impersonate are refused before anything is sent. kubectl says it
    // after `Error in configuration: ` or after `error: `, depending on its discovery cache.
    let groups_alone = ["--as-group", "readers", "get", "configmaps", "-n", ns];
    let theirs = namespace.kubectl().args(groups_alone).output().unwrap();
    let ours = namespace.kubeupd().args(groups_alone).output().unwrap();
    let refusal = "requesting uid, groups or user-extra for kubeupd-local without impersonating a user\n";
    assert!(stderr(&theirs).ends_with(refusal), "{}", stderr(&theirs));
    assert_eq!((stderr(&ours), ours.status.code()), (format!("error: {refusal}"), theirs.status.code()));
    assert_eq!(namespace.kubectl_ok(&["get", "configmap", "x", "-n", ns, "-o", "jsonpath={.data.a}"]), "1");
}

/// A kubeconfig in `bare`'s HOME at `relative` with the test cluster (server, CA file relative to
/// the kubeconfig) and a user, both with extra fields.
fn write_kubeconfig(bare: &Bare, relative: &str, cluster: serde_json::Value, user: serde_json::Value) -> PathBuf {
    let path = bare.path(relative);
    let mut cluster_fields = json!({"server": bare.server, "certificate-authority": "ca.crt"});
    cluster_fields.as_object_mut().unwrap().extend(cluster.as_object().unwrap().clone());
    let config = json!({
        "apiVersion": "v1", "kind": "Config", "current-context": "main",
        "clusters": [{"name": "local", "cluster": cluster_fields}],
        "users": [{"name": "someone", "user": user}],
        "contexts": [{"name": "main", "context": {"cluster": "local", "user": "someone"}}],
    });
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::copy(bare.path("ca.crt"), path.parent().unwrap().join("ca.crt")).unwrap();
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

#[test]
fn kubeconfig_fields_are_read_as_kubectl_reads_them() {
    let namespace = TestNamespace::new("conn-fields");
    namespace.apply(READERS);
    let ns = namespace.name.as_str();
    let bare = Bare::new();
    std::fs::create_dir_all(bare.path("dir")).unwrap();
    std::fs::write(bare.path("dir/token"), format!("{}\n", bare.token)).unwrap();
    let cluster = json!({"tls-server-name": "kubernetes", "disable-compression": true});
    let user = json!({"tokenFile": "token", "as": "u1"});
    let config = write_kubeconfig(&bare, "dir/config", cluster.clone(), user);
    let with = |more: &[&str]| args(&["--kubeconfig".to_string(), config.to_str().unwrap().to_string()], more);
    let listed = bare.assert_same(&with(&["get", "configmaps", "-n", ns, "-o", "name"]));
    assert_eq!(stdout(&listed), listed_configmaps());
    let forbidden = bare.assert_same(&with(&["get", "secrets", "-n", ns]));
    assert!(stderr(&forbidden).contains(r#"User "u1" cannot list resource "secrets""#), "{}", stderr(&forbidden));
    let user = json!({"token": bare.token, "as": "u2", "as-groups": ["readers"], "as-uid": "42"});
    let config = write_kubeconfig(&bare, "grouped/config", cluster, user);
    let grouped = bare.assert_same(&args(
        &["--kubeconfig".to_string(), config.to_str().unwrap().to_string()],
        &["get", "configmaps", "-n", ns, "-o", "name"],
    ));
    assert_eq!(stdout(&grouped), listed_configmaps());
    let config = write_kubeconfig(
        &bare,
        "elsewhere/config",
        json!({"tls-server-name": "elsewhere.example"}),
        json!({"token": bare.token}),
    );
    assert_same_refusal(
        bare.both(&args(&["--kubeconfig".to_string(), config.to_str().unwrap().to_string()], &GET_DEFAULT), None),
    );
}

#[test]
fn kubeconfig_files_merge_as_kubectl_merges_them() {
    let namespace = TestNamespace::new("conn-merge");
    namespace.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merged}\n");
    let bare = Bare::new();
    // The first file: the current context, and the user with the right token.
    let first = json!({
        "apiVersion": "v1", "kind": "Config", "current-context": "main",
        "contexts": [{"name": "main", "context": {"cluster": "local", "user": "admin", "namespace": namespace.name}}],
        "users": [{"name": "admin", "user": {"token": bare.token}}],
    });
    std::fs::write(bare.path("first"), first.to_string()).unwrap();
    // The second, in another directory: the cluster (its CA file relative to that directory), and
    // entries of the same names that lose to the first file's, whole.
    let second = write_kubeconfig(&bare, "other/second", json!({}), json!({"token": "not-the-token"}));
    let mut second_config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&second).unwrap()).unwrap();
    second_config["current-context"] = json!("theirs");
    second_config["users"][0]["name"] = json!("admin");
    second_config["contexts"] = json!([
        {"name": "main", "context": {"cluster": "nowhere", "user": "admin"}},
        {"name": "theirs", "context": {"cluster": "local", "user": "admin", "namespace": "default"}},
    ]);
    std::fs::write(&second, second_config.to_string()).unwrap();
    let list =
        |paths: &[&str]| std::env::join_paths(paths.iter().map(|path| bare.path(path))).unwrap().into_string().unwrap();
    let get = args(&[], &["get", "configmap", "merged", "-o", "name"]);
    let merged = bare.assert_same_with(&get, Some(&list(&["first", "missing", "other/second"])));
    assert_eq!(stdout(&merged), "configmap/merged\n");
    // The other way round, the second file's current context and user win.
    let reversed = bare.assert_same_with(&get, Some(&list(&["other/second", "first"])));
    assert_eq!(stderr(&reversed), "error: You must be logged in to the server (Unauthorized)\n");
}

/// A proxy that tunnels each connection to where the client asks, and records the credentials
/// each tunnel came with: an HTTP proxy (CONNECT, `Proxy-Authorization`) or a SOCKS5 proxy
/// (username and password authentication, recorded as `user:password`).
struct Proxy {
    url: String,
    credentials: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    fn start(scheme: &'static str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
        let credentials: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = credentials.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let seen = seen.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(client.try_clone().unwrap());
                    let opened = match scheme {
                        "http" => open_connect(&mut reader, &client),
                        _ => open_socks5(&mut reader, &client),
                    };
                    if let Some((credentials, upstream)) = opened {
                        seen.lock().unwrap().push(credentials);
                        relay(reader, client, upstream);
                    }
                });
            }
        });
        Proxy { url, credentials }
    }

    /// The credentials of each tunnel so far.
    fn tunnels(&self) -> Vec<String> {
        self.credentials.lock().unwrap().clone()
    }
}

/// Reads a CONNECT request and opens its tunnel.
fn open_connect(reader: &mut BufReader<TcpStream>, mut client: &TcpStream) -> Option<(String, TcpStream)> {
    let mut request = String::new();
    reader.read_line(&mut request).ok()?;
    let target = request.split_whitespace().nth(1)?.to_string();
    let mut authorization = String::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("proxy-authorization")
        {
            authorization = value.trim().to_string();
        }
    }
    let upstream = TcpStream::connect(&target).ok()?;
    client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").ok()?;
    Some((authorization, upstream))
}

/// Reads a SOCKS5 greeting, its username and password, and a CONNECT to an IPv4 address or a
/// name, and opens the tunnel.
fn open_socks5(reader: &mut BufReader<TcpStream>, mut client: &TcpStream) -> Option<(String, TcpStream)> {
    let mut read = |count: usize| {
        let mut bytes = vec![0; count];
        reader.read_exact(&mut bytes).ok().map(|_| bytes)
    };
    let methods = read(2)?[1] as usize;
    read(methods)?;
    client.write_all(&[5, 2]).ok()?;
    let user_length = read(2)?[1] as usize;
    let user = String::from_utf8(read(user_length)?).ok()?;
    let password_length = read(1)?[0] as usize;
    let password = String::from_utf8(read(password_length)?).ok()?;
    client.write_all(&[1, 0]).ok()?;
    let request = read(4)?;
    let host = match request[3] {
        1 => read(4)?.iter().map(u8::to_string).collect::<Vec<_>>().join("."),
        3 => {
            let length = read(1)?[0] as usize;
            String::from_utf8(read(length)?).ok()?
        }
        _ => return None,
    };
    let port = read(2)?;
    let upstream = TcpStream::connect((host.as_str(), u16::from_be_bytes([port[0], port[1]]))).ok()?;
    client.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).ok()?;
    Some((format!("{user}:{password}"), upstream))
}

/// Copies bytes both ways until either side closes.
fn relay(mut from_client: BufReader<TcpStream>, mut to_client: TcpStream, upstream: TcpStream) {
    let (mut to_upstream, mut from_upstream) = (upstream.try_clone().unwrap(), upstream);
    if to_upstream.write_all(from_client.buffer()).is_err() {
        return;
    }
    std::thread::spawn(move || {
        let _ = std::io::copy(from_client.get_mut(), &mut to_upstream);
    });
    let _ = std::io::copy(&mut from_upstream, &mut to_client);
}

#[test]
fn proxy_url_tunnels_through_the_proxy_with_its_credentials() {
    let bare = Bare::new();
    for (scheme, expected) in [
        ("http", format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("tester:p@ss"))),
        ("socks5", "tester:p@ss".to_string()),
    ] {
        let proxy = Proxy::start(scheme);
        let cluster = json!({"proxy-url": format!("{scheme}://tester:p%40ss@{}", proxy.url)});
        let config = write_kubeconfig(&bare, &format!("{scheme}/config"), cluster, json!({"token": bare.token}));
        let get = args(&["--kubeconfig".to_string(), config.to_str().unwrap().to_string()], &GET_DEFAULT);
        let theirs = bare.run(Command::new("kubectl"), &get, None);
        assert!(theirs.status.success(), "{scheme}: {}", stderr(&theirs));
        let kubectl_tunnels = proxy.tunnels().len();
        assert!(kubectl_tunnels > 0, "{scheme}: kubectl did not use the proxy");
        let ours = bare.run(Command::new(assert_cmd::cargo::cargo_bin("kubeupd")), &get, None);
        assert!(ours.status.success(), "{scheme}: {}", stderr(&ours));
        assert_eq!(stdout(&ours), stdout(&theirs));
        let tunnels = proxy.tunnels();
        assert!(tunnels.len() > kubectl_tunnels, "{scheme}: kubeupd did not use the proxy");
        assert!(tunnels.iter().all(|credentials| credentials == &expected), "{scheme}: {tunnels:?}");
    }
}

/// Headers the real server cannot show: 1.20 ignores `Impersonate-Uid`, compression does not
/// change results, and the test server has TLS (credentials are sent only over TLS, never to a
/// plain `http://` server). kubectl is the reference.
#[test]
fn identity_and_compression_headers_are_kubectls() {
    let version = json!({"major": "1", "minor": "20", "gitVersion": "v1.20.2", "gitCommit": "c", "gitTreeState": "clean",
                         "buildDate": "d", "goVersion": "go", "compiler": "gc", "platform": "linux/amd64"});
    let server = FakeServer::start(move |_: &_| Reply::json(200, &version));
    let bare = Bare::new();
    let identity =
        ["--server", &server.url, "--token", "t", "--as", "u1", "--as-group", "a", "--as-group", "b", "--as-uid", "42"];
    // Each tool's request headers that matter here, by name, for `extra` flags.
    let headers = |extra: &[&str]| {
        let (theirs, ours) = bare.both(&args(&[], &[&identity[..], extra, &["version", "-o", "json"]].concat()), None);
        assert!(theirs.status.success() && ours.status.success(), "{}\n{}", stderr(&theirs), stderr(&ours));
        let seen: Vec<_> = server.seen().into_iter().filter(|request| request.path.starts_with("/version")).collect();
        let of = |request: &support::fake_server::Seen| -> BTreeMap<String, Vec<String>> {
            ["authorization", "impersonate-user", "impersonate-group", "impersonate-uid", "accept-encoding"]
                .iter()
                .map(|name| (name.to_string(), request.header(name).into_iter().map(String::from).collect()))
                .collect()
        };
        (of(&seen[seen.len() - 2]), of(&seen[seen.len() - 1]))
    };
    // A kubeconfig whose cluster asks for compression; the flags choose the server.
    let compressed = bare.path("compressed");
    let cluster = json!({"server": server.url, "disable-compression": false});
    let config = json!({"clusters": [{"name": "c", "cluster": cluster}], "users": [{"name": "u", "user": {}}],
                        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}], "current-context": "c"});
    std::fs::write(&compressed, config.to_string()).unwrap();
    let (theirs, ours) = headers(&["--kubeconfig", compressed.to_str().unwrap()]);
    assert_eq!(ours, theirs, "kubeupd's headers (left) differ from kubectl's");
    assert_eq!(ours["authorization"], Vec::<String>::new(), "credentials over plain HTTP");
    assert_eq!(
        (&ours["impersonate-user"], &ours["impersonate-group"]),
        (&vec!["u1".into()], &vec!["a".into(), "b".into()])
    );
    assert_eq!((&ours["impersonate-uid"], &ours["accept-encoding"]), (&vec!["42".into()], &vec!["gzip".into()]));
    // kubectl 1.37 still asks for gzip with --disable-compression; kubeupd does what the flag says,
    // and, where no kubeconfig says, asks a server on loopback (this one) for answers as they are.
    for extra in [&["--disable-compression"][..], &[]] {
        let (mut theirs, mut ours) = headers(extra);
        assert_eq!(ours.remove("accept-encoding"), Some(Vec::new()), "{extra:?}");
        assert_eq!(theirs.remove("accept-encoding"), Some(vec!["gzip".into()]), "{extra:?}");
        assert_eq!(ours, theirs, "kubeupd's headers (left) differ from kubectl's");
    }
}
