//! Shared helpers for integration tests against the real kube-apiserver that `scripts/test.sh`
//! starts. Tests use only the kubeconfig in `KUBEUPD_TEST_KUBECONFIG`, and fail (never skip) when
//! it is missing or the server does not answer.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

pub mod fake_server;
pub mod fault_proxy;
pub mod fault_relay;

/// The test cluster's kubeconfig; panics with instructions when it is not usable.
pub fn kubeconfig() -> PathBuf {
    static CHECKED: OnceLock<PathBuf> = OnceLock::new();
    CHECKED.get_or_init(|| checked_kubeconfig("KUBEUPD_TEST_KUBECONFIG")).clone()
}

/// The kubeconfig of the cluster with nodes (`scripts/local-cluster.sh nodes`: kwok's fake nodes,
/// kube-scheduler and the workload controllers), where Deployments, Jobs and StatefulSets roll
/// out for real; panics with instructions when it is not usable.
pub fn nodes_kubeconfig() -> PathBuf {
    static CHECKED: OnceLock<PathBuf> = OnceLock::new();
    CHECKED.get_or_init(|| checked_kubeconfig("KUBEUPD_TEST_NODES_KUBECONFIG")).clone()
}

/// The kubeconfig named by the environment variable `variable`, once the server answers.
fn checked_kubeconfig(variable: &str) -> PathBuf {
    let path = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("{variable} is not set: run the cluster tests with scripts/test.sh"));
    assert!(path.is_file(), "{variable}={} is not a file: run scripts/test.sh", path.display());
    let ready = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&path)
        .args(["get", "--raw", "/readyz"])
        .env_remove("KUBECONFIG")
        .output()
        .expect("kubectl must be installed to run the cluster tests");
    assert!(
        ready.status.success(),
        "the test cluster in {} does not answer: {}",
        path.display(),
        String::from_utf8_lossy(&ready.stderr)
    );
    path
}

/// Whether the test cluster runs the controller manager (1.37's does, 1.20's has none), whose
/// controllers give every new namespace the ConfigMap `kube-root-ca.crt` and the ServiceAccount
/// `default`: a test then starts once they are there, so that both tools see the same objects.
pub fn runs_namespace_controllers() -> bool {
    static RUNS: OnceLock<bool> = OnceLock::new();
    *RUNS.get_or_init(|| {
        let output = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(kubeconfig())
            .args(["get", "configmap", "kube-root-ca.crt", "-n", "default", "-o", "name"])
            .env_remove("KUBECONFIG")
            .output()
            .expect("kubectl runs");
        output.status.success()
    })
}

/// The test server's minor version (20 for 1.20).
pub fn server_minor() -> u32 {
    static MINOR: OnceLock<u32> = OnceLock::new();
    *MINOR.get_or_init(|| {
        let output = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(kubeconfig())
            .args(["get", "--raw", "/version"])
            .env_remove("KUBECONFIG")
            .output()
            .expect("kubectl runs");
        let version: Value = serde_json::from_slice(&output.stdout).expect("/version is JSON");
        version["minor"].as_str().unwrap_or_default().trim_end_matches('+').parse().expect("a minor version")
    })
}

/// Whether the test server checks fields itself (`fieldValidation`, 1.25 and later): kubectl then
/// checks nothing on the client, and the server's words are the reference.
pub fn server_checks_fields() -> bool {
    server_minor() >= 25
}

/// What the test cluster's kubeconfig holds, for tests that pass it as flags instead.
pub struct Credentials {
    /// The server's URL.
    pub server: String,
    /// The certificate authority of the server's certificate, as PEM.
    pub ca_pem: Vec<u8>,
    /// The bearer token of a user in `system:masters`.
    pub token: String,
}

/// The server, CA and token of the test cluster's kubeconfig.
pub fn credentials() -> Credentials {
    use base64::Engine as _;
    let config: Value = serde_saphyr::from_str(&std::fs::read_to_string(kubeconfig()).unwrap()).unwrap();
    let cluster = &config["clusters"][0]["cluster"];
    let text = |value: &Value| value.as_str().expect("the test kubeconfig has it").to_string();
    Credentials {
        server: text(&cluster["server"]),
        ca_pem: base64::engine::general_purpose::STANDARD.decode(text(&cluster["certificate-authority-data"])).unwrap(),
        token: text(&config["users"][0]["user"]["token"]),
    }
}

