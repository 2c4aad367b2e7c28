//! kubectl's command-line grammar on real lines from CI scripts: flags before the verb and
//! between a verb's words, files separated by commas, words a verb does not read, the deprecated
//! `--record`; kubeupd against kubectl on twins.

use std::process::Output;

use serde_json::Value;

use crate::support::{TestNamespace, Twins, parse_json, twin_view};

/// Both tools' output, each namespace read as `NAMESPACE`, must be the same.
fn assert_both_masked(twins: &Twins, args: &[&str]) {
    let (ours, theirs) = twins.run_both(args);
    twins.assert_same_output(&ours, &theirs, &format!("{args:?}"));
}

#[test]
fn flags_written_before_the_verb_belong_to_it() {
    let twins = Twins::with_objects("cl-before", &[], &["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"]);
    // Twins put `-n NAMESPACE` first; `--overwrite=true` is annotate's own flag.
    twins.assert_both(&["--overwrite=true", "annotate", "configmap", "c", "team=web"]);
    twins.assert_same("configmap/c", "annotate after its flags");
    twins.assert_both(&["-o", "name", "get", "configmap", "c"]);
    // A flag between `create` and its generator.
    assert_both_masked(
        &twins,
        &["create", "--dry-run=client", "-o", "yaml", "secret", "generic", "s", "--from-literal=a=b"],
    );
    twins.assert_both(&["create", "--field-manager=ci", "configmap", "settings", "--from-literal=color=blue"]);
    twins.assert_same("configmap/settings", "create with a flag before its generator");
}

#[test]
fn a_flag_before_an_unknown_verb_is_kubectls_error() {
    let twins = Twins::new("cl-unknown");
    // cobra reads `-A get` as the flag and its value, so no verb is left: kubectl's plugin words.
    let (ours, _) = twins.assert_both(&["-A", "get", "pods"]);
    let stderr = String::from_utf8_lossy(&ours.stderr);
    assert!(stderr.starts_with("Error: flags cannot be placed before plugin name: -"), "{stderr}");
}

