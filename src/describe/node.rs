//! kubectl's Node describer (`describeNode`): roles, taints, lease, conditions, addresses,
//! capacity, system info, the pods on the node with their requests and limits, and the totals.

use std::collections::BTreeMap;
use std::time::SystemTime;

use serde_json::Value;

use super::pod::quantity;
use super::{
    Related, Writer, annotations, conditions_table, labels, list, rfc1123z, since, sorted_keys, str_of, text_nonempty,
};

const NANOS: i128 = 1_000_000_000;

/// `describeNode`; `related.pods` are the pods on it that have not ended.
pub(super) fn describe(w: &mut Writer, node: &Value, related: &Related, now: SystemTime) {
    let metadata = &node["metadata"];
    let spec = &node["spec"];
    let status = &node["status"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    let roles = roles(&metadata["labels"]);
    w.write(0, &format!("Roles:\t{}\n", if roles.is_empty() { "<none>".to_string() } else { roles.join(",") }));
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
    w.write(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(str_of(&metadata["creationTimestamp"]))));
    taints(w, list(&spec["taints"]));
    w.write(0, &format!("Unschedulable:\t{}\n", spec["unschedulable"].as_bool().unwrap_or(false)));
    match &related.lease {
        Some(Ok(lease)) => {
            w.write(0, "Lease:\n");
            let lease = &lease["spec"];
            w.write(1, &format!("HolderIdentity:\t{}\n", lease["holderIdentity"].as_str().unwrap_or("<unset>")));
            let time = |field: &str| lease[field].as_str().map_or("<unset>".to_string(), rfc1123z);
            w.write(1, &format!("AcquireTime:\t{}\n", time("acquireTime")));
            w.write(1, &format!("RenewTime:\t{}\n", time("renewTime")));
        }
        Some(Err(err)) => w.write(0, &format!("Lease:\tFailed to get lease: {err}\n")),
        None => {}
    }
    conditions_table(w, &status["conditions"], "LastHeartbeatTime");
    w.write(0, "Addresses:\n");
    for address in list(&status["addresses"]) {
        w.write(1, &format!("{}:\t{}\n", str_of(&address["type"]), str_of(&address["address"])));
    }
    for (field, title) in [("capacity", "Capacity"), ("allocatable", "Allocatable")] {
        if let Some(amounts) = status[field].as_object().filter(|a| !a.is_empty()) {
            w.write(0, &format!("{title}:\n"));
            for name in sorted_keys(amounts) {
                w.write(0, &format!("  {name}:\t{}\n", quantity(&amounts[name])));
            }
        }
    }
    resource_slices(w, &related.resource_slices);
    let info = &status["nodeInfo"];
    w.write(0, "System Info:\n");
    for (field, title) in [
        ("machineID", "Machine ID"),
        ("systemUUID", "System UUID"),
        ("bootID", "Boot ID"),
        ("kernelVersion", "Kernel Version"),
        ("osImage", "OS Image"),
        ("operatingSystem", "Operating System"),
        ("architecture", "Architecture"),
        ("containerRuntimeVersion", "Container Runtime Version"),
        ("kubeletVersion", "Kubelet Version"),
    ] {
        w.write(0, &format!("  {title}:\t{}\n", str_of(&info[field])));
    }
    if let Some(cidr) = text_nonempty(&spec["podCIDR"]) {
        w.write(0, &format!("PodCIDR:\t{cidr}\n"));
    }
    let cidrs: Vec<&str> = list(&spec["podCIDRs"]).iter().map(str_of).collect();
    if !cidrs.is_empty() {
        w.write(0, &format!("PodCIDRs:\t{}\n", cidrs.join(",")));
    }
    if let Some(provider) = text_nonempty(&spec["providerID"]) {
        w.write(0, &format!("ProviderID:\t{provider}\n"));
    }
    match &related.pods_error {
        Some(_) => w.write(0, "Pods:\tnot authorized\n"),
        None => node_resources(w, node, &related.pods, now),
    }
}

/// `findNodeRoles`: the `node-role.kubernetes.io/ROLE` labels and `kubernetes.io/role`, sorted.
fn roles(labels: &Value) -> Vec<String> {
    let mut roles: Vec<String> = labels
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| match key.strip_prefix("node-role.kubernetes.io/") {
            Some(role) if !role.is_empty() => Some(role.to_string()),
            Some(_) => None,
            None if key == "kubernetes.io/role" && !str_of(value).is_empty() => Some(str_of(value).to_string()),
            None => None,
        })
        .collect();
    roles.sort();
    roles.dedup();
    roles
}

