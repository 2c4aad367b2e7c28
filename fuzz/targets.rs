//! The fuzz targets' bodies: one function per parser that reads user input, each over kubeupd's
//! public API, taking arbitrary bytes. A target fails by panicking (which includes the checks on
//! the errors below), overflowing the stack or running too long; an error returned for bad input
//! is the expected outcome.
//!
//! Shared by the libFuzzer binaries in `fuzz/fuzz_targets` (`cargo +nightly fuzz run NAME`) and by
//! `tests/offline/fuzz_regressions.rs`, which replays `testdata/fuzz/NAME/*` through them (the
//! inputs fuzzing found, kept as a regression corpus) and gives each target a few seconds of
//! inputs made from that corpus on every test run.
//!
//! Inputs made of several texts (a document and a patch, a kustomization and its resources) are
//! split at lines `%%`; see [`parts`].

use std::path::{Path, PathBuf};
use std::str::FromStr;

use kubeupd::change::field_path::FieldChange;
use kubeupd::manifest::{self, Dialect, LabelSelector};
use kubeupd::merge::{KindPatcher, Patch, PatchType, json_merge};
use kubeupd::output::go_template::Template;
use kubeupd::output::jsonpath::{self, JsonPath};
use kubeupd::output::{Printer, Verb};
use kubeupd::schema::{KindSchema, builtin};
use serde_json::{Value, json};

/// A target's body: arbitrary bytes in, a panic when something is wrong.
pub type Target = fn(&[u8]);

/// Every target, by name: the name of its `fuzz_targets/NAME.rs` and of `testdata/fuzz/NAME`.
pub const TARGETS: &[(&str, Target)] = &[
    ("manifest", manifest),
    ("strategic_merge", strategic_merge),
    ("json_patch", json_patch),
    ("jsonpath", jsonpath),
    ("go_template", go_template),
    ("custom_columns", custom_columns),
    ("kustomize", kustomize),
    ("kubeconfig", kubeconfig),
    ("kuberc", kuberc),
    ("set_path", set_path),
    ("selector", selector),
    ("quantity", quantity),
];

/// The texts of `data`, split at lines `%%`; invalid UTF-8 is read lossily (every reader here
/// takes text).
pub fn parts(data: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(data);
    text.split("\n%%\n").map(str::to_string).collect()
}

fn part(parts: &[String], at: usize) -> &str {
    parts.get(at).map(String::as_str).unwrap_or_default()
}

/// A document read as `patch -p` reads its text (YAML 1.1, JSON being YAML); `null` when it is
/// not valid.
fn value(text: &str) -> Value {
    manifest::yaml_value(text).unwrap_or(Value::Null)
}

/// An object with a bit of everything: lists of maps and of scalars, numbers, booleans, nulls.
fn sample_object() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "labels": {"app": "web", "tier": "front", "app.kubernetes.io/name": "web"},
            "annotations": {"a": "1"},
            "creationTimestamp": "2026-12-05T04:00:00Z",
        },
        "spec": {
            "replicas": 3,
            "paused": false,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {"name": "app", "image": "nginx:1.27", "ports": [{"containerPort": 80}, {"containerPort": 443}],
                         "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}}, "args": ["-v", "2"]},
                        {"name": "side", "image": "busybox", "env": [{"name": "X", "value": null}]},
                    ],
                    "nodeSelector": {},
                },
            },
        },
        "status": {"conditions": [{"type": "Available", "status": "True"}], "readyReplicas": 2.5},
    })
}

/// `-f` manifests (YAML 1.1 as kubectl reads them and YAML 1.2 as kustomize does, JSON streams,
/// several documents, Lists), and YAML given on the command line (`patch -p`). An error names the
/// file and a document that exists; a YAML syntax error names its line.
pub fn manifest(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for dialect in [Dialect::Kubectl, Dialect::Kustomize] {
        if let Err(err) = manifest::parse_as(&text, "fuzz.yaml", dialect) {
            check_manifest_error(&err.to_string(), &text);
        }
        if let Err(err) = manifest::parse_documents(&text, "fuzz.yaml", dialect) {
            check_manifest_error(&err.to_string(), &text);
        }
    }
    let _ = manifest::yaml_value(&text);
}

