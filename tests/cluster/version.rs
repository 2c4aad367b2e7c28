//! What scripts call besides the verbs: `version` (plain, `-o json|yaml`, `--client`) shaped like
//! kubectl's, against the real apiserver; and the kubectl plugin form, `kubectl upd ...` through a
//! `kubectl-upd` link on the PATH.
use crate::support;

use std::collections::BTreeSet;
use std::process::Output;

use serde_json::Value;
use support::{TestNamespace, kubeconfig, parse_json, parse_yaml};

fn version(tool: &mut std::process::Command, args: &[&str]) -> Output {
    let output = tool.arg("--kubeconfig").arg(kubeconfig()).arg("version").args(args).env_remove("KUBECONFIG").output();
    output.expect("the tool runs")
}

fn kubeupd() -> std::process::Command {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("kubeupd"))
}

fn keys(value: &Value) -> BTreeSet<&str> {
    value.as_object().expect("an object").keys().map(String::as_str).collect()
}

/// kubeupd's client version: the kubectl release it follows (the reference kubectl's), with its
/// own version as build metadata.
fn client_version(kubectl_version: &str) -> String {
    format!("{kubectl_version}+kubeupd.{}", env!("CARGO_PKG_VERSION"))
}

/// The reference kubectl's own version, `v1.37.1`.
fn kubectl_version() -> String {
    let output = std::process::Command::new("kubectl").args(["version", "--client", "-o", "json"]).output().unwrap();
    parse_json(&output.stdout)["clientVersion"]["gitVersion"].as_str().unwrap().to_string()
}

