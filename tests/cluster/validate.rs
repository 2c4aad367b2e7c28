//! `--validate`, as kubectl's: every document is checked before the first write, and nothing is
//! written when one fails. On a server that cannot check fields itself (1.20) kubeupd checks
//! against the server's schema and names every unknown field and wrong type with its file and
//! document, as kubectl's client-side validation names them; on one that can (1.25 and later,
//! where kubectl checks nothing itself) what the schema refuses is sent as a server dry run first,
//! and the server's refusal is shown in its words. A fake 1.27 server shows the requests.
use crate::support;

use std::process::Output;

use serde_json::json;
use support::fake_server::{FakeServer, Reply};
use support::{TestNamespace, Twins, ensure_cluster_fixture, parse_json, published, with_stdin};

const TYPOS: &str = r#"apiVersion: v1
kind: ConfigMap
metadata: {name: fine}
data: {a: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replica: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx
        portz: [{containerPort: 80}]
"#;

const SPEC_TYPO: &str =
    r#"ValidationError(Deployment.spec): unknown field "replica" in io.k8s.api.apps.v1.DeploymentSpec"#;
const CONTAINER_TYPO: &str = r#"ValidationError(Deployment.spec.template.spec.containers[0]): unknown field "portz" in io.k8s.api.core.v1.Container"#;

/// How a server that checks fields refuses the typos (of a `KIND`), after `Error from server
/// (BadRequest): ` and what the tool says it was doing.
const SERVER_TYPOS: &str = r#"KIND in version "v1" cannot be handled as a KIND: strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].portz""#;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn names(namespace: &TestNamespace) -> String {
    // Not the controllers' kube-root-ca.crt, in every namespace of a cluster that runs them.
    let theirs = "--field-selector=metadata.name!=kube-root-ca.crt";
    namespace.kubectl_ok(&["get", "configmaps,deployments", theirs, "-n", &namespace.name, "-o", "name"])
}

#[test]
fn typos_are_refused_with_every_field_named_and_nothing_applied() {
    let twins = Twins::new("validate-typo");
    let file = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(file.path(), TYPOS).unwrap();
    let path = file.path().to_str().unwrap();
    let theirs = twins.theirs.kubectl().args(["apply", "-n", &twins.theirs.name, "-f", path]).output().unwrap();
    let ours = twins.ours.kubeupd().args(["apply", "-n", &twins.ours.name, "-f", path]).output().unwrap();
    assert_eq!(theirs.status.code(), Some(1));
    assert_eq!(ours.status.code(), Some(1));
    let expected = if support::server_checks_fields() {
        let refusal = SERVER_TYPOS.replace("KIND", "Deployment");
        assert!(stderr(&theirs).contains(&refusal), "kubectl shows the server's {refusal}: {}", stderr(&theirs));
        format!("error: when applying {path} (document 2): Error from server (BadRequest): {refusal}\n")
    } else {
        for field in [SPEC_TYPO, CONTAINER_TYPO] {
            assert!(stderr(&theirs).contains(field), "kubectl names {field}: {}", stderr(&theirs));
        }
        format!(
            "error: error validating {path:?} (document 2): error validating data: [{SPEC_TYPO}, {CONTAINER_TYPO}]; \
             if you choose to ignore these errors, turn validation off with --validate=false\n"
        )
    };
    assert_eq!(stderr(&ours), expected);
    assert!(ours.stdout.is_empty());
    assert_eq!(names(&twins.ours), "", "nothing was applied, not even the valid document");
    // Turned off, the typos ship: the server drops the unknown fields, as with kubectl.
    for namespace in [&twins.ours, &twins.theirs] {
        let args = ["apply", "--validate=false", "-n", &namespace.name, "-f", path];
        let output = if std::ptr::eq(namespace, &twins.ours) {
            namespace.kubeupd().args(args).output().unwrap()
        } else {
            namespace.kubectl().args(args).output().unwrap()
        };
        assert!(output.status.success(), "{}", stderr(&output));
    }
    twins.assert_same("configmaps,deployments", "applied with --validate=false");
}

