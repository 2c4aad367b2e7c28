//! `kubeupd create configmap|secret generic|namespace|serviceaccount` against kubectl 1.37 on twin
//! namespaces of the real apiserver: the same output, errors and exit codes for a table of
//! sources (literals, files, directories, env files, hashes, bad keys), the same objects and
//! field ownership (`kubectl-create`) when created, and the CI pipeline `create ... --dry-run=client
//! -o yaml | apply -f -` giving kubectl's object.
use crate::support;

use std::path::Path;

use support::{TestNamespace, Twins, parse_json, twin_view};

fn sources(dir: &Path) {
    std::fs::create_dir_all(dir.join("conf")).unwrap();
    std::fs::write(dir.join("conf/app.properties"), "level=debug\n").unwrap();
    std::fs::write(dir.join("conf/extra.txt"), "x").unwrap();
    std::fs::write(dir.join("conf/logo.bin"), [0xff_u8, 0xfe, 0x00]).unwrap();
    std::fs::write(dir.join("app.env"), "\u{feff}A=1\n# comment\n  B=two words\n\nC=\n").unwrap();
    std::fs::write(dir.join("bad.env"), "1A=x\n").unwrap();
}

#[test]
fn generators_print_what_kubectl_prints() {
    let twins = Twins::new("create-print");
    let dir = tempfile::tempdir().unwrap();
    sources(dir.path());
    let path = |relative: &str| dir.path().join(relative).to_str().unwrap().to_string();
    let (conf, env, bad, props) = (path("conf"), path("app.env"), path("bad.env"), path("conf/app.properties"));
    let cases: Vec<Vec<String>> = vec![
        vec!["configmap".into(), "app".into(), "--from-literal=a=b".into(), format!("--from-file={conf}")],
        vec!["configmap".into(), "app".into(), format!("--from-file=props={props}"), "-o".into(), "json".into()],
        vec!["configmap".into(), "app".into(), format!("--from-env-file={env}"), "--append-hash".into()],
        vec!["cm".into(), "app".into(), "--from-literal=a=b".into(), "--from-literal=a=c".into()],
        vec!["configmap".into(), "app".into(), "--from-literal=a b=c".into()],
        vec!["configmap".into(), "app".into(), format!("--from-env-file={bad}")],
        vec!["configmap".into(), "app".into(), format!("--from-env-file={env}"), "--from-literal=a=b".into()],
        vec!["configmap".into(), "app".into(), "--from-file=/nonexistent".into()],
        // kubectl reads the NAME, then -o, before its own checks and the sources (a missing NAME:
        // create_generators.rs, which reads kubectl's usage hint as kubeupd's).
        vec!["configmap".into(), "app".into(), "--from-file=/nonexistent".into(), "-o".into(), "bogus".into()],
        vec![
            "configmap".into(),
            "app".into(),
            format!("--from-env-file={env}"),
            "--from-literal=a=b".into(),
            "-o".into(),
            "bogus".into(),
        ],
        vec![
            "secret".into(),
            "generic".into(),
            "db".into(),
            "--from-file=/nonexistent".into(),
            "-o".into(),
            "bogus".into(),
        ],
        vec!["secret".into(), "tls".into(), "t".into(), "-o".into(), "bogus".into()],
        vec![
            "secret".into(),
            "tls".into(),
            "t".into(),
            "--cert=/nope".into(),
            "--key=/nope".into(),
            "-o".into(),
            "bogus".into(),
        ],
        vec!["secret".into(), "docker-registry".into(), "d".into(), "-o".into(), "bogus".into()],
        // A key given twice, first to binary data: kubectl names BinaryData.
        vec![
            "configmap".into(),
            "app".into(),
            format!("--from-file=k={}", path("conf/logo.bin")),
            format!("--from-file=k={props}"),
        ],
        vec![
            "secret".into(),
            "generic".into(),
            "db".into(),
            "--from-literal=password=s3cr3t".into(),
            "--from-literal=user=app".into(),
        ],
        vec![
            "secret".into(),
            "generic".into(),
            "db".into(),
            format!("--from-env-file={env}"),
            "--type=kubernetes.io/basic-auth".into(),
            "--append-hash".into(),
        ],
        vec!["secret".into(), "generic".into(), "db".into(), format!("--from-file={conf}")],
        vec!["namespace".into(), "n".into()],
        vec!["ns".into(), "team-a".into(), "-o".into(), "name".into()],
        vec!["serviceaccount".into(), "deployer".into()],
        vec!["sa".into(), "deployer".into(), "-o".into(), "json".into()],
    ];
    for case in cases {
        let mut args: Vec<&str> = vec!["create"];
        args.extend(case.iter().map(String::as_str));
        args.push("--dry-run=client");
        if !case.iter().any(|arg| arg == "-o") {
            args.extend(["-o", "yaml"]);
        }
        same_output(&twins, &args);
    }
}

