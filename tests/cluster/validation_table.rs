//! What kubectl's validation accepts, kubeupd's accepts: a differential table against the real
//! apiserver. Every primitive type and format of the server's OpenAPI document (and the special
//! shapes: Quantity, int-or-string, embedded objects, arbitrary JSON, preserved unknown fields)
//! gets a field in a small object, and every kind of JSON value is put into it; each object goes
//! through `kubectl apply --dry-run=server` and `kubeupd apply --dry-run=server`, both
//! validating. Both must give the same verdict with the same message, whether the refusal comes
//! from validation or from the server.
use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{TestNamespace, Twins, ensure_cluster_fixture, parse_json, published, testdata};

/// A field of one type and format, in an object that is valid but for the value at `VALUE`.
/// `NAME` is the object's name, `KIND` a kind name made from it, `NS` the namespace.
struct Carrier {
    /// The type and format the server's document gives the field, as `type/format`, or the
    /// special shape it stands for.
    shape: &'static str,
    field: &'static str,
    manifest: &'static str,
}

const CARRIERS: &[Carrier] = &[
    Carrier {
        shape: "string",
        field: "Secret.type",
        manifest: "apiVersion: v1\nkind: Secret\nmetadata: {name: NAME}\ntype: VALUE\n",
    },
    Carrier {
        shape: "string",
        field: "ConfigMap.data[k]",
        manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: NAME}\ndata: {k: VALUE}\n",
    },
    Carrier {
        shape: "string",
        field: "Service.spec.externalIPs[0]",
        manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: NAME}\nspec:\n  ports: [{port: 80}]\n  externalIPs: [VALUE]\n",
    },
    Carrier {
        shape: "string/byte",
        field: "Secret.data[k]",
        manifest: "apiVersion: v1\nkind: Secret\nmetadata: {name: NAME}\ndata: {k: VALUE}\n",
    },
    Carrier {
        shape: "string/date-time",
        field: "Event.lastTimestamp",
        manifest: "apiVersion: v1\nkind: Event\nmetadata: {name: NAME}\ninvolvedObject: {kind: Pod, name: p, namespace: NS}\nreason: Test\nlastTimestamp: VALUE\n",
    },
    Carrier {
        shape: "string/int-or-string",
        field: "Service.spec.ports[0].targetPort",
        manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: NAME}\nspec:\n  ports: [{port: 80, targetPort: VALUE}]\n",
    },
    Carrier {
        shape: "Quantity",
        field: "ResourceQuota.spec.hard[cpu]",
        manifest: "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: NAME}\nspec:\n  hard: {cpu: VALUE}\n",
    },
    Carrier {
        shape: "Quantity",
        field: "Pod.spec.containers[0].resources.limits[memory]",
        manifest: "apiVersion: v1\nkind: Pod\nmetadata: {name: NAME}\nspec:\n  containers:\n  - name: app\n    image: nginx\n    resources: {limits: {memory: VALUE}}\n",
    },
    Carrier {
        shape: "integer/int32",
        field: "Deployment.spec.replicas",
        manifest: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: NAME}\nspec:\n  replicas: VALUE\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: app, image: nginx}]\n",
    },
    Carrier {
        shape: "integer/int32",
        field: "Pod.spec.containers[0].ports[0].containerPort",
        manifest: "apiVersion: v1\nkind: Pod\nmetadata: {name: NAME}\nspec:\n  containers:\n  - name: app\n    image: nginx\n    ports: [{containerPort: VALUE}]\n",
    },
    Carrier {
        shape: "integer/int64",
        field: "ControllerRevision.revision",
        manifest: "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: NAME}\nrevision: VALUE\ndata: {a: 1}\n",
    },
    Carrier {
        shape: "boolean",
        field: "ConfigMap.immutable",
        manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: NAME}\nimmutable: VALUE\n",
    },
    Carrier {
        shape: "number/double",
        field: "CustomResourceDefinition...openAPIV3Schema.properties.size.minimum",
        manifest: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: NAMEs.table.kubeupd.test}\nspec:\n  group: table.kubeupd.test\n  scope: Namespaced\n  names: {kind: KIND, plural: NAMEs}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          size: {type: number, minimum: VALUE}\n",
    },
    Carrier {
        shape: "object (embedded object, RawExtension)",
        field: "ControllerRevision.data",
        manifest: "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: NAME}\nrevision: 1\ndata: VALUE\n",
    },
    Carrier {
        shape: "untyped (arbitrary JSON)",
        field: "CustomResourceDefinition...openAPIV3Schema.properties.size.example",
        manifest: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: NAMEs.table.kubeupd.test}\nspec:\n  group: table.kubeupd.test\n  scope: Namespaced\n  names: {kind: KIND, plural: NAMEs}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          size: {type: integer, example: VALUE}\n",
    },
    Carrier {
        shape: "integer",
        field: "Part.spec.size",
        manifest: "apiVersion: validate.kubeupd.test/v1\nkind: Part\nmetadata: {name: NAME}\nspec: {size: VALUE}\n",
    },
    Carrier {
        shape: "string (custom resource)",
        field: "Part.spec.color",
        manifest: "apiVersion: validate.kubeupd.test/v1\nkind: Part\nmetadata: {name: NAME}\nspec: {color: VALUE}\n",
    },
    Carrier {
        shape: "x-kubernetes-preserve-unknown-fields",
        field: "Part.spec.extras",
        manifest: "apiVersion: validate.kubeupd.test/v1\nkind: Part\nmetadata: {name: NAME}\nspec: {extras: VALUE}\n",
    },
];

