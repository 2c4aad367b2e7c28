//! kubeupd behind a fault-injecting proxy in front of the real apiserver: reads are retried,
//! writes where it is safe (a create is read back first; conflicts are re-read and recomputed),
//! nothing is created twice, a write that still fails after the retries is read back and named,
//! failures of a multi-object apply are reported object by object, and every failure ends in one
//! clear error within bounded time.
use crate::support;

use std::time::{Duration, Instant};

use support::TestNamespace;
use support::fault_proxy::{Fault, Rig};

fn configmap(name: &str, value: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{v: \"{value}\"}}\n")
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn reads_are_retried_after_a_reset_connection() {
    let rig = Rig::new("rel-read");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject("GET", "/configmaps/x", Fault::Reset { after_forwarding: false }, 2);
    let (output, _) = rig.kubeupd(&["get", "configmap", "x", "-o", "name"], "");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/x\n");
    assert_eq!(rig.count("GET", "/configmaps/x"), 3);
}

#[test]
fn too_many_requests_waits_for_retry_after() {
    let rig = Rig::new("rel-429");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject(
        "GET",
        "/configmaps/x",
        Fault::Status { code: 429, reason: "TooManyRequests", retry_after: Some(1) },
        1,
    );
    let (output, elapsed) = rig.kubeupd(&["get", "configmap", "x", "-o", "name"], "");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(rig.count("GET", "/configmaps/x"), 2);
    assert!(elapsed >= Duration::from_secs(1), "Retry-After was not honoured: {elapsed:?}");
}

#[test]
fn a_storm_of_server_errors_ends_in_one_clear_error_in_bounded_time() {
    let rig = Rig::new("rel-503");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject(
        "GET",
        "/configmaps/x",
        Fault::Status { code: 503, reason: "ServiceUnavailable", retry_after: None },
        1000,
    );
    let (output, elapsed) = rig.kubeupd(&["get", "configmap", "x"], "");
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("ServiceUnavailable"), "{text}");
    assert!(elapsed < Duration::from_secs(30), "gave up only after {elapsed:?}");
    assert!(rig.count("GET", "/configmaps/x") <= 6, "retried {} times", rig.count("GET", "/configmaps/x"));
}

