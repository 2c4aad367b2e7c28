//! Many clusters in one command (`--context a,b,c`, patterns, `--canary`, one plan), against
//! three real API servers: the test cluster and two more apiservers on its etcd, each with its
//! own objects (`scripts/local-cluster.sh extra NAME`).

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

use crate::support::fault_relay::{FaultRelay, FaultRule};
use crate::support::{TestNamespace, kubeconfig, parse_json, twin_view, with_stdin};

/// The other two clusters every test of this module shares.
const SHARED: [&str; 2] = ["fleet-two", "fleet-three"];

/// Starts the extra cluster `name` if it does not run; returns its kubeconfig (context `name`).
fn extra_cluster(name: &str) -> PathBuf {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/local-cluster.sh");
    let output =
        Command::new(script).args(["extra", name]).env("KUBEUPD_KUBERNETES", "1.37").output().expect("the script runs");
    assert!(output.status.success(), "extra cluster {name}: {}", String::from_utf8_lossy(&output.stderr));
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

fn stop_extra_cluster(name: &str) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/local-cluster.sh");
    let status = Command::new(script).args(["extra-down", name]).env("KUBEUPD_KUBERNETES", "1.37").status();
    assert!(status.expect("the script runs").success());
}

fn shared_clusters() -> &'static [PathBuf] {
    static STARTED: OnceLock<Vec<PathBuf>> = OnceLock::new();
    STARTED.get_or_init(|| SHARED.iter().map(|name| extra_cluster(name)).collect())
}

/// The test cluster's context name.
fn main_context() -> String {
    let output =
        Command::new("kubectl").arg("--kubeconfig").arg(kubeconfig()).args(["config", "current-context"]).output();
    String::from_utf8(output.expect("kubectl runs").stdout).unwrap().trim().to_string()
}

/// A namespace of one name on several clusters, seen through one `$KUBECONFIG` that has them all
/// as contexts.
struct Fleet {
    /// The namespace on the test cluster, deleted at the end (the others run no namespace
    /// controller to finish a deletion: theirs stay).
    _main: TestNamespace,
    namespace: String,
    contexts: Vec<String>,
    kubeconfigs: std::ffi::OsString,
    cache: tempfile::TempDir,
}

impl Fleet {
    /// The test cluster and the shared two.
    fn new(prefix: &str) -> Fleet {
        Fleet::with(prefix, shared_clusters().to_vec(), SHARED.map(String::from).to_vec())
    }

    fn with(prefix: &str, extra_kubeconfigs: Vec<PathBuf>, extra_contexts: Vec<String>) -> Fleet {
        // Named and made as a test namespace is, on the test cluster; then on the others.
        let main = TestNamespace::new(prefix);
        let files: Vec<PathBuf> = std::iter::once(kubeconfig()).chain(extra_kubeconfigs).collect();
        let fleet = Fleet {
            namespace: main.name.clone(),
            _main: main,
            contexts: std::iter::once(main_context()).chain(extra_contexts).collect(),
            kubeconfigs: std::env::join_paths(files).unwrap(),
            cache: tempfile::tempdir().unwrap(),
        };
        for context in &fleet.contexts[1..] {
            fleet.kubectl_ok(context, &["create", "namespace", &fleet.namespace]);
        }
        fleet
    }

    /// The test cluster reached through `proxy` (its kubeconfig's context `faults`) and the shared
    /// `fleet-two` directly.
    fn through_proxy(prefix: &str, proxy: &FaultRelay) -> Fleet {
        let main = TestNamespace::new(prefix);
        let files = [proxy.kubeconfig().to_path_buf(), shared_clusters()[0].clone()];
        let fleet = Fleet {
            namespace: main.name.clone(),
            _main: main,
            contexts: vec!["faults".to_string(), SHARED[0].to_string()],
            kubeconfigs: std::env::join_paths(files).unwrap(),
            cache: tempfile::tempdir().unwrap(),
        };
        fleet.kubectl_ok(SHARED[0], &["create", "namespace", &fleet.namespace]);
        fleet
    }

    /// The contexts as one `--context` list.
    fn all(&self) -> String {
        self.contexts.join(",")
    }

    fn kubeupd(&self) -> assert_cmd::Command {
        let mut command = assert_cmd::Command::cargo_bin("kubeupd").unwrap();
        command.env("KUBECONFIG", &self.kubeconfigs).arg("--cache-dir").arg(self.cache.path().join("kubeupd"));
        command.timeout(std::time::Duration::from_secs(120));
        command
    }

