//! `-k DIR` on the verbs that take `-f`, on the real apiserver: what `kubeupd apply -k` makes is
//! what `kubectl apply -k` makes (objects and field ownership), and the other verbs see the same
//! objects.

use crate::support;

use support::{Twins, testdata};

fn run_both(twins: &Twins, args: &[&str]) -> (std::process::Output, std::process::Output) {
    let ours = twins.ours.kubeupd().args(args).args(["-n", &twins.ours.name]).output().unwrap();
    let theirs = twins.theirs.kubectl().args(args).args(["-n", &twins.theirs.name]).output().unwrap();
    (ours, theirs)
}

#[test]
fn apply_k_matches_kubectl_apply_k() {
    let twins = Twins::new("kust-apply");
    for (case, server_side) in [
        ("kustomize/cases/workload", false),
        ("kustomize/cases/generators", false),
        ("kustomize/cases/generators", true),
    ] {
        let dir = testdata(case);
        let dir = dir.to_str().unwrap();
        let mut args = vec!["apply", "-k", dir];
        if server_side {
            args.extend(["--server-side", "--force-conflicts"]);
        }
        let (ours, theirs) = run_both(&twins, &args);
        assert!(theirs.status.success(), "{case}: kubectl: {}", String::from_utf8_lossy(&theirs.stderr));
        assert!(ours.status.success(), "{case}: kubeupd: {}", String::from_utf8_lossy(&ours.stderr));
        for what in ["deployments", "configmaps", "secrets"] {
            twins.assert_same(what, case);
        }
        // Nothing is left to change: diff -k exits 0 for both.
        let (ours, theirs) = run_both(&twins, &["diff", "-k", dir]);
        assert_eq!(theirs.status.code(), Some(0), "{case}: kubectl diff: {}", String::from_utf8_lossy(&theirs.stdout));
        assert_eq!(ours.status.code(), Some(0), "{case}: kubeupd diff: {}", String::from_utf8_lossy(&ours.stdout));
    }
    // get -k names the built objects.
    let dir = testdata("kustomize/cases/workload");
    let (ours, theirs) = run_both(&twins, &["get", "-k", dir.to_str().unwrap(), "-o", "name"]);
    assert!(ours.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
    assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout));
}

#[test]
fn k_and_f_together_are_refused() {
    let twins = Twins::new("kust-flags");
    let dir = testdata("kustomize/cases/base");
    let output = twins.ours.kubeupd().args(["apply", "-k", dir.to_str().unwrap(), "-f", "x.yaml"]).output().unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr) == "error: only one of -f or -k can be specified\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = twins.ours.kubeupd().args(["apply"]).output().unwrap();
    assert!(!output.status.success());
}

#[test]
fn a_bad_kustomization_applies_nothing() {
    let twins = Twins::new("kust-bad");
    let dir = testdata("kustomize/errors/no-match");
    let (ours, theirs) = run_both(&twins, &["apply", "-k", dir.to_str().unwrap()]);
    assert_eq!(theirs.status.code(), Some(1));
    assert_eq!(ours.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&ours.stderr).contains("no resource matches strategic merge patch"));
    let left = twins.ours.kubectl_ok(&["get", "configmaps", "-n", &twins.ours.name, "-o", "name"]);
    assert!(!left.contains("configmap/c"), "{left}");
}

#[test]
fn apply_k_prunes_an_applyset_as_kubectl_does() {
    let twins = Twins::new("kust-prune");
    let dir = tempfile::tempdir().unwrap();
    let write = |kustomization: &str| {
        std::fs::write(dir.path().join("kustomization.yaml"), kustomization).unwrap();
        std::fs::write(
            dir.path().join("settings.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: info}\n",
        )
        .unwrap();
    };
    let apply = |twins: &Twins| {
        let args = ["apply", "-k", dir.path().to_str().unwrap(), "--prune", "--applyset=app"];
        let ours = twins.ours.kubeupd().args(args).args(["-n", &twins.ours.name]).output().unwrap();
        let mut theirs = twins.theirs.kubectl();
        theirs.env("KUBECTL_APPLYSET", "true").args(args).args(["-n", &twins.theirs.name]);
        let theirs = theirs.output().unwrap();
        assert!(ours.status.success(), "kubeupd: {}", String::from_utf8_lossy(&ours.stderr));
        assert!(theirs.status.success(), "kubectl: {}", String::from_utf8_lossy(&theirs.stderr));
        assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout));
        String::from_utf8_lossy(&ours.stdout).into_owned()
    };
    // A generated ConfigMap (its name hashed) and a plain one; then the generator's literal changes,
    // so its hashed name does, and the plain one is dropped: both old objects are pruned.
    // (The members' part-of label is each set's id, which differs between the twins: names are
    // compared.)
    let names = |twins: &Twins| {
        let list = |namespace: &support::TestNamespace| {
            namespace.kubectl_ok(&["get", "configmaps", "-n", &namespace.name, "-o", "name"])
        };
        let (ours, theirs) = (list(&twins.ours), list(&twins.theirs));
        assert_eq!(ours, theirs);
        ours
    };
    write("resources: [settings.yaml]\nconfigMapGenerator:\n- name: app\n  literals: [mode=a]\n");
    apply(&twins);
    let before = names(&twins);
    assert!(before.contains("configmap/settings\n"), "{before}");
    write("configMapGenerator:\n- name: app\n  literals: [mode=b]\n");
    let stdout = apply(&twins);
    assert!(stdout.contains("configmap/settings pruned"), "{stdout}");
    assert_eq!(stdout.matches(" pruned").count(), 2, "{stdout}");
    let after = names(&twins);
    assert!(!after.contains("configmap/settings\n") && after != before, "{after}");
}