/// The output of both tools, each twin's namespace name left out, must be the same.
fn same_output(twins: &Twins, args: &[&str]) -> (std::process::Output, std::process::Output) {
    let (ours, theirs) = twins.run_both(args);
    // kubectl prints a generated object's JSON in its Go struct's field order, kubeupd in key
    // order (a difference on purpose, in docs/differences.md): JSON is compared as values.
    let json = args.contains(&"json");
    let text = |output: &std::process::Output, namespace: &str| {
        let stdout = String::from_utf8_lossy(&output.stdout).replace(namespace, "NAMESPACE");
        let stdout = match json && output.status.success() {
            true => format!("{:#}", parse_json(stdout.as_bytes())),
            false => stdout,
        };
        let stderr = String::from_utf8_lossy(&output.stderr).replace(namespace, "NAMESPACE");
        (output.status.code(), stdout, stderr)
    };
    assert_eq!(text(&ours, &twins.ours.name), text(&theirs, &twins.theirs.name), "{args:?} (left: kubeupd)");
    (ours, theirs)
}

#[test]
fn created_objects_and_the_apply_pipeline_match_kubectl() {
    let twins = Twins::new("create-real");
    for args in [
        &["create", "configmap", "settings", "--from-literal=level=info"][..],
        &["create", "secret", "generic", "db", "--from-literal=password=s3cr3t"],
        &["create", "serviceaccount", "deployer"],
        &["create", "configmap", "settings", "--from-literal=level=info"],
        &["create", "configmap", "checked", "--from-literal=a=b", "--dry-run=server"],
    ] {
        same_output(&twins, args);
    }
    for what in ["configmap/settings", "secret/db", "serviceaccount/deployer"] {
        let view = |ns: &support::TestNamespace| {
            let text = ns.kubectl_ok(&["get", what, "-n", &ns.name, "-o", "json", "--show-managed-fields"]);
            let mut object = twin_view(parse_json(text.as_bytes()), &ns.name);
            object["secrets"] = serde_json::Value::Null; // the token controller is not running
            object
        };
        assert_eq!(view(&twins.ours), view(&twins.theirs), "{what} (left: kubeupd, right: kubectl)");
    }
    // The pipeline of CI scripts: generate with --dry-run=client -o yaml, then apply.
    let generate =
        ["create", "secret", "generic", "token", "--from-literal=value=abc", "--dry-run=client", "-o", "yaml"];
    let (ours, theirs) = same_output(&twins, &generate);
    let apply = |ns: &support::TestNamespace, yaml: &[u8], kubectl: bool| {
        let mut command = if kubectl { ns.kubectl() } else { ns.kubeupd_process() };
        command.args(["apply", "-n", &ns.name, "-f", "-"]);
        let output = support::with_stdin(&mut command, &String::from_utf8_lossy(yaml));
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    };
    apply(&twins.ours, &ours.stdout, false);
    apply(&twins.theirs, &theirs.stdout, true);
    twins.assert_same("secret/token", "created by the pipeline");
}

