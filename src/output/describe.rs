//! kubectl's description of a pod template (`DescribePodTemplate`), as `rollout history
//! --revision=N` and `rollout undo --dry-run=client` print it: labels, annotations, containers,
//! volumes, node selectors and tolerations, with raw tabs (kubectl writes it without a
//! tabwriter) and two spaces per level.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Annotations kubectl's describers leave out.
const SKIPPED_ANNOTATIONS: &[&str] = &["kubectl.kubernetes.io/last-applied-configuration"];

/// The longest `key: value` annotation kubectl prints on one line.
const LONGEST_ANNOTATION: usize = 140;

/// The description of `template` (a `PodTemplateSpec`), ending with a newline.
pub fn pod_template(template: &Value) -> String {
    let mut w = Lines::default();
    w.write(0, "Pod Template:\n");
    let metadata = &template["metadata"];
    let spec = &template["spec"];
    labels(&mut w, "  Labels", &metadata["labels"]);
    if metadata["annotations"].as_object().is_some_and(|a| !a.is_empty()) {
        annotations(&mut w, "  Annotations", &metadata["annotations"]);
    }
    if let Some(account) = text(&spec["serviceAccountName"]).filter(|a| !a.is_empty()) {
        w.write(1, &format!("Service Account:\t{account}\n"));
    }
    let init = list(&spec["initContainers"]);
    if !init.is_empty() {
        containers(&mut w, "Init Containers", init);
    }
    containers(&mut w, "Containers", list(&spec["containers"]));
    volumes(&mut w, list(&spec["volumes"]));
    spread_constraints(&mut w, list(&spec["topologySpreadConstraints"]));
    if let Some(class) = text(&spec["priorityClassName"]).filter(|c| !c.is_empty()) {
        w.write(1, &format!("Priority Class Name:\t{class}\n"));
    }
    labels(&mut w, "  Node-Selectors", &spec["nodeSelector"]);
    tolerations(&mut w, "  Tolerations", list(&spec["tolerations"]));
    w.0
}

/// kubectl's prefix writer: two spaces per level, terminal escapes made visible.
#[derive(Default)]
struct Lines(String);

impl Lines {
    fn write(&mut self, level: usize, text: &str) {
        for _ in 0..level {
            self.0.push_str("  ");
        }
        self.0.push_str(&text.replace('\x1b', "^[").replace('\r', "\\r"));
    }
}

fn list(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

fn text(value: &Value) -> Option<&str> {
    value.as_str()
}

fn str_of(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// A number or string as Go's `%v`/`%d` prints it (int-or-string ports, integers).
fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => crate::gocompat::fmt::value_text(other).into_owned(),
    }
}

fn integer(value: &Value) -> i64 {
    value.as_i64().unwrap_or_default()
}

fn flag(value: &Value) -> bool {
    value.as_bool().unwrap_or_default()
}

fn sorted_keys(map: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    keys
}

fn labels(w: &mut Lines, title: &str, labels: &Value) {
    w.write(0, &format!("{title}:\t"));
    let Some(labels) = labels.as_object().filter(|l| !l.is_empty()) else {
        w.write(0, "<none>\n");
        return;
    };
    for (i, key) in sorted_keys(labels).into_iter().enumerate() {
        if i != 0 {
            w.write(0, "\t");
        }
        w.write(0, &format!("{key}={}\n", str_of(&labels[key])));
    }
}

fn annotations(w: &mut Lines, title: &str, annotations: &Value) {
    w.write(0, &format!("{title}:\t"));
    let map = annotations.as_object().cloned().unwrap_or_default();
    let keys: Vec<&String> =
        sorted_keys(&map).into_iter().filter(|k| !SKIPPED_ANNOTATIONS.contains(&k.as_str())).collect();
    if keys.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    for (i, key) in keys.into_iter().enumerate() {
        if i != 0 {
            w.write(0, "\t");
        }
        let value = str_of(&map[key]).strip_suffix('\n').unwrap_or(str_of(&map[key]));
        if value.len() + key.len() + 2 > LONGEST_ANNOTATION || value.contains('\n') {
            w.write(0, &format!("{key}:\n"));
            for line in value.split('\n') {
                w.write(0, &format!("\t  {}\n", shorten(line, LONGEST_ANNOTATION - 2)));
            }
        } else {
            w.write(0, &format!("{key}: {value}\n"));
        }
    }
}

