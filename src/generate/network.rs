//! `create service clusterip|nodeport|loadbalancer|externalname` and `create ingress`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::Error;
use crate::gocompat::fmt::quote;

/// `create service TYPE NAME [--tcp=PORT[:TARGET]...] [--clusterip] [--node-port] [--external-name]`.
#[derive(Debug, Clone, Default)]
pub struct ServiceOptions {
    pub name: String,
    /// The Service's `spec.type`: `ClusterIP`, `NodePort`, `LoadBalancer` or `ExternalName`.
    pub service_type: &'static str,
    /// `PORT[:TARGET]` pairs, one port each.
    pub tcp: Vec<String>,
    /// `--clusterip`; `None` makes a headless Service.
    pub cluster_ip: String,
    /// `--node-port`, set on every port; kubectl keeps the low 32 bits of it.
    pub node_port: i64,
    pub external_name: String,
}

/// kubectl's checks of `create service`'s options.
pub fn check_service(options: &ServiceOptions) -> Result<(), Error> {
    if options.cluster_ip != "None" && options.tcp.is_empty() && options.service_type != "ExternalName" {
        return Err(Error::NoTcpPort);
    }
    if options.service_type == "ExternalName" && !is_dns_subdomain(&options.external_name) {
        return Err(Error::ExternalName(options.external_name.clone()));
    }
    Ok(())
}

/// The Service kubectl generates: labels and selector `app: NAME`, a TCP port per `--tcp`, named
/// after it (`80:8080` is `80-8080`).
pub fn service(options: &ServiceOptions) -> Result<Value, Error> {
    let ports =
        options.tcp.iter().map(|pair| service_port(pair, options.node_port as i32)).collect::<Result<Vec<_>, _>>()?;
    let labels = json!({"app": options.name});
    let mut spec = json!({"type": options.service_type, "selector": labels});
    if !ports.is_empty() {
        spec["ports"] = Value::Array(ports);
    }
    if !options.external_name.is_empty() {
        spec["externalName"] = options.external_name.clone().into();
    }
    if !options.cluster_ip.is_empty() {
        spec["clusterIP"] = options.cluster_ip.clone().into();
    }
    Ok(json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": options.name, "labels": labels},
        "spec": spec,
        "status": {"loadBalancer": {}},
    }))
}

/// One `--tcp` pair as kubectl reads it: the port a 16-bit number (Go's `ParseUint` words), the
/// target a port number or a port name (apimachinery's words, joined).
fn service_port(pair: &str, node_port: i32) -> Result<Value, Error> {
    let mut parts = pair.split(':');
    let port_text = parts.next().unwrap_or_default();
    let port = match !port_text.is_empty() && port_text.bytes().all(|b| b.is_ascii_digit()) {
        true => port_text.parse::<u16>().map_err(|_| "value out of range"),
        false => Err("invalid syntax"),
    }
    .map_err(|reason| Error::ServicePort(format!("strconv.ParseUint: parsing {}: {reason}", quote(port_text))))?;
    let target = match parts.next() {
        None => Value::from(port),
        Some(target) => match go_atoi(target) {
            Some(number) if (1..=65535).contains(&number) => Value::from(number),
            Some(_) => return Err(Error::ServicePort("must be between 1 and 65535, inclusive".into())),
            None => match port_name_problems(target) {
                problems if problems.is_empty() => Value::from(target),
                problems => return Err(Error::ServicePort(problems.join(","))),
            },
        },
    };
    let mut port = json!({"name": pair.replace(':', "-"), "port": port, "targetPort": target, "protocol": "TCP"});
    if node_port != 0 {
        port["nodePort"] = node_port.into();
    }
    Ok(port)
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits fitting 64 bits.
fn go_atoi(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.strip_prefix('+').unwrap_or(text).parse().ok()
}

/// apimachinery's `IsValidPortName`: what is wrong with `name`, each in its words.
fn port_name_problems(name: &str) -> Vec<&'static str> {
    let mut problems = Vec::new();
    if name.len() > 15 {
        problems.push("must be no more than 15 characters");
    }
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        problems.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        problems.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        problems.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push("must not begin or end with a hyphen");
    }
    problems
}

/// apimachinery's `IsDNS1123Subdomain`: lower-case labels of letters, digits and inner `-`,
/// joined by dots, 253 characters at most.
fn is_dns_subdomain(name: &str) -> bool {
    let label = |label: &str| {
        let bytes = label.as_bytes();
        !bytes.is_empty()
            && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
            && bytes[0] != b'-'
            && bytes[bytes.len() - 1] != b'-'
    };
    name.len() <= 253 && name.split('.').all(label)
}

/// `create ingress NAME [--rule=HOST/PATH=SERVICE:PORT[,tls[=SECRET]]...] [--default-backend]
/// [--class] [--annotation=KEY=VALUE...]`.
#[derive(Debug, Clone, Default)]
pub struct IngressOptions {
    pub name: String,
    pub class: String,
    pub rules: Vec<String>,
    pub default_backend: String,
    pub annotations: Vec<String>,
}