#[test]
fn apply_rereads_and_recomputes_on_conflicts() {
    let rig = Rig::new("rel-409");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject("PATCH", "/configmaps/x", Fault::Status { code: 409, reason: "Conflict", retry_after: None }, 3);
    let (output, _) = rig.kubeupd(&["apply", "-f", "-"], &configmap("x", "2"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/x configured\n");
    assert_eq!(rig.count("PATCH", "/configmaps/x"), 4);
    assert!(rig.count("GET", "/configmaps/x") >= 4, "each attempt reads the object again");
    assert_eq!(
        rig.namespace.kubectl_ok(&["get", "cm", "x", "-n", &rig.namespace.name, "-o", "jsonpath={.data.v}"]),
        "2"
    );
}

#[test]
fn endless_conflicts_give_up_after_the_last_attempt() {
    let rig = Rig::new("rel-409s");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject(
        "PATCH",
        "/configmaps/x",
        Fault::Status { code: 409, reason: "Conflict", retry_after: None },
        1000,
    );
    let (output, elapsed) = rig.kubeupd(&["apply", "-f", "-"], &configmap("x", "2"));
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("Conflict"), "{text}");
    assert_eq!(rig.count("PATCH", "/configmaps/x"), 5);
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
}

#[test]
fn a_create_whose_answer_is_lost_is_read_back_not_repeated() {
    let rig = Rig::new("rel-create");
    rig.proxy.inject("POST", "/configmaps", Fault::Reset { after_forwarding: true }, 1);
    let (output, _) = rig.kubeupd(&["apply", "-f", "-"], &configmap("x", "1"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/x created\n");
    assert_eq!(rig.count("POST", "/configmaps"), 1, "the object was read back, not created again");
    let listed = rig.namespace.kubectl_ok(&["get", "cm", "-n", &rig.namespace.name, "-o", "name"]);
    assert_eq!(listed.lines().filter(|line| line.starts_with("configmap/x")).count(), 1);
}

#[test]
fn a_patch_whose_answer_is_lost_is_sent_again() {
    let rig = Rig::new("rel-patch");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject("PATCH", "/configmaps/x", Fault::Reset { after_forwarding: true }, 1);
    let (output, _) = rig.kubeupd(&["apply", "-f", "-"], &configmap("x", "2"));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/x configured\n");
    assert_eq!(rig.count("PATCH", "/configmaps/x"), 2, "a patch leaves the same object when sent twice");
}

#[test]
/// A write whose connection fails on every attempt (six) is read back, then reported.
fn a_patch_that_never_reached_the_server_is_reported_not_applied() {
    let rig = Rig::new("rel-patch-lost");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject("PATCH", "/configmaps/x", Fault::Reset { after_forwarding: false }, 6);
    let (output, _) = rig.kubeupd(&["apply", "--server-side", "-f", "-"], &configmap("x", "2"));
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("Unable to connect to the server: "), "{text}");
    assert!(text.contains("read back afterwards, the write is not applied; run the same command again"), "{text}");
    assert_eq!(rig.count("PATCH", "/configmaps/x"), 6, "six attempts in all");
    let (again, _) = rig.kubeupd(&["apply", "--server-side", "-f", "-"], &configmap("x", "2"));
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        rig.namespace.kubectl_ok(&["get", "cm", "x", "-n", &rig.namespace.name, "-o", "jsonpath={.data.v}"]),
        "2"
    );
}

#[test]
fn a_partial_multi_object_apply_says_what_was_and_was_not_applied() {
    let rig = Rig::new("rel-partial");
    rig.proxy.inject("POST", "/configmaps", Fault::Status { code: 403, reason: "Forbidden", retry_after: None }, 1);
    let input = [configmap("a", "1"), configmap("b", "1"), configmap("c", "1")].join("---\n");
    let (output, _) = rig.kubeupd(&["apply", "--concurrency", "1", "-f", "-"], &input);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/b created\nconfigmap/c created\n");
    let text = stderr(&output);
    assert!(text.contains("STDIN (document 1)") && text.contains("Forbidden"), "{text}");
    assert!(text.contains("3 objects: 2 created, 1 failed"), "{text}");
}

#[test]
fn slow_answers_end_at_the_request_timeout() {
    let rig = Rig::new("rel-slow");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject("GET", "/configmaps/x", Fault::Slow(Duration::from_secs(5)), 10);
    let (output, elapsed) = rig.kubeupd(&["--request-timeout=1s", "get", "configmap", "x"], "");
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("timed out after 1s"), "{text}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[test]
fn concurrent_applies_and_updates_lose_nothing() {
    let namespace = TestNamespace::new("rel-load");
    namespace.apply(&configmap("shared", "0"));
    let config =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared, labels: {owner: apply}}\ndata: {v: \"applied\"}\n";
    let children: Vec<_> = (0..20)
        .map(|i| {
            let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("kubeupd"));
            command.arg("--kubeconfig").arg(support::kubeconfig()).arg("--cache-dir").arg(namespace.cache_dir());
            command.args(["-n", &namespace.name]).env_remove("KUBECONFIG");
            if i % 2 == 0 {
                command.args(["apply", "-f", "-"]);
            } else {
                command.args(["update", "configmap/shared", "--set", &format!("metadata.annotations.writer{i}=w{i}")]);
            }
            command
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = command.spawn().unwrap();
            let mut stdin = child.stdin.take().unwrap();
            if i % 2 == 0 {
                std::io::Write::write_all(&mut stdin, config.as_bytes()).unwrap();
            }
            drop(stdin);
            child
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "process {i}: {}", String::from_utf8_lossy(&output.stderr));
    }
    let object = support::parse_json(
        namespace.kubectl_ok(&["get", "cm", "shared", "-n", &namespace.name, "-o", "json"]).as_bytes(),
    );
    assert_eq!(object["data"]["v"], "applied");
    assert_eq!(object["metadata"]["labels"]["owner"], "apply");
    for i in (1..20).step_by(2) {
        assert_eq!(object["metadata"]["annotations"][format!("writer{i}")], format!("w{i}"), "{object}");
    }
}

/// A kubeupd apply running in the background, with the lines it has printed on stdout counted.
struct Running {
    child: std::process::Child,
    count: std::sync::mpsc::Receiver<usize>,
    reader: std::thread::JoinHandle<usize>,
}

impl Running {
    /// Waits until at least `at_least` lines are printed.
    fn wait_for_lines(&self, at_least: usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.count.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("lines printed")
            < at_least
        {}
    }

    /// Waits for the end: the exit code, how many lines were printed on stdout, and stderr.
    fn finish(mut self) -> (Option<i32>, usize, String) {
        let status = self.child.wait().unwrap();
        let printed = self.reader.join().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut stderr).unwrap();
        (status.code(), printed, stderr)
    }
}

