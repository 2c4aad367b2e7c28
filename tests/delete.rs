//! `kubeupd delete` against a real kube-apiserver, with kubectl as the oracle on twin namespaces:
//! the same output and exit code, and the same objects left.

mod support;

use std::process::Output;

use support::{Twins, assert_same_output, testdata};

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

/// `kubeupd ARGS` in ours and `kubectl ARGS` in theirs: the same output and exit code.
fn both(twins: &Twins, args: &[&str]) -> Output {
    let (ours, theirs) = twins.run_both(args);
    assert_same_output(&ours, &theirs, &format!("{args:?}"));
    ours
}

fn names(twins: &Twins, what: &str, context: &str) -> Vec<String> {
    let items = twins.assert_same(what, context);
    items.as_array().unwrap().iter().map(|item| item["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn deletes_match_kubectl() {
    let twins = twins("delete");
    let app = testdata("patch/app.yaml");
    let app = app.to_str().unwrap();
    let steps: &[(&[&str], &str, &[&str])] = &[
        (&["delete", "cm", "settings"], "configmap \"settings\" deleted\n", &["a", "b"]),
        (&["delete", "cm", "settings"], "", &["a", "b"]),
        (&["delete", "cm", "settings", "--ignore-not-found"], "", &["a", "b"]),
        (&["delete", "cm/a", "cm/nope", "svc/nope"], "configmap \"a\" deleted\n", &["b"]),
        (&["delete", "svc", "web", "--dry-run=server"], "service \"web\" deleted (server dry run)\n", &["b"]),
        (&["delete", "svc", "web", "--dry-run=client"], "service \"web\" deleted (dry run)\n", &["b"]),
        (&["delete", "-f", app], "deployment.apps \"web\" deleted\nservice \"web\" deleted\n", &["b"]),
        (&["delete", "-f", app, "--ignore-not-found"], "", &["b"]),
        (&["delete", "cm", "-l", "nomatch=1"], "No resources found\n", &["b"]),
        (&["delete", "cm", "--all", "-o", "name"], "configmap/b\n", &[]),
        (&["delete", "cm", "--all"], "No resources found\n", &[]),
    ];
    for (args, expected, left) in steps {
        let out = both(&twins, args);
        assert_eq!(String::from_utf8_lossy(&out.stdout), *expected, "{args:?}");
        assert_eq!(names(&twins, "cm", &format!("after {args:?}")), *left, "{args:?}");
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
    ] {
        both(&twins, args);
        assert_eq!(names(&twins, "cm", &format!("after {args:?}")), ["a", "b", "settings"]);
    }
}

/// An object a finalizer holds: the delete waits for it until --timeout, or returns at once with
/// --wait=false; --force --grace-period=0 says so on stderr; --cascade is sent as kubectl sends it
/// (the orphan finalizer, which nothing removes here).
#[test]
fn waits_and_cascades_match_kubectl() {
    let twins = twins("delete-wait");
    for ns in [&twins.ours, &twins.theirs] {
        let held = r#"{"metadata":{"finalizers":["example.com/hold"]}}"#;
        ns.kubectl_ok(&["patch", "cm", "a", "-n", &ns.name, "--type=merge", "-p", held]);
    }
    both(&twins, &["delete", "cm", "a", "--timeout=1s"]);
    both(&twins, &["delete", "cm", "a", "--wait=false"]);
    both(&twins, &["delete", "deploy", "web", "--cascade=orphan", "--wait=false"]);
    both(&twins, &["delete", "svc", "web", "--force", "--grace-period=0"]);
    for ns in [&twins.ours, &twins.theirs] {
        let finalizers =
            ns.kubectl_ok(&["get", "deploy", "web", "-n", &ns.name, "-o", "jsonpath={.metadata.finalizers}"]);
        assert_eq!(finalizers, r#"["orphan"]"#, "{}", ns.name);
        for what in ["cm/a", "deploy/web"] {
            ns.kubectl_ok(&[
                "patch",
                what,
                "-n",
                &ns.name,
                "--type=merge",
                "-p",
                r#"{"metadata":{"finalizers":null}}"#,
            ]);
        }
    }
    assert_eq!(names(&twins, "cm", "after the waits"), ["b", "settings"]);
    assert!(names(&twins, "svc", "after the forced delete").is_empty());
}

/// `kubeupd ARGS` and `kubectl ARGS` with `input` on stdin: the same output and exit code.
fn both_with_stdin(twins: &Twins, args: &[&str], input: &str) {
    let ours = twins.ours.kubeupd().args(["-n", &twins.ours.name]).args(args).write_stdin(input).output().unwrap();
    let theirs = support::with_stdin(twins.theirs.kubectl().args(["-n", &twins.theirs.name]).args(args), input);
    assert_same_output(&ours, &theirs, &format!("{args:?} with {input:?} on stdin"));
}

/// `--interactive` asks as kubectl asks and deletes only on `y` (the first word on stdin);
/// `--raw` sends a DELETE to a path and prints the answer, with kubectl's checks of the flags.
#[test]
fn interactive_and_raw_deletes_match_kubectl() {
    let twins = twins("delete-ask");
    for (args, input, left) in [
        (&["delete", "cm", "a", "b", "-i"][..], "n\n", &["a", "b", "settings"][..]),
        (&["delete", "cm", "a", "--interactive"], "", &["a", "b", "settings"]),
        (&["delete", "cm", "a", "-i"], "\n  Y\n", &["b", "settings"]),
        (&["delete", "cm", "nope", "-i"], "y\n", &["b", "settings"]),
        (&["delete", "cm", "-l", "nothing=here", "-i"], "y\n", &["b", "settings"]),
    ] {
        both_with_stdin(&twins, args, input);
        assert_eq!(names(&twins, "configmaps", &format!("after {args:?}")), left);
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
    assert_eq!(names(&twins, "configmaps", "after delete --raw"), ["settings"]);
    both(&twins, &["delete", "--raw", &format!("/api/v1/namespaces/{}/configmaps/b", twins.ours.name)]);
}
