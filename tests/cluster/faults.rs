//! The fault matrix: every fault `scripts/fault-proxy` injects, against every writing verb, for
//! kubeupd and for kubectl 1.37, through the same proxy in front of the real apiserver. Each cell
//! runs the verb on its own objects (named and labelled after the cell), then reads the server:
//! the outcome says whether the tool succeeded and whether the objects are as asked, and no cell
//! may lose or duplicate an object. The expected outcomes are the tables in docs/reliability.md:
//! a cell that differs fails its verb's test, which prints the row observed.
use crate::support;

use std::collections::BTreeMap;
use std::process::{Command, Output};

use serde_json::Value;
use support::TestNamespace;
use support::fault_relay::{FaultRelay, FaultRule};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tool {
    Kubeupd,
    Kubectl,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fault {
    TooMany,
    Unavailable,
    Internal,
    ResetBefore,
    ResetAfter,
    Stall,
    Tls,
    Unauthorized,
    Forbidden,
}

const FAULTS: [Fault; 9] = [
    Fault::TooMany,
    Fault::Unavailable,
    Fault::Internal,
    Fault::ResetBefore,
    Fault::ResetAfter,
    Fault::Stall,
    Fault::Tls,
    Fault::Unauthorized,
    Fault::Forbidden,
];

impl Fault {
    /// A short name for the cell's objects.
    fn slug(self) -> &'static str {
        match self {
            Fault::TooMany => "429",
            Fault::Unavailable => "503",
            Fault::Internal => "500",
            Fault::ResetBefore => "rb",
            Fault::ResetAfter => "ra",
            Fault::Stall => "st",
            Fault::Tls => "tls",
            Fault::Unauthorized => "401",
            Fault::Forbidden => "403",
        }
    }

    /// The proxy's rules for this fault on the requests `method` `path` (regular expressions).
    fn rules(self, method: &str, path: &str) -> Vec<FaultRule> {
        vec![match self {
            Fault::TooMany => FaultRule::status(method, path, 429, Some(1)).first(1),
            Fault::Unavailable => FaultRule::status(method, path, 503, None).first(3),
            Fault::Internal => FaultRule::status(method, path, 500, None).first(2),
            Fault::ResetBefore => FaultRule::reset_before(method, path).first(1),
            Fault::ResetAfter => FaultRule::reset_after(method, path).first(1),
            Fault::Stall => FaultRule::stall(method, path, "3s").first(1),
            Fault::Tls => FaultRule::tls_fail().first(1),
            Fault::Unauthorized => return Vec::new(),
            Fault::Forbidden => FaultRule::status(method, path, 403, None).first(1),
        }]
    }

    /// Flags the tool gets for this fault: a request timeout the stall outlasts.
    fn flags(self) -> &'static [&'static str] {
        match self {
            Fault::Stall => &["--request-timeout=1s"],
            _ => &[],
        }
    }
}

/// What the server holds after a cell.
#[derive(Debug, PartialEq, Eq)]
enum State {
    /// As the command asked.
    Desired,
    /// As before the command.
    Unchanged,
    /// Neither (some objects changed, others not).
    Partial,
    /// An object that was there before and is to stay, or was to be created, is missing while
    /// the tool said it succeeded, or two objects stand where one was asked.
    Lost,
    Duplicated,
}

/// The outcome of a cell, in the words of docs/reliability.md.
fn outcome(succeeded: bool, state: &State) -> &'static str {
    match (succeeded, state) {
        (_, State::Duplicated) => "DUPLICATED",
        (true, State::Lost) => "LOST",
        (true, State::Desired) => "converged",
        (false, State::Desired) => "exit 1, applied",
        (false, State::Unchanged) => "failed",
        (false, State::Partial | State::Lost) => "failed, half-applied",
        (true, _) => "exit 0, NOT applied",
    }
}

/// One verb of the matrix.
struct Verb {
    /// Its row in the tables.
    row: &'static str,
    /// The tools that have it (kubeupd's `create -f` needs a `metadata.name`).
    tools: &'static [Tool],
    /// The writes (reads, for `wait`) the faults hit: methods and the type's path in the namespace.
    methods: &'static str,
    resource: &'static str,
    /// Creates the cell's objects.
    setup: fn(&Cell),
    /// The command's arguments and standard input.
    command: fn(&Cell) -> (Vec<String>, String),
    /// Whether the tool succeeded, by its output (exit 0, or `diff`'s 1 with the change).
    succeeded: fn(&Output) -> bool,
    /// What the server holds now.
    state: fn(&Cell) -> State,
    /// Whether the verb writes (diff and wait only read: a failure is a failure).
    writes: bool,
}

/// A cell: one fault, one tool, one verb, in the verb's namespace with objects prefixed `prefix`.
struct Cell<'a> {
    namespace: &'a TestNamespace,
    prefix: String,
}

