//! `kubeupd get` against a real kube-apiserver, with kubectl as the oracle.

use crate::support;

use support::{TestNamespace, Twins, ensure_cluster_fixture, parse_json, parse_yaml, without_volatile_fields};

fn app(prefix: &str) -> TestNamespace {
    let namespace = TestNamespace::new(prefix);
    namespace.apply_testdata("get/app.yaml");
    namespace
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn tables_match_kubectl() {
    let ns = app("get-tables");
    let n = ns.name.as_str();
    for args in [
        vec!["get", "deployments", "-n", n],
        vec!["get", "configmaps", "-n", n],
        vec!["get", "deploy", "web", "-n", n],
        vec!["get", "cm", "one", "two", "-n", n],
        vec!["get", "deploy", "-o", "wide", "-n", n],
        vec!["get", "cm,deploy", "-n", n],
        vec!["get", "cm/one", "deploy/web", "cm/two", "-n", n],
        vec!["get", "namespace", n],
    ] {
        let output = ns.assert_same_as_kubectl(&args);
        assert!(output.status.success(), "{args:?}");
    }
}

#[test]
fn json_and_yaml_match_kubectl_as_data_and_text() {
    let ns = app("get-documents");
    let n = ns.name.as_str();
    for args in [
        vec!["get", "deploy", "web", "-n", n],
        vec!["get", "cm", "one", "-n", n],
        vec!["get", "cm", "-n", n],
        vec!["get", "cm", "one", "two", "-n", n],
        vec!["get", "cm/one", "deploy/web", "-n", n],
        vec!["get", "secrets", "-n", n],
        vec!["get", "cm", "one", "--show-managed-fields", "-n", n],
    ] {
        for format in ["json", "yaml"] {
            let args: Vec<&str> = args.iter().copied().chain(["-o", format]).collect();
            let ours = ns.kubeupd().args(&args).output().unwrap();
            let theirs = ns.kubectl().args(&args).output().unwrap();
            assert!(ours.status.success(), "{args:?}: {}", stderr(&ours));
            let parse = if format == "json" { parse_json } else { parse_yaml };
            assert_eq!(parse(&ours.stdout), parse(&theirs.stdout), "{args:?} as data");
            assert_eq!(stdout(&ours), stdout(&theirs), "{args:?} as text");
        }
    }
}

#[test]
fn managed_fields_are_hidden_by_default() {
    let ns = app("get-managed");
    let ours = ns.kubeupd().args(["get", "cm", "one", "-o", "json", "-n", &ns.name]).output().unwrap();
    assert!(parse_json(&ours.stdout)["metadata"].get("managedFields").is_none());
    let shown = ns
        .kubeupd()
        .args(["get", "cm", "one", "-o", "json", "--show-managed-fields", "-n", &ns.name])
        .output()
        .unwrap();
    assert!(parse_json(&shown.stdout)["metadata"]["managedFields"].is_array());
}

#[test]
fn custom_resources_match_kubectl() {
    let ns = TestNamespace::new("get-crd");
    ensure_cluster_fixture(&ns, "crd/gadgets.yaml");
    ns.apply_testdata("get/gadgets.yaml");
    let n = ns.name.as_str();
    // A cell of non-ASCII text: kubectl 1.37 pads the header to its bytes.
    ns.apply("apiVersion: get.kubeupd.test/v1\nkind: Gadget\nmetadata: {name: gizmo}\nspec: {size: très grande}\n");
    for args in [
        vec!["get", "gadgets", "-n", n],
        vec!["get", "gadgets", "--no-headers", "-n", n],
        vec!["get", "gdg", "-o", "wide", "-n", n],
        vec!["get", "Gadget", "sprocket", "-n", n],
        vec!["get", "gadgets.get.kubeupd.test", "-o", "yaml", "-n", n],
        vec!["get", "gadget.v1.get.kubeupd.test", "sprocket", "-o", "json", "-n", n],
        vec!["get", "gadgets", "-o", "name", "-n", n],
    ] {
        let output = ns.assert_same_as_kubectl(&args);
        assert!(output.status.success(), "{args:?}");
    }
}

#[test]
fn label_selectors_filter_like_kubectl() {
    let ns = app("get-selectors");
    let n = ns.name.as_str();
    for selector in ["tier=front", "tier in (front,back)", "tier!=front", "!tier", "tier"] {
        for output in [None, Some("name"), Some("json")] {
            let mut args = vec!["get", "cm", "-l", selector, "-n", n];
            args.extend(output.iter().flat_map(|format| ["-o", *format]));
            ns.assert_same_as_kubectl(&args);
        }
    }
    let none = ns.assert_same_as_kubectl(&["get", "cm", "-l", "nothing=here", "-n", n]);
    assert_eq!(stderr(&none), format!("No resources found in {n} namespace.\n"));
}

#[test]
fn all_namespaces_adds_the_namespace_column() {
    let first = app("get-all-a");
    let second = app("get-all-b");
    for ns in [&first, &second] {
        ns.kubectl_ok(&["label", "cm", "one", "two", &format!("run={}", first.name), "-n", &ns.name]);
    }
    let selector = format!("run={}", first.name);
    for args in [
        vec!["get", "cm", "-A", "-l", &selector],
        vec!["get", "cm", "--all-namespaces", "-l", &selector, "-o", "name"],
        vec!["get", "cm", "-A", "-l", &selector, "-o", "yaml"],
        vec!["get", "cm", "-A", "-l", "nothing=here"],
        vec!["get", "cm", "one", "-A"],
        vec!["get", "namespace", &first.name, &second.name, "-A"],
    ] {
        first.assert_same_as_kubectl(&args);
    }
    let table = first.kubeupd().args(["get", "cm", "-A", "-l", &selector]).output().unwrap();
    let text = stdout(&table);
    assert!(text.starts_with("NAMESPACE "), "{text}");
    assert_eq!(text.lines().count(), 5, "{text}");
}

#[test]
fn names_carry_kind_and_group() {
    let ns = app("get-names");
    let n = ns.name.as_str();
    let output = ns.assert_same_as_kubectl(&["get", "deploy,cm", "-o", "name", "-n", n]);
    // With the controllers' kube-root-ca.crt, where they run.
    let published = if support::runs_namespace_controllers() { "configmap/kube-root-ca.crt\n" } else { "" };
    assert_eq!(
        stdout(&output),
        format!("deployment.apps/web\n{published}configmap/one\nconfigmap/three\nconfigmap/two\n")
    );
    ns.assert_same_as_kubectl(&["get", "cm", "one", "-o", "name", "-n", n]);
}

#[test]
fn objects_named_in_files_match_kubectl() {
    let ns = app("get-files");
    let n = ns.name.as_str();
    let file = support::testdata("get/app.yaml");
    let file = file.to_str().unwrap();
    for format in [None, Some("name"), Some("json"), Some("yaml")] {
        let mut args = vec!["get", "-f", file, "-n", n];
        args.extend(format.iter().flat_map(|format| ["-o", *format]));
        ns.assert_same_as_kubectl(&args);
    }
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("one.json");
    std::fs::write(&single, r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "one"}}"#).unwrap();
    ns.assert_same_as_kubectl(&["get", "-f", single.to_str().unwrap(), "-o", "yaml", "-n", n]);
}

