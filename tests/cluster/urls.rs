//! `-f https://...`, as CI scripts install operators (`kubectl apply -f https://.../install.yaml`):
//! manifests served by a small HTTP server on loopback, applied, read and deleted by kubeupd and
//! by kubectl on twin namespaces; a failing server answered as kubectl answers it (a 5xx and a
//! lost connection asked again twice, a second apart; anything else refused at once).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support;
use support::Twins;
use support::fake_server::{Answer, FakeServer, Reply};

const MANIFEST: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: \"1\"\n---\n\
                        apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\ndata:\n  b: \"2\"\n";

fn yaml(body: &str) -> Reply {
    Reply { status: 200, content_type: "application/yaml".into(), headers: Vec::new(), body: body.into() }
}

/// Serves `/app.yaml` (two ConfigMaps), `/one.yaml` (one), `/moved` (a redirect to `/app.yaml`),
/// `/bad.yaml` (not YAML), `/down.yaml` (always 500), `/flaky.yaml` (503, then the file, in
/// turn) and 404 for anything else; every answer's reason is `Fake`, as Go reports it.
fn serve() -> FakeServer {
    let flaky = AtomicUsize::new(0);
    FakeServer::start(move |seen| match seen.path.as_str() {
        "/app.yaml" => Answer::Reply(yaml(MANIFEST)),
        "/one.yaml" => Answer::Reply(yaml(MANIFEST.split("---\n").next().unwrap())),
        "/bad.yaml" => Answer::Reply(yaml("kind: [unclosed\n")),
        "/moved" => Answer::Reply(Reply {
            status: 302,
            content_type: "text/plain".into(),
            headers: vec![("Location".into(), "/app.yaml".into())],
            body: Vec::new(),
        }),
        "/down.yaml" => Answer::Reply(Reply::status(500, "InternalError", "down")),
        "/flaky.yaml" if flaky.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) => {
            Answer::Reply(Reply::status(503, "ServiceUnavailable", "starting"))
        }
        "/flaky.yaml" => Answer::Reply(yaml(MANIFEST)),
        _ => Answer::Reply(Reply::status(404, "NotFound", "no such file")),
    })
}

/// [`Twins::assert_both`] with each side's namespace masked and kubeupd's apply summary left out.
/// Returns kubeupd's output.
fn assert_both(twins: &Twins, args: &[&str]) -> std::process::Output {
    let (ours, theirs) = twins.run_both(args);
    let ours = support::without_apply_summary(ours);
    twins.assert_same_output(&ours, &theirs, &format!("{args:?}"));
    ours
}

fn requests(server: &FakeServer, path: &str) -> usize {
    server.seen().iter().filter(|seen| seen.path == path).count()
}

#[test]
fn manifests_at_a_url_are_applied_read_and_deleted_as_kubectl_does() {
    let server = serve();
    let twins = Twins::new("url-apply");
    let url = format!("{}/app.yaml", server.url);
    assert_both(&twins, &["apply", "-f", &url]);
    twins.assert_same("configmaps/web", "applied from a URL");
    twins.assert_same("configmaps/db", "applied from a URL");
    // A redirect is followed; the second apply finds the objects unchanged.
    assert_both(&twins, &["apply", "-f", &format!("{}/moved", server.url)]);
    // One URL names a single object, as one file does; with another input, a list.
    let one = format!("{}/one.yaml", server.url);
    let kind = |args: &[&str]| {
        let (ours, theirs) = twins.run_both(args);
        let kind = |output: &std::process::Output| support::parse_json(&output.stdout)["kind"].clone();
        assert_eq!(kind(&ours), kind(&theirs), "{args:?}");
        kind(&ours)
    };
    assert_eq!(kind(&["get", "-f", &one, "-o", "json"]), "ConfigMap");
    assert_eq!(kind(&["get", "-f", &one, "-f", &one, "-o", "json"]), "List");
    assert_both(&twins, &["get", "-f", &url, "-f", &format!("{}/one.yaml", server.url), "-o", "name"]);
    assert_both(&twins, &["delete", "-f", &url]);
}

#[test]
fn a_server_that_fails_is_answered_as_kubectl_answers_it() {
    let server = serve();
    let twins = Twins::new("url-fail");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("http://{}/app.yaml", closed.local_addr().unwrap());
    drop(closed);
    for (path, asked) in [("/missing.yaml", 1), ("/down.yaml", 3)] {
        let url = format!("{}{path}", server.url);
        let before = requests(&server, path);
        let ours = assert_both(&twins, &["apply", "-f", &url]);
        assert_eq!(ours.status.code(), Some(1), "{path}");
        assert_eq!(requests(&server, path) - before, 2 * asked, "{path}: each tool asked {asked} times");
    }
    assert_both(&twins, &["apply", "-f", &refused]);
    // A missing path is reported before any URL is asked for.
    let before = requests(&server, "/app.yaml");
    assert_both(&twins, &["apply", "-f", "missing.yaml", "-f", &format!("{}/app.yaml", server.url)]);
    assert_eq!(requests(&server, "/app.yaml"), before);
    twins.assert_same("configmaps", "nothing was applied");
}

#[test]
fn a_server_that_recovers_within_three_attempts_gives_the_file() {
    let server = serve();
    let twins = Twins::new("url-flaky");
    let url = format!("{}/flaky.yaml", server.url);
    assert_both(&twins, &["apply", "-f", &url]);
    assert_eq!(requests(&server, "/flaky.yaml"), 4, "each tool was refused once, then given the file");
    twins.assert_same("configmaps/web", "applied after a 503");
}

#[test]
fn a_file_that_is_not_yaml_is_named_by_its_url() {
    let server = serve();
    let namespace = support::TestNamespace::new("url-bad");
    let url = format!("{}/bad.yaml", server.url);
    let app = format!("{}/app.yaml", server.url);
    let output = namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f", &app, "-f", &url]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with(&format!("error: {url} (document 1): ")) && stderr.lines().count() == 1, "{stderr}");
    let listed = namespace.kubectl_ok(&["get", "configmaps", "-n", &namespace.name, "-o", "name"]);
    assert!(!listed.contains("configmap/web"), "nothing applied: {listed}");
}

/// `apply --plan` checks the plan against the file, then applies it: a URL is read once, so what
/// is applied is what the plan was checked against, even when the server serves another file by
/// the time of a second read.
#[test]
fn a_plan_applies_the_file_it_was_checked_against() {
    let served = AtomicUsize::new(0);
    let server = FakeServer::start(move |_| {
        let value = if served.fetch_add(1, Ordering::SeqCst) < 2 { "planned" } else { "changed" };
        yaml(&format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  v: {value}\n"))
    });
    let namespace = support::TestNamespace::new("url-plan");
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.json");
    let (plan, url) = (plan.to_str().unwrap(), format!("{}/app.yaml", server.url));
    let run = |verb: &str, plan_flag: &str| {
        let args = [verb, "-n", &namespace.name, plan_flag, plan, "-f", &url];
        namespace.kubeupd().args(args).output().unwrap()
    };
    assert_eq!(run("diff", "--plan-out").status.code(), Some(1), "diff: something differs");
    let applied = run("apply", "--plan");
    assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
    assert_eq!(server.seen().len(), 2, "one read by diff, one by apply");
    let value = namespace.kubectl_ok(&["get", "cm", "web", "-n", &namespace.name, "-o", "jsonpath={.data.v}"]);
    assert_eq!(value, "planned");
}