/// `printNodeTaintsMultiline`: sorted by effect, then key.
fn taints(w: &mut Writer, taints: &[Value]) {
    w.write(0, "Taints:\t");
    if taints.is_empty() {
        w.line("<none>");
        return;
    }
    let mut taints: Vec<&Value> = taints.iter().collect();
    let key = |t: &Value| format!("{},{}", str_of(&t["effect"]), str_of(&t["key"]));
    taints.sort_by_key(|t| key(t));
    for (i, taint) in taints.into_iter().enumerate() {
        if i != 0 {
            w.write(0, "\t");
        }
        let (key, value, effect) = (str_of(&taint["key"]), str_of(&taint["value"]), str_of(&taint["effect"]));
        let text = match (value.is_empty(), effect.is_empty()) {
            (true, true) => key.to_string(),
            (false, true) => format!("{key}={value}:"),
            (true, false) => format!("{key}:{effect}"),
            (false, false) => format!("{key}={value}:{effect}"),
        };
        w.write(0, &format!("{text}\n"));
    }
}

/// `describeNodeResourceSlices`: the node's ResourceSlices by driver and pool.
fn resource_slices(w: &mut Writer, slices: &[Value]) {
    let mut pools: BTreeMap<String, (String, String, usize, usize)> = BTreeMap::new();
    for slice in slices {
        let driver = str_of(&slice["spec"]["driver"]).to_string();
        let pool = str_of(&slice["spec"]["pool"]["name"]).to_string();
        let entry = pools.entry(format!("{driver}/{pool}")).or_insert((driver, pool, 0, 0));
        entry.2 += 1;
        entry.3 += list(&slice["spec"]["devices"]).len();
    }
    if pools.is_empty() {
        return;
    }
    w.write(0, "Node-Local ResourceSlices:\n");
    w.write(1, "Driver\tPool\tSlices\tDevices\n");
    w.write(1, "------\t----\t------\t-------\n");
    for (shown, (driver, pool, slices, devices)) in pools.values().enumerate() {
        if shown >= 10 {
            w.write(1, &format!("...and {} more pools\n", pools.len() - 10));
            break;
        }
        w.write(1, &format!("{driver}\t{pool}\t{slices}\t{devices}\n"));
    }
}

/// A sum of quantities as apimachinery keeps it: billionths, and whether it prints in binary
/// units (the format of the first non-zero quantity added).
#[derive(Debug, Clone, Copy, Default)]
struct Amount {
    nanos: i128,
    binary: bool,
}

impl Amount {
    fn of(value: &Value) -> Amount {
        let text = str_of(value);
        let nanos = crate::gocompat::quantity::nanos(text).unwrap_or(0);
        Amount { nanos, binary: text.ends_with('i') }
    }

    fn add(self, other: Amount) -> Amount {
        let binary = if self.nanos == 0 { other.binary } else { self.binary };
        Amount { nanos: self.nanos + other.nanos, binary }
    }

    fn max(self, other: Amount) -> Amount {
        if other.nanos > self.nanos { other } else { self }
    }

    /// `Quantity.String`.
    fn text(self) -> String {
        let text = if self.nanos == 0 {
            return "0".to_string();
        } else if self.binary && self.nanos % (1024 * NANOS) == 0 {
            format!("{}Ki", self.nanos / (1024 * NANOS))
        } else {
            format!("{}n", self.nanos)
        };
        crate::gocompat::quantity::canonical(&text).unwrap_or(text)
    }

    fn milli(self) -> i128 {
        (self.nanos + 999_999).div_euclid(1_000_000)
    }

    fn value(self) -> i128 {
        (self.nanos + NANOS - 1).div_euclid(NANOS)
    }
}

type Amounts = BTreeMap<String, Amount>;

fn amounts(resources: &Value) -> Amounts {
    resources.as_object().into_iter().flatten().map(|(name, value)| (name.clone(), Amount::of(value))).collect()
}

fn add_all(to: &mut Amounts, more: &Amounts) {
    for (name, amount) in more {
        let sum = to.get(name).copied().unwrap_or_default().add(*amount);
        to.insert(name.clone(), sum);
    }
}

fn max_all(to: &mut Amounts, more: &Amounts) {
    for (name, amount) in more {
        let max = to.get(name).copied().unwrap_or_default().max(*amount);
        to.insert(name.clone(), max);
    }
}