fn check_manifest_error(message: &str, text: &str) {
    let rest = message.strip_prefix("fuzz.yaml (document ");
    let number = rest.and_then(|rest| rest.split_once(')')).and_then(|(number, _)| number.parse::<usize>().ok());
    let Some(number) = number else { panic!("the error does not name the file and document: {message}") };
    // Documents are separated by `---` lines; a JSON stream counts its documents too.
    let separators = text.lines().filter(|line| line.starts_with("---")).count();
    if !text.trim_start().starts_with(['{', '[']) {
        assert!((1..=separators + 1).contains(&number), "no document {number} in the input: {message}");
    }
    if message.contains("invalid YAML") {
        assert!(message.contains("line "), "a YAML error names no line: {message}");
    }
}

/// The strategic merge engine on built-in kinds, and JSON merge patches: the two-way and
/// three-way patches between documents, and applying a patch. Texts: original, modified (or the
/// patch), current.
pub fn strategic_merge(data: &[u8]) {
    let parts = parts(data);
    let (original, modified, current) = (value(part(&parts, 0)), value(part(&parts, 1)), value(part(&parts, 2)));
    let kind = match data.first().map(|byte| byte % 4) {
        Some(0) => ("v1", "Pod"),
        Some(1) => ("v1", "Service"),
        Some(2) => ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        _ => ("apps/v1", "Deployment"),
    };
    let schema = KindSchema::for_builtin(Some(builtin().clone()), kind.0, kind.1).expect("a built-in kind");
    for patcher in [KindPatcher::for_kind(Some(&schema)), KindPatcher::for_kind(None)] {
        if let Ok(patch) = patcher.two_way(&original, &modified) {
            let _ = patcher.apply(original.clone(), &patch);
        }
        for overwrite in [false, true] {
            if let Ok(patch) = patcher.three_way(&original, &modified, &current, overwrite) {
                let _ = patcher.apply(current.clone(), &patch);
            }
        }
        for patch_type in [PatchType::Strategic, PatchType::Merge] {
            if let Ok(patch) = Patch::parse(patch_type, part(&parts, 1)) {
                let _ = patcher.apply(original.clone(), &patch);
            }
        }
    }
    let _ = json_merge::apply(original.clone(), &modified);
}

/// RFC 6902 JSON patches (`patch --type json`): the patch read from text and applied. Texts: the
/// document, the patch.
pub fn json_patch(data: &[u8]) {
    let parts = parts(data);
    let document = value(part(&parts, 0));
    if let Ok(patch) = Patch::parse(PatchType::Json, part(&parts, 1)) {
        let _ = patch.apply(document, None);
    }
}

/// `-o jsonpath=...`: the template parsed and run on an object, as text and as JSON, with
/// missing keys allowed and not; and the relaxed form `--sort-by` and custom columns take.
pub fn jsonpath(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let object = sample_object();
    if let Ok(path) = JsonPath::parse(&text) {
        for (allow_missing_keys, as_json) in [(false, false), (true, false), (true, true)] {
            let _ = path.render(&object, jsonpath::Options { allow_missing_keys, as_json });
        }
    }
    if let Ok(relaxed) = jsonpath::relaxed(&text)
        && let Ok(path) = JsonPath::parse(&relaxed)
    {
        let _ = path.find(&object, true);
    }
}

/// `-o go-template=...`: the template parsed and run on an object.
pub fn go_template(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(template) = Template::parse(&text) {
        let object = sample_object();
        let _ = template.execute(&object, true);
        let _ = template.execute(&object, false);
    }
}

/// `-o custom-columns=...`: the columns parsed and printed for two objects.
pub fn custom_columns(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(printer) = Printer::new("custom-columns", Some(&text), true, Verb::Get) {
        let mut out = Vec::new();
        let _ =
            printer.write(&mut out, vec![sample_object(), json!({"kind": "Pod", "metadata": {"name": "p"}})], false);
    }
}