#[test]
fn version_is_shaped_like_kubectls() {
    for (format, parse) in [("json", parse_json as fn(&[u8]) -> Value), ("yaml", parse_yaml)] {
        let theirs = version(&mut std::process::Command::new("kubectl"), &["-o", format]);
        let ours = version(&mut kubeupd(), &["-o", format]);
        assert!(ours.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
        let (theirs, ours) = (parse(&theirs.stdout), parse(&ours.stdout));
        assert_eq!(keys(&ours), keys(&theirs), "-o {format}");
        assert_eq!(keys(&ours["clientVersion"]), keys(&theirs["clientVersion"]), "-o {format}");
        assert_eq!(ours["serverVersion"], theirs["serverVersion"], "-o {format}: the same server");
        assert_eq!(ours["kustomizeVersion"], theirs["kustomizeVersion"], "-o {format}: kustomize's release");
        let (our_client, their_client) = (&ours["clientVersion"], &theirs["clientVersion"]);
        assert_eq!(our_client["gitVersion"], client_version(their_client["gitVersion"].as_str().unwrap()));
        assert_eq!((&our_client["major"], &our_client["minor"]), (&their_client["major"], &their_client["minor"]));
        assert_eq!(our_client["gitCommit"].as_str().unwrap().len(), 40, "-o {format}: the commit built");
        for (key, value) in ours["clientVersion"].as_object().unwrap() {
            assert!(value.is_string(), "-o {format}: clientVersion.{key} is {value}, kubectl's are strings");
        }
    }
    let theirs = String::from_utf8(version(&mut std::process::Command::new("kubectl"), &[]).stdout).unwrap();
    let ours = String::from_utf8(version(&mut kubeupd(), &[]).stdout).unwrap();
    let mut lines: Vec<String> = theirs.lines().map(String::from).collect();
    lines[0] = format!("Client Version: {}", client_version(&kubectl_version()));
    assert_eq!(ours, lines.join("\n") + "\n", "kubectl's lines: client, kustomize, server");
}

#[test]
fn the_client_version_needs_no_server() {
    // A token, so that kubectl does not ask for a user name on the terminal.
    let unreachable = ["--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify", "--token", "t", "version"];
    let client = kubeupd().args(unreachable).args(["--client", "-o", "json"]).output().unwrap();
    assert!(client.status.success(), "{}", String::from_utf8_lossy(&client.stderr));
    assert_eq!(keys(&parse_json(&client.stdout)), BTreeSet::from(["clientVersion", "kustomizeVersion"]));
    // Without --client, the server's failure ends in kubectl's words after the client version.
    let theirs = std::process::Command::new("kubectl").args(unreachable).output().unwrap();
    let failed = kubeupd().args(unreachable).output().unwrap();
    assert_eq!((failed.status.code(), theirs.status.code()), (Some(1), Some(1)));
    assert_eq!(
        String::from_utf8_lossy(&failed.stdout),
        format!("Client Version: {}\nKustomize Version: v5.8.1\n", client_version(&kubectl_version()))
    );
    assert_eq!(String::from_utf8_lossy(&failed.stderr), String::from_utf8_lossy(&theirs.stderr));
    assert_eq!(
        String::from_utf8_lossy(&failed.stderr),
        "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"
    );
}

/// A server further from the client than the supported skew (a fake one answering `/version` as
/// a 1.20 server does; the real cluster is within it): kubectl's warning after the versions, an
/// error with --warnings-as-errors.
#[test]
fn a_server_beyond_the_supported_skew_is_warned_about_as_kubectl_does() {
    let old = support::fake_server::FakeServer::start(|_: &support::fake_server::Seen| {
        let info = serde_json::json!({"major": "1", "minor": "20", "gitVersion": "v1.20.15", "gitCommit": "8f1e5bf0b9729a899b8df86249b56e2c74aebc55",
            "gitTreeState": "clean", "buildDate": "2022-01-19T17:23:01Z", "goVersion": "go1.15.15", "compiler": "gc", "platform": "linux/amd64"});
        support::fake_server::Reply::json(200, &info)
    });
    let dir = tempfile::tempdir().unwrap();
    let config = old.kubeconfig(dir.path());
    let run = |tool: &mut std::process::Command, extra: &[&str]| {
        tool.arg("--kubeconfig").arg(&config).arg("version").args(extra).env_remove("KUBECONFIG").output().unwrap()
    };
    for extra in [&[][..], &["--warnings-as-errors"]] {
        let theirs = run(&mut std::process::Command::new("kubectl"), extra);
        let ours = run(&mut kubeupd(), extra);
        assert_eq!(ours.status.code(), theirs.status.code(), "{extra:?}");
        assert_eq!(String::from_utf8_lossy(&ours.stderr), String::from_utf8_lossy(&theirs.stderr), "{extra:?}");
        let server_line = |output: &Output| String::from_utf8_lossy(&output.stdout).lines().last().map(String::from);
        assert_eq!(server_line(&ours), server_line(&theirs));
    }
}

#[test]
fn kubectl_runs_kubeupd_as_the_upd_plugin() {
    let namespace = TestNamespace::new("plugin");
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("kubeupd"), bin.path().join("kubectl-upd")).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.path().to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let kubectl = |args: &[&str], stdin: &str| {
        let mut command = assert_cmd::Command::new("kubectl");
        command.env("PATH", &path).env("KUBECONFIG", kubeconfig()).args(args).write_stdin(stdin.to_string());
        command.output().unwrap()
    };
    let client = kubectl(&["upd", "version", "--client"], "");
    assert!(client.status.success(), "{}", String::from_utf8_lossy(&client.stderr));
    assert_eq!(
        String::from_utf8_lossy(&client.stdout),
        format!("Client Version: {}\nKustomize Version: v5.8.1\n", client_version(&kubectl_version()))
    );
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-plugin}\ndata: {a: \"1\"}\n";
    let applied = kubectl(&["upd", "apply", "-n", &namespace.name, "-f", "-"], configmap);
    assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
    assert_eq!(String::from_utf8_lossy(&applied.stdout), "configmap/from-plugin created\n");
    assert_eq!(
        namespace.kubectl_ok(&["get", "configmap", "from-plugin", "-n", &namespace.name, "-o", "name"]),
        "configmap/from-plugin\n"
    );
    // Usage and errors name the command as it was typed.
    let usage = kubectl(&["upd", "no-such-verb"], "");
    assert_eq!(usage.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&usage.stderr), "error: unknown command \"no-such-verb\" for \"kubectl upd\"\n");
    let usage = kubectl(&["upd", "apply", "--no-such-flag"], "");
    assert_eq!(
        String::from_utf8_lossy(&usage.stderr),
        "error: unknown flag: --no-such-flag\nSee 'kubectl upd apply --help' for usage.\n"
    );
}
