//! Remote targets of kustomize: a kustomization in a git repository, named by a `file://` URL (no
//! network), as a resource of a local overlay, as the root itself, and a component in one, built
//! by `kubeupd kustomize` and by `kubectl kustomize` (the oracle) to the same bytes; the ref is
//! honoured; the origins `buildMetadata` writes for a remote base. And remote files over HTTP,
//! served by a small server on 127.0.0.1 started by the test: a resource, a patch, a redirect, a
//! 404.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

fn run(program: &str, args: &[&str], dir: &Path) -> Output {
    Command::new(program).args(args).current_dir(dir).output().unwrap()
}

fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(["-c", "user.email=test@example.com", "-c", "user.name=test", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// A repository whose `base` makes a ConfigMap with `v: 1` at tag v1 and `v: 2` on main.
fn repository(root: &Path) -> std::path::PathBuf {
    let repo = root.join("repo");
    std::fs::create_dir_all(repo.join("base")).unwrap();
    git(&repo, &["init", "--quiet"]);
    std::fs::write(repo.join("base/kustomization.yaml"), "resources: [cm.yaml]\ncommonLabels: {from: remote}\n")
        .unwrap();
    for value in ["1", "2"] {
        let configmap =
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: settings}}\ndata: {{v: \"{value}\"}}\n");
        std::fs::write(repo.join("base/cm.yaml"), configmap).unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "--quiet", "-m", value]);
        if value == "1" {
            git(&repo, &["tag", "v1"]);
        }
    }
    repo
}

fn same_build(args: &[&str], dir: &Path) -> String {
    let ours = run(assert_cmd::cargo::cargo_bin("kubeupd").to_str().unwrap(), args, dir);
    let theirs = run("kubectl", args, dir);
    assert!(theirs.status.success(), "kubectl {args:?}: {}", String::from_utf8_lossy(&theirs.stderr));
    assert!(ours.status.success(), "kubeupd {args:?}: {}", String::from_utf8_lossy(&ours.stderr));
    assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout), "{args:?}");
    String::from_utf8_lossy(&ours.stdout).into_owned()
}

#[test]
fn a_remote_base_builds_as_kubectl_builds_it() {
    let temp = tempfile::tempdir().unwrap();
    let repo = repository(temp.path());
    let overlay = temp.path().join("overlay");
    std::fs::create_dir_all(&overlay).unwrap();
    for (reference, value) in [("?ref=v1", "v: \"1\""), ("", "v: \"2\"")] {
        let url = format!("file://{}//base{reference}", repo.display());
        std::fs::write(overlay.join("kustomization.yaml"), format!("resources:\n- {url}\nnamePrefix: prod-\n"))
            .unwrap();
        let built = same_build(&["kustomize", "."], &overlay);
        assert!(built.contains(value) && built.contains("name: prod-settings"), "{reference}: {built}");
        let root = same_build(&["kustomize", &url], temp.path());
        assert!(root.contains(value) && root.contains("from: remote"), "{reference}: {root}");
    }
}

#[test]
fn a_remote_component_builds_as_kubectl_builds_it() {
    let temp = tempfile::tempdir().unwrap();
    let repo = repository(temp.path());
    std::fs::create_dir_all(repo.join("component")).unwrap();
    std::fs::write(
        repo.join("component/kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {with: component}\n\
         configMapGenerator:\n- name: extra\n  literals: [a=b]\n",
    )
    .unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "--quiet", "-m", "component"]);
    let overlay = temp.path().join("overlay");
    std::fs::create_dir_all(&overlay).unwrap();
    let base = format!("file://{}//base", repo.display());
    let component = format!("file://{}//component", repo.display());
    std::fs::write(overlay.join("kustomization.yaml"), format!("resources:\n- {base}\ncomponents:\n- {component}\n"))
        .unwrap();
    let built = same_build(&["kustomize", "."], &overlay);
    assert!(built.contains("with: component") && built.contains("name: extra-"), "{built}");
}

#[test]
fn a_ref_that_does_not_exist_fails_naming_the_entry() {
    let temp = tempfile::tempdir().unwrap();
    let repo = repository(temp.path());
    let url = format!("file://{}//base?ref=nope", repo.display());
    std::fs::write(temp.path().join("kustomization.yaml"), format!("resources:\n- {url}\n")).unwrap();
    let ours = run(assert_cmd::cargo::cargo_bin("kubeupd").to_str().unwrap(), &["kustomize", "."], temp.path());
    assert_eq!(ours.status.code(), Some(1));
    let message = String::from_utf8_lossy(&ours.stderr);
    // kubectl's words (kustomize's chain down to git's), after the file kubeupd names.
    let theirs = run("kubectl", &["kustomize", "."], temp.path());
    assert_eq!(theirs.status.code(), Some(1), "kubectl refuses it too");
    let theirs = String::from_utf8_lossy(&theirs.stderr);
    let words = theirs.strip_prefix("error: ").unwrap_or(&theirs);
    assert!(words.contains(&format!("accumulating resources from '{url}'")) && words.contains("nope"), "{theirs}");
    assert!(message.starts_with("error: ") && message.ends_with(words), "ours: {message}\ntheirs: {theirs}");
}