#[test]
fn files_separated_by_commas_are_each_read() {
    let twins = Twins::new("cl-commas");
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("a.yaml");
    let second = dir.path().join("b.yaml");
    std::fs::write(&first, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n").unwrap();
    std::fs::write(&second, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {k: w}\n").unwrap();
    let files = format!("{},{}", first.display(), second.display());
    // stdout and exit as kubectl's (kubeupd's stderr adds its summary of several objects).
    let (ours, theirs) = twins.run_both(&["apply", "-f", &files]);
    assert_eq!((ours.status.code(), &ours.stdout), (theirs.status.code(), &theirs.stdout));
    assert_eq!(String::from_utf8_lossy(&ours.stdout), "configmap/a created\nconfigmap/b created\n");
    twins.assert_same("configmaps", "apply -f a,b");
    twins.assert_both(&["get", "-f", &files, "-o", "name"]);
}

/// A path of `-f` that does not exist is a Go pattern (`k8s/*.yaml`, as CI scripts quote it),
/// its matches read in order; paths that name nothing are reported before anything is read, a
/// line each, in kubectl's words, and nothing is written.
#[test]
fn file_patterns_and_missing_paths_read_as_kubectl_reads_them() {
    let twins = Twins::new("cl-patterns");
    let dir = tempfile::tempdir().unwrap();
    for (file, name) in [("k8s/app.yaml", "a"), ("k8s/db.yml", "b"), ("k8s/notes.txt", "c"), ("base/cm.yaml", "d")] {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n")).unwrap();
    }
    let root = dir.path().display();
    let refused = [
        format!("{root}/k8s/*.json"),
        format!("{root}/k8s/*.json,{root}/missing.yaml"),
        format!("{root}/k8s/app.yaml,{root}/k8s/[a-].yaml"),
        format!("{root}/k8s/app.yaml/"),
        format!("{root}/k8s/*/"),
    ];
    for files in &refused {
        assert_both_masked(&twins, &["apply", "-f", files]);
    }
    twins.assert_same("configmaps", "after the refused patterns");
    for files in [
        format!("{root}/k8s/*.y*ml"),
        format!("{root}/*/*.yaml"),
        format!("{root}/**/*.yaml"),
        format!("{root}/[^k]*"),
        format!("{root}/k8s/?pp.yaml,{root}/base"),
    ] {
        assert_both_masked(&twins, &["create", "-f", &files, "--dry-run=client", "-o", "name"]);
    }
    // stdout and exit as kubectl's (kubeupd's stderr adds its summary of several objects).
    let (ours, theirs) = twins.run_both(&["apply", "-f", &format!("{root}/*/*.y*ml")]);
    assert_eq!((ours.status.code(), &ours.stdout), (theirs.status.code(), &theirs.stdout));
    twins.assert_same("configmaps", "apply -f DIR/*/*.y*ml");
}

/// Both tools' output with each one's name (`See 'kubectl apply -h'`) and namespace masked must
/// be the same.
fn assert_both_named(twins: &Twins, args: &[&str]) -> (Output, Output) {
    let (ours, theirs) = twins.run_both(args);
    let named = |output: &Output| Output {
        stderr: String::from_utf8_lossy(&output.stderr).replace("'kubeupd ", "'kubectl ").into_bytes(),
        ..output.clone()
    };
    twins.assert_same_output(&named(&ours), &named(&theirs), &format!("{args:?}"));
    (ours, theirs)
}

/// `TYPE/NAME` in `namespace` as its twin compares, with the change cause `--record` wrote and
/// the program's name it starts with (`kubeupd`, `kubectl`) returned apart; the test's own
/// `--cache-dir`, a directory of each tool's, is left out of the cause.
fn recorded(namespace: &TestNamespace, what: &str) -> (Value, String) {
    let text = namespace.kubectl_ok(&["get", what, "-n", &namespace.name, "-o", "json", "--show-managed-fields"]);
    let object = twin_view(parse_json(text.as_bytes()), &namespace.name);
    let cause = object["metadata"]["annotations"]["kubernetes.io/change-cause"].as_str();
    let cause = cause.unwrap_or_else(|| panic!("{what} has no change cause: {object}")).to_string();
    let (program, rest) = cause.split_once(' ').unwrap();
    let rest: Vec<&str> = rest.split(' ').filter(|word| !word.starts_with("--cache-dir=")).collect();
    // Wherever the cause is: its annotation, and apply's last-applied configuration.
    let text = serde_json::to_string(&object).unwrap().replace(&cause, &rest.join(" "));
    (serde_json::from_str(&text).unwrap(), program.to_string())
}

#[test]
fn record_writes_the_command_line_where_each_verb_writes_it() {
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: \
                      {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: \
                      [{name: app, image: nginx:1}]\n";
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n";
    let twins = Twins::with_objects("cl-record", &[], &[deployment, configmap]);
    let dir = tempfile::tempdir().unwrap();
    let applied = dir.path().join("applied.yaml");
    std::fs::write(&applied, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: applied}\ndata: {k: v}\n").unwrap();
    let created = dir.path().join("created.yaml");
    std::fs::write(&created, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: created}\ndata: {k: v}\n").unwrap();
    let lines: [(&[&str], &str); 7] = [
        (&["annotate", "configmap", "c", "team=web", "--record"], "configmap/c"),
        (&["label", "--record", "configmap", "c", "tier=front"], "configmap/c"),
        (&["set", "image", "deployment/web", "app=nginx:2", "--record=true"], "deployment/web"),
        (&["set", "resources", "deployment/web", "--limits=cpu=200m", "--record"], "deployment/web"),
        (&["scale", "deployment", "web", "--replicas=3", "--record"], "deployment/web"),
        (&["apply", "-f", applied.to_str().unwrap(), "--record"], "configmap/applied"),
        (&["create", "--record", "-f", created.to_str().unwrap()], "configmap/created"),
    ];
    for (line, what) in lines {
        // stdout and pflag's deprecation warning on stderr, as kubectl prints them.
        let (ours, _) = twins.assert_both(line);
        let warning = "Flag --record has been deprecated, --record will be removed in the future";
        assert!(String::from_utf8_lossy(&ours.stderr).contains(warning), "{line:?}");
        let (ours, program) = recorded(&twins.ours, what);
        let (theirs, theirs_program) = recorded(&twins.theirs, what);
        assert_eq!((program.as_str(), theirs_program.as_str()), ("kubeupd", "kubectl"), "{line:?}");
        assert_eq!(ours, theirs, "{line:?}: {what} differs (left: kubeupd, right: kubectl)");
    }
    // A verb kubectl gives no --record refuses it, as kubectl does.
    assert_both_named(&twins, &["set", "env", "deployment/web", "A=1", "--record"]);
}

#[test]
fn words_a_verb_does_not_read_are_ignored_or_refused_as_kubectl_does() {
    let twins = Twins::with_objects("cl-words", &[], &["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.yaml");
    std::fs::write(&file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n").unwrap();
    let file = file.to_str().unwrap();
    // A CI line: replace reads only its files.
    twins.assert_both(&["replace", "cm", "c", "-f", file]);
    twins.assert_same("configmap/c", "replace with words it ignores");
    for line in [
        &["replace", "cm", "c", "-f", file, "--force"][..],
        &["apply", "cm", "c", "-f", file],
        &["create", "-f", file, "extra"],
        &["create", "configmap", "a", "b"],
        &["create", "secret", "generic"],
        &["diff", "cm", "-f", file],
        &["version", "extra"],
        &["kustomize", "a", "b"],
        &["completion", "bash", "zsh"],
    ] {
        assert_both_named(&twins, line);
    }
    twins.assert_same("configmaps", "after the refused lines");
}

/// apply's and diff's flags checked in kubectl's order (the deletion flags and their warning,
/// the files, then its Validate, then the printer), each line's words and exit code kubectl's;
/// nothing is written, by either tool but for a bad `-o`.
#[test]
fn apply_and_diff_check_their_flags_in_kubectls_order() {
    let twins = Twins::new("cl-order");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.yaml");
    std::fs::write(&file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n").unwrap();
    let file = file.to_str().unwrap();
    for line in [
        &["apply", "-f", file, "--cascade=false", "--force-conflicts"][..],
        &["apply", "--cascade=false", "--force-conflicts"],
        &["apply", "-f", file, "--cascade=false", "--server-side", "--dry-run=client"],
        &["apply", "-f", file, "--server-side", "--dry-run=client", "--cascade=false", "-o", "bogus"],
        &["apply", "-f", file, "--cascade=bogus", "--force-conflicts"],
        &["diff", "-f", file, "--force-conflicts"],
        &["diff", "--force-conflicts"],
        &["diff", "-f", file, "--force-conflicts", "--prune"],
    ] {
        assert_both_masked(&twins, line);
    }
    twins.assert_same("configmaps", "after the refused lines");
    // An -o kubectl has no printer for: the same words and exit code, but kubectl has applied the
    // object by then (it makes its printer to print it), kubeupd nothing (a difference on purpose).
    assert_both_masked(&twins, &["apply", "-f", file, "--cascade=false", "-o", "bogus"]);
    let written = |namespace: &TestNamespace| namespace.kubectl().args(["get", "cm/c", "-n", &namespace.name]).output();
    assert!(!written(&twins.ours).unwrap().status.success(), "kubeupd wrote nothing");
    assert!(written(&twins.theirs).unwrap().status.success(), "kubectl 1.37 applied before it failed to print");
}

#[test]
fn prune_whitelist_is_refused_as_kubectl_137_refuses_it() {
    // kubectl 1.37 no longer defines the deprecated name of --prune-allowlist.
    let twins = Twins::new("cl-whitelist");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.yaml");
    std::fs::write(&file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: {app: x}}\n").unwrap();
    let line = ["apply", "--prune", "-l", "app=x", "--prune-whitelist=core/v1/ConfigMap", "-f", file.to_str().unwrap()];
    let (ours, _) = assert_both_named(&twins, &line);
    assert!(String::from_utf8_lossy(&ours.stderr).starts_with("error: unknown flag: --prune-whitelist"));
    twins.assert_both(&["apply", "--prune", "-l", "app=x", "--prune-allowlist=core/v1/ConfigMap", "-f", line[6]]);
    twins.assert_same("configmaps", "apply --prune-allowlist");
}