/// kubeupd apply started against the rig's proxy on `input`.
fn spawn_apply(rig: &Rig, input: &str, args: &[&str]) -> Running {
    let mut child = rig
        .process(&["apply", "-f", "-"])
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines, count) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut printed = 0;
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            if line.is_err() {
                break;
            }
            printed += 1;
            let _ = lines.send(printed);
        }
        printed
    });
    Running { child, count, reader }
}

fn many_configmaps(count: usize) -> String {
    (0..count).map(|i| configmap(&format!("cm-{i}"), "1")).collect::<Vec<_>>().join("---\n")
}

/// The configmaps of the rig's namespace named `cm-N`.
fn created(rig: &Rig) -> usize {
    let listed = rig.namespace.kubectl_ok(&["get", "configmaps", "-n", &rig.namespace.name, "-o", "name"]);
    listed.lines().filter(|line| line.starts_with("configmap/cm-")).count()
}

/// `create -f` sends as many creates at once as apply sends writes by default, not every object
/// at once: each create is held at the proxy, which counts how many it holds at the same time.
#[test]
fn create_from_files_creates_a_bounded_number_at_once() {
    let rig = Rig::new("rel-create");
    rig.proxy.inject("POST", "/configmaps", Fault::Held(Duration::from_millis(200)), 1000);
    let (output, _) = rig.kubeupd(&["create", "-f", "-"], &many_configmaps(24));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 24);
    assert_eq!(created(&rig), 24);
    let most = rig.proxy.most_at_once();
    assert!(most <= kubeupd::apply::DEFAULT_CONCURRENCY, "{most} requests at once");
}

