//! `exec`, `cp` and `port-forward` end to end on the cluster with nodes, where kwok plays the
//! kubelet: each twin pod gets kwok's `Exec` object (commands run on this machine, in a directory
//! of the test's own). kubectl 1.37 runs beside kubeupd on twin pods; stdout, stderr and exit
//! codes are compared, the namespace and the program's name in usage lines masked. Exit codes,
//! which kwok does not report, are tested on pods bound to the node of `scripts/exec-node`.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::support::{TestNamespace, Twins, assert_same_output, with_stdin};

/// The pod `p` (containers `a` and `b`) and the Service `s` selecting it in `namespace`, commands
/// in it run in `work_dir`. Waits until it is Ready.
fn pod_with_exec(namespace: &TestNamespace, work_dir: &Path) {
    let yaml = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, labels: {{app: p}}}}\nspec:\n  containers:\n  - {{name: a, image: busybox}}\n  - {{name: b, image: busybox}}\n---\n\
         apiVersion: v1\nkind: Service\nmetadata: {{name: s}}\nspec:\n  selector: {{app: p}}\n  ports: [{{name: web, port: 80, targetPort: 8080}}]\n---\n\
         apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Exec\nmetadata: {{name: p}}\nspec:\n  execs: [{{containers: [a, b], local: {{workDir: {}}}}}]\n",
        work_dir.display()
    );
    namespace.apply(&yaml);
    namespace.kubectl_ok(&["wait", "-n", &namespace.name, "--for=condition=Ready", "pod/p", "--timeout=60s"]);
}

/// Twins on the cluster with nodes, each with its pod `p` working in a directory of its own.
fn twins_with_pods(prefix: &str) -> (Twins, tempfile::TempDir, tempfile::TempDir) {
    let twins = Twins::with_nodes(prefix);
    let (ours, theirs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    pod_with_exec(&twins.ours, ours.path());
    pod_with_exec(&twins.theirs, theirs.path());
    (twins, ours, theirs)
}

/// `output` with `words` read as `MASK` in stdout and stderr.
fn masked(output: &Output, words: &[(&str, &str)]) -> Output {
    let mask = |bytes: &[u8]| {
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        for (word, mask) in words {
            text = text.replace(word, mask);
        }
        text.into_bytes()
    };
    Output { status: output.status, stdout: mask(&output.stdout), stderr: mask(&output.stderr) }
}

/// Runs `args` on both twins and asserts the same exit code, stdout and stderr, with each side's
/// namespace, `extra` words and the program's name in usage lines masked.
fn assert_both(twins: &Twins, args: &[&str], extra: [(&str, &str); 2]) {
    let (ours, theirs) = twins.run_both(args);
    let ours = masked(&ours, &[(&twins.ours.name, "NAMESPACE"), ("'kubeupd ", "'kubectl "), extra[0]]);
    let theirs = masked(&theirs, &[(&twins.theirs.name, "NAMESPACE"), extra[1]]);
    assert_same_output(&ours, &theirs, &format!("{args:?}"));
}

#[test]
fn exec_prints_and_fails_as_kubectl_does() {
    let (twins, ours, theirs) = twins_with_pods("exec");
    let dirs = [(ours.path().to_str().unwrap(), "WORKDIR"), (theirs.path().to_str().unwrap(), "WORKDIR")];
    for args in [
        &["exec", "p", "--", "sh", "-c", "echo out; pwd; echo err >&2"][..],
        &["exec", "p", "-c", "b", "--", "sh", "-c", "echo from b"],
        &["exec", "-q", "p", "--", "echo", "quiet"],
        &["exec", "svc/s", "--", "echo", "through the service"],
        &["exec", "pod/p", "-c", "a", "--", "ls", "-a"],
        // kwok reports a command's non-zero exit as an internal error, without its code: kubectl
        // exits 1 with the server's words, and so does kubeupd.
        &["exec", "p", "-c", "a", "--", "sh", "-c", "exit 3"],
        &["exec", "missing", "--", "true"],
        &["exec", "p", "-c", "zz", "--", "true"],
        &["exec", "p"],
        &["exec", "p", "true"],
        &["exec", "--", "true"],
        &["exec", "-it", "p", "-c", "a", "--", "echo", "no terminal"],
    ] {
        assert_both(&twins, args, dirs);
    }
}

/// The node whose exec endpoint is `scripts/exec-node`'s (registered by `scripts/local-cluster.sh
/// nodes`): a command's exit code comes back as a kubelet sends it. Nobody plays its pods' status,
/// nor confirms their graceful deletion: pods there end at once (terminationGracePeriodSeconds 0),
/// so that their namespace goes.
const EXEC_NODE: &str = "kubeupd-exec-node";

#[test]
fn exec_exits_with_the_commands_code() {
    let twins = Twins::with_nodes("exec-code");
    let pod = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  nodeName: {EXEC_NODE}\n  terminationGracePeriodSeconds: 0\n  containers: [{{name: a, image: busybox}}]\n"
    );
    twins.ours.apply(&pod);
    twins.theirs.apply(&pod);
    for (args, code, stdout) in [
        (&["exec", "p", "--", "sh", "-c", "echo out; echo err >&2; exit 3"][..], 3, "out\n"),
        (&["exec", "p", "-c", "a", "--", "sh", "-c", "exit 255"], 255, ""),
        (&["exec", "pod/p", "--", "sh", "-c", "echo printed; echo warned >&2"], 0, "printed\n"),
        (&["exec", "p", "--", "false"], 1, ""),
    ] {
        let (ours, _) = twins.assert_both(args);
        assert_eq!(ours.status.code(), Some(code), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&ours.stdout), stdout, "{args:?}");
    }
    // stdin to its end, then the code.
    let script = ["p", "--", "sh", "-c", "cat; exit 7"];
    let ours =
        with_stdin(twins.ours.kubeupd_process().args(["exec", "-i", "-n", &twins.ours.name]).args(script), "a\nb\n");
    let theirs =
        with_stdin(twins.theirs.kubectl().args(["exec", "-i", "-n", &twins.theirs.name]).args(script), "a\nb\n");
    assert_same_output(&ours, &theirs, "exec -i");
    assert_eq!((ours.status.code(), String::from_utf8_lossy(&ours.stdout).as_ref()), (Some(7), "a\nb\n"));
}

