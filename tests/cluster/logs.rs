//! `logs`, `events` and `proxy` on the cluster with nodes, kubectl 1.37 beside kubeupd on the same
//! pods (reading verbs: both read the same namespace). kwok serves each test pod's log from a
//! file of the test's own (its `Logs` objects); `follow: false` there makes the server end even
//! a followed log at the file's end, which is `logs -f`'s stop condition here.
use crate::support;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};

use support::{TestNamespace, assert_same_output, with_stdin};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A log file in CRI format holding `lines`, one second apart, for kwok to serve.
fn log_file(dir: &Path, name: &str, lines: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut content = String::new();
    for (at, line) in lines.iter().enumerate() {
        content += &format!("2026-01-01T00:00:{at:02}.000000000Z stdout F {line}\n");
    }
    std::fs::write(&path, content).unwrap();
    path
}

/// kwok's `Logs` for pod `pod`: its `containers` read `file`, followed or not.
fn serve_logs(namespace: &TestNamespace, pod: &str, containers: &[&str], file: &Path, follow: bool) {
    let yaml = format!(
        "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Logs\nmetadata: {{name: {pod}}}\nspec:\n  logs:\n  - containers: [{}]\n    logsFile: {}\n    follow: {follow}\n",
        containers.join(", "),
        file.display()
    );
    namespace.apply(&yaml);
}

/// A pod named `name` with `containers` (and an init container when `init`), labelled `app: LABEL`,
/// its annotations given, Ready.
fn pod(namespace: &TestNamespace, name: &str, label: &str, containers: &[&str], annotations: &str) {
    let containers: Vec<String> = containers.iter().map(|c| format!("{{name: {c}, image: busybox}}")).collect();
    let yaml = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, labels: {{app: {label}}}, annotations: {{{annotations}}}}}\nspec:\n  containers: [{}]\n",
        containers.join(", ")
    );
    namespace.apply(&yaml);
    namespace.kubectl_ok(&[
        "wait",
        "-n",
        &namespace.name,
        "--for=condition=Ready",
        "--timeout=60s",
        &format!("pod/{name}"),
    ]);
}

/// `kubectl ARGS` then `kubeupd ARGS` in `namespace`, both to their end.
fn both(namespace: &TestNamespace, args: &[&str]) -> (Output, Output) {
    let theirs = namespace.kubectl().args(["-n", &namespace.name]).args(args).output().unwrap();
    let ours = namespace
        .kubeupd()
        .args(["-n", &namespace.name])
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    (ours, theirs)
}

fn assert_same(namespace: &TestNamespace, args: &[&str]) {
    let (ours, theirs) = both(namespace, args);
    assert_same_output(&ours, &theirs, &format!("logs {args:?}"));
}

/// The lines of `bytes`, sorted: kubectl reads several logs in Go's map order, which varies.
fn sorted_lines(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = text(bytes).lines().map(String::from).collect();
    lines.sort();
    lines
}

#[test]
fn logs_of_a_pod_read_as_kubectls() {
    let namespace = TestNamespace::with_nodes("logs-pod");
    let dir = tempfile::tempdir().unwrap();
    let file = log_file(dir.path(), "two.log", &["one", "two", "three", "four"]);
    pod(&namespace, "two", "two", &["app", "side"], "");
    serve_logs(&namespace, "two", &["app", "side"], &file, false);
    pod(&namespace, "annotated", "annotated", &["app", "side"], "kubectl.kubernetes.io/default-container: side");
    serve_logs(&namespace, "annotated", &["app", "side"], &file, false);
    pod(&namespace, "misannotated", "misannotated", &["app", "side"], "kubectl.kubernetes.io/default-container: gone");
    serve_logs(&namespace, "misannotated", &["app", "side"], &file, false);
    for args in [
        &["logs", "two"][..],
        &["logs", "two", "-c", "side"],
        &["logs", "two", "side"],
        &["logs", "two", "--timestamps", "--prefix", "-c", "side"],
        &["logs", "two", "--tail=2"],
        &["logs", "two", "--tail=0"],
        &["logs", "two", "--limit-bytes=6"],
        &["logs", "two", "--since-time=2026-01-01T00:00:02Z", "--timestamps"],
        // kwok keeps a followed log open; the server ends it at --limit-bytes (the file's size).
        &["logs", "two", "-f", "--limit-bytes=19"],
        &["logs", "two", "-f", "--tail=1", "--limit-bytes=5"],
        &["logs", "pod/two", "--prefix"],
        &["logs", "annotated"],
        &["logs", "misannotated"],
        &["logs", "two", "-c", "nope"],
        &["logs", "nope"],
        &["logs", "deployment/nope"],
        &["logs", "configmap/kube-root-ca.crt"],
        &["logs"],
        &["logs", "two", "-l", "app=two"],
        &["logs", "two", "app", "-c", "side"],
        &["logs", "two", "--all-containers", "-c", "app"],
        &["logs", "two", "--since=1s", "--since-time=2026-01-01T00:00:00Z"],
        &["logs", "two", "--limit-bytes=-1"],
        &["logs", "two", "--tail=-2"],
        &["logs", "two", "--since=-1s"],
        &["logs", "two", "--since-time=yesterday"],
        &["logs", "two", "--pod-running-timeout=0s"],
        &["logs", "-l", "app=nothing"],
    ] {
        assert_same(&namespace, args);
    }
    // Several containers: kubectl reads them in Go's map order.
    for args in [&["logs", "two", "--all-containers", "--prefix"][..], &["logs", "two", "--all-containers"]] {
        let (ours, theirs) = both(&namespace, args);
        assert_eq!((ours.status.code(), text(&ours.stderr)), (theirs.status.code(), text(&theirs.stderr)), "{args:?}");
        assert_eq!(sorted_lines(&ours.stdout), sorted_lines(&theirs.stdout), "{args:?}");
        assert_eq!(sorted_lines(&ours.stdout).len(), 8, "{args:?}");
    }
}