#[test]
fn create_from_files_matches_kubectl() {
    let twins = Twins::new("create-files");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("app.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f1}\ndata: {a: \"1\"}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: f2}\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    // Created, then refused as existing (each object on its own), then a dry run.
    same_output(&twins, &["create", "-f", path]);
    same_output(&twins, &["create", "-f", path]);
    same_output(&twins, &["create", "-f", path, "--dry-run=client", "-o", "name"]);
    same_output(&twins, &["create", "-f", path, "--dry-run=server", "-o", "yaml", "--save-config"]);
    twins.assert_same("configmaps", "created from a file");
}

/// `create secret tls` with every pairing of the test certificates and keys in `testdata/tls`
/// (RSA in PKCS #1 and #8, EC in SEC 1 and PKCS #8, Ed25519, a key of another certificate, the
/// inputs switched, missing and unreadable files): the same Secret, or the same error, as
/// kubectl's `tls.X509KeyPair` check gives.
#[test]
fn tls_secrets_are_checked_as_kubectl_checks_them() {
    let twins = Twins::new("create-tls");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.pem"), "").unwrap();
    std::fs::write(dir.path().join("text.pem"), "not a certificate\n").unwrap();
    std::fs::write(dir.path().join("junk.pem"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
        .unwrap();
    std::fs::write(dir.path().join("public.pem"), "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        .unwrap();
    let tls = |name: &str| support::testdata(&format!("tls/{name}")).to_str().unwrap().to_string();
    let scratch = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let certs = [
        tls("rsa.crt"),
        tls("ec.crt"),
        tls("ed.crt"),
        tls("rsa.key"),
        scratch("empty.pem"),
        scratch("junk.pem"),
        scratch("public.pem"),
    ];
    let keys = [
        tls("rsa.key"),
        tls("rsa-pkcs1.key"),
        tls("ec.key"),
        tls("ec-pkcs8.key"),
        tls("ed.key"),
        tls("other-rsa.key"),
        tls("rsa.crt"),
        scratch("text.pem"),
        scratch("public.pem"),
        scratch("missing.key"),
    ];
    let mut accepted = 0;
    for cert in &certs {
        for key in &keys {
            let (cert, key) = (format!("--cert={cert}"), format!("--key={key}"));
            let args = ["create", "secret", "tls", "web-tls", &cert, &key, "--dry-run=client", "-o", "yaml"];
            let (ours, _) = same_output(&twins, &args);
            accepted += usize::from(ours.status.success());
        }
    }
    assert_eq!(accepted, 5, "each certificate with its own keys");
    same_output(&twins, &["create", "secret", "tls", "web-tls", "--cert", &tls("rsa.crt")]);
    same_output(
        &twins,
        &[
            "create",
            "secret",
            "tls",
            "web-tls",
            "--cert",
            &tls("ec.crt"),
            "--key",
            &tls("ec.key"),
            "--append-hash",
            "-o",
            "name",
        ],
    );
    same_output(&twins, &["create", "secret", "tls", "web-tls", "--cert", &tls("rsa.crt"), "--key", &tls("rsa.key")]);
    twins.assert_same("secret/web-tls", "created");
}

/// `create secret docker-registry` from the flags (the `.dockerconfigjson` bytes, HTML-escaped as
/// Go's JSON escapes them) and from files, with kubectl's checks.
#[test]
fn docker_registry_secrets_match_kubectl() {
    let twins = Twins::new("create-docker");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.json"), r#"{"auths":{"r.example":{"auth":"eDp5"}}}"#).unwrap();
    let config = dir.path().join("config.json").to_str().unwrap().to_string();
    let cases: Vec<Vec<String>> = vec![
        vec![
            "--docker-username=bot".into(),
            "--docker-password=p&<ss>".into(),
            "--docker-email=bot@example.com".into(),
        ],
        vec![
            "--docker-server=registry.example:5000".into(),
            "--docker-username=bot".into(),
            "--docker-password=x".into(),
        ],
        vec!["--docker-username=bot".into()],
        vec![format!("--from-file={config}")],
        vec![format!("--from-file=.dockerconfigjson={config},extra={config}"), "--append-hash".into()],
        vec![format!("--from-file={}", dir.path().join("nope").display())],
    ];
    for case in &cases {
        let mut args = vec!["create", "secret", "docker-registry", "pull"];
        args.extend(case.iter().map(String::as_str));
        args.extend(["--dry-run=client", "-o", "yaml"]);
        same_output(&twins, &args);
    }
    same_output(&twins, &["create", "secret", "docker-registry", "pull", "--docker-username=u", "--docker-password=p"]);
    twins.assert_same("secret/pull", "created");
}

/// `create --edit` with editors that change, keep and empty the objects: the same lines, kept
/// files, exit codes and created objects (field ownership included) as kubectl.
#[test]
fn editing_before_create_matches_kubectl() {
    let twins = Twins::new("create-edit");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.yaml");
    // The second object's `mode: y` becomes YAML 1.1's true once edited: the server refuses it.
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: edited, labels: {app: web}}\ndata: {mode: one}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\ndata: {mode: x}\n",
    )
    .unwrap();
    let editor = |name: &str, script: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        path.to_str().unwrap().to_string()
    };
    let change = editor("change", r#"sed -i 's/one/two/; s/mode: x/mode: y/; s/"x"/"z"/' "$1""#);
    let keep = editor("keep", "exit 0");
    // Empties the file; once reopened with kubectl's reason on top, gives up.
    let empty = editor("empty", r#"grep -q 'was not valid' "$1" || : > "$1""#);
    let path = file.to_str().unwrap();
    let run = |editor: &str, args: &[&str]| {
        let run = |mut command: assert_cmd::Command, ns: &str| {
            let output = command.env("EDITOR", editor).env_remove("KUBE_EDITOR").args(["-n", ns]).args(args).output();
            let output = output.expect("runs");
            let kept = regex_free_temp_names(&String::from_utf8_lossy(&output.stderr));
            let stdout = String::from_utf8_lossy(&output.stdout).replace(ns, "NAMESPACE");
            (output.status.code(), without_volatile_lines(&stdout), kept)
        };
        let ours = run(twins.ours.kubeupd(), &twins.ours.name);
        let theirs = run(assert_cmd::Command::from_std(twins.theirs.kubectl()), &twins.theirs.name);
        assert_eq!(ours, theirs, "{args:?} with {editor} (left: kubeupd)");
    };
    run(&keep, &["create", "--edit", "-f", path]);
    run(&empty, &["create", "--edit", "-f", path]);
    run(&change, &["create", "--edit", "--save-config", "-f", path]);
    twins.assert_same("configmaps", "created after editing");
    run(&change, &["create", "--edit", "-o", "json", "--windows-line-endings", "-f", path]);
    // -l selects among the files' objects, but not when editing (as in kubectl).
    run(&keep, &["create", "-l", "app=none", "-f", path]);
    twins.ours.kubectl_ok(&["delete", "configmap", "edited", "-n", &twins.ours.name]);
    twins.theirs.kubectl_ok(&["delete", "configmap", "edited", "-n", &twins.theirs.name]);
    run(&change, &["create", "--edit", "-l", "app=none", "-o", "yaml", "-f", path]);
    run(&keep, &["create", "-l", "app=web", "-f", path]);
    twins.assert_same("configmaps", "created after editing and selecting");
}

/// The temporary files kubectl and kubeupd keep have random names.
fn regex_free_temp_names(text: &str) -> String {
    text.split('"')
        .map(|part| if part.starts_with(&std::env::temp_dir().to_string_lossy().into_owned()) { "TEMP" } else { part })
        .collect::<Vec<_>>()
        .join("\"")
}

/// Printed objects without what the server makes different for each twin.
fn without_volatile_lines(text: &str) -> String {
    let volatile = ["resourceVersion", "uid", "creationTimestamp"];
    text.lines()
        .filter(|line| !volatile.iter().any(|key| line.trim_start().trim_start_matches('"').starts_with(key)))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// `create --raw`: the file's bytes POSTed to the path, the server's answer printed; kubectl's
/// refusals of what cannot go with it.
#[test]
fn raw_creates_match_kubectl() {
    let twins = Twins::new("create-raw");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cm.json");
    std::fs::write(&file, r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"raw"},"data":{"a":"b"}}"#)
        .unwrap();
    let path = file.to_str().unwrap();
    for args in [
        &["create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", path, "-o", "json"][..],
        &["create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", path, "-l", "a=b"],
        &["create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", path, "--edit"],
        &["create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", path, "-f", path],
        &["create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", "https://example.com/x.yaml"],
        &["create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", path, "-R"],
        &["create", "--raw", "api", "-f", path],
        // A path the server does not serve answers a page, not a Status: client-go's words.
        &["create", "--raw", "/nowhere", "-f", path],
        &["get", "--raw", "/apis/nowhere.example.com"],
    ] {
        twins.assert_both(args);
    }
    let created = |ns: &support::TestNamespace, kubectl: bool| {
        let url = format!("/api/v1/namespaces/{}/configmaps", ns.name);
        let output = match kubectl {
            true => ns.kubectl().args(["create", "--raw", &url, "-f", path]).output().unwrap(),
            false => ns.kubeupd_process().args(["create", "--raw", &url, "-f", path]).output().unwrap(),
        };
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        support::without_volatile_fields(twin_view(parse_json(&output.stdout), &ns.name))
    };
    assert_eq!(created(&twins.ours, false), created(&twins.theirs, true), "the server's answer (left: kubeupd)");
    // `--raw` sends the path as given, with no fieldManager: the server names the manager after
    // each tool's User-Agent, `kubeupd` on ours (docs/differences.md); the rest is the same.
    let stored = |ns: &TestNamespace| {
        let text = ns.kubectl_ok(&["get", "configmap/raw", "-n", &ns.name, "-o", "json", "--show-managed-fields"]);
        twin_view(parse_json(text.replace(r#""manager": "kubeupd""#, r#""manager": "kubectl""#).as_bytes()), &ns.name)
    };
    assert_eq!(stored(&twins.ours), stored(&twins.theirs), "created raw (left: kubeupd)");
}