#[test]
fn exec_passes_stdin_on() {
    let (twins, _ours, _theirs) = twins_with_pods("exec-stdin");
    // kwok does not pass stdin's end on to the command: it reads one line.
    let script = ["--", "sh", "-c", "read line; echo got $line; echo done >&2"];
    let ours = with_stdin(
        twins.ours.kubeupd_process().args(["exec", "-i", "-n", &twins.ours.name, "p", "-c", "b"]).args(script),
        "hello\n",
    );
    let theirs = with_stdin(
        twins.theirs.kubectl().args(["exec", "-i", "-n", &twins.theirs.name, "p", "-c", "b"]).args(script),
        "hello\n",
    );
    assert_same_output(&ours, &theirs, "exec -i");
    assert_eq!(String::from_utf8_lossy(&ours.stdout), "got hello\n");
}

/// The files below `dir`, relative, with their contents (directories end with `/`).
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(dir).unwrap().display().to_string();
            if path.is_dir() {
                found.push((format!("{relative}/"), String::new()));
                pending.push(path);
            } else {
                found.push((relative, std::fs::read_to_string(&path).unwrap_or_default()));
            }
        }
    }
    found.sort();
    found
}

fn fill(dir: &Path) {
    std::fs::create_dir_all(dir.join("data/sub")).unwrap();
    std::fs::write(dir.join("data/a.txt"), "a\n").unwrap();
    std::fs::write(dir.join("data/sub/b.txt"), "b\n").unwrap();
}

