//! `kubeupd create deployment|job|cronjob|role|clusterrole|rolebinding|clusterrolebinding`
//! against kubectl 1.37 on twin namespaces of the real apiserver: for each generator a table of
//! command lines (typical, edge and every refused one) printed with `--dry-run=client -o yaml`
//! must give kubectl's bytes, exit code and error words; created for real, the objects must be
//! kubectl's, field ownership (`kubectl-create`) included.
//!
//! Cluster-scoped objects (ClusterRole, ClusterRoleBinding) cannot be twins by namespace: their
//! names carry the twin namespace's name (the word `NS` in a command line), which reads
//! `NAMESPACE` when compared, and they are deleted at the end.
use crate::support;

use std::process::Output;

use support::{TestNamespace, Twins, parse_json, twin_view};

/// Runs `args` (the word `NS` standing for each side's namespace) with kubeupd and kubectl, and
/// asserts the same exit code, stdout and stderr, with each side's namespace read as `NAMESPACE`,
/// kubectl's usage hint read as kubeupd's, container names' random suffixes masked, and JSON
/// compared as values (kubeupd prints keys in order, on purpose); the uids and times the server
/// makes read `UID` and `TIME`.
/// Returns kubeupd's stdout.
fn same_output(twins: &Twins, args: &[&str]) -> String {
    let side = |ns: &TestNamespace, kubectl: bool| {
        let args: Vec<String> = args.iter().map(|arg| arg.replace("NS", &ns.name)).collect();
        let mut command = if kubectl { ns.kubectl() } else { ns.kubeupd_process() };
        let output = command.args(["-n", &ns.name]).args(&args).output().expect("the tool runs");
        view(&output, &ns.name, args.iter().any(|arg| arg == "json"))
    };
    let (ours, theirs) = (side(&twins.ours, false), side(&twins.theirs, true));
    assert_eq!(ours, theirs, "{args:?} (left: kubeupd, right: kubectl)");
    ours.1
}

/// `text` with every uid the server made read `UID`: the object's, its owner's, a Job's labels.
fn without_uids(text: &str) -> String {
    let uid = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    uid.replace_all(text, "UID").into_owned()
}

/// The object `what` (`NS` standing for the namespace) as the server keeps it, managedFields
/// included, as it compares with its twin.
fn stored(ns: &TestNamespace, what: &str) -> serde_json::Value {
    let what = what.replace("NS", &ns.name);
    let text = ns.kubectl_ok(&["get", &what, "-n", &ns.name, "-o", "json", "--show-managed-fields"]);
    twin_view(parse_json(without_uids(&text).as_bytes()), &ns.name)
}

fn view(output: &Output, namespace: &str, json: bool) -> (Option<i32>, String, String) {
    let random = regex::Regex::new(r"(name: [a-z0-9-]+)-[bcdfghjklmnpqrstvwxz2456789]{5}\n").unwrap();
    let stdout = without_uids(&String::from_utf8_lossy(&output.stdout).replace(namespace, "NAMESPACE"));
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap();
    let stdout = time.replace_all(&stdout, "TIME").into_owned();
    let stdout = match json && output.status.success() {
        true => format!("{:#}", parse_json(stdout.as_bytes())),
        false => random.replace_all(&stdout, "$1-RANDOM\n").into_owned(),
    };
    let stderr =
        String::from_utf8_lossy(&output.stderr).replace(namespace, "NAMESPACE").replace("'kubectl ", "'kubeupd ");
    (output.status.code(), stdout, stderr)
}

/// Each command line with `--dry-run=client -o yaml` (unless it names `-o`), before any `--`.
fn same_dry_runs(twins: &Twins, cases: &[&[&str]]) {
    for case in cases {
        let dash = case.iter().position(|arg| *arg == "--").unwrap_or(case.len());
        let mut args = vec!["create"];
        args.extend(&case[..dash]);
        args.push("--dry-run=client");
        if !case.contains(&"-o") {
            args.extend(["-o", "yaml"]);
        }
        args.extend(&case[dash..]);
        same_output(twins, &args);
    }
}

#[test]
fn deployments_print_as_kubectl_prints_them() {
    let twins = Twins::new("gen-deploy");
    same_dry_runs(
        &twins,
        &[
            &["deployment", "web", "--image=nginx"],
            &[
                "deploy",
                "web",
                "--image=nginx:1.27",
                "--image=registry.k8s.io/pause@sha256:0123",
                "--port=80",
                "-r",
                "3",
            ],
            &["deployment", "web", "--image=busybox,redis", "--replicas=0"],
            &["deployment", "web", "--image=busybox", "--port=0", "--", "sleep", "3600"],
            &["deployment", "web", "--image=busybox", "--port=-5"],
            // kubectl turns `_` and `.` into `-` and adds a random suffix (masked here).
            &["deployment", "web", "--image=example.com/my_app.v2:1"],
            &["deployment", "web", "--image=nginx", "-o", "json"],
            &["deployment", "web", "--image=nginx", "-o", "name"],
            // Refused: no image, no NAME or two, several images with a command, a bad number.
            &["deployment", "web"],
            &["deployment", "--image=nginx"],
            &["deployment", "web", "extra", "--image=nginx"],
            &["deployment", "web", "--image=a", "--image=b", "--", "sleep"],
            &["deployment", "web", "--image=nginx", "--replicas=many"],
        ],
    );
}

