//! kubectl's printers (`-o jsonpath`, `jsonpath-file`, `jsonpath-as-json`, `custom-columns`,
//! `custom-columns-file`) and `get`'s script flags, against a real kube-apiserver with kubectl as
//! the oracle: the same command on the same objects gives the same bytes and exit code.

use crate::support;

use support::{TestNamespace, testdata, without_ages};

/// A namespace with two Deployments (`web`: 2 replicas, one container; `api`: 1 replica, two
/// containers) and three ConfigMaps (`one`, `two`, `three`).
fn objects(prefix: &str) -> TestNamespace {
    let namespace = TestNamespace::new(prefix);
    namespace.apply_testdata("get/app.yaml");
    namespace.apply_testdata("printers/extra.yaml");
    namespace
}

/// Every case runs through kubectl and kubeupd; output and exit code must be kubectl's.
#[test]
fn jsonpath_and_custom_columns_match_kubectl() {
    let ns = objects("printers");
    let n = ns.name.as_str();
    let names_file = format!("jsonpath-file={}", testdata("printers/names.jsonpath").display());
    let columns_file = format!("custom-columns-file={}", testdata("printers/columns.txt").display());
    let deploys = ["get", "deploy", "-n", n];
    let web = ["get", "deploy", "web", "-n", n];
    let cms = ["get", "cm", "-n", n];
    let api = ["get", "deploy", "api", "-n", n];
    let one = ["get", "cm", "one", "-n", n];
    let cases: Vec<(&[&str], &str)> = vec![
        // Fields, lists, indexes, slices, unions.
        (&web, "jsonpath={.metadata.name}"),
        (&deploys, "jsonpath={.items[*].metadata.name}"),
        (&deploys, "jsonpath={.items[0].metadata.name}"),
        (&deploys, "jsonpath={.items[-1].metadata.name}"),
        (&deploys, "jsonpath={.items[-1:].metadata.name}"),
        (&cms, "jsonpath={.items[0:2].metadata.name}"),
        (&cms, "jsonpath={.items[::2].metadata.name}"),
        (&cms, "jsonpath={.items[1:].metadata.name}"),
        (&cms, "jsonpath={.items[0,2].metadata.name}"),
        (&deploys, "jsonpath={.items[*].spec.replicas}"),
        (&web, "jsonpath={.spec.template.spec.containers[0].image}"),
        (&web, "jsonpath={.spec.template.spec.containers[0].ports[0].containerPort}"),
        (&web, "jsonpath={.spec.template.spec.containers[0].args}"),
        (&web, "jsonpath={.spec.template.spec.containers[*].args[*]}"),
        (&deploys, "jsonpath={.items[*].spec.template.spec.containers[*].name}"),
        (&web, "jsonpath={.spec.strategy}"),
        (&web, "jsonpath={.metadata.labels}"),
        (&web, "jsonpath={.metadata.annotations.description}"),
        // Keys with dots: escaped, and kubectl's quoted form (which splits on the dots).
        (&api, r"jsonpath={.metadata.labels.app\.kubernetes\.io/name}"),
        (&api, "jsonpath={.metadata.labels['app.kubernetes.io/name']}"),
        (&one, r"jsonpath={.data.config\.ini}"),
        (&one, "jsonpath={.data}"),
        (&one, "jsonpath={.data.unicode} {.data.tabbed} {.data.quote}"),
        // Filters and their comparisons.
        (&cms, r#"jsonpath={.items[?(@.metadata.name=="two")].data.a}"#),
        (&cms, r#"jsonpath={.items[?(@.metadata.name!="two")].metadata.name}"#),
        (&deploys, "jsonpath={.items[?(@.spec.replicas>1)].metadata.name}"),
        (&deploys, "jsonpath={.items[?(@.spec.replicas<=1)].metadata.name}"),
        (&deploys, "jsonpath={.items[?(@.spec.replicas==2)].metadata.name}"),
        (&cms, "jsonpath={.items[?(@.metadata.labels.tier)].metadata.name}"),
        (&cms, "jsonpath={.items[?(@.metadata.labels.tier=='back')].metadata.name}"),
        (&deploys, "jsonpath={.items[?(@.spec.replicas>1.5)].metadata.name}"),
        // Recursive descent and wildcards.
        (&deploys, "jsonpath={..image}"),
        (&deploys, "jsonpath={..containerPort}"),
        // (A wildcard over a map's values is left out: kubectl prints them in Go's random map order.)
        (&api, "jsonpath={.spec.template.spec.containers.*.name}"),
        // range/end, literals.
        (&deploys, r#"jsonpath={range .items[*]}{.metadata.name}{"\t"}{.spec.replicas}{"\n"}{end}"#),
        (
            &deploys,
            r#"jsonpath={range .items[*]}{.metadata.name}:{range .spec.template.spec.containers[*]}[{.name}]{end}{"\n"}{end}"#,
        ),
        (&web, "jsonpath=name: {.metadata.name}, kind: {.kind}"),
        (&web, "jsonpath={'single'} {\"double\"}"),
        (&cms, "jsonpath={.kind} {.metadata}"),
        // Missing fields: nothing by default; an error without --allow-missing-template-keys.
        (&web, "jsonpath={.status.nothing}"),
        (&web, "jsonpath={.spec.replicas}{.missing}"),
        // Errors: parse, evaluation, format.
        (&web, "jsonpath={.metadata.name"),
        (&web, "jsonpath={.spec.template.spec.containers[x]}"),
        (&web, "jsonpath={.spec.template.spec.containers[3]}"),
        (&web, "jsonpath={.metadata[0]}"),
        (&web, "jsonpath={end}"),
        (&web, "jsonpath={metadata.name}"),
        (&web, "jsonpath={.spec.template.spec.containers[?(@.name='x')]}"),
        (&web, "jsonpath"),
        (&web, "jsonpath="),
        (&web, "foo"),
        (&web, "custom-columns="),
        (&web, "custom-columns=NAME"),
        // The other spellings.
        (&deploys, "jsonpath-as-json={.items[*].metadata.name}"),
        (&web, "jsonpath-as-json={.spec.replicas}{.metadata.name}"),
        (&deploys, &names_file),
        (&deploys, "jsonpath-file=/nonexistent/template"),
        // Custom columns.
        (&deploys, "custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas"),
        (&deploys, "custom-columns=NAME:metadata.name,IMAGES:{.spec.template.spec.containers[*].image}"),
        (&deploys, "custom-columns=NAME:.metadata.name,LABELS:.metadata.labels,NONE:.status.nothing"),
        (&cms, "custom-columns=NAME:.metadata.name,TIER:.metadata.labels.tier"),
        (&web, "custom-columns=A:{.a}{.b}"),
        (&deploys, &columns_file),
        (&deploys, "name"),
    ];
    assert!(cases.len() >= 40);
    for (args, format) in &cases {
        let mut line = args.to_vec();
        line.extend(["-o", format]);
        ns.assert_same_as_kubectl(&line);
    }
    // Flags that change the printers.
    for line in [
        vec!["get", "deploy", "web", "-o", "jsonpath={.nope}", "--allow-missing-template-keys=false", "-n", n],
        vec!["get", "deploy", "-o", "jsonpath", "--template={.items[*].spec.replicas}", "-n", n],
        vec!["get", "deploy", "-o", "custom-columns=NAME:.metadata.name", "--no-headers", "-n", n],
        vec!["get", "deploy", "-o", "jsonpath={.items[*].metadata.name}", "--sort-by=.spec.replicas", "-n", n],
    ] {
        ns.assert_same_as_kubectl(&line);
    }
}

#[test]
fn get_flags_match_kubectl() {
    let ns = objects("get-flags");
    let n = ns.name.as_str();
    for line in [
        vec!["get", "cm", "--show-labels", "-n", n],
        vec!["get", "deploy", "-L", "tier", "-L", "app.kubernetes.io/name,app", "-n", n],
        vec!["get", "deploy", "--show-labels", "-L", "tier", "-o", "wide", "-n", n],
        vec!["get", "cm", "--no-headers", "-n", n],
        vec!["get", "cm", "--show-kind", "-n", n],
        vec!["get", "cm", "--sort-by=.metadata.name", "-n", n],
        vec!["get", "cm", "--sort-by={.metadata.labels.tier}", "-o", "name", "-n", n],
        vec!["get", "deploy", "--sort-by=.spec.replicas", "-n", n],
        vec!["get", "deploy", "--sort-by=.spec.replicas", "-o", "name", "-n", n],
        vec!["get", "cm", "--sort-by=.data.a", "-n", n],
        vec!["get", "cm", "--sort-by=.metadata.nothing", "-n", n],
        vec!["get", "cm", "--sort-by=.metadata.nothing", "-o", "name", "-n", n],
        vec!["get", "cm", "--field-selector", "metadata.name=two", "-n", n],
        vec!["get", "cm", "--field-selector=metadata.name!=two", "-o", "name", "-n", n],
        vec!["get", "cm", "--field-selector", "bogus=1", "-n", n],
        vec!["get", "cm", "nope", "--ignore-not-found", "-n", n],
        vec!["get", "cm", "nope", "two", "--ignore-not-found", "-n", n],
        vec!["get", "cm", "nope", "--ignore-not-found", "-o", "json", "-n", n],
        vec!["get", "cm,deploy", "--server-print=false", "-n", n],
        vec!["get", "cm", "two", "nope", "--server-print=false", "--show-labels", "-L", "tier", "-n", n],
        vec!["get", "deploy", "--server-print=false", "--sort-by=.spec.replicas", "-o", "wide", "-n", n],
    ] {
        ns.assert_same_as_kubectl(&line);
    }
}

/// Writing verbs print with the same printers.
#[test]
fn write_verbs_print_through_templates_like_kubectl() {
    let ns = objects("printers-write");
    let n = ns.name.as_str();
    let file = testdata("printers/extra.yaml");
    let file = file.to_str().unwrap();
    for line in [
        vec!["apply", "-f", file, "-o", "jsonpath={.kind}/{.metadata.name}", "-n", n],
        vec!["patch", "cm", "two", "-p", r#"{"data":{"b":"2"}}"#, "-o", "jsonpath={.data}", "-n", n],
        vec!["patch", "cm", "two", "-p", r#"{"data":{"b":"2"}}"#, "-o", "jsonpath-as-json={.data.b}", "-n", n],
        vec!["patch", "cm", "two", "-p", "{}", "-o", "wide", "-n", n],
        vec!["patch", "cm", "two", "-p", "{}", "-o", "custom-columns=A:.a", "-n", n],
    ] {
        ns.assert_same_as_kubectl(&line);
    }
}

/// A list longer than one page is read in pages and printed whole, as kubectl prints it.
#[test]
fn chunked_lists_read_every_page() {
    let ns = TestNamespace::new("printers-chunks");
    let n = ns.name.as_str();
    for index in 0..7 {
        ns.kubectl_ok(&["create", "configmap", &format!("c{index}"), "-n", n]);
    }
    ns.assert_same_as_kubectl(&["get", "cm", "--chunk-size=2", "-o", "name", "-n", n]);
    ns.assert_same_as_kubectl(&["get", "cm", "--chunk-size=3", "-o", "jsonpath={.items[*].metadata.name}", "-n", n]);
    let ours = ns.kubeupd().args(["get", "cm", "--chunk-size=2", "-o", "name", "-n", n, "-v=6"]).output().unwrap();
    let log = String::from_utf8_lossy(&ours.stderr);
    let pages = log.lines().filter(|line| line.contains("limit=2")).count();
    assert!(pages >= 4, "7 objects in pages of 2 take 4 requests:\n{log}");
    assert!(log.contains("continue="), "later pages carry the continue token:\n{log}");
}

#[test]
fn ages_are_masked_keeping_their_width() {
    let table = b"NAME   DATA   AGE\none    1      8s\ntwo    1      6m17s\n";
    assert_eq!(without_ages(table), "NAME   DATA   AGE\none    1      ##\ntwo    1      #####\n");
    assert_eq!(without_ages(b"AGE 7s"), without_ages(b"AGE 8s"));
    assert_ne!(without_ages(b"one 7s"), without_ages(b"two 7s"));
    assert_eq!(without_ages(b"s 5 sm x1"), "s 5 sm x1");
}

/// Runs `kubeupd ARGS` and `kubectl ARGS` (watches) side by side: reads `before` lines from
/// each, makes `change`, reads `after` lines more, stops both; returns each tool's lines.
fn watch_both(
    ns: &TestNamespace,
    args: &[&str],
    before: usize,
    change: impl FnOnce(),
    after: usize,
) -> [Vec<String>; 2] {
    use std::io::{BufRead, BufReader};
    use std::sync::mpsc;
    use std::time::Duration;

    let start = |mut command: std::process::Command| {
        let mut child = command.args(args).stdout(std::process::Stdio::piped()).spawn().expect("the watch starts");
        let (send, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        (child, lines)
    };
    let watchers = [("kubeupd", start(ns.kubeupd_process())), ("kubectl", start(ns.kubectl()))];
    let read = |count: usize, seen: &mut [Vec<String>; 2]| {
        for ((who, (_, lines)), seen) in watchers.iter().zip(seen.iter_mut()) {
            for _ in 0..count {
                let line = lines.recv_timeout(Duration::from_secs(60));
                seen.push(line.unwrap_or_else(|_| panic!("{who} {args:?} printed only {seen:?}")));
            }
        }
    };
    let mut seen = [Vec::new(), Vec::new()];
    read(before, &mut seen);
    change();
    read(after, &mut seen);
    for (_, (mut child, _)) in watchers {
        let _ = child.kill();
        let _ = child.wait();
    }
    seen
}

/// `get -w` prints the object, then its change, as kubectl's watch does.
#[test]
fn watch_prints_each_change_like_kubectl() {
    let ns = TestNamespace::new("printers-watch");
    let n = ns.name.as_str();
    ns.kubectl_ok(&["create", "configmap", "watched", "--from-literal=k=1", "-n", n]);
    // Selected by a label: the namespace holds the controllers' kube-root-ca.crt too, where they run.
    ns.kubectl_ok(&["label", "cm", "watched", "printers=watched", "-n", n]);
    let ns = &ns;
    let patch = |value: &str| {
        let patch = format!(r#"{{"data":{{"k":"{value}"}}}}"#);
        move || drop(ns.kubectl_ok(&["patch", "cm", "watched", "-p", &patch, "-n", n]))
    };
    let [ours, theirs] =
        watch_both(ns, &["get", "cm", "watched", "-w", "-o", r#"jsonpath={.data.k}{"\n"}"#, "-n", n], 1, patch("2"), 1);
    assert_eq!(ours, ["1", "2"]);
    assert_eq!(ours, theirs);
    let events = [
        "get",
        "cm",
        "-l",
        "printers=watched",
        "-w",
        "--output-watch-events",
        "-o",
        r#"jsonpath={.type} {.object.metadata.name}{"\n"}"#,
        "-n",
        n,
    ];
    let [ours, theirs] = watch_both(ns, &events, 1, patch("3"), 1);
    assert_eq!(ours, ["ADDED watched", "MODIFIED watched"]);
    assert_eq!(ours, theirs);
}

/// `get -w` tables: the header once, a row per change, columns that widen as a longer name
/// comes and never narrow; with events, labels and custom columns, as kubectl's tab writer
/// lays them out (ages masked, keeping their width).
#[test]
fn watch_tables_grow_like_kubectl() {
    let ns = &TestNamespace::new("printers-watch-tables");
    let n = ns.name.as_str();
    // The test's config maps carry a label that selects them: the namespace holds the
    // controllers' kube-root-ca.crt too, where they run.
    let make = |name: &str, value: &str| {
        let yaml = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, labels: {{printers: watch}}}}\ndata: {{k: {value:?}}}\n"
        );
        let created = support::with_stdin(ns.kubectl().args(["create", "-n", n, "-f", "-"]), &yaml);
        assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    };
    make("a", "1");
    let create = |name: String| move || make(&name, "x\ty");
    let selected = ["-l", "printers=watch", "-n", n];
    for (index, args) in [
        &["get", "cm", "-w"][..],
        &["get", "cm", "-w", "--output-watch-events"],
        &["get", "cm", "-w", "-o", "wide", "--show-labels", "-L", "app", "--show-kind"],
        &["get", "cm", "-w", "--no-headers"],
        &["get", "cm", "-w", "-o", "custom-columns=NAME:.metadata.name,DATA:.data"],
        &["get", "cm", "-w", "--server-print=false", "--output-watch-events"],
    ]
    .into_iter()
    .enumerate()
    {
        let args = &[args, &selected[..]].concat();
        let existing = index + 1;
        let name = format!("a-much-longer-name-{index}");
        let header = usize::from(!args.contains(&"--no-headers"));
        let [ours, theirs] = watch_both(ns, args, header + existing, create(name.clone()), 1);
        let masked = |lines: &[String]| without_ages(lines.join("\n").as_bytes());
        assert_eq!(masked(&ours), masked(&theirs), "{args:?} (left: kubeupd)");
        assert!(ours.last().unwrap().contains(&name), "the new object's row: {ours:?}");
    }
    // A watch that starts with nothing (secrets: the controllers publish none): the header comes
    // with the first row.
    let empty = TestNamespace::new("printers-watch-empty");
    let e = empty.name.as_str();
    let [ours, theirs] = watch_both(
        &empty,
        &["get", "secrets", "-w", "-n", e],
        0,
        || drop(empty.kubectl_ok(&["create", "secret", "generic", "first", "-n", e])),
        2,
    );
    assert_eq!(without_ages(ours.join("\n").as_bytes()), without_ages(theirs.join("\n").as_bytes()));
}

/// `-o kyaml` (kubectl 1.34 and later) against kubectl 1.37 on the same objects: keys quoted
/// only where YAML could misread them, folded multi-line strings, cuddled lists of maps, lists,
/// managed fields shown or hidden, and a write verb's output.
#[test]
fn kyaml_matches_kubectl_1_37() {
    let ns = objects("printers-kyaml");
    ns.apply_testdata("printers/kyaml.yaml");
    let n = ns.name.as_str();
    let file = testdata("printers/kyaml.yaml");
    for args in [
        &["get", "cm", "kyaml", "-o", "kyaml", "-n", n][..],
        &["get", "deploy", "-o", "kyaml", "-n", n],
        &["get", "deploy", "web", "-o", "kyaml", "--show-managed-fields", "-n", n],
        &["get", "cm,deploy", "-o", "kyaml", "-n", n],
        &["label", "-f", file.to_str().unwrap(), "--local", "x=y", "-o", "kyaml"],
    ] {
        let ours = ns.kubeupd().args(args).output().expect("kubeupd runs");
        let theirs = ns.kubectl_by_env().args(args).output().expect("kubectl 1.37 runs");
        support::assert_same_output(&ours, &theirs, &format!("{args:?}"));
        assert!(String::from_utf8_lossy(&ours.stdout).starts_with("---\n{\n"), "{args:?}");
    }
}

/// Several objects printed by one command: YAML documents separated by `---` where kubectl's verb
/// prints them with one printer (annotate, set, scale, create, wait), not where it makes a
/// printer for each (label, patch); apply's `List` with its empty metadata.
#[test]
fn several_objects_print_as_kubectl_prints_them() {
    let ns = objects("printers-several");
    let n = ns.name.as_str();
    let file = testdata("get/app.yaml");
    let file = file.to_str().unwrap();
    for args in [
        &["annotate", "cm", "one", "two", "x=y", "--dry-run=client", "-o", "yaml", "-n", n][..],
        &["annotate", "-f", file, "--local", "x=y", "-o", "yaml"],
        &["label", "cm", "one", "two", "x=y", "--dry-run=client", "-o", "yaml", "-n", n],
        &["label", "-f", file, "--local", "x=y", "-o", "yaml"],
        &["set", "image", "deploy/web", "deploy/api", "*=nginx:2", "--dry-run=client", "-o", "yaml", "-n", n],
        &["set", "env", "deploy/web", "deploy/api", "A=b", "--dry-run=client", "-o", "yaml", "-n", n],
        &["scale", "deploy", "web", "api", "--replicas=3", "--dry-run=client", "-o", "yaml", "-n", n],
        &["patch", "deploy", "web", "-p", "{}", "--dry-run=client", "-o", "yaml", "-n", n],
        &["patch", "cm", "one", "two", "-p", "{}", "--dry-run=client", "-o", "yaml", "-n", n],
        &["create", "-f", file, "--dry-run=client", "-o", "yaml", "-n", n],
        &["wait", "--for=create", "cm/one", "cm/two", "-o", "yaml", "-n", n],
    ] {
        ns.assert_same_as_kubectl(args);
    }
    // apply adds its summary line on stderr (a difference on purpose): stdout is compared.
    for args in [
        &["apply", "-f", file, "--dry-run=server", "-o", "yaml", "-n", n][..],
        &["apply", "-f", file, "--dry-run=server", "-o", "jsonpath={.kind} {.metadata}", "-n", n],
    ] {
        let ours = ns.kubeupd().args(args).output().unwrap();
        let theirs = ns.kubectl().args(args).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout), "{args:?}");
        assert_eq!(ours.status.code(), theirs.status.code(), "{args:?}");
    }
}

/// `-o go-template` against kubectl on one object (testdata/printers/template-object.json): 151
/// templates covering fields, numbers (int64 and float64 as kubectl decodes them), missing keys,
/// control structures, variables, `define`/`template`/`block`, every function with its errors,
/// trim markers, comments and parse errors: the same output, partial output and error dump
/// included, and exit code.
#[test]
fn go_templates_match_kubectl() {
    let ns = TestNamespace::new("printers-gotemplate");
    let file = testdata("printers/template-object.json");
    let file = file.to_str().unwrap();
    for template in [
        r####"{{.metadata.name}}"####,
        r####"{{.spec.replicas}}"####,
        r####"{{.spec.ratio}}"####,
        r####"{{.spec.big}}"####,
        r####"{{.spec.tiny}}"####,
        r####"{{.spec.neg}}"####,
        r####"{{.spec.flag}}"####,
        r####"{{.spec.nothing}}"####,
        r####"{{.missing}}"####,
        r####"{{.missing.deeper}}"####,
        r####"{{.spec.list}}"####,
        r####"{{.metadata.labels}}"####,
        r####"{{.spec.ports}}"####,
        r####"{{.spec.emptymap}}"####,
        r####"{{.spec.list.x}}"####,
        r####"{{.metadata.name.x}}"####,
        r####"{{.spec.replicas.x}}"####,
        r####"{{print .spec.nothing}}"####,
        r####"{{.metadata.name"####,
        r####"{{foo}}"####,
        r####"{{end}}"####,
        r####"{{if}}{{end}}"####,
        r####"{{range .spec.list}}{{.}},{{end}}"####,
        r####"{{range $i, $p := .spec.ports}}{{$i}}={{$p.port}} {{end}}"####,
        r####"{{range $k, $v := .metadata.labels}}{{$k}}:{{$v}};{{end}}"####,
        r####"{{if eq .spec.replicas 3}}yes{{end}}"####,
        r####"{{if eq .spec.replicas 3.0}}yes{{end}}"####,
        r####"{{if eq .metadata.name "web"}}yes{{else}}no{{end}}"####,
        r####"{{len .spec.list}}"####,
        r####"{{len .spec.replicas}}"####,
        r####"{{index .spec.list 1}}"####,
        r####"{{index .spec.list 5}}"####,
        r####"{{index .metadata.labels "app"}}"####,
        r####"{{index .metadata.labels "nope"}}"####,
        r####"{{printf "%d" .spec.replicas}}"####,
        r####"{{printf "%v-%s-%q" .spec.replicas .metadata.name .metadata.name}}"####,
        r####"{{printf "%.2f|%5.1f|%x" .spec.ratio .spec.ratio .metadata.name}}"####,
        r####"{{base64decode .metadata.annotations.note}}"####,
        r####"{{base64decode .metadata.name}}"####,
        r####"{{exists . "spec" "ports"}}"####,
        r####"{{exists . "spec" "nope"}}"####,
        r####"{{ .metadata.name -}}  |  {{- .kind }}"####,
        r####"{{/* comment */}}x"####,
        r####"{{$x := .metadata.name}}{{$x}}"####,
        r####"{{with .spec.ports}}{{len .}}{{end}}"####,
        r####"{{with .missing}}a{{else}}b{{end}}"####,
        r####"{{and .spec.flag .metadata.name}}"####,
        r####"{{or .missing "dflt"}}"####,
        r####"{{not .spec.flag}}"####,
        r####"{{range .spec.empty}}x{{else}}none{{end}}"####,
        r####"{{range .spec.list}}{{if eq . "y"}}{{break}}{{end}}{{.}}{{end}}"####,
        r####"{{define "t"}}[{{.}}]{{end}}{{template "t" .metadata.name}}"####,
        r####"{{block "b" .kind}}<{{.}}>{{end}}"####,
        r####"{{lt .spec.ratio 1.0}}"####,
        r####"{{lt .metadata.name "x"}}"####,
        r####"{{html "<a&b>"}}"####,
        r####"{{js "a'b"}}"####,
        r####"{{urlquery "a b&c"}}"####,
        r####"{{print 1 2 "a" "b" 3}}"####,
        r####"{{println "a" 1}}"####,
        r####"{{.metadata.labels.app | printf "%s!"}}"####,
        r####"{{3}} {{1.5}} {{"s"}} {{true}} {{nil}}"####,
        r####"{{slice .metadata.name 1 2}}"####,
        r####"{{range .spec.ports}}{{.port}}{{"\n"}}{{end}}"####,
        r####"{{.spec.replicas | len}}"####,
        r####"{{range .spec.list}}{{if eq . "y"}}{{continue}}{{end}}{{.}}{{end}}"####,
        r####"{{if .missing}}a{{else if .spec.flag}}b{{else}}c{{end}}"####,
        r####"{{with $p := index .spec.ports 0}}{{$p.name}}{{end}}"####,
        r####"{{$n := 0}}{{range .spec.list}}{{$n = .}}{{end}}{{$n}}"####,
        r####"{{printf "%5s|%-5s|%05d|%+d" "a" "b" .spec.replicas .spec.replicas}}"####,
        r####"{{printf "%d %d" .spec.replicas}}"####,
        r####"{{printf "%d" .spec.replicas .spec.replicas}}"####,
        r####"{{printf "%s" .spec.replicas}}"####,
        r####"{{printf "%e %g %v" .spec.ratio .spec.tiny .spec.list}}"####,
        r####"{{printf "%t %q" .spec.flag .spec.list}}"####,
        r####"{{(index .spec.ports 1).name}}"####,
        r####"{{len (index .spec.ports 0)}}"####,
        r####"{{$.metadata.name}}{{range .spec.list}}{{$.kind}}{{end}}"####,
        r####"{{ne .metadata.name "x"}} {{ge .spec.replicas 3}} {{gt .spec.ratio 0.1}} {{le 1 2}}"####,
        r####"{{eq .metadata.name "a" "b" "web"}}"####,
        r####"{{lt .spec.flag true}}"####,
        r####"{{eq .spec.list .spec.list}}"####,
        r####"{{eq .missing "x"}}"####,
        r####"{{eq .spec.nothing nil}}"####,
        r####"{{index .spec.replicas 1}}"####,
        r####"{{index . "spec" "ports"}}"####,
        r####"{{range .metadata.name}}{{.}}{{end}}"####,
        r####"{{$undefined}}"####,
        r####"{{template "nope"}}"####,
        r####"{{if .a}}x"####,
        r####"{{range .spec.list}}"####,
        r####"{{.spec.list | index 1}}"####,
        r####"{{"unterminated}}"####,
        r####"{{.metadata.name | printf "%s-%s" "x"}}"####,
        r####"line1"####,
        r####"{{.metadata.name.x}}"####,
        r####"{{- /* trimmed comment */ -}}   x"####,
        r####"{{with .spec}}{{.replicas}}{{with .ports}}{{len .}}{{end}}{{end}}"####,
        r####"{{range $i, $e := .spec.list}}{{if $i}},{{end}}{{$e}}{{end}}"####,
        r####"{{range .spec.ports}}{{.name}}={{.port}};{{end}}"####,
        r####"{{.kind}} {{.apiVersion}}"####,
        r####"{{exists . "spec" "list" 1}} {{exists . "spec" "list" 9}} {{exists . "spec" "nothing"}}"####,
        r####"{{not .missing}} {{and}}"####,
        r####"{{print}}|{{print nil}}|{{print .missing}}"####,
        r####"{{range .spec.ports -}}"####,
        r####"  {{.name}}"####,
        r####"{{- end}}"####,
        r####"{{if .spec.flag -}}   yes   {{- end}}!"####,
        r####"{{.spec.ports | len | printf "%03d"}}"####,
        r####"{{printf "%v %v" .spec.emptymap .spec.empty}}"####,
        r####"{{printf "%6.2f|%-8v|%x" .spec.ratio .metadata.name 255}}"####,
        r####"{{printf "%s" nil}}"####,
        r####"{{printf "%d%%" 50}}"####,
        r####"{{print .spec.ratio .spec.big}}"####,
        r####"{{'a'}} {{0x1F}} {{1e3}} {{-5}}"####,
        r####"{{ "a" | printf "%s%s" "b" }}"####,
        r####"{{range $i, $e := .spec.list}}{{$i}}{{end}}{{$i}}"####,
        r####"{{.metadata.labels.app}}{{.metadata.labels.missing}}"####,
        r####"{{index .spec.ports 0 "port"}}"####,
        r####"{{with .spec.ports}}{{range .}}{{.port}} {{end}}{{end}}"####,
        r####"{{len .metadata.name}} {{len .spec.emptymap}}"####,
        r####"{{slice .spec.list 1}} {{slice .spec.list 0 1}}"####,
        r####"{{and 1 0 2}} {{or 0 "" "x"}} {{and .spec.flag}}"####,
        r####"{{not 0}} {{not "x"}}"####,
        r####"{{eq 1 1}} {{eq "a" "a"}} {{eq true false}} {{ne 1 2}}"####,
        r####"{{lt 1 2.0}}"####,
        r####"{{if and .spec.flag (eq .kind "ConfigMap")}}ok{{end}}"####,
        r####"{{range .spec.ports}}{{if gt .port 100}}{{.name}}{{end}}{{end}}"####,
        r####"{{.spec.ports.name}}"####,
        r####"{{(index .spec.ports 0).nope.deeper}}"####,
        r####"{{range $k, $v := .data}}{{$k}}={{$v}} {{end}}"####,
        r####"{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}"####,
        r####"{{$x := 1}}{{if true}}{{$x := 2}}{{end}}{{$x}}"####,
        r####"{{define "a"}}A{{template "b" .}}{{end}}{{define "b"}}B{{.kind}}{{end}}{{template "a" .}}"####,
        r####"{{template "x" .}}{{define "x"}}X{{end}}"####,
        r####"{{js "<tag>&=\"q\""}} {{html "\"q\" 'a'"}} {{urlquery "é/~"}}"####,
        r####"{{printf "%q" "tab\there"}} {{printf "%v" "a\nb"}}"####,
        r####"{{.spec.replicas}}{{"\t"}}{{.spec.ratio}}"####,
        r####"{{else}}"####,
        r####"{{range}}{{end}}"####,
        r####"{{with .x}}"####,
        r####"{{.metadata.name | foo}}"####,
        r####"{{printf}}"####,
        r####"{{index}}"####,
        r####"{{len 1 2}}"####,
        r####"{{not}}"####,
        r####"{{.metadata.name 1}}"####,
        r####"{{$x := }}"####,
        r####"{{range $a, $b, $c := .spec.list}}{{end}}"####,
        r####"{{break}}"####,
        r####"{{if .a}}{{else}}{{else}}{{end}}"####,
    ] {
        let output = format!("go-template={template}");
        ns.assert_same_as_kubectl(&["annotate", "-f", file, "--local", "x=y", "-o", &output]);
    }
    for args in [
        &[
            "annotate",
            "-f",
            file,
            "--local",
            "x=y",
            "-o",
            "go-template={{.missing}}",
            "--allow-missing-template-keys=false",
        ][..],
        &["annotate", "-f", file, "--local", "x=y", "--template={{.kind}}"],
        &["annotate", "-f", file, "--local", "x=y", "-o", "template", "--template={{.kind}}"],
        &["annotate", "-f", file, "--local", "x=y", "-o", "go-template"],
    ] {
        ns.assert_same_as_kubectl(args);
    }
}

/// Go's `fmt` through `-o go-template`'s `printf`, against kubectl: each template of
/// testdata/printers/printf-templates.txt (widths and precisions, `*` and operand indexes, flags,
/// every verb on every kind of value, lists and maps element by element, Go's words for its
/// mistakes) on testdata/printers/printf-object.json.
#[test]
fn printf_prints_as_gos_fmt_prints() {
    let ns = TestNamespace::new("printers-printf");
    let file = testdata("printers/printf-object.json");
    let file = file.to_str().unwrap();
    let templates = std::fs::read_to_string(testdata("printers/printf-templates.txt")).unwrap();
    for template in templates.lines() {
        let output = format!("go-template={template}");
        ns.assert_same_as_kubectl(&["annotate", "-f", file, "--local", "x=y", "-o", &output]);
    }
}

/// `get -w --request-timeout`: the watch is one request, which the timeout ends quietly (exit 0),
/// as kubectl's ends.
#[test]
fn a_request_timeout_ends_the_watch_as_kubectls_ends() {
    let ns = TestNamespace::new("printers-watch-timeout");
    let n = ns.name.as_str();
    ns.kubectl_ok(&["create", "configmap", "watched", "-n", n]);
    ns.assert_same_as_kubectl(&["get", "cm", "-w", "--request-timeout=2s", "-o", "name", "-n", n]);
}

/// `get -w` of what cannot be watched as one: several types are refused before anything is shown;
/// several names of one type are shown (a table, names, custom columns; nothing with
/// `--watch-only`), then refused; a name that is not there is the server's NotFound.
#[test]
fn what_cannot_be_watched_as_one_is_refused_as_kubectl_refuses_it() {
    let ns = objects("printers-watch-several");
    let n = ns.name.as_str();
    let cases: [&[&str]; 8] = [
        &["get", "deploy,cm", "-w"],
        &["get", "cm/one", "deploy/web", "-w"],
        &["get", "cm", "one", "two", "-w"],
        &["get", "cm/one", "cm/two", "-w"],
        &["get", "cm", "one", "two", "-w", "-o", "name"],
        &["get", "cm", "one", "two", "-w", "-o", "custom-columns=N:.metadata.name"],
        &["get", "cm", "one", "two", "--watch-only"],
        &["get", "cm", "one", "nope", "-w"],
    ];
    for args in cases {
        let ours = ns.assert_same_as_kubectl(&[args, &["-n", n]].concat());
        assert_eq!(ours.status.code(), Some(1), "{args:?}");
    }
}
