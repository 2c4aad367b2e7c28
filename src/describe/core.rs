//! kubectl's describers of core kinds: Service (with its EndpointSlices), ConfigMap, Secret,
//! Namespace (with its quotas and limit ranges), ServiceAccount.

use base64::Engine as _;
use serde_json::Value;

use super::pod::quantity;
use super::{
    Related, Writer, conditions_table, head, integer, list, rfc1123z, scalar, sorted_keys, str_of, text_nonempty,
};

/// `describeService`.
pub(super) fn service(w: &mut Writer, service: &Value, endpoint_slices: &[Value]) {
    head(w, service);
    let spec = &service["spec"];
    let selector = spec["selector"].as_object().cloned().unwrap_or_default();
    let selector: Vec<String> =
        sorted_keys(&selector).into_iter().map(|k| format!("{k}={}", str_of(&selector[k]))).collect();
    w.write(0, &format!("Selector:\t{}\n", selector.join(",")));
    w.write(0, &format!("Type:\t{}\n", str_of(&spec["type"])));
    if let Some(policy) = spec["ipFamilyPolicy"].as_str() {
        w.write(0, &format!("IP Family Policy:\t{policy}\n"));
    }
    let joined = |field: &str| {
        let items: Vec<&str> = list(&spec[field]).iter().map(str_of).collect();
        if items.is_empty() { "<none>".to_string() } else { items.join(",") }
    };
    w.write(0, &format!("IP Families:\t{}\n", joined("ipFamilies")));
    w.write(0, &format!("IP:\t{}\n", str_of(&spec["clusterIP"])));
    w.write(0, &format!("IPs:\t{}\n", joined("clusterIPs")));
    if !list(&spec["externalIPs"]).is_empty() {
        w.write(0, &format!("External IPs:\t{}\n", joined("externalIPs")));
    }
    if let Some(ip) = text_nonempty(&spec["loadBalancerIP"]) {
        w.write(0, &format!("Desired LoadBalancer IP:\t{ip}\n"));
    }
    if let Some(name) = text_nonempty(&spec["externalName"]) {
        w.write(0, &format!("External Name:\t{name}\n"));
    }
    let ingress = list(&service["status"]["loadBalancer"]["ingress"]);
    if !ingress.is_empty() {
        let texts: Vec<String> = ingress
            .iter()
            .map(|point| match text_nonempty(&point["ip"]) {
                Some(ip) => match point["ipMode"].as_str() {
                    Some(mode) => format!("{ip} ({mode})"),
                    None => ip.to_string(),
                },
                None => str_of(&point["hostname"]).to_string(),
            })
            .collect();
        w.write(0, &format!("LoadBalancer Ingress:\t{}\n", texts.join(", ")));
    }
    for port in list(&spec["ports"]) {
        let name = text_nonempty(&port["name"]).unwrap_or("<unset>");
        let protocol = str_of(&port["protocol"]);
        w.write(0, &format!("Port:\t{name}\t{}/{protocol}\n", integer(&port["port"])));
        w.write(0, &format!("TargetPort:\t{}/{protocol}\n", scalar(&port["targetPort"])));
        if let Some(app) = port["appProtocol"].as_str() {
            w.write(0, &format!("AppProtocol:\t{app}\n"));
        }
        if integer(&port["nodePort"]) != 0 {
            w.write(0, &format!("NodePort:\t{name}\t{}/{protocol}\n", integer(&port["nodePort"])));
        }
        w.write(0, &format!("Endpoints:\t{}\n", endpoints(endpoint_slices, str_of(&port["name"]))));
    }
    w.write(0, &format!("Session Affinity:\t{}\n", str_of(&spec["sessionAffinity"])));
    if let Some(policy) = text_nonempty(&spec["externalTrafficPolicy"]) {
        w.write(0, &format!("External Traffic Policy:\t{policy}\n"));
    }
    if let Some(policy) = spec["internalTrafficPolicy"].as_str() {
        w.write(0, &format!("Internal Traffic Policy:\t{policy}\n"));
    }
    if integer(&spec["healthCheckNodePort"]) != 0 {
        w.write(0, &format!("HealthCheck NodePort:\t{}\n", integer(&spec["healthCheckNodePort"])));
    }
    if !list(&spec["loadBalancerSourceRanges"]).is_empty() {
        w.write(0, &format!("LoadBalancer Source Ranges:\t{}\n", joined("loadBalancerSourceRanges")));
    }
    if let Some(distribution) = spec["trafficDistribution"].as_str() {
        w.write(0, &format!("Traffic Distribution:\t{distribution}\n"));
    }
}

