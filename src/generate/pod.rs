//! `run`'s Pod (and the Service of `--expose`), as kubectl 1.37's `run` makes them: one container
//! named after the pod, `run: NAME` as labels unless `--labels` gives some, `ClusterFirst` DNS,
//! and kubectl's checks and words for the flags that shape them.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::{Error, strings};

/// What `run NAME --image=IMAGE [flags] [-- ARGS...]` asks for.
#[derive(Debug, Clone, Default)]
pub struct PodOptions {
    pub name: String,
    pub image: String,
    /// `--labels`; `None`: the pod is labelled `run: NAME`.
    pub labels: Option<BTreeMap<String, String>>,
    pub annotations: BTreeMap<String, String>,
    /// `--env` pairs in order.
    pub env: Vec<(String, String)>,
    /// `--port`, checked to be a number.
    pub port: Option<i32>,
    /// `-i`: the container keeps stdin open.
    pub stdin: bool,
    /// `-t`.
    pub tty: bool,
    /// `--leave-stdin-open`: stdin is not closed after the first attach.
    pub leave_stdin_open: bool,
    pub restart_policy: String,
    /// `--image-pull-policy`; empty leaves it to the server.
    pub image_pull_policy: String,
    pub privileged: bool,
    /// Words after `--`: the container's `command` with `--command`, else its `args`.
    pub arguments: Vec<String>,
    pub command: bool,
}

impl PodOptions {
    /// The pod's labels: `--labels`, else `run: NAME`.
    pub fn pod_labels(&self) -> BTreeMap<String, String> {
        self.labels.clone().unwrap_or_else(|| BTreeMap::from([("run".to_string(), self.name.clone())]))
    }
}

/// The Pod kubectl's `run` generates (`createPod`), fields as its Go types write them.
pub fn pod(options: &PodOptions) -> Value {
    let mut container = Map::new();
    container.insert("name".into(), options.name.clone().into());
    container.insert("image".into(), options.image.clone().into());
    if !options.arguments.is_empty() {
        let field = if options.command { "command" } else { "args" };
        container.insert(field.into(), strings(&options.arguments));
    }
    if let Some(port) = options.port {
        container.insert("ports".into(), json!([{"containerPort": port}]));
    }
    if !options.env.is_empty() {
        // An empty value is left out, as `EnvVar.value` is `omitempty`.
        let env = options.env.iter().map(|(name, value)| match value.is_empty() {
            true => json!({"name": name}),
            false => json!({"name": name, "value": value}),
        });
        container.insert("env".into(), Value::Array(env.collect()));
    }
    container.insert("resources".into(), json!({}));
    if !options.image_pull_policy.is_empty() {
        container.insert("imagePullPolicy".into(), options.image_pull_policy.clone().into());
    }
    if options.privileged {
        container.insert("securityContext".into(), json!({"privileged": true}));
    }
    for (field, on) in
        [("stdin", options.stdin), ("stdinOnce", options.stdin && !options.leave_stdin_open), ("tty", options.tty)]
    {
        if on {
            container.insert(field.into(), true.into());
        }
    }
    let mut metadata = json!({"name": options.name, "labels": options.pod_labels()});
    if !options.annotations.is_empty() {
        metadata["annotations"] = json!(options.annotations);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {"containers": [container], "restartPolicy": options.restart_policy, "dnsPolicy": "ClusterFirst"},
        "status": {},
    })
}

/// What kubectl's decoding of an overridden pod into its Go type writes back where a patch took
/// it away: the structs Go always writes, each container's `resources` and the pod's `status`.
pub fn with_go_structs(mut pod: Value) -> Value {
    for field in ["initContainers", "containers", "ephemeralContainers"] {
        if let Some(containers) = pod.pointer_mut(&format!("/spec/{field}")).and_then(Value::as_array_mut) {
            for container in containers.iter_mut().filter_map(Value::as_object_mut) {
                if container.get("resources").is_none_or(Value::is_null) {
                    container.insert("resources".into(), json!({}));
                }
            }
        }
    }
    if let Some(object) = pod.as_object_mut()
        && object.get("status").is_none_or(Value::is_null)
    {
        object.insert("status".into(), json!({}));
    }
    pod
}

/// The ClusterIP Service of `--expose`: the pod's labels as selector, `--labels` (only) as its
/// own labels, the port to the same port of the pod.
pub fn service(options: &PodOptions, port: i32) -> Value {
    let mut metadata = json!({"name": options.name});
    if let Some(labels) = &options.labels {
        metadata["labels"] = json!(labels);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata,
        "spec": {
            "ports": [{"protocol": "TCP", "port": port, "targetPort": port}],
            "selector": options.pod_labels(),
        },
        "status": {"loadBalancer": {}},
    })
}

