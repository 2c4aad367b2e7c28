//! `exec`, `cp`, `port-forward` and `attach` end to end on the cluster with nodes, where kwok
//! plays the kubelet: each twin pod gets kwok's `Exec` object (commands run on this machine, in a
//! directory of the test's own). kubectl 1.37 runs beside kubeupd on twin pods; stdout, stderr and
//! exit codes are compared, the namespace and the program's name in usage lines masked. Exit
//! codes, which kwok does not report, and the bytes of `port-forward` and `attach`, which kwok
//! does not carry, are tested on pods bound to the node of `scripts/exec-node`.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
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
    // and the refusals, are compared (bytes: on exec-node's pods, below).
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

/// The pod `p` (container `a`, label `app: p`) bound to [`EXEC_NODE`] in `namespace`, Running as its node would
/// report it (nobody else does), so that `port-forward` and `attach` take it.
fn pod_on_the_exec_node(namespace: &TestNamespace) {
    namespace.apply(&format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, labels: {{app: p}}}}\nspec:\n  nodeName: {EXEC_NODE}\n  terminationGracePeriodSeconds: 0\n  containers: [{{name: a, image: busybox}}]\n"
    ));
    namespace.kubectl_ok(&[
        "patch",
        "-n",
        &namespace.name,
        "pod/p",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status": {"phase": "Running"}}"#,
    ]);
}

/// Twins, each holding the pod of [`pod_on_the_exec_node`].
fn twins_on_the_exec_node(prefix: &str) -> Twins {
    let twins = Twins::with_nodes(prefix);
    pod_on_the_exec_node(&twins.ours);
    pod_on_the_exec_node(&twins.theirs);
    twins
}

/// What the pod's port says first on every connection; then it echoes what it reads, and closes
/// at the end of what it reads.
const GREETING: &[u8] = b"the pod's port says hello\n";

/// A port of this machine, which exec-node's pods forward to: [`GREETING`], then an echo, on
/// every connection, until the test ends.
fn echo_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for connection in listener.incoming() {
            let Ok(mut connection) = connection else { continue };
            std::thread::spawn(move || {
                let mut reader = connection.try_clone().unwrap();
                // The client may be gone before the end: nothing to say then.
                let _ = connection.write_all(GREETING);
                let _ = std::io::copy(&mut reader, &mut connection);
            });
        }
    });
    port
}

/// A local port free at the moment.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A running port-forward: its stdout's lines as they come.
struct Forwarding {
    child: std::process::Child,
    /// The lines read until it listened.
    listening: Vec<String>,
    lines: std::sync::mpsc::Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl Forwarding {
    /// Starts `command` (a port-forward of `ports` ports to `localhost`) and waits until it listens
    /// on both of its addresses, 127.0.0.1 then ::1, for every port (kubectl handles a connection
    /// to the first while it opens the others).
    fn start(mut command: Command, ports: usize) -> Forwarding {
        let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let (sender, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let _ = sender.send(line.unwrap());
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
            text
        });
        let mut listening = Vec::new();
        for address in ["127.0.0.1", "[::1]"].repeat(ports) {
            let line = lines.recv_timeout(std::time::Duration::from_secs(60)).expect("a Forwarding line");
            assert!(line.starts_with(&format!("Forwarding from {address}:")), "{line}");
            listening.push(line);
        }
        Forwarding { child, listening, lines, stderr }
    }

    /// Waits for the process to end (after its interruption, or on its own): the lines it printed
    /// (with the Forwarding lines), its stderr and its exit code.
    fn finish(self) -> (Vec<String>, String, Option<i32>) {
        let status = self.child.wait_with_output().unwrap().status;
        let lines = self.listening.into_iter().chain(self.lines.iter()).collect();
        (lines, self.stderr.join().unwrap(), status.code())
    }
}

/// One connection to `port` through the forwarding: the greeting read, `message` sent and read
/// back, then closed. (Not half-closed: over kubeupd's WebSocket the end of what is sent ends the
/// connection, see docs/differences.md.)
fn converse(port: u16, message: &[u8]) {
    let mut connection = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    connection.set_read_timeout(Some(std::time::Duration::from_secs(60))).unwrap();
    let mut greeting = vec![0; GREETING.len()];
    connection.read_exact(&mut greeting).unwrap();
    assert_eq!(greeting, GREETING);
    // Written as it is read back: a large message does not fit in the connections' buffers.
    let mut writer = connection.try_clone().unwrap();
    let sent = message.to_vec();
    let writing = std::thread::spawn(move || writer.write_all(&sent).unwrap());
    let mut echoed = vec![0; message.len()];
    connection.read_exact(&mut echoed).unwrap();
    writing.join().unwrap();
    assert!(echoed == message, "the echo differs from what was sent");
}