#[test]
fn an_interrupted_apply_finishes_what_it_started_and_says_what_was_not_applied() {
    let rig = Rig::new("rel-interrupt");
    rig.proxy.inject("POST", "/configmaps", Fault::Slow(Duration::from_millis(300)), 1000);
    let running = spawn_apply(&rig, &many_configmaps(40), &["--concurrency", "2"]);
    running.wait_for_lines(3);
    let killed = std::process::Command::new("kill").args(["-INT", &running.child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let (code, printed, stderr) = running.finish();
    assert_eq!(code, Some(130), "{stderr}");
    let summary = stderr.lines().last().unwrap_or_default();
    assert_eq!(summary, format!("interrupted: {printed} created, {} not applied", 40 - printed), "{stderr}");
    assert!(printed < 40, "the run stopped early");
    assert_eq!(created(&rig), printed, "every object said created is there, and no other");
}

#[test]
fn when_the_server_stops_answering_the_apply_stops_and_says_so_once() {
    let rig = Rig::new("rel-gone");
    rig.proxy.inject("POST", "/configmaps", Fault::Slow(Duration::from_millis(100)), 1000);
    let running = spawn_apply(&rig, &many_configmaps(60), &["--concurrency", "2"]);
    running.wait_for_lines(10);
    rig.proxy.clear();
    for method in ["GET", "POST", "PATCH"] {
        rig.proxy.inject(method, "/", Fault::Reset { after_forwarding: false }, 100_000);
    }
    let started = Instant::now();
    let (code, printed, stderr) = running.finish();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
    let unreachable = stderr.lines().filter(|line| line.contains("Unable to connect to the server")).count();
    assert_eq!(unreachable, 1, "said once: {stderr}");
    let summary = stderr.lines().last().unwrap_or_default();
    let expected = format!(
        "error: the API server stopped answering after {printed} objects; {} were not applied; run the same command \
         again to continue",
        60 - printed
    );
    assert_eq!(summary, expected, "{stderr}");
    assert!(stderr.lines().count() <= 4, "no line per object: {stderr}");
}

/// One write in the middle of a 300-object apply has its connection reset before the server saw
/// it, another has its connection closed halfway through the server's answer: the first is sent
/// again, the second read back (a create) or sent again (a server-side apply, which leaves the same
/// object), and the run converges with every object created once.
fn one_lost_request_is_not_a_lost_server(server_side: bool) {
    let rig = Rig::new(if server_side { "rel-lost-ssa" } else { "rel-lost-csa" });
    let (method, path) = if server_side { ("PATCH", "/configmaps/cm-") } else { ("POST", "/configmaps") };
    rig.proxy.inject_nth(method, path, Fault::Reset { after_forwarding: false }, 100, 1);
    rig.proxy.inject_nth(method, path, Fault::CloseMidAnswer, 200, 1);
    let mut args = vec!["apply", "-f", "-"];
    if server_side {
        args.push("--server-side");
    }
    let (output, _) = rig.kubeupd(&args, &many_configmaps(300));
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    let word = if server_side { "serverside-applied" } else { "created" };
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(stdout.lines().filter(|line| line.ends_with(&format!(" {word}"))).count(), 300, "{stdout}");
    let counted = if server_side { "serverside-applied (300 created)" } else { "created" };
    assert_eq!(text.lines().last(), Some(format!("300 objects: 300 {counted}").as_str()), "{text}");
    // The reset write is sent again; the create whose answer was cut is read back, not sent again.
    assert_eq!(rig.count(method, path), if server_side { 302 } else { 301 });
    assert_eq!(created(&rig), 300);
}

#[test]
fn a_client_side_apply_goes_on_after_one_lost_request() {
    one_lost_request_is_not_a_lost_server(false);
}

#[test]
fn a_server_side_apply_goes_on_after_one_lost_request() {
    one_lost_request_is_not_a_lost_server(true);
}

#[test]
fn a_prune_whose_delete_is_lost_is_sent_again_and_the_others_are_pruned() {
    let rig = Rig::new("rel-prune");
    let set = ["apply", "--prune", "--applyset=app", "-f", "-"];
    let all = [configmap("a", "1"), configmap("b", "1"), configmap("c", "1")].join("---\n");
    let (first, _) = rig.kubeupd(&set, &all);
    assert!(first.status.success(), "{}", stderr(&first));
    rig.proxy.inject("DELETE", "/configmaps/b", Fault::Reset { after_forwarding: true }, 1);
    let (output, _) = rig.kubeupd(&set, &configmap("a", "1"));
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(stdout.contains("configmap/b pruned") && stdout.contains("configmap/c pruned"), "{stdout}{text}");
    // Sent again, the delete finds the object gone: the first one deleted it.
    assert_eq!(rig.count("DELETE", "/configmaps/b"), 2);
    let listed = rig.namespace.kubectl_ok(&["get", "cm", "-n", &rig.namespace.name, "-o", "name"]);
    // The controllers' `kube-root-ca.crt`, where they run, is no member of the set and stays.
    let kept = if support::runs_namespace_controllers() {
        &["configmap/a", "configmap/kube-root-ca.crt"][..]
    } else {
        &["configmap/a"]
    };
    assert_eq!(listed.lines().collect::<Vec<_>>(), kept);
}

#[test]
fn a_replace_whose_answer_is_lost_is_sent_again_and_the_others_are_replaced() {
    let rig = Rig::new("rel-replace");
    for name in ["a", "b", "c"] {
        rig.namespace.apply(&configmap(name, "1"));
    }
    let file = rig.dir.path().join("all.yaml");
    std::fs::write(&file, [configmap("a", "2"), configmap("b", "2"), configmap("c", "2")].join("---\n")).unwrap();
    rig.proxy.inject("PUT", "/configmaps/b", Fault::CloseMidAnswer, 1);
    rig.proxy.inject("PUT", "/configmaps/c", Fault::Reset { after_forwarding: false }, 1);
    let (output, _) = rig.kubeupd(&["replace", "-f", file.to_str().unwrap()], "");
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "configmap/a replaced\nconfigmap/b replaced\nconfigmap/c replaced\n",
        "{text}"
    );
    assert_eq!(rig.count("PUT", "/configmaps/"), 5, "b's and c's replaces were sent again");
    let value = |name: &str| {
        rig.namespace.kubectl_ok(&["get", "cm", name, "-n", &rig.namespace.name, "-o", "jsonpath={.data.v}"])
    };
    assert_eq!([value("a"), value("b"), value("c")], ["2", "2", "2"]);
}

/// The sequence on kubernetes/examples' manifests, through both tools on twins: create,
/// change, apply again, then switch to server-side apply. Whatever requests the server fails
/// on the way, kubeupd ends as kubectl does: the same exit status, objects and field ownership.
#[test]
fn the_real_world_sequence_gives_kubectls_objects() {
    let (groups, _) = support::example_files();
    for (index, files) in groups.iter().enumerate() {
        let twins = support::Twins::new(&format!("rel-examples-{index}"));
        let changed = tempfile::tempdir().unwrap();
        let changed_files: Vec<std::path::PathBuf> = files
            .iter()
            .map(|file| {
                let text = std::fs::read_to_string(file).unwrap().replace("replicas: 1\n", "replicas: 2\n");
                let path = changed.path().join(file.file_name().unwrap());
                std::fs::write(&path, text).unwrap();
                path
            })
            .collect();
        let steps: [(&str, &[std::path::PathBuf], &[&str]); 4] = [
            ("create", files, &[]),
            ("change", &changed_files, &[]),
            ("apply again", &changed_files, &[]),
            ("server-side", &changed_files, &["--server-side"]),
        ];
        for (step, files, args) in steps {
            let run = |mut command: std::process::Command, namespace: &str| {
                command.args(["apply", "-n", namespace]).args(args);
                for file in files {
                    command.arg("-f").arg(file);
                }
                command.output().unwrap()
            };
            let ours = run(twins.ours.kubeupd_process(), &twins.ours.name);
            let theirs = run(twins.theirs.kubectl(), &twins.theirs.name);
            assert_eq!(
                ours.status.code(),
                theirs.status.code(),
                "{step}: kubeupd said {} and kubectl {}",
                String::from_utf8_lossy(&ours.stderr),
                String::from_utf8_lossy(&theirs.stderr)
            );
            twins.assert_same("deployments,pods,replicationcontrollers,services", step);
        }
    }
}

fn deployment(name: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  replicas: 1\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec: {{containers: [{{name: app, image: nginx:1}}]}}\n"
    )
}