/// `--labels` as `run` reads it: `KEY=VALUE,...`, each pair exactly one `=`, keys not empty;
/// `None` for an empty flag.
pub fn labels(text: &str) -> Result<Option<BTreeMap<String, String>>, Error> {
    if text.is_empty() {
        return Ok(None);
    }
    let mut labels = BTreeMap::new();
    for spec in text.split(',') {
        let parts: Vec<&str> = spec.split('=').collect();
        let [key, value] = parts.as_slice() else {
            return Err(Error::LabelSpec(spec.to_string()));
        };
        if key.is_empty() {
            return Err(Error::EmptyLabelKey);
        }
        labels.insert(key.to_string(), value.to_string());
    }
    Ok(Some(labels))
}

/// `--annotations` as kubectl's `ParsePairs` reads them: `KEY=VALUE` (the first `=` splits, a
/// pair must not start with one); the wrong ones listed together.
pub fn annotations(pairs: &[String]) -> Result<BTreeMap<String, String>, Error> {
    let mut annotations = BTreeMap::new();
    let mut invalid = Vec::new();
    for pair in pairs {
        match pair.split_once('=') {
            Some((key, value)) if !key.is_empty() => {
                annotations.insert(key.to_string(), value.to_string());
            }
            _ => invalid.push(pair.as_str()),
        }
    }
    match invalid.is_empty() {
        true => Ok(annotations),
        false => Err(Error::AnnotationPairs(invalid.join(", "))),
    }
}

/// A C identifier-like name, as `validation.IsEnvVarName` takes it.
static ENV_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$").expect("the env name grammar is a valid regex"));

/// `--env` pairs: `NAME=VALUE`, the name a valid environment variable's.
pub fn env(pairs: &[String]) -> Result<Vec<(String, String)>, Error> {
    pairs
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if ENV_NAME.is_match(name) => Ok((name.to_string(), value.to_string())),
            _ => Err(Error::Env(pair.clone())),
        })
        .collect()
}

/// `--restart`: one of the three policies (empty: `OnFailure` with `-i`, else `Always`).
pub fn restart_policy(text: &str, interactive: bool) -> Result<String, Error> {
    match text {
        "" if interactive => Ok("OnFailure".into()),
        "" => Ok("Always".into()),
        "Always" | "OnFailure" | "Never" => Ok(text.into()),
        _ => Err(Error::RestartPolicy(text.into())),
    }
}

/// `--image-pull-policy`: empty or one of the three.
pub fn image_pull_policy(text: &str) -> Result<String, Error> {
    match text {
        "" | "Always" | "IfNotPresent" | "Never" => Ok(text.into()),
        _ => Err(Error::ImagePullPolicy(text.into())),
    }
}

/// An image reference as `github.com/distribution/reference`'s `ReferenceRegexp` reads it:
/// `[HOST[:PORT]/]PATH[:TAG][@DIGEST]`.
static IMAGE_REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    let component = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
    let host = format!(r"(?:{component}(?:\.{component})*|\[(?:[a-fA-F0-9:]+)\])(?::[0-9]+)?");
    let path_component = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
    let tag = r"[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}";
    let digest = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}";
    Regex::new(&format!(r"^((?:{host}/)?{path_component}(?:/{path_component})*)(?::({tag}))?(?:@({digest}))?$"))
        .expect("the image reference grammar is a valid regex")
});

