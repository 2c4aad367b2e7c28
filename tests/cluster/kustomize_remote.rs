//! Remote targets of kustomize: a kustomization in a git repository, named by a `file://` URL (no
//! network), as a resource of a local overlay, as the root itself, and a component in one, built
//! by `kubeupd kustomize` and by `kubectl kustomize` (the oracle) to the same bytes; the ref is
//! honoured; the origins `buildMetadata` writes for a remote base.

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
    assert!(
        message.contains(&format!("accumulating resources from '{url}': cannot fetch it: git fetch: "))
            && message.contains("nope"),
        "{message}"
    );
    assert!(!run("kubectl", &["kustomize", "."], temp.path()).status.success(), "kubectl refuses it too");
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
