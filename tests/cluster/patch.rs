//! `kubeupd patch` against a real kube-apiserver, with kubectl as the oracle: kubeupd patches the
//! objects of one namespace, kubectl their twins in another, and the results must be the same.

use crate::support;

use std::process::Output;

use serde_json::Value;
use support::{TestNamespace, Twins, ensure_cluster_fixture, parse_json, testdata, twin_view};

/// Twin namespaces holding the same objects: kubeupd patches in `ours`, kubectl in `theirs`.
fn twins(prefix: &str) -> Twins {
    let twins = Twins::new(prefix);
    ensure_cluster_fixture(&twins.ours, "crd/gadgets.yaml");
    for ns in [&twins.ours, &twins.theirs] {
        // `create`, not `apply`: the objects need no last-applied annotation.
        for file in ["patch/app.yaml", "patch/gadget.yaml"] {
            ns.kubectl_ok(&["create", "-n", &ns.name, "-f", testdata(file).to_str().unwrap()]);
        }
    }
    twins
}

/// `kubeupd patch ARGS` in ours and `kubectl patch ARGS` in theirs: both succeed and print the same.
fn patch_both(twins: &Twins, args: &[&str]) -> Output {
    let ours = twins.ours.kubeupd().args(["patch", "-n", &twins.ours.name]).args(args).output().unwrap();
    let theirs = twins.theirs.kubectl().args(["patch", "-n", &twins.theirs.name]).args(args).output().unwrap();
    assert!(theirs.status.success(), "kubectl patch {args:?}: {}", text(&theirs.stderr));
    assert!(ours.status.success(), "kubeupd patch {args:?}: {}", text(&ours.stderr));
    assert_eq!(text(&ours.stdout), text(&theirs.stdout), "patch {args:?}");
    ours
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn container_names(deployment: &Value) -> Vec<&str> {
    deployment["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

#[test]
fn deployment_patches_match_kubectl() {
    let twins = twins("patch-deploy");
    let out = patch_both(&twins, &["deploy", "web", "-p", r#"{"spec":{"replicas":null}}"#]);
    assert_eq!(text(&out.stdout), "deployment.apps/web patched\n");
    assert_eq!(
        twins.assert_same("deploy/web", "after the patches")["spec"]["replicas"],
        1,
        "null restores the default"
    );

    patch_both(&twins, &["deployment/web", "-p", r#"{"spec":{"replicas":0}}"#]);
    assert_eq!(twins.assert_same("deploy/web", "after the patches")["spec"]["replicas"], 0);

    let add_and_change = r#"{"spec":{"template":{"spec":{"containers":[{"name":"log","image":"fluent-bit:3"},{"name":"app","resources":{"limits":{"cpu":"1"}}}]}}}}"#;
    patch_both(&twins, &["deploy", "web", "-p", add_and_change]);
    let web = twins.assert_same("deploy/web", "after the patches");
    assert_eq!(container_names(&web), ["log", "app", "sidecar"]);
    assert_eq!(
        web["spec"]["template"]["spec"]["containers"][1]["resources"]["limits"],
        serde_json::json!({"cpu": "1", "memory": "128Mi"})
    );

    patch_both(
        &twins,
        &[
            "deploy",
            "web",
            "-p",
            "spec:\n  template:\n    spec:\n      containers:\n      - {name: sidecar, $patch: delete}\n",
        ],
    );
    assert_eq!(container_names(&twins.assert_same("deploy/web", "after the patches")), ["log", "app"]);

    let json_patch = r#"[{"op":"add","path":"/spec/template/spec/containers/1","value":{"name":"mid","image":"m:1"}},{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"fluent-bit:4"}]"#;
    patch_both(&twins, &["deploy", "web", "--type", "json", "-p", json_patch]);
    let web = twins.assert_same("deploy/web", "after the patches");
    assert_eq!(container_names(&web), ["log", "mid", "app"]);
    assert_eq!(web["spec"]["template"]["spec"]["containers"][0]["image"], "fluent-bit:4");

    patch_both(
        &twins,
        &[
            "deploy",
            "web",
            "--type",
            "merge",
            "-p",
            r#"{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}"#,
        ],
    );
    let web = twins.assert_same("deploy/web", "after the patches");
    assert_eq!(container_names(&web), ["app"], "a merge patch replaces the whole list");
    assert!(web["spec"]["template"]["spec"]["containers"][0].get("ports").is_none());

    patch_both(&twins, &["deploy", "web", "--type", "merge", "-p", r#"{"metadata":{"labels":{"version":"v2"}}}"#]);
    assert_eq!(
        twins.assert_same("deploy/web", "after the patches")["metadata"]["labels"],
        serde_json::json!({"app": "web", "version": "v2"})
    );

    let out =
        patch_both(&twins, &["deploy", "web", "--type", "merge", "-p", r#"{"metadata":{"labels":{"version":"v2"}}}"#]);
    assert_eq!(text(&out.stdout), "deployment.apps/web patched (no change)\n");
}

#[test]
fn configmap_and_service_patches_match_kubectl() {
    let twins = twins("patch-cm");
    patch_both(&twins, &["cm", "settings", "-p", r#"{"data":{"mode":"staging","new":"x"}}"#]);
    patch_both(
        &twins,
        &["cm/settings", "--type", "merge", "-p", r#"{"data":{"retries":null},"metadata":{"labels":{"a":"b"}}}"#],
    );
    let json_patch = r#"[{"op":"test","path":"/data/mode","value":"staging"},{"op":"move","from":"/data/new","path":"/data/moved"},{"op":"remove","path":"/metadata/labels/a"}]"#;
    patch_both(&twins, &["cm", "settings", "--type", "json", "-p", json_patch]);
    let settings = twins.assert_same("cm/settings", "after the patches");
    assert_eq!(settings["data"], serde_json::json!({"mode": "staging", "moved": "x"}));

    patch_both(&twins, &["svc", "web", "-p", r#"{"spec":{"ports":[{"name":"metrics","port":9090}]}}"#]);
    assert_eq!(
        twins.assert_same("svc/web", "after the patches")["spec"]["ports"].as_array().unwrap().len(),
        2,
        "ports merge by port"
    );
}

#[test]
fn custom_resource_patches_match_kubectl() {
    let twins = twins("patch-cr");
    patch_both(
        &twins,
        &["gadget", "sprocket", "--type", "merge", "-p", r#"{"spec":{"size":"small","dimensions":{"height":null}}}"#],
    );
    patch_both(
        &twins,
        &[
            "gadgets.get.kubeupd.test/sprocket",
            "--type",
            "json",
            "-p",
            r#"[{"op":"add","path":"/spec/parts/-","value":"gear"}]"#,
        ],
    );
    let sprocket = twins.assert_same("gadget/sprocket", "after the patches");
    assert_eq!(
        sprocket["spec"],
        serde_json::json!({"size": "small", "parts": ["cog", "spring", "gear"], "dimensions": {"width": 3}})
    );

    // Strategic merge patches do not apply to custom resources: both fail, and kubeupd says what to do.
    let ours = twins
        .ours
        .kubeupd()
        .args(["patch", "gadget", "sprocket", "-n", &twins.ours.name, "-p", r#"{"spec":{"size":"x"}}"#])
        .output()
        .unwrap();
    assert_eq!(ours.status.code(), Some(1));
    assert_eq!(
        text(&ours.stderr),
        "error: strategic merge patch does not apply to custom resources such as gadget.get.kubeupd.test/sprocket: use --type merge (or --type json)\n"
    );
    let theirs = twins
        .theirs
        .kubectl()
        .args(["patch", "gadget", "sprocket", "-n", &twins.theirs.name, "-p", r#"{"spec":{"size":"x"}}"#])
        .output()
        .unwrap();
    assert_eq!(theirs.status.code(), Some(1));
    assert_eq!(twins.assert_same("gadget/sprocket", "after the patches")["spec"]["size"], "small");
    let dry = twins
        .ours
        .kubeupd()
        .args(["patch", "gadget", "sprocket", "-n", &twins.ours.name, "--dry-run=client", "-p", "{}"])
        .output()
        .unwrap();
    assert!(text(&dry.stderr).contains("use --type merge"), "{}", text(&dry.stderr));
}

#[test]
fn subresources_match_kubectl() {
    let twins = twins("patch-sub");
    let out = patch_both(&twins, &["deploy", "web", "--subresource", "scale", "-p", r#"{"spec":{"replicas":5}}"#]);
    assert_eq!(text(&out.stdout), "scale.autoscaling/web patched\n");
    assert_eq!(twins.assert_same("deploy/web", "after the patches")["spec"]["replicas"], 5);
    patch_both(
        &twins,
        &[
            "deploy",
            "web",
            "--subresource",
            "status",
            "--type",
            "merge",
            "-p",
            r#"{"status":{"observedGeneration":7}}"#,
        ],
    );
    let web = twins.assert_same("deploy/web", "after the patches");
    assert_eq!(web["status"]["observedGeneration"], 7);
    let out = patch_both(
        &twins,
        &["deploy", "web", "--subresource", "scale", "-p", r#"{"spec":{"replicas":5}}"#, "-o", "name"],
    );
    assert_eq!(text(&out.stdout), "scale.autoscaling/web\n");
}

#[test]
fn dry_runs_change_nothing_and_print_what_would_be() {
    let twins = twins("patch-dry");
    let patch = r#"{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}"#;
    for mode in ["client", "server"] {
        let before = twins.assert_same("deploy/web", "after the patches");
        let out = patch_both(&twins, &["deploy", "web", "-p", patch, &format!("--dry-run={mode}")]);
        assert_eq!(text(&out.stdout), "deployment.apps/web patched\n", "kubectl words dry runs this way too");
        assert_eq!(twins.assert_same("deploy/web", "after the patches"), before, "--dry-run={mode} changed the object");
    }
    for (mode, patch_type, patch) in [
        ("client", "strategic", patch),
        ("client", "merge", r#"{"metadata":{"labels":{"a":"b"}}}"#),
        ("client", "json", r#"[{"op":"replace","path":"/spec/replicas","value":1}]"#),
        ("server", "strategic", patch),
    ] {
        let dry_run = format!("--dry-run={mode}");
        let args = ["deploy", "web", "--type", patch_type, "-p", patch, &dry_run, "-o", "json"];
        let ours = twins.ours.kubeupd().args(["patch", "-n", &twins.ours.name]).args(args).output().unwrap();
        let theirs = twins.theirs.kubectl().args(["patch", "-n", &twins.theirs.name]).args(args).output().unwrap();
        assert!(ours.status.success() && theirs.status.success(), "{args:?}: {}", text(&ours.stderr));
        assert_eq!(
            twin_view(parse_json(&ours.stdout), &twins.ours.name),
            twin_view(parse_json(&theirs.stdout), &twins.theirs.name),
            "{args:?}"
        );
    }
}

#[test]
fn patch_names_objects_from_files() {
    let twins = twins("patch-file");
    let app = testdata("patch/app.yaml");
    let out = patch_both(
        &twins,
        &["-f", app.to_str().unwrap(), "--type", "merge", "-p", r#"{"metadata":{"annotations":{"patched":"yes"}}}"#],
    );
    assert_eq!(text(&out.stdout), "deployment.apps/web patched\nconfigmap/settings patched\nservice/web patched\n");
    assert_eq!(twins.assert_same("cm/settings", "after the patches")["metadata"]["annotations"]["patched"], "yes");

    let patch_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(patch_file.path(), "data:\n  mode: from-file\n").unwrap();
    patch_both(&twins, &["cm", "settings", "--patch-file", patch_file.path().to_str().unwrap()]);
    assert_eq!(twins.assert_same("cm/settings", "after the patches")["data"]["mode"], "from-file");
}

/// Runs kubeupd, expects it to fail with a message containing `expected`, and the deployment unchanged.
fn assert_refused(ns: &TestNamespace, args: &[&str], expected: &str) {
    let before = ns.kubectl_ok(&["get", "deploy", "web", "-n", &ns.name, "-o", "json"]);
    let out = ns.kubeupd().args(["-n", &ns.name]).args(args).output().unwrap();
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(stderr.contains(expected), "{args:?}: {stderr:?} should contain {expected:?}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr:?}");
    assert!(out.stdout.is_empty(), "{args:?} printed {}", text(&out.stdout));
    let after = ns.kubectl_ok(&["get", "deploy", "web", "-n", &ns.name, "-o", "json"]);
    assert_eq!(parse_json(after.as_bytes()), parse_json(before.as_bytes()), "{args:?} changed the object");
}

#[test]
fn bad_patches_are_refused_and_change_nothing() {
    let ns = TestNamespace::new("patch-bad");
    ns.kubectl_ok(&["create", "-n", &ns.name, "-f", testdata("patch/app.yaml").to_str().unwrap()]);
    let json = |patch: &'static str| ["patch", "deploy", "web", "--type", "json", "-p", patch];
    assert_refused(&ns, &json(r#"[{"op":"replace","path":"/spec/replicas""#), "unable to parse");
    assert_refused(
        &ns,
        &json(r#"{"op":"replace","path":"/spec/replicas","value":1}"#),
        "invalid JSON patch: expected a list of operations",
    );
    assert_refused(&ns, &json(r#"[{"op":"frobnicate","path":"/spec"}]"#), "invalid JSON patch");
    assert_refused(
        &ns,
        &json(r#"[{"op":"replace","path":"/spec/nothing/here","value":1}]"#),
        "error: cannot patch deployment.apps/web: JSON patch operation 0 (replace /spec/nothing/here): this path does not exist",
    );
    assert_refused(
        &ns,
        &json(
            r#"[{"op":"replace","path":"/spec/replicas","value":1},{"op":"test","path":"/spec/replicas","value":9}]"#,
        ),
        "JSON patch operation 1 (test /spec/replicas): test failed: the value is 1, the test expects 9",
    );
    assert_refused(
        &ns,
        &["patch", "deploy", "web", "-p", "[1, 2]"],
        "a strategic merge patch must be a JSON object, not [1,2]",
    );
    assert_refused(&ns, &["patch", "deploy", "web", "-p", "spec: [unclosed"], "unable to parse");
    assert_refused(
        &ns,
        &["patch", "deploy", "web", "-p", r#"{"spec":{"replicas":-1}}"#],
        "The Deployment \"web\" is invalid: spec.replicas",
    );
    assert_refused(
        &ns,
        &["patch", "deploy", "nope", "-p", "{}"],
        "Error from server (NotFound): deployments.apps \"nope\" not found",
    );
    let unknown_type =
        ns.kubeupd().args(["patch", "deploy", "web", "-n", &ns.name, "--type", "yaml", "-p", "{}"]).output().unwrap();
    assert_eq!(
        (unknown_type.status.code(), text(&unknown_type.stderr)),
        (Some(1), "error: --type must be one of [json merge strategic], not \"yaml\"\n".to_string())
    );
}

#[test]
fn verbose_logs_show_the_requests() {
    let ns = TestNamespace::new("patch-verbose");
    ns.kubectl_ok(&["create", "-n", &ns.name, "-f", testdata("patch/app.yaml").to_str().unwrap()]);
    let out = ns
        .kubeupd()
        .args(["patch", "cm", "settings", "-n", &ns.name, "-p", r#"{"data":{"a":"b"}}"#, "-v=6"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let log = text(&out.stderr);
    assert!(log.contains("GET ") && log.contains("PATCH ") && log.contains("fieldManager=kubectl-patch"), "{log}");
}

/// A printer that cannot be made (a template that does not parse, an unknown format, a template
/// format without a template) fails after the patch, as in kubectl: the objects are patched, each
/// failure is printed, and the exit status is 1. A template that fails on the object, too.
#[test]
fn a_broken_printer_fails_after_the_patch_as_kubectls() {
    let twins = twins("patch-printer");
    for ns in [&twins.ours, &twins.theirs] {
        ns.kubectl_ok(&["create", "cm", "other", "-n", &ns.name]);
    }
    let outputs: [&[&str]; 5] = [
        &["-o", "go-template", "--template", "{{.bad"],
        &["-o", "go-template", "--template", "x{{index .data.a 5}}y"],
        &["-o", "foo"],
        &["-o", "jsonpath"],
        &["-o", "jsonpath={.x"],
    ];
    // Go's map dump in a failed template's debugging output shows what differs between twins.
    let volatile = regex::Regex::new(r#"(uid|resourceVersion|creationTimestamp|time)"?:"?[^",\] ]*"#).unwrap();
    for (step, output) in outputs.iter().enumerate() {
        let patch = format!(r#"{{"data":{{"step":"{step}"}}}}"#);
        for names in [&["settings"][..], &["settings", "other"]] {
            let args = [&["cm"], names, &["-p", &patch], output].concat();
            let (ours, theirs) = twins.run_both(&[&["patch"], &args[..]].concat());
            let masked = |output: &Output| Output {
                stdout: volatile.replace_all(&text(&output.stdout), "$1 X").into_owned().into_bytes(),
                ..output.clone()
            };
            twins.assert_same_output(&masked(&ours), &masked(&theirs), &format!("{args:?}"));
            assert_eq!(ours.status.code(), Some(1), "{args:?}");
            twins.assert_same("configmaps", &format!("after {args:?}"));
            let patched = twins.ours.kubectl_ok(&["get", "cm", "settings", "-n", &twins.ours.name, "-o", "json"]);
            assert_eq!(parse_json(patched.as_bytes())["data"]["step"], step.to_string(), "{args:?}: patched");
        }
    }
}