/// kubectl's grammar of a rule: an optional host, a path from `/`, then `=service:port`; kubectl
/// 1.37 matches only the start of the rule, so what follows (`,tls=SECRET`) is not checked.
static RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[0-9A-Za-z_*\-.]*/.*=[0-9A-Za-z_\-]+:[0-9A-Za-z_\-]+").expect("the rule grammar is a valid regex")
});

/// kubectl's checks of `create ingress`'s options, in its order.
pub fn check_ingress(options: &IngressOptions) -> Result<(), Error> {
    if options.default_backend.is_empty() && options.rules.is_empty() {
        return Err(Error::IngressEmpty);
    }
    // kubectl 1.37 panics on a rule whose backend, read as it reads it, is not SERVICE:PORT
    // (`/a=b=svc:80`); kubeupd refuses it as invalid.
    let backend_read = |rule: &str| {
        let without_tls = rule.split(',').next().unwrap_or_default();
        let path_and_service = without_tls.split_once('/').map_or("", |(_, rest)| rest);
        path_and_service.split('=').nth(1).is_some_and(|service| service.contains(':'))
    };
    if let Some(rule) = options.rules.iter().find(|rule| !RULE.is_match(rule) || !backend_read(rule)) {
        return Err(Error::IngressRule(rule.clone()));
    }
    if let Some(annotation) = options.annotations.iter().find(|annotation| !annotation.contains('=')) {
        return Err(Error::IngressAnnotation(annotation.clone()));
    }
    if !options.default_backend.is_empty() && options.default_backend.split(':').count() != 2 {
        return Err(Error::IngressDefaultBackend);
    }
    Ok(())
}

/// The Ingress kubectl generates from checked options: a rule per host with its paths in order
/// (a path ending in `*` is a `Prefix`, else `Exact`), and TLS entries grouping hosts by secret,
/// each host in the first one that names it.
pub fn ingress(options: &IngressOptions) -> Value {
    let annotations: Map<String, Value> = options
        .annotations
        .iter()
        .filter_map(|annotation| annotation.split_once('='))
        .map(|(key, value)| (key.to_string(), value.into()))
        .collect();
    let mut metadata = json!({"name": options.name});
    if !annotations.is_empty() {
        metadata["annotations"] = Value::Object(annotations);
    }
    let mut spec = json!({});
    if !options.class.is_empty() {
        spec["ingressClassName"] = options.class.clone().into();
    }
    if !options.default_backend.is_empty() {
        spec["defaultBackend"] = backend(&options.default_backend);
    }
    let tls = ingress_tls(&options.rules);
    if !tls.is_empty() {
        spec["tls"] = Value::Array(tls);
    }
    let rules = ingress_rules(&options.rules);
    if !rules.is_empty() {
        spec["rules"] = Value::Array(rules);
    }
    json!({
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": metadata,
        "spec": spec,
        "status": {"loadBalancer": {}},
    })
}

fn ingress_tls(rules: &[String]) -> Vec<Value> {
    let mut entries: Vec<(Vec<String>, String)> = Vec::new();
    let mut hosts_seen: Vec<&str> = Vec::new();
    for rule in rules {
        let [_, tls] = rule.split(',').collect::<Vec<_>>()[..] else { continue };
        let host = rule.split('/').next().unwrap_or_default();
        if hosts_seen.contains(&host) {
            continue;
        }
        hosts_seen.push(host);
        let secret = tls.split('=').nth(1).unwrap_or_default();
        if let Some((hosts, _)) = entries.iter_mut().find(|(_, name)| name == secret) {
            hosts.push(host.to_string());
            continue;
        }
        let hosts: Vec<String> = if host.is_empty() { Vec::new() } else { vec![host.to_string()] };
        if !secret.is_empty() || !hosts.is_empty() {
            entries.push((hosts, secret.to_string()));
        }
    }
    entries
        .into_iter()
        .map(|(hosts, secret)| {
            let mut entry = json!({});
            if !hosts.is_empty() {
                entry["hosts"] = hosts.into();
            }
            if !secret.is_empty() {
                entry["secretName"] = secret.into();
            }
            entry
        })
        .collect()
}

fn ingress_rules(rules: &[String]) -> Vec<Value> {
    let mut by_host: Vec<(&str, Vec<Value>)> = Vec::new();
    for rule in rules {
        let without_tls = rule.split(',').next().unwrap_or_default();
        let (host, path_and_service) = without_tls.split_once('/').unwrap_or((without_tls, ""));
        let path = http_path(path_and_service);
        match by_host.iter_mut().find(|(known, _)| *known == host) {
            Some((_, paths)) => paths.push(path),
            None => by_host.push((host, vec![path])),
        }
    }
    by_host
        .into_iter()
        .map(|(host, paths)| {
            let mut rule = json!({"http": {"paths": paths}});
            if !host.is_empty() {
                rule["host"] = host.into();
            }
            rule
        })
        .collect()
}