/// A self-signed client certificate and its key, made with openssl as `client.crt` and
/// `client.key` in `dir`. The test server does not check client certificates.
pub fn client_certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let (certificate, key) = (dir.join("client.crt"), dir.join("client.key"));
    let made = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=kubeupd-test"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&certificate)
        .output()
        .expect("openssl is installed");
    assert!(made.status.success(), "openssl failed: {}", String::from_utf8_lossy(&made.stderr));
    (certificate, key)
}

/// The repository's `testdata` directory.
pub fn testdata(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(relative)
}

/// A namespace made for one test, deleted when the test ends; plus discovery caches of its own
/// for kubeupd and kubectl so that tests do not share state with the user or each other.
pub struct TestNamespace {
    /// The namespace's name, unique per test run.
    pub name: String,
    /// The kubeconfig of the cluster it is on.
    cluster: PathBuf,
    cache: tempfile::TempDir,
}

impl TestNamespace {
    /// Creates a namespace named after `prefix`, e.g. `get-tables-4711-3`.
    pub fn new(prefix: &str) -> Self {
        Self::on(kubeconfig(), runs_namespace_controllers(), prefix)
    }

    /// Creates a namespace named after `prefix` on the cluster with nodes ([`nodes_kubeconfig`]),
    /// where workloads roll out for real.
    pub fn with_nodes(prefix: &str) -> Self {
        Self::on(nodes_kubeconfig(), true, prefix)
    }

    /// Creates a namespace named after `prefix` on the cluster of the kubeconfig `cluster`, and
    /// waits for what the namespace controllers put in it when `controllers` run there.
    fn on(cluster: PathBuf, controllers: bool, prefix: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let name = format!("{prefix}-{}-{unique}-{}", std::process::id(), nanos % 10_000);
        let namespace = TestNamespace { name, cluster, cache: tempfile::tempdir().expect("a temporary directory") };
        namespace.kubectl_ok(&["create", "namespace", &namespace.name]);
        if controllers {
            // Read until both are there: kubectl 1.37's `wait --for=create` fails at once with
            // NotFound when an object is still missing at its first read.
            let made = ["get", "-n", &namespace.name, "configmap/kube-root-ca.crt", "serviceaccount/default"];
            let started = std::time::Instant::now();
            while !namespace.kubectl().args(made).output().expect("kubectl runs").status.success() {
                assert!(
                    started.elapsed() < std::time::Duration::from_secs(60),
                    "the namespace controllers never filled {}",
                    namespace.name
                );
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        }
        namespace
    }

    /// The discovery cache directory kubeupd uses in this test.
    pub fn cache_dir(&self) -> PathBuf {
        self.cache.path().join("kubeupd")
    }

    /// `kubeupd` against the test cluster with this test's cache; add `-n` yourself.
    pub fn kubeupd(&self) -> assert_cmd::Command {
        assert_cmd::Command::from_std(self.kubeupd_process())
    }

    /// [`TestNamespace::kubeupd`] as a process to start and leave running.
    pub fn kubeupd_process(&self) -> Command {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("kubeupd"));
        command.arg("--kubeconfig").arg(&self.cluster).arg("--cache-dir").arg(self.cache_dir());
        command.env_remove("KUBECONFIG");
        command
    }

    /// `kubectl` against the test cluster with a cache of its own.
    pub fn kubectl(&self) -> Command {
        let mut command = Command::new("kubectl");
        command.arg("--kubeconfig").arg(&self.cluster).arg("--cache-dir").arg(self.cache.path().join("kubectl"));
        command.env_remove("KUBECONFIG");
        command
    }

    /// `kubectl` against the test cluster with a cache of its own, configured through the
    /// environment so that the first word can be an alias of a kuberc file.
    pub fn kubectl_by_env(&self) -> Command {
        let mut command = Command::new("kubectl");
        command.env("KUBECONFIG", &self.cluster).env("KUBECACHEDIR", self.cache.path().join("kubectl-env"));
        command
    }