/// `formatEndpointSlices` for the port named `port`: the first three ready addresses with the
/// port, and how many more there are.
fn endpoints(slices: &[Value], port: &str) -> String {
    if slices.is_empty() {
        return "<none>".to_string();
    }
    const SHOWN: usize = 3;
    let mut shown: Vec<String> = Vec::new();
    let (mut more, mut count) = (false, 0);
    let ready = |endpoint: &Value| endpoint["conditions"]["ready"].as_bool() != Some(false);
    for slice in slices {
        let endpoints = list(&slice["endpoints"]);
        let ports = list(&slice["ports"]);
        let mut visit = |address: String, endpoint: &Value| {
            if shown.len() == SHOWN {
                more = true;
            }
            if !ready(endpoint) {
                return;
            }
            if !more {
                shown.push(address);
            }
            count += 1;
        };
        if ports.is_empty() {
            for endpoint in endpoints {
                let address = list(&endpoint["addresses"]).first().map(str_of).unwrap_or_default().to_string();
                visit(address, endpoint);
            }
            continue;
        }
        for slice_port in ports.iter().filter(|p| str_of(&p["name"]) == port) {
            for endpoint in endpoints {
                let address = list(&endpoint["addresses"]).first().map(str_of).unwrap_or_default();
                let number = integer(&slice_port["port"]);
                let host_port =
                    if address.contains(':') { format!("[{address}]:{number}") } else { format!("{address}:{number}") };
                visit(host_port, endpoint);
            }
        }
    }
    let text = shown.join(",");
    if more { format!("{text} + {} more...", count - SHOWN) } else { text }
}

/// The ConfigMap describer: each value under its key, then the sizes of the binary ones.
pub(super) fn config_map(w: &mut Writer, map: &Value) {
    head(w, map);
    w.write(0, "\nData\n====\n");
    if let Some(data) = map["data"].as_object() {
        for key in sorted_keys(data) {
            w.write(0, &format!("{key}:\n----\n"));
            w.write(0, &format!("{}\n", str_of(&data[key])));
            w.write(0, "\n");
        }
    }
    w.write(0, "\nBinaryData\n====\n");
    if let Some(data) = map["binaryData"].as_object() {
        for key in sorted_keys(data) {
            w.write(0, &format!("{key}: {} bytes\n", decoded_len(&data[key])));
        }
    }
    w.write(0, "\n");
}

/// The length of a base64 value once decoded.
fn decoded_len(value: &Value) -> usize {
    base64::engine::general_purpose::STANDARD.decode(str_of(value)).map_or(0, |bytes| bytes.len())
}

/// `describeSecret`: the sizes of the values (a service account token's value itself).
pub(super) fn secret(w: &mut Writer, secret: &Value) {
    head(w, secret);
    let kind = str_of(&secret["type"]);
    w.write(0, &format!("\nType:\t{kind}\n"));
    w.write(0, "\nData\n====\n");
    if let Some(data) = secret["data"].as_object() {
        for key in sorted_keys(data) {
            if key == "token" && kind == "kubernetes.io/service-account-token" {
                let token = base64::engine::general_purpose::STANDARD.decode(str_of(&data[key])).unwrap_or_default();
                w.write(0, &format!("{key}:\t{}\n", String::from_utf8_lossy(&token)));
            } else {
                w.write(0, &format!("{key}:\t{} bytes\n", decoded_len(&data[key])));
            }
        }
    }
}