#[test]
fn cp_from_a_pod_matches_kubectl() {
    let (twins, ours, theirs) = twins_with_pods("cp-from");
    fill(ours.path());
    fill(theirs.path());
    let local = tempfile::tempdir().unwrap();
    let (our_dest, their_dest) = (local.path().join("ours"), local.path().join("theirs"));
    let dests = [(our_dest.to_str().unwrap(), "DEST"), (their_dest.to_str().unwrap(), "DEST")];
    // Relative paths: the container's tar has nothing to say about leading slashes.
    let (ours_out, theirs_out) = (
        twins
            .ours
            .kubeupd()
            .args(["-n", &twins.ours.name, "cp", "p:data", our_dest.to_str().unwrap()])
            .output()
            .unwrap(),
        twins
            .theirs
            .kubectl()
            .args(["-n", &twins.theirs.name, "cp", "p:data", their_dest.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert_same_output(&masked(&ours_out, &[dests[0]]), &masked(&theirs_out, &[dests[1]]), "cp p:data DEST");
    assert_eq!(tree(&our_dest), tree(&their_dest));
    assert_eq!(
        tree(&our_dest),
        [("a.txt".into(), "a\n".into()), ("sub/".into(), String::new()), ("sub/b.txt".into(), "b\n".into())]
    );
    // One file, from container b, to a file name of its own.
    let file = [
        (local.path().join("one-ours").to_str().unwrap().to_string(), "ONE"),
        (local.path().join("one-theirs").to_str().unwrap().to_string(), "ONE"),
    ];
    let ours_out = twins
        .ours
        .kubeupd()
        .args(["-n", &twins.ours.name, "cp", "-c", "b", "p:data/sub/b.txt", &file[0].0])
        .output()
        .unwrap();
    let theirs_out = twins
        .theirs
        .kubectl()
        .args(["-n", &twins.theirs.name, "cp", "-c", "b", "p:data/sub/b.txt", &file[1].0])
        .output()
        .unwrap();
    assert_same_output(&ours_out, &theirs_out, "cp -c b p:FILE ONE");
    assert_eq!(std::fs::read_to_string(&file[0].0).unwrap(), "b\n");
    for args in [
        &["cp", "a", "b"][..],
        &["cp", "p:a", "q:b"],
        &["cp", "a"],
        &["cp", ":a", "b"],
        &["cp", "p:", "b"],
        &["cp", "/nonexistent/x", "p:x"],
    ] {
        assert_both(&twins, args, dests);
    }
}

#[test]
fn cp_to_a_pod_and_back() {
    // kwok never passes stdin's end on to a command, so kubectl's `tar -xmf -` waits for ever
    // there; kubeupd's tar stream ends on a whole tar record, which GNU tar stops at.
    let namespace = TestNamespace::with_nodes("cp-to");
    let work = tempfile::tempdir().unwrap();
    pod_with_exec(&namespace, work.path());
    let local = tempfile::tempdir().unwrap();
    fill(local.path());
    let source = local.path().join("data");
    let copy = |from: &str, to: &str| {
        let output = namespace
            .kubeupd()
            .args(["-n", &namespace.name, "cp", from, to])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert!(output.status.success(), "cp {from} {to}: {}", String::from_utf8_lossy(&output.stderr));
        output
    };
    // To a new name, then into a directory that exists (the source keeps its name there).
    copy(source.to_str().unwrap(), &format!("p:{}/copied", work.path().display()));
    std::fs::create_dir(work.path().join("into")).unwrap();
    copy(source.to_str().unwrap(), "p:into");
    let expected = tree(&source);
    assert_eq!(tree(&work.path().join("copied")), expected);
    assert_eq!(tree(&work.path().join("into/data")), expected);
    // Back from an absolute path: the container's tar says so on stdout, as kubectl prints it.
    let back = local.path().join("back");
    let output = copy(&format!("p:{}/copied", work.path().display()), back.to_str().unwrap());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "Defaulted container \"a\" out of: a, b\ntar: Removing leading `/' from member names\n"
    );
    assert_eq!(tree(&back), expected);
}

/// Starts `command` (a port-forward to `:8080`), reads its lines until it listens on 127.0.0.1,
/// then stops it; the lines, the local port masked.
fn forwarding_lines(mut command: Command) -> Vec<String> {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let port = loop {
        let line = lines.next().expect("a Forwarding line").unwrap();
        seen.push(line.clone());
        if let Some(rest) = line.strip_prefix("Forwarding from 127.0.0.1:") {
            break rest.split(' ').next().unwrap().to_string();
        }
    };
    child.kill().unwrap();
    child.wait().unwrap();
    seen.into_iter().map(|line| line.replace(&port, "PORT")).collect()
}

#[test]
fn port_forward_matches_kubectl() {
    // kwok v0.8.0 here carries no bytes through a forwarded connection, for kubectl as for
    // kubeupd (its PortForward's target and command alike): the lines printed until it listens,
    // and the refusals, are compared.
    let (twins, _ours, _theirs) = twins_with_pods("port-forward");
    for what in [["p", ":8080"], ["svc/s", ":web"], ["pod/p", "0:8080"]] {
        let mut ours = twins.ours.kubeupd_process();
        ours.args(["-n", &twins.ours.name, "port-forward"]).args(what);
        let mut theirs = twins.theirs.kubectl();
        theirs.args(["-n", &twins.theirs.name, "port-forward"]).args(what);
        let (ours, theirs) = (forwarding_lines(ours), forwarding_lines(theirs));
        assert_eq!(ours, theirs, "port-forward {what:?}");
        assert_eq!(ours, ["Forwarding from 127.0.0.1:PORT -> 8080"], "port-forward {what:?}");
    }
    for args in [
        &["port-forward", "p"][..],
        &["port-forward", "p", "x:80"],
        &["port-forward", "p", "80:0"],
        &["port-forward", "p", "--address", "example.com", "80"],
        &["port-forward", "missing", "80"],
    ] {
        assert_both(&twins, args, [("", ""), ("", "")]);
    }
}
