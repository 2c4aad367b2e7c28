//! `port-forward`'s port and address specifications, as client-go's `tools/portforward` and
//! kubectl's `cmd/portforward` read them: `8080`, `8080:80`, `:80` and `0:80` (any free local
//! port), a remote port by name (a container's or a Service's port), and `--address`
//! (`localhost` is 127.0.0.1 and ::1; otherwise IP addresses). Pure.

use serde_json::Value;

use crate::gocompat::strconv::{NumError, parse_int_base};

/// One forwarded port: listen on `local` (0: any free port), forward to the pod's `remote`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForwardedPort {
    pub local: u16,
    pub remote: u16,
}

impl std::fmt::Display for ForwardedPort {
    /// Go's `%v` of the struct: `{8080 80}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{{{} {}}}", self.local, self.remote)
    }
}

/// `strconv.ParseUint(text, 10, 16)` with Go's error text.
fn parse_u16(text: &str) -> Result<u16, NumError> {
    let error = |range| NumError { func: "ParseUint", num: text.to_string(), range };
    if text.starts_with(['+', '-']) {
        return Err(error(false));
    }
    match parse_int_base(text, 10, 64) {
        Ok(value) => u16::try_from(value).map_err(|_| error(true)),
        Err(err) => Err(error(err.range)),
    }
}

/// client-go's `parsePorts`: the numeric specifications, in order.
pub fn parse_ports(specs: &[String]) -> Result<Vec<ForwardedPort>, String> {
    let mut forwards = Vec::new();
    for spec in specs {
        let parts: Vec<&str> = spec.split(':').collect();
        let (local, remote) = match parts.as_slice() {
            [one] => (*one, *one),
            ["", remote] => ("0", *remote),
            [local, remote] => (*local, *remote),
            _ => return Err(format!("invalid port format '{spec}'")),
        };
        let local = parse_u16(local).map_err(|err| format!("error parsing local port '{local}': {err}"))?;
        let remote = parse_u16(remote).map_err(|err| format!("error parsing remote port '{remote}': {err}"))?;
        if remote == 0 {
            return Err("remote port must be > 0".into());
        }
        forwards.push(ForwardedPort { local, remote });
    }
    Ok(forwards)
}

/// One address to listen on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenAddress {
    pub address: String,
    /// `localhost`'s two addresses: the port fails only when both fail; an address named on its
    /// own fails the port when it fails.
    pub all_must_fail: bool,
}

/// client-go's `parseAddresses`: each address once, sorted as strings.
pub fn parse_addresses(addresses: &[String]) -> Result<Vec<ListenAddress>, String> {
    if addresses.is_empty() {
        return Err("you must specify at least 1 address".into());
    }
    let mut parsed: Vec<ListenAddress> = Vec::new();
    for address in addresses {
        if address == "localhost" {
            for loopback in ["127.0.0.1", "::1"] {
                if !parsed.iter().any(|known| known.address == loopback) {
                    parsed.push(ListenAddress { address: loopback.to_string(), all_must_fail: true });
                }
            }
        } else if parse_ip_sloppy(address).is_some() {
            parsed.retain(|known| known.address != *address);
            parsed.push(ListenAddress { address: address.clone(), all_must_fail: false });
        } else {
            return Err(format!("{address} is not a valid IP"));
        }
    }
    parsed.sort_by(|a, b| a.address.cmp(&b.address));
    Ok(parsed)
}

/// Go's `netutils.ParseIPSloppy`: an IPv4 address may have leading zeros in its parts.
fn parse_ip_sloppy(text: &str) -> Option<std::net::IpAddr> {
    if let Ok(ip) = text.parse::<std::net::IpAddr>() {
        return Some(ip);
    }
    let parts: Vec<&str> = text.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut octets = [0u8; 4];
    for (octet, part) in octets.iter_mut().zip(&parts) {
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *octet = part.parse().ok()?;
    }
    Some(std::net::IpAddr::from(octets))
}

/// Go's `net.JoinHostPort`: an IPv6 address in brackets.
pub fn join_host_port(host: &str, port: u16) -> String {
    if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") }
}

/// `LOCAL` and `REMOTE` of a specification as kubectl's `splitPort` reads it (no check).
fn split_port(spec: &str) -> (&str, &str) {
    let parts: Vec<&str> = spec.split(':').collect();
    match parts.as_slice() {
        [local, remote] => (local, remote),
        _ => (parts[0], parts[0]),
    }
}