/// The trees of the corpus (testdata/kustomize) that kubectl applies on the test cluster, by
/// group. Left out: trees kubectl refuses there (kinds without their definition, a namespace the
/// cluster lacks, objects the server finds invalid), and trees whose objects would stay or harm
/// the shared cluster: a Namespace (its controller races `delete -k` for the objects in it), a
/// PersistentVolumeClaim (no controller removes its protection finalizer, so `delete` waits on),
/// an APIService or an admission webhook (served by nothing, they fail other tests' requests).
const CASES_THAT_APPLY: &[&str] = &[
    "base",
    "build-metadata/base",
    "build-metadata/labels-only",
    "comments",
    "component",
    "generator-unknown-behavior",
    "generators",
    "generators-binary",
    "images-replicas",
    "labels",
    "labels-linked/base",
    "labels-linked/patched",
    "labels-linked/relabel",
    "null-fields",
    "null-label-values",
    "patch-renames",
    "patches",
    "replacements-linked/scalars",
    "replacements-linked/whole-map",
    "replacements-regex-selectors",
    "unterminated-block-scalar",
    "workload",
];

const UPSTREAM_THAT_APPLY: &[&str] = &[
    "combineConfigs/base",
    "configureBuiltinPlugin",
    "helloWorld",
    "image",
    "ldap/base",
    "ldap/overlays/production",
    "ldap/overlays/staging",
    "multibases",
    "multibases/dev",
    "replacements-reference",
    "springboot/base",
    "springboot/overlays/production",
    "springboot/overlays/staging",
    "vars-migration/replacements",
    "vars-migration/vars",
    "wordpress",
    "wordpress-replacements",
];

/// Real trees: their cluster-scoped objects (ClusterRoles, CustomResourceDefinitions) are shared by
/// the twins, so kubectl's turn ends (its `delete -k` included) before kubeupd's starts. No two
/// trees hold the same one, so different trees run at once.
const REAL_THAT_APPLY: &[&str] = &[
    "argo-cd/manifests/base",
    "argo-cd/manifests/base/config",
    "argo-cd/manifests/cluster-rbac",
    "argo-cd/manifests/ha/base",
    "argo-cd/manifests/ha/namespace-install",
    "argo-cd/manifests/namespace-install",
    "external-dns/kustomize",
    "flux2/manifests/policies",
    "flux2/manifests/rbac",
    "kubebuilder/config/crd",
    "kubeflow/applications/jupyter/notebook-controller/upstream/crd",
    "kubeflow/applications/katib/upstream/components/crd",
    "kubernetes-hack/kustomize",
    "microservices-demo/kustomize",
    "microservices-demo/kustomize/tests/memorystore-with-all-components",
    "microservices-demo/kustomize/tests/spanner-with-all-components",
];