impl Cell<'_> {
    fn name(&self, suffix: &str) -> String {
        format!("{}-{suffix}", self.prefix)
    }

    fn configmap(&self, suffix: &str, value: &str) -> String {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n  labels: {{cell: {}}}\ndata: {{v: \"{value}\"}}\n",
            self.name(suffix),
            self.prefix
        )
    }

    /// kubectl, straight to the server, in the namespace.
    fn kubectl(&self, args: &[&str], stdin: &str) -> Output {
        support::with_stdin(self.namespace.kubectl().args(["-n", &self.namespace.name]).args(args), stdin)
    }

    fn setup_ok(&self, args: &[&str], stdin: &str) {
        let output = self.kubectl(args, stdin);
        assert!(output.status.success(), "setup of {}: {}", self.prefix, String::from_utf8_lossy(&output.stderr));
    }

    /// The cell's ConfigMaps: name → `data.v`, and how many objects there are in all.
    fn configmaps(&self) -> (BTreeMap<String, String>, usize) {
        let output = self.kubectl(&["get", "configmaps", "-l", &format!("cell={}", self.prefix), "-o", "json"], "");
        let list: Value = serde_json::from_slice(&output.stdout).expect("a list");
        let items = list["items"].as_array().cloned().unwrap_or_default();
        let found = items
            .iter()
            .map(|item| {
                let name = item["metadata"]["name"].as_str().unwrap_or_default().to_string();
                let labels = &item["metadata"]["labels"];
                let annotations = &item["metadata"]["annotations"];
                let mut value = item["data"]["v"].as_str().unwrap_or_default().to_string();
                if labels["x"] == "y" {
                    value.push_str("+label");
                }
                if annotations["x"] == "y" {
                    value.push_str("+annotation");
                }
                (name, value)
            })
            .collect();
        (found, items.len())
    }

    /// The state of the cell's ConfigMaps, given those before and those asked for.
    fn judge(&self, before: &[(&str, &str)], desired: &[(&str, &str)]) -> State {
        let (found, _) = self.configmaps();
        let expect = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(suffix, value)| (self.name(suffix), value.to_string())).collect()
        };
        let (before, desired) = (expect(before), expect(desired));
        if found == desired {
            State::Desired
        } else if found == before {
            State::Unchanged
        } else if desired.keys().any(|name| before.contains_key(name) && !found.contains_key(name)) {
            State::Lost
        } else {
            State::Partial
        }
    }
}

fn exit_zero(output: &Output) -> bool {
    output.status.success()
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|word| word.to_string()).collect()
}

/// Runs `verb`'s cells, every fault for each tool, at once; returns the outcomes by tool and
/// fault, and fails on any loss or duplicate.
fn run_verb(verb: &Verb) -> BTreeMap<(&'static str, &'static str), String> {
    let namespace = TestNamespace::new(&format!("faults-{}", verb.row.split(' ').next().unwrap_or("verb")));
    let tools = verb.tools;
    let mut outcomes = BTreeMap::new();
    std::thread::scope(|scope| {
        let mut running = Vec::new();
        for &tool in tools {
            for fault in FAULTS {
                let namespace = &namespace;
                running.push(scope.spawn(move || {
                    let letter = if tool == Tool::Kubeupd { "u" } else { "k" };
                    let cell = Cell { namespace, prefix: format!("{letter}{}", fault.slug()) };
                    (verb.setup)(&cell);
                    let path = format!("/namespaces/{}/{}", namespace.name, verb.resource);
                    let proxy = FaultRelay::start(&fault.rules(verb.methods, &path));
                    let (mut words, stdin) = (verb.command)(&cell);
                    words.extend(fault.flags().iter().map(|flag| flag.to_string()));
                    let output = run_tool(tool, &proxy, &namespace.name, &words, &stdin, fault == Fault::Unauthorized);
                    let state = (verb.state)(&cell);
                    let succeeded = (verb.succeeded)(&output);
                    let result = match (verb.writes, succeeded) {
                        (false, false) if state == State::Desired => "failed",
                        _ => outcome(succeeded, &state),
                    };
                    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
                    if tool == Tool::Kubeupd && fault == Fault::Forbidden {
                        assert!(stderr.contains("injected 403 Forbidden"), "the server's words: {stderr}");
                    }
                    eprintln!("{} / {tool:?} / {fault:?}: {result}\n{stderr}", verb.row);
                    ((tool, fault), result.to_string())
                }));
            }
        }
        for cell in running {
            let ((tool, fault), result) = cell.join().expect("the cell ran");
            outcomes.insert((tool_name(tool), fault.slug()), result);
        }
    });
    outcomes
}

fn tool_name(tool: Tool) -> &'static str {
    match tool {
        Tool::Kubeupd => "kubeupd",
        Tool::Kubectl => "kubectl",
    }
}

