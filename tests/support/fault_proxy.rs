//! A proxy in front of the real apiserver that injects faults: kubeupd talks plain HTTP to it, it
//! forwards to the apiserver (over TLS, with the test credentials) unless a rule says otherwise.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::TestNamespace;
use super::fake_server::{Answer, FakeServer, Reply, Seen};

/// A fault to inject into matching requests.
#[derive(Clone)]
pub enum Fault {
    /// Answer with this status (and reason) instead of forwarding.
    Status { code: u16, reason: &'static str, retry_after: Option<u32> },
    /// Close the connection without answering, after forwarding (the request happened) or not.
    Reset { after_forwarding: bool },
    /// Forward, then send the head and half the body of the answer and close the connection.
    CloseMidAnswer,
    /// Forward, then hold the answer back this long.
    Slow(Duration),
    /// Forward a watch that the server ends after this many seconds: the proxy answers only when
    /// the server has ended it, so a long watch would hold every event back.
    ShortWatch(u32),
    /// Hold the request this long before forwarding it: it counts as in flight (see
    /// [`FaultProxy::most_at_once`]) all the while.
    Held(Duration),
}

/// Which requests a fault applies to, and how many times.
pub struct Rule {
    pub method: &'static str,
    pub path_contains: String,
    pub fault: Fault,
    /// Matching requests let through before the fault applies.
    pub skip: usize,
    pub times: usize,
}

/// The proxy; `url` goes in the kubeconfig kubeupd uses.
pub struct FaultProxy {
    server: FakeServer,
    rules: Arc<Mutex<Vec<Rule>>>,
    /// Requests being answered now, and the most there were at once.
    in_flight: Arc<Mutex<(usize, usize)>>,
}

impl FaultProxy {
    pub fn start() -> Self {
        let rules: Arc<Mutex<Vec<Rule>>> = Arc::default();
        let upstream = Upstream::new();
        let matching = rules.clone();
        let in_flight: Arc<Mutex<(usize, usize)>> = Arc::default();
        let gauge = in_flight.clone();
        let server = FakeServer::start(move |seen: &Seen| -> Answer {
            {
                let mut gauge = gauge.lock().unwrap();
                gauge.0 += 1;
                gauge.1 = gauge.1.max(gauge.0);
            }
            let _done = Done(&gauge);
            let fault = {
                let mut rules = matching.lock().unwrap();
                // Every matching rule counts the request; the first one due applies.
                let mut due = None;
                for rule in rules.iter_mut() {
                    if rule.times == 0 || rule.method != seen.method || !seen.path.contains(&rule.path_contains) {
                        continue;
                    }
                    if rule.skip > 0 {
                        rule.skip -= 1;
                    } else if due.is_none() {
                        rule.times -= 1;
                        due = Some(rule.fault.clone());
                    }
                }
                due
            };
            match fault {
                None => upstream.forward(seen).into(),
                Some(Fault::Status { code, reason, retry_after }) => {
                    let mut reply = Reply::status(code, reason, &format!("injected {code} {reason}"));
                    if let Some(seconds) = retry_after {
                        reply.headers.push(("Retry-After".into(), seconds.to_string()));
                    }
                    reply.into()
                }
                Some(Fault::Reset { after_forwarding }) => {
                    if after_forwarding {
                        upstream.forward(seen);
                    }
                    Answer::Reset
                }
                Some(Fault::CloseMidAnswer) => Answer::Truncated(upstream.forward(seen)),
                Some(Fault::Slow(pause)) => Answer::Slow(pause, upstream.forward(seen)),
                Some(Fault::ShortWatch(seconds)) => {
                    let mut short = seen.clone();
                    short.path = with_timeout(&seen.path, seconds);
                    upstream.forward(&short).into()
                }
                Some(Fault::Held(pause)) => {
                    std::thread::sleep(pause);
                    upstream.forward(seen).into()
                }
            }
        });
        FaultProxy { server, rules, in_flight }
    }

    /// The most requests the proxy was answering at once (a held one counts until it is
    /// forwarded and answered).
    pub fn most_at_once(&self) -> usize {
        self.in_flight.lock().unwrap().1
    }

    /// Adds a rule; rules are tried in the order they were added.
    pub fn inject(&self, method: &'static str, path_contains: &str, fault: Fault, times: usize) {
        self.inject_nth(method, path_contains, fault, 1, times);
    }