/// A `KUBECTL_EXTERNAL_DIFF` program for comparing twins' diffs: it prints the two directories'
/// kinds (LIVE, MERGED) and every file in them without what the server makes per object (uids,
/// times, versions, cluster IPs), and exits 1 as diff does on a difference.
fn twin_diff_program(dir: &std::path::Path) -> std::path::PathBuf {
    let program = dir.join("twin-diff");
    std::fs::write(
        &program,
        "#!/bin/sh\necho \"$(basename \"$1\" | cut -c1-4) $(basename \"$2\" | cut -c1-6)\"\n\
         for f in \"$1\"/* \"$2\"/*; do [ -e \"$f\" ] || continue; echo \"== $(basename \"$(dirname \"$f\")\" | cut -c1-4) $(basename \"$f\")\"; \
         grep -v -E -e '(uid|creationTimestamp|resourceVersion|clusterIP):' -e '^ *- [0-9]+[.][0-9]+[.][0-9]+[.][0-9]+$' \"$f\"; done\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    program
}

/// What one tool printed for `diff -k`, `apply -k` and `delete -k` of a tree, and the objects
/// the apply made, as they compare with their twins.
struct Lifecycle {
    outputs: Vec<(&'static str, std::process::Output)>,
    objects: Vec<serde_json::Value>,
}

/// `diff -k` (through `program`), `apply -k`, `diff -k` again, the objects made, and `delete -k`
/// of `dir` by one tool in `namespace`.
fn lifecycle(namespace: &support::TestNamespace, ours: bool, dir: &str, program: &std::path::Path) -> Lifecycle {
    let run = |args: &[&str], external_diff: bool| {
        let mut command = if ours { namespace.kubeupd_process() } else { namespace.kubectl() };
        command.args(args).args(["-k", dir, "-n", &namespace.name]);
        if external_diff {
            command.env("KUBECTL_EXTERNAL_DIFF", program);
        }
        command.output().expect("the tool runs")
    };
    let mut outputs = vec![("diff before apply", run(&["diff"], true))];
    outputs.push(("apply", support::without_apply_summary(run(&["apply"], false))));
    outputs.push(("diff after apply", run(&["diff"], false)));
    let listed = namespace
        .kubectl()
        .args(["get", "-k", dir, "-n", &namespace.name, "-o", "json", "--show-managed-fields"])
        .output()
        .unwrap();
    // A Job's selector and labels hold its own uid, which the server makes.
    let mut text = String::from_utf8_lossy(&listed.stdout).into_owned();
    let listed = support::parse_json(&listed.stdout);
    let items = listed.get("items").and_then(serde_json::Value::as_array).cloned().unwrap_or_else(|| vec![listed]);
    for uid in items.iter().filter_map(|item| item["metadata"]["uid"].as_str()) {
        text = text.replace(uid, "UID");
    }
    let view = support::twin_view(support::parse_json(text.as_bytes()), &namespace.name);
    // One object is printed alone, several as a List.
    let mut objects = match view.get("items") {
        Some(items) => items.as_array().cloned().unwrap_or_default(),
        None => vec![view],
    };
    // The server's own status (a definition's conditions and their times) is not the tools'.
    for object in objects.iter_mut().filter_map(serde_json::Value::as_object_mut) {
        object.remove("status");
    }
    outputs.push(("delete", run(&["delete"], false)));
    Lifecycle { outputs, objects }
}

/// `diff -k`, `apply -k`, `delete -k` of every tree in `trees` (under testdata/kustomize/`group`)
/// by kubeupd and kubectl on twins: the same output lines, exit codes and objects, field
/// ownership included.
fn assert_lifecycles_match(prefix: &str, group: &str, trees: &[&str]) {
    let twins = Twins::new(prefix);
    let scratch = tempfile::tempdir().unwrap();
    let program = twin_diff_program(scratch.path());
    for tree in trees {
        assert_lifecycle_matches(&twins, &program, &format!("{group}/{tree}"));
    }
}

/// [`assert_lifecycles_match`] for trees no two of which hold the same cluster-scoped object
/// (definitions, cluster roles), several at once, each worker on twins of its own: most of a
/// lifecycle is kubectl's `delete` waiting for the objects to be gone.
fn assert_lifecycles_match_at_once(prefix: &str, group: &str, trees: &[&str]) {
    const WORKERS: usize = 4;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let scratch = tempfile::tempdir().unwrap();
    let program = twin_diff_program(scratch.path());
    std::thread::scope(|scope| {
        for worker in 0..WORKERS {
            let (next, program) = (&next, &program);
            scope.spawn(move || {
                let twins = Twins::new(&format!("{prefix}{worker}"));
                while let Some(tree) = trees.get(next.fetch_add(1, std::sync::atomic::Ordering::SeqCst)) {
                    assert_lifecycle_matches(&twins, program, &format!("{group}/{tree}"));
                }
            });
        }
    });
}

/// One tree's lifecycle by kubectl, then by kubeupd, on `twins`.
fn assert_lifecycle_matches(twins: &Twins, program: &std::path::Path, tree: &str) {
    let dir = testdata(&format!("kustomize/{tree}"));
    let dir = dir.to_str().unwrap();
    let theirs = lifecycle(&twins.theirs, false, dir, program);
    let ours = lifecycle(&twins.ours, true, dir, program);
    for ((step, ours), (_, theirs)) in ours.outputs.iter().zip(&theirs.outputs) {
        twins.assert_same_output(ours, theirs, &format!("{tree}: {step}"));
    }
    assert!(!theirs.objects.is_empty(), "{tree}: kubectl applied nothing");
    assert_eq!(ours.objects, theirs.objects, "{tree}: objects differ (left: kubeupd, right: kubectl)");
}

#[test]
fn k_lifecycles_of_the_cases_match_kubectl() {
    assert_lifecycles_match("kust-cases", "cases", CASES_THAT_APPLY);
}

#[test]
fn k_lifecycles_of_kustomizes_examples_match_kubectl() {
    assert_lifecycles_match("kust-upstream", "upstream", UPSTREAM_THAT_APPLY);
}

#[test]
fn k_lifecycles_of_the_real_trees_match_kubectl() {
    assert_lifecycles_match_at_once("kust-real", "real", REAL_THAT_APPLY);
}