    /// Plays a controller: the Deployment `web`'s `spec.replicas` set to `replicas` by a merge
    /// patch under `manager`, of the object or (`through_scale`) of its scale subresource.
    pub fn set_web_replicas_as(&self, manager: &str, replicas: u32, through_scale: bool) {
        let patch = format!(r#"{{"spec":{{"replicas":{replicas}}}}}"#);
        let manager = format!("--field-manager={manager}");
        let mut args = vec!["patch", "deployment", "web", "-n", &self.name, "--type=merge", "-p", &patch, &manager];
        if through_scale {
            args.push("--subresource=scale");
        }
        self.kubectl_ok(&args);
    }

    /// Runs kubectl with `args`, asserts it succeeded and returns its standard output.
    pub fn kubectl_ok(&self, args: &[&str]) -> String {
        let output = self.kubectl().args(args).output().expect("kubectl runs");
        assert!(output.status.success(), "kubectl {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).expect("kubectl prints UTF-8")
    }

    /// `kubeupd apply -v=6` of `yaml` in this namespace, which must succeed: the requests it sent,
    /// one line each, as its log shows them (`... GET https://... 200 OK in 3 milliseconds`).
    pub fn kubeupd_apply_requests(&self, yaml: &str) -> Vec<String> {
        let output = self
            .kubeupd()
            .args(["apply", "-v=6", "-n", &self.name, "-f", "-"])
            .write_stdin(yaml.to_string())
            .output()
            .expect("kubeupd runs");
        let log = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "kubeupd apply failed: {log}");
        log.lines().filter(|line| line.ends_with(" milliseconds")).map(String::from).collect()
    }

    /// Waits, up to a minute, until the CustomResourceDefinitions `targets` names (`crd/NAME`, or
    /// `-f FILE`) are Established. kubectl's wait fails at once on a definition whose conditions
    /// the server has not filled in yet (`.status.conditions accessor error`): it is asked again.
    pub fn wait_established(&self, targets: &[&str]) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let mut wait = self.kubectl();
            let output = wait.args(["wait", "--for=condition=Established", "--timeout=60s"]).args(targets).output();
            let output = output.expect("kubectl runs");
            if output.status.success() {
                return;
            }
            let stderr = String::from_utf8_lossy(&output.stderr);
            let unfilled = stderr.contains(".status.conditions accessor error");
            assert!(unfilled && std::time::Instant::now() < deadline, "kubectl wait {targets:?} failed: {stderr}");
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }

    /// Applies YAML in this namespace with kubectl.
    pub fn apply(&self, yaml: &str) {
        let output = with_stdin(self.kubectl().args(["apply", "-n", &self.name, "-f", "-"]), yaml);
        assert!(output.status.success(), "kubectl apply failed: {}", String::from_utf8_lossy(&output.stderr));
    }

    /// Applies a file under `testdata` in this namespace with kubectl.
    pub fn apply_testdata(&self, relative: &str) {
        let yaml = std::fs::read_to_string(testdata(relative)).expect("testdata file exists");
        self.apply(&yaml);
    }

    /// Runs kubectl, kubeupd, then kubectl again with the same `args` and asserts kubeupd's stdout
    /// (ages masked, see [`without_ages`]), stderr and exit code equal kubectl's from one of the
    /// two runs (an age may still change its width in between).
    pub fn assert_same_as_kubectl(&self, args: &[&str]) -> Output {
        let before = self.kubectl().args(args).output().expect("kubectl runs");
        let ours = self.kubeupd().args(args).output().expect("kubeupd runs");
        if same_output(&ours, &before) {
            return ours;
        }
        let after = self.kubectl().args(args).output().expect("kubectl runs");
        assert!(
            same_output(&ours, &after),
            "kubeupd {args:?} differs from kubectl.\n--- kubectl (exit {:?}) stdout:\n{}\n--- kubectl stderr:\n{}\n--- kubeupd (exit {:?}) stdout:\n{}\n--- kubeupd stderr:\n{}",
            after.status.code(),
            String::from_utf8_lossy(&after.stdout),
            String::from_utf8_lossy(&after.stderr),
            ours.status.code(),
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&ours.stderr),
        );
        ours
    }
}

