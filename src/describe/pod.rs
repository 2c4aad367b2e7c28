//! kubectl's description of a pod (`describePod`) and of a pod template (`DescribePodTemplate`,
//! which the workload describers and `rollout history --revision=N` print): labels, annotations,
//! containers with their states, volumes, node selectors and tolerations.

use std::fmt::Write as _;
use std::time::SystemTime;

use serde_json::Value;

use super::{
    Writer, annotations, controller, flag, integer, label_selector, labels, list, rfc1123z, scalar, shorten, since,
    sorted_keys, str_of, text_nonempty,
};

/// The description of `template` (a `PodTemplateSpec`) with raw tabs, ending with a newline, as
/// `rollout history --revision` and `rollout undo --dry-run` print it.
pub fn pod_template(template: &Value) -> String {
    let mut w = Writer::raw();
    describe_template(&mut w, template);
    w.finish()
}

/// `DescribePodTemplate`.
pub(super) fn describe_template(w: &mut Writer, template: &Value) {
    w.write(0, "Pod Template:\n");
    let metadata = &template["metadata"];
    let spec = &template["spec"];
    labels(w, "  Labels", &metadata["labels"]);
    if metadata["annotations"].as_object().is_some_and(|a| !a.is_empty()) {
        annotations(w, "  Annotations", &metadata["annotations"]);
    }
    if let Some(account) = text_nonempty(&spec["serviceAccountName"]) {
        w.write(1, &format!("Service Account:\t{account}\n"));
    }
    let init = list(&spec["initContainers"]);
    if !init.is_empty() {
        containers(w, "Init Containers", init, None, "  ");
    }
    containers(w, "Containers", list(&spec["containers"]), None, "  ");
    volumes(w, list(&spec["volumes"]), "  ");
    spread_constraints(w, list(&spec["topologySpreadConstraints"]), "  ");
    if let Some(class) = text_nonempty(&spec["priorityClassName"]) {
        w.write(1, &format!("Priority Class Name:\t{class}\n"));
    }
    labels(w, "  Node-Selectors", &spec["nodeSelector"]);
    tolerations(w, "  Tolerations", list(&spec["tolerations"]));
    scheduling_group(w, spec, "  ");
}

fn scheduling_group(w: &mut Writer, spec: &Value, space: &str) {
    if spec["schedulingGroup"].is_object() {
        w.write(0, &format!("{space}SchedulingGroup:\n"));
        w.write(1, &format!("PodGroupName:\t{}\n", str_of(&spec["schedulingGroup"]["podGroupName"])));
    }
}