fn containers(pod: &Value) -> impl Iterator<Item = &Value> {
    pod["spec"]["containers"].as_array().into_iter().flatten()
}

/// kubectl's `LookupContainerPortNumberByName`.
fn container_port_by_name(pod: &Value, name: &str) -> Result<i64, String> {
    for container in containers(pod) {
        for port in container["ports"].as_array().into_iter().flatten() {
            if port["name"].as_str() == Some(name) {
                return Ok(port["containerPort"].as_i64().unwrap_or_default());
            }
        }
    }
    Err(format!("Pod '{}' does not have a named port '{name}'", pod["metadata"]["name"].as_str().unwrap_or_default()))
}

/// kubectl's `convertPodNamedPortToNumber`: remote ports named after a container's port become
/// its number.
pub fn pod_ports(specs: &[String], pod: &Value) -> Result<Vec<String>, String> {
    let mut converted = Vec::new();
    for spec in specs {
        let (local, remote) = split_port(spec);
        if remote.is_empty() {
            return Err("remote port cannot be empty".into());
        }
        let number = match remote.parse::<i64>() {
            Ok(_) => remote.to_string(),
            Err(_) => container_port_by_name(pod, remote)?.to_string(),
        };
        converted.push(if local != remote { format!("{local}:{number}") } else { number });
    }
    Ok(converted)
}

/// kubectl's `translateServicePortToTargetPort`: a Service's port (by number or name) becomes
/// the port of the pod it targets.
pub fn service_ports(specs: &[String], service: &Value, pod: &Value) -> Result<Vec<String>, String> {
    let service_name = service["metadata"]["name"].as_str().unwrap_or_default();
    let service_port_list: Vec<&Value> = service["spec"]["ports"].as_array().into_iter().flatten().collect();
    let mut translated = Vec::new();
    for spec in specs {
        let (local, remote) = split_port(spec);
        let mut local = local.to_string();
        let number = match remote.parse::<i64>() {
            Ok(number) => number,
            Err(_) => {
                let found = service_port_list.iter().find(|port| port["name"].as_str() == Some(remote));
                let number = found
                    .and_then(|port| port["port"].as_i64())
                    .ok_or_else(|| format!("Service '{service_name}' does not have a named port '{remote}'"))?;
                if local == remote {
                    local = number.to_string();
                }
                number
            }
        };
        let container_port = container_port_for_service_port(service, pod, number)?;
        let remote = container_port.to_string();
        translated.push(if local != remote { format!("{local}:{remote}") } else { remote });
    }
    Ok(translated)
}

/// kubectl's `LookupContainerPortNumberByServicePort`.
fn container_port_for_service_port(service: &Value, pod: &Value, port: i64) -> Result<i64, String> {
    let service_name = service["metadata"]["name"].as_str().unwrap_or_default();
    for service_port in service["spec"]["ports"].as_array().into_iter().flatten() {
        if service_port["port"].as_i64() != Some(port) {
            continue;
        }
        if service["spec"]["clusterIP"].as_str() == Some("None") {
            return Ok(port);
        }
        return match &service_port["targetPort"] {
            Value::Null => Ok(port),
            Value::Number(number) => match number.as_i64() {
                Some(0) | None => Ok(port),
                Some(target) => Ok(target),
            },
            Value::String(name) => container_port_by_name(pod, name),
            _ => Ok(port),
        };
    }
    Err(format!("Service {service_name} does not have a service port {port}"))
}