/// Go's `s[:n] + "..."`: cut at a byte count (kept on a character boundary here).
fn shorten(line: &str, longest: usize) -> String {
    if line.len() <= longest {
        return line.to_string();
    }
    let mut end = longest;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &line[..end])
}

fn containers(w: &mut Lines, label: &str, containers: &[Value]) {
    let none = if containers.is_empty() { " <none>" } else { "" };
    w.write(0, &format!("  {label}:{none}\n"));
    for container in containers {
        w.write(1, &format!(" {}:\n", str_of(&container["name"])));
        w.write(2, &format!("Image:\t{}\n", str_of(&container["image"])));
        let ports = list(&container["ports"]);
        let port = |number: &str| {
            ports
                .iter()
                .map(|p| match str_of(&p["name"]) {
                    // kubectl 1.37 names a named port after it: `80/TCP (http)`.
                    "" => format!("{}/{}", integer(&p[number]), str_of(&p["protocol"])),
                    name => format!("{}/{} ({name})", integer(&p[number]), str_of(&p["protocol"])),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (number, one, several) in [("containerPort", "Port", "Ports"), ("hostPort", "Host Port", "Host Ports")] {
            let text = port(number);
            if text.contains(',') {
                w.write(2, &format!("{several}:\t{text}\n"));
            } else {
                w.write(2, &format!("{one}:\t{}\n", if text.is_empty() { "<none>" } else { &text }));
            }
        }
        let seccomp = &container["securityContext"]["seccompProfile"];
        if seccomp.is_object() {
            w.write(2, &format!("SeccompProfile:\t{}\n", str_of(&seccomp["type"])));
            if str_of(&seccomp["type"]) == "Localhost" {
                w.write(3, &format!("LocalhostProfile:\t{}\n", str_of(&seccomp["localhostProfile"])));
            }
        }
        for (field, title) in [("command", "Command"), ("args", "Args")] {
            let words = list(&container[field]);
            if !words.is_empty() {
                w.write(2, &format!("{title}:\n"));
                for line in words.iter().flat_map(|word| str_of(word).split('\n')) {
                    w.write(3, &format!("{line}\n"));
                }
            }
        }
        resources(w, &container["resources"]);
        for (field, title) in
            [("livenessProbe", "Liveness"), ("readinessProbe", "Readiness"), ("startupProbe", "Startup")]
        {
            if container[field].is_object() {
                w.write(2, &format!("{title}:\t{}\n", probe(&container[field])));
            }
        }
        let env_from = list(&container["envFrom"]);
        if !env_from.is_empty() {
            w.write(2, "Environment Variables from:\n");
            for source in env_from {
                let (from, reference) = if source["configMapRef"].is_object() {
                    ("ConfigMap", &source["configMapRef"])
                } else if source["secretRef"].is_object() {
                    ("Secret", &source["secretRef"])
                } else {
                    ("", &Value::Null)
                };
                let optional = flag(&reference["optional"]);
                let name = str_of(&reference["name"]);
                match text_nonempty(&source["prefix"]) {
                    None => w.write(3, &format!("{name}\t{from}\tOptional: {optional}\n")),
                    Some(prefix) => {
                        w.write(3, &format!("{name}\t{from} with prefix '{prefix}'\tOptional: {optional}\n"))
                    }
                }
            }
        }
        environment(w, container);
        mounts(w, container);
    }
}

fn text_nonempty(value: &Value) -> Option<&str> {
    value.as_str().filter(|s| !s.is_empty())
}

fn resources(w: &mut Lines, resources: &Value) {
    for (field, title) in [("limits", "Limits"), ("requests", "Requests")] {
        let Some(amounts) = resources[field].as_object().filter(|a| !a.is_empty()) else { continue };
        w.write(2, &format!("{title}:\n"));
        for name in sorted_keys(amounts) {
            w.write(3, &format!("{name}:\t{}\n", scalar(&amounts[name])));
        }
    }
}

/// kubectl's one-line probe: `http-get http://:8080/healthz delay=0s timeout=1s period=10s
/// successThreshold=1 failureThreshold=3` (kubectl 1.37's words; 1.32 wrote `#success=1 #failure=3`).
fn probe(probe: &Value) -> String {
    let attributes = format!(
        "delay={}s timeout={}s period={}s successThreshold={} failureThreshold={}",
        integer(&probe["initialDelaySeconds"]),
        integer(&probe["timeoutSeconds"]),
        integer(&probe["periodSeconds"]),
        integer(&probe["successThreshold"]),
        integer(&probe["failureThreshold"]),
    );
    if probe["exec"].is_object() {
        let command: Vec<&str> = list(&probe["exec"]["command"]).iter().map(str_of).collect();
        format!("exec [{}] {attributes}", command.join(" "))
    } else if probe["httpGet"].is_object() {
        let get = &probe["httpGet"];
        let host = str_of(&get["host"]);
        let port = scalar(&get["port"]);
        let authority = if port.is_empty() {
            host.to_string()
        } else if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let scheme = str_of(&get["scheme"]).to_lowercase();
        let scheme = if scheme.is_empty() { String::new() } else { format!("{scheme}:") };
        let authority = if authority.is_empty() { String::new() } else { format!("//{authority}") };
        format!("http-get {scheme}{authority}{} {attributes}", url_path(str_of(&get["path"]), !authority.is_empty()))
    } else if probe["tcpSocket"].is_object() {
        let socket = &probe["tcpSocket"];
        format!("tcp-socket {}:{} {attributes}", str_of(&socket["host"]), scalar(&socket["port"]))
    } else if probe["grpc"].is_object() {
        let grpc = &probe["grpc"];
        format!("grpc <pod>:{} {} {attributes}", integer(&grpc["port"]), str_of(&grpc["service"]))
    } else {
        format!("unknown {attributes}")
    }
}

/// A URL path as Go's `url.URL.String` escapes it (a slash added after a host when missing).
fn url_path(path: &str, has_host: bool) -> String {
    let mut out = String::new();
    if has_host && !path.is_empty() && !path.starts_with('/') {
        out.push('/');
    }
    for byte in path.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~$&+,/:;=@!'()*".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

fn environment(w: &mut Lines, container: &Value) {
    let env = list(&container["env"]);
    w.write(2, &format!("Environment:{}\n", if env.is_empty() { "\t<none>" } else { "" }));
    for variable in env {
        let name = str_of(&variable["name"]);
        let from = &variable["valueFrom"];
        if !from.is_object() {
            for (i, line) in str_of(&variable["value"]).split('\n').enumerate() {
                if i == 0 {
                    w.write(3, &format!("{name}:\t{line}\n"));
                } else {
                    w.write(3, &format!("\t{line}\n"));
                }
            }
            continue;
        }
        if from["fieldRef"].is_object() {
            let field = &from["fieldRef"];
            w.write(3, &format!("{name}:\t ({}:{})\n", str_of(&field["apiVersion"]), str_of(&field["fieldPath"])));
        } else if from["resourceFieldRef"].is_object() {
            let resource = str_of(&from["resourceFieldRef"]["resource"]);
            w.write(3, &format!("{name}:\t{} ({resource})\n", resource_value(container, &from["resourceFieldRef"])));
        } else if from["secretKeyRef"].is_object() {
            let key = &from["secretKeyRef"];
            w.write(
                3,
                &format!(
                    "{name}:\t<set to the key '{}' in secret '{}'>\tOptional: {}\n",
                    str_of(&key["key"]),
                    str_of(&key["name"]),
                    flag(&key["optional"])
                ),
            );
        } else if from["configMapKeyRef"].is_object() {
            let key = &from["configMapKeyRef"];
            w.write(
                3,
                &format!(
                    "{name}:\t<set to the key '{}' of config map '{}'>\tOptional: {}\n",
                    str_of(&key["key"]),
                    str_of(&key["name"]),
                    flag(&key["optional"])
                ),
            );
        }
    }
}

/// What kubectl shows for a `resourceFieldRef`: the container's value in the divisor's units; an
/// unset limit of CPU or memory is the node's allocatable. Resources kubectl does not extract
/// show nothing.
fn resource_value(container: &Value, reference: &Value) -> String {
    let resource = str_of(&reference["resource"]);
    match crate::manifest::container_resource(container, reference) {
        Some(0) if resource == "limits.cpu" || resource == "limits.memory" => "node allocatable".to_string(),
        Some(value) => value.to_string(),
        None => String::new(),
    }
}

fn mounts(w: &mut Lines, container: &Value) {
    let mut mounts: Vec<&Value> = list(&container["volumeMounts"]).iter().collect();
    let none = if mounts.is_empty() { "\t<none>" } else { "" };
    w.write(2, &format!("Mounts:{none}\n"));
    mounts.sort_by(|a, b| str_of(&a["mountPath"]).cmp(str_of(&b["mountPath"])));
    for mount in mounts {
        let mut flags = vec![if flag(&mount["readOnly"]) { "ro".to_string() } else { "rw".to_string() }];
        if let Some(sub_path) = text_nonempty(&mount["subPath"]) {
            flags.push(format!("path={}", super::jsonpath::go_quote(sub_path)));
        }
        w.write(3, &format!("{} from {} ({})\n", str_of(&mount["mountPath"]), str_of(&mount["name"]), flags.join(",")));
    }
    let mut devices: Vec<&Value> = list(&container["volumeDevices"]).iter().collect();
    if !devices.is_empty() {
        w.write(2, "Devices:\n");
        devices.sort_by(|a, b| str_of(&a["devicePath"]).cmp(str_of(&b["devicePath"])));
        for device in devices {
            w.write(3, &format!("{} from {}\n", str_of(&device["devicePath"]), str_of(&device["name"])));
        }
    }
}

fn volumes(w: &mut Lines, volumes: &[Value]) {
    if volumes.is_empty() {
        w.write(0, "  Volumes:\t<none>\n");
        return;
    }
    w.write(0, "  Volumes:\n");
    for volume in volumes {
        w.write(1, &format!(" {}:\n", str_of(&volume["name"])));
        let source = |field: &str| volume[field].is_object().then_some(&volume[field]);
        if let Some(host) = source("hostPath") {
            let kind = host["type"].as_str().unwrap_or("<none>");
            w.write(
                2,
                &format!(
                    "Type:\tHostPath (bare host directory volume)\n    Path:\t{}\n    HostPathType:\t{kind}\n",
                    str_of(&host["path"])
                ),
            );
        } else if let Some(empty) = source("emptyDir") {
            let limit = empty["sizeLimit"].as_str().filter(|l| !is_zero_quantity(l)).unwrap_or("<unset>");
            w.write(
                2,
                &format!(
                    "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t{}\n    SizeLimit:\t{limit}\n",
                    str_of(&empty["medium"])
                ),
            );
        } else if let Some(secret) = source("secret") {
            w.write(
                2,
                &format!(
                    "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t{}\n    Optional:\t{}\n",
                    str_of(&secret["secretName"]),
                    flag(&secret["optional"])
                ),
            );
        } else if let Some(map) = source("configMap") {
            w.write(
                2,
                &format!(
                    "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t{}\n    Optional:\t{}\n",
                    str_of(&map["name"]),
                    flag(&map["optional"])
                ),
            );
        } else if let Some(claim) = source("persistentVolumeClaim") {
            w.write(
                2,
                &format!(
                    "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    \
                     ClaimName:\t{}\n    ReadOnly:\t{}\n",
                    str_of(&claim["claimName"]),
                    flag(&claim["readOnly"])
                ),
            );
        } else if let Some(nfs) = source("nfs") {
            w.write(
                2,
                &format!(
                    "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t{}\n    Path:\t{}\n    ReadOnly:\t{}\n",
                    str_of(&nfs["server"]),
                    str_of(&nfs["path"]),
                    flag(&nfs["readOnly"])
                ),
            );
        } else if let Some(downward) = source("downwardAPI") {
            w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n");
            for item in list(&downward["items"]) {
                if item["fieldRef"].is_object() {
                    w.write(3, &format!("{} -> {}\n", str_of(&item["fieldRef"]["fieldPath"]), str_of(&item["path"])));
                }
                if item["resourceFieldRef"].is_object() {
                    w.write(
                        3,
                        &format!("{} -> {}\n", str_of(&item["resourceFieldRef"]["resource"]), str_of(&item["path"])),
                    );
                }
            }
        } else if let Some(projected) = source("projected") {
            w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n");
            // kubectl 1.37 says `Optional:` (false when unset) where 1.32 printed the Go pointer.
            for part in list(&projected["sources"]) {
                if part["secret"].is_object() {
                    let secret = &part["secret"];
                    w.write(
                        2,
                        &format!(
                            "SecretName:\t{}\n    Optional:\t{}\n",
                            str_of(&secret["name"]),
                            secret["optional"].as_bool().unwrap_or(false)
                        ),
                    );
                } else if part["downwardAPI"].is_object() {
                    w.write(2, "DownwardAPI:\ttrue\n");
                } else if part["configMap"].is_object() {
                    let map = &part["configMap"];
                    w.write(
                        2,
                        &format!(
                            "ConfigMapName:\t{}\n    Optional:\t{}\n",
                            str_of(&map["name"]),
                            map["optional"].as_bool().unwrap_or(false)
                        ),
                    );
                } else if part["serviceAccountToken"].is_object() {
                    let seconds = integer(&part["serviceAccountToken"]["expirationSeconds"]);
                    w.write(2, &format!("TokenExpirationSeconds:\t{seconds}\n"));
                }
            }
        } else if let Some(csi) = source("csi") {
            w.write(
                2,
                &format!(
                    "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n    Driver:\t{}\n    FSType:\t{}\n    \
                     ReadOnly:\t{}\n",
                    str_of(&csi["driver"]),
                    str_of(&csi["fsType"]),
                    flag(&csi["readOnly"])
                ),
            );
            // kubectl's own layout for these: each line at level 2, the later ones after a tab.
            let attributes = csi["volumeAttributes"].as_object().cloned().unwrap_or_default();
            w.write(2, "VolumeAttributes:\t");
            if attributes.is_empty() {
                w.write(0, "<none>\n");
            }
            for (i, key) in sorted_keys(&attributes).into_iter().enumerate() {
                if i != 0 {
                    w.write(2, "");
                    w.write(2, "\t");
                }
                let line = format!("{key}={}", str_of(&attributes[key]));
                w.write(2, &format!("{}\n", shorten(&line, LONGEST_ANNOTATION)));
            }
        } else {
            w.write(1, "<unknown>\n");
        }
    }
}

/// A `*bool` as Go's `%v` prints it: `<nil>` when unset.
fn is_zero_quantity(quantity: &str) -> bool {
    quantity
        .trim_start_matches(['+', '-'])
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .all(|c| c == '0' || c == '.')
}

fn spread_constraints(w: &mut Lines, constraints: &[Value]) {
    if constraints.is_empty() {
        return;
    }
    let mut constraints: Vec<&Value> = constraints.iter().collect();
    constraints.sort_by(|a, b| str_of(&a["topologyKey"]).cmp(str_of(&b["topologyKey"])));
    w.write(0, "  Topology Spread Constraints:\t");
    for (i, constraint) in constraints.into_iter().enumerate() {
        if i != 0 {
            w.write(0, "  \t");
        }
        w.write(
            0,
            &format!(
                "{}:{} when max skew {} is exceeded",
                str_of(&constraint["topologyKey"]),
                str_of(&constraint["whenUnsatisfiable"]),
                integer(&constraint["maxSkew"])
            ),
        );
        if constraint["labelSelector"].is_object() {
            w.write(0, &format!(" for selector {}", label_selector(&constraint["labelSelector"])));
        }
        w.write(0, "\n");
    }
}

/// `metav1.FormatLabelSelector`: the selector's text, `<none>` when it selects everything.
fn label_selector(selector: &Value) -> String {
    let text = crate::manifest::selector_text(selector);
    if text.is_empty() { "<none>".to_string() } else { text }
}

fn tolerations(w: &mut Lines, title: &str, tolerations: &[Value]) {
    w.write(0, &format!("{title}:\t"));
    if tolerations.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    let mut tolerations: Vec<&Value> = tolerations.iter().collect();
    // Go's sort.Slice is not stable; kubectl's order among equal keys is its own.
    tolerations.sort_by(|a, b| str_of(&a["key"]).cmp(str_of(&b["key"])));
    for (i, toleration) in tolerations.into_iter().enumerate() {
        if i != 0 {
            w.write(0, "\t");
        }
        let key = str_of(&toleration["key"]);
        let value = str_of(&toleration["value"]);
        let effect = str_of(&toleration["effect"]);
        let mut line = key.to_string();
        if !value.is_empty() {
            line.push_str(&format!("={value}"));
        }
        if !effect.is_empty() {
            line.push_str(&format!(":{effect}"));
        }
        if str_of(&toleration["operator"]) == "Exists" && value.is_empty() {
            line.push_str(if key.is_empty() && effect.is_empty() { "op=Exists" } else { " op=Exists" });
        }
        if let Some(seconds) = toleration["tolerationSeconds"].as_i64() {
            line.push_str(&format!(" for {seconds}s"));
        }
        w.write(0, &format!("{line}\n"));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_plain_template_as_kubectl_describes_it() {
        let template = json!({
            "metadata": {"labels": {"app": "web", "pod-template-hash": "h1"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.26"}]}
        });
        assert_eq!(
            pod_template(&template),
            "Pod Template:\n  Labels:\tapp=web\n\tpod-template-hash=h1\n  Containers:\n   app:\n    Image:\tnginx:1.26\n    \
             Port:\t<none>\n    Host Port:\t<none>\n    Environment:\t<none>\n    Mounts:\t<none>\n  Volumes:\t<none>\n  \
             Node-Selectors:\t<none>\n  Tolerations:\t<none>\n"
        );
    }

    #[test]
    fn probes_ports_and_mounts() {
        let probe = json!({"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "timeoutSeconds": 1,
            "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3});
        assert_eq!(
            super::probe(&probe),
            "http-get http://:8080/healthz delay=0s timeout=1s period=10s successThreshold=1 failureThreshold=3"
        );
        let exec = json!({"exec": {"command": ["cat", "/tmp/ok"]}});
        assert_eq!(
            super::probe(&exec),
            "exec [cat /tmp/ok] delay=0s timeout=0s period=0s successThreshold=0 failureThreshold=0"
        );
        let mut w = Lines::default();
        mounts(
            &mut w,
            &json!({"volumeMounts": [{"name": "b", "mountPath": "/z", "readOnly": true},
            {"name": "a", "mountPath": "/a", "subPath": "x"}]}),
        );
        assert_eq!(w.0, "    Mounts:\n      /a from a (rw,path=\"x\")\n      /z from b (ro)\n");
    }

    #[test]
    fn resource_fields_in_the_divisors_units() {
        let container =
            json!({"resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "250m"}}});
        let field = |resource: &str, divisor: Option<&str>| {
            resource_value(&container, &json!({"resource": resource, "divisor": divisor}))
        };
        assert_eq!(field("limits.cpu", None), "1");
        assert_eq!(field("limits.cpu", Some("1m")), "500");
        assert_eq!(field("limits.memory", None), "134217728");
        assert_eq!(field("limits.memory", Some("1Mi")), "128");
        assert_eq!(field("requests.memory", None), "0");
        let bare = json!({});
        assert_eq!(resource_value(&bare, &json!({"resource": "limits.memory"})), "node allocatable");
    }

    #[test]
    fn long_annotations_are_cut_and_tolerations_sorted() {
        let mut w = Lines::default();
        annotations(&mut w, "  Annotations", &json!({"k": "v".repeat(200), "a": "1"}));
        assert!(w.0.starts_with("  Annotations:\ta: 1\n\tk:\n\t  vvv"), "{}", w.0);
        assert!(w.0.ends_with(&format!("{}...\n", "v".repeat(138))));
        let mut w = Lines::default();
        tolerations(
            &mut w,
            "  Tolerations",
            &[
                json!({"operator": "Exists"}),
                json!({"key": "b", "effect": "NoSchedule",
            "operator": "Exists", "tolerationSeconds": 5}),
            ],
        );
        assert_eq!(w.0, "  Tolerations:\top=Exists\n\tb:NoSchedule op=Exists for 5s\n");
    }
}