/// Each update verb that writes several objects, behind the proxy: of three Deployments, `b`'s
/// write reaches the server but its answer is lost (sent again, it converges), `c`'s never reaches
/// it on any of its six attempts: `c` fails on its own with what reading it back showed, `a` and
/// `b` are written, exit 1.
#[test]
fn the_update_verbs_read_back_a_lost_write_and_go_on() {
    let objects = ["deploy/a", "deploy/b", "deploy/c"];
    // The verb's arguments, the request that writes, and what shows that an object was written.
    let cases: [(&[&str], &str, &str, &str); 6] = [
        (&["label", "tier=web"], "PATCH", "{.metadata.labels.tier}", "web"),
        (&["annotate", "note=x"], "PATCH", "{.metadata.annotations.note}", "x"),
        (&["scale", "--replicas=3"], "PATCH", "{.spec.replicas}", "3"),
        (&["set", "image", "app=nginx:2"], "PATCH", "{.spec.template.spec.containers[0].image}", "nginx:2"),
        (&["rollout", "restart"], "PATCH", "{.spec.template.metadata.annotations}", "restartedAt"),
        (&["delete", "--wait=false"], "DELETE", "{.metadata.deletionTimestamp}", "gone"),
    ];
    for (verb, method, field, written) in cases {
        let rig = Rig::new("rel-verbs");
        for name in ["a", "b", "c"] {
            rig.namespace.apply(&deployment(name));
        }
        rig.proxy.inject(method, "/deployments/b", Fault::Reset { after_forwarding: true }, 1);
        rig.proxy.inject(method, "/deployments/c", Fault::Reset { after_forwarding: false }, 6);
        // `set image` and `rollout restart` are two words.
        let words = if ["set", "rollout"].contains(&verb[0]) { 2 } else { 1 };
        let mut args = verb[..words].to_vec();
        args.extend(objects);
        args.extend(&verb[words..]);
        let (output, _) = rig.kubeupd(&args, "");
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {text}");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let a_or_b = |line: &str| {
            ["a", "b"].iter().any(|name| {
                line.starts_with(&format!("deployment.apps/{name} "))
                    || line.starts_with(&format!("deployment.apps \"{name}\" "))
            })
        };
        assert!(stdout.lines().count() == 2 && stdout.lines().all(a_or_b), "{args:?}: {stdout}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {text} / {stdout}");
        assert!(lines[0].contains("deployment.apps/c: Unable to connect to the server: "), "{args:?}: {text}");
        assert!(lines[0].ends_with("the write is not applied; run the same command again"), "{args:?}: {text}");
        assert_eq!(rig.count(method, "/deployments/b"), 2, "{args:?}: b's write is sent again");
        assert_eq!(rig.count(method, "/deployments/c"), 6, "{args:?}: c's, six times in all");
        let shows = |name: &str| {
            let namespace = &rig.namespace.name;
            let path = format!("jsonpath={field}");
            let read = rig.namespace.kubectl().args(["get", "deploy", name, "-n", namespace, "-o", &path]).output();
            let read = read.unwrap();
            match read.status.success() {
                true => String::from_utf8_lossy(&read.stdout).contains(written),
                false => written == "gone",
            }
        };
        assert_eq!([shows("a"), shows("b"), shows("c")], [true, true, false], "{args:?}");
    }
}

/// A watch that breaks is opened again, not fatal: `wait`'s first watch has its connection reset,
/// the next ones are short (the proxy hands a watch's events over only when it ends); the change
/// made meanwhile is seen and the wait succeeds.
#[test]
fn a_wait_whose_watch_is_reset_watches_again() {
    let rig = Rig::new("rel-watch");
    rig.namespace.apply(&configmap("x", "1"));
    rig.proxy.inject("GET", "watch=true", Fault::Reset { after_forwarding: false }, 1);
    rig.proxy.inject("GET", "watch=true", Fault::ShortWatch(1), 100);
    let waiting = rig.command(&["wait", "--for=jsonpath={.data.v}=2", "configmap/x", "--timeout=30s"]);
    let waiting = std::thread::spawn(move || {
        let mut waiting = waiting;
        waiting.output().unwrap()
    });
    let started = Instant::now();
    while rig.count("GET", "watch=true") < 2 && !waiting.is_finished() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    rig.namespace.apply(&configmap("x", "2"));
    let output = waiting.join().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/x condition met\n");
    assert!(rig.count("GET", "watch=true") >= 2, "the watch was opened again");
}