/// Whether `image` is an image reference kubectl takes.
pub fn valid_image(image: &str) -> bool {
    IMAGE_REFERENCE.is_match(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> PodOptions {
        PodOptions { name: "x".into(), image: "nginx".into(), restart_policy: "Always".into(), ..PodOptions::default() }
    }

    #[test]
    fn a_plain_pod_is_labelled_after_its_name() {
        assert_eq!(
            pod(&options()),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "labels": {"run": "x"}},
                   "spec": {"containers": [{"name": "x", "image": "nginx", "resources": {}}],
                            "restartPolicy": "Always", "dnsPolicy": "ClusterFirst"},
                   "status": {}})
        );
    }

    #[test]
    fn flags_shape_the_container() {
        let options = PodOptions {
            labels: Some(BTreeMap::from([("a".into(), "b".into())])),
            annotations: BTreeMap::from([("note".into(), "n".into())]),
            env: vec![("A".into(), "1".into()), ("EMPTY".into(), String::new())],
            port: Some(80),
            stdin: true,
            tty: true,
            image_pull_policy: "Never".into(),
            privileged: true,
            arguments: vec!["sh".into(), "-c".into(), "true".into()],
            command: true,
            ..options()
        };
        let pod = pod(&options);
        assert_eq!(pod["metadata"], json!({"name": "x", "labels": {"a": "b"}, "annotations": {"note": "n"}}));
        assert_eq!(
            pod["spec"]["containers"][0],
            json!({"name": "x", "image": "nginx", "command": ["sh", "-c", "true"], "ports": [{"containerPort": 80}],
                   "env": [{"name": "A", "value": "1"}, {"name": "EMPTY"}], "resources": {}, "imagePullPolicy": "Never",
                   "securityContext": {"privileged": true}, "stdin": true, "stdinOnce": true, "tty": true})
        );
        let open =
            PodOptions { stdin: true, leave_stdin_open: true, arguments: vec!["a".into()], ..super::tests::options() };
        assert_eq!(pod_of(&open)["args"], json!(["a"]));
        assert_eq!(pod_of(&open).get("stdinOnce"), None);
    }

    fn pod_of(options: &PodOptions) -> Value {
        pod(options)["spec"]["containers"][0].clone()
    }

    #[test]
    fn the_service_selects_the_pod() {
        assert_eq!(
            service(&options(), 80),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"},
                   "spec": {"ports": [{"protocol": "TCP", "port": 80, "targetPort": 80}], "selector": {"run": "x"}},
                   "status": {"loadBalancer": {}}})
        );
    }

    #[test]
    fn flags_are_read_as_kubectl_reads_them() {
        assert_eq!(labels("").unwrap(), None);
        assert_eq!(labels("a=b,c=").unwrap().unwrap().len(), 2);
        assert_eq!(labels("a=b=c").unwrap_err().to_string(), "unexpected label spec: a=b=c");
        assert_eq!(labels("a").unwrap_err().to_string(), "unexpected label spec: a");
        assert_eq!(labels("=b").unwrap_err().to_string(), "unexpected empty label key");
        assert_eq!(annotations(&["a=b=c".into()]).unwrap()["a"], "b=c");
        assert_eq!(
            annotations(&["x".into(), "=y".into()]).unwrap_err().to_string(),
            "invalid annotations format: x, =y"
        );
        assert_eq!(env(&["A=b=c".into()]).unwrap(), [("A".to_string(), "b=c".to_string())]);
        for wrong in ["A", "=b", "1A=b", "A B=c"] {
            assert_eq!(env(&[wrong.into()]).unwrap_err().to_string(), format!("invalid env: {wrong}"));
        }
        assert_eq!(restart_policy("", true).unwrap(), "OnFailure");
        assert_eq!(restart_policy("", false).unwrap(), "Always");
        assert_eq!(
            restart_policy("never", false).unwrap_err().to_string(),
            "invalid restart policy: never, valid values are: Always, OnFailure, Never"
        );
        assert_eq!(
            image_pull_policy("x").unwrap_err().to_string(),
            "invalid image pull policy: x, valid values are: Always, IfNotPresent, Never"
        );
    }

    #[test]
    fn image_references_follow_the_distribution_grammar() {
        for good in [
            "nginx",
            "nginx:1.27",
            "registry.k8s.io/pause:3.9",
            "localhost:5000/a/b_c:v1",
            "[::1]:5000/x",
            "a@sha256:0123456789abcdef0123456789abcdef",
        ] {
            assert!(valid_image(good), "{good}");
        }
        for bad in ["", "Nginx", "nginx:", "a b", "-a", "a/", "nginx:"] {
            assert!(!valid_image(bad), "{bad}");
        }
    }

    #[test]
    fn an_overridden_pod_gets_the_structs_go_writes() {
        let pod = json!({"kind": "Pod", "spec": {"containers": [{"name": "a", "resources": null}, {"name": "b"},
            {"name": "c", "resources": {"limits": {"cpu": "1"}}}], "initContainers": [{"name": "i"}]}, "status": null});
        assert_eq!(
            with_go_structs(pod),
            json!({"kind": "Pod", "spec": {"containers": [{"name": "a", "resources": {}}, {"name": "b", "resources": {}},
                {"name": "c", "resources": {"limits": {"cpu": "1"}}}], "initContainers": [{"name": "i", "resources": {}}]},
                "status": {}})
        );
    }
}