#[test]
fn logs_of_a_workload_choose_its_pod_as_kubectl_does() {
    let namespace = TestNamespace::with_nodes("logs-workload");
    let dir = tempfile::tempdir().unwrap();
    namespace.apply(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: app, image: busybox}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: bare}\nspec:\n  ports: [{port: 80}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: none}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: none}}\n  template:\n    metadata: {labels: {app: none}}\n    spec:\n      containers: [{name: app, image: busybox}]\n",
    );
    namespace.kubectl_ok(&["rollout", "status", "-n", &namespace.name, "deployment/web", "--timeout=60s"]);
    let pods = namespace.kubectl_ok(&[
        "get",
        "pods",
        "-n",
        &namespace.name,
        "-l",
        "app=web",
        "-o",
        "jsonpath={.items[*].metadata.name}",
    ]);
    let pods: Vec<&str> = pods.split_whitespace().collect();
    assert_eq!(pods.len(), 3);
    for name in &pods {
        let file = log_file(dir.path(), name, &[&format!("I am {name}"), "bye"]);
        serve_logs(&namespace, name, &["app"], &file, false);
    }
    for args in [
        &["logs", "deployment/web"][..],
        &["logs", "deploy/web", "--tail=1"],
        &["logs", "service/web", "-c", "app"],
        &["logs", "service/bare"],
        &["logs", "deployment/none", "--pod-running-timeout=1s"],
        &["logs", "-l", "app=web", "-f", "--max-log-requests=2"],
    ] {
        assert_same(&namespace, args);
    }
    // Several pods: each log in Go's map order in kubectl; the same lines, each whole. kwok keeps
    // a followed log open: the server ends each at --limit-bytes (the file's size).
    let limit = format!("--limit-bytes={}", format!("I am {}\nbye\n", pods[0]).len());
    for args in [
        &["logs", "-l", "app=web"][..],
        &["logs", "-l", "app=web", "--prefix", "--tail=1"],
        &["logs", "deployment/web", "--all-pods"],
        &["logs", "-l", "app=web", "-f", "--prefix", &limit],
    ] {
        let (ours, theirs) = both(&namespace, args);
        assert_eq!((ours.status.code(), text(&ours.stderr)), (theirs.status.code(), text(&theirs.stderr)), "{args:?}");
        assert_eq!(sorted_lines(&ours.stdout), sorted_lines(&theirs.stdout), "{args:?}");
        assert!(!ours.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn logs_of_a_pod_not_running_are_retried_with_follow_until_the_timeout() {
    let namespace = TestNamespace::with_nodes("logs-waiting");
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: waiting}\nspec:\n  containers: [{name: app, image: \"kubeupd.invalid/fail/image-pull:1\"}]\n";
    namespace.apply(yaml);
    namespace.kubectl_ok(&[
        "wait",
        "-n",
        &namespace.name,
        "--for=jsonpath={.status.containerStatuses[0].state.waiting.reason}=ImagePullBackOff",
        "--timeout=60s",
        "pod/waiting",
    ]);
    for args in [
        &["logs", "waiting"][..],
        &["logs", "waiting", "--ignore-errors"],
        &["logs", "waiting", "-f", "--ignore-errors"],
        &["logs", "waiting", "-f", "--pod-running-timeout=500ms"],
    ] {
        assert_same(&namespace, args);
    }
}

/// Reads `child`'s stdout until it holds `wanted`, then stops the child and returns what it printed.
fn read_until(mut child: Child, wanted: &str) -> String {
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !text(&seen).contains(wanted) {
        let read = stdout.read(&mut buffer).unwrap();
        assert!(read > 0, "the stream ended before {wanted:?}: {}", text(&seen));
        seen.extend_from_slice(&buffer[..read]);
    }
    let _ = child.kill();
    let _ = child.wait();
    text(&seen)
}

#[test]
fn a_followed_log_prints_lines_as_they_are_written() {
    let namespace = TestNamespace::with_nodes("logs-follow");
    let dir = tempfile::tempdir().unwrap();
    let file = log_file(dir.path(), "follow.log", &["before"]);
    pod(&namespace, "follow", "follow", &["app"], "");
    serve_logs(&namespace, "follow", &["app"], &file, true);
    let start = |mut command: std::process::Command| {
        command.args(["logs", "-n", &namespace.name, "-f", "follow"]).stdout(Stdio::piped()).spawn().unwrap()
    };
    let mut theirs = start(namespace.kubectl());
    let mut ours = start(namespace.kubeupd_process());
    // Both have printed what the file held before the line is added.
    let first = |child: &mut Child| {
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
        line
    };
    assert_eq!(first(&mut ours), "before\n");
    assert_eq!(first(&mut theirs), "before\n");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap()
        .write_all(b"2026-01-01T00:01:00.000000000Z stdout F after\n")
        .unwrap();
    assert_eq!(read_until(ours, "after\n"), read_until(theirs, "after\n"));
}

/// Events of the pod `pod` in `namespace`, at fixed times long ago (so that their ages do not
/// change during the test), out of order.
fn events(namespace: &TestNamespace, pod: &str) {
    let event = |name: &str, kind: &str, reason: &str, first: &str, last: &str, count: u32, message: &str| {
        format!(
            "apiVersion: v1\nkind: Event\nmetadata: {{name: {name}}}\ninvolvedObject: {{kind: Pod, apiVersion: v1, name: {pod}, namespace: {ns}}}\ntype: {kind}\nreason: {reason}\nfirstTimestamp: \"{first}\"\nlastTimestamp: \"{last}\"\ncount: {count}\nmessage: \"{message}\"\nsource: {{component: test}}\n",
            ns = namespace.name
        )
    };
    let yaml = [
        event("late", "Normal", "Started", "2020-01-03T00:00:00Z", "2020-01-03T00:00:00Z", 1, "started  "),
        event("early", "Warning", "BackOff", "2020-01-01T00:00:00Z", "2020-01-02T00:00:00Z", 7, "back\\roff"),
        event("first", "Normal", "Pulled", "2019-12-31T00:00:00Z", "2019-12-31T00:00:00Z", 1, "pulled"),
    ]
    .join("---\n");
    let created = with_stdin(namespace.kubectl().args(["create", "-n", &namespace.name, "-f", "-"]), &yaml);
    assert!(created.status.success(), "{}", text(&created.stderr));
}

#[test]
fn events_read_as_kubectls() {
    let namespace = TestNamespace::with_nodes("events");
    let pod_name = format!("evented-{}", namespace.name);
    events(&namespace, &pod_name);
    let for_pod = format!("pod/{pod_name}");
    for args in [
        &["events", "--for", &for_pod][..],
        &["events", "--for", &for_pod, "--types=Warning"],
        &["events", "--for", &for_pod, "--types=normal,Warning", "--no-headers"],
        &["events", "--for", &for_pod, "-o", "yaml"],
        &["events", "--for", &for_pod, "-o", "json"],
        &["events", "--for", &for_pod, "-o", "name"],
        &["events", "--for", &for_pod, "-o", "jsonpath={.items[*].reason}"],
        &["events", "-A", "--for", &for_pod],
        &["events", "--for", "pod/nothing-here"],
        &["events", "--for", &pod_name],
        &["events", "--for", "a/b/c"],
        &["events", "--for", "nosuchtype/x"],
        &["events", "--types=Bad"],
        // kubectl's order: --for's form, its type (read from the server), the printer, the types.
        &["events", "--for", &pod_name, "-o", "bad"],
        &["events", "--for", "nosuchtype/x", "-o", "bad", "--types=Bad"],
        &["events", "--for", &for_pod, "-o", "bad", "--types=Bad"],
        &["events", "-o", "bad", "--types=Bad"],
    ] {
        assert_same(&namespace, args);
    }
}

#[test]
fn events_are_watched_as_they_come() {
    let namespace = TestNamespace::with_nodes("events-watch");
    let pod_name = format!("watched-{}", namespace.name);
    let for_pod = format!("pod/{pod_name}");
    let start = |mut command: std::process::Command| {
        command.args(["events", "-w", "-n", &namespace.name, "--for", &for_pod]).stdout(Stdio::piped()).spawn().unwrap()
    };
    let (theirs, ours) = (start(namespace.kubectl()), start(namespace.kubeupd_process()));
    events(&namespace, &pod_name);
    let (theirs, ours) = (read_until(theirs, "back\\roff\n"), read_until(ours, "back\\roff\n"));
    // Three events, each printed as it came (the server's order), the header before the first.
    assert_eq!(ours.lines().count(), 4, "{ours}");
    assert!(ours.starts_with("LAST SEEN "), "{ours}");
    let sorted = |text: &str| sorted_lines(support::without_ages(text.as_bytes()).as_bytes());
    assert_eq!(sorted(&ours), sorted(&theirs));
}

/// Starts `proxy ARGS` and returns it with the address of its "Starting to serve on" line.
fn proxy(mut command: std::process::Command, args: &[&str]) -> (Child, String) {
    let mut child = command.arg("proxy").args(args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
    let address = line.strip_prefix("Starting to serve on ").unwrap_or_else(|| panic!("{line:?}")).trim().to_string();
    (child, address)
}

/// A plain HTTP/1.0 request through a proxy: the status line and the body.
fn fetch(address: &str, method: &str, path: &str, host: &str) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(stream, "{method} {path} HTTP/1.0\r\nHost: {host}\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (head.lines().next().unwrap_or_default().to_string(), body.to_string())
}

#[test]
fn the_proxy_forwards_requests_with_the_kubeconfigs_credentials() {
    let namespace = TestNamespace::with_nodes("proxy");
    namespace.kubectl_ok(&["create", "configmap", "seen", "-n", &namespace.name, "--from-literal=a=b"]);
    let cm = format!("/api/v1/namespaces/{}/configmaps/seen", namespace.name);
    let exec = format!("/api/v1/namespaces/{}/pods/p/exec", namespace.name);
    let missing = format!("/api/v1/namespaces/{}/configmaps/missing", namespace.name);
    for extra in [&[][..], &["--api-prefix=/k8s"]] {
        let mut args = vec!["--port=0"];
        args.extend(extra);
        let (mut ours, our_address) = proxy(namespace.kubeupd_process(), &args);
        let (mut theirs, their_address) = proxy(namespace.kubectl(), &args);
        assert!(our_address.starts_with("127.0.0.1:") && !our_address.ends_with(":0"), "{our_address}");
        let prefix = if extra.is_empty() { "" } else { "/k8s" };
        for (method, path, host) in [
            ("GET", format!("{prefix}{cm}"), "localhost"),
            ("GET", format!("{prefix}{missing}"), "127.0.0.1"),
            ("POST", format!("{prefix}{exec}"), "localhost"),
            ("GET", format!("{prefix}{cm}"), "elsewhere.example"),
            ("GET", "/outside/api".to_string(), "localhost"),
        ] {
            let (our_status, our_body) = fetch(&our_address, method, &path, host);
            let (their_status, their_body) = fetch(&their_address, method, &path, host);
            assert_eq!(our_status, their_status, "{method} {path} {host}");
            let strip = |body: &str| body.replace(&namespace.name, "NS");
            let view = |body: &str| match serde_json::from_str::<serde_json::Value>(body) {
                Ok(value) => support::without_volatile_fields(value).to_string(),
                Err(_) => strip(body),
            };
            assert_eq!(view(&our_body), view(&their_body), "{method} {path} {host}");
        }
        let _ = ours.kill();
        let _ = theirs.kill();
        let _ = (ours.wait(), theirs.wait());
    }
    // A Unix socket, for its owner only.
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("proxy.sock");
    let (mut ours, address) = proxy(namespace.kubeupd_process(), &["--unix-socket", socket.to_str().unwrap()]);
    assert_eq!(address, socket.display().to_string());
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&socket).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    write!(stream, "GET {cm} HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(
        answer.starts_with("HTTP/1.") && answer.contains(" 200 OK\r\n") && answer.contains(r#""a":"b""#),
        "{answer}"
    );
    let _ = ours.kill();
    let _ = ours.wait();
}