/// `describePod`.
pub(super) fn describe_pod(w: &mut Writer, pod: &Value, now: SystemTime) {
    let metadata = &pod["metadata"];
    let spec = &pod["spec"];
    let status = &pod["status"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    if let Some(priority) = spec["priority"].as_i64() {
        w.write(0, &format!("Priority:\t{priority}\n"));
    }
    if let Some(class) = text_nonempty(&spec["priorityClassName"]) {
        w.write(0, &format!("Priority Class Name:\t{class}\n"));
    }
    if let Some(class) = text_nonempty(&spec["runtimeClassName"]) {
        w.write(0, &format!("Runtime Class Name:\t{class}\n"));
    }
    if let Some(account) = text_nonempty(&spec["serviceAccountName"]) {
        w.write(0, &format!("Service Account:\t{account}\n"));
    }
    match text_nonempty(&spec["nodeName"]) {
        None => w.write(0, "Node:\t<none>\n"),
        Some(node) => w.write(0, &format!("Node:\t{node}/{}\n", str_of(&status["hostIP"]))),
    }
    if let Some(start) = status["startTime"].as_str() {
        w.write(0, &format!("Start Time:\t{}\n", rfc1123z(start)));
    }
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
    let phase = str_of(&status["phase"]);
    match metadata["deletionTimestamp"].as_str() {
        Some(deleted) if phase != "Failed" && phase != "Succeeded" => {
            w.write(0, &format!("Status:\tTerminating (lasts {})\n", since(deleted, now)));
            w.write(0, &format!("Termination Grace Period:\t{}s\n", integer(&metadata["deletionGracePeriodSeconds"])));
        }
        _ => w.write(0, &format!("Status:\t{phase}\n")),
    }
    if let Some(reason) = text_nonempty(&status["reason"]) {
        w.write(0, &format!("Reason:\t{reason}\n"));
    }
    if let Some(message) = text_nonempty(&status["message"]) {
        w.write(0, &format!("Message:\t{message}\n"));
    }
    let seccomp = &spec["securityContext"]["seccompProfile"];
    if seccomp.is_object() {
        w.write(0, &format!("SeccompProfile:\t{}\n", str_of(&seccomp["type"])));
        if str_of(&seccomp["type"]) == "Localhost" {
            w.write(0, &format!("LocalhostProfile:\t{}\n", str_of(&seccomp["localhostProfile"])));
        }
    }
    w.write(0, &format!("IP:\t{}\n", str_of(&status["podIP"])));
    let ips = list(&status["podIPs"]);
    if ips.is_empty() {
        w.write(0, "IPs:\t<none>\n");
    } else {
        w.write(0, "IPs:\n");
        for ip in ips {
            w.write(1, &format!("IP:\t{}\n", str_of(&ip["ip"])));
        }
    }
    if let Some(owner) = controller(pod) {
        w.write(0, &format!("Controlled By:\t{owner}\n"));
    }
    if let Some(nominated) = text_nonempty(&status["nominatedNodeName"]) {
        w.write(0, &format!("NominatedNodeName:\t{nominated}\n"));
    }
    if spec["resources"].is_object() {
        w.write(0, "Resources:\n");
        resources(w, &spec["resources"], 1);
    }
    let init = list(&spec["initContainers"]);
    if !init.is_empty() {
        containers(w, "Init Containers", init, Some((list(&status["initContainerStatuses"]), pod)), "");
    }
    containers(w, "Containers", list(&spec["containers"]), Some((list(&status["containerStatuses"]), pod)), "");
    let ephemeral = list(&spec["ephemeralContainers"]);
    if !ephemeral.is_empty() {
        let statuses = list(&status["ephemeralContainerStatuses"]);
        containers(w, "Ephemeral Containers", ephemeral, Some((statuses, pod)), "");
    }
    let conditions = list(&status["conditions"]);
    let gates = list(&spec["readinessGates"]);
    if !gates.is_empty() {
        w.write(0, "Readiness Gates:\n  Type\tStatus\n");
        for gate in gates {
            let kind = str_of(&gate["conditionType"]);
            let found = conditions.iter().find(|c| str_of(&c["type"]) == kind);
            let state = found.map_or("<none>", |c| str_of(&c["status"]));
            w.write(1, &format!("{kind} \t{state} \n"));
        }
    }
    if !conditions.is_empty() {
        w.write(0, "Conditions:\n  Type\tStatus\n");
        for condition in conditions {
            w.write(1, &format!("{} \t{} \n", str_of(&condition["type"]), str_of(&condition["status"])));
        }
    }
    volumes(w, list(&spec["volumes"]), "");
    w.write(0, &format!("QoS Class:\t{}\n", text_nonempty(&status["qosClass"]).unwrap_or("BestEffort")));
    labels(w, "Node-Selectors", &spec["nodeSelector"]);
    tolerations(w, "Tolerations", list(&spec["tolerations"]));
    spread_constraints(w, list(&spec["topologySpreadConstraints"]), "");
    scheduling_group(w, spec, "");
}

/// `describeContainers`: with `statuses` (and the pod, for field references) for a pod's
/// containers, without for a template's.
fn containers(w: &mut Writer, label: &str, containers: &[Value], statuses: Option<(&[Value], &Value)>, space: &str) {
    let none = if containers.is_empty() { " <none>" } else { "" };
    w.write(0, &format!("{space}{label}:{none}\n"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for container in containers {
        let name = str_of(&container["name"]);
        let status = statuses.and_then(|(statuses, _)| statuses.iter().find(|s| str_of(&s["name"]) == name));
        w.write(1, &format!("{name_indent}{name}:\n"));
        if let Some(status) = status {
            w.write(2, &format!("Container ID:\t{}\n", str_of(&status["containerID"])));
        }
        w.write(2, &format!("Image:\t{}\n", str_of(&container["image"])));
        if let Some(status) = status {
            w.write(2, &format!("Image ID:\t{}\n", str_of(&status["imageID"])));
        }
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
        if let Some(status) = status {
            state(w, "State", &status["state"]);
            if status["lastState"]["terminated"].is_object() {
                state(w, "Last State", &status["lastState"]);
            }
            w.write(2, &format!("Ready:\t{}\n", if flag(&status["ready"]) { "True" } else { "False" }));
            w.write(2, &format!("Restart Count:\t{}\n", integer(&status["restartCount"])));
        }
        resources(w, &container["resources"], 2);
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
        environment(w, container, statuses.map(|(_, pod)| pod));
        mounts(w, container);
    }
}

/// `describeStatus`: a container state (`Running`, `Waiting`, `Terminated`) and its details.
fn state(w: &mut Writer, title: &str, state: &Value) {
    if state["running"].is_object() {
        w.write(2, &format!("{title}:\tRunning\n"));
        w.write(3, &format!("Started:\t{}\n", rfc1123z(str_of(&state["running"]["startedAt"]))));
    } else if state["waiting"].is_object() {
        w.write(2, &format!("{title}:\tWaiting\n"));
        if let Some(reason) = text_nonempty(&state["waiting"]["reason"]) {
            w.write(3, &format!("Reason:\t{reason}\n"));
        }
    } else if state["terminated"].is_object() {
        let terminated = &state["terminated"];
        w.write(2, &format!("{title}:\tTerminated\n"));
        if let Some(reason) = text_nonempty(&terminated["reason"]) {
            w.write(3, &format!("Reason:\t{reason}\n"));
        }
        if let Some(message) = text_nonempty(&terminated["message"]) {
            w.write(3, &format!("Message:\t{message}\n"));
        }
        w.write(3, &format!("Exit Code:\t{}\n", integer(&terminated["exitCode"])));
        if integer(&terminated["signal"]) > 0 {
            w.write(3, &format!("Signal:\t{}\n", integer(&terminated["signal"])));
        }
        w.write(3, &format!("Started:\t{}\n", rfc1123z(str_of(&terminated["startedAt"]))));
        w.write(3, &format!("Finished:\t{}\n", rfc1123z(str_of(&terminated["finishedAt"]))));
    } else {
        w.write(2, &format!("{title}:\tWaiting\n"));
    }
}

/// `describeResources`: limits, then requests, each sorted, at `level`.
pub(super) fn resources(w: &mut Writer, resources: &Value, level: usize) {
    for (field, title) in [("limits", "Limits"), ("requests", "Requests")] {
        let Some(amounts) = resources[field].as_object().filter(|a| !a.is_empty()) else { continue };
        w.write(level, &format!("{title}:\n"));
        for name in sorted_keys(amounts) {
            w.write(level + 1, &format!("{name}:\t{}\n", quantity(&amounts[name])));
        }
    }
}

/// A quantity as apimachinery's `Quantity.String` writes it.
pub(super) fn quantity(value: &Value) -> String {
    let text = scalar(value);
    crate::gocompat::quantity::canonical(&text).unwrap_or(text)
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

fn environment(w: &mut Writer, container: &Value, pod: Option<&Value>) {
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
            let value = pod.map(|pod| field_value(pod, str_of(&field["fieldPath"]))).unwrap_or_default();
            w.write(
                3,
                &format!("{name}:\t{value} ({}:{})\n", str_of(&field["apiVersion"]), str_of(&field["fieldPath"])),
            );
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

/// kubectl's `EnvValueRetriever`: the value a `fieldRef` names, which kubectl finds only for
/// the fields its scheme converts without the API server's own conversions (the name and the
/// namespace); empty for the others.
fn field_value(pod: &Value, path: &str) -> String {
    match path {
        "metadata.name" | "metadata.namespace" => str_of(&pod["metadata"][&path[9..]]).to_string(),
        _ => String::new(),
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

fn mounts(w: &mut Writer, container: &Value) {
    let mut mounts: Vec<&Value> = list(&container["volumeMounts"]).iter().collect();
    let none = if mounts.is_empty() { "\t<none>" } else { "" };
    w.write(2, &format!("Mounts:{none}\n"));
    mounts.sort_by(|a, b| str_of(&a["mountPath"]).cmp(str_of(&b["mountPath"])));
    for mount in mounts {
        let mut flags = vec![if flag(&mount["readOnly"]) { "ro".to_string() } else { "rw".to_string() }];
        if let Some(sub_path) = text_nonempty(&mount["subPath"]) {
            flags.push(format!("path={}", crate::output::jsonpath::go_quote(sub_path)));
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

fn volumes(w: &mut Writer, volumes: &[Value], space: &str) {
    if volumes.is_empty() {
        w.write(0, &format!("{space}Volumes:\t<none>\n"));
        return;
    }
    w.write(0, &format!("{space}Volumes:\n"));
    let name_indent = if space.is_empty() { "" } else { " " };
    for volume in volumes {
        w.write(1, &format!("{name_indent}{}:\n", str_of(&volume["name"])));
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
                w.write(2, &format!("{}\n", shorten(&line, super::LONGEST_ANNOTATION)));
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

fn spread_constraints(w: &mut Writer, constraints: &[Value], space: &str) {
    if constraints.is_empty() {
        return;
    }
    let mut constraints: Vec<&Value> = constraints.iter().collect();
    constraints.sort_by(|a, b| str_of(&a["topologyKey"]).cmp(str_of(&b["topologyKey"])));
    w.write(0, &format!("{space}Topology Spread Constraints:\t"));
    for (i, constraint) in constraints.into_iter().enumerate() {
        if i != 0 {
            w.write(0, &format!("{space}\t"));
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

pub(super) fn tolerations(w: &mut Writer, title: &str, tolerations: &[Value]) {
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
        let mut w = Writer::raw();
        mounts(
            &mut w,
            &json!({"volumeMounts": [{"name": "b", "mountPath": "/z", "readOnly": true},
            {"name": "a", "mountPath": "/a", "subPath": "x"}]}),
        );
        assert_eq!(w.finish(), "    Mounts:\n      /a from a (rw,path=\"x\")\n      /z from b (ro)\n");
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
        let mut w = Writer::raw();
        annotations(&mut w, "  Annotations", &json!({"k": "v".repeat(200), "a": "1"}));
        let text = w.finish();
        assert!(text.starts_with("  Annotations:\ta: 1\n\tk:\n\t  vvv"), "{text}");
        assert!(text.ends_with(&format!("{}...\n", "v".repeat(138))));
        let mut w = Writer::raw();
        tolerations(
            &mut w,
            "  Tolerations",
            &[
                json!({"operator": "Exists"}),
                json!({"key": "b", "effect": "NoSchedule",
            "operator": "Exists", "tolerationSeconds": 5}),
            ],
        );
        assert_eq!(w.finish(), "  Tolerations:\top=Exists\n\tb:NoSchedule op=Exists for 5s\n");
    }
}
