//! kubectl's describers of core kinds: Service (with its EndpointSlices), ConfigMap, Secret,
//! Namespace (with its quotas and limit ranges), ServiceAccount.

use base64::Engine as _;
use serde_json::Value;

use super::pod::quantity;
use super::{Related, Writer, head, integer, list, rfc1123z, scalar, sorted_keys, str_of, text_nonempty};

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
            let used = if used[resource.as_str()].is_null() { "0".to_string() } else { quantity(&used[resource.as_str()]) };
            w.write(1, &format!("{resource}\t{used}\t{}\n", quantity(&hard[resource])));
        }
    }
}

fn scope_help(scope: &str) -> Option<&'static str> {
    Some(match scope {
        "Terminating" => "Matches all pods that have an active deadline. These pods have a limited lifespan on a node before being actively terminated by the system.",
        "NotTerminating" => "Matches all pods that do not have an active deadline. These pods usually include long running pods whose container command is not expected to terminate.",
        "BestEffort" => "Matches all pods that do not have resource requirements set. These pods have a best effort quality of service.",
        "NotBestEffort" => "Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service.",
        _ => return None,
    })
}

/// `DescribeLimitRanges`: one line per type and resource of each limit range.
fn limit_ranges(w: &mut Writer, ranges: &[Value]) {
    if ranges.is_empty() {
        w.write(0, "No LimitRange resource.\n");
        return;
    }
    w.write(
        0,
        "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n",
    );
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