/// Every kind of JSON value, as a user writes it in YAML.
const VALUES: &[(&str, &str)] = &[
    ("string", r#""80""#),
    ("string", "abc"),
    ("integer", "80"),
    ("float", "0.5"),
    ("whole float", "2.0"),
    ("float with exponent", "8.0e1"),
    ("boolean", "true"),
    ("null", "null"),
    ("list", "[1]"),
    ("object", "{a: 1}"),
];

/// The primitive types and formats the server's OpenAPI document gives the fields of built-in kinds
/// and of `Part` (other tests' custom resources come and go), and whether it has objects without
/// properties (RawExtension) and untyped schemas (arbitrary JSON).
fn shapes_in_document(document: &Value) -> BTreeSet<String> {
    fn visit(schema: &Value, found: &mut BTreeSet<String>) {
        let kind = schema.get("type").and_then(Value::as_str);
        match (kind, schema.get("format").and_then(Value::as_str)) {
            (Some("object" | "array"), _) => {}
            (Some(kind), Some(format)) => _ = found.insert(format!("{kind}/{format}")),
            (Some(kind), None) => _ = found.insert(kind.to_string()),
            (None, _) if schema.get("$ref").is_none() && schema.get("properties").is_none() => {
                _ = found.insert("untyped (arbitrary JSON)".to_string())
            }
            (None, _) => {}
        }
        if kind == Some("object") && schema.get("properties").is_none() && schema.get("additionalProperties").is_none()
        {
            found.insert("object (embedded object, RawExtension)".to_string());
        }
        for child in schema.get("properties").and_then(Value::as_object).into_iter().flat_map(|fields| fields.values())
        {
            visit(child, found);
        }
        for key in ["items", "additionalProperties"] {
            if let Some(child) = schema.get(key).filter(|child| child.is_object()) {
                visit(child, found);
            }
        }
    }
    let mut found = BTreeSet::new();
    for (name, definition) in document["definitions"].as_object().expect("definitions") {
        if name.starts_with("io.k8s.") || name == "test.kubeupd.validate.v1.Part" {
            visit(definition, &mut found);
        }
    }
    found
}

/// One case of the table: a carrier and a value, written to `path` as an object named `name`.
struct Case {
    carrier: &'static Carrier,
    value: (&'static str, &'static str),
    name: String,
    path: PathBuf,
}

/// What a tool made of each object, by file: `created ...`, `refused by validation: MESSAGE`,
/// `refused by the server (REASON): MESSAGE`, or `refused by the server as invalid: CAUSES`
/// (kubectl says `Error from server (Invalid): ... Kind.group "name" is invalid: CAUSES`, kubeupd
/// kubectl's other wording, `The Kind "name" is invalid: CAUSES`).
type Verdicts = BTreeMap<PathBuf, String>;

const ADVICE: &str = "; if you choose to ignore these errors, turn validation off with --validate=false";

/// A tool's stderr as messages: a line that starts with `error` or `Error from server` (or
/// kubectl's `[error validating`) starts one, other lines continue it. The server quotes the body
/// it could not read, and kubectl's body ends in a newline (kubeupd's does not): messages are
/// compared without their line breaks.
fn messages(stderr: &str) -> Vec<String> {
    let mut messages: Vec<String> = Vec::new();
    for line in stderr.lines() {
        // kubeupd's summary (`116 objects: ...`) is a message of its own.
        let starts =
            ["error", "Error from server", "[error validating", "Warning:"].iter().any(|start| line.starts_with(start))
                || line.starts_with(|c: char| c.is_ascii_digit());
        match messages.last_mut() {
            Some(message) if !starts => message.push_str(line),
            _ => messages.push(line.to_string()),
        }
    }
    messages
}

/// The server's refusal in `message` (from `Error from server (REASON)` on), the same for both tools.
fn server_refusal(message: &str) -> Option<String> {
    if let Some((_, causes)) = message.split_once("\" is invalid: ") {
        // Several causes: kubectl's aggregate of several objects' errors quotes the server's
        // `[a, b]`; kubeupd, one error per object, lists them as `* a; * b`.
        let causes = match causes.strip_prefix("* ") {
            Some(listed) => format!("[{}]", listed.split("; * ").collect::<Vec<_>>().join(", ")),
            None => causes.to_string(),
        };
        return Some(format!("refused by the server as invalid: {causes}"));
    }
    let (_, rest) = message.split_once("Error from server ")?;
    let (reason, rest) = rest.split_once(": ")?;
    let text =
        rest.split_once("\": ").filter(|(head, _)| head.starts_with("error when")).map_or(rest, |(_, text)| text);
    Some(format!("refused by the server {reason}: {text}"))
}

/// The verdicts in a tool's output; `quoted(case)` is how the tool names a case's file in its
/// server errors.
fn verdicts(cases: &[Case], stdout: &str, stderr: &str, quoted: impl Fn(&Case) -> String) -> Verdicts {
    let mut verdicts = created(cases, stdout);
    let messages = messages(stderr);
    for case in cases {
        let refused = format!("error validating {:?}", case.path);
        for message in &messages {
            // kubectl joins the validation errors of all files into one message.
            if let Some((_, rest)) = message.split_once(&refused) {
                let rest = rest.split_once("error validating data: ").map_or(rest, |(_, rest)| rest);
                let text = rest.split_once(ADVICE).map_or(rest, |(text, _)| text);
                verdicts.insert(case.path.clone(), format!("refused by validation: {text}"));
            } else if message.contains(&quoted(case)) {
                let verdict = server_refusal(message).unwrap_or_else(|| format!("unrecognised: {message}"));
                verdicts.insert(case.path.clone(), verdict);
            }
        }
    }
    verdicts
}

/// kubectl's verdicts: `KIND/NAME created (server dry run)` on stdout; `error validating "PATH":
/// error validating data: MESSAGE; ...` (all in one `[...]`) and `Error from server (REASON):
/// error when creating "PATH": MESSAGE` on stderr.
fn kubectl_verdicts(cases: &[Case], stdout: &str, stderr: &str) -> Verdicts {
    verdicts(cases, stdout, stderr, |case| format!("{:?}: ", case.path))
}

/// kubeupd's verdicts: as kubectl's on stdout; `error: error validating "PATH" (document 1): error
/// validating data: MESSAGE; ...` and `error: when applying PATH (document 1): Error from server
/// (REASON): MESSAGE` on stderr.
fn kubeupd_verdicts(cases: &[Case], stdout: &str, stderr: &str) -> Verdicts {
    verdicts(cases, stdout, stderr, |case| format!("{} (document 1): ", case.path.display()))
}

fn created(cases: &[Case], stdout: &str) -> Verdicts {
    let mut verdicts = Verdicts::new();
    for line in stdout.lines() {
        let name = line.split_once('/').and_then(|(_, rest)| rest.split_once(' ')).map(|(name, _)| name);
        // `c042`, or a definition's `c042s.table.kubeupd.test`.
        let name = name.map(|name| name.split('.').next().unwrap_or(name).trim_end_matches('s'));
        if let Some(case) = cases.iter().find(|case| Some(case.name.as_str()) == name) {
            verdicts
                .insert(case.path.clone(), format!("created: {}", line.split_once(' ').map_or("", |(_, rest)| rest)));
        }
    }
    verdicts
}

fn run(mut command: std::process::Command) -> (String, String) {
    let output = command.output().expect("runs");
    (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn every_type_and_format_takes_what_kubectl_takes_and_refuses_what_it_refuses() {
    let namespace = TestNamespace::new("validate-table");
    ensure_cluster_fixture(&namespace, "crd/parts.yaml");
    assert!(published(&namespace, &["test.kubeupd.validate.v1.Part"]), "the server publishes the schema");

    // The carriers cover every primitive type and format the server's document has.
    let document = parse_json(namespace.kubectl_ok(&["get", "--raw", "/openapi/v2"]).as_bytes());
    let covered: BTreeSet<&str> = CARRIERS.iter().map(|carrier| carrier.shape).collect();
    for shape in shapes_in_document(&document) {
        assert!(covered.contains(shape.as_str()), "no carrier for {shape}, which the server's schema has");
    }

    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    for carrier in CARRIERS {
        for &value in VALUES {
            let name = format!("c{:03}", cases.len());
            let path = dir.path().join(format!("{name}.yaml"));
            let manifest = carrier
                .manifest
                .replace("VALUE", value.1)
                .replace("NAME", &name)
                .replace("KIND", &name.to_uppercase())
                .replace("NS", &namespace.name);
            std::fs::write(&path, manifest).unwrap();
            cases.push(Case { carrier, value, name, path });
        }
    }

    let apply = |command: &mut std::process::Command| {
        command.args(["apply", "--dry-run=server", "--validate=strict", "-n", &namespace.name]);
    };
    // kubectl goes on after a refused object: one run has every verdict.
    let mut kubectl = namespace.kubectl();
    apply(&mut kubectl);
    let (stdout, stderr) = run({
        kubectl.arg("-f").arg(dir.path());
        kubectl
    });
    let theirs = kubectl_verdicts(&cases, &stdout, &stderr);

    // kubeupd refuses its whole input when one object is refused, naming every refused one; a
    // second run sends the others and shows the server's verdicts.
    let mut first = namespace.kubeupd_process();
    apply(&mut first);
    let (_, stderr) = run({
        first.arg("-f").arg(dir.path());
        first
    });
    let mut ours = kubeupd_verdicts(&cases, "", &stderr);
    let passed: Vec<&Path> =
        cases.iter().map(|case| case.path.as_path()).filter(|path| !ours.contains_key(*path)).collect();
    let mut second = namespace.kubeupd_process();
    apply(&mut second);
    for path in &passed {
        second.arg("-f").arg(path);
    }
    let (stdout, stderr) = run(second);
    ours.extend(kubeupd_verdicts(&cases, &stdout, &stderr));

    let mut table = String::from("| type/format | field | value | kubectl | kubeupd |\n|---|---|---|---|---|\n");
    let mut differences = Vec::new();
    let missing = String::from("(no verdict)");
    for case in &cases {
        let kubectl = theirs.get(&case.path).unwrap_or(&missing);
        let kubeupd = ours.get(&case.path).unwrap_or(&missing);
        let row = format!(
            "| {} | {} | {} `{}` | {kubectl} | {} |\n",
            case.carrier.shape,
            case.carrier.field,
            case.value.0,
            case.value.1,
            if kubeupd == kubectl { "same" } else { kubeupd.as_str() }
        );
        table.push_str(&row);
        if kubectl == &missing || kubeupd != kubectl {
            differences.push(row);
        }
    }
    println!("{table}");
    // Every object got a verdict read from the output, and the table holds all three kinds; on a
    // server that checks fields, kubectl validates nothing itself, and the server refuses.
    let by_validation = theirs.values().any(|verdict| verdict.starts_with("refused by validation"));
    assert_eq!(by_validation, !support::server_checks_fields(), "who refuses:\n{table}");
    for kind in ["created", "refused by the server"] {
        assert!(theirs.values().any(|verdict| verdict.starts_with(kind)), "no case was {kind}:\n{table}");
    }
    let unread: Vec<&String> = theirs.values().filter(|verdict| verdict.starts_with("unrecognised")).collect();
    assert!(unread.is_empty(), "kubectl's output not understood: {unread:?}");
    assert!(differences.is_empty(), "{} of {} cases differ:\n{}", differences.len(), cases.len(), differences.concat());
}

#[test]
fn kubernetes_examples_are_applied_alike_with_validation_on() {
    // The whole directory, StorageClass included, passes both tools' validation and the server's.
    let dir = testdata("kubernetes-examples");
    let namespace = TestNamespace::new("validate-examples");
    let dry_run = |mut command: std::process::Command| {
        let output =
            command.args(["apply", "--dry-run=server", "-n", &namespace.name, "-f"]).arg(&dir).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let mut lines: Vec<String> = String::from_utf8_lossy(&output.stdout).lines().map(String::from).collect();
        lines.sort();
        lines
    };
    let ours = dry_run(namespace.kubeupd_process());
    assert_eq!(ours, dry_run(namespace.kubectl()), "the same objects, with the same words");
    assert_eq!(ours.len(), 32, "every document of the 30 files: {ours:?}");

    // Applied for real, each tool in a namespace of its own: the same objects.
    let (groups, stateful_set) = support::example_files();
    for (index, files) in groups.iter().enumerate() {
        let twins = Twins::new(&format!("validate-examples-{index}"));
        for (mut command, namespace) in
            [(twins.ours.kubeupd_process(), &twins.ours.name), (twins.theirs.kubectl(), &twins.theirs.name)]
        {
            command.args(["apply", "-n", namespace]);
            for file in files {
                command.arg("-f").arg(file);
            }
            let output = if index == 0 {
                command.arg("-f").arg("-");
                support::with_stdin(&mut command, &stateful_set)
            } else {
                command.output().unwrap()
            };
            assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        }
        let objects = twins.assert_same(
            "deployments,pods,replicationcontrollers,services,statefulsets",
            "kubernetes/examples applied with validation on",
        );
        let documents: usize = files
            .iter()
            .map(|file| std::fs::read_to_string(file).unwrap().lines().filter(|line| line.starts_with("kind:")).count())
            .sum();
        let expected = documents + usize::from(index == 0);
        assert_eq!(objects.as_array().map(Vec::len), Some(expected), "every document's object: {objects}");
        if index == 0 {
            let cpu = twins.ours.kubectl_ok(&[
                "get",
                "pod",
                "exclusive-2",
                "-n",
                &twins.ours.name,
                "-o",
                "jsonpath={.spec.containers[0].resources.limits.cpu}",
            ]);
            assert_eq!(cpu, "2", "a number as a Quantity reaches the server");
        }
    }
}
