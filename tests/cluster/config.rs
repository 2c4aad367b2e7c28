//! `kubeupd config` against kubectl 1.37 on copies of the same kubeconfig files: each command
//! run by both tools, each in its own directory holding the same files (so that the file names in
//! messages are the same), and after each one stdout, stderr, the exit code and the bytes of every
//! file compared. kubectl rewrites a file it changes in client-go's serialization; so must kubeupd.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIRST: &str = "# a comment kubectl drops
apiVersion: v1
kind: Config
current-context: ctx-a
clusters:
- name: zeta
  cluster:
    server: https://zeta.example:6443
    certificate-authority: ca.crt
    insecure-skip-tls-verify: false
- name: alpha
  cluster: {server: \"https://alpha:443\", certificate-authority-data: \"Q0EK\", extensions: [{name: x, extension: {a: 1}}]}
contexts:
- name: ctx-a
  context: {cluster: alpha, user: u1, namespace: ns1}
- name: ctx-z
  context: {cluster: zeta, user: u2}
users:
- name: u1
  user: {token: secret-token, client-key-data: \"S0VZCg==\"}
- name: u2
  user:
    username: bob
    password: pw
    exec: {command: aws, args: [eks, get-token], apiVersion: client.authentication.k8s.io/v1beta1}
unknownfield: 3
";

const SECOND: &str = "apiVersion: v1
kind: Config
current-context: ctx-second
preferences: {}
clusters:
- name: second-cluster
  cluster: {server: \"https://second\", certificate-authority: sub/ca.crt}
- name: alpha
  cluster: {server: \"https://shadowed\"}
contexts:
- name: ctx-second
  context: {cluster: second-cluster, user: second-user}
users:
- name: second-user
  user: {client-certificate: ./certs/c.crt, tokenFile: ../tok}
";

/// Two directories with the same kubeconfig files, one for each tool.
struct Copies {
    _root: tempfile::TempDir,
    kubectl: PathBuf,
    kubeupd: PathBuf,
    /// `$KUBECONFIG` (relative to each directory), or `None` for `--kubeconfig config`.
    list: Option<&'static str>,
}

impl Copies {
    fn new(list: Option<&'static str>) -> Copies {
        let root = tempfile::tempdir().unwrap();
        let (kubectl, kubeupd) = (root.path().join("kubectl"), root.path().join("kubeupd"));
        for dir in [&kubectl, &kubeupd] {
            std::fs::create_dir_all(dir.join("home")).unwrap();
            std::fs::write(dir.join("config"), FIRST).unwrap();
            std::fs::write(dir.join("second"), SECOND).unwrap();
        }
        Copies { _root: root, kubectl, kubeupd, list }
    }

    fn command(&self, program: &Path, dir: &Path, line: &str) -> Output {
        let mut command = Command::new(program);
        command.current_dir(dir).env("HOME", dir.join("home")).env("KUBERC", "off");
        match self.list {
            Some(list) => command.env("KUBECONFIG", list),
            None => command.env_remove("KUBECONFIG").args(["--kubeconfig", "config"]),
        };
        command.args(shlex::split(line).unwrap()).output().unwrap()
    }

    /// Runs `line` through both tools and compares what they print and the files they leave.
    fn assert_same(&self, line: &str) {
        let theirs = self.command(Path::new("kubectl"), &self.kubectl, line);
        let ours = self.command(&kubeupd(), &self.kubeupd, line);
        let context = format!("`{line}` (KUBECONFIG={:?})", self.list);
        crate::support::assert_same_output(&ours, &theirs, &context);
        for file in ["config", "second", "missing", "missing-1", "missing-2"] {
            let read = |dir: &Path| std::fs::read_to_string(dir.join(file)).unwrap_or_default();
            assert_eq!(read(&self.kubeupd), read(&self.kubectl), "{context}: the file {file}");
        }
    }

    /// Runs a usage error of `line`'s subcommand through both tools: the same exit code, the
    /// same stderr (where kubectl names itself for help, kubeupd does), the same files, and on
    /// stdout either nothing from both or each tool's own help of the subcommand (`-h`), as
    /// kubectl prints its help with some of these errors; kubeupd's help is its own.
    fn assert_same_usage(&self, line: &str) {
        let tools = [("kubectl", PathBuf::from("kubectl"), &self.kubectl), ("kubeupd", kubeupd(), &self.kubeupd)];
        let context = format!("`{line}` (KUBECONFIG={:?})", self.list);
        let subcommand = line.split_whitespace().nth(1).unwrap();
        let [theirs, ours] = tools.map(|(name, program, dir)| {
            let output = self.command(&program, dir, line);
            let help = self.command(&program, dir, &format!("config {subcommand} -h"));
            let stdout = match output.stdout.as_slice() {
                [] => "nothing",
                shown if shown == help.stdout.as_slice() => "the help",
                _ => "something else",
            };
            let stderr = String::from_utf8_lossy(&output.stderr).replace(&format!("'{name} "), "'TOOL ");
            (output.status.code(), stdout, stderr)
        });
        assert_eq!(ours, theirs, "{context}: kubeupd (left) differs from kubectl (right)");
        for file in ["config", "second"] {
            let read = |dir: &Path| std::fs::read_to_string(dir.join(file)).unwrap_or_default();
            assert_eq!(read(&self.kubeupd), read(&self.kubectl), "{context}: the file {file}");
        }
    }
}

fn kubeupd() -> PathBuf {
    assert_cmd::cargo::cargo_bin("kubeupd")
}

const READING: &[&str] = &[
    "config view",
    "config view --raw",
    "config view -o json",
    "config view --raw -o json --minify",
    "config view --minify -o jsonpath={.contexts[0].name}",
    "config view -o jsonpath={.users[*].name}",
    "config view --flatten --minify",
    "config view --merge=false",
    "config view --minify --context ctx-z",
    "config get-contexts",
    "config get-contexts -o name",
    "config get-contexts --no-headers",
    "config get-contexts ctx-z nope",
    "config get-contexts -o wide",
    "config get-users",
    "config current-context",
];

const WRITING: &[&str] = &[
    "config use-context nope",
    "config use ctx-z",
    "config set-context --current --namespace=q",
    "config set-context ctx-a --cluster=c2 --user=u9",
    "config set-context brand-new --cluster=alpha",
    "config set-context",
    "config set-context x --current",
    "config set-cluster alpha --server=https://new",
    "config set-cluster newc --server=https://n --certificate-authority=sub/ca.crt",
    "config set-cluster second-cluster --tls-server-name=s.example --proxy-url=http://proxy:3128",
    "config set-cluster newc --insecure-skip-tls-verify",
    "config set-cluster newc --certificate-authority=/tmp/x --insecure-skip-tls-verify",
    "config set-cluster x --embed-certs --certificate-authority=nope.crt",
    "config set-credentials u3 --token=t",
    "config set-credentials u3 --username=a --password=b",
    "config set-credentials u3 --username=a --token=b",
    "config set-credentials u2 --exec-command=gcloud --exec-arg=a,b --exec-env=A=1 --exec-api-version=client.authentication.k8s.io/v1",
    "config set-credentials u2 --exec-env=A- --exec-provide-cluster-info",
    "config set-credentials u1 --auth-provider=oidc --auth-provider-arg=a=b",
    "config set-credentials u1 --client-certificate=../x.crt --client-key=k.key",
    "config set-credentials second-user --token=t",
    "config set contexts.ctx-a.namespace xx",
    "config set clusters.zeta.insecure-skip-tls-verify true",
    "config set users.u1.client-key-data Zm9v",
    "config set users.u1.client-key-data raw --set-raw-bytes",
    "config set current-context ctx-z",
    "config unset users.u1.token",
    "config unset contexts.nope.namespace",
    "config unset current-context",
    "config unset current-context",
    "config view",
    "config use ctx-second",
    "config delete-user u2",
    "config delete-cluster zeta",
    "config delete-cluster second-cluster",
    "config delete-context ctx-z",
    "config delete-context ctx-z",
    "config delete-context ctx-second",
    "config rename-context ctx-a ctx-b",
    "config rename-context nope x",
    "config rename-context ctx-b brand-new",
    "config view --raw",
];

#[test]
fn config_reads_one_file_as_kubectl_does() {
    let copies = Copies::new(None);
    for line in READING {
        copies.assert_same(line);
    }
}

#[test]
fn config_reads_a_kubeconfig_list_as_kubectl_does() {
    let copies = Copies::new(Some("config:second"));
    for line in READING.iter().filter(|line| !line.contains("--merge=false") && !line.contains("--flatten")) {
        copies.assert_same(line);
    }
}

#[test]
fn config_writes_one_file_as_kubectl_does() {
    let copies = Copies::new(None);
    for line in WRITING {
        copies.assert_same(line);
    }
}

#[test]
fn config_writes_each_change_to_the_file_kubectl_writes_it_to() {
    let copies = Copies::new(Some("config:second"));
    for line in WRITING {
        copies.assert_same(line);
    }
    // The second file first, and a file that does not exist yet.
    let copies = Copies::new(Some("second:config:missing"));
    for line in ["config set-context new --cluster=alpha", "config use ctx-a", "config unset current-context"] {
        copies.assert_same(line);
    }
    let copies = Copies::new(Some("missing-1:missing-2"));
    for line in ["config view", "config set-context new --cluster=alpha", "config view"] {
        copies.assert_same(line);
    }
}

/// Words a subcommand does not take, as kubectl refuses them: its help on stdout, then the error
/// (`use-context`, `set-*`, `set`, `unset`, `rename-context`), the help alone and success
/// (`delete-context`, `delete-cluster`), or a usage error (`delete-user`).
const USAGE: &[&str] = &[
    "config delete-context",
    "config delete-context ctx-a ctx-z",
    "config delete-cluster",
    "config delete-cluster alpha zeta",
    "config delete-user",
    "config delete-user u1 u2",
    "config use-context",
    "config use ctx-a ctx-z",
    "config set-credentials",
    "config set-credentials u1 u2",
    "config set-credentials u1 --exec-env=bad",
    "config set-credentials u1 --auth-provider-arg=bad",
    "config set-context a b",
    "config set-cluster",
    "config set contexts.ctx-a.namespace",
    "config unset",
    "config rename-context ctx-a",
];

#[test]
fn config_usage_errors_are_kubectls() {
    let copies = Copies::new(None);
    for line in USAGE {
        copies.assert_same_usage(line);
    }
}