/// A kustomization built from memory: `/k/kustomization.yaml`, resources `/k/r.yaml` and
/// `/k/p.yaml`, and a base `/k/base/kustomization.yaml` with `/k/base/b.yaml` (texts in that
/// order). Nothing is fetched: the loader refuses remote resources.
pub fn kustomize(data: &[u8]) {
    let parts = parts(data);
    let names = ["/k/kustomization.yaml", "/k/r.yaml", "/k/p.yaml", "/k/base/kustomization.yaml", "/k/base/b.yaml"];
    let mut loader = kubeupd::kustomize::MemoryLoader::default();
    for (at, name) in names.iter().enumerate() {
        if let Some(text) = parts.get(at) {
            loader = loader.with(*name, text.as_bytes());
        }
    }
    let _ = kubeupd::kustomize::build(&loader, Path::new("/k"), kubeupd::kustomize::Options::default());
}

/// A file of this process's own in the temporary directory, written with `text`.
fn scratch_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubeupd-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("the temporary directory is writable");
    path
}

/// A kubeconfig file read as `--kubeconfig` reads it (its contexts listed); an error names the
/// file.
pub fn kubeconfig(data: &[u8]) {
    let path = scratch_file("kubeconfig", &String::from_utf8_lossy(data));
    let options = kubeupd::client::ConnectOptions { kubeconfig: Some(path.clone()), ..Default::default() };
    if let Err(err) = kubeupd::client::context_names(&options) {
        let message = err.to_string();
        assert!(message.contains(&path.display().to_string()), "the error does not name the file: {message}");
    }
}

/// A kuberc file (`--kuberc`), applied to a command line: `get`, an alias `a`, or `apply`. The
/// command line ends with an unknown flag, so that it is refused after the kuberc file is applied
/// (a command line that parses keeps its command tree for the process's life).
pub fn kuberc(data: &[u8]) {
    let path = scratch_file("kuberc", &String::from_utf8_lossy(data));
    let verb = match data.last().map(|byte| byte % 3) {
        Some(0) => "get",
        Some(1) => "a",
        _ => "apply",
    };
    let args = ["kubeupd", "--kuberc", &path.display().to_string(), verb, "--fuzz-no-such-flag"];
    let _ = kubeupd::cli::parse(args);
}

/// `update --set PATH=VALUE`, `--set-string` and `--unset`: each line of the input, read as all
/// three, applied to an object.
pub fn set_path(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut object = sample_object();
    for line in text.lines() {
        for change in
            [FieldChange::set(line), FieldChange::set_string(line), FieldChange::unset(line)].into_iter().flatten()
        {
            let _ = change.apply(&mut object);
        }
    }
}

/// Label selectors (`-l`): parsed, matched against an object, and turned into a Service's
/// selector and a LabelSelector; and a LabelSelector object (JSON or YAML) written as text.
pub fn selector(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(selector) = LabelSelector::from_str(&text) {
        let _ = selector.matches(&sample_object());
        let _ = selector.service_selector();
        let _ = selector.label_selector();
        let _ = selector.as_str();
    }
    let _ = manifest::selector_text(&value(&text));
}

/// Quantities (`500m`, `1Gi`, `1e3`), and the other scalars flags take: integers as Go's
/// strconv reads them, durations, timestamps.
pub fn quantity(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = kubeupd::gocompat::quantity::canonical(&text);
    let _ = kubeupd::gocompat::quantity::nanos(&text);
    let container = json!({"resources": {"limits": {"cpu": &*text}, "requests": {"memory": &*text}}});
    let _ = manifest::container_resource(&container, &json!({"resource": "limits.cpu", "divisor": &*text}));
    let _ = kubeupd::gocompat::strconv::parse_int(&text, 64);
    let _ = kubeupd::gocompat::strconv::parse_uint(&text);
    let _ = kubeupd::gocompat::time::parse_duration(&text);
    let _ = kubeupd::gocompat::time::parse_timestamp(&text);
}
