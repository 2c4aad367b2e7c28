//! `kubeupd edit` against a real kube-apiserver, with scripted editors, and kubectl as the oracle.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};
use support::{
    TestNamespace, ensure_cluster_fixture, kubeconfig, parse_json, parse_yaml, twin_view, without_volatile_fields,
};

const HEADER: &str = "\
# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
";

/// An editor that runs one shell snippet per pass on the file (`$file`), and records what each
/// pass saw: the text, the file's mode and its path.
struct ScriptedEditor {
    dir: tempfile::TempDir,
}

impl ScriptedEditor {
    fn new(passes: &[&str]) -> Self {
        let editor = ScriptedEditor { dir: tempfile::tempdir().unwrap() };
        std::fs::create_dir(editor.state()).unwrap();
        let script = r#"#!/bin/sh
state=$1
file=$2
pass=$(( $(cat "$state/count" 2>/dev/null || echo 0) + 1 ))
echo "$pass" > "$state/count"
cp "$file" "$state/seen-$pass"
stat -c %a "$file" > "$state/mode-$pass"
echo "$file" > "$state/path-$pass"
[ -f "$state/pass-$pass.sh" ] || exit 0
. "$state/pass-$pass.sh"
"#;
        std::fs::write(editor.script(), script).unwrap();
        std::fs::set_permissions(editor.script(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        for (index, pass) in passes.iter().enumerate() {
            std::fs::write(editor.state().join(format!("pass-{}.sh", index + 1)), pass).unwrap();
        }
        editor
    }

    fn script(&self) -> PathBuf {
        self.dir.path().join("editor.sh")
    }

    /// Holds a space, so that the editor command only works when split like a shell would.
    fn state(&self) -> PathBuf {
        self.dir.path().join("editor state")
    }

    /// The editor command, with arguments and quotes: `'/tmp/x/editor.sh' '/tmp/x/editor state'`.
    fn command(&self) -> String {
        format!("'{}' '{}'", self.script().display(), self.state().display())
    }

    fn passes(&self) -> usize {
        std::fs::read_to_string(self.state().join("count")).map_or(0, |count| count.trim().parse().unwrap())
    }

    /// The text the editor was given in pass `pass`, counting from 1.
    fn seen(&self, pass: usize) -> String {
        std::fs::read_to_string(self.state().join(format!("seen-{pass}"))).unwrap()
    }

    fn mode(&self, pass: usize) -> String {
        std::fs::read_to_string(self.state().join(format!("mode-{pass}"))).unwrap().trim().to_string()
    }

    /// The file the editor was given in pass `pass`.
    fn path(&self, pass: usize) -> PathBuf {
        PathBuf::from(std::fs::read_to_string(self.state().join(format!("path-{pass}"))).unwrap().trim())
    }
}

/// `kubeupd edit ARGS -n NAMESPACE` with `editor` as `$KUBE_EDITOR`.
fn kubeupd_edit(ns: &TestNamespace, editor: &ScriptedEditor, args: &[&str]) -> Output {
    let mut command = ns.kubeupd();
    command.arg("edit").args(args).args(["-n", &ns.name]);
    command.env("KUBE_EDITOR", editor.command()).env_remove("EDITOR");
    command.output().unwrap()
}

/// `kubectl edit ARGS -n NAMESPACE` with `editor` as `$KUBE_EDITOR`.
fn kubectl_edit(ns: &TestNamespace, editor: &ScriptedEditor, args: &[&str]) -> Output {
    let mut command = ns.kubectl();
    command.arg("edit").args(args).args(["-n", &ns.name]);
    command.env("KUBE_EDITOR", editor.command()).env_remove("EDITOR");
    command.output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn app(prefix: &str) -> TestNamespace {
    let ns = TestNamespace::new(prefix);
    ns.apply_testdata("get/app.yaml");
    ns
}

fn get(ns: &TestNamespace, object: &str) -> Value {
    parse_json(ns.kubectl_ok(&["get", object, "-n", &ns.name, "-o", "json", "--show-managed-fields"]).as_bytes())
}

/// The resource versions of every object of `types`: they change with every write.
fn resource_versions(ns: &TestNamespace, types: &str) -> Vec<String> {
    let versions = ns.kubectl_ok(&["get", types, "-n", &ns.name, "-o", "jsonpath={..resourceVersion}"]);
    let mut versions: Vec<String> = versions.split_whitespace().map(String::from).collect();
    versions.sort();
    versions
}

/// The path in `A copy of your changes has been stored to "PATH"`.
fn kept_file(output: &Output) -> PathBuf {
    let stderr = stderr(output);
    let line = stderr
        .lines()
        .find_map(|line| line.strip_prefix("A copy of your changes has been stored to "))
        .unwrap_or_else(|| panic!("no kept file in: {stderr}"));
    PathBuf::from(line.trim_matches('"'))
}

fn mode(path: &Path) -> u32 {
    std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(path).unwrap().permissions()) & 0o777
}

const NEW_IMAGE: &str = "sed -i 's/image: nginx:1.19/image: nginx:1.20/' \"$file\"";

#[test]
fn changing_an_image_changes_only_that_field_and_sends_kubectls_patch() {
    let (ours, theirs) = (app("edit-image"), app("edit-image-kubectl"));
    let before = get(&ours, "deploy/web");

    let editor = ScriptedEditor::new(&[NEW_IMAGE]);
    let output = kubeupd_edit(&ours, &editor, &["deploy/web", "--show-patch"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let kubectl = kubectl_edit(&theirs, &ScriptedEditor::new(&[NEW_IMAGE]), &["deploy/web", "--output-patch"]);
    assert_eq!(stdout(&output), stdout(&kubectl), "the same patch and message as kubectl");
    assert!(stdout(&output).ends_with("deployment.apps/web edited\n"));
    assert_eq!(stderr(&output), "");
    assert_eq!(editor.passes(), 1);

    let after = get(&ours, "deploy/web");
    let mut expected = before.clone();
    expected["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.20");
    assert_eq!(without_volatile_fields(after.clone()), without_volatile_fields(expected), "only the image changed");
    assert_eq!(
        twin_view(after, &ours.name),
        twin_view(get(&theirs, "deploy/web"), &theirs.name),
        "the same object as kubectl edit made"
    );
}

#[test]
fn the_file_is_kubectls_private_and_an_unchanged_save_cancels() {
    let ns = app("edit-file");
    let versions = || resource_versions(&ns, "deploy,cm");
    let before = versions();
    for args in [vec!["deploy/web"], vec!["cm", "one"], vec!["configmap/one", "cm/two", "deployment/web"]] {
        let ours = ScriptedEditor::new(&[]);
        let output = kubeupd_edit(&ns, &ours, &args);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        assert_eq!(stderr(&output), "Edit cancelled, no changes made.\n", "{args:?}");
        assert_eq!(stdout(&output), "");
        assert_eq!(ours.mode(1), "600", "{args:?}: the file may hold Secrets");

        let theirs = ScriptedEditor::new(&[]);
        let kubectl = kubectl_edit(&ns, &theirs, &args);
        assert_eq!(stderr(&output), stderr(&kubectl), "{args:?}");
        assert_eq!(ours.seen(1), theirs.seen(1), "{args:?}: the file kubectl edit shows");
        assert!(ours.seen(1).starts_with(HEADER));
    }
    // kubectl shows JSON without the header; kubeupd keeps it, for the errors it may have to show.
    let (ours, theirs) = (ScriptedEditor::new(&[]), ScriptedEditor::new(&[]));
    let output = kubeupd_edit(&ns, &ours, &["cm/one", "-o", "json"]);
    assert_eq!(stderr(&output), "Edit cancelled, no changes made.\n");
    kubectl_edit(&ns, &theirs, &["cm/one", "-o", "json"]);
    assert_eq!(ours.seen(1), HEADER.to_string() + &theirs.seen(1));
    assert_eq!(versions(), before, "nothing was written");
}

#[test]
fn changes_made_while_the_editor_is_open_survive() {
    let ns = app("edit-meanwhile");
    let other_writer = format!(
        "kubectl --kubeconfig '{}' -n '{}' patch deployment web -p '{{\"spec\":{{\"replicas\":5}}}}' >/dev/null || exit 9\n{NEW_IMAGE}",
        kubeconfig().display(),
        ns.name
    );
    let editor = ScriptedEditor::new(&[&other_writer]);
    let output = kubeupd_edit(&ns, &editor, &["deployment", "web"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(editor.seen(1).contains("  replicas: 2\n"), "the editor saw the old replicas");
    let after = get(&ns, "deploy/web");
    assert_eq!(after["spec"]["replicas"], 5, "the other writer's change survives");
    assert_eq!(after["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.20");
}

#[test]
fn a_syntax_error_reopens_the_editor_on_the_users_text() {
    let ns = app("edit-syntax");
    let breaking =
        format!("{NEW_IMAGE}\nsed -i 's/^kind: Deployment$/kind: Deployment\\nbroken: [unclosed/' \"$file\"");
    let fixing = "sed -i '/^broken: \\[unclosed$/d' \"$file\"";
    let editor = ScriptedEditor::new(&[&breaking, fixing]);
    let output = kubeupd_edit(&ns, &editor, &["deploy/web"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(editor.passes(), 2);
    let second = editor.seen(2);
    assert!(second.starts_with(&format!("{HEADER}# The edited file had a syntax error: ")), "{second}");
    assert!(
        second.contains("\nbroken: [unclosed\n") && second.contains("image: nginx:1.20"),
        "the user's text: {second}"
    );
    assert_eq!(editor.mode(2), "600");
    assert!(stderr(&output).starts_with("error: The edited file had a syntax error: "), "{}", stderr(&output));
    assert_eq!(stdout(&output), "deployment.apps/web edited\n");
    assert_eq!(get(&ns, "deploy/web")["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.20");
}

const INVALID_REPLICAS: &str = "sed -i 's/^  replicas: 2$/  replicas: -1/' \"$file\"";

#[test]
fn a_rejected_change_reopens_with_the_servers_message_until_the_user_gives_up() {
    let (ours, theirs) = (app("edit-rejected"), app("edit-rejected-kubectl"));
    let version = get(&ours, "deploy/web")["metadata"]["resourceVersion"].clone();
    let editor = ScriptedEditor::new(&[INVALID_REPLICAS]);
    let output = kubeupd_edit(&ours, &editor, &["deploy/web"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(editor.passes(), 2);
    let reasons = "\
# deployments.apps \"web\" was not valid:
# * spec.replicas: Invalid value: -1: must be greater than or equal to 0
#
apiVersion: apps/v1
";
    assert!(editor.seen(2).starts_with(&(HEADER.to_string() + reasons)), "{}", editor.seen(2));
    let kubectl_editor = ScriptedEditor::new(&[INVALID_REPLICAS]);
    let kubectl = kubectl_edit(&theirs, &kubectl_editor, &["deploy/web"]);
    let header = |text: String| text.lines().take_while(|line| line.starts_with('#')).collect::<Vec<_>>().join("\n");
    assert_eq!(header(editor.seen(2)), header(kubectl_editor.seen(2)), "the reopened file's comments");

    let kept = kept_file(&output);
    let messages = format!(
        "error: deployments.apps \"web\" is invalid\nA copy of your changes has been stored to {kept:?}\n\
         error: Edit cancelled, no valid changes were saved; the last error was: The Deployment \"web\" is invalid: \
         spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"
    );
    assert_eq!(stderr(&output), messages);
    assert_eq!(stderr(&kubectl).lines().next(), stderr(&output).lines().next());
    for pass in [1, 2] {
        let _ = std::fs::remove_file(kubectl_editor.path(pass)); // kubectl leaves both passes' files
    }
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), editor.seen(2), "the user's last text is kept");
    assert_eq!((editor.path(1), editor.path(2)), (kept.clone(), kept.clone()), "one file for the whole edit");
    assert_eq!(mode(&kept), 0o600);
    std::fs::remove_file(kept).unwrap();
    assert_eq!(get(&ours, "deploy/web")["metadata"]["resourceVersion"], version, "nothing was written");
}

#[test]
fn fixing_a_rejected_change_in_the_reopened_editor_succeeds() {
    let ns = app("edit-fixed");
    let fixing = "grep -q '^# \\* spec.replicas: Invalid value: -1' \"$file\" || exit 7\nsed -i 's/^  replicas: -1$/  replicas: 3/' \"$file\"";
    let editor = ScriptedEditor::new(&[INVALID_REPLICAS, fixing]);
    let output = kubeupd_edit(&ns, &editor, &["deploy/web"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stderr(&output), "error: deployments.apps \"web\" is invalid\n");
    assert_eq!(stdout(&output), "deployment.apps/web edited\n");
    assert_eq!(get(&ns, "deploy/web")["spec"]["replicas"], 3);
}

#[test]
fn an_emptied_file_cancels() {
    let ns = app("edit-emptied");
    let version = get(&ns, "cm/one")["metadata"]["resourceVersion"].clone();
    let editor = ScriptedEditor::new(&[": > \"$file\""]);
    // $EDITOR serves when $KUBE_EDITOR is not set.
    let output = ns
        .kubeupd()
        .args(["edit", "cm/one", "-n", &ns.name])
        .env_remove("KUBE_EDITOR")
        .env("EDITOR", editor.command())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stderr(&output), "Edit cancelled, no changes made.\n");
    assert_eq!(editor.passes(), 1);
    assert_eq!(get(&ns, "cm/one")["metadata"]["resourceVersion"], version);
}

#[test]
fn a_failing_editor_sends_nothing_and_the_edit_is_kept() {
    let ns = app("edit-editor-fails");
    let version = get(&ns, "cm/one")["metadata"]["resourceVersion"].clone();
    let editor = ScriptedEditor::new(&["sed -i 's/^  flag: \"true\"$/  flag: \"false\"/' \"$file\"\nexit 1"]);
    let output = kubeupd_edit(&ns, &editor, &["cm/one"]);
    assert_eq!(output.status.code(), Some(1));
    let kept = kept_file(&output);
    let expected = format!(
        "A copy of your changes has been stored to {kept:?}\nerror: there was a problem with the editor {:?}: it exited with status 1\n",
        editor.command()
    );
    assert_eq!(stderr(&output), expected);
    assert!(std::fs::read_to_string(&kept).unwrap().contains("  flag: \"false\"\n"));
    std::fs::remove_file(kept).unwrap();
    assert_eq!(get(&ns, "cm/one")["metadata"]["resourceVersion"], version, "nothing was sent");
}

#[test]
fn renaming_is_refused_before_anything_is_sent() {
    let ns = app("edit-rename");
    let versions = || resource_versions(&ns, "cm");
    let before = versions();
    // The first object's change is fine, the second's rename is not: neither is sent.
    let renaming = "sed -i 's/^    a: \"1\"$/    a: \"2\"/; s/^    name: one$/    name: uno/' \"$file\"";
    let editor = ScriptedEditor::new(&[renaming]);
    let output = kubeupd_edit(&ns, &editor, &["cm/two", "cm/one"]);
    assert_eq!(output.status.code(), Some(1));
    let kept = kept_file(&output);
    assert_eq!(
        stderr(&output),
        format!(
            "A copy of your changes has been stored to {kept:?}\nerror: At least one of apiVersion, kind and name was changed\n"
        )
    );
    std::fs::remove_file(kept).unwrap();
    assert_eq!(versions(), before);
}

#[test]
fn several_objects_are_edited_as_a_list_and_only_what_failed_is_edited_again() {
    let (ours, theirs) = (app("edit-list"), app("edit-list-kubectl"));
    // One's new value is a list, not a string: the check against the schema refuses it before it
    // is sent (kubectl sends it, and relays the server's refusal), two's change goes through.
    let first = "sed -i 's/^    a: \"1\"$/    a: \"9\"/; s/^    flag: \"true\"$/    flag: [7]/' \"$file\"";
    let second = "sed -i 's/^    flag: \\[7\\]$/    flag: \"7\"/' \"$file\"";
    let editor = ScriptedEditor::new(&[first, second]);
    let args = ["cm", "one", "two", "three"];
    let output = kubeupd_edit(&ours, &editor, &args);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(editor.seen(1).starts_with(&format!("{HEADER}apiVersion: v1\nitems:\n")), "{}", editor.seen(1));
    assert!(editor.seen(1).ends_with("kind: List\nmetadata: {}\n"));
    assert!(
        editor.seen(2).contains(
            "# configmaps \"one\" was not valid:\n# * ValidationError(ConfigMap.data.flag): invalid type for \
             io.k8s.api.core.v1.ConfigMap.data: got \"array\", expected \"string\"\n"
        ),
        "{}",
        editor.seen(2)
    );
    assert_eq!(stderr(&output), "error: configmaps \"one\" is invalid\n");
    // kubectl sends two's change again in the second pass; kubeupd knows the server has it.
    assert_eq!(
        stdout(&output),
        "configmap/two edited\nconfigmap/three skipped\nconfigmap/one edited\nconfigmap/three skipped\n"
    );
    kubectl_edit(&theirs, &ScriptedEditor::new(&[first, second]), &args);
    // kubectl's second send of two's change leaves its field ownership recorded differently, so
    // ownership is not compared here.
    let without_ownership = |mut object: Value| {
        object["metadata"].as_object_mut().unwrap().remove("managedFields");
        object
    };
    for name in ["cm/one", "cm/two", "cm/three"] {
        assert_eq!(
            twin_view(without_ownership(get(&ours, name)), &ours.name),
            twin_view(without_ownership(get(&theirs, name)), &theirs.name),
            "{name} as kubectl edit left it"
        );
    }
    assert_eq!(get(&ours, "cm/one")["data"]["flag"], "7");
    assert_eq!(get(&ours, "cm/two")["data"]["a"], "9");
}

#[test]
fn objects_named_in_files_are_edited() {
    let ns = app("edit-files");
    let manifest = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(manifest.path(), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n").unwrap();
    let change = format!("{NEW_IMAGE}\nsed -i 's/^    a: \"1\"$/    a: \"2\"/' \"$file\"");
    let editor = ScriptedEditor::new(&[&change]);
    let output = kubeupd_edit(&ns, &editor, &["-f", manifest.path().to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "configmap/two edited\ndeployment.apps/web edited\n");
    assert_eq!(get(&ns, "cm/two")["data"]["a"], "2");
    assert_eq!(get(&ns, "deploy/web")["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.20");
}

#[test]
fn custom_resources_are_patched_with_json_merge_patches() {
    let (ours, theirs) = (TestNamespace::new("edit-crd"), TestNamespace::new("edit-crd-kubectl"));
    ensure_cluster_fixture(&ours, "crd/gadgets.yaml");
    for ns in [&ours, &theirs] {
        ns.apply_testdata("get/gadgets.yaml");
    }
    let change = "sed -i 's/^  size: large$/  size: huge/; s/^  - cog$/  - gear/' \"$file\"";
    let editor = ScriptedEditor::new(&[change]);
    let output = kubeupd_edit(&ours, &editor, &["gadget/sprocket", "--show-patch"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected = "Patch: {\"spec\":{\"parts\":[\"gear\",\"42\",\"true\",{\"count\":3,\"name\":\"spring\"}],\"size\":\"huge\"}}\n\
                    gadget.get.kubeupd.test/sprocket edited\n";
    assert_eq!(stdout(&output), expected);
    let kubectl = kubectl_edit(&theirs, &ScriptedEditor::new(&[change]), &["gadget/sprocket", "--output-patch"]);
    assert_eq!(stdout(&output), stdout(&kubectl));
    assert_eq!(
        twin_view(get(&ours, "gadget/sprocket"), &ours.name),
        twin_view(get(&theirs, "gadget/sprocket"), &theirs.name)
    );
}

#[test]
fn editing_in_json_prints_the_edited_object_in_json_like_kubectl() {
    let (ours, theirs) = (app("edit-json"), app("edit-json-kubectl"));
    let change = "sed -i 's/\"flag\": \"true\"/\"flag\": \"false\"/' \"$file\"";
    let editor = ScriptedEditor::new(&[change]);
    let output = kubeupd_edit(&ours, &editor, &["cm/one", "-o", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(editor.seen(1).starts_with(&format!("{HEADER}{{\n    \"apiVersion\": \"v1\",\n")));
    let printed = parse_json(&output.stdout);
    assert_eq!(printed["data"]["flag"], "false");
    assert_eq!(without_volatile_fields(printed.clone()), without_volatile_fields(get(&ours, "cm/one")));
    let kubectl = kubectl_edit(&theirs, &ScriptedEditor::new(&[change]), &["cm/one", "-o", "json"]);
    assert_eq!(twin_view(printed, &ours.name), twin_view(parse_json(&kubectl.stdout), &theirs.name));
}

/// `-o kyaml` (kubectl 1.34 and later): the editor shows KYAML and the edited object is printed in
/// KYAML, as kubectl 1.37 does.
#[test]
fn editing_in_kyaml_prints_the_edited_object_in_kyaml_like_kubectl() {
    let (ours, theirs) = (app("edit-kyaml"), app("edit-kyaml-kubectl"));
    let change = "sed -i 's/flag: \"true\"/flag: \"false\"/' \"$file\"";
    let editor = ScriptedEditor::new(&[change]);
    let output = kubeupd_edit(&ours, &editor, &["cm/one", "-o", "kyaml"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let kubectl_editor = ScriptedEditor::new(&[change]);
    let kubectl = kubectl_edit(&theirs, &kubectl_editor, &["cm/one", "-o", "kyaml"]);
    assert!(editor.seen(1).starts_with(&format!("{HEADER}---\n{{\n  apiVersion: \"v1\",\n")), "{}", editor.seen(1));
    let shown = |text: String, ns: &TestNamespace| {
        text.lines()
            .filter(|line| {
                !line.contains("resourceVersion") && !line.contains("uid") && !line.contains("creationTimestamp")
            })
            .collect::<Vec<_>>()
            .join("\n")
            .replace(&ns.name, "NAMESPACE")
    };
    assert_eq!(shown(editor.seen(1), &ours), shown(kubectl_editor.seen(1), &theirs), "the editor's text");
    let printed = parse_yaml(&output.stdout);
    assert_eq!(printed["data"]["flag"], "false");
    assert_eq!(without_volatile_fields(printed.clone()), without_volatile_fields(get(&ours, "cm/one")));
    assert_eq!(twin_view(printed, &ours.name), twin_view(parse_yaml(&kubectl.stdout), &theirs.name));
    assert!(
        String::from_utf8_lossy(&output.stdout).starts_with("---\n{\n"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn save_config_records_the_edited_configuration() {
    let ns = TestNamespace::new("edit-save-config");
    ns.kubectl_ok(&["create", "configmap", "settings", "--from-literal=a=1", "-n", &ns.name]);
    let editor = ScriptedEditor::new(&["sed -i 's/^  a: \"1\"$/  a: \"2\"/' \"$file\""]);
    let output = kubeupd_edit(&ns, &editor, &["cm/settings", "--save-config"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let object = get(&ns, "cm/settings");
    let annotation =
        object["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].as_str().unwrap();
    let recorded: Value = serde_json::from_str(annotation).unwrap();
    assert_eq!(recorded["data"], json!({"a": "2"}));
    assert_eq!(recorded["metadata"]["name"], "settings");
    assert!(recorded["metadata"].get("managedFields").is_none(), "{recorded}");
    // kubectl reads the record back as the last applied configuration.
    let viewed = ns.kubectl_ok(&["apply", "view-last-applied", "cm/settings", "-n", &ns.name, "-o", "json"]);
    assert_eq!(parse_json(viewed.as_bytes()), recorded);
}

/// `edit TYPE`: every object of the type in the namespace, as one List, as kubectl does.
#[test]
fn a_type_alone_edits_every_object_of_the_type_like_kubectl() {
    let (ours, theirs) = (app("edit-type"), app("edit-type-kubectl"));
    let both_numbers = "sed -i 's/number: \"123\"/number: \"124\"/' \"$file\"";
    let editor = ScriptedEditor::new(&[both_numbers]);
    let output = kubeupd_edit(&ours, &editor, &["configmaps"]);
    let kubectl = kubectl_edit(&theirs, &ScriptedEditor::new(&[both_numbers]), &["configmaps"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), stdout(&kubectl), "the same lines as kubectl");
    assert!(editor.seen(1).contains("kind: List"), "one List: {}", editor.seen(1));
    let objects = |ns: &TestNamespace| twin_view(get(ns, "configmaps"), &ns.name);
    assert_eq!(objects(&ours), objects(&theirs), "the same objects as kubectl edit made");
}

/// `--windows-line-endings`: the editor gets CRLF lines, and the saved text is read back.
#[test]
fn windows_line_endings_reach_the_editor_and_come_back() {
    let (ours, theirs) = (app("edit-crlf"), app("edit-crlf-kubectl"));
    let edit = "grep -q \"$(printf '\\r')\" \"$file\" && sed -i 's/flag: \"true\"/flag: \"false\"/' \"$file\"";
    let editor = ScriptedEditor::new(&[edit]);
    let output = kubeupd_edit(&ours, &editor, &["cm/one", "--windows-line-endings"]);
    let kubectl = kubectl_edit(&theirs, &ScriptedEditor::new(&[edit]), &["cm/one", "--windows-line-endings=true"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(editor.seen(1).contains("\r\n"), "CRLF lines");
    assert_eq!(stdout(&output), stdout(&kubectl));
    assert_eq!(get(&ours, "cm/one")["data"]["flag"], "false");
    assert_eq!(twin_view(get(&ours, "cm/one"), &ours.name), twin_view(get(&theirs, "cm/one"), &theirs.name));
}

/// `--subresource=status`: the status is what is shown and patched, as with kubectl.
#[test]
fn a_subresource_is_edited_like_kubectl() {
    let (ours, theirs) = (app("edit-status"), app("edit-status-kubectl"));
    let edit = "sed -i 's/^status: {}/status: {observedGeneration: 7}/; s/^  observedGeneration: .*/  observedGeneration: 7/' \"$file\"";
    let editor = ScriptedEditor::new(&[edit]);
    let output = kubeupd_edit(&ours, &editor, &["deploy/web", "--subresource=status"]);
    let kubectl = kubectl_edit(&theirs, &ScriptedEditor::new(&[edit]), &["deploy/web", "--subresource=status"]);
    assert_eq!(stdout(&output), stdout(&kubectl), "{}", stderr(&output));
    assert_eq!(get(&ours, "deploy/web")["status"]["observedGeneration"], 7, "{}", editor.seen(1));
    assert_eq!(twin_view(get(&ours, "deploy/web"), &ours.name), twin_view(get(&theirs, "deploy/web"), &theirs.name));
}

/// kubectl 1.37's editor takes `-o yaml`, `json` or `kyaml` only: any other format is refused in
/// its words, before the editor opens.
#[test]
fn other_output_formats_are_refused_as_kubectl_refuses_them() {
    let ns = app("edit-formats");
    for format in ["name", "jsonpath={.metadata.name}", "go-template", "wide"] {
        let editor = ScriptedEditor::new(&[]);
        let ours = kubeupd_edit(&ns, &editor, &["cm/one", "-o", format]);
        let theirs = kubectl_edit(&ns, &editor, &["cm/one", "-o", format]);
        assert_eq!((ours.status.code(), stderr(&ours)), (theirs.status.code(), stderr(&theirs)), "-o {format}");
        assert!(stderr(&ours).contains("allowed formats are: json,kyaml,yaml"), "{}", stderr(&ours));
        assert_eq!(editor.passes(), 0, "the editor never opened");
    }
}

/// `--template` without `-o`: the edited object printed through the Go template, as kubectl
/// prints it.
#[test]
fn a_template_prints_the_edited_objects() {
    let (ours, theirs) = (app("edit-template"), app("edit-template-kubectl"));
    let args = ["deploy/web", "--template={{.metadata.name}} {{(index .spec.template.spec.containers 0).image}}"];
    let output = kubeupd_edit(&ours, &ScriptedEditor::new(&[NEW_IMAGE]), &args);
    let kubectl = kubectl_edit(&theirs, &ScriptedEditor::new(&[NEW_IMAGE]), &args);
    assert_eq!((output.status.code(), stdout(&output)), (kubectl.status.code(), stdout(&kubectl)));
    assert_eq!(stdout(&output), "web nginx:1.20");
}