#[test]
fn type_spellings_resolve_alike() {
    let ns = app("get-spellings");
    let n = ns.name.as_str();
    let expected = ns.kubeupd().args(["get", "deployments", "-o", "name", "-n", n]).output().unwrap();
    for spelling in
        ["deploy", "deployment", "Deployment", "DEPLOYMENTS", "deployments.apps", "deploy.apps", "deployments.v1.apps"]
    {
        let ours = ns.kubeupd().args(["get", spelling, "-o", "name", "-n", n]).output().unwrap();
        assert!(ours.status.success(), "{spelling}: {}", stderr(&ours));
        assert_eq!(ours.stdout, expected.stdout, "{spelling}");
    }
    for spelling in ["cm", "configmap", "ConfigMap", "configmaps"] {
        let ours = ns.kubeupd().args(["get", spelling, "one", "-o", "name", "-n", n]).output().unwrap();
        assert_eq!(stdout(&ours), "configmap/one\n", "{spelling}");
    }
}

#[test]
fn not_found_prints_the_others_and_fails() {
    let ns = app("get-notfound");
    let n = ns.name.as_str();
    let output = ns.assert_same_as_kubectl(&["get", "cm", "one", "nope", "two", "-n", n]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr(&output), "Error from server (NotFound): configmaps \"nope\" not found\n");
    ns.assert_same_as_kubectl(&["get", "deploy", "nope", "-n", n]);
    ns.assert_same_as_kubectl(&["get", "deploy", "nope", "-o", "yaml", "-n", n]);
    ns.assert_same_as_kubectl(&["get", "cm", "one", "nope", "-o", "json", "-n", n]);
    // A watch of an object that does not exist: kubectl's error, or (1.34 and later) nothing
    // with --ignore-not-found.
    let output = ns.assert_same_as_kubectl(&["get", "cm", "nope", "-w", "-n", n]);
    assert_eq!(output.status.code(), Some(1));
    let output = ns.assert_same_as_kubectl(&["get", "cm", "nope", "-w", "--ignore-not-found", "-n", n]);
    assert!(output.status.success() && output.stdout.is_empty() && output.stderr.is_empty());
}

