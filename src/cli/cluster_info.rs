//! `kubeupd cluster-info`: the control plane's address and the cluster services'
//! (`kubernetes.io/cluster-service=true` in kube-system, or `-n`), as kubectl 1.37 prints them
//! (kubectl pkg/cmd/clusterinfo; plain lines, on a terminal or not).

use clap::{Args, Subcommand};
use serde_json::Value;

use super::args::OutputArgs;
use super::{Error, GlobalArgs, Result, write_stdout};

/// Options of `kubeupd cluster-info`.
#[derive(Debug, Args)]
pub struct ClusterInfoArgs {
    #[command(subcommand)]
    pub command: Option<ClusterInfoCommand>,
}

/// `cluster-info`'s subcommands.
#[derive(Debug, Subcommand)]
pub enum ClusterInfoCommand {
    /// Dump relevant information for debugging and diagnosis (kubeupd hands it to kubectl).
    #[command(after_help = super::help::CLUSTER_INFO_DUMP)]
    Dump(DumpArgs),
}

/// `cluster-info dump`'s flags, kubectl's, for the line handed over.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// If true, dump all namespaces.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// A comma separated list of namespaces to dump.
    #[arg(long, value_name = "NS", value_delimiter = ',')]
    pub namespaces: Vec<String>,
    /// Where to write files; empty or `-` writes to stdout.
    #[arg(long, value_name = "DIR")]
    pub output_directory: Option<String>,
    /// `-o` (kubectl's dump writes JSON without it), `--template`, `--allow-missing-template-keys`,
    /// `--show-managed-fields`.
    #[command(flatten)]
    pub output: OutputArgs,
    /// How long to wait for a pod to be running before reading its logs.
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = super::pflag::duration)]
    pub pod_running_timeout: std::time::Duration,
}

/// What kubectl prints after the services, error or not.
const DEBUG_LINE: &str = "\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n";

pub async fn run(args: ClusterInfoArgs, global: &GlobalArgs) -> Result {
    if args.command.is_some() {
        // `cluster-info dump` is the real kubectl's (see [`super::fallback`]).
        unreachable!("cluster-info dump is handed over before parsing")
    }
    let cluster = global.connect().await?;
    // kubectl's namespace here is the flag's, else kube-system (not the context's).
    let namespace = global.namespace.as_deref().filter(|namespace| !namespace.is_empty()).unwrap_or("kube-system");
    let path = format!("/api/v1/namespaces/{namespace}/services?labelSelector=kubernetes.io%2Fcluster-service%3Dtrue");
    let listed = cluster.raw(http::Method::GET, &path, None).await;
    let list = match listed {
        Ok(body) => serde_json::from_slice::<Value>(&body).map_err(|err| Error::msg(format!("invalid list: {err}"))),
        Err(err) => Err(Error::from(err)),
    };
    let list = match list {
        Ok(list) => list,
        Err(err) => {
            write_stdout(DEBUG_LINE)?;
            return Err(err);
        }
    };
    let host = cluster.server();
    let mut text = format!("Kubernetes control plane is running at {host}\n");
    for service in list["items"].as_array().into_iter().flatten() {
        text.push_str(&service_line(service, host));
    }
    text.push_str(DEBUG_LINE);
    write_stdout(&text)
}

/// `NAME is running at LINK`: the load balancer's addresses, else the API server's proxy to it.
fn service_line(service: &Value, host: &str) -> String {
    let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
    let name = text(&service["metadata"]["name"]);
    let ports = service["spec"]["ports"].as_array().cloned().unwrap_or_default();
    let link = match service["status"]["loadBalancer"]["ingress"].get(0) {
        Some(ingress) => {
            let address =
                Some(text(&ingress["ip"])).filter(|ip| !ip.is_empty()).unwrap_or_else(|| text(&ingress["hostname"]));
            ports.iter().map(|port| format!("http://{address}:{} ", port["port"].as_i64().unwrap_or(0))).collect()
        }
        None => {
            let proxied = match ports.first() {
                Some(port) => {
                    let port_name = text(&port["name"]);
                    let https = port_name == "https" || port["port"].as_i64() == Some(443);
                    match (https, port_name.is_empty()) {
                        (true, _) => format!("https:{name}:{port_name}"),
                        (false, false) => format!("{name}:{port_name}"),
                        (false, true) => name.clone(),
                    }
                }
                None => name.clone(),
            };
            let namespace = text(&service["metadata"]["namespace"]);
            format!("{host}/api/v1/namespaces/{namespace}/services/{proxied}/proxy")
        }
    };
    let shown = Some(text(&service["metadata"]["labels"]["kubernetes.io/name"]))
        .filter(|label| !label.is_empty())
        .unwrap_or(name);
    format!("{shown} is running at {link}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_are_linked_as_kubectl_links_them() {
        let dns = serde_json::json!({
            "metadata": {"name": "kube-dns", "namespace": "kube-system", "labels": {"kubernetes.io/name": "CoreDNS"}},
            "spec": {"ports": [{"name": "dns", "port": 53}]}
        });
        assert_eq!(
            service_line(&dns, "https://h:6443"),
            "CoreDNS is running at https://h:6443/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\n"
        );
        let secure =
            serde_json::json!({"metadata": {"name": "m", "namespace": "x"}, "spec": {"ports": [{"port": 443}]}});
        assert!(service_line(&secure, "h").contains("/services/https:m:/proxy"));
        let balanced = serde_json::json!({
            "metadata": {"name": "lb"},
            "spec": {"ports": [{"port": 80}, {"port": 81}]},
            "status": {"loadBalancer": {"ingress": [{"hostname": "lb.example"}]}}
        });
        assert_eq!(service_line(&balanced, "h"), "lb is running at http://lb.example:80 http://lb.example:81 \n");
    }
}
