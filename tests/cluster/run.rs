//! `run` and `attach` beside kubectl 1.37: the pod `run` prints (`--dry-run=client`, every
//! printer) byte for byte, its checks and words, the pod it creates with its field ownership on
//! twins; on the cluster with nodes, where kwok plays the kubelet, `run -i --rm` of a pod that
//! fails (its logs, its exit code, its deletion) and `attach` to a running pod (kubectl's notes
//! and refusals; kwok's attach sends nothing here, to either).

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::support::{Twins, assert_same_output};

/// `output` with each side's namespace and the program's name in usage lines masked.
fn masked(output: &Output, namespace: &str) -> Output {
    let mask = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).replace(namespace, "NAMESPACE");
        text.replace("'kubeupd ", "'kubectl ").into_bytes()
    };
    Output { status: output.status, stdout: mask(&output.stdout), stderr: mask(&output.stderr) }
}

fn assert_both(twins: &Twins, args: &[&str]) -> Output {
    let (ours, theirs) = twins.run_both(args);
    let ours = masked(&ours, &twins.ours.name);
    assert_same_output(&ours, &masked(&theirs, &twins.theirs.name), &format!("{args:?}"));
    ours
}

#[test]
fn run_prints_the_pod_kubectl_prints() {
    let twins = Twins::new("run-print");
    let shaped = [
        "run",
        "x",
        "--image=busybox:1.36",
        "-l",
        "a=b,c=d",
        "--env=A=1",
        "--env=EMPTY=",
        "--port=80",
        "--restart=Never",
        "--image-pull-policy=IfNotPresent",
        "--privileged",
        "--annotations=note=n=1",
        "--command",
        "--dry-run=client",
        "-o",
        "yaml",
        "--",
        "sh",
        "-c",
        "echo hi",
    ];
    for args in [
        &["run", "x", "--image=nginx", "--dry-run=client", "-o", "yaml"][..],
        &["run", "x", "--image=nginx", "--dry-run=client", "-o", "json"],
        &["run", "x", "--image=nginx", "--dry-run=client", "-o", "name"],
        &["run", "x", "--image=nginx", "--dry-run=client"],
        &["run", "x", "--image=nginx", "--dry-run=client", "-o", "jsonpath={.spec.containers[0].name}"],
        &shaped,
        &["run", "x", "--image=busybox", "--dry-run=client", "-o", "json", "--", "a", "b"],
        &[
            "run",
            "x",
            "a",
            "--image=busybox",
            "--stdin=false",
            "--leave-stdin-open",
            "--restart=",
            "--dry-run=client",
            "-o",
            "json",
        ],
        &["run", "x", "--image=nginx", "--expose", "--port=8080", "--dry-run=client", "-o", "yaml"],
        &["run", "x", "--image=nginx", "--expose", "--port=8080", "--dry-run=client"],
        &[
            "run",
            "x",
            "--image=nginx",
            "--overrides",
            r#"{"metadata":{"annotations":{"a":"b"}},"spec":{"nodeName":"n1"}}"#,
            "--dry-run=client",
            "-o",
            "json",
        ],
        &[
            "run",
            "x",
            "--image=nginx",
            "--override-type=json",
            "--overrides",
            r#"[{"op":"add","path":"/spec/hostname","value":"h"}]"#,
            "--dry-run=client",
            "-o",
            "yaml",
        ],
    ] {
        assert_both(&twins, args);
    }
}

