//! kubectl's command-line grammar on real lines from CI scripts: flags before the verb and
//! between a verb's words, files separated by commas; kubeupd against kubectl on twins.

use crate::support::{self, Twins};

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

#[test]
fn words_a_verb_does_not_take_are_ignored_or_refused_as_kubectl_does() {
    let twins = Twins::with_objects("cl-words", &[], &["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.yaml");
    std::fs::write(&file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n").unwrap();
    let file = file.to_str().unwrap();
    // replace ignores them; apply refuses them all; delete refuses them beside -f.
    twins.assert_both(&["replace", "configmap", "c", "-f", file]);
    twins.assert_same("configmap/c", "replace with words it ignores");
    for args in [
        &["apply", "configmap", "c", "-f", file][..],
        &["apply", "-o", "name", "configmap", "-f", file],
        &["delete", "configmap", "c", "-f", file],
        &["rollout", "bogus", "deployment/web"],
        &["create", "secret", "bogus"],
    ] {
        let (ours, theirs) = twins.run_both(args);
        let mask = |text: &[u8]| String::from_utf8_lossy(text).replace("kubeupd", "kubectl");
        assert_eq!(ours.status.code(), theirs.status.code(), "{args:?}");
        assert_eq!(mask(&ours.stderr), mask(&theirs.stderr), "{args:?}");
        assert_ne!(ours.status.code(), Some(0), "{args:?}");
    }
}

/// `--record` (deprecated, still in kubectl 1.37) on every verb that takes it: kubectl's warning,
/// and the command line in the change-cause annotation, written as kubectl writes it (in the
/// applied configuration, in the verb's own patch, or after scaling), field managers included.
#[test]
fn record_writes_the_command_line_where_kubectl_does() {
    let twins = Twins::new("cl-record");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("web.yaml");
    let web = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: w}}\n  template:\n    metadata: {labels: {app: w}}\n    spec: {containers: [{name: c, image: nginx}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}], selector: {app: w}}\n";
    std::fs::write(&file, web).unwrap();
    let steps: [&[&str]; 8] = [
        &["apply", "-f", file.to_str().unwrap(), "--record"],
        &["label", "deployment", "web", "tier=front", "--record"],
        &["annotate", "deployment", "web", "owner=ci", "--record"],
        &["set", "image", "deployment/web", "c=nginx:1.27", "--record"],
        &["scale", "deployment", "web", "--replicas=3", "--record"],
        &["set", "resources", "deployment/web", "-c", "c", "--limits=cpu=1", "--record"],
        &["set", "serviceaccount", "deployment/web", "default", "--record"],
        &["set", "selector", "service", "web", "app=w2", "--record"],
    ];
    let view = |ns: &support::TestNamespace, what: &str| {
        let text = ns.kubectl_ok(&["get", what, "-n", &ns.name, "-o", "json", "--show-managed-fields"]);
        // The program's own name starts the recorded command line; each tool has its own cache.
        let cache = regex::Regex::new(r"--cache-dir=[^ \\]+").unwrap();
        let text = cache.replace_all(&text, "--cache-dir=CACHE").replace("kubeupd ", "kubectl ");
        support::twin_view(support::parse_json(text.as_bytes()), &ns.name)
    };
    for step in steps {
        let (ours, theirs) = twins.run_both(step);
        let mask = |text: &[u8]| String::from_utf8_lossy(text).into_owned();
        assert_eq!((ours.status.code(), mask(&ours.stdout)), (theirs.status.code(), mask(&theirs.stdout)), "{step:?}");
        assert!(mask(&ours.stderr).starts_with("Flag --record has been deprecated"), "{step:?}");
        for what in ["deployment/web", "service/web"] {
            let (ours, theirs) = (view(&twins.ours, what), view(&twins.theirs, what));
            assert_eq!(ours, theirs, "{what} after {step:?} (left: kubeupd, right: kubectl)");
        }
    }
    let cause = view(&twins.ours, "service/web")["metadata"]["annotations"]["kubernetes.io/change-cause"].clone();
    let cause = cause.as_str().unwrap();
    assert!(cause.starts_with("kubectl set selector service web app=w2 --kubeconfig="), "{cause}");
    assert!(cause.ends_with(" --namespace=NAMESPACE --record=true"), "{cause}");
}