/// Asserts that kubeupd's output is kubectl's: exit code, stdout and stderr.
pub fn assert_same_output(ours: &Output, theirs: &Output, context: &str) {
    let text = |output: &Output| {
        format!(
            "exit {:?}\n--- stdout:\n{}--- stderr:\n{}",
            output.status.code(),
            without_ages(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    };
    assert_eq!(text(ours), text(theirs), "{context}: kubeupd (left) differs from kubectl (right)");
}

/// kubeupd's summary of an apply on stderr is its own (docs/differences.md): left out.
pub fn without_apply_summary(mut output: Output) -> Output {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let is_summary = |line: &str| line.split_once(" objects: ").is_some_and(|(count, _)| count.parse::<u32>().is_ok());
    output.stderr = stderr.split_inclusive('\n').filter(|line| !is_summary(line)).collect::<String>().into_bytes();
    output
}

fn same_output(ours: &Output, theirs: &Output) -> bool {
    ours.status.code() == theirs.status.code()
        && without_ages(&ours.stdout) == without_ages(&theirs.stdout)
        && ours.stderr == theirs.stderr
}

/// `text` with every age (a cell such as `7s`, `6m17s`, `3d4h`) masked by `#`s of its width, so
/// that two runs on either side of a second compare equal: the AGE column keeps its width and
/// every other cell is still compared byte for byte.
pub fn without_ages(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let is_age = |word: &str| {
        let mut rest = word;
        let mut units = 0;
        while !rest.is_empty() {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let Some(unit) = rest[digits..].chars().next().filter(|unit| "smhdy".contains(*unit)) else { return false };
            if digits == 0 {
                return false;
            }
            rest = &rest[digits + unit.len_utf8()..];
            units += 1;
        }
        units > 0
    };
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut word_start = None;
        for (at, c) in line.char_indices().chain([(line.len(), ' ')]) {
            match (c.is_whitespace(), word_start) {
                (false, None) => word_start = Some(at),
                (true, Some(start)) => {
                    let word = &line[start..at];
                    out.push_str(&if is_age(word) { "#".repeat(word.len()) } else { word.to_string() });
                    word_start = None;
                }
                _ => {}
            }
            if c.is_whitespace() && at < line.len() {
                out.push(c);
            }
        }
    }
    out
}

impl Drop for TestNamespace {
    fn drop(&mut self) {
        // The test cluster runs no namespace controller: a deleted namespace keeps its objects,
        // and its Services keep their cluster IPs, of which there are 254. Services go first.
        let _ = self.kubectl().args(["delete", "services", "--all", "-n", &self.name, "--wait=false"]).output();
        let _ = self.kubectl().args(["delete", "namespace", &self.name, "--wait=false"]).output();
    }
}

/// Applies the cluster-scoped manifest under `testdata` (e.g. a CRD) once per test binary and,
/// for CRDs, waits until they are Established.
pub fn ensure_cluster_fixture(namespace: &TestNamespace, relative: &str) {
    static APPLIED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut applied = APPLIED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if applied.iter().any(|done| done == relative) {
        return;
    }
    let path = testdata(relative);
    let path = path.to_str().unwrap();
    // Several test binaries may apply at once; a lost race is retried.
    let mut last_error = String::new();
    for _ in 0..3 {
        let output = namespace.kubectl().args(["apply", "-f", path]).output().unwrap();
        if output.status.success() {
            last_error.clear();
            break;
        }
        last_error = String::from_utf8_lossy(&output.stderr).into_owned();
    }
    assert!(last_error.is_empty(), "kubectl apply -f {path} failed: {last_error}");
    namespace.wait_established(&["-f", path]);
    applied.push(relative.to_string());
}

/// Whether the server's OpenAPI document comes to hold every one of `texts` within 30 seconds: it
/// publishes a CustomResourceDefinition's schema a moment after the definition is established.
pub fn published(namespace: &TestNamespace, texts: &[&str]) -> bool {
    (0..60).any(|_| {
        let document = namespace.kubectl_ok(&["get", "--raw", "/openapi/v2"]);
        texts.iter().all(|text| document.contains(text)) || {
            std::thread::sleep(std::time::Duration::from_millis(500));
            false
        }
    })
}

/// Runs `command` with `input` on its standard input and collects what it printed.
pub fn with_stdin(command: &mut Command, input: &str) -> Output {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Parses JSON output, failing the test with the text when it is not JSON.
pub fn parse_json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap_or_else(|err| panic!("not JSON ({err}): {}", String::from_utf8_lossy(bytes)))
}

/// Parses YAML output into JSON values.
pub fn parse_yaml(bytes: &[u8]) -> Value {
    let text = std::str::from_utf8(bytes).expect("YAML output is UTF-8");
    serde_saphyr::from_str(text).unwrap_or_else(|err| panic!("not YAML ({err}): {text}"))
}

/// Two namespaces for the same scenario: kubeupd works in `ours`, kubectl (the reference) in
/// `theirs`, and the objects must come out the same.
pub struct Twins {
    pub ours: TestNamespace,
    pub theirs: TestNamespace,
}

impl Twins {
    /// Two fresh namespaces named after `prefix`.
    pub fn new(prefix: &str) -> Twins {
        Twins { ours: TestNamespace::new(&format!("{prefix}-u")), theirs: TestNamespace::new(&format!("{prefix}-k")) }
    }

    /// Two fresh namespaces named after `prefix` on the cluster with nodes.
    pub fn with_nodes(prefix: &str) -> Twins {
        let namespace = |side: &str| TestNamespace::with_nodes(&format!("{prefix}-{side}"));
        Twins { ours: namespace("u"), theirs: namespace("k") }
    }

    /// Asserts that `kubectl get WHAT -o json` shows the same in both namespaces, as
    /// [`twin_view`] sees it, and returns our side. `what` is a type (all its objects, as a
    /// list's items) or `TYPE/NAME`.
    pub fn assert_same(&self, what: &str, context: &str) -> Value {
        let ours = self.view(&self.ours, what);
        let theirs = self.view(&self.theirs, what);
        assert_eq!(ours, theirs, "{context}: {what} differs (left: kubeupd, right: kubectl)");
        ours
    }

    /// `kubeupd -n OURS ARGS` and `kubectl -n THEIRS ARGS`, each run to its end (kubeupd within a
    /// minute), for comparing what they print.
    pub fn run_both(&self, args: &[&str]) -> (Output, Output) {
        let ours = self
            .ours
            .kubeupd()
            .args(["-n", &self.ours.name])
            .args(args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .expect("kubeupd runs");
        let theirs = self.theirs.kubectl().args(["-n", &self.theirs.name]).args(args).output().expect("kubectl runs");
        (ours, theirs)
    }

    /// [`assert_same_output`] with each side's namespace read as `NAMESPACE`, as kubectl 1.37
    /// names it in messages (`configmap "a" deleted from NAMESPACE namespace`).
    pub fn assert_same_output(&self, ours: &Output, theirs: &Output, context: &str) {
        let masked = |output: &Output, namespace: &TestNamespace| {
            let mask = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&namespace.name, "NAMESPACE").into_bytes();
            Output { status: output.status, stdout: mask(&output.stdout), stderr: mask(&output.stderr) }
        };
        assert_same_output(&masked(ours, &self.ours), &masked(theirs, &self.theirs), context);
    }

    /// [`Twins::run_both`], asserting the same exit code, stdout and stderr; returns both.
    pub fn assert_both(&self, args: &[&str]) -> (Output, Output) {
        let (ours, theirs) = self.run_both(args);
        assert_same_output(&ours, &theirs, &format!("{args:?}"));
        (ours, theirs)
    }

    /// Twins holding the objects of the `testdata` files and of the YAML documents, each created by
    /// kubectl in both namespaces.
    pub fn with_objects(prefix: &str, files: &[&str], documents: &[&str]) -> Twins {
        let twins = Twins::new(prefix);
        for ns in [&twins.ours, &twins.theirs] {
            for file in files {
                ns.kubectl_ok(&["create", "-n", &ns.name, "-f", testdata(file).to_str().unwrap()]);
            }
            for yaml in documents {
                let created = with_stdin(ns.kubectl().args(["create", "-n", &ns.name, "-f", "-"]), yaml);
                assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
            }
        }
        twins
    }

    fn view(&self, namespace: &TestNamespace, what: &str) -> Value {
        let text = namespace.kubectl_ok(&["get", what, "-n", &namespace.name, "-o", "json", "--show-managed-fields"]);
        let view = twin_view(parse_json(text.as_bytes()), &namespace.name);
        match view.get("kind").and_then(Value::as_str) {
            Some("List") => view["items"].clone(),
            _ => view,
        }
    }
}

/// What differs between twins made the same way in two namespaces, and is never compared: the
/// metadata the server sets per object, the cluster IPs and node ports it allocates, the node the
/// scheduler picks for a pod, the times the node and controllers write into status, and the
/// times of `managedFields` entries.
const NOT_COMPARED: [&str; 14] = [
    "/metadata/uid",
    "/metadata/resourceVersion",
    "/metadata/creationTimestamp",
    "/metadata/selfLink",
    "/metadata/managedFields/*/time",
    "/spec/clusterIP",
    "/spec/clusterIPs",
    "/spec/ports/*/nodePort",
    "/spec/nodeName",
    "/status/startTime",
    "/status/conditions/*/lastTransitionTime",
    "/status/containerStatuses/*/state/terminated/startedAt",
    "/status/containerStatuses/*/state/terminated/finishedAt",
    "/status/containerStatuses/*/state/running/startedAt",
];

/// An object (or a List of them) as it compares with its twin in another namespace: the
/// namespace's name reads `NAMESPACE` wherever it appears (`metadata.namespace`, the last-applied
/// annotation), the fields in [`NOT_COMPARED`] are gone, and managedFields entries are in one
/// order. Field ownership stays: managers, operations and field sets are part of the result.
pub fn twin_view(value: Value, namespace: &str) -> Value {
    let text = serde_json::to_string(&value).unwrap().replace(namespace, "NAMESPACE");
    let mut value: Value = serde_json::from_str(&text).unwrap();
    forget_not_compared(&mut value);
    sort_managed_fields(&mut value);
    value
}

/// The server sorts managedFields entries by operation, time and manager name; without times,
/// and with managers renamed, they compare in an order of their own.
fn sort_managed_fields(value: &mut Value) {
    if let Some(items) = value.get_mut("items").and_then(Value::as_array_mut) {
        items.iter_mut().for_each(sort_managed_fields);
    }
    if let Some(entries) = value.pointer_mut("/metadata/managedFields").and_then(Value::as_array_mut) {
        entries.sort_by_key(|entry| {
            ["operation", "manager", "apiVersion", "subresource"]
                .map(|key| entry[key].as_str().unwrap_or("").to_string())
        });
    }
}

fn forget_not_compared(value: &mut Value) {
    if let Some(items) = value.get_mut("items").and_then(Value::as_array_mut) {
        items.iter_mut().for_each(forget_not_compared);
    }
    for pointer in NOT_COMPARED {
        let (parent, field) = pointer.rsplit_once('/').unwrap();
        match parent.split_once("/*") {
            Some((list, rest)) => {
                for entry in value.pointer_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
                    entry.pointer_mut(rest).and_then(Value::as_object_mut).map(|map| map.remove(field));
                }
            }
            None => {
                value.pointer_mut(parent).and_then(Value::as_object_mut).map(|map| map.remove(field));
            }
        }
    }
}