#[test]
fn run_overrides_the_pod_as_kubectl_does() {
    let twins = Twins::new("run-override");
    let run = ["run", "x", "--image=nginx", "--env=A=1", "--env=C=3", "--dry-run=client"];
    for (override_type, overrides) in [
        // Lists merge by their keys: the container by name, its variables by name.
        (
            "strategic",
            r#"{"spec":{"containers":[{"name":"x","env":[{"name":"B","value":"2"}],"resources":{"limits":{"cpu":"1"}}}]}}"#,
        ),
        (
            "strategic",
            r#"{"spec":{"containers":[{"name":"x","env":[{"name":"A","$patch":"delete"}]}],"tolerations":[{"key":"k","operator":"Exists"}]}}"#,
        ),
        // New containers, and a list replaced: each container gets the `resources: {}` of Go's type.
        (
            "strategic",
            r#"{"spec":{"initContainers":[{"name":"i","image":"busybox"}],"containers":[{"name":"y","image":"busybox"}]}}"#,
        ),
        ("strategic", r#"{"spec":{"$patch":"replace","containers":[{"name":"x","image":"busybox"}]},"status":null}"#),
        ("strategic", "null"),
        ("merge", r#"{"spec":{"containers":[{"name":"y","image":"busybox"}]}}"#),
        // What is not an object.
        ("strategic", "[1]"),
        ("strategic", "{bad"),
        ("merge", "{bad"),
        ("merge", "[1]"),
        ("merge", "3"),
    ] {
        for output in ["yaml", "json"] {
            let override_type = format!("--override-type={override_type}");
            let flags = [override_type.as_str(), "--overrides", overrides, "-o", output];
            assert_both(&twins, &[&run[..], &flags[..]].concat());
        }
    }
    // Created on the server: the same pod.
    let strategic = r#"{"spec":{"containers":[{"name":"web","env":[{"name":"B","value":"2"}]}]}}"#;
    assert_both(
        &twins,
        &["run", "web", "--image=nginx", "--env=A=1", "--override-type=strategic", "--overrides", strategic],
    );
    twins.assert_same("pod/web", "run --override-type=strategic");
}

#[test]
fn run_refuses_what_kubectl_refuses() {
    let twins = Twins::new("run-refuse");
    for args in [
        &["run"][..],
        &["run", "x"],
        &["run", "--image=nginx"],
        &["run", "--image=nginx", "--", "x"],
        &["run", "x", "--image="],
        &["run", "x", "--image=Nginx"],
        &["run", "x", "--image=nginx", "-t"],
        &["run", "x", "--image=nginx", "--expose"],
        &["run", "x", "--image=nginx", "--port=eighty"],
        &["run", "x", "--image=nginx", "--rm"],
        &["run", "x", "--image=nginx", "-i", "--dry-run=client"],
        &["run", "x", "--image=nginx", "--attach", "--dry-run=server"],
        &["run", "x", "--image=nginx", "--restart=never"],
        &["run", "x", "--image=nginx", "--image-pull-policy=sometimes"],
        &["run", "x", "--image=nginx", "--env=1A=b"],
        &["run", "x", "--image=nginx", "--env=A"],
        &["run", "x", "--image=nginx", "-l", "a"],
        &["run", "x", "--image=nginx", "-l", "=a"],
        &["run", "x", "--image=nginx", "--annotations=a", "--annotations==b"],
        &["run", "x", "--image=nginx", "--pod-running-timeout=0s"],
        &["run", "x", "--image=nginx", "--cascade=sometimes"],
        &["run", "x", "--image=nginx", "-o", "wide", "--dry-run=client"],
    ] {
        assert_both(&twins, args);
    }
}

#[test]
fn run_creates_the_pod_kubectl_creates() {
    let twins = Twins::new("run-create");
    let make = ["run", "web", "--image=nginx:1.27", "-l", "app=web", "--env=A=1", "--port=80", "--expose"];
    let ours = assert_both(&twins, &make);
    assert_eq!(String::from_utf8_lossy(&ours.stdout), "pod/web created\nservice/web created\n");
    // Field ownership included: kubectl-run's Update of the fields it set.
    let pod = twins.assert_same("pod/web", "run");
    assert_eq!(pod["metadata"]["managedFields"][0]["manager"], "kubectl-run");
    twins.assert_same("service/web", "run --expose");
    for args in [
        &["run", "saved", "--image=nginx", "--save-config", "--field-manager=mine"][..],
        &["run", "tried", "--image=nginx", "--dry-run=server"],
        &["run", "tried", "--image=nginx", "--dry-run=server", "-o", "jsonpath={.metadata.labels}"],
        // Already there: the server's words.
        &["run", "web", "--image=nginx"],
        &["run", "web2", "--image=nginx", "--expose", "--port=80", "-l", "app=web"],
    ] {
        assert_both(&twins, args);
    }
    // The last-applied annotation's keys are in order in kubeupd's (see docs/differences.md):
    // the rest of the pod, field ownership included, is kubectl's.
    let manager = "jsonpath={.metadata.managedFields[*].manager} {.metadata.annotations}";
    for namespace in [&twins.ours, &twins.theirs] {
        let seen = namespace.kubectl_ok(&["get", "pod/saved", "-n", &namespace.name, "-o", manager]);
        assert!(seen.starts_with("mine {\"kubectl.kubernetes.io/last-applied-configuration\""), "{seen}");
    }
    twins.assert_same("pod/web2", "run -l");
    twins.assert_same("service/web2", "run --expose -l");
}

/// A kwok `Logs` object serving `text` (in the CRI's log format, as a kubelet reads it) as the
/// log of every container of the pod `name`.
fn logs_for(twins: &Twins, name: &str, dir: &Path, text: &str) {
    for namespace in [&twins.ours, &twins.theirs] {
        let file = dir.join(format!("{}.log", namespace.name));
        std::fs::write(&file, text).unwrap();
        namespace.apply(&format!(
            "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Logs\nmetadata: {{name: {name}}}\nspec:\n  logs: [{{logsFile: {}}}]\n",
            file.display()
        ));
    }
}

#[test]
fn run_attached_to_a_failing_pod_exits_with_its_code() {
    let twins = Twins::with_nodes("run-attach");
    let dir = tempfile::tempdir().unwrap();
    let cri = "2026-01-01T00:00:00.000000000Z stdout F starting\n2026-01-01T00:00:01.000000000Z stdout F failed\n";
    logs_for(&twins, "fails", dir.path(), cri);
    // kwok fails pods of this image at once, their container exiting 1: run prints the pod's
    // logs, says how it ended, exits 1 and (--rm) deletes it.
    let ours = assert_both(
        &twins,
        &["run", "fails", "--rm", "-i", "--restart=Never", "--image=kubeupd.invalid/fail/exit-1:1"],
    );
    assert_eq!(ours.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&ours.stdout).starts_with("starting\nfailed\n"), "{ours:?}");
    // Without --rm the pod stays; without logs kwok refuses to serve them.
    assert_both(&twins, &["run", "stays", "--attach", "--restart=Never", "--image=kubeupd.invalid/fail/exit-1:1"]);
    twins.assert_same("pods", "run --attach");
}

/// Starts `command` (an attach), reads its stderr until kubectl's note on the prompt, stops it;
/// the lines read.
fn attach_notes(mut command: Command) -> Vec<String> {
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut read = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        read.push(line.clone());
        if line.starts_with("If you don't see a command prompt") {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    read
}

#[test]
fn attach_says_and_refuses_what_kubectl_does() {
    let twins = Twins::with_nodes("attach");
    let dir = tempfile::tempdir().unwrap();
    for namespace in [&twins.ours, &twins.theirs] {
        let file = dir.path().join(format!("{}.out", namespace.name));
        let cri = "2026-01-01T00:00:00.000000000Z stdout F one\n2026-01-01T00:00:01.000000000Z stdout F two\n";
        std::fs::write(&file, cri).unwrap();
        namespace.apply(&format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, labels: {{app: p}}}}\nspec:\n  containers:\n  - {{name: a, image: busybox}}\n  - {{name: b, image: busybox}}\n---\n\
             apiVersion: v1\nkind: Service\nmetadata: {{name: s}}\nspec: {{selector: {{app: p}}, ports: [{{port: 80}}]}}\n---\n\
             apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Attach\nmetadata: {{name: p}}\nspec:\n  attaches: [{{containers: [a], logsFile: {}}}]\n",
            file.display()
        ));
        namespace.kubectl_ok(&["wait", "-n", &namespace.name, "--for=condition=Ready", "pod/p", "--timeout=60s"]);
    }
    // kwok's attach here sends nothing of its file, to kubectl as to kubeupd, and ends only when
    // stopped: kubectl's notes before the session are compared, then the command is stopped.
    let notes = [
        "All commands and output from this session will be recorded in container logs, including credentials and sensitive information passed through the command prompt.",
        "If you don't see a command prompt, try pressing enter.",
    ];
    for what in [&["p"][..], &["pod", "p"], &["pod/p", "-c", "a"], &["svc/s"]] {
        let mut ours = twins.ours.kubeupd_process();
        ours.args(["-n", &twins.ours.name, "attach"]).args(what);
        let mut theirs = twins.theirs.kubectl();
        theirs.args(["-n", &twins.theirs.name, "attach"]).args(what);
        let (ours, theirs) = (attach_notes(ours), attach_notes(theirs));
        assert_eq!(ours, theirs, "attach {what:?}");
        assert_eq!(ours[ours.len() - 2..], notes, "attach {what:?}");
    }
    for args in [
        &["attach"][..],
        &["attach", "a", "b", "c"],
        &["attach", "p", "-c", "b"],
        &["attach", "p", "-c", "zz"],
        &["attach", "missing"],
        &["attach", "p", "--pod-running-timeout=0s"],
        &["attach", "--pod-running-timeout=0s"],
    ] {
        assert_both(&twins, args);
    }
}