#[test]
fn unknown_types_fail_like_kubectl() {
    let ns = TestNamespace::new("get-unknown");
    let output = ns.assert_same_as_kubectl(&["get", "foo", "-n", &ns.name]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr(&output), "error: the server doesn't have a resource type \"foo\"\n");
    // kubectl 1.37 names the group of a `resource.group` it cannot find.
    let output = ns.assert_same_as_kubectl(&["get", "pdb.hpa", "-n", &ns.name]);
    assert_eq!(stderr(&output), "error: the server doesn't have a resource type \"pdb\" in group \"hpa\"\n");
    ns.assert_same_as_kubectl(&["get", "foo.v1.example.com", "-n", &ns.name]);
    // And checks the printer flags before anything else, as 1.37 does.
    for flags in [
        &["--show-labels", "-o", "json"][..],
        &["-L", "app", "-o", "custom-columns=NAME:.metadata.name"],
        &["--output-watch-events"],
    ] {
        let output = ns.assert_same_as_kubectl(&[&["get", "cm", "-n", &ns.name][..], flags].concat());
        assert_eq!(output.status.code(), Some(1), "{flags:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("thing.yaml");
    std::fs::write(&file, "apiVersion: nope.example/v1\nkind: Thing\nmetadata:\n  name: x\n").unwrap();
    let output = ns.assert_same_as_kubectl(&["get", "-f", file.to_str().unwrap(), "-n", &ns.name]);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn empty_lists_match_kubectl() {
    let ns = TestNamespace::new("get-empty");
    let n = ns.name.as_str();
    for args in [
        vec!["get", "secrets", "-n", n],
        vec!["get", "secrets", "-o", "name", "-n", n],
        vec!["get", "secrets", "-o", "json", "-n", n],
        vec!["get", "secrets", "-o", "yaml", "-n", n],
        vec!["get", "clusterroles", "-l", "nothing=here"],
    ] {
        ns.assert_same_as_kubectl(&args);
    }
}

#[test]
fn discovery_is_cached_on_disk_and_reused() {
    let ns = app("get-cache");
    let n = ns.name.as_str();
    let first = ns.kubeupd().args(["-v=6", "get", "cm", "one", "-n", n, "-o", "name"]).output().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    let log = stderr(&first);
    let discovery_requests = |log: &str| {
        log.lines()
            .filter(|line| {
                line.contains("GET ")
                    && (line.contains("/api ")
                        || line.contains("/apis ")
                        || line.contains("/api/v1 ")
                        || line.contains("/apis/apps/v1 "))
            })
            .count()
    };
    // `/api` and `/apis`, which a server with aggregated discovery (1.37) answers with every
    // group's resources; an older one (1.20) is then asked for each group version.
    assert!(discovery_requests(&log) >= 2, "the first run discovers: {log}");
    let cached = std::fs::read_dir(ns.cache_dir().join("kubeupd").join("discovery")).unwrap().count();
    assert_eq!(cached, 1, "one server folder in the cache");

    let second = ns.kubeupd().args(["-v=6", "get", "cm", "one", "-n", n, "-o", "name"]).output().unwrap();
    let log = stderr(&second);
    assert_eq!(discovery_requests(&log), 0, "the second run uses the cache: {log}");
    assert_eq!(log.lines().filter(|line| line.contains("GET https://")).count(), 1, "{log}");
    assert!(log.contains(&format!("/api/v1/namespaces/{n}/configmaps/one 200 OK in ")), "{log}");
    assert_eq!(second.stdout, first.stdout);
}

#[test]
fn a_type_missing_from_the_cache_refreshes_discovery_once() {
    let ns = TestNamespace::new("get-refresh");
    ensure_cluster_fixture(&ns, "crd/gadgets.yaml");
    let warm = ns.kubeupd().args(["get", "cm", "-n", &ns.name]).output().unwrap();
    assert!(warm.status.success());
    // Make the cache stale the way a new CRD does: it lacks a type the server serves.
    let folder = std::fs::read_dir(ns.cache_dir().join("kubeupd").join("discovery")).unwrap().next().unwrap().unwrap();
    let file = folder.path().join("discovery.json");
    let mut cached = parse_json(&std::fs::read(&file).unwrap());
    cached["resources"].as_array_mut().unwrap().retain(|rt| rt["group"] != "get.kubeupd.test");
    std::fs::write(&file, serde_json::to_vec(&cached).unwrap()).unwrap();

    let refreshes = |log: &str| log.lines().filter(|line| line.contains("/apis 200")).count();
    let output = ns.kubeupd().args(["-v=6", "get", "gadgets", "-n", &ns.name]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(refreshes(&stderr(&output)), 1, "{}", stderr(&output));
    let unknown = ns.kubeupd().args(["-v=6", "get", "nonsense", "-n", &ns.name]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(1));
    assert_eq!(refreshes(&stderr(&unknown)), 1, "refreshed once: {}", stderr(&unknown));
}

#[test]
fn unreachable_servers_fail_in_one_line() {
    let kubeconfig = std::fs::read_to_string(support::kubeconfig()).unwrap();
    let server_line = kubeconfig.lines().find(|line| line.trim_start().starts_with("server:")).unwrap();
    let broken = kubeconfig.replace(server_line, "    server: https://127.0.0.1:1");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    std::fs::write(&path, broken).unwrap();
    let output = assert_cmd::Command::cargo_bin("kubeupd")
        .unwrap()
        .arg("--kubeconfig")
        .arg(&path)
        .arg("--cache-dir")
        .arg(dir.path())
        .args(["get", "cm"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"
    );
}

#[test]
fn json_output_round_trips_through_the_server() {
    let ns = app("get-roundtrip");
    let ours = ns.kubeupd().args(["get", "deploy", "web", "-o", "json", "-n", &ns.name]).output().unwrap();
    let theirs = ns.kubectl_ok(&["get", "deploy", "web", "-o", "json", "-n", &ns.name]);
    assert_eq!(
        without_volatile_fields(parse_json(&ours.stdout)),
        without_volatile_fields(parse_json(theirs.as_bytes()))
    );
}

#[test]
fn kubeconfig_lists_skip_missing_files_and_honour_the_context_namespace() {
    let ns = app("get-kubeconfig");
    let dir = tempfile::tempdir().unwrap();
    let with_namespace = dir.path().join("namespaced");
    let original = std::fs::read_to_string(support::kubeconfig()).unwrap();
    std::fs::write(&with_namespace, original.replace("namespace: default", &format!("namespace: {}", ns.name)))
        .unwrap();
    let list = std::env::join_paths([dir.path().join("missing"), with_namespace]).unwrap();
    let output = assert_cmd::Command::cargo_bin("kubeupd")
        .unwrap()
        .env("KUBECONFIG", list)
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .args(["get", "cm", "one", "-o", "name"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "configmap/one\n");
}

#[test]
fn verbose_logs_never_show_credentials() {
    let ns = app("get-secrets-log");
    let kubeconfig = std::fs::read_to_string(support::kubeconfig()).unwrap();
    let token = kubeconfig
        .lines()
        .find_map(|line| line.trim().strip_prefix("token: "))
        .expect("the test kubeconfig has a token");
    ns.kubectl_ok(&["create", "secret", "generic", "hidden", "--from-literal=password=s3cr3t-value", "-n", &ns.name]);
    for verbosity in ["-v=6", "-v=9"] {
        let output =
            ns.kubeupd().args([verbosity, "get", "secret", "hidden", "-o", "name", "-n", &ns.name]).output().unwrap();
        assert!(output.status.success());
        let log = stderr(&output);
        assert!(log.contains("GET https://"), "{log}");
        for secret in [
            token,
            "Authorization:",
            "authorization:",
            "Bearer",
            "s3cr3t",
            &"s3cr3t-value".bytes().map(|b| format!("{b:02x}")).collect::<String>(),
        ] {
            assert!(!log.contains(secret), "{verbosity} log shows {secret:?}: {log}");
        }
    }
}

/// `--subresource`: the status and scale of named objects, as kubectl reads them; refused for a
/// list, in kubectl's words.
#[test]
fn subresources_read_like_kubectl() {
    let ns = app("get-subresource");
    let n = ns.name.as_str();
    for args in [
        vec!["get", "deploy", "web", "--subresource=status", "-o", "json", "-n", n],
        vec!["get", "deploy", "web", "--subresource", "scale", "-o", "yaml", "-n", n],
        vec!["get", "deploy", "web", "--subresource=scale", "-o", "name", "-n", n],
        vec!["get", "deploy", "--subresource=status", "-n", n],
    ] {
        let ours = ns.kubeupd().args(&args).output().unwrap();
        let theirs = ns.kubectl().args(&args).output().unwrap();
        assert_eq!(ours.status.code(), theirs.status.code(), "{args:?}: {}", stderr(&ours));
        assert_eq!(stdout(&ours), stdout(&theirs), "{args:?}");
        assert_eq!(stderr(&ours), stderr(&theirs), "{args:?}");
    }
}

/// A category (`all`, from discovery's `categories`) lists its types as kubectl expands it: each
/// type's objects in discovery's order, beside other types (`all,cm`); `delete all` too.
#[test]
fn categories_list_their_types_as_kubectl_does() {
    let labelled = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {app: x}}\nspec:\n  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n    spec: {containers: [{name: c, image: nginx}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, labels: {app: x}}\nspec: {ports: [{port: 80}], selector: {app: x}}\n---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly, labels: {app: x}}\nspec:\n  schedule: '0 0 * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, labels: {app: x}}\n";
    let twins = Twins::new("get-all");
    twins.ours.apply(labelled);
    twins.theirs.apply(labelled);
    let columns = "-o=custom-columns=KIND:.kind,NAME:.metadata.name,LABELS:.metadata.labels";
    for args in [
        &["get", "all", "-o", "name"][..],
        &["get", "all", "-l", "app=x", columns],
        &["get", "all,cm", "-o", "name"],
        &["get", "cm,all", "-l", "app=x", "-o", "name"],
    ] {
        let (ours, theirs) = twins.run_both(args);
        twins.assert_same_output(&ours, &theirs, &format!("{args:?}"));
        assert!(String::from_utf8_lossy(&ours.stdout).contains("deployment.apps/web") || args.contains(&columns));
    }
    // A category with names: refused as several types where written apart (kubectl expands it
    // first), an unknown type where joined to a name or to other types.
    for args in
        [&["get", "all", "web"][..], &["label", "all", "web", "a=b"], &["get", "all/web"], &["get", "all,cm", "web"]]
    {
        let (ours, theirs) = twins.run_both(args);
        twins.assert_same_output(&ours, &theirs, &format!("{args:?}"));
        assert_eq!(ours.status.code(), Some(1), "{args:?}");
    }
    let (ours, theirs) = twins.run_both(&["delete", "all", "-l", "app=x"]);
    twins.assert_same_output(&ours, &theirs, "delete all -l app=x");
    assert!(String::from_utf8_lossy(&ours.stdout).contains("cronjob.batch \"nightly\" deleted"));
    twins.assert_same("configmaps", "the ConfigMap is not in `all`");
}

/// `get all` prints one table per type with kubectl's headers, kind-prefixed names and a blank
/// line between tables (none with `--no-headers`); a type named twice (`all,pods`, `po,pods`) is
/// listed once; nothing selected is kubectl's `No resources found in NAMESPACE namespace.`; and
/// `delete all --all` deletes in kubectl's order, with its lines.
#[test]
fn a_category_prints_and_deletes_as_kubectl_does() {
    let objects = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: x}}\nspec: {containers: [{name: c, image: nginx}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, labels: {app: x}}\nspec: {clusterIP: None, ports: [{port: 80}], selector: {app: x}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, labels: {app: x}}\nspec:\n  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n    spec: {containers: [{name: c, image: nginx}]}\n---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: '0 0 * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\n";
    let twins = Twins::new("get-all-tables");
    twins.ours.apply(objects);
    twins.theirs.apply(objects);
    for args in [
        &["get", "all"][..],
        &["get", "all", "--no-headers"],
        &["get", "all", "-l", "app=x", "-o", "wide"],
        &["get", "all,pods", "-o", "name"],
        &["get", "po,pods,all", "-o", "name"],
        &["get", "pods,po"],
        &["get", "all", "-l", "app=none"],
        &["get", "all,cm", "-l", "app=none"],
    ] {
        let (ours, theirs) = twins.run_both(args);
        twins.assert_same_output(&ours, &theirs, &format!("{args:?}"));
    }
    let (ours, _) = twins.run_both(&["get", "all"]);
    assert!(String::from_utf8_lossy(&ours.stdout).contains("\n\nNAME "), "a blank line between tables");
    let (ours, _) = twins.run_both(&["get", "all,pods", "-o", "name"]);
    assert_eq!(String::from_utf8_lossy(&ours.stdout).matches("pod/p\n").count(), 1, "pods once");
    let (ours, theirs) = twins.run_both(&["delete", "all", "--all"]);
    twins.assert_same_output(&ours, &theirs, "delete all --all");
    assert!(String::from_utf8_lossy(&ours.stdout).starts_with("pod \"p\" deleted"));
    let (ours, theirs) = twins.run_both(&["get", "all"]);
    twins.assert_same_output(&ours, &theirs, "get all, after delete all --all");
    assert!(String::from_utf8_lossy(&ours.stderr).starts_with("No resources found in "));
}