/// `describeNamespace`: its status, conditions, resource quotas and limit ranges.
pub(super) fn namespace(w: &mut Writer, namespace: &Value, related: &Related) {
    let metadata = &namespace["metadata"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    super::labels(w, "Labels", &metadata["labels"]);
    super::annotations(w, "Annotations", &metadata["annotations"]);
    w.write(0, &format!("Status:\t{}\n", str_of(&namespace["status"]["phase"])));
    let conditions = list(&namespace["status"]["conditions"]);
    if !conditions.is_empty() {
        w.write(0, "Conditions:\n");
        w.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n");
        w.write(1, "----\t------\t------------------\t------\t-------\n");
        for condition in conditions {
            w.write(
                1,
                &format!(
                    "{}\t{}\t{}\t{}\t{}\n",
                    str_of(&condition["type"]),
                    str_of(&condition["status"]),
                    rfc1123z(str_of(&condition["lastTransitionTime"])),
                    str_of(&condition["reason"]),
                    str_of(&condition["message"])
                ),
            );
        }
    }
    if let Some(quotas) = &related.quotas {
        w.write(0, "\n");
        resource_quotas(w, quotas);
    }
    if let Some(ranges) = &related.limit_ranges {
        w.write(0, "\n");
        limit_ranges(w, ranges);
    }
}

/// `DescribeResourceQuotas`: each quota's used and hard amounts, by name.
fn resource_quotas(w: &mut Writer, quotas: &[Value]) {
    if quotas.is_empty() {
        w.write(0, "No resource quota.\n");
        return;
    }
    let mut quotas: Vec<&Value> = quotas.iter().collect();
    quotas.sort_by(|a, b| str_of(&a["metadata"]["name"]).cmp(str_of(&b["metadata"]["name"])));
    w.write(0, "Resource Quotas\n");
    for quota in quotas {
        w.write(1, &format!("Name:\t{}\n", str_of(&quota["metadata"]["name"])));
        let mut scopes: Vec<&str> = list(&quota["spec"]["scopes"]).iter().map(str_of).collect();
        if !scopes.is_empty() {
            scopes.sort();
            w.write(1, &format!("Scopes:\t{}\n", scopes.join(", ")));
            for scope in &scopes {
                if let Some(help) = scope_help(scope) {
                    w.write(1, &format!("* {help}\n"));
                }
            }
        }
        w.write(1, "Resource\tUsed\tHard\n");
        w.write(1, "--------\t---\t---\n");
        let hard = quota["status"]["hard"].as_object().cloned().unwrap_or_default();
        let used = &quota["status"]["used"];
        for resource in sorted_keys(&hard) {
            let used =
                if used[resource.as_str()].is_null() { "0".to_string() } else { quantity(&used[resource.as_str()]) };
            w.write(1, &format!("{resource}\t{used}\t{}\n", quantity(&hard[resource])));
        }
    }
}

fn scope_help(scope: &str) -> Option<&'static str> {
    Some(match scope {
        "Terminating" => {
            "Matches all pods that have an active deadline. These pods have a limited lifespan on a node before being actively terminated by the system."
        }
        "NotTerminating" => {
            "Matches all pods that do not have an active deadline. These pods usually include long running pods whose container command is not expected to terminate."
        }
        "BestEffort" => {
            "Matches all pods that do not have resource requirements set. These pods have a best effort quality of service."
        }
        "NotBestEffort" => {
            "Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service."
        }
        _ => return None,
    })
}

/// `DescribeLimitRanges`: one line per type and resource of each limit range.
fn limit_ranges(w: &mut Writer, ranges: &[Value]) {
    if ranges.is_empty() {
        w.write(0, "No LimitRange resource.\n");
        return;
    }
    w.write(0, "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n");
    w.write(0, " ----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n");
    for range in ranges {
        for item in list(&range["spec"]["limits"]) {
            limit_range_item(w, item, " ");
        }
    }
}

/// One item of a LimitRange (`describeLimitRangeSpec`): every resource any of its maps names
/// (kubectl's order is Go's map order, random; kubeupd sorts).
fn limit_range_item(w: &mut Writer, item: &Value, prefix: &str) {
    let fields = ["min", "max", "defaultRequest", "default", "maxLimitRequestRatio"];
    let mut names: Vec<&String> = fields.iter().filter_map(|f| item[*f].as_object()).flat_map(|m| m.keys()).collect();
    names.sort();
    names.dedup();
    let kind = str_of(&item["type"]);
    for name in names {
        let get = |field: &str| match &item[field][name.as_str()] {
            Value::Null => "-".to_string(),
            value => quantity(value),
        };
        let (min, max, default_request, default_limit, ratio) =
            (get("min"), get("max"), get("defaultRequest"), get("default"), get("maxLimitRequestRatio"));
        w.write(0, &format!("{prefix}{kind}\t{name}\t{min}\t{max}\t{default_request}\t{default_limit}\t{ratio}\n"));
    }
}

/// `describeServiceAccount`.
pub(super) fn service_account(w: &mut Writer, account: &Value) {
    head(w, account);
    let names: Vec<&str> = list(&account["imagePullSecrets"]).iter().map(|s| str_of(&s["name"])).collect();
    if names.is_empty() {
        w.write(0, "Image pull secrets:\t<none>\n");
    }
    for (i, name) in names.iter().enumerate() {
        let header = if i == 0 { "Image pull secrets:" } else { "                   " };
        w.write(0, &format!("{header}\t{name}\n"));
    }
}