#[test]
fn jobs_and_cron_jobs_print_as_kubectl_prints_them() {
    let twins = Twins::new("gen-job");
    same_dry_runs(
        &twins,
        &[
            &["job", "once", "--image=busybox"],
            &["job", "once", "--image=busybox", "--", "date", "-u"],
            &["job", "once", "--image=busybox", "-o", "json"],
            &["job", "once"],
            &["job", "once", "--image=busybox", "--from=cronjob/nightly"],
            &["job", "once", "--from=cronjob/nightly", "--", "date"],
            &["job", "once", "--from=cronjob/missing"],
            &["job", "once", "--from=nosuchtype/x"],
            &["job", "once", "--from=deployment/missing"],
            &["job", "--image=busybox"],
            &["cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *"],
            &["cj", "nightly", "--image=busybox", "--schedule=*/5 * * * *", "--restart=Never", "--", "date"],
            &["cronjob", "nightly", "--image=busybox", "--schedule=@hourly", "-o", "name"],
            &["cronjob", "nightly", "--image=busybox"],
            &["cronjob", "nightly", "--schedule=@hourly"],
            &["cronjob", "nightly"],
            &["cronjob", "a", "b", "--image=busybox", "--schedule=@hourly"],
        ],
    );
}

#[test]
fn roles_and_bindings_print_as_kubectl_prints_them() {
    let twins = Twins::new("gen-rbac");
    same_dry_runs(
        &twins,
        &[
            &["role", "reader", "--verb=get", "--verb=list,watch", "--resource=pods"],
            &["role", "reader", "--verb=get,get", "--resource=po,rs.apps,deploy/scale,pod,pods/log"],
            &["role", "reader", "--verb=get", "--resource=pods", "--resource-name=a", "--resource-name=b,c"],
            &["role", "reader", "--verb=*,get", "--resource=*,nosuch"],
            &["role", "reader", "--verb=get", "--resource=*.apps,nosuch"],
            &["role", "reader", "--verb=get", "--resource=Pod", "-o", "json"],
            &["role", "binder", "--verb=bind,escalate", "--resource=roles.rbac.authorization.k8s.io"],
            &["role", "odd", "--verb=frob", "--resource=pods"],
            &["role", "reader", "--verb=get"],
            &["role", "reader", "--resource=pods"],
            &["role", "reader", "--verb=get", "--resource=.apps"],
            &["role", "reader", "--verb=get", "--resource=nosuch"],
            &["role", "reader", "--verb=get", "--resource=pods.nosuch"],
            &["role", "reader", "--verb=use", "--resource=pods"],
            &["role", "reader", "--verb=frob,impersonate", "--resource=pods"],
            &["role", "--verb=get", "--resource=pods"],
            &["clusterrole", "NS-c", "--verb=get", "--resource=nodes", "--non-resource-url=/logs/*,/healthz"],
            &["clusterrole", "NS-c", "--verb=get", "--non-resource-url=*"],
            &["clusterrole", "NS-c", "--aggregation-rule=a=b,c=d", "--aggregation-rule=a=e"],
            &["clusterrole", "NS-c", "--aggregation-rule=ab"],
            &["clusterrole", "NS-c", "--aggregation-rule=a=b", "--verb=get"],
            &["clusterrole", "NS-c", "--verb=get"],
            &["clusterrole", "NS-c", "--resource=pods"],
            &["clusterrole", "NS-c", "--verb=list", "--non-resource-url=/logs"],
            &["clusterrole", "NS-c", "--verb=get", "--non-resource-url=logs"],
            &["clusterrole", "NS-c", "--verb=get", "--non-resource-url=/a*/b"],
            &["rolebinding", "rb", "--role=reader", "--user=alice", "--user=bob", "--group=devs"],
            &["rolebinding", "rb", "--clusterrole=view", "--serviceaccount=NS:robot", "-o", "json"],
            &["rolebinding", "rb"],
            &["rolebinding", "rb", "--role=a", "--clusterrole=b"],
            &["rolebinding", "rb", "--role=a", "--serviceaccount=robot"],
            &["rolebinding", "rb", "--role=a", "--serviceaccount=ns:"],
            &["clusterrolebinding", "NS-crb", "--clusterrole=view", "--group=devs", "--serviceaccount=NS:robot"],
            &["clusterrolebinding", "NS-crb"],
            &["clusterrolebinding", "NS-crb", "--clusterrole=view", "--serviceaccount=a:b:c"],
        ],
    );
}