/// `value` without what a write changes on its own (`resourceVersion`, `generation`,
/// `managedFields`): for comparing one object before and after a change, or two reads of it.
pub fn without_volatile_fields(mut value: Value) -> Value {
    fn scrub(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(metadata)) = map.get_mut("metadata") {
                    metadata.remove("resourceVersion");
                    metadata.remove("managedFields");
                    metadata.remove("generation");
                }
                map.values_mut().for_each(scrub);
            }
            Value::Array(items) => items.iter_mut().for_each(scrub),
            _ => {}
        }
    }
    scrub(&mut value);
    value
}

/// The namespaced documents of kubernetes/examples, in two groups that can each share a namespace
/// (guestbook-go reuses guestbook's names), and the StatefulSet of the one file that also has a
/// StorageClass (cluster-scoped, which twins would share), to be given on stdin.
pub fn example_files() -> ([Vec<PathBuf>; 2], String) {
    let dir = testdata("kubernetes-examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    let shared = dir.join("databases--cassandra--cassandra-statefulset.yaml");
    files.retain(|path| path != &shared);
    let text = std::fs::read_to_string(&shared).unwrap();
    let (stateful_set, storage_class) = text.split_once("\n---\n").expect("two documents");
    assert!(storage_class.contains("kind: StorageClass") && stateful_set.contains("kind: StatefulSet"));
    let (guestbook_go, others) = files
        .into_iter()
        .partition(|path| path.file_name().unwrap().to_str().unwrap().starts_with("web--guestbook-go--"));
    ([others, guestbook_go], stateful_set.to_string())
}
