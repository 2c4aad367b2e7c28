//! `apply --prune` against the real apiserver, with kubectl 1.37 as the reference: ApplySets
//! (`KUBECTL_APPLYSET=true kubectl apply --prune --applyset=...`) and kubectl's older
//! label-selector prune; a failure between applying and pruning (the fault proxy); and the
//! previews of `diff --prune` (`--summary`, `-o json`).
use crate::support;

use std::process::Output;

use base64::Engine as _;
use serde_json::Value;
use sha2::Digest as _;
use support::fault_proxy::{Fault, Rig};
use support::{TestNamespace, Twins, parse_json, with_stdin};

fn configmap(name: &str, labels: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, labels: {{{labels}}}}}\ndata: {{k: v}}\n")
}

/// The ConfigMaps `names`, as one file.
fn configmaps(names: &[&str], labels: &str) -> String {
    names.iter().map(|name| configmap(name, labels)).collect::<Vec<_>>().join("---\n")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `kubeupd apply ARGS -f -` in `namespace`, `yaml` on stdin.
fn kubeupd_apply(namespace: &TestNamespace, args: &[&str], yaml: &str) -> Output {
    with_stdin(namespace.kubeupd_process().args(["apply", "-n", &namespace.name]).args(args).args(["-f", "-"]), yaml)
}

/// `kubectl apply ARGS -f -` in `namespace` with ApplySets turned on, `yaml` on stdin.
fn kubectl_apply(namespace: &TestNamespace, args: &[&str], yaml: &str) -> Output {
    let mut command = namespace.kubectl();
    command.env("KUBECTL_APPLYSET", "true").args(["apply", "-n", &namespace.name]).args(args).args(["-f", "-"]);
    with_stdin(&mut command, yaml)
}

fn names(namespace: &TestNamespace, what: &str) -> String {
    namespace.kubectl_ok(&["get", what, "-n", &namespace.name, "-o", "name"])
}

/// What [`names`] lists of a namespace's configmaps when the tests made `made`: the controllers'
/// `kube-root-ca.crt` too, where they run, which no prune may take.
fn configmaps_named(made: &[&str]) -> String {
    let mut all: Vec<&str> = made.to_vec();
    if support::runs_namespace_controllers() {
        all.push("kube-root-ca.crt");
    }
    all.sort_unstable();
    all.iter().map(|name| format!("configmap/{name}\n")).collect()
}

fn parent_id(namespace: &TestNamespace, parent: &str) -> String {
    let path = "jsonpath={.metadata.labels.applyset\\.kubernetes\\.io/id}";
    namespace.kubectl_ok(&["get", parent, "-n", &namespace.name, "-o", path])
}

#[test]
fn an_applyset_prunes_what_the_configuration_dropped_as_kubectl_does() {
    let twins = Twins::new("prune-set");
    let three = configmaps(&["a", "b", "c"], "");
    let two = configmaps(&["a", "b"], "");
    let set = ["--prune", "--applyset=app"];
    let ours = kubeupd_apply(&twins.ours, &set, &three);
    let theirs = kubectl_apply(&twins.theirs, &set, &three);
    assert_eq!(text(&ours.stdout), text(&theirs.stdout), "{}", text(&ours.stderr));
    assert!(ours.status.success() && theirs.status.success());
    // The dry runs report the prune and delete nothing.
    let server = [&set[..], &["--dry-run=server"]].concat();
    let (ours, theirs) = (kubeupd_apply(&twins.ours, &server, &two), kubectl_apply(&twins.theirs, &server, &two));
    assert_eq!(text(&ours.stdout), text(&theirs.stdout));
    assert!(text(&ours.stdout).ends_with("configmap/c pruned (server dry run)\n"), "{}", text(&ours.stdout));
    let ours = kubeupd_apply(&twins.ours, &[&set[..], &["--dry-run=client"]].concat(), &two);
    assert!(text(&ours.stdout).ends_with("configmap/c pruned (dry run)\n"), "{}", text(&ours.stdout));
    assert_eq!(names(&twins.ours, "configmaps"), configmaps_named(&["a", "b", "c"]));
    // The prune itself, waiting until the pruned object is gone.
    let ours = kubeupd_apply(&twins.ours, &[&set[..], &["--wait-ready", "--timeout=30s"]].concat(), &two);
    let theirs = kubectl_apply(&twins.theirs, &set, &two);
    assert!(ours.status.success(), "{}", text(&ours.stderr));
    let ours_out = text(&ours.stdout);
    // kubectl's lines, with the waits' between them: the prune comes once the objects applied
    // are ready, and then the wait until the pruned one is gone.
    let applied: String =
        ours_out.lines().filter(|line| !line.contains(" after ")).map(|line| format!("{line}\n")).collect();
    assert_eq!(applied, text(&theirs.stdout), "kubeupd:\n{ours_out}");
    assert!(ours_out.contains("configmap/c deleted after "), "{ours_out}");
    assert!(ours_out.find("configmap/b ready after ") < ours_out.find("configmap/c pruned"), "{ours_out}");
    assert_eq!(names(&twins.ours, "configmaps"), configmaps_named(&["a", "b"]));
    assert_eq!(names(&twins.theirs, "configmaps"), configmaps_named(&["a", "b"]));
    // The parent records the same kinds and namespaces as kubectl's, as kubeupd's tool.
    let annotations = |namespace: &TestNamespace| {
        let secret = namespace.kubectl_ok(&["get", "secret", "app", "-n", &namespace.name, "-o", "json"]);
        parse_json(secret.as_bytes())["metadata"]["annotations"].clone()
    };
    let (ours, theirs) = (annotations(&twins.ours), annotations(&twins.theirs));
    for key in ["applyset.kubernetes.io/contains-group-kinds", "applyset.kubernetes.io/additional-namespaces"] {
        assert_eq!(ours[key], theirs[key], "{key}");
    }
    assert_eq!(ours["applyset.kubernetes.io/tooling"], format!("kubeupd/{}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn the_set_id_is_kubectls_so_kubeupd_takes_over_kubectls_members() {
    let namespace = TestNamespace::new("prune-id");
    let set = ["--prune", "--applyset=app"];
    assert!(kubectl_apply(&namespace, &set, &configmaps(&["a", "b", "c"], "")).status.success());
    let kubectls = parent_id(&namespace, "secret/app");
    // Another tool's set is refused, and nothing is written.
    let refused = kubeupd_apply(&namespace, &set, &configmaps(&["a"], ""));
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        "error: ApplySet parent object \"secrets./app\" already exists and is managed by tooling \"kubectl\" instead of \"kubeupd\"\n"
    );
    // Without kubectl's parent, kubeupd's parent for the same name has kubectl's id, and the
    // members kubectl labelled are its own.
    namespace.kubectl_ok(&["delete", "secret", "app", "-n", &namespace.name]);
    let taken = kubeupd_apply(&namespace, &set, &configmaps(&["a", "b", "c"], ""));
    assert!(taken.status.success(), "{}", text(&taken.stderr));
    assert_eq!(parent_id(&namespace, "secret/app"), kubectls);
    let pruned = kubeupd_apply(&namespace, &set, &configmaps(&["a"], ""));
    assert!(text(&pruned.stdout).contains("configmap/b pruned\nconfigmap/c pruned\n"), "{}", text(&pruned.stdout));
}

#[test]
fn other_sets_and_bystanders_are_left_alone() {
    let namespace = TestNamespace::new("prune-others");
    namespace.apply(&configmap("bystander", ""));
    assert!(kubeupd_apply(&namespace, &["--prune", "--applyset=other"], &configmap("theirs", "")).status.success());
    assert!(kubeupd_apply(&namespace, &["--prune", "--applyset=mine"], &configmaps(&["a", "b"], "")).status.success());
    // An object of another set is refused before anything is written.
    let taken = kubeupd_apply(&namespace, &["--prune", "--applyset=mine"], &configmaps(&["a", "theirs"], ""));
    assert_eq!(taken.status.code(), Some(1));
    assert!(text(&taken.stderr).contains("configmap/theirs belongs to another ApplySet"), "{}", text(&taken.stderr));
    assert_eq!(names(&namespace, "configmaps"), configmaps_named(&["a", "b", "bystander", "theirs"]));
    // A server-side apply of the set prunes its own members only.
    let pruned = kubeupd_apply(&namespace, &["--prune", "--applyset=mine", "--server-side"], &configmap("a", ""));
    assert_eq!(text(&pruned.stdout), "configmap/a serverside-applied\nconfigmap/b pruned\n");
    assert_eq!(names(&namespace, "configmaps"), configmaps_named(&["a", "bystander", "theirs"]));
}

#[test]
fn label_selector_prune_matches_kubectls_on_twins() {
    let twins = Twins::new("prune-legacy");
    // kubectl's default allowlist names batch/v1 CronJobs, which a 1.20 server does not
    // serve: kubectl then fails after applying, so both are given the allowlist.
    let flags = ["--prune", "-l", "app=x", "--prune-allowlist=core/v1/ConfigMap"];
    for namespace in [&twins.ours, &twins.theirs] {
        // Applied earlier with the label: kubectl's prune takes it too.
        namespace.apply(&configmap("earlier", "app: x"));
        namespace.apply(&configmap("other", "app: other"));
    }
    let steps = [
        ("three", configmaps(&["a", "b", "c"], "app: x")),
        (
            "one dropped, one without the label",
            configmaps(&["a", "b"], "app: x") + "---\n" + &configmap("z", "app: zed"),
        ),
    ];
    for (step, yaml) in &steps {
        let ours = kubeupd_apply(&twins.ours, &flags, yaml);
        let mut kubectl = twins.theirs.kubectl();
        kubectl.args(["apply", "-n", &twins.theirs.name]).args(flags).args(["-f", "-"]);
        let theirs = with_stdin(&mut kubectl, yaml);
        // stderr differs by kubeupd's summary line.
        assert_eq!((ours.status.code(), text(&ours.stdout)), (theirs.status.code(), text(&theirs.stdout)), "{step}");
        twins.assert_same("configmaps", step);
    }
    // Without an allowlist, kubeupd prunes the default kinds the server serves.
    let dropped = kubeupd_apply(&twins.ours, &["--prune", "-l", "app=x"], &configmap("a", "app: x"));
    assert!(dropped.status.success(), "{}", text(&dropped.stderr));
    assert_eq!(text(&dropped.stdout), "configmap/a unchanged\nconfigmap/b pruned\n");
}

#[test]
fn a_failure_before_the_prune_prunes_nothing_and_the_next_run_does() {
    let rig = Rig::new("prune-fault");
    let set = ["apply", "--prune", "--applyset=app", "-f", "-"];
    let (first, _) = rig.kubeupd(&set, &configmaps(&["a", "b", "c"], ""));
    assert!(first.status.success(), "{}", text(&first.stderr));
    // The list that finds what to prune fails: the members are applied, nothing is pruned.
    rig.proxy.inject(
        "GET",
        "labelSelector=applyset",
        Fault::Status { code: 403, reason: "Forbidden", retry_after: None },
        10,
    );
    let (failed, _) = rig.kubeupd(&set, &configmaps(&["a"], ""));
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    assert!(text(&failed.stderr).contains("error: pruning: "), "{}", text(&failed.stderr));
    rig.proxy.clear();
    assert_eq!(names(&rig.namespace, "configmaps"), configmaps_named(&["a", "b", "c"]));
    // An object that fails to apply: nothing is pruned, and the run says so.
    let (refused, _) = rig.kubeupd(&set, &(configmap("a", "") + "---\n" + &configmap("Bad_Name", "")));
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("error: nothing was pruned, because not every object was applied"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(names(&rig.namespace, "configmaps"), configmaps_named(&["a", "b", "c"]));
    // The next run prunes what the parent still lists.
    let (next, _) = rig.kubeupd(&set, &configmaps(&["a"], ""));
    assert!(next.status.success(), "{}", text(&next.stderr));
    assert_eq!(text(&next.stdout), "configmap/a unchanged\nconfigmap/b pruned\nconfigmap/c pruned\n");
    assert_eq!(names(&rig.namespace, "configmaps"), configmaps_named(&["a"]));
}

#[test]
fn diff_previews_the_prune_as_a_summary_and_as_json() {
    let namespace = TestNamespace::new("prune-diff");
    let n = namespace.name.as_str();
    assert!(
        kubeupd_apply(&namespace, &["--prune", "--applyset=app"], &configmaps(&["a", "b", "c"], "")).status.success()
    );
    let next = configmaps(&["a", "d"], "")
        .replace("name: a, labels: {}}\ndata: {k: v}", "name: a, labels: {}}\ndata: {k: changed}");
    let diff = |extra: &[&str]| {
        with_stdin(
            namespace.kubeupd_process().args(["diff", "-n", n, "--prune", "--applyset=app", "-f", "-"]).args(extra),
            &next,
        )
    };
    let summary = diff(&["--summary"]);
    assert_eq!(summary.status.code(), Some(1), "{}", text(&summary.stderr));
    assert_eq!(
        text(&summary.stdout),
        format!(
            "~ configmap/a -n {n}\n+ configmap/d -n {n}\n- configmap/b -n {n}\n- configmap/c -n {n}\n1 to create, 1 to change, 2 to prune, 0 unchanged\n"
        )
    );
    let json = parse_json(&diff(&["-o", "json"]).stdout);
    let actions: Vec<(&str, &str)> = json["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|object| (object["action"].as_str().unwrap(), object["name"].as_str().unwrap()))
        .collect();
    assert_eq!(actions, [("change", "a"), ("create", "d"), ("prune", "b"), ("prune", "c")]);
    assert_eq!(json["objects"][0]["fields"], serde_json::json!(["data.k"]));
    assert_eq!(json["totals"], serde_json::json!({"create": 1, "change": 1, "replace": 0, "prune": 2, "unchanged": 0}));
    let unified = text(&diff(&[]).stdout);
    assert!(
        unified.contains(&format!("/v1.ConfigMap.{n}.c\t"))
            && unified.contains(&format!("-  name: c\n-  namespace: {n}\n")),
        "{unified}"
    );
    // Nothing changed by the previews.
    assert_eq!(names(&namespace, "configmaps"), configmaps_named(&["a", "b", "c"]));
    let value: Value = parse_json(namespace.kubectl_ok(&["get", "cm", "a", "-n", n, "-o", "json"]).as_bytes());
    assert_eq!(value["data"]["k"], "v");
}

#[test]
fn a_custom_resource_parent_has_kubectls_id_when_its_definition_allows_it() {
    let namespace = TestNamespace::new("prune-cr");
    let n = namespace.name.as_str();
    support::ensure_cluster_fixture(&namespace, "crd/appsets.yaml");
    let set = ["--prune", "--applyset=appsets.prune.kubeupd.test/team"];
    // Custom resource parents are made by their owners, with the tooling annotation.
    let missing = kubeupd_apply(&namespace, &set, &configmap("a", ""));
    assert_eq!(text(&missing.stderr), "error: custom resource ApplySet parents cannot be created automatically\n");
    // kubectl takes a custom resource parent only with its id, which is checked, so the id the
    // specification defines is kubectl's when kubectl accepts it.
    let digest = sha2::Sha256::digest(format!("team.{n}.AppSet.prune.kubeupd.test").as_bytes());
    let id = format!("applyset-{}-v1", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest));
    let without_id = "apiVersion: prune.kubeupd.test/v1\nkind: AppSet\nmetadata: {name: team, annotations: \
                      {applyset.kubernetes.io/tooling: kubectl/v1.37.1}}\n";
    namespace.apply(without_id);
    let (ours, theirs) =
        (kubeupd_apply(&namespace, &set, &configmap("a", "")), kubectl_apply(&namespace, &set, &configmap("a", "")));
    assert_eq!(
        text(&theirs.stderr),
        "error: ApplySet parent object \"appsets.prune.kubeupd.test/team\" exists and does not have required label \
         applyset.kubernetes.io/id\n"
    );
    assert!(text(&ours.stderr).contains("managed by tooling \"kubectl\""), "{}", text(&ours.stderr));
    let (kind, id_label) = ("appsets.prune.kubeupd.test", format!("applyset.kubernetes.io/id={id}"));
    namespace.kubectl_ok(&["label", kind, "team", "-n", n, &id_label]);
    namespace.kubectl_ok(&["annotate", kind, "team", "-n", n, "applyset.kubernetes.io/contains-group-kinds="]);
    let made = kubectl_apply(&namespace, &set, &configmaps(&["a", "b"], ""));
    assert!(made.status.success(), "{}", text(&made.stderr));
    // Handed over to kubeupd, the parent's id (kubectl's) is the one kubeupd computes.
    let tooling = format!("applyset.kubernetes.io/tooling=kubeupd/{}", env!("CARGO_PKG_VERSION"));
    namespace.kubectl_ok(&["annotate", "appsets.prune.kubeupd.test", "team", "-n", n, "--overwrite", &tooling]);
    let taken = kubeupd_apply(&namespace, &set, &configmaps(&["a"], ""));
    assert!(taken.status.success(), "{}", text(&taken.stderr));
    assert_eq!(text(&taken.stdout), "configmap/a unchanged\nconfigmap/b pruned\n");
    let refused = kubeupd_apply(&namespace, &["--prune", "--applyset=notes.prune.kubeupd.test/x"], &configmap("a", ""));
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).starts_with("error: notes.prune.kubeupd.test cannot be an ApplySet parent"),
        "{}",
        text(&refused.stderr)
    );
}

/// A ConfigMap with the annotation `key: value`.
fn annotated_configmap(name: &str, key: &str, value: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, annotations: {{'{key}': '{value}'}}}}\ndata: {{k: v}}\n"
    )
}