/// Runs `tool` through `proxy` in `namespace`; with `bad_token`, with a token the server does not
/// know.
fn run_tool(tool: Tool, proxy: &FaultRelay, namespace: &str, words: &[String], stdin: &str, bad_token: bool) -> Output {
    let kubeconfig = proxy.kubeconfig().to_path_buf();
    if bad_token {
        let text = std::fs::read_to_string(&kubeconfig).unwrap();
        let token = support::credentials().token;
        std::fs::write(&kubeconfig, text.replace(&token, "not-a-known-token")).unwrap();
    }
    let cache = kubeconfig.with_file_name("cache");
    let mut command = match tool {
        Tool::Kubeupd => {
            let mut command = Command::new(assert_cmd::cargo::cargo_bin("kubeupd"));
            command.arg("--cache-dir").arg(&cache);
            command
        }
        Tool::Kubectl => {
            let mut command = Command::new("kubectl");
            command.arg("--cache-dir").arg(&cache);
            command
        }
    };
    command.arg("--kubeconfig").arg(&kubeconfig).args(["-n", namespace]).args(words).env_remove("KUBECONFIG");
    command.env("EDITOR", editor());
    support::with_stdin(&mut command, stdin)
}

/// An editor that changes `v: "1"` to `v: "2"` in the file it is given.
fn editor() -> String {
    static EDITOR: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    EDITOR
        .get_or_init(|| {
            let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("faults-editor.sh");
            std::fs::write(&path, "#!/bin/sh\nsed -i 's/v: \"1\"/v: \"2\"/' \"$1\"\n").unwrap();
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path.display().to_string()
        })
        .clone()
}

/// The expected cells of `row` (named by its first cell) in the table after
/// `<!-- matrix TABLE -->` in docs/reliability.md: for a verb of the matrix, the outcome per fault
/// in the order of [`FAULTS`] in the tool's table.
fn documented_cells(table: &str, row: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reliability.md");
    let text = std::fs::read_to_string(path).expect("docs/reliability.md");
    let table_text = text.split(&format!("<!-- matrix {table} -->")).nth(1).expect("the table");
    let line = table_text
        .lines()
        .find(|line| line.starts_with(&format!("| {row} |")))
        .unwrap_or_else(|| panic!("no row `{row}` in the {table} table of docs/reliability.md"));
    line.trim_matches('|').split('|').skip(1).map(|cell| cell.trim().to_string()).collect()
}

/// Runs `verb`'s cells and compares each tool's row with docs/reliability.md.
fn check_verb(verb: Verb) {
    let outcomes = run_verb(&verb);
    let mut wrong = Vec::new();
    for tool in verb.tools.iter().map(|&tool| tool_name(tool)) {
        let observed: Vec<String> = FAULTS.iter().map(|fault| outcomes[&(tool, fault.slug())].clone()).collect();
        if tool == "kubeupd" {
            assert!(
                observed.iter().all(|cell| cell != "LOST" && cell != "DUPLICATED" && cell != "exit 0, NOT applied"),
                "{}: {observed:?}",
                verb.row
            );
        }
        let documented = documented_cells(tool, verb.row);
        if documented != observed {
            wrong.push(format!("{tool}: | {} | {} |", verb.row, observed.join(" | ")));
        }
    }
    assert!(wrong.is_empty(), "rows differing from docs/reliability.md:\n{}", wrong.join("\n"));
}

const WRITES: &str = "POST|PUT|PATCH|DELETE";
const BOTH: &[Tool] = &[Tool::Kubeupd, Tool::Kubectl];

/// The cell's objects applied client-side by kubectl: prune (kubeupd's, as kubectl's) removes
/// only objects that hold a last-applied configuration, server-side too.
fn apply_setup(cell: &Cell) {
    cell.setup_ok(&["apply", "-f", "-"], &format!("{}---\n{}", cell.configmap("a", "1"), cell.configmap("old", "1")));
}

fn apply_command(cell: &Cell, server_side: bool) -> (Vec<String>, String) {
    let selector = format!("cell={}", cell.prefix);
    let mut words = args(&["apply", "-f", "-", "--prune", "-l", &selector]);
    if server_side {
        words.push("--server-side".into());
    }
    (words, format!("{}---\n{}", cell.configmap("a", "2"), cell.configmap("b", "2")))
}

fn apply_state(cell: &Cell) -> State {
    cell.judge(&[("a", "1"), ("old", "1")], &[("a", "2"), ("b", "2")])
}

fn one_configmap(cell: &Cell) {
    cell.setup_ok(&["apply", "-f", "-"], &cell.configmap("a", "1"));
}

fn changed_to_2(cell: &Cell) -> State {
    cell.judge(&[("a", "1")], &[("a", "2")])
}

#[test]
fn apply_client_side_with_prune() {
    check_verb(Verb {
        row: "apply --prune",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: apply_setup,
        command: |cell| apply_command(cell, false),
        succeeded: exit_zero,
        state: apply_state,
        writes: true,
    });
}