/// `resourcehelper.PodRequests`/`PodLimits` (`field` is `requests` or `limits`): the
/// containers' sum, or more when an init container (with the sidecars started before it) asks
/// more; plus the pod's overhead; pod-level resources where set.
fn pod_amounts(pod: &Value, field: &str) -> Amounts {
    let spec = &pod["spec"];
    let mut total = Amounts::new();
    for container in list(&spec["containers"]) {
        add_all(&mut total, &amounts(&container["resources"][field]));
    }
    let mut sidecars = Amounts::new();
    let mut init_max = Amounts::new();
    for container in list(&spec["initContainers"]) {
        let own = amounts(&container["resources"][field]);
        if str_of(&container["restartPolicy"]) == "Always" {
            add_all(&mut sidecars, &own);
            let mut with = sidecars.clone();
            max_all(&mut init_max, &std::mem::take(&mut with));
        } else {
            let mut with = sidecars.clone();
            add_all(&mut with, &own);
            max_all(&mut init_max, &with);
        }
    }
    add_all(&mut total, &sidecars);
    max_all(&mut total, &init_max);
    let pod_level = amounts(&spec["resources"][field]);
    for name in ["cpu", "memory"] {
        if let Some(amount) = pod_level.get(name) {
            total.insert(name.to_string(), *amount);
        }
    }
    add_all(&mut total, &amounts(&spec["overhead"]));
    total
}

/// `describeNodeResource`.
fn node_resources(w: &mut Writer, node: &Value, pods: &[Value], now: SystemTime) {
    w.write(0, &format!("Non-terminated Pods:\t({} in total)\n", pods.len()));
    w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
    w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
    let status = &node["status"];
    let allocatable = match status["allocatable"].as_object().filter(|a| !a.is_empty()) {
        Some(_) => amounts(&status["allocatable"]),
        None => amounts(&status["capacity"]),
    };
    let get = |map: &Amounts, name: &str| map.get(name).copied().unwrap_or_default();
    let fraction = |part: i128, whole: i128| {
        if whole == 0 {
            // Go's float division by zero, then int64 of ±Inf or NaN (amd64).
            return i64::MIN;
        }
        (part as f64 / whole as f64 * 100.0) as i64
    };
    let (cpu, memory) = (get(&allocatable, "cpu"), get(&allocatable, "memory"));
    let mut requests_total = Amounts::new();
    let mut limits_total = Amounts::new();
    for pod in pods {
        let requests = pod_amounts(pod, "requests");
        let limits = pod_amounts(pod, "limits");
        let (cpu_request, cpu_limit) = (get(&requests, "cpu"), get(&limits, "cpu"));
        let (memory_request, memory_limit) = (get(&requests, "memory"), get(&limits, "memory"));
        w.write(
            1,
            &format!(
                "{}\t{}\t\t{} ({}%)\t{} ({}%)\t{} ({}%)\t{} ({}%)\t{}\n",
                str_of(&pod["metadata"]["namespace"]),
                str_of(&pod["metadata"]["name"]),
                cpu_request.text(),
                fraction(cpu_request.milli(), cpu.milli()),
                cpu_limit.text(),
                fraction(cpu_limit.milli(), cpu.milli()),
                memory_request.text(),
                fraction(memory_request.value(), memory.value()),
                memory_limit.text(),
                fraction(memory_limit.value(), memory.value()),
                since(str_of(&pod["metadata"]["creationTimestamp"]), now)
            ),
        );
        add_all(&mut requests_total, &requests);
        add_all(&mut limits_total, &limits);
    }
    w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
    w.write(1, "Resource\tRequests\tLimits\n");
    w.write(1, "--------\t--------\t------\n");
    let share = |part: i128, whole: i128| if whole == 0 { 0 } else { (part as f64 / whole as f64 * 100.0) as i64 };
    for (name, milli) in [("cpu", true), ("memory", false), ("ephemeral-storage", false)] {
        let (request, limit, whole) = (get(&requests_total, name), get(&limits_total, name), get(&allocatable, name));
        let units = |amount: Amount| if milli { amount.milli() } else { amount.value() };
        w.write(
            1,
            &format!(
                "{name}\t{} ({}%)\t{} ({}%)\n",
                request.text(),
                share(units(request), units(whole)),
                limit.text(),
                share(units(limit), units(whole))
            ),
        );
    }
    let standard = |name: &str| matches!(name, "cpu" | "memory" | "ephemeral-storage" | "pods");
    for name in allocatable.keys().filter(|name| name.starts_with("hugepages-")) {
        let (request, limit, whole) = (get(&requests_total, name), get(&limits_total, name), get(&allocatable, name));
        w.write(
            1,
            &format!(
                "{name}\t{} ({}%)\t{} ({}%)\n",
                request.text(),
                share(request.value(), whole.value()),
                limit.text(),
                share(limit.value(), whole.value())
            ),
        );
    }
    for name in allocatable.keys().filter(|name| !name.starts_with("hugepages-") && !standard(name)) {
        w.write(1, &format!("{name}\t{}\t{}\n", get(&requests_total, name).text(), get(&limits_total, name).text()));
    }
}