/// The UDP-only ports of a Service or of a pod's containers, for kubectl's refusal
/// `UDP protocol is not supported for PORT`.
pub fn check_udp(specs: &[String], object: &Value, is_service: bool) -> Result<(), String> {
    let mut udp = Vec::new();
    let mut tcp = Vec::new();
    let ports: Vec<(&Value, &str)> = if is_service {
        object["spec"]["ports"].as_array().into_iter().flatten().map(|port| (port, "port")).collect()
    } else {
        containers(object)
            .flat_map(|container| container["ports"].as_array().into_iter().flatten())
            .map(|port| (port, "containerPort"))
            .collect()
    };
    for (port, field) in ports {
        let number = port[field].as_i64().unwrap_or_default();
        match port["protocol"].as_str().unwrap_or("TCP") {
            "UDP" => udp.push(number),
            "TCP" => tcp.push(number),
            _ => {}
        }
    }
    for spec in specs {
        let (_, remote) = split_port(spec);
        let number = match remote.parse::<i64>() {
            Ok(number) => number,
            Err(_) if is_service => {
                let found = object["spec"]["ports"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|port| port["name"].as_str() == Some(remote));
                let name = object["metadata"]["name"].as_str().unwrap_or_default();
                found
                    .and_then(|port| port["port"].as_i64())
                    .ok_or_else(|| format!("Service '{name}' does not have a named port '{remote}'"))?
            }
            Err(_) => container_port_by_name(object, remote)?,
        };
        if udp.contains(&number) && !tcp.contains(&number) {
            return Err(format!("UDP protocol is not supported for {remote}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn specs(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|text| text.to_string()).collect()
    }

    #[test]
    fn ports_read_as_client_go_reads_them() {
        let parsed = parse_ports(&specs(&["5000", "8888:5000", ":5000", "0:5000"])).unwrap();
        let pairs: Vec<(u16, u16)> = parsed.iter().map(|port| (port.local, port.remote)).collect();
        assert_eq!(pairs, [(5000, 5000), (8888, 5000), (0, 5000), (0, 5000)]);
        assert_eq!(parse_ports(&specs(&["1:2:3"])).unwrap_err(), "invalid port format '1:2:3'");
        assert_eq!(
            parse_ports(&specs(&["x:80"])).unwrap_err(),
            r#"error parsing local port 'x': strconv.ParseUint: parsing "x": invalid syntax"#
        );
        assert_eq!(
            parse_ports(&specs(&["80:70000"])).unwrap_err(),
            r#"error parsing remote port '70000': strconv.ParseUint: parsing "70000": value out of range"#
        );
        assert_eq!(parse_ports(&specs(&["80:0"])).unwrap_err(), "remote port must be > 0");
        assert_eq!(ForwardedPort { local: 8080, remote: 80 }.to_string(), "{8080 80}");
    }

    #[test]
    fn addresses_read_as_client_go_reads_them() {
        let parsed = parse_addresses(&specs(&["localhost"])).unwrap();
        let names: Vec<(&str, bool)> = parsed.iter().map(|a| (a.address.as_str(), a.all_must_fail)).collect();
        assert_eq!(names, [("127.0.0.1", true), ("::1", true)]);
        let parsed = parse_addresses(&specs(&["0.0.0.0", "localhost", "127.0.0.1"])).unwrap();
        let names: Vec<(&str, bool)> = parsed.iter().map(|a| (a.address.as_str(), a.all_must_fail)).collect();
        assert_eq!(names, [("0.0.0.0", false), ("127.0.0.1", false), ("::1", true)]);
        assert_eq!(parse_addresses(&specs(&["example.com"])).unwrap_err(), "example.com is not a valid IP");
        assert_eq!(join_host_port("::1", 80), "[::1]:80");
        assert_eq!(join_host_port("127.0.0.1", 80), "127.0.0.1:80");
    }

    #[test]
    fn named_ports_become_numbers() {
        let pod = json!({"metadata": {"name": "web"}, "spec": {"containers": [
            {"name": "a", "ports": [{"name": "http", "containerPort": 8080}, {"name": "dns", "containerPort": 53, "protocol": "UDP"}]}
        ]}});
        assert_eq!(pod_ports(&specs(&["http", "9000:http", "81"]), &pod).unwrap(), ["8080", "9000:8080", "81"]);
        assert_eq!(pod_ports(&specs(&["x"]), &pod).unwrap_err(), "Pod 'web' does not have a named port 'x'");
        assert_eq!(check_udp(&specs(&["dns"]), &pod, false).unwrap_err(), "UDP protocol is not supported for dns");
        assert!(check_udp(&specs(&["http"]), &pod, false).is_ok());
        let service = json!({"metadata": {"name": "svc"}, "spec": {"clusterIP": "10.0.0.1", "ports": [
            {"name": "web", "port": 80, "targetPort": "http"}, {"port": 81, "targetPort": 9090}, {"port": 82}
        ]}});
        assert_eq!(
            service_ports(&specs(&["80", "web", "7000:web", "81", "82"]), &service, &pod).unwrap(),
            ["80:8080", "80:8080", "7000:8080", "81:9090", "82"]
        );
        assert_eq!(
            service_ports(&specs(&["83"]), &service, &pod).unwrap_err(),
            "Service svc does not have a service port 83"
        );
    }
}