#[test]
fn warn_shows_the_fields_and_applies() {
    let namespace = TestNamespace::new("validate-warn");
    let output = namespace
        .kubeupd()
        .args(["apply", "--validate=warn", "-n", &namespace.name, "-f", "-"])
        .write_stdin(TYPOS)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    // A server that checks fields warns itself, as it does for kubectl.
    let expected = if support::server_checks_fields() {
        "Warning: unknown field \"spec.replica\"\nWarning: unknown field \"spec.template.spec.containers[0].portz\"\n"
            .to_string()
    } else {
        format!("Warning: error validating \"STDIN\" (document 2): [{SPEC_TYPO}, {CONTAINER_TYPO}]\n")
    };
    assert!(stderr(&output).starts_with(&expected), "{}", stderr(&output));
    assert_eq!(names(&namespace), "configmap/fine\ndeployment.apps/web\n");
}

#[test]
fn wrong_types_are_named_too() {
    let namespace = TestNamespace::new("validate-type");
    let wrong = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: wrong}\ndata: {a: 1}\nimmutable: \"yes\"\n";
    let output =
        namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f", "-"]).write_stdin(wrong).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let expected = if support::server_checks_fields() {
        // The server reads the object as Go does, and stops at the first value it cannot take.
        "error: when applying STDIN (document 1): Error from server (BadRequest): ConfigMap in version \"v1\" cannot be \
         handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string\n"
    } else {
        // One error, without brackets, as kubectl prints it; `data: {a: 1}` is no error to kubectl's
        // client-side validation (a string takes any scalar) and is left to the server.
        "error: error validating \"STDIN\" (document 1): error validating data: ValidationError(ConfigMap.immutable): \
         invalid type for io.k8s.api.core.v1.ConfigMap.immutable: got \"string\", expected \"boolean\"; \
         if you choose to ignore these errors, turn validation off with --validate=false\n"
    };
    assert_eq!(stderr(&output), expected);
}