#[test]
fn objects_that_opt_out_and_namespaces_are_not_pruned_unless_allowed() {
    let namespace = TestNamespace::new("prune-guarded");
    let extra = format!("{}-extra", namespace.name);
    let guarded = [
        annotated_configmap("argo", "argocd.argoproj.io/sync-options", "Prune=false"),
        annotated_configmap("flux", "kustomize.toolkit.fluxcd.io/prune", "disabled"),
        annotated_configmap("kapp", "kapp.k14s.io/delete-strategy", "orphan"),
        annotated_configmap("ours", "kubeupd.io/prune", "disabled"),
        configmap("plain", ""),
        format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: {extra}}}\n"),
    ];
    let set = ["--prune", "--applyset=app"];
    let everything = [&guarded[..], &[configmap("kept", "")]].concat().join("---\n");
    let created = kubeupd_apply(&namespace, &set, &everything);
    assert!(created.status.success(), "{}", text(&created.stderr));
    let cleanup =
        || _ = namespace.kubectl().args(["delete", "namespace", &extra, "--ignore-not-found", "--wait=false"]).output();
    // kubectl prunes every one of them; kubeupd only the one that says nothing.
    let pruned = kubeupd_apply(&namespace, &set, &configmap("kept", ""));
    let (stdout, stderr) = (text(&pruned.stdout), text(&pruned.stderr));
    if !pruned.status.success() {
        cleanup();
    }
    assert!(pruned.status.success(), "{stderr}");
    assert_eq!(stdout, "configmap/kept unchanged\nconfigmap/plain pruned\n");
    for line in [
        "configmap/argo not pruned: annotated argocd.argoproj.io/sync-options: Prune=false",
        "configmap/flux not pruned: annotated kustomize.toolkit.fluxcd.io/prune: disabled",
        "configmap/kapp not pruned: annotated kapp.k14s.io/delete-strategy: orphan",
        "configmap/ours not pruned: annotated kubeupd.io/prune: disabled",
        &format!("namespace/{extra} not pruned: Namespaces hold data: name Namespace in --prune-allow to prune them"),
    ] {
        assert!(stderr.contains(&format!("{line}\n")), "{line}: {stderr}");
    }
    assert_eq!(names(&namespace, "configmaps"), configmaps_named(&["argo", "flux", "kapp", "kept", "ours"]));
    assert!(namespace.kubectl_ok(&["get", "namespace", &extra, "-o", "name"]).contains(&extra));
    // The preview agrees.
    let diff = with_stdin(
        namespace.kubeupd_process().args(["diff", "--summary", "-n", &namespace.name]).args(set).args(["-f", "-"]),
        &configmap("kept", ""),
    );
    assert_eq!(text(&diff.stdout), "0 to create, 0 to change, 0 to prune, 1 unchanged\n", "{}", text(&diff.stderr));
    // Named in --prune-allow, the Namespace goes; the annotated objects stay.
    let allowed = kubeupd_apply(&namespace, &[&set[..], &["--prune-allow=Namespace"]].concat(), &configmap("kept", ""));
    cleanup();
    assert!(allowed.status.success(), "{}", text(&allowed.stderr));
    assert_eq!(text(&allowed.stdout), format!("configmap/kept unchanged\nnamespace/{extra} pruned\n"));
    assert_eq!(names(&namespace, "configmaps"), configmaps_named(&["argo", "flux", "kapp", "kept", "ours"]));
    // Only the kinds that hold data can be allowed.
    let refused = kubeupd_apply(&namespace, &[&set[..], &["--prune-allow=ConfigMap"]].concat(), &configmap("kept", ""));
    assert!(!refused.status.success(), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("--prune-allow takes Namespace"), "{}", text(&refused.stderr));
}

#[test]
fn nothing_is_pruned_until_what_was_applied_is_ready() {
    let namespace = TestNamespace::new("prune-after-wait");
    let set = ["--prune", "--applyset=app"];
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: \
                      {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, \
                      image: registry.example/web:1}]}\n";
    assert!(kubeupd_apply(&namespace, &set, &configmaps(&["old"], "")).status.success());
    // No controller makes the Deployment's pods here: it never becomes ready, so the prune that
    // would follow its readiness does not happen.
    let waited = kubeupd_apply(&namespace, &[&set[..], &["--wait-ready", "--timeout=2s"]].concat(), deployment);
    let stderr = text(&waited.stderr);
    assert_eq!(waited.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error: nothing was pruned, because not every object applied became ready"), "{stderr}");
    assert_eq!(text(&waited.stdout), "deployment.apps/web created\n");
    assert_eq!(names(&namespace, "configmaps"), configmaps_named(&["old"]));
}