/// Created for real (and again, refused as existing), with `-o name`, `--save-config` and a
/// server dry run: kubectl's lines, and objects with kubectl's fields and managers.
#[test]
fn created_objects_match_kubectl() {
    let twins = Twins::new("gen-real");
    let created: &[&[&str]] = &[
        &["deployment", "web", "--image=nginx", "--port=80", "--", "nginx", "-g", "daemon off;"],
        &["deployment", "web", "--image=nginx"],
        &["deployment", "other", "--image=nginx", "--save-config", "-o", "name"],
        &["deployment", "checked", "--image=nginx", "--dry-run=server", "-o", "yaml"],
        &["cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *", "--", "date"],
        &["cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *"],
        &["cronjob", "bad", "--image=busybox", "--schedule=never"],
        &["job", "once", "--image=busybox", "--", "date"],
        &["job", "once", "--image=busybox"],
        &["role", "reader", "--verb=get,list", "--resource=pods,deploy.apps/scale"],
        &["role", "reader", "--verb=get", "--resource=pods"],
        &["rolebinding", "rb", "--role=reader", "--user=alice", "--serviceaccount=NS:default"],
        &["rolebinding", "rb", "--role=reader"],
        &["clusterrole", "NS-c", "--verb=get", "--non-resource-url=/logs/*"],
        &["clusterrole", "NS-agg", "--aggregation-rule=NS=yes"],
        &["clusterrole", "NS-c", "--verb=get", "--resource=nodes"],
        &["clusterrolebinding", "NS-crb", "--clusterrole=NS-c", "--group=devs"],
        &["clusterrolebinding", "NS-crb", "--clusterrole=NS-c"],
    ];
    for case in created {
        same_output(&twins, &[&["create"][..], case].concat());
    }
    for what in ["deployment/web", "cronjob/nightly", "job/once", "role/reader", "rolebinding/rb"] {
        assert_eq!(stored(&twins.ours, what), stored(&twins.theirs, what), "{what} (left: kubeupd, right: kubectl)");
    }
    // --save-config: kubectl records the typed object in Go's field order and without an empty
    // `annotations`; create's shared path records it as `apply` does (keys sorted, `annotations:
    // {}`), a known difference. The rest of the object, managers included, is kubectl's.
    let without_annotation = |ns: &TestNamespace| {
        let mut object = stored(ns, "deployment/other");
        let recorded = object["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].take();
        let mut recorded = parse_json(recorded.as_str().expect("recorded").as_bytes());
        recorded["metadata"].as_object_mut().unwrap().remove("annotations");
        (object, recorded)
    };
    assert_eq!(without_annotation(&twins.ours), without_annotation(&twins.theirs), "deployment/other (left: kubeupd)");
    for what in ["clusterrole/NS-c", "clusterrole/NS-agg", "clusterrolebinding/NS-crb"] {
        let view = |ns: &TestNamespace| {
            let mut object = stored(ns, what);
            // The aggregation controller fills in the rules of the aggregated role in its time.
            object.as_object_mut().unwrap().remove("rules");
            object
        };
        assert_eq!(view(&twins.ours), view(&twins.theirs), "{what} (left: kubeupd, right: kubectl)");
        for ns in [&twins.ours, &twins.theirs] {
            ns.kubectl_ok(&["delete", &what.replace("NS", &ns.name)]);
        }
    }
}

/// `create job --from=cronjob/NAME`: the CronJob's job template, owned by it and marked manual,
/// printed and created as kubectl makes it (the owner's uid, each side's own, read as `UID`).
/// kubectl 1.37 makes no name up here: NAME is required, as everywhere.
#[test]
fn jobs_from_cron_jobs_match_kubectl() {
    let twins = Twins::new("gen-from");
    let template = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: '0 3 * * *'\n  \
                    jobTemplate:\n    metadata:\n      labels: {team: a}\n      annotations: {note: kept}\n    spec:\n      \
                    backoffLimit: 2\n      template:\n        spec:\n          restartPolicy: Never\n          \
                    containers: [{name: c, image: busybox, command: [date]}]\n";
    for ns in [&twins.ours, &twins.theirs] {
        let created = support::with_stdin(ns.kubectl().args(["create", "-n", &ns.name, "-f", "-"]), template);
        assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    }
    let run = |ns: &TestNamespace, kubectl: bool, args: &[&str]| {
        let mut command = if kubectl { ns.kubectl() } else { ns.kubeupd_process() };
        view(&command.args(["-n", &ns.name]).args(args).output().expect("the tool runs"), &ns.name, false)
    };
    for args in [
        &["create", "job", "manual", "--from=cronjob/nightly", "--dry-run=client", "-o", "yaml"][..],
        &["create", "job", "manual", "--from=cj/nightly", "--dry-run=server", "-o", "yaml"],
        &["create", "job", "manual", "--from=cronjob/nightly"],
        &["create", "job", "manual", "--from=cronjob/nightly"],
    ] {
        let ours = run(&twins.ours, false, args);
        let theirs = run(&twins.theirs, true, args);
        assert_eq!(ours, theirs, "{args:?} (left: kubeupd, right: kubectl)");
    }
    assert_eq!(stored(&twins.ours, "job/manual"), stored(&twins.theirs, "job/manual"), "job/manual (left: kubeupd)");
}

#[test]
fn services_budgets_and_priority_classes_print_as_kubectl_prints_them() {
    let twins = Twins::new("gen-svc");
    same_dry_runs(
        &twins,
        &[
            &["service", "clusterip", "web", "--tcp=5678:8080,80:http", "--tcp=443"],
            &["svc", "clusterip", "db", "--clusterip=None"],
            &["service", "nodeport", "np", "--tcp=80", "--node-port=30080"],
            &["service", "loadbalancer", "lb", "--tcp=443:8443", "-o", "json"],
            &["service", "externalname", "ext", "--external-name=search.example.com", "--tcp=80"],
            &["service", "nodeport", "np"],
            &["service", "clusterip", "x"],
            &["service", "externalname", "ext", "--external-name=Not_DNS"],
            &["service", "clusterip", "x", "--tcp=abc:80"],
            &["service", "clusterip", "x", "--tcp=80:Bad--Name"],
            &["service", "clusterip", "x", "--tcp=80:70000"],
            &["service", "clusterip", "--tcp=80"],
            &["service", "clusterip", "a", "b", "--tcp=80"],
            &["service", "bogus", "x"],
            &["poddisruptionbudget", "p", "--selector=app=x,tier in (b,a),!legacy", "--min-available=50%"],
            &["pdb", "p", "--selector=app=x", "--max-unavailable=1", "-o", "json"],
            &["pdb", "p", "--min-available=1"],
            &["pdb", "p", "--selector=a=b"],
            &["pdb", "p", "--selector=a=b", "--min-available=1", "--max-unavailable=2"],
            &["pdb", "p", "--selector=a=b", "--min-available=1Gb"],
            &["pdb", "p", "--selector=a!=b", "--min-available=1"],
            &["priorityclass", "high", "--value=1000", "--description=high priority"],
            &["pc", "batch", "--value=-5", "--global-default", "--preemption-policy=Never", "-o", "json"],
            &["pc", "a", "b"],
        ],
    );
}

#[test]
fn created_services_budgets_and_priority_classes_match_kubectl() {
    let twins = Twins::new("gen-svc-real");
    for case in [
        &["service", "clusterip", "web", "--tcp=80:8080"][..],
        &["service", "clusterip", "web", "--tcp=80:8080"],
        &["service", "nodeport", "np", "--tcp=80", "--field-manager=ci", "-o", "name"],
        &["service", "externalname", "ext", "--external-name=search.example.com"],
        &["pdb", "budget", "--selector=app=web", "--min-available=1"],
        &["priorityclass", "NS-pc", "--value=7", "--description=test"],
        &["priorityclass", "NS-pc", "--value=7"],
    ] {
        same_output(&twins, &[&["create"][..], case].concat());
    }
    for what in ["service/ext", "poddisruptionbudget/budget"] {
        assert_eq!(stored(&twins.ours, what), stored(&twins.theirs, what), "{what} (left: kubeupd, right: kubectl)");
    }
    // Allocated addresses and node ports differ between twins; the rest is compared.
    for what in ["service/web", "service/np"] {
        let view = |ns: &TestNamespace| {
            let mut object = stored(ns, what);
            for port in object["spec"]["ports"].as_array_mut().unwrap() {
                port.as_object_mut().unwrap().remove("nodePort");
            }
            object
        };
        assert_eq!(view(&twins.ours), view(&twins.theirs), "{what} (left: kubeupd, right: kubectl)");
    }
    let view = |ns: &TestNamespace| stored(ns, &format!("priorityclass/{}-pc", ns.name));
    assert_eq!(view(&twins.ours), view(&twins.theirs), "priorityclass (left: kubeupd, right: kubectl)");
    for ns in [&twins.ours, &twins.theirs] {
        ns.kubectl_ok(&["delete", "priorityclass", &format!("{}-pc", ns.name)]);
    }
}