    /// Adds a rule that lets the first `nth - 1` matching requests through, then applies `fault`
    /// `times` times: e.g. the 150th write of a run.
    pub fn inject_nth(&self, method: &'static str, path_contains: &str, fault: Fault, nth: usize, times: usize) {
        let rule = Rule { method, path_contains: path_contains.to_string(), fault, skip: nth - 1, times };
        self.rules.lock().unwrap().push(rule);
    }

    /// Drops every rule: from now on requests are forwarded, until rules are added again.
    pub fn clear(&self) {
        self.rules.lock().unwrap().clear();
    }

    /// The requests the proxy received.
    pub fn seen(&self) -> Vec<Seen> {
        self.server.seen()
    }

    /// A kubeconfig pointing at the proxy, written into `dir`.
    pub fn kubeconfig(&self, dir: &std::path::Path) -> std::path::PathBuf {
        self.server.kubeconfig(dir)
    }
}

/// A test namespace, a proxy in front of the apiserver, and kubeupd pointed at the proxy.
pub struct Rig {
    pub namespace: TestNamespace,
    pub proxy: FaultProxy,
    pub dir: tempfile::TempDir,
}

impl Rig {
    pub fn new(prefix: &str) -> Self {
        Rig { namespace: TestNamespace::new(prefix), proxy: FaultProxy::start(), dir: tempfile::tempdir().unwrap() }
    }

    /// kubeupd through the proxy, in the rig's namespace, with `args`.
    pub fn command(&self, args: &[&str]) -> assert_cmd::Command {
        assert_cmd::Command::from_std(self.process(args))
    }

    /// [`Rig::command`] as a process to start and look at while it runs.
    pub fn process(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("kubeupd"));
        command
            .arg("--kubeconfig")
            .arg(self.proxy.kubeconfig(self.dir.path()))
            .arg("--cache-dir")
            .arg(self.dir.path().join("cache"))
            .args(["-n", &self.namespace.name])
            .args(args)
            .env_remove("KUBECONFIG");
        command
    }

    /// Runs kubeupd through the proxy with `stdin`; returns its output and how long it took.
    pub fn kubeupd(&self, args: &[&str], stdin: &str) -> (std::process::Output, Duration) {
        let started = Instant::now();
        let output = self.command(args).write_stdin(stdin.to_string()).output().unwrap();
        (output, started.elapsed())
    }

    /// How many requests with `method` and a path containing `path_contains` the proxy received.
    pub fn count(&self, method: &str, path_contains: &str) -> usize {
        self.proxy.seen().iter().filter(|seen| seen.method == method && seen.path.contains(path_contains)).count()
    }
}

/// Counts a request as answered when dropped.
struct Done<'a>(&'a Mutex<(usize, usize)>);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.lock().unwrap().0 -= 1;
    }
}

/// `path` with its `timeoutSeconds` set to `seconds`.
fn with_timeout(path: &str, seconds: u32) -> String {
    let (base, query) = path.split_once('?').unwrap_or((path, ""));
    let mut pairs: Vec<String> = query
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.starts_with("timeoutSeconds="))
        .map(String::from)
        .collect();
    pairs.push(format!("timeoutSeconds={seconds}"));
    format!("{base}?{}", pairs.join("&"))
}

/// The real apiserver, reached with the test cluster's credentials.
struct Upstream {
    runtime: tokio::runtime::Runtime,
    client: kube::Client,
}

impl Upstream {
    fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let client = runtime.block_on(async {
            let kubeconfig = kube::config::Kubeconfig::read_from(super::kubeconfig()).unwrap();
            let mut config =
                kube::Config::from_custom_kubeconfig(kubeconfig, &kube::config::KubeConfigOptions::default())
                    .await
                    .unwrap();
            config.default_retry = false;
            kube::Client::try_from(config).unwrap()
        });
        Upstream { runtime, client }
    }

    fn forward(&self, seen: &Seen) -> Reply {
        let mut request = http::Request::builder().method(seen.method.as_str()).uri(&seen.path);
        for (name, value) in [("content-type", &seen.content_type), ("accept", &seen.accept)] {
            if let Some(value) = value {
                request = request.header(name, value);
            }
        }
        let request = request.body(kube::client::Body::from(seen.body.clone())).unwrap();
        self.runtime.block_on(async {
            let response = self.client.send(request).await.expect("the real apiserver answers");
            let status = response.status().as_u16();
            let content_type = response
                .headers()
                .get("content-type")
                .and_then(|value| value.to_str().ok())
                .unwrap_or("application/json")
                .to_string();
            let body = response.into_body().collect_bytes().await.unwrap().to_vec();
            Reply { status, content_type, headers: Vec::new(), body }
        })
    }
}