/// `describeQuota`: the used and hard amount of each resource of a ResourceQuota.
pub(super) fn resource_quota(w: &mut Writer, quota: &Value) {
    w.write(0, &format!("Name:\t{}\n", str_of(&quota["metadata"]["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&quota["metadata"]["namespace"])));
    let mut scopes: Vec<&str> = list(&quota["spec"]["scopes"]).iter().map(str_of).collect();
    if !scopes.is_empty() {
        scopes.sort();
        w.write(0, &format!("Scopes:\t{}\n", scopes.join(", ")));
        for scope in &scopes {
            if let Some(help) = scope_help(scope) {
                w.write(0, &format!(" * {help}\n"));
            }
        }
    }
    w.write(0, "Resource\tUsed\tHard\n");
    w.write(0, "--------\t----\t----\n");
    let hard = quota["status"]["hard"].as_object().cloned().unwrap_or_default();
    let used = &quota["status"]["used"];
    for resource in sorted_keys(&hard) {
        let used = if used[resource.as_str()].is_null() { "0".to_string() } else { quantity(&used[resource.as_str()]) };
        w.write(0, &format!("{resource}\t{used}\t{}\n", quantity(&hard[resource])));
    }
}

/// `describeLimitRange`.
pub(super) fn limit_range(w: &mut Writer, range: &Value) {
    w.write(0, &format!("Name:\t{}\n", str_of(&range["metadata"]["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&range["metadata"]["namespace"])));
    w.write(0, "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n");
    w.write(0, "----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n");
    for item in list(&range["spec"]["limits"]) {
        limit_range_item(w, item, "");
    }
}

/// `describeIngressV1`; `related.backends` holds each backend Service (by name) with its
/// EndpointSlices, or the error of reading them.
pub(super) fn ingress(w: &mut Writer, ingress: &Value, related: &Related) {
    let metadata = &ingress["metadata"];
    let spec = &ingress["spec"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    super::labels(w, "Labels", &metadata["labels"]);
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    let mut addresses: Vec<&str> = list(&ingress["status"]["loadBalancer"]["ingress"])
        .iter()
        .filter_map(|point| text_nonempty(&point["ip"]).or_else(|| text_nonempty(&point["hostname"])))
        .collect();
    addresses.sort();
    addresses.dedup();
    w.write(0, &format!("Address:\t{}\n", addresses.join(",")));
    w.write(0, &format!("Ingress Class:\t{}\n", spec["ingressClassName"].as_str().unwrap_or("<none>")));
    let default = match spec["defaultBackend"].is_object() {
        true => backend(&spec["defaultBackend"], related),
        false => "<default>".to_string(),
    };
    w.write(0, &format!("Default backend:\t{default}\n"));
    let tls = list(&spec["tls"]);
    if !tls.is_empty() {
        w.write(0, "TLS:\n");
        for entry in tls {
            let hosts: Vec<&str> = list(&entry["hosts"]).iter().map(str_of).collect();
            match text_nonempty(&entry["secretName"]) {
                None => w.write(1, &format!("SNI routes {}\n", hosts.join(","))),
                Some(secret) => w.write(1, &format!("{secret} terminates {}\n", hosts.join(","))),
            }
        }
    }
    w.write(0, "Rules:\n  Host\tPath\tBackends\n");
    w.write(1, "----\t----\t--------\n");
    let mut count = 0;
    for rule in list(&spec["rules"]).iter().filter(|rule| rule["http"].is_object()) {
        count += 1;
        w.write(1, &format!("{}\t\n", text_nonempty(&rule["host"]).unwrap_or("*")));
        for path in list(&rule["http"]["paths"]) {
            w.write(2, &format!("\t{} \t{}\n", str_of(&path["path"]), backend(&path["backend"], related)));
        }
    }
    if count == 0 {
        w.write(1, &format!("*\t*\t{default}\n"));
    }
    super::annotations(w, "Annotations", &metadata["annotations"]);
}

/// `describeBackendV1`: `service:port (endpoints)`, or a resource backend.
fn backend(backend: &Value, related: &Related) -> String {
    let service = &backend["service"];
    if service.is_object() {
        let number = integer(&service["port"]["number"]);
        let port_name = str_of(&service["port"]["name"]);
        let name = str_of(&service["name"]);
        let text = if number != 0 { format!("{name}:{number}") } else { format!("{name}:{port_name}") };
        return match related.backends.get(name) {
            Some(Ok((found, slices))) => {
                let mut named = "";
                for port in list(&found["spec"]["ports"]) {
                    if (number != 0 && number == integer(&port["port"]))
                        || (!port_name.is_empty() && port_name == str_of(&port["name"]))
                    {
                        named = str_of(&port["name"]);
                    }
                }
                format!("{text} ({})", endpoints(slices, named))
            }
            Some(Err(err)) => format!("{text} (<error: {err}>)"),
            None => text,
        };
    }
    let resource = &backend["resource"];
    if resource.is_object() {
        return format!(
            "APIGroup: {}, Kind: {}, Name: {}",
            resource["apiGroup"].as_str().unwrap_or("<none>"),
            str_of(&resource["kind"]),
            str_of(&resource["name"])
        );
    }
    String::new()
}

/// The Services an Ingress's backends name, for the caller to read.
pub fn ingress_services(ingress: &Value) -> Vec<String> {
    let spec = &ingress["spec"];
    let mut names: Vec<String> = std::iter::once(&spec["defaultBackend"])
        .chain(list(&spec["rules"]).iter().flat_map(|rule| list(&rule["http"]["paths"])).map(|path| &path["backend"]))
        .filter_map(|backend| text_nonempty(&backend["service"]["name"]).map(String::from))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `describePersistentVolumeClaim`; `related.pods` are the pods of its namespace.
pub(super) fn persistent_volume_claim(w: &mut Writer, claim: &Value, related: &Related, now: std::time::SystemTime) {
    let metadata = &claim["metadata"];
    let spec = &claim["spec"];
    let status = &claim["status"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    w.write(0, &format!("StorageClass:\t{}\n", super::workloads::claim_class(claim)));
    match metadata["deletionTimestamp"].as_str() {
        Some(deleted) => w.write(0, &format!("Status:\tTerminating (lasts {})\n", super::since(deleted, now))),
        None => w.write(0, &format!("Status:\t{}\n", str_of(&status["phase"]))),
    }
    w.write(0, &format!("Volume:\t{}\n", str_of(&spec["volumeName"])));
    super::labels(w, "Labels", &metadata["labels"]);
    super::annotations(w, "Annotations", &metadata["annotations"]);
    let finalizers: Vec<&str> = list(&metadata["finalizers"]).iter().map(str_of).collect();
    w.write(0, &format!("Finalizers:\t[{}]\n", finalizers.join(" ")));
    let (capacity, modes) = match text_nonempty(&spec["volumeName"]) {
        Some(_) => {
            let storage = &status["capacity"]["storage"];
            let capacity = if storage.is_null() { "0".to_string() } else { quantity(storage) };
            let modes: Vec<&str> = list(&status["accessModes"]).iter().map(str_of).collect();
            let short: Vec<&str> = [
                ("ReadWriteOnce", "RWO"),
                ("ReadOnlyMany", "ROX"),
                ("ReadWriteMany", "RWX"),
                ("ReadWriteOncePod", "RWOP"),
            ]
            .iter()
            .filter(|(long, _)| modes.contains(long))
            .map(|(_, short)| *short)
            .collect();
            (capacity, short.join(","))
        }
        None => (String::new(), String::new()),
    };
    w.write(0, &format!("Capacity:\t{capacity}\n"));
    w.write(0, &format!("Access Modes:\t{modes}\n"));
    if let Some(mode) = spec["volumeMode"].as_str() {
        w.write(0, &format!("VolumeMode:\t{mode}\n"));
    }
    let source = &spec["dataSource"];
    if source.is_object() {
        w.write(0, "DataSource:\n");
        if let Some(group) = source["apiGroup"].as_str() {
            w.write(1, &format!("APIGroup:\t{group}\n"));
        }
        w.write(1, &format!("Kind:\t{}\n", str_of(&source["kind"])));
        w.write(1, &format!("Name:\t{}\n", str_of(&source["name"])));
    }
    let name = str_of(&metadata["name"]);
    let mut users: Vec<&str> = related
        .pods
        .iter()
        .filter(|pod| {
            list(&pod["spec"]["volumes"]).iter().any(|v| str_of(&v["persistentVolumeClaim"]["claimName"]) == name)
        })
        .map(|pod| str_of(&pod["metadata"]["name"]))
        .collect();
    for owner in list(&metadata["ownerReferences"]).iter().filter(|o| str_of(&o["kind"]) == "Pod") {
        let found = related.pods.iter().find(|pod| str_of(&pod["metadata"]["uid"]) == str_of(&owner["uid"]));
        if let Some(pod) = found
            && !users.contains(&str_of(&pod["metadata"]["name"]))
        {
            users.push(str_of(&pod["metadata"]["name"]));
        }
    }
    users.sort();
    w.write(0, "Used By:\t");
    if users.is_empty() {
        w.line("<none>");
    }
    for (i, user) in users.iter().enumerate() {
        if i != 0 {
            w.write(0, "\t");
        }
        w.write(0, &format!("{user}\n"));
    }
    conditions_table(w, &status["conditions"], "LastProbeTime");
}
