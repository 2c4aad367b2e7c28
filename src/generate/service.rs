//! `create service clusterip|nodeport|loadbalancer|externalname`: a Service selecting `app: NAME`,
//! a port per `--tcp` pair, as kubectl's generator makes it.

use serde_json::{Value, json};

use super::Error;

/// What kubectl's four service generators take.
#[derive(Debug, Clone, Default)]
pub struct ServiceOptions {
    pub name: String,
    /// `ClusterIP`, `NodePort`, `LoadBalancer` or `ExternalName`.
    pub service_type: String,
    /// `PORT[:TARGET]` pairs, in order.
    pub tcp: Vec<String>,
    /// `--clusterip` (`None` for a headless service); empty when not given.
    pub cluster_ip: String,
    /// `--node-port`; 0 when not given.
    pub node_port: i32,
    /// `--external-name`; empty when not given.
    pub external_name: String,
}

/// The Service, or kubectl's words for what is wrong, checked in its order.
pub fn service(options: &ServiceOptions) -> Result<Value, Error> {
    if options.cluster_ip == "None" && options.service_type != "ClusterIP" {
        return Err(Error::HeadlessNotClusterIp);
    }
    if options.cluster_ip != "None" && options.tcp.is_empty() && options.service_type != "ExternalName" {
        return Err(Error::NoTcpPort);
    }
    if options.service_type == "ExternalName" && !is_dns1123_subdomain(&options.external_name) {
        return Err(Error::ExternalName(options.external_name.clone()));
    }
    let mut ports = Vec::with_capacity(options.tcp.len());
    for pair in &options.tcp {
        let (port, target) = ports_of(pair)?;
        let mut entry = json!({"name": pair.replace(':', "-"), "protocol": "TCP", "port": port, "targetPort": target});
        if options.node_port != 0 {
            entry["nodePort"] = json!(options.node_port);
        }
        ports.push(entry);
    }
    let mut spec = json!({"selector": {"app": options.name}, "type": options.service_type});
    if !ports.is_empty() {
        spec["ports"] = Value::Array(ports);
    }
    if !options.cluster_ip.is_empty() {
        spec["clusterIP"] = json!(options.cluster_ip);
    }
    if !options.external_name.is_empty() {
        spec["externalName"] = json!(options.external_name);
    }
    Ok(json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": options.name, "labels": {"app": options.name}},
        "spec": spec,
        "status": {"loadBalancer": {}},
    }))
}

/// `PORT` or `PORT:TARGET`, the target a number or a port name, as kubectl reads a `--tcp` pair.
fn ports_of(pair: &str) -> Result<(u16, Value), Error> {
    let mut parts = pair.split(':');
    let port_text = parts.next().unwrap_or_default();
    let port = port_text.parse::<u16>().map_err(|err| Error::Port(go_parse_uint_error(port_text, &err)))?;
    let Some(target) = parts.next() else { return Ok((port, json!(port))) };
    match target.parse::<i64>() {
        Ok(number) if (1..=65535).contains(&number) => Ok((port, json!(number))),
        Ok(_) => Err(Error::Port("must be between 1 and 65535, inclusive".into())),
        Err(_) => match port_name_errors(target) {
            errors if errors.is_empty() => Ok((port, json!(target))),
            errors => Err(Error::Port(errors.join(","))),
        },
    }
}

/// Go's `strconv.ParseUint(text, 10, 16)` error words.
fn go_parse_uint_error(text: &str, err: &std::num::ParseIntError) -> String {
    let reason = match err.kind() {
        std::num::IntErrorKind::PosOverflow => "value out of range",
        _ => "invalid syntax",
    };
    format!("strconv.ParseUint: parsing {text:?}: {reason}")
}

/// apimachinery's `IsValidPortName`: what is wrong with a port's name, in its words.
fn port_name_errors(name: &str) -> Vec<&'static str> {
    let mut errors = Vec::new();
    if name.is_empty() || name.len() > 15 {
        errors.push("must be no more than 15 characters");
    }
    if !name.bytes().all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-') {
        errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|byte| byte.is_ascii_lowercase()) {
        errors.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        errors.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        errors.push("must not begin or end with a hyphen");
    }
    errors
}

/// apimachinery's `IsDNS1123Subdomain`: lower-case labels of letters, digits and inner hyphens,
/// joined by dots, 253 characters at most.
fn is_dns1123_subdomain(name: &str) -> bool {
    let label = |label: &str| {
        !label.is_empty()
            && label.bytes().all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    !name.is_empty() && name.len() <= 253 && name.split('.').all(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(service_type: &str, tcp: &[&str]) -> ServiceOptions {
        ServiceOptions {
            name: "web".into(),
            service_type: service_type.into(),
            tcp: tcp.iter().map(|pair| pair.to_string()).collect(),
            ..ServiceOptions::default()
        }
    }

    #[test]
    fn ports_are_named_after_their_pairs() {
        let made = service(&options("ClusterIP", &["5678:8080", "80:http", "443"])).unwrap();
        assert_eq!(
            made["spec"]["ports"],
            json!([
                {"name": "5678-8080", "protocol": "TCP", "port": 5678, "targetPort": 8080},
                {"name": "80-http", "protocol": "TCP", "port": 80, "targetPort": "http"},
                {"name": "443", "protocol": "TCP", "port": 443, "targetPort": 443},
            ])
        );
        assert_eq!(made["spec"]["selector"], json!({"app": "web"}));
    }

    #[test]
    fn kubectls_checks_and_words() {
        let headless = ServiceOptions { cluster_ip: "None".into(), ..options("NodePort", &[]) };
        assert_eq!(
            service(&headless).unwrap_err().to_string(),
            "ClusterIP=None can only be used with ClusterIP service type"
        );
        assert_eq!(
            service(&options("ClusterIP", &[])).unwrap_err().to_string(),
            "at least one tcp port specifier must be provided"
        );
        let external = ServiceOptions { external_name: "Not_DNS".into(), ..options("ExternalName", &[]) };
        assert_eq!(service(&external).unwrap_err().to_string(), "invalid service external name Not_DNS");
        assert_eq!(
            service(&options("ClusterIP", &["x:80"])).unwrap_err().to_string(),
            "strconv.ParseUint: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            service(&options("ClusterIP", &["80:Bad--Name"])).unwrap_err().to_string(),
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-),must not contain consecutive hyphens"
        );
    }
}