#[test]
fn port_forward_carries_bytes_as_kubectl_does() {
    let twins = twins_on_the_exec_node("port-forward-data");
    let remotes = [echo_port(), echo_port()];
    let large: Vec<u8> = (0..1_000_000u32).map(|index| (index % 251) as u8).collect();
    let mut outcomes = Vec::new();
    for (namespace, mut command) in
        [(&twins.ours, twins.ours.kubeupd_process()), (&twins.theirs, twins.theirs.kubectl())]
    {
        let locals = [free_port(), free_port()];
        let specs = [0, 1].map(|index| format!("{}:{}", locals[index], remotes[index]));
        command.args(["-n", &namespace.name, "port-forward", "pod/p"]).args(&specs);
        let forwarding = Forwarding::start(command, 2);
        // One after another on either port, then three at once, one of them large.
        converse(locals[0], b"one\n");
        converse(locals[1], b"two\n");
        std::thread::scope(|scope| {
            scope.spawn(|| converse(locals[0], b"three\n"));
            scope.spawn(|| converse(locals[0], &large));
            scope.spawn(|| converse(locals[0], b"five\n"));
        });
        // An open connection ends with the interrupted command, and the ports are no more.
        let mut open = std::net::TcpStream::connect(("127.0.0.1", locals[1])).unwrap();
        let mut greeting = vec![0; GREETING.len()];
        open.read_exact(&mut greeting).unwrap();
        let killed = Command::new("kill").args(["-INT", &forwarding.child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        let (lines, stderr, code) = forwarding.finish();
        let mut rest = Vec::new();
        assert!(open.read_to_end(&mut rest).map_or(true, |_| rest.is_empty()));
        for local in locals {
            assert!(std::net::TcpStream::connect(("127.0.0.1", local)).is_err());
        }
        let masks = [(locals[0], "LOCAL1"), (locals[1], "LOCAL2"), (remotes[0], "REMOTE1"), (remotes[1], "REMOTE2")];
        let lines: Vec<String> = lines
            .iter()
            .map(|line| masks.iter().fold(line.clone(), |line, (port, mask)| line.replace(&port.to_string(), mask)))
            .collect();
        outcomes.push((lines, stderr, code));
    }
    assert_eq!(outcomes[0], outcomes[1], "kubeupd, then kubectl");
    let expected = [
        "Forwarding from 127.0.0.1:LOCAL1 -> REMOTE1",
        "Forwarding from [::1]:LOCAL1 -> REMOTE1",
        "Forwarding from 127.0.0.1:LOCAL2 -> REMOTE2",
        "Forwarding from [::1]:LOCAL2 -> REMOTE2",
        "Handling connection for LOCAL1",
        "Handling connection for LOCAL2",
        "Handling connection for LOCAL1",
        "Handling connection for LOCAL1",
        "Handling connection for LOCAL1",
        "Handling connection for LOCAL2",
    ];
    assert_eq!(outcomes[0], (expected.map(String::from).to_vec(), String::new(), Some(0)));
}

#[test]
fn port_forward_through_a_service_carries_bytes_as_kubectl_does() {
    let twins = twins_on_the_exec_node("port-forward-service");
    let remote = echo_port();
    let service = format!(
        "apiVersion: v1\nkind: Service\nmetadata: {{name: s}}\nspec:\n  selector: {{app: p}}\n  ports: [{{name: web, port: 80, targetPort: {remote}}}]\n"
    );
    let mut outcomes = Vec::new();
    for (namespace, mut command) in
        [(&twins.ours, twins.ours.kubeupd_process()), (&twins.theirs, twins.theirs.kubectl())]
    {
        namespace.apply(&service);
        let local = free_port();
        command.args(["-n", &namespace.name, "port-forward", "svc/s", &format!("{local}:web")]);
        let forwarding = Forwarding::start(command, 1);
        converse(local, b"through the service\n");
        let killed = Command::new("kill").args(["-INT", &forwarding.child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        let (lines, stderr, code) = forwarding.finish();
        let lines: Vec<String> = lines
            .iter()
            .map(|line| line.replace(&local.to_string(), "LOCAL").replace(&remote.to_string(), "REMOTE"))
            .collect();
        outcomes.push((lines, stderr, code));
    }
    assert_eq!(outcomes[0], outcomes[1], "kubeupd, then kubectl");
    let expected = [
        "Forwarding from 127.0.0.1:LOCAL -> REMOTE",
        "Forwarding from [::1]:LOCAL -> REMOTE",
        "Handling connection for LOCAL",
    ];
    assert_eq!(outcomes[0], (expected.map(String::from).to_vec(), String::new(), Some(0)));
}

#[test]
fn port_forward_ends_when_the_pods_port_refuses() {
    let twins = twins_on_the_exec_node("port-forward-refused");
    // A port nothing listens on: the node reports the refusal on the connection's error stream,
    // and both tools give up the whole forwarding.
    let remote = free_port();
    let mut outcomes = Vec::new();
    for (namespace, mut command) in
        [(&twins.ours, twins.ours.kubeupd_process()), (&twins.theirs, twins.theirs.kubectl())]
    {
        // Not the port just freed, which the lines mask apart.
        let local = std::iter::repeat_with(free_port).find(|port| *port != remote).unwrap();
        command.args(["-n", &namespace.name, "port-forward", "pod/p", &format!("{local}:{remote}")]);
        let forwarding = Forwarding::start(command, 1);
        let mut connection = std::net::TcpStream::connect(("127.0.0.1", local)).unwrap();
        connection.set_read_timeout(Some(std::time::Duration::from_secs(60))).unwrap();
        let mut read = Vec::new();
        assert!(connection.read_to_end(&mut read).map_or(true, |_| read.is_empty()));
        let (lines, stderr, code) = forwarding.finish();
        let lines: Vec<String> = lines
            .iter()
            .map(|line| line.replace(&local.to_string(), "LOCAL").replace(&remote.to_string(), "REMOTE"))
            .collect();
        // kubectl logs the node's words through klog (a time and a source line first).
        let last = stderr.lines().last().unwrap_or_default().to_string();
        assert!(stderr.contains("connection refused"), "{stderr}");
        outcomes.push((lines, last, code));
    }
    assert_eq!(outcomes[0], outcomes[1], "kubeupd, then kubectl");
    assert_eq!(
        outcomes[0],
        (
            [
                "Forwarding from 127.0.0.1:LOCAL -> REMOTE",
                "Forwarding from [::1]:LOCAL -> REMOTE",
                "Handling connection for LOCAL"
            ]
            .map(String::from)
            .to_vec(),
            "error: lost connection to pod".into(),
            Some(1)
        )
    );
}

#[test]
fn attach_carries_stdin_to_the_containers_process_and_back() {
    let twins = twins_on_the_exec_node("attach-data");
    let mut outputs = Vec::new();
    for (namespace, mut command) in
        [(&twins.ours, twins.ours.kubeupd_process()), (&twins.theirs, twins.theirs.kubectl())]
    {
        command.args(["-n", &namespace.name, "attach", "-i", "p"]);
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        // The container's process (exec-node's `cat`) answers each line before the next is sent.
        let mut echoed = String::new();
        for line in ["one\n", "two\n"] {
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.flush().unwrap();
            let mut answer = String::new();
            stdout.read_line(&mut answer).unwrap();
            assert_eq!(answer, line);
            echoed.push_str(&answer);
        }
        // The end of stdin ends the session.
        drop(stdin);
        let mut rest = Vec::new();
        stdout.read_to_end(&mut rest).unwrap();
        let output = child.wait_with_output().unwrap();
        outputs.push(Output {
            status: output.status,
            stdout: [echoed.as_bytes(), &rest].concat(),
            stderr: output.stderr,
        });
    }
    assert_same_output(&outputs[0], &outputs[1], "attach -i p");
    assert_eq!(
        (outputs[0].status.code(), String::from_utf8_lossy(&outputs[0].stdout).as_ref()),
        (Some(0), "one\ntwo\n")
    );
}

#[test]
fn port_forward_ends_when_the_pod_is_gone() {
    // kubeupd alone: kubeupd opens each connection through the API server, which no longer finds
    // the pod; kubectl's streams share the connection it opened at the start, and exec-node, which
    // knows nothing of pods, would go on forwarding them (a kubelet's runtime reports the pod
    // missing, and kubectl ends the same way).
    let namespace = TestNamespace::with_nodes("port-forward-gone");
    pod_on_the_exec_node(&namespace);
    let (remote, local) = (echo_port(), free_port());
    let mut command = namespace.kubeupd_process();
    command.args(["-n", &namespace.name, "port-forward", "pod/p", &format!("{local}:{remote}")]);
    let forwarding = Forwarding::start(command, 1);
    converse(local, b"before\n");
    namespace.kubectl_ok(&["delete", "-n", &namespace.name, "pod/p"]);
    let mut connection = std::net::TcpStream::connect(("127.0.0.1", local)).unwrap();
    let mut read = Vec::new();
    assert!(connection.read_to_end(&mut read).map_or(true, |_| read.is_empty()));
    let (lines, stderr, code) = forwarding.finish();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(
        (stderr.as_str(), code),
        (
            format!(
                "error: an error occurred forwarding {local} -> {remote}: Error from server (NotFound): pods \"p\" not found\nerror: lost connection to pod\n"
            )
            .as_str(),
            Some(1)
        )
    );
}
