//! `diff --plan-out` then `apply --plan` on the real apiserver: a plan applies exactly, and is
//! refused, with nothing written, when an object changed on the server since, when the files
//! changed, when the plan file was edited, or when the apply is of another kind than the plan.
use crate::support;

use std::path::PathBuf;
use std::process::Output;

use support::TestNamespace;

fn configmap(name: &str, value: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{v: \"{value}\"}}\n")
}

const SECRET: &str = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: hunter2}\n";

/// A namespace where `a` exists with `v: 1`, a file that changes it to 2 and creates `b` and a
/// Secret, and the path the plan goes to.
struct Setup {
    namespace: TestNamespace,
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(prefix: &str) -> Setup {
        let namespace = TestNamespace::new(prefix);
        namespace.apply(&configmap("a", "1"));
        let setup = Setup { namespace, dir: tempfile::tempdir().unwrap() };
        setup.write_files(&[configmap("a", "2"), configmap("b", "1"), SECRET.to_string()].join("---\n"));
        setup
    }

    fn write_files(&self, text: &str) {
        std::fs::write(self.file(), text).unwrap();
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("app.yaml")
    }

    fn plan(&self) -> PathBuf {
        self.dir.path().join("plan.json")
    }

    fn kubeupd(&self, args: &[&str]) -> Output {
        let mut command = self.namespace.kubeupd();
        command.args(["-n", &self.namespace.name]).args(args).arg("-f").arg(self.file());
        command.output().unwrap()
    }

    fn diff_plan_out(&self, extra: &[&str]) -> Output {
        let plan = self.plan();
        let mut args = vec!["diff", "--plan-out", plan.to_str().unwrap()];
        args.extend(extra);
        self.kubeupd(&args)
    }

    fn apply_plan(&self, extra: &[&str]) -> Output {
        let plan = self.plan();
        let mut args = vec!["apply", "--plan", plan.to_str().unwrap()];
        args.extend(extra);
        self.kubeupd(&args)
    }

    fn value(&self, name: &str) -> String {
        let namespace = &self.namespace.name;
        self.namespace.kubectl_ok(&[
            "get",
            "cm",
            name,
            "-n",
            namespace,
            "-o",
            "jsonpath={.data.v}",
            "--ignore-not-found",
        ])
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_plan_is_applied_when_nothing_moved() {
    let setup = Setup::new("plan-ok");
    let planned = setup.diff_plan_out(&[]);
    assert_eq!(planned.status.code(), Some(1), "diff's status: something differs; {}", stderr(&planned));
    let text = std::fs::read_to_string(setup.plan()).unwrap();
    assert!(!text.contains("hunter2") && !text.contains("aHVudGVyMg=="), "a Secret value is in the plan: {text}");
    for action in ["\"change\"", "\"create\""] {
        assert!(text.contains(action), "{text}");
    }
    let applied = setup.apply_plan(&[]);
    assert!(applied.status.success(), "{}", stderr(&applied));
    assert_eq!(
        String::from_utf8_lossy(&applied.stdout),
        "configmap/a configured\nconfigmap/b created\nsecret/s created\n"
    );
    assert_eq!((setup.value("a"), setup.value("b")), ("2".to_string(), "1".to_string()));
}

#[test]
fn a_plan_is_refused_when_an_object_changed_on_the_server_since() {
    let setup = Setup::new("plan-moved");
    setup.diff_plan_out(&[]);
    let namespace = &setup.namespace.name;
    setup.namespace.kubectl_ok(&["annotate", "cm", "a", "-n", namespace, "someone=else"]);
    let refused = setup.apply_plan(&[]);
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(1), "{message}");
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines.len(), 2, "{message}");
    assert!(
        lines[0].starts_with(&format!(
            "error: configmap/a (namespace {namespace}): changed on the server since the plan (resourceVersion "
        )),
        "{message}"
    );
    assert!(lines[1].ends_with("no longer holds: nothing was applied"), "{message}");
    assert!(refused.stdout.is_empty());
    assert_eq!((setup.value("a"), setup.value("b")), ("1".to_string(), String::new()), "nothing was written");
}

#[test]
fn a_plan_is_refused_when_the_files_changed() {
    let setup = Setup::new("plan-files");
    setup.diff_plan_out(&[]);
    setup.write_files(
        &[configmap("a", "3"), configmap("b", "1"), configmap("c", "1"), SECRET.to_string()].join("---\n"),
    );
    let refused = setup.apply_plan(&[]);
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(1), "{message}");
    assert!(
        message.contains("configmap/a (namespace ")
            && message.contains("): the files give another configuration than when planned"),
        "{message}"
    );
    assert!(
        message.contains("configmap/c (namespace ")
            && message.contains("): not in the plan, this apply would create it"),
        "{message}"
    );
    assert_eq!((setup.value("a"), setup.value("c")), ("1".to_string(), String::new()), "nothing was written");
}

#[test]
fn an_edited_plan_or_another_kind_of_apply_is_refused() {
    let setup = Setup::new("plan-edited");
    setup.diff_plan_out(&["--server-side"]);
    let wrong_kind = setup.apply_plan(&[]);
    let message = stderr(&wrong_kind);
    assert_eq!(wrong_kind.status.code(), Some(1), "{message}");
    assert!(message.contains("error: the plan is a server-side apply, this is a client-side apply"), "{message}");
    let text = std::fs::read_to_string(setup.plan()).unwrap();
    std::fs::write(setup.plan(), text.replace("\"change\"", "\"unchanged\"")).unwrap();
    let edited = setup.apply_plan(&["--server-side"]);
    let message = stderr(&edited);
    assert_eq!(edited.status.code(), Some(1), "{message}");
    assert!(message.contains("the plan was changed after `kubeupd diff --plan-out` wrote it"), "{message}");
    assert_eq!(setup.value("a"), "1", "nothing was written");
}