#[test]
fn apply_server_side_with_prune() {
    check_verb(Verb {
        row: "apply --server-side --prune",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: apply_setup,
        command: |cell| apply_command(cell, true),
        succeeded: exit_zero,
        state: apply_state,
        writes: true,
    });
}

#[test]
fn diff() {
    check_verb(Verb {
        row: "diff",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: one_configmap,
        command: |cell| (args(&["diff", "-f", "-"]), cell.configmap("a", "2")),
        succeeded: |output| {
            output.status.code() == Some(1) && String::from_utf8_lossy(&output.stdout).contains("+  v: \"2\"")
        },
        // diff changes nothing: the state it is asked for is the state before.
        state: |cell| cell.judge(&[("a", "1")], &[("a", "1")]),
        writes: false,
    });
}

#[test]
fn update() {
    check_verb(Verb {
        row: "update --set",
        tools: &[Tool::Kubeupd],
        methods: WRITES,
        resource: "configmaps",
        setup: one_configmap,
        command: |cell| (args(&["update", "configmap", &cell.name("a"), "--set", "data.v=2"]), String::new()),
        succeeded: exit_zero,
        state: changed_to_2,
        writes: true,
    });
}

#[test]
fn patch() {
    check_verb(Verb {
        row: "patch",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: one_configmap,
        command: |cell| (args(&["patch", "configmap", &cell.name("a"), "-p", r#"{"data":{"v":"2"}}"#]), String::new()),
        succeeded: exit_zero,
        state: changed_to_2,
        writes: true,
    });
}

#[test]
fn replace() {
    check_verb(Verb {
        row: "replace",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: one_configmap,
        command: |cell| (args(&["replace", "-f", "-"]), cell.configmap("a", "2")),
        succeeded: exit_zero,
        state: changed_to_2,
        writes: true,
    });
}

#[test]
fn delete() {
    check_verb(Verb {
        row: "delete",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: |cell| {
            cell.setup_ok(
                &["apply", "-f", "-"],
                &format!("{}---\n{}", cell.configmap("a", "1"), cell.configmap("b", "1")),
            )
        },
        command: |cell| (args(&["delete", "configmap", &cell.name("a"), &cell.name("b")]), String::new()),
        succeeded: exit_zero,
        state: |cell| cell.judge(&[("a", "1"), ("b", "1")], &[]),
        writes: true,
    });
}

#[test]
fn label() {
    check_verb(Verb {
        row: "label",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: one_configmap,
        command: |cell| (args(&["label", "configmap", &cell.name("a"), "x=y"]), String::new()),
        succeeded: exit_zero,
        state: |cell| cell.judge(&[("a", "1")], &[("a", "1+label")]),
        writes: true,
    });
}

#[test]
fn annotate() {
    check_verb(Verb {
        row: "annotate",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: one_configmap,
        command: |cell| (args(&["annotate", "configmap", &cell.name("a"), "x=y"]), String::new()),
        succeeded: exit_zero,
        state: |cell| cell.judge(&[("a", "1")], &[("a", "1+annotation")]),
        writes: true,
    });
}

fn deployment(cell: &Cell) -> String {
    let name = cell.name("web");
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  replicas: 1\n  selector: \
         {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec: \
         {{containers: [{{name: app, image: registry.k8s.io/pause:3.10}}]}}\n"
    )
}

#[test]
fn scale() {
    check_verb(Verb {
        row: "scale",
        tools: BOTH,
        methods: WRITES,
        resource: "deployments",
        setup: |cell| cell.setup_ok(&["apply", "-f", "-"], &deployment(cell)),
        command: |cell| (args(&["scale", "deployment", &cell.name("web"), "--replicas=3"]), String::new()),
        succeeded: exit_zero,
        state: |cell| {
            let output = cell.kubectl(&["get", "deployment", &cell.name("web"), "-o", "jsonpath={.spec.replicas}"], "");
            match String::from_utf8_lossy(&output.stdout).as_ref() {
                "3" => State::Desired,
                "1" => State::Unchanged,
                "" => State::Lost,
                _ => State::Partial,
            }
        },
        writes: true,
    });
}

#[test]
fn create() {
    check_verb(Verb {
        row: "create",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: |_| {},
        command: |cell| {
            (args(&["create", "-f", "-"]), format!("{}---\n{}", cell.configmap("a", "1"), cell.configmap("b", "1")))
        },
        succeeded: exit_zero,
        state: |cell| cell.judge(&[], &[("a", "1"), ("b", "1")]),
        writes: true,
    });
}

#[test]
fn create_with_generate_name() {
    check_verb(Verb {
        row: "create (generateName)",
        tools: &[Tool::Kubectl],
        methods: WRITES,
        resource: "configmaps",
        setup: |_| {},
        command: |cell| {
            let manifest = format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: {}-g-\n  labels: {{cell: {}}}\ndata: {{v: \"1\"}}\n",
                cell.prefix, cell.prefix
            );
            (args(&["create", "-f", "-"]), manifest)
        },
        succeeded: exit_zero,
        state: |cell| match cell.configmaps().1 {
            0 => State::Unchanged,
            1 => State::Desired,
            _ => State::Duplicated,
        },
        writes: true,
    });
}

#[test]
fn wait() {
    check_verb(Verb {
        row: "wait",
        tools: BOTH,
        methods: "GET",
        resource: "configmaps",
        setup: one_configmap,
        command: |cell| {
            let target = format!("configmap/{}", cell.name("a"));
            (args(&["wait", "--for=jsonpath={.data.v}=1", &target, "--timeout=20s"]), String::new())
        },
        succeeded: exit_zero,
        state: |cell| cell.judge(&[("a", "1")], &[("a", "1")]),
        writes: false,
    });
}

#[test]
fn edit() {
    check_verb(Verb {
        row: "edit",
        tools: BOTH,
        methods: WRITES,
        resource: "configmaps",
        setup: one_configmap,
        command: |cell| (args(&["edit", &format!("configmap/{}", cell.name("a"))]), String::new()),
        succeeded: exit_zero,
        state: changed_to_2,
        writes: true,
    });
}

/// `wait` whose watches are cut mid-stream: the first two watches of the ConfigMap are cut after
/// a second; once the tool has watched a third time (read from the proxy's log, not timed), the
/// ConfigMap gets the value waited for. Returns whether the tool ended with exit 0.
fn wait_through_cut_watches(tool: Tool, namespace: &TestNamespace) -> bool {
    let cell = Cell { namespace, prefix: format!("{}cut", if tool == Tool::Kubeupd { "u" } else { "k" }) };
    one_configmap(&cell);
    let path = format!("/namespaces/{}/configmaps.*watch=", namespace.name);
    let proxy = FaultRelay::start(&[FaultRule::watch_cut(&path, "1s").first(2)]);
    let target = format!("configmap/{}", cell.name("a"));
    let words = args(&["wait", "--for=jsonpath={.data.v}=2", &target, "--timeout=60s"]);
    let kubeconfig = proxy.kubeconfig().to_path_buf();
    let mut command = match tool {
        Tool::Kubeupd => Command::new(assert_cmd::cargo::cargo_bin("kubeupd")),
        Tool::Kubectl => Command::new("kubectl"),
    };
    command
        .arg("--cache-dir")
        .arg(kubeconfig.with_file_name("cache"))
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .args(["-n", &namespace.name])
        .args(&words)
        .env_remove("KUBECONFIG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    let watches = || proxy.log().iter().filter(|line| line.contains("watch=")).count();
    while watches() < 3 && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if child.try_wait().unwrap().is_none() {
        cell.setup_ok(&["patch", "configmap", &cell.name("a"), "-p", r#"{"data":{"v":"2"}}"#], "");
    }
    let output = child.wait_with_output().unwrap();
    eprintln!(
        "wait, watches cut / {tool:?}: {:?} {:?}\n{}",
        output.status,
        proxy.log(),
        String::from_utf8_lossy(&output.stderr)
    );
    output.status.success()
}

#[test]
fn wait_watches_again_when_its_watch_is_cut() {
    let namespace = TestNamespace::new("faults-watch");
    let (ours, theirs) = std::thread::scope(|scope| {
        let ours = scope.spawn(|| wait_through_cut_watches(Tool::Kubeupd, &namespace));
        let theirs = scope.spawn(|| wait_through_cut_watches(Tool::Kubectl, &namespace));
        (ours.join().unwrap(), theirs.join().unwrap())
    });
    assert!(ours, "kubeupd's wait watches again");
    assert!(theirs, "kubectl's wait watches again (docs/reliability.md says so)");
}

/// A validating admission webhook (`scripts/fault-proxy -webhook`) the apiserver calls for the
/// ConfigMaps of `namespace` labelled `cell`, failing closed within three seconds; removed when
/// dropped.
struct Webhook {
    name: String,
    server: FaultRelay,
}

impl Webhook {
    fn register(namespace: &TestNamespace, rules: &[FaultRule]) -> Self {
        use base64::Engine as _;
        let server = FaultRelay::webhook(rules);
        let name = format!("{}.faults.kubeupd.test", namespace.name);
        let ca = base64::engine::general_purpose::STANDARD.encode(server.ca_pem());
        let configuration = format!(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {{name: {name}}}\n\
             webhooks:\n- name: {name}\n  clientConfig: {{url: \"{}\", caBundle: {ca}}}\n  rules:\n  - {{operations: \
             [CREATE, UPDATE, DELETE], apiGroups: [\"\"], apiVersions: [v1], resources: [configmaps]}}\n  \
             namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {}}}}}\n  objectSelector: \
             {{matchExpressions: [{{key: cell, operator: Exists}}]}}\n  failurePolicy: Fail\n  sideEffects: None\n  \
             timeoutSeconds: 3\n  admissionReviewVersions: [v1]\n",
            server.webhook_url(),
            namespace.name
        );
        let created = support::with_stdin(namespace.kubectl().args(["apply", "-f", "-"]), &configuration);
        assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
        let webhook = Webhook { name, server };
        // The apiserver calls a new webhook once its informer has it: probe with a dry run until
        // the webhook sees one.
        let probe = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: probe, labels: {cell: probe}}\n";
        for probes in 0.. {
            if webhook.server.log().iter().any(|line| line.contains("/probe ")) {
                break;
            }
            assert!(probes < 300, "the apiserver never called the webhook");
            let mut command = namespace.kubectl();
            command.args(["-n", &namespace.name, "create", "--dry-run=server", "-f", "-"]);
            support::with_stdin(&mut command, probe);
        }
        webhook
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        let kubeconfig = support::kubeconfig();
        let _ = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .args(["delete", "validatingwebhookconfiguration", &self.name, "--ignore-not-found"])
            .env_remove("KUBECONFIG")
            .output();
    }
}

/// `apply` (a change of `a`, a create of `b`) while the admission webhook fails: its calls for
/// each object fail twice (down: the connection reset, the apiserver answers 500), stall once
/// past its three-second timeout (500 again), or it refuses `b` every time (403 with the webhook's
/// words). kubeupd sends the writes the webhook failed again and converges where it recovers;
/// a refusal it reports at once, never sent again. Each tool's row is the webhook table of
/// docs/reliability.md.
#[test]
fn apply_while_the_admission_webhook_fails() {
    let namespace = TestNamespace::new("faults-webhook");
    let faults = ["down", "stall", "deny"];
    let cell = |tool: Tool, fault: &str| Cell {
        namespace: &namespace,
        prefix: format!("{}{fault}", if tool == Tool::Kubeupd { "u" } else { "k" }),
    };
    // Before the webhook is there: it would judge the setup's creates too.
    for tool in BOTH {
        for fault in faults {
            one_configmap(&cell(*tool, fault));
        }
    }
    let rules: Vec<FaultRule> = ["u", "k"]
        .iter()
        .flat_map(|letter| {
            ["a", "b"]
                .iter()
                .flat_map(move |object| {
                    [
                        FaultRule::reset_before("POST", &format!("/{letter}down-{object} ")).first(2),
                        FaultRule::stall("POST", &format!("/{letter}stall-{object} "), "6s").first(1),
                    ]
                })
                .chain([FaultRule::deny(&format!("/{letter}deny-b "))])
        })
        .collect();
    let webhook = Webhook::register(&namespace, &rules);
    let mut outcomes = BTreeMap::new();
    std::thread::scope(|scope| {
        let mut running = Vec::new();
        for &tool in BOTH {
            for fault in faults {
                let (namespace, cell) = (&namespace, cell(tool, fault));
                running.push(scope.spawn(move || {
                    let proxy = FaultRelay::start(&[]);
                    let input = format!("{}---\n{}", cell.configmap("a", "2"), cell.configmap("b", "2"));
                    let output = run_tool(tool, &proxy, &namespace.name, &args(&["apply", "-f", "-"]), &input, false);
                    let state = cell.judge(&[("a", "1")], &[("a", "2"), ("b", "2")]);
                    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
                    eprintln!("webhook {fault} / {tool:?}: {state:?}\n{stderr}");
                    ((tool_name(tool), fault), outcome(output.status.success(), &state).to_string(), stderr)
                }));
            }
        }
        for cell in running {
            let (key, result, stderr) = cell.join().expect("the cell ran");
            outcomes.insert(key, (result, stderr));
        }
    });
    let refused = |letter: &str| {
        webhook.server.log().iter().filter(|line| line.contains(&format!("/{letter}deny-b CREATE"))).count()
    };
    let (ours, theirs) = (&outcomes[&("kubeupd", "deny")].1, &outcomes[&("kubectl", "deny")].1);
    let words = format!("admission webhook \"{}\" denied the request: injected: the webhook refuses", webhook.name);
    assert!(ours.contains(&format!("{words} udeny-b")), "kubeupd says the webhook's words: {ours}");
    assert!(theirs.contains(&format!("{words} kdeny-b")), "kubectl says the webhook's words: {theirs}");
    assert_eq!(refused("u"), 1, "kubeupd sends a refused create once");
    drop(webhook);
    let mut wrong = Vec::new();
    for tool in ["kubeupd", "kubectl"] {
        let observed: Vec<&str> = faults.iter().map(|fault| outcomes[&(tool, *fault)].0.as_str()).collect();
        if documented_cells("webhook", tool) != observed {
            wrong.push(format!("| {tool} | {} |", observed.join(" | ")));
        }
    }
    assert!(wrong.is_empty(), "rows differing from the webhook table of docs/reliability.md:\n{}", wrong.join("\n"));
}

/// What a test restarts under a 300-object apply, each on an extra cluster of its own
/// (`scripts/local-cluster.sh extra`), so that no other test's server goes away.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Restarted {
    /// The apiserver (`extra-restart`), on the test cluster's etcd.
    Apiserver,
    /// The etcd of an apiserver that has one of its own (`extra NAME --own-etcd`,
    /// `extra-restart-etcd`).
    Etcd,
}

impl Restarted {
    /// The extra cluster's name.
    fn cluster(self) -> &'static str {
        match self {
            Restarted::Apiserver => "faults-restart",
            Restarted::Etcd => "faults-etcd",
        }
    }

    /// The table of docs/reliability.md that holds the outcomes.
    fn table(self) -> &'static str {
        match self {
            Restarted::Apiserver => "restart",
            Restarted::Etcd => "etcd-restart",
        }
    }

    /// The columns of its table: whether the apply is server-side, and the seconds the restarted
    /// process stays away. An etcd away longer than the apiserver's own timeout for a write (about
    /// 34 s) makes it answer 504 to the writes it holds; server-side only, where every request
    /// is a write (kubectl's client-side apply meets it with a read or a write, by chance, and a
    /// read is held 60 s).
    fn columns(self) -> &'static [(bool, u32)] {
        match self {
            Restarted::Apiserver => &[(false, 0), (true, 0)],
            Restarted::Etcd => &[(false, 0), (true, 0), (true, ETCD_AWAY)],
        }
    }
}

/// How long etcd stays away in the last columns of the etcd-restart table.
const ETCD_AWAY: u32 = 40;

/// Runs `scripts/local-cluster.sh` with `words` for the 1.37 cluster; returns what it printed.
fn local_cluster(words: &[&str]) -> String {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/local-cluster.sh");
    let output = Command::new(script).args(words).env("KUBEUPD_KUBERNETES", "1.37").output().expect("the script runs");
    assert!(output.status.success(), "local-cluster.sh {words:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// The extra cluster whose apiserver or etcd a test restarts, started for the test and stopped
/// when dropped.
struct RestartedCluster {
    restarted: Restarted,
    kubeconfig: std::path::PathBuf,
}

impl RestartedCluster {
    fn start(restarted: Restarted) -> Self {
        let name = restarted.cluster();
        let started = match restarted {
            Restarted::Apiserver => local_cluster(&["extra", name]),
            Restarted::Etcd => local_cluster(&["extra", name, "--own-etcd"]),
        };
        RestartedCluster { restarted, kubeconfig: started.into() }
    }

    /// Restarts its apiserver or its etcd (that one away for `away` seconds); returns once it
    /// answers again.
    fn restart(&self, away: u32) {
        match self.restarted {
            Restarted::Apiserver => local_cluster(&["extra-restart", self.restarted.cluster()]),
            Restarted::Etcd => local_cluster(&["extra-restart-etcd", self.restarted.cluster(), &away.to_string()]),
        };
    }

    /// kubectl straight to it.
    fn kubectl(&self, args: &[&str]) -> Output {
        let output = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(args)
            .env_remove("KUBECONFIG")
            .output()
            .expect("kubectl runs");
        assert!(output.status.success(), "kubectl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        output
    }
}

impl RestartedCluster {
    /// Deletes `namespace` and its ConfigMaps; the extra cluster runs no namespace controller, so
    /// the test finalizes the namespace itself once they are gone.
    fn remove_namespace(&self, namespace: &str) {
        self.kubectl(&["delete", "configmaps", "--all", "-n", namespace, "--wait=false"]);
        self.kubectl(&["delete", "namespace", namespace, "--wait=false"]);
        let mut object: Value =
            serde_json::from_slice(&self.kubectl(&["get", "namespace", namespace, "-o", "json"]).stdout).unwrap();
        object["spec"]["finalizers"] = Value::Array(Vec::new());
        let finalize = format!("/api/v1/namespaces/{namespace}/finalize");
        let mut command = Command::new("kubectl");
        command.arg("--kubeconfig").arg(&self.kubeconfig).args(["replace", "--raw", &finalize, "-f", "-"]);
        let finalized = support::with_stdin(command.env_remove("KUBECONFIG"), &object.to_string());
        assert!(finalized.status.success(), "{}", String::from_utf8_lossy(&finalized.stderr));
    }
}

impl Drop for RestartedCluster {
    fn drop(&mut self) {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/local-cluster.sh");
        let _ = Command::new(script)
            .args(["extra-down", self.restarted.cluster()])
            .env("KUBEUPD_KUBERNETES", "1.37")
            .output();
    }
}

/// `tool` applies 300 ConfigMaps to `cluster` (`server_side`: with `--server-side`), whose
/// apiserver or etcd is restarted once the tool has printed 100 objects (etcd away for `away`
/// seconds). Returns the outcome, from
/// the tool's exit and the ConfigMaps the server holds afterwards: all 300 as applied, none, or
/// some (a ConfigMap missing, extra or not as applied).
fn apply_through_a_restart(tool: Tool, server_side: bool, away: u32, cluster: &RestartedCluster) -> &'static str {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let mode = if server_side { "ssa" } else { "csa" };
    let namespace = format!("faults-restart-{}-{mode}-{}-{}", tool_name(tool), std::process::id(), nanos % 10_000);
    cluster.kubectl(&["create", "namespace", &namespace]);
    let manifests: String = (0..300)
        .map(|index| {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{index}}}\ndata: {{v: \"{index}\"}}\n---\n")
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (stdout, stderr) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let mut command = match tool {
        Tool::Kubeupd => Command::new(assert_cmd::cargo::cargo_bin("kubeupd")),
        Tool::Kubectl => Command::new("kubectl"),
    };
    let mut child = command
        .arg("--kubeconfig")
        .arg(&cluster.kubeconfig)
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .args(["-n", &namespace, "apply", "-f", "-"])
        .args(server_side.then_some("--server-side"))
        .env_remove("KUBECONFIG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(manifests.as_bytes()).unwrap();
    let printed = || std::fs::read_to_string(&stdout).unwrap_or_default().lines().count();
    while printed() < 100 && child.try_wait().unwrap().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(child.try_wait().unwrap().is_none(), "{tool:?} finished before the restart");
    cluster.restart(away);
    let status = child.wait().unwrap();
    let listed = cluster.kubectl(&["get", "configmaps", "-n", &namespace, "-o", "json"]);
    let items =
        serde_json::from_slice::<Value>(&listed.stdout).unwrap()["items"].as_array().cloned().unwrap_or_default();
    let found: BTreeMap<String, String> = items
        .iter()
        .filter(|item| item["metadata"]["name"] != "kube-root-ca.crt")
        .map(|item| {
            let name = item["metadata"]["name"].as_str().unwrap_or_default().to_string();
            (name, item["data"]["v"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    let desired: BTreeMap<String, String> = (0..300).map(|index| (format!("c{index}"), index.to_string())).collect();
    let state = if found == desired {
        State::Desired
    } else if found.is_empty() {
        State::Unchanged
    } else if found.keys().any(|name| !desired.contains_key(name)) {
        State::Duplicated
    } else {
        State::Partial
    };
    let errors = std::fs::read_to_string(&stderr).unwrap_or_default();
    let last = errors.lines().last().unwrap_or_default();
    eprintln!(
        "{:?} restart, away {away} s / {tool:?} / {mode}: {status:?}, {} objects\n{last}",
        cluster.restarted,
        found.len()
    );
    cluster.remove_namespace(&namespace);
    outcome(status.success(), &state)
}

/// Each tool applies 300 ConfigMaps, in each column of `restarted`'s table, while `restarted`
/// restarts; each tool's row is that table of docs/reliability.md.
fn check_apply_through_restarts(restarted: Restarted) {
    let cluster = RestartedCluster::start(restarted);
    let mut wrong = Vec::new();
    for &tool in BOTH {
        let observed: Vec<&str> = (restarted.columns().iter())
            .map(|&(server_side, away)| apply_through_a_restart(tool, server_side, away, &cluster))
            .collect();
        if documented_cells(restarted.table(), tool_name(tool)) != observed {
            wrong.push(format!("| {} | {} |", tool_name(tool), observed.join(" | ")));
        }
    }
    assert!(
        wrong.is_empty(),
        "rows differing from the {} table of docs/reliability.md:\n{}",
        restarted.table(),
        wrong.join("\n")
    );
}

/// `apply` (client- and server-side) of 300 objects while the apiserver restarts (its own
/// apiserver, an extra cluster on the test cluster's etcd: the restart reaches no other test).
/// kubeupd waits for a server that answered earlier and then refuses connections, and converges;
/// kubectl fails the objects it met the restart with.
#[test]
fn apply_while_the_apiserver_restarts() {
    check_apply_through_restarts(Restarted::Apiserver);
}

/// `apply` (client- and server-side) of 300 objects while etcd restarts: an extra cluster on an
/// etcd of its own, stopped and started again on its data after 100 objects (at once, then, for
/// `--server-side`, after [`ETCD_AWAY`] seconds), so that no other test's etcd goes away. The apiserver holds the
/// requests it cannot carry out meanwhile, and answers 504 to writes held past its own timeout:
/// kubeupd sends those once more, kubectl fails them.
#[test]
fn apply_while_etcd_restarts() {
    check_apply_through_restarts(Restarted::Etcd);
}