    fn kubectl(&self, context: &str) -> Command {
        let mut command = Command::new("kubectl");
        command.env("KUBECONFIG", &self.kubeconfigs).args(["--context", context, "-n", &self.namespace]);
        command.arg("--cache-dir").arg(self.cache.path().join("kubectl"));
        command
    }

    fn kubectl_ok(&self, context: &str, args: &[&str]) -> String {
        let output = self.kubectl(context).args(args).output().expect("kubectl runs");
        assert!(output.status.success(), "kubectl {args:?} on {context}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    }

    /// The object `what` on `context` as twins compare (`None`: not found).
    fn object(&self, context: &str, what: &str) -> Option<Value> {
        let output = self.kubectl(context).args(["get", what, "-o", "json", "--show-managed-fields"]).output().unwrap();
        output.status.success().then(|| twin_view(parse_json(&output.stdout), &self.namespace))
    }

    /// `kubeupd ARGS -n NAMESPACE` with `stdin`.
    fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.kubeupd().args(args).args(["-n", &self.namespace]).write_stdin(stdin.to_string()).output().unwrap()
    }
}

/// The lines of `text` that `context` printed, without its prefix.
fn lines_of(text: &[u8], context: &str) -> Vec<String> {
    let prefix = format!("[{context}] ");
    (String::from_utf8_lossy(text).lines()).filter_map(|line| line.strip_prefix(&prefix).map(String::from)).collect()
}

/// The row of the closing table for `context`, split into its columns.
fn table_row(stderr: &[u8], context: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(stderr);
    let row = text.lines().find(|line| line.split_whitespace().next() == Some(context));
    row.unwrap_or_else(|| panic!("no row for {context} in:\n{text}")).split_whitespace().map(String::from).collect()
}

const APP: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  color: blue
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
";

#[test]
fn apply_get_diff_and_wait_run_on_every_cluster_at_once() {
    let fleet = Fleet::new("fleet-apply");
    let applied = fleet.run(&["apply", "--context", &fleet.all(), "-f", "-"], APP);
    assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
    // Every cluster's lines, each whole and prefixed, in the order that cluster printed them.
    for context in &fleet.contexts {
        assert_eq!(lines_of(&applied.stdout, context), ["configmap/settings created", "deployment.apps/web created"]);
        assert_eq!(table_row(&applied.stderr, context)[1..7], ["ok", "2", "0", "0", "0", "0"]);
    }
    assert_eq!(String::from_utf8_lossy(&applied.stdout).lines().count(), 6, "nothing else on stdout");

    // What each cluster got is what kubectl applies: the same objects, the same field ownership.
    let twin = TestNamespace::new("fleet-apply-k");
    let by_kubectl = with_stdin(twin.kubectl().args(["apply", "-n", &twin.name, "-f", "-"]), APP);
    assert!(by_kubectl.status.success());
    for what in ["configmap/settings", "deployment/web"] {
        let theirs = twin_view(
            parse_json(
                twin.kubectl_ok(&["get", what, "-n", &twin.name, "-o", "json", "--show-managed-fields"]).as_bytes(),
            ),
            &twin.name,
        );
        for context in &fleet.contexts {
            assert_eq!(fleet.object(context, what).as_ref(), Some(&theirs), "{what} on {context}");
        }
    }

    // A pattern selects by the kubeconfig's names; -o json is one document keyed by context.
    let got = fleet.run(&["get", "configmap", "settings", "--context", "fleet-*", "-o", "json"], "");
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    let gathered = parse_json(&got.stdout);
    let keys: Vec<&String> = gathered.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["fleet-three", "fleet-two"]);
    assert!(gathered.as_object().unwrap().values().all(|cm| cm["data"]["color"] == "blue"));

    // diff: each cluster's exit status is kept (1: differs), the run's is the worst.
    let changed = APP.replace("color: blue", "color: green");
    let diffed = fleet.run(&["diff", "--context", &fleet.all(), "-f", "-"], &changed);
    assert_eq!(diffed.status.code(), Some(1), "{}", String::from_utf8_lossy(&diffed.stderr));
    for context in &fleet.contexts {
        assert!(lines_of(&diffed.stdout, context).contains(&"+  color: green".to_string()), "{context}");
        assert_eq!(table_row(&diffed.stderr, context)[1..3], ["exit", "1"]);
    }

