//! `scripts/fault-proxy` (Go) in front of the real apiserver: one process per test, on a free
//! port, with its rules given at start. kubeupd and kubectl both talk TLS to it (its own CA) with
//! the test cluster's token, which it passes on; so both tools meet the same faults the same way.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

/// A rule of `scripts/fault-proxy` (see its main.go): a fault for the requests whose method and
/// path (with the query) match these regular expressions, on a schedule.
#[derive(Clone)]
pub struct FaultRule(Value);

impl FaultRule {
    fn new(method: &str, path: &str, fault: &str) -> Self {
        FaultRule(json!({"method": method, "path": path, "fault": fault}))
    }

    /// Answer `code` (a Status body) without forwarding, with `Retry-After: retry_after` if any.
    pub fn status(method: &str, path: &str, code: u16, retry_after: Option<u32>) -> Self {
        let mut rule = Self::new(method, path, "status");
        rule.0["status"] = code.into();
        if let Some(seconds) = retry_after {
            rule.0["retryAfter"] = seconds.to_string().into();
        }
        rule
    }

    /// Reset the connection before the request reaches the server.
    pub fn reset_before(method: &str, path: &str) -> Self {
        Self::new(method, path, "reset")
    }

    /// Forward the request, then reset the connection: the write happened, its answer is lost.
    pub fn reset_after(method: &str, path: &str) -> Self {
        Self::new(method, path, "reset-after")
    }

    /// Forward the request, then hold the answer back `duration` (a Go duration, `5s`).
    pub fn stall(method: &str, path: &str, duration: &str) -> Self {
        let mut rule = Self::new(method, path, "stall");
        rule.0["stall"] = duration.into();
        rule
    }

    /// Pass a watch's events on for `duration`, then cut the stream.
    pub fn watch_cut(path: &str, duration: &str) -> Self {
        let mut rule = Self::new("GET", path, "watch-cut");
        rule.0["cutAfter"] = duration.into();
        rule
    }

    /// (A webhook's rule) refuse the object.
    pub fn deny(path: &str) -> Self {
        Self::new("POST", path, "deny")
    }

    /// Fail the TLS handshake of new connections.
    pub fn tls_fail() -> Self {
        Self::new("TLS", "", "tls-fail")
    }

    /// Apply the fault at most `n` times.
    pub fn first(mut self, n: usize) -> Self {
        self.0["first"] = n.into();
        self
    }
}

/// A running `scripts/fault-proxy`; killed when dropped.
pub struct FaultRelay {
    child: Child,
    dir: tempfile::TempDir,
    kubeconfig: PathBuf,
    address: String,
}

/// Starts `command` (the proxy's binary with its mode's flags) on a free port, with `rules` and
/// `dir`; returns it and the address it listens on.
fn spawn(mut command: Command, dir: &Path, rules: &[FaultRule]) -> (Child, String) {
    let rules_file = dir.join("rules.json");
    let rules: Vec<&Value> = rules.iter().map(|rule| &rule.0).collect();
    std::fs::write(&rules_file, serde_json::to_vec(&rules).unwrap()).unwrap();
    let mut child = command
        .args(["-listen", "127.0.0.1:0"])
        .arg("-dir")
        .arg(dir)
        .arg("-rules")
        .arg(&rules_file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("scripts/fault-proxy starts");
    let mut address = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut address).unwrap();
    let address = address.trim().to_string();
    assert!(!address.is_empty(), "scripts/fault-proxy did not start");
    (child, address)
}

impl FaultRelay {
    /// Starts a proxy in front of the test cluster with `rules`, on a free port.
    pub fn start(rules: &[FaultRule]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let credentials = super::credentials();
        let upstream_ca = dir.path().join("upstream.crt");
        std::fs::write(&upstream_ca, &credentials.ca_pem).unwrap();
        let mut command = Command::new(binary());
        command.args(["-upstream", &credentials.server]).arg("-upstream-ca").arg(&upstream_ca);
        let (child, address) = spawn(command, dir.path(), rules);
        let kubeconfig = dir.path().join("kubeconfig");
        let ca = dir.path().join("ca.crt");
        std::fs::write(
            &kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: faults\n  cluster:\n    server: https://{address}\n    \
                 certificate-authority: {}\nusers:\n- name: faults\n  user:\n    token: {}\ncontexts:\n- name: faults\n  \
                 context: {{cluster: faults, user: faults}}\ncurrent-context: faults\n",
                ca.display(),
                credentials.token
            ),
        )
        .unwrap();
        FaultRelay { child, dir, kubeconfig, address }
    }

    /// Starts `scripts/fault-proxy -webhook`: a validating admission webhook at
    /// [`FaultRelay::webhook_url`] with [`FaultRelay::ca_pem`], its `rules` matching
    /// `/validate/NAMESPACE/NAME OPERATION`.
    pub fn webhook(rules: &[FaultRule]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut command = Command::new(binary());
        command.arg("-webhook");
        let (child, address) = spawn(command, dir.path(), rules);
        let kubeconfig = dir.path().join("no-kubeconfig");
        FaultRelay { child, dir, kubeconfig, address }
    }

    /// The URL the apiserver calls a webhook at.
    pub fn webhook_url(&self) -> String {
        format!("https://{}/validate", self.address)
    }

    /// The certificate of the CA that signed the proxy's, as PEM.
    pub fn ca_pem(&self) -> Vec<u8> {
        std::fs::read(self.dir.path().join("ca.crt")).unwrap()
    }

    /// The kubeconfig that reaches the cluster through the proxy.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The requests the proxy received, one line each: `METHOD PATH OUTCOME` (the server's status,
    /// or the fault).
    pub fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("requests.log"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }
}

impl Drop for FaultRelay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `scripts/fault-proxy` built once per test run, into the target directory.
fn binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fault-proxy");
            let partial = out.with_extension(format!("{}", std::process::id()));
            let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fault-proxy");
            let modified = |path: &Path| std::fs::metadata(path).and_then(|metadata| metadata.modified()).ok();
            if modified(&out)
                .is_some_and(|built| modified(&source.join("main.go")).is_some_and(|changed| built > changed))
            {
                return out;
            }
            let build = || {
                Command::new("go")
                    .args(["build", "-trimpath", "-o"])
                    .arg(&partial)
                    .arg(".")
                    .current_dir(&source)
                    .env("GOWORK", "off")
                    .env("CGO_ENABLED", "0")
                    .output()
                    .expect("go is installed")
            };
            // A Go build cache that another build is trimming at the same moment can fail a
            // build once; the second is then clean.
            let built = Some(build()).filter(|built| built.status.success()).unwrap_or_else(build);
            assert!(built.status.success(), "go build scripts/fault-proxy: {}", String::from_utf8_lossy(&built.stderr));
            std::fs::rename(&partial, &out).unwrap();
            out
        })
        .clone()
}