#[test]
fn custom_resources_are_checked_against_their_structural_schema() {
    let namespace = TestNamespace::new("validate-cr");
    ensure_cluster_fixture(&namespace, "crd/parts.yaml");
    // Until the server publishes the schema, no client (kubectl included) has anything to check.
    assert!(published(&namespace, &["test.kubeupd.validate.v1.Part"]), "the server publishes the schema");
    let part =
        |spec: &str| format!("apiVersion: validate.kubeupd.test/v1\nkind: Part\nmetadata: {{name: p}}\nspec: {spec}\n");
    let output = namespace
        .kubeupd()
        .args(["apply", "-n", &namespace.name, "-f", "-"])
        .write_stdin(part("{size: 2, colour: red}"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let named = if support::server_checks_fields() {
        r#"strict decoding error: unknown field "spec.colour""#
    } else {
        r#"ValidationError(Part.spec): unknown field "colour""#
    };
    assert!(stderr(&output).contains(named), "{}", stderr(&output));
    let kept = namespace
        .kubeupd()
        .args(["apply", "-n", &namespace.name, "-f", "-"])
        .write_stdin(part("{size: 2, color: red, extras: {anything: {goes: true}}}"))
        .output()
        .unwrap();
    assert!(kept.status.success(), "{}", stderr(&kept));
    let object =
        parse_json(namespace.kubectl_ok(&["get", "part", "p", "-n", &namespace.name, "-o", "json"]).as_bytes());
    assert_eq!(object["spec"]["extras"], json!({"anything": {"goes": true}}));
}

#[test]
fn update_patch_and_edit_check_fields_before_sending() {
    let namespace = TestNamespace::new("validate-verbs");
    namespace.apply_testdata("get/app.yaml");
    let n = namespace.name.as_str();
    let generation =
        || namespace.kubectl_ok(&["get", "deploy", "web", "-n", n, "-o", "jsonpath={.metadata.resourceVersion}"]);
    let before = generation();
    let update =
        namespace.kubeupd().args(["update", "deploy/web", "--set", "spec.replica=3", "-n", n]).output().unwrap();
    assert_eq!(update.status.code(), Some(1));
    assert!(
        stderr(&update).contains(r#"unknown field "replica" in io.k8s.api.apps.v1.DeploymentSpec"#),
        "{}",
        stderr(&update)
    );
    let patch = namespace
        .kubeupd()
        .args(["patch", "deploy", "web", "-p", r#"{"spec":{"replica":3}}"#, "-n", n])
        .output()
        .unwrap();
    assert_eq!(patch.status.code(), Some(1));
    assert!(
        stderr(&patch).contains(r#"error validating deployment.apps/web: error validating data: ValidationError(Deployment.spec): unknown field "replica""#),
        "{}",
        stderr(&patch)
    );
    assert_eq!(generation(), before, "nothing was sent");
    let file = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    let mut object = parse_json(namespace.kubectl_ok(&["get", "cm", "one", "-n", n, "-o", "json"]).as_bytes());
    object["data"] = json!({"a": "2"});
    object["extra"] = json!("typo");
    std::fs::write(file.path(), object.to_string()).unwrap();
    let replaced = namespace.kubeupd().args(["update", "-n", n, "-f"]).arg(file.path()).output().unwrap();
    assert_eq!(replaced.status.code(), Some(1));
    assert!(stderr(&replaced).contains(r#"(document 1): error validating data: ValidationError(ConfigMap): unknown field "extra" in io.k8s.api.core.v1.ConfigMap;"#), "{}", stderr(&replaced));
    // edit reopens the editor with the error on top; the second save drops the typo.
    let editor = tempfile::tempdir().unwrap();
    let script = editor.path().join("editor.sh");
    let count = editor.path().join("count");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfile=\"$1\"\nn=$(cat {count:?} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {count:?}\n\
             cp \"$file\" {seen:?}.$n\nif [ $n = 1 ]; then sed -i 's/^  replicas: \\(.*\\)$/  replica: 5/' \"$file\"; \
             else sed -i 's/^  replica: 5$/  replicas: 5/' \"$file\"; fi\n",
            seen = editor.path().join("seen")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let edit = namespace.kubeupd().args(["edit", "deploy/web", "-n", n]).env("KUBE_EDITOR", &script).output().unwrap();
    assert!(edit.status.success(), "{}", stderr(&edit));
    let reopened = std::fs::read_to_string(editor.path().join("seen.2")).unwrap();
    assert!(
        reopened.contains(
            r#"# * ValidationError(Deployment.spec): unknown field "replica" in io.k8s.api.apps.v1.DeploymentSpec"#
        ),
        "{reopened}"
    );
    assert_eq!(namespace.kubectl_ok(&["get", "deploy", "web", "-n", n, "-o", "jsonpath={.spec.replicas}"]), "5");
}

#[test]
fn a_warm_cache_checks_without_requests_of_its_own() {
    let namespace = TestNamespace::new("validate-cache");
    let configmap =
        |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{a: b}}\n");
    let first = namespace.kubeupd_apply_requests(&configmap("first"));
    let schema_read = |line: &String| line.contains("GET ") && line.contains("/openapi/v") && line.contains(" 200 ");
    assert!(first.iter().any(schema_read), "the schema is read once: {first:?}");
    let second = namespace.kubeupd_apply_requests(&configmap("second"));
    assert_eq!(second.len(), 2, "only the read and the create of the object: {second:?}");
}

#[test]
fn servers_that_check_fields_are_asked_to_and_their_refusal_is_shown() {
    let server = FakeServer::start(|seen| {
        let path = seen.path.split('?').next().unwrap_or_default();
        match (seen.method.as_str(), path) {
            ("GET", "/version") => Reply::json(200, &json!({"major": "1", "minor": "27", "gitVersion": "v1.27.3"})),
            ("GET", "/api") => Reply::json(200, &json!({"kind": "APIVersions", "versions": ["v1"]})),
            ("GET", "/apis") => Reply::json(
                200,
                &json!({"kind": "APIGroupList", "groups": [{"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
                    "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}]}),
            ),
            ("GET", "/api/v1") => {
                Reply::json(200, &json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": []}))
            }
            ("GET", "/apis/apps/v1") => Reply::json(
                200,
                &json!({"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": [{"name": "deployments",
                    "singularName": "deployment", "namespaced": true, "kind": "Deployment", "verbs": ["get", "list", "create", "patch"]}]}),
            ),
            ("GET", "/apis/apps/v1/namespaces/default/deployments") => {
                Reply::json(200, &json!({"kind": "DeploymentList", "items": []}))
            }
            ("GET", "/apis/apps/v1/namespaces/default/deployments/web") => {
                Reply::status(404, "NotFound", r#"deployments.apps "web" not found"#)
            }
            ("POST", "/apis/apps/v1/namespaces/default/deployments") => Reply::status(
                400,
                "BadRequest",
                r#"Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].portz""#,
            ),
            _ => Reply::status(404, "NotFound", "the fake server has no such path"),
        }
    });
    let deployment = TYPOS.split("---\n").nth(1).unwrap();
    let output = apply_to_fake_server(&server, deployment);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let create = server.seen().into_iter().find(|seen| seen.method == "POST").expect("the object was sent");
    assert!(create.path.contains("fieldValidation=Strict"), "{}", create.path);
    assert_eq!(
        stderr(&output),
        "error: when applying STDIN (document 1): Error from server (BadRequest): Deployment in version \"v1\" cannot be \
         handled as a Deployment: strict decoding error: unknown field \"spec.replica\", unknown field \
         \"spec.template.spec.containers[0].portz\"\n"
    );
}

#[test]
fn a_field_added_to_a_custom_resource_definition_since_the_cache_is_accepted() {
    let namespace = TestNamespace::new("validate-new-field");
    let group = format!("t{}.validate.kubeupd.test", namespace.name.replace('-', ""));
    let crd = |properties: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: bolts.{group}}}\nspec:\n  \
             group: {group}\n  scope: Namespaced\n  names: {{kind: Bolt, plural: bolts, singular: bolt, listKind: BoltList}}\n  \
             versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object, properties: \
             {{spec: {{type: object, properties: {{{properties}}}}}}}}}}}}}]\n"
        )
    };
    let bolt = |spec: &str| format!("apiVersion: {group}/v1\nkind: Bolt\nmetadata: {{name: b}}\nspec: {spec}\n");
    let apply = |input: String| {
        namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f", "-"]).write_stdin(input).output().unwrap()
    };
    namespace.apply(&crd("length: {type: integer}"));
    assert!(published(&namespace, &[&group, "\"length\""]), "the server publishes the schema");
    let first = apply(bolt("{length: 3}"));
    assert!(first.status.success(), "{}", stderr(&first));
    namespace.apply(&crd("length: {type: integer}, thread: {type: string}"));
    assert!(published(&namespace, &[&group, "\"thread\""]), "the server publishes the new field");
    let second = apply(bolt("{length: 3, thread: M8}"));
    let _ = namespace.kubectl().args(["delete", "crd", &format!("bolts.{group}"), "--wait=false"]).output();
    assert!(
        second.status.success(),
        "the new field is known, though the cached schema predates it: {}",
        stderr(&second)
    );
}

#[test]
fn replace_checks_its_files_too() {
    let namespace = TestNamespace::new("validate-replace");
    let n = namespace.name.as_str();
    namespace.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\ndata: {a: \"1\"}\n");
    let typo = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\ndata: {a: \"2\"}\nextra: typo\n";
    for force in [&[][..], &["--force"]] {
        let output = with_stdin(namespace.kubeupd_process().args(["replace", "-n", n, "-f", "-"]).args(force), typo);
        assert_eq!(output.status.code(), Some(1), "{force:?}");
        assert!(
            stderr(&output)
                .contains(r#"ValidationError(ConfigMap): unknown field "extra" in io.k8s.api.core.v1.ConfigMap"#),
            "{force:?}: {}",
            stderr(&output)
        );
        assert_eq!(namespace.kubectl_ok(&["get", "cm", "one", "-n", n, "-o", "jsonpath={.data.a}"]), "1");
    }
    let accepted =
        with_stdin(namespace.kubeupd_process().args(["replace", "--validate=false", "-n", n, "-f", "-"]), typo);
    assert!(accepted.status.success(), "{}", stderr(&accepted));
    assert_eq!(namespace.kubectl_ok(&["get", "cm", "one", "-n", n, "-o", "jsonpath={.data.a}"]), "2");
}

/// `kubeupd apply -f -` of `yaml` against `server`, with a cache of its own.
fn apply_to_fake_server(server: &FakeServer, yaml: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    with_stdin(
        std::process::Command::new(assert_cmd::cargo::cargo_bin("kubeupd"))
            .arg("--kubeconfig")
            .arg(server.kubeconfig(dir.path()))
            .arg("--cache-dir")
            .arg(dir.path())
            .args(["apply", "-f", "-"])
            .env_remove("KUBECONFIG"),
        yaml,
    )
}

/// A fake 1.27 server with an OpenAPI v3 document for ConfigMaps, which takes every ConfigMap it
/// is sent.
fn server_that_checks_fields() -> FakeServer {
    FakeServer::start(|seen| {
        let path = seen.path.split('?').next().unwrap_or_default();
        match (seen.method.as_str(), path) {
            ("GET", "/version") => Reply::json(200, &json!({"major": "1", "minor": "27", "gitVersion": "v1.27.3"})),
            ("GET", "/api") => Reply::json(200, &json!({"kind": "APIVersions", "versions": ["v1"]})),
            ("GET", "/apis") => Reply::json(200, &json!({"kind": "APIGroupList", "groups": []})),
            ("GET", "/api/v1") => Reply::json(
                200,
                &json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [{"name": "configmaps",
                    "singularName": "configmap", "namespaced": true, "kind": "ConfigMap", "verbs": ["get", "list", "create", "patch"]}]}),
            ),
            ("GET", "/openapi/v3") => {
                Reply::json(200, &json!({"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=A"}}}))
            }
            ("GET", "/openapi/v3/api/v1") => Reply::json(
                200,
                &json!({"openapi": "3.0.0", "components": {"schemas": {"io.k8s.api.core.v1.ConfigMap": {"type": "object",
                    "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMap"}],
                    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                        "data": {"type": "object", "additionalProperties": {"type": "string", "default": ""}}}}}}}),
            ),
            ("GET", "/api/v1/namespaces/default/configmaps/c") => {
                Reply::status(404, "NotFound", r#"configmaps "c" not found"#)
            }
            ("POST", "/api/v1/namespaces/default/configmaps") => {
                let mut object: serde_json::Value = serde_json::from_slice(&seen.body).unwrap_or_default();
                object["metadata"]["uid"] = json!("1");
                Reply::json(201, &object)
            }
            _ => Reply::status(404, "NotFound", "the fake server has no such path"),
        }
    })
}

#[test]
fn servers_that_check_fields_decide_what_kubectl_leaves_to_them() {
    let apply = |server: &FakeServer, data: &str| {
        let output = apply_to_fake_server(
            server,
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {data}\n"),
        );
        let sent = server.seen().iter().any(|seen| seen.method == "POST");
        (output, sent)
    };
    // kubectl refuses a `null` in a map itself only where the server cannot check (1.20: see
    // validation_table); here it is the server's to take or refuse.
    let server = server_that_checks_fields();
    let (output, sent) = apply(&server, "{a: null}");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(sent, "the object was sent");
    // A list where a string belongs, which the schema refuses: the server decides, by a dry run
    // before anything is written; this one takes it, so it is then written.
    let server = server_that_checks_fields();
    let (output, _) = apply(&server, "{a: [1]}");
    assert!(output.status.success(), "{}", stderr(&output));
    let posts: Vec<String> =
        server.seen().into_iter().filter(|seen| seen.method == "POST").map(|seen| seen.path).collect();
    assert_eq!(posts.len(), 2, "a dry run, then the write: {posts:?}");
    assert!(posts[0].contains("dryRun=All") && !posts[1].contains("dryRun"), "{posts:?}");
}
