//! `kubeupd delete` against a real kube-apiserver, with kubectl as the oracle on twin namespaces:
//! the same output and exit code, and the same objects left.

use crate::support;

use std::process::Output;

use support::{Twins, testdata};

fn twins(prefix: &str) -> Twins {
    let twins = Twins::new(prefix);
    for ns in [&twins.ours, &twins.theirs] {
        ns.kubectl_ok(&["create", "-n", &ns.name, "-f", testdata("patch/app.yaml").to_str().unwrap()]);
        for name in ["a", "b"] {
            ns.kubectl_ok(&["create", "configmap", name, "-n", &ns.name]);
        }
    }
    twins
}

/// `kubeupd ARGS` in ours and `kubectl ARGS` in theirs: the same output (each namespace read as
/// `NAMESPACE`) and exit code.
fn both(twins: &Twins, args: &[&str]) -> Output {
    let (ours, theirs) = twins.run_both(args);
    twins.assert_same_output(&ours, &theirs, &format!("{args:?}"));
    ours
}

fn names(twins: &Twins, what: &str, context: &str) -> Vec<String> {
    let items = twins.assert_same(what, context);
    items.as_array().unwrap().iter().map(|item| item["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

/// The config maps a namespace holds: `ours`, and `kube-root-ca.crt` where the cluster's
/// controllers publish it; sorted, as `names` lists them.
fn configmaps(ours: &[&str]) -> Vec<String> {
    let published = support::runs_namespace_controllers().then_some("kube-root-ca.crt");
    let mut names: Vec<String> = ours.iter().copied().chain(published).map(String::from).collect();
    names.sort();
    names
}

/// Waits until the controllers have published `kube-root-ca.crt` again in both namespaces, after a
/// delete took it.
fn republished(twins: &Twins) {
    if support::runs_namespace_controllers() {
        for ns in [&twins.ours, &twins.theirs] {
            ns.kubectl_ok(&["wait", "--for=create", "--timeout=60s", "-n", &ns.name, "configmap/kube-root-ca.crt"]);
        }
    }
}

#[test]
fn deletes_match_kubectl() {
    let twins = twins("delete");
    let app = testdata("patch/app.yaml");
    let app = app.to_str().unwrap();
    // --all takes the controllers' kube-root-ca.crt too, which they publish again.
    let all = if support::runs_namespace_controllers() {
        "configmap/b\nconfigmap/kube-root-ca.crt\n"
    } else {
        "configmap/b\n"
    };
    let steps: &[(&[&str], &str, &[&str])] = &[
        (&["delete", "cm", "settings"], "configmap \"settings\" deleted from NAMESPACE namespace\n", &["a", "b"]),
        (&["delete", "cm", "settings"], "", &["a", "b"]),
        (&["delete", "cm", "settings", "--ignore-not-found"], "", &["a", "b"]),
        (&["delete", "cm/a", "cm/nope", "svc/nope"], "configmap \"a\" deleted from NAMESPACE namespace\n", &["b"]),
        (
            &["delete", "svc", "web", "--dry-run=server"],
            "service \"web\" deleted from NAMESPACE namespace (server dry run)\n",
            &["b"],
        ),
        (
            &["delete", "svc", "web", "--dry-run=client"],
            "service \"web\" deleted from NAMESPACE namespace (dry run)\n",
            &["b"],
        ),
        (
            &["delete", "-f", app],
            "deployment.apps \"web\" deleted from NAMESPACE namespace\nservice \"web\" deleted from NAMESPACE namespace\n",
            &["b"],
        ),
        (&["delete", "-f", app, "--ignore-not-found"], "", &["b"]),
        (&["delete", "cm", "-l", "nomatch=1"], "No resources found\n", &["b"]),
        (&["delete", "cm", "--all", "-o", "name"], all, &[]),
        (&["delete", "svc", "--all"], "No resources found\n", &[]),
    ];
    for (args, expected, left) in steps {
        let out = both(&twins, args);
        assert_eq!(String::from_utf8_lossy(&out.stdout).replace(&twins.ours.name, "NAMESPACE"), *expected, "{args:?}");
        republished(&twins);
        assert_eq!(names(&twins, "cm", &format!("after {args:?}")), configmaps(left), "{args:?}");
        names(&twins, "svc,deploy", &format!("after {args:?}"));
    }
}

#[test]
fn failures_match_kubectl() {
    let twins = twins("delete-fail");
    for args in [
        &["delete", "cm"][..],
        &["delete"],
        &["delete", "foos", "x"],
        &["delete", "cm", "a", "--cascade=bogus"],
        &["delete", "cm", "a", "-o", "yaml"],
        &["delete", "cm", "--all", "-l", "a=b"],
        &["delete", "cm", "a", "--now", "--grace-period=5"],
        // --all selects everything in kubectl's builder: names beside it are refused.
        &["delete", "cm", "a", "--all"],
        &["delete", "cm/a", "cm/b", "--all"],
    ] {
        both(&twins, args);
        assert_eq!(names(&twins, "cm", &format!("after {args:?}")), configmaps(&["a", "b", "settings"]));
    }
}

/// An object a finalizer holds: the delete waits for it until --timeout, or returns at once with
/// --wait=false; --force --grace-period=0 says so on stderr; --cascade is sent as kubectl sends it.
/// The orphan cascade as the cluster shows it: where a garbage collector runs (1.37), the
/// Deployment goes and its dependent stays without its owner; without one (1.20), the orphan
/// finalizer stays on the Deployment.
#[test]
fn waits_and_cascades_match_kubectl() {
    let twins = twins("delete-wait");
    let collects = support::runs_namespace_controllers();
    for ns in [&twins.ours, &twins.theirs] {
        let held = r#"{"metadata":{"finalizers":["example.com/hold"]}}"#;
        ns.kubectl_ok(&["patch", "cm", "a", "-n", &ns.name, "--type=merge", "-p", held]);
        if collects {
            let uid = ns.kubectl_ok(&["get", "deploy", "web", "-n", &ns.name, "-o", "jsonpath={.metadata.uid}"]);
            let dependent = format!(
                "apiVersion: v1\nkind: Secret\nmetadata:\n  name: dependent\n  ownerReferences:\n  - {{apiVersion: \
                 apps/v1, kind: Deployment, name: web, uid: {uid}}}\n"
            );
            let created = support::with_stdin(ns.kubectl().args(["create", "-n", &ns.name, "-f", "-"]), &dependent);
            assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
        }
    }
    both(&twins, &["delete", "cm", "a", "--timeout=1s"]);
    both(&twins, &["delete", "cm", "a", "--wait=false"]);
    both(&twins, &["delete", "deploy", "web", "--cascade=orphan", "--wait=false"]);
    both(&twins, &["delete", "svc", "web", "--force", "--grace-period=0"]);
    for ns in [&twins.ours, &twins.theirs] {
        if collects {
            ns.kubectl_ok(&["wait", "--for=delete", "--timeout=60s", "-n", &ns.name, "deploy/web"]);
            let owners = ns.kubectl_ok(&[
                "get",
                "secret",
                "dependent",
                "-n",
                &ns.name,
                "-o",
                "jsonpath={.metadata.ownerReferences}",
            ]);
            assert_eq!(owners, "", "{}: the dependent is orphaned", ns.name);
        } else {
            let finalizers =
                ns.kubectl_ok(&["get", "deploy", "web", "-n", &ns.name, "-o", "jsonpath={.metadata.finalizers}"]);
            assert_eq!(finalizers, r#"["orphan"]"#, "{}", ns.name);
            let released = r#"{"metadata":{"finalizers":null}}"#;
            ns.kubectl_ok(&["patch", "deploy/web", "-n", &ns.name, "--type=merge", "-p", released]);
        }
        ns.kubectl_ok(&["patch", "cm/a", "-n", &ns.name, "--type=merge", "-p", r#"{"metadata":{"finalizers":null}}"#]);
    }
    assert_eq!(names(&twins, "cm", "after the waits"), configmaps(&["b", "settings"]));
    assert!(names(&twins, "svc", "after the forced delete").is_empty());
}

/// `kubeupd ARGS` and `kubectl ARGS` with `input` on stdin: the same output and exit code.
fn both_with_stdin(twins: &Twins, args: &[&str], input: &str) {
    let ours = twins.ours.kubeupd().args(["-n", &twins.ours.name]).args(args).write_stdin(input).output().unwrap();
    let theirs = support::with_stdin(twins.theirs.kubectl().args(["-n", &twins.theirs.name]).args(args), input);
    twins.assert_same_output(&ours, &theirs, &format!("{args:?} with {input:?} on stdin"));
}

/// `--interactive` asks as kubectl asks and deletes only on `y` (kubectl 1.37: the first line on
/// stdin, without its surrounding blanks; 1.32 took the first word);
/// `--raw` sends a DELETE to a path and prints the answer, with kubectl's checks of the flags.
#[test]
fn interactive_and_raw_deletes_match_kubectl() {
    let twins = twins("delete-ask");
    for (args, input, left) in [
        (&["delete", "cm", "a", "b", "-i"][..], "n\n", &["a", "b", "settings"][..]),
        (&["delete", "cm", "a", "--interactive"], "", &["a", "b", "settings"]),
        (&["delete", "cm", "a", "-i"], "\ny\n", &["a", "b", "settings"]),
        (&["delete", "cm", "a", "-i"], "  Y \n", &["b", "settings"]),
        (&["delete", "cm", "nope", "-i"], "y\n", &["b", "settings"]),
        (&["delete", "cm", "-l", "nothing=here", "-i"], "y\n", &["b", "settings"]),
    ] {
        both_with_stdin(&twins, args, input);
        assert_eq!(names(&twins, "configmaps", &format!("after {args:?}")), configmaps(left));
    }
    for args in
        [&["delete", "--raw", "x"][..], &["delete", "--raw", "/x", "-i"], &["delete", "--raw", "/x", "-o", "name"]]
    {
        both(&twins, args);
    }
    let path = |ns: &support::TestNamespace| format!("/api/v1/namespaces/{}/configmaps/b", ns.name);
    let ours = twins.ours.kubeupd().args(["delete", "--raw", &path(&twins.ours)]).output().unwrap();
    let theirs = twins.theirs.kubectl().args(["delete", "--raw", &path(&twins.theirs)]).output().unwrap();
    let status = |output: &Output, ns: &support::TestNamespace| {
        let mut answer = support::twin_view(support::parse_json(&output.stdout), &ns.name);
        answer["details"]["uid"] = "UID".into();
        (output.status.code(), answer)
    };
    assert_eq!(status(&ours, &twins.ours), status(&theirs, &twins.theirs), "delete --raw");
    assert_eq!(names(&twins, "configmaps", "after delete --raw"), configmaps(&["settings"]));
    both(&twins, &["delete", "--raw", &format!("/api/v1/namespaces/{}/configmaps/b", twins.ours.name)]);
}

/// The first line `child` prints, read as it comes (`None` when it prints none within a minute),
/// with the reader of the rest; the process keeps running.
fn first_line(child: &mut std::process::Child) -> (Option<String>, std::io::BufReader<std::process::ChildStdout>) {
    use std::io::BufRead as _;
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("stdout is piped"));
    let (sender, received) = std::sync::mpsc::channel();
    let read = std::thread::spawn(move || {
        let mut line = String::new();
        let _ = reader.read_line(&mut line);
        let _ = sender.send(line);
        reader
    });
    let line = received.recv_timeout(std::time::Duration::from_secs(60)).ok();
    (line, read.join().unwrap())
}

/// A claim held by PVC protection's finalizer (which the cluster's missing controller would take
/// off): each tool prints its line at once and then waits, still running while the finalizer
/// holds the claim, and returns once the test takes the finalizer off, with the same output.
#[test]
fn a_held_delete_prints_its_line_then_waits_until_the_object_is_gone() {
    use std::io::Read as _;
    use std::process::Stdio;
    let claim = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, finalizers: \
                 [kubernetes.io/pvc-protection]}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: \
                 {storage: 1Gi}}\n";
    let twins = Twins::new("delete-held");
    let mut running = Vec::new();
    for (ns, mut command) in [(&twins.ours, twins.ours.kubeupd_process()), (&twins.theirs, twins.theirs.kubectl())] {
        ns.apply(claim);
        let mut child = command
            // A bound to the wait, should one never end.
            .args(["delete", "pvc", "data", "--timeout=60s", "-n", &ns.name])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (line, rest) = first_line(&mut child);
        let expected = format!("persistentvolumeclaim \"data\" deleted from {} namespace\n", ns.name);
        assert_eq!(line.as_deref(), Some(&expected[..]), "{}: the line comes before the wait", ns.name);
        let deleting =
            ns.kubectl_ok(&["get", "pvc", "data", "-n", &ns.name, "-o", "jsonpath={.metadata.deletionTimestamp}"]);
        assert!(!deleting.is_empty(), "{}: the claim is held", ns.name);
        assert!(child.try_wait().unwrap().is_none(), "{}: the delete waits while the finalizer holds", ns.name);
        running.push((child, line.unwrap(), rest));
    }
    let mut outputs = Vec::new();
    for (ns, (mut child, line, mut rest)) in [&twins.ours, &twins.theirs].into_iter().zip(running) {
        let released = r#"{"metadata":{"finalizers":null}}"#;
        ns.kubectl_ok(&["patch", "pvc", "data", "-n", &ns.name, "--type=merge", "-p", released]);
        let mut stdout = line;
        rest.read_to_string(&mut stdout).unwrap();
        let mut stderr = Vec::new();
        child.stderr.take().unwrap().read_to_end(&mut stderr).unwrap();
        let status = child.wait().unwrap();
        outputs.push(Output { status, stdout: stdout.into_bytes(), stderr });
    }
    twins.assert_same_output(&outputs[0], &outputs[1], "delete pvc held by its finalizer");
    assert!(outputs[0].status.success());
    assert!(names(&twins, "pvc", "after the finalizer went").is_empty());
}