/// A rule's path and backend: as kubectl, the text between the first and the second `=` is the
/// backend.
fn http_path(path_and_service: &str) -> Value {
    let mut parts = path_and_service.split('=');
    let path = format!("/{}", parts.next().unwrap_or_default());
    let (path, path_type) = match path.strip_suffix('*') {
        Some(prefix) => (prefix.to_string(), "Prefix"),
        None => (path, "Exact"),
    };
    json!({"path": path, "pathType": path_type, "backend": backend(parts.next().unwrap_or_default())})
}

/// `SERVICE:PORT` (what follows a second `:` ignored, as kubectl ignores it), the port a number
/// when it is one that fits 32 bits, else a port name.
fn backend(service: &str) -> Value {
    let mut parts = service.split(':');
    let name = parts.next().unwrap_or_default();
    let port = parts.next().unwrap_or_default();
    let port = match port.parse::<i32>() {
        Ok(0) => json!({}),
        Ok(number) => json!({"number": number}),
        Err(_) if port.is_empty() => json!({}),
        Err(_) => json!({"name": port}),
    };
    json!({"service": {"name": name, "port": port}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service_of(service_type: &'static str, tcp: &[&str]) -> ServiceOptions {
        ServiceOptions {
            name: "web".into(),
            service_type,
            tcp: tcp.iter().map(|pair| pair.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn service_ports_are_named_after_their_pairs() {
        let service = service(&service_of("ClusterIP", &["80:8080", "443", "53:dns"])).unwrap();
        let ports = &service["spec"]["ports"];
        assert_eq!(ports[0], json!({"name": "80-8080", "port": 80, "targetPort": 8080, "protocol": "TCP"}));
        assert_eq!(ports[1]["targetPort"], 443);
        assert_eq!(ports[2]["targetPort"], "dns");
        assert_eq!(service["spec"]["selector"], json!({"app": "web"}));
    }

    #[test]
    fn bad_ports_are_refused_in_gos_words() {
        let refused = |pair: &str| service(&service_of("ClusterIP", &[pair])).unwrap_err().to_string();
        assert_eq!(refused("99999"), "strconv.ParseUint: parsing \"99999\": value out of range");
        assert_eq!(refused("x"), "strconv.ParseUint: parsing \"x\": invalid syntax");
        assert_eq!(refused("80:0"), "must be between 1 and 65535, inclusive");
        assert_eq!(
            refused("80:"),
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-),must contain at least one letter (a-z)"
        );
    }

    #[test]
    fn services_need_ports_unless_headless_or_external() {
        assert_eq!(check_service(&service_of("NodePort", &[])), Err(Error::NoTcpPort));
        let headless = ServiceOptions { cluster_ip: "None".into(), ..service_of("ClusterIP", &[]) };
        assert_eq!(check_service(&headless), Ok(()));
        let external = ServiceOptions { external_name: "Bad_Name".into(), ..service_of("ExternalName", &[]) };
        assert_eq!(check_service(&external), Err(Error::ExternalName("Bad_Name".into())));
    }

    #[test]
    fn ingress_rules_group_paths_by_host_and_tls_by_secret() {
        let options = IngressOptions {
            name: "web".into(),
            rules: ["foo.com/bar=svc1:8080,tls=cert", "foo.com/*=svc:http,tls", "/x*=a:1", "bar.com/=b:2,tls=cert"]
                .map(String::from)
                .to_vec(),
            ..Default::default()
        };
        assert_eq!(check_ingress(&options), Ok(()));
        let ingress = ingress(&options);
        assert_eq!(ingress["spec"]["tls"], json!([{"hosts": ["foo.com", "bar.com"], "secretName": "cert"}]));
        let rules = &ingress["spec"]["rules"];
        assert_eq!(rules[0]["http"]["paths"][1]["pathType"], "Prefix");
        assert_eq!(rules[0]["http"]["paths"][1]["backend"]["service"]["port"], json!({"name": "http"}));
        assert!(rules[1].get("host").is_none());
        assert_eq!(rules[1]["http"]["paths"][0]["path"], "/x");
    }

    #[test]
    fn ingress_options_are_checked_in_kubectls_order() {
        let options = |rules: &[&str], backend: &str| IngressOptions {
            rules: rules.iter().map(|rule| rule.to_string()).collect(),
            default_backend: backend.into(),
            ..Default::default()
        };
        assert_eq!(check_ingress(&options(&[], "")), Err(Error::IngressEmpty));
        assert_eq!(check_ingress(&options(&["bad"], "")), Err(Error::IngressRule("bad".into())));
        assert_eq!(check_ingress(&options(&["foo.com=a:1"], "")), Err(Error::IngressRule("foo.com=a:1".into())));
        assert_eq!(check_ingress(&options(&["/=a:1,tls=x,y"], "")), Ok(()));
        assert_eq!(check_ingress(&options(&["/a=b=c:1"], "")), Err(Error::IngressRule("/a=b=c:1".into())));
        assert_eq!(check_ingress(&options(&[], "a:b:c")), Err(Error::IngressDefaultBackend));
        assert_eq!(check_ingress(&options(&[], "svc:80")), Ok(()));
    }
}