    // wait: the Deployment becomes available on two clusters (the test plays the controller), so
    // the third times out: the run fails, and names it. The timeout leaves a loaded machine time
    // to list the two ready ones.
    let status = r#"{"status":{"observedGeneration":1,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2,"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"}]}}"#;
    for context in &fleet.contexts[..2] {
        fleet
            .kubectl_ok(context, &["patch", "deployment", "web", "--subresource=status", "--type=merge", "-p", status]);
    }
    let waited = fleet
        .run(&["wait", "--context", &fleet.all(), "--for=condition=Available", "deployment/web", "--timeout=10s"], "");
    assert_eq!(waited.status.code(), Some(1));
    for context in &fleet.contexts[..2] {
        assert_eq!(lines_of(&waited.stdout, context), ["deployment.apps/web condition met"]);
    }
    let third = &fleet.contexts[2];
    assert_eq!(table_row(&waited.stderr, third)[1..3], ["exit", "1"]);
    assert!(
        lines_of(&waited.stderr, third).iter().any(|line| line.contains("timed out")),
        "{}",
        String::from_utf8_lossy(&waited.stderr)
    );
    let rolled = fleet.run(&["rollout", "status", "deployment/web", "--context", &fleet.all(), "--timeout=10s"], "");
    assert_eq!(rolled.status.code(), Some(1));
    for context in &fleet.contexts[..2] {
        assert_eq!(lines_of(&rolled.stdout, context), [r#"deployment "web" successfully rolled out"#]);
    }

    // An update verb and delete, everywhere.
    let labelled = fleet.run(&["label", "configmap", "settings", "tier=front", "--context", &fleet.all()], "");
    assert!(labelled.status.success());
    let deleted = fleet.run(&["delete", "configmap", "settings", "--context", &fleet.all()], "");
    assert!(deleted.status.success(), "{}", String::from_utf8_lossy(&deleted.stderr));
    for context in &fleet.contexts {
        assert_eq!(lines_of(&labelled.stdout, context), ["configmap/settings labeled"]);
        assert_eq!(
            lines_of(&deleted.stdout, context),
            [format!(r#"configmap "settings" deleted from {} namespace"#, fleet.namespace)]
        );
        assert_eq!(fleet.object(context, "configmap/settings"), None);
    }
}

#[test]
fn one_context_prints_as_before() {
    let fleet = Fleet::new("fleet-one");
    let context = fleet.contexts[1].clone();
    let applied = fleet.run(&["apply", "--context", &context, "-f", "-"], APP);
    assert!(applied.status.success());
    assert_eq!(String::from_utf8_lossy(&applied.stdout), "configmap/settings created\ndeployment.apps/web created\n");
    assert_eq!(String::from_utf8_lossy(&applied.stderr), "2 objects: 2 created\n");
    let unknown = fleet.run(&["get", "cm", "--context", "fleet-two,nowhere"], "");
    assert_eq!(unknown.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&unknown.stderr),
        "error: context was not found for specified context: nowhere\n"
    );
    assert!(unknown.stdout.is_empty());
}

#[test]
fn a_cluster_that_cannot_be_reached_fails_alone_and_a_rerun_converges() {
    let down = extra_cluster("fleet-down");
    let mut kubeconfigs = shared_clusters().to_vec();
    kubeconfigs.push(down);
    let fleet =
        Fleet::with("fleet-down", kubeconfigs, ["fleet-two", "fleet-three", "fleet-down"].map(String::from).to_vec());
    stop_extra_cluster("fleet-down");

    let applied = fleet.run(&["apply", "--context", &fleet.all(), "-f", "-"], APP);
    assert_eq!(applied.status.code(), Some(1));
    for context in &fleet.contexts[..3] {
        assert_eq!(lines_of(&applied.stdout, context).len(), 2, "{context} applied");
        assert_eq!(table_row(&applied.stderr, context)[1], "ok");
    }
    assert!(lines_of(&applied.stdout, "fleet-down").is_empty());
    assert!(!lines_of(&applied.stderr, "fleet-down").is_empty(), "the unreachable cluster says why");
    assert_eq!(table_row(&applied.stderr, "fleet-down")[1..3], ["exit", "1"]);

    extra_cluster("fleet-down");
    let again = fleet.run(&["apply", "--context", &fleet.all(), "-f", "-"], APP);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    for context in &fleet.contexts[..3] {
        assert_eq!(lines_of(&again.stdout, context), ["configmap/settings unchanged", "deployment.apps/web unchanged"]);
    }
    assert_eq!(lines_of(&again.stdout, "fleet-down"), ["configmap/settings created", "deployment.apps/web created"]);
}

#[test]
fn a_canary_that_is_not_ready_leaves_the_other_clusters_untouched() {
    let fleet = Fleet::new("fleet-canary");
    // No controller makes the Deployment ready: the canary times out.
    let applied = fleet.run(&["apply", "--context", &fleet.all(), "--canary=1", "--timeout=10s", "-f", "-"], APP);
    assert_eq!(applied.status.code(), Some(1));
    let canary = &fleet.contexts[0];
    assert!(fleet.object(canary, "deployment/web").is_some());
    for context in &fleet.contexts[1..] {
        assert_eq!(fleet.object(context, "configmap/settings"), None, "{context} was touched");
        assert_eq!(table_row(&applied.stderr, context)[1..3], ["not", "run:"]);
    }
    let stderr = String::from_utf8_lossy(&applied.stderr);
    assert!(
        stderr.contains(&format!("error: the canary failed on {canary}: the other contexts were not touched")),
        "{stderr}"
    );

    // What is ready at once (a ConfigMap) passes the canary, and the rest follow.
    let settings = APP.split("---").next().unwrap();
    let applied = fleet.run(&["apply", "--context", &fleet.all(), "--canary=1", "-f", "-"], settings);
    assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
    for context in &fleet.contexts[1..] {
        assert_eq!(lines_of(&applied.stdout, context), ["configmap/settings created"]);
    }
}

#[test]
fn one_plan_over_every_cluster_is_applied_whole_or_not_at_all() {
    let fleet = Fleet::new("fleet-plan");
    let applied = fleet.run(&["apply", "--context", &fleet.all(), "-f", "-"], APP);
    assert!(applied.status.success());
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("all.plan");
    let plan = plan.to_str().unwrap();
    let changed = APP.replace("color: blue", "color: green");
    let diffed = fleet.run(&["diff", "--context", &fleet.all(), "--plan-out", plan, "-f", "-"], &changed);
    assert_eq!(diffed.status.code(), Some(1), "{}", String::from_utf8_lossy(&diffed.stderr));

    // Someone changes one cluster after the plan: the plan is refused on all of them.
    let moved = &fleet.contexts[2];
    fleet.kubectl_ok(moved, &["annotate", "configmap", "settings", "touched=yes"]);
    let refused = fleet.run(&["apply", "--context", &fleet.all(), "--plan", plan, "-f", "-"], &changed);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains(&format!("[{moved}] error: configmap/settings (namespace {})", fleet.namespace)),
        "{stderr}"
    );
    assert!(stderr.contains("no longer holds on 1 of 3 contexts: nothing was applied anywhere"), "{stderr}");
    for context in &fleet.contexts {
        let color = fleet.kubectl_ok(context, &["get", "configmap", "settings", "-o", "jsonpath={.data.color}"]);
        assert_eq!(color, "blue", "{context} was written");
    }

    // Planned again, it holds, and is applied everywhere.
    let diffed = fleet.run(&["diff", "--context", &fleet.all(), "--plan-out", plan, "-f", "-"], &changed);
    assert_eq!(diffed.status.code(), Some(1));
    let applied = fleet.run(&["apply", "--context", &fleet.all(), "--plan", plan, "-f", "-"], &changed);
    assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
    for context in &fleet.contexts {
        assert_eq!(
            lines_of(&applied.stdout, context),
            ["configmap/settings configured", "deployment.apps/web unchanged"]
        );
    }
    // A plan over several contexts is not taken for one context's.
    let alone = fleet.run(&["apply", "--context", &fleet.contexts[0], "--plan", plan, "-f", "-"], &changed);
    assert_eq!(alone.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("covers several contexts"));
}

/// The faults of [`a_context_behind_faults_converges_with_the_others`] on the writes in the test
/// namespace named after `prefix`:
/// the first create of a ConfigMap answered 429 with `Retry-After: 1`, the first three creates of
/// a Deployment 503, the first change of a ConfigMap reset before it reaches the server.
fn fleet_faults(prefix: &str) -> Vec<FaultRule> {
    let path = |resource: &str| format!("/namespaces/{prefix}-[0-9-]+/{resource}");
    vec![
        FaultRule::status("POST", &path("configmaps"), 429, Some(1)).first(1),
        FaultRule::status("POST", &path("deployments"), 503, None).first(3),
        FaultRule::reset_before("PATCH", &path("configmaps")).first(1),
    ]
}

/// The outcome on `context` of the two applies (`APP`, then its change), in the words of
/// docs/reliability.md: `converged` when both succeeded there and the context holds exactly the
/// two objects, changed; `failed` when it holds them as before the change; `failed, half-applied`
/// otherwise; `LOST` or `DUPLICATED` when an object is missing or there twice.
fn fleet_outcome(fleet: &Fleet, context: &str, succeeded: bool) -> &'static str {
    let names = |kind: &str| -> Vec<String> {
        let listed = fleet.kubectl_ok(context, &["get", kind, "-o", "name"]);
        listed.lines().filter(|name| !name.ends_with("kube-root-ca.crt")).map(String::from).collect()
    };
    let (configmaps, deployments) = (names("configmaps"), names("deployments"));
    if configmaps.len() > 1 || deployments.len() > 1 {
        return "DUPLICATED";
    }
    let color = fleet.object(context, "configmap/settings").map(|settings| settings["data"]["color"].clone());
    match (succeeded, color.as_ref().and_then(Value::as_str), deployments.len()) {
        (true, Some("green"), 1) => "converged",
        (true, _, _) => "LOST",
        (false, Some("blue"), 1) => "failed",
        (false, _, _) => "failed, half-applied",
    }
}

/// The fleet mode under faults: one context goes through `scripts/fault-proxy` (a 429 with
/// `Retry-After`, a burst of 503, a reset before the request reaches the server), the other does
/// not. kubeupd's one run per apply converges on both, exit 0, nothing lost or duplicated.
/// kubectl has no fleet mode: it runs once per context, through the same faults, and its row
/// shows what that does. Each row is the fleet table of docs/reliability.md.
#[test]
fn a_context_behind_faults_converges_with_the_others() {
    let changed = APP.replace("color: blue", "color: green");
    // kubeupd: one run per apply over both contexts.
    let ours_proxy = FaultRelay::start(&fleet_faults("fleet-faults-u"));
    let ours = Fleet::through_proxy("fleet-faults-u", &ours_proxy);
    let runs = [APP, &changed].map(|input| ours.run(&["apply", "--context", &ours.all(), "-f", "-"], input));
    let mut observed = Vec::new();
    for context in &ours.contexts {
        let succeeded = runs.iter().all(|run| run.status.success() && table_row(&run.stderr, context)[1] == "ok");
        observed.push(fleet_outcome(&ours, context, succeeded));
    }
    let faults_met =
        ours_proxy.log().iter().filter(|line| line.ends_with("injected") || line.ends_with(" reset")).count();
    assert_eq!(faults_met, 5, "every fault met once: {:?}", ours_proxy.log());
    for run in &runs {
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    }
    // kubectl: once per context, each apply run on its own.
    let theirs_proxy = FaultRelay::start(&fleet_faults("fleet-faults-k"));
    let theirs = Fleet::through_proxy("fleet-faults-k", &theirs_proxy);
    let mut theirs_observed = Vec::new();
    for context in &theirs.contexts {
        let succeeded = [APP, &changed].iter().fold(true, |all, input| {
            let output = with_stdin(theirs.kubectl(context).args(["apply", "-f", "-"]), input);
            eprintln!("kubectl on {context}: {}", String::from_utf8_lossy(&output.stderr));
            all && output.status.success()
        });
        theirs_observed.push(fleet_outcome(&theirs, context, succeeded));
    }
    let documented = |row: &str| -> Vec<String> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/reliability.md");
        let text = std::fs::read_to_string(path).expect("docs/reliability.md");
        let table = text.split("<!-- matrix fleet -->").nth(1).expect("the fleet table");
        let line = table.lines().find(|line| line.starts_with(&format!("| {row} |"))).expect("the row");
        line.trim_matches('|').split('|').skip(1).map(|cell| cell.trim().to_string()).collect()
    };
    assert_eq!(documented("kubeupd"), observed, "kubeupd's row of the fleet table");
    assert_eq!(documented("kubectl"), theirs_observed, "kubectl's row of the fleet table");
}