/// `buildMetadata` on a remote base: the origins name the repository and ref, and paths inside
/// it (its root as kustomize's `notCloned`), as kubectl writes them.
#[test]
fn build_metadata_of_remote_resources_names_the_repository() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("deploy/app")).unwrap();
    std::fs::write(
        repo.path().join("deploy/app/kustomization.yaml"),
        "resources: [cm.yaml]\nnamePrefix: app-\nconfigMapGenerator:\n- name: gen\n  literals: [a=1]\n",
    )
    .unwrap();
    std::fs::write(repo.path().join("deploy/app/cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: r}\n")
        .unwrap();
    std::fs::write(repo.path().join("kustomization.yaml"), "resources: [deploy/app]\nnameSuffix: -root\n").unwrap();
    git(repo.path(), &["init", "--quiet"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "--quiet", "-m", "app"]);
    git(repo.path(), &["tag", "v1"]);
    let url = format!("file://{}", repo.path().display());
    let overlay = tempfile::tempdir().unwrap();
    std::fs::write(
        overlay.path().join("kustomization.yaml"),
        format!(
            "buildMetadata: [originAnnotations, transformerAnnotations]\nnamespace: prod\n\
             resources:\n- {url}//deploy/app?ref=v1\n- {url}?ref=v1\n"
        ),
    )
    .unwrap();
    // The root entry holds the same objects under other names (its suffix).
    let built = same_build(&["kustomize", overlay.path().to_str().unwrap()], overlay.path());
    assert!(built.contains(&format!("repo: {url}")) && built.contains("configuredIn: notCloned/kustomization.yaml"));
}

/// Serves, on a loopback port of its own, `/cm.yaml` and `/patch.yaml`, a redirect from `/moved`
/// to `/cm.yaml`, and 404 for anything else; returns `http://127.0.0.1:PORT`.
fn serve_files() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request_line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            reader.read_line(&mut request_line).unwrap();
            // The headers, up to the blank line.
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|read| read > 2) {
                header.clear();
            }
            let path = request_line.split_whitespace().nth(1).unwrap_or_default().to_string();
            let (status, extra, body) = match path.as_str() {
                "/cm.yaml" => {
                    ("200 OK", "", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: \"1\"\n")
                }
                "/patch.yaml" => {
                    ("200 OK", "", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  b: \"2\"\n")
                }
                "/moved" => ("302 Found", "Location: /cm.yaml\r\n", ""),
                _ => ("404 Not Found", "", "404 page not found\n"),
            };
            let response = format!(
                "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes());
        }
    });
    address
}

#[test]
fn remote_files_over_http_build_as_kubectl_builds_them() {
    let server = serve_files();
    let dir = tempfile::tempdir().unwrap();
    for resource in ["cm.yaml", "moved"] {
        std::fs::write(
            dir.path().join("kustomization.yaml"),
            format!(
                "resources:\n- {server}/{resource}\npatches:\n- path: {server}/patch.yaml\n\
                 buildMetadata: [originAnnotations]\n"
            ),
        )
        .unwrap();
        let built = same_build(&["kustomize", "."], dir.path());
        assert!(built.contains("a: \"1\"") && built.contains("b: \"2\"") && built.contains("path: http:/"), "{built}");
    }
}

#[test]
fn a_remote_file_that_is_not_found_fails_as_kubectl_fails() {
    let server = serve_files();
    let dir = tempfile::tempdir().unwrap();
    for kustomization in [
        format!("resources:\n- {server}/missing.yaml\n"),
        format!("resources:\n- {server}/cm.yaml\npatches:\n- path: {server}/missing.yaml\n"),
    ] {
        std::fs::write(dir.path().join("kustomization.yaml"), &kustomization).unwrap();
        let ours = run(assert_cmd::cargo::cargo_bin("kubeupd").to_str().unwrap(), &["kustomize", "."], dir.path());
        let theirs = run("kubectl", &["kustomize", "."], dir.path());
        assert_eq!(ours.status.code(), theirs.status.code(), "{kustomization}");
        let (ours, theirs) = (String::from_utf8_lossy(&ours.stderr), String::from_utf8_lossy(&theirs.stderr));
        let words = "HTTP Error: status code 404 (Not Found)";
        assert!(ours.contains(words) && theirs.contains(words), "ours: {ours}\ntheirs: {theirs}");
        assert!(ours.contains(&format!("{server}/missing.yaml")), "{ours}");
    }
}
