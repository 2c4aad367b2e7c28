//! `kubeupd create deployment|job|cronjob|role|clusterrole|rolebinding|clusterrolebinding|
//! service|ingress|poddisruptionbudget|priorityclass|quota` and `create token` against kubectl
//! 1.37 on twin namespaces of the real apiserver: for each generator a table of
//! command lines (typical, edge and every refused one) printed with `--dry-run=client -o yaml`
//! must give kubectl's bytes, exit code and error words; created for real, the objects must be
//! kubectl's, field ownership (`kubectl-create`) included.
//!
//! Tokens differ per call: what is compared is their claims (audiences, subject, bound object,
//! lifetime), with the exit codes and errors.
//!
//! Cluster-scoped objects (ClusterRole, ClusterRoleBinding, PriorityClass) cannot be twins by
//! namespace: their
//! names carry the twin namespace's name (the word `NS` in a command line), which reads
//! `NAMESPACE` when compared, and they are deleted at the end.
use crate::support;

use std::process::Output;

use support::{TestNamespace, Twins, parse_json, twin_view};

/// Runs `args` (the word `NS` standing for each side's namespace) with kubeupd and kubectl, and
/// asserts the same exit code, stdout and stderr, with each side's namespace read as `NAMESPACE`,
/// kubectl's usage hint read as kubeupd's, container names' random suffixes masked (JSON is
/// compared as text: the keys in the Go structs' order, as kubectl prints them); the uids and
/// times the server makes read `UID` and `TIME`.
/// Returns kubeupd's stdout.
fn same_output(twins: &Twins, args: &[&str]) -> String {
    let side = |ns: &TestNamespace, kubectl: bool| {
        let args: Vec<String> = args.iter().map(|arg| arg.replace("NS", &ns.name)).collect();
        let mut command = if kubectl { ns.kubectl() } else { ns.kubeupd_process() };
        let output = command.args(["-n", &ns.name]).args(&args).output().expect("the tool runs");
        view(&output, &ns.name)
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

/// The object `what` as [`stored`] has it, with its last-applied annotation read back and compared
/// without `metadata.annotations`: kubectl records the typed object in Go's field order and
/// without an empty `annotations`; create's shared path records it as `apply` does (keys sorted,
/// `annotations: {}`), a known difference. The rest of the object, managers included, is
/// kubectl's.
fn stored_without_last_applied(ns: &TestNamespace, what: &str) -> (serde_json::Value, serde_json::Value) {
    let mut object = stored(ns, what);
    let recorded = object["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].take();
    let mut recorded = parse_json(recorded.as_str().expect("recorded").as_bytes());
    recorded["metadata"].as_object_mut().unwrap().remove("annotations");
    (object, recorded)
}

fn view(output: &Output, namespace: &str) -> (Option<i32>, String, String) {
    let random = regex::Regex::new(r"(name: [a-z0-9-]+)-[bcdfghjklmnpqrstvwxz2456789]{5}\n").unwrap();
    let stdout = without_uids(&String::from_utf8_lossy(&output.stdout).replace(namespace, "NAMESPACE"));
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap();
    let stdout = time.replace_all(&stdout, "TIME").into_owned();
    let random_json = regex::Regex::new(r#"("name": "[a-z0-9-]+)-[bcdfghjklmnpqrstvwxz2456789]{5}""#).unwrap();
    let stdout = random.replace_all(&stdout, "$1-RANDOM\n");
    let stdout = random_json.replace_all(&stdout, "$1-RANDOM\"").into_owned();
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

/// kubectl's generators read the NAME, then `-o`, before their own checks, the server or a file:
/// a bad `-o` is the error even where a later check would fail too.
#[test]
fn a_bad_output_format_is_refused_before_the_generators_own_checks() {
    let twins = Twins::new("gen-output");
    same_dry_runs(
        &twins,
        &[
            &["deployment", "web", "--image=a", "--image=b", "-o", "bogus", "--", "sleep"],
            &["deployment", "--image=a", "-o", "bogus"],
            &["configmap", "--from-file=/nonexistent", "-o", "bogus"],
            &["namespace", "-o", "bogus"],
            &["job", "j", "-o", "bogus"],
            &["job", "j", "--from=cronjob/not-there", "-o", "bogus"],
            &["cronjob", "c", "--image=x", "--schedule=x", "--restart=Sometimes", "-o", "bogus"],
            &["role", "r", "-o", "bogus"],
            &["role", "r", "--verb=get", "--resource=nothings", "-o", "bogus"],
            &["rolebinding", "rb", "-o", "bogus"],
            &["service", "clusterip", "s", "--tcp=abc", "-o", "bogus"],
            &["ingress", "i", "--rule=bad", "-o", "bogus"],
            &["pdb", "p", "--min-available=1", "--max-unavailable=1", "-o", "bogus"],
            &["quota", "q", "--hard=cpu=x", "-o", "bogus"],
            &["priorityclass", "pc", "--value=1", "--preemption-policy=bad", "-o", "bogus"],
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
        &["deployment", "checked", "--image=nginx", "--dry-run=server", "-o", "json"],
        &["service", "clusterip", "checked", "--tcp=80", "--dry-run=server", "-o", "json"],
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
    // --save-config: see [`stored_without_last_applied`].
    let what = "deployment/other";
    assert_eq!(
        stored_without_last_applied(&twins.ours, what),
        stored_without_last_applied(&twins.theirs, what),
        "{what} (left: kubeupd)"
    );
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
        view(&command.args(["-n", &ns.name]).args(args).output().expect("the tool runs"), &ns.name)
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
fn services_print_as_kubectl_prints_them() {
    let twins = Twins::new("gen-svc");
    same_dry_runs(
        &twins,
        &[
            &["service", "clusterip", "web", "--tcp=80:8080,443", "--tcp=53:dns"],
            &["svc", "clusterip", "web", "--clusterip=None"],
            &["service", "clusterip", "web", "--clusterip=10.0.0.10", "--tcp=+80", "-o", "json"],
            &["service", "nodeport", "web", "--tcp=80:http", "--node-port=30080"],
            &["service", "nodeport", "web", "--tcp=80", "--node-port=0x7560", "-o", "name"],
            &["service", "loadbalancer", "web", "--tcp=443:https,80:8080:9"],
            &["service", "externalname", "web", "--external-name=db.example.com"],
            &["service", "externalname", "web", "--external-name=db.example.com", "--tcp=5432"],
            // Refused: no port, bad ports and names, a flag of another type, no NAME or two.
            &["service", "loadbalancer", "web"],
            &["service", "clusterip", "web", "--tcp=99999"],
            &["service", "clusterip", "web", "--tcp=x:80"],
            &["service", "clusterip", "web", "--tcp=80:0"],
            &["service", "clusterip", "web", "--tcp=80:Bad_Name"],
            &["service", "clusterip", "web", "--tcp=80:"],
            &["service", "clusterip", "web", "--tcp=80:a-very-long-port-name"],
            &["service", "externalname", "web", "--external-name=Bad_Name"],
            &["service", "externalname", "web"],
            &["service", "nodeport", "web", "--clusterip=None", "--tcp=80"],
            &["service", "nodeport", "web", "--tcp=80", "--node-port=x"],
            &["service", "clusterip", "--tcp=80"],
            &["service", "clusterip", "a", "b", "--tcp=80"],
        ],
    );
}

#[test]
fn ingresses_print_as_kubectl_prints_them() {
    let twins = Twins::new("gen-ing");
    same_dry_runs(
        &twins,
        &[
            &["ingress", "web", "--rule=foo.com/bar=svc1:8080,tls=cert", "--class=nginx", "--annotation=a=b"],
            &[
                "ing",
                "web",
                "--rule=foo.com/bar=svc1:8080,tls=cert",
                "--rule=foo.com/*=svc:http,tls",
                "--rule=/x*=a:1",
                "--rule=bar.com/=b:2,tls=cert",
                "--annotation=c=",
                "--annotation=d=e=f",
                "--default-backend=def:80",
            ],
            &["ingress", "web", "--rule=a.com/=a:1,tls=c", "--rule=/b=s:0,tls=c", "--rule=/c=s:1,tls"],
            &["ingress", "web", "--default-backend=def:http", "-o", "json"],
            &["ingress", "web", "--default-backend=def:", "-o", "name"],
            // Refused, in kubectl's order.
            &["ingress", "web"],
            &["ingress", "web", "--rule=bad"],
            &["ingress", "web", "--rule=foo.com=svc:80"],
            &["ingress", "web", "--rule=/=svc:80,tls=a,b"],
            &["ingress", "web", "--rule=/a/b=svc:80:90,tls=x=y"],
            &["ingress", "web", "--rule=foo.com/=svc:80,tls=a=b"],
            &["ingress", "web", "--rule=/=svc:80", "--annotation=noequals"],
            &["ingress", "web", "--default-backend=a:b:c"],
            &["ingress", "web", "--default-backend=a"],
            &["ingress", "--rule=/=svc:80"],
        ],
    );
}

#[test]
fn budgets_priority_classes_and_quotas_print_as_kubectl_prints_them() {
    let twins = Twins::new("gen-policy");
    same_dry_runs(
        &twins,
        &[
            &["poddisruptionbudget", "web", "--selector=app=web", "--min-available=1"],
            &["pdb", "web", "--selector=app==web,tier in (b,a,b),!old,env,zone notin (c)", "--max-unavailable=50%"],
            &["pdb", "web", "--selector=a=b,a=c", "--max-unavailable=01", "-o", "json"],
            &["pdb", "web", "--selector=a=b", "--min-available=99999999999"],
            &["pdb", "web", "--selector=app=web"],
            &["pdb", "web", "--min-available=1"],
            &["pdb", "web", "--selector=a=b", "--min-available=1", "--max-unavailable=2"],
            &["pdb", "web", "--selector=a=b", "--min-available=1Gb"],
            &["pdb", "web", "--selector=a=b", "--max-unavailable=%"],
            &["pdb", "web", "--selector=a!=b", "--max-unavailable=1"],
            &["pdb", "--selector=a=b", "--min-available=1"],
            &["priorityclass", "NS-high"],
            &["pc", "NS-high", "--value=1000", "--global-default", "--description=high", "--preemption-policy=Never"],
            &["pc", "NS-high", "--value=-5", "--global-default=false", "-o", "json"],
            &["pc", "NS-high", "--value=0x10"],
            &["pc", "NS-high", "--value=x"],
            &["pc", "NS-high", "--value=99999999999"],
            &[
                "quota",
                "compute",
                "--hard=cpu=1000m,memory=1.5Gi,pods=10,services=1e3,a=0.5,b=+1G,c=01",
                "--scopes=BestEffort",
            ],
            &[
                "resourcequota",
                "compute",
                "--hard=d=1024Mi,e=8Gi,f=1000,g=0.1n,h=1.G,n=1e-12,y=7Ki,z=1000E,cpu=1,cpu=2",
            ],
            &["quota", "compute"],
            &["quota", "compute", "--hard=", "--scopes=Terminating,NotBestEffort", "-o", "json"],
            &["quota", "compute", "--hard=cpu"],
            &["quota", "compute", "--hard=cpu=1=2"],
            &["quota", "compute", "--hard=cpu=x"],
            &["quota", "compute", "--hard=cpu=1e"],
            &["quota", "compute", "--hard=cpu=1", "--scopes=a,"],
            &["quota", "--hard=cpu=1"],
        ],
    );
}

/// Created for real (and again, refused as existing, or refused by the server), with `-o name`,
/// `--save-config`, `--field-manager`, `--validate` and a server dry run: kubectl's lines, and
/// objects with kubectl's fields and managers (the cluster IPs and node ports the server
/// allocates are not compared).
#[test]
fn created_services_ingresses_and_policies_match_kubectl() {
    let twins = Twins::new("gen-real2");
    let created: &[&[&str]] = &[
        &["service", "clusterip", "web", "--tcp=80:8080,443", "--tcp=53:dns"],
        &["service", "clusterip", "web", "--tcp=80"],
        &["svc", "clusterip", "headless", "--clusterip=None", "--save-config", "-o", "name"],
        &["service", "nodeport", "np", "--tcp=80:http", "--validate=false"],
        &["service", "nodeport", "outside", "--tcp=80", "--node-port=80"],
        &["service", "loadbalancer", "lb", "--tcp=443:https", "--field-manager=ci"],
        &["service", "externalname", "ext", "--external-name=db.example.com"],
        &["service", "externalname", "checked", "--external-name=db.example.com", "--dry-run=server", "-o", "yaml"],
        &["ingress", "web", "--rule=example.com/api*=api:8080,tls=web-tls", "--class=nginx", "--annotation=team=web"],
        &["ingress", "web", "--default-backend=api:80"],
        &["ingress", "upper", "--rule=/=Upper:80"],
        &["pdb", "web", "--selector=app=web,tier in (a,b),!old", "--min-available=50%", "--save-config"],
        &["pdb", "web", "--selector=app=web", "--max-unavailable=1"],
        &["quota", "compute", "--hard=cpu=1000m,memory=1.5Gi,pods=10", "--scopes=NotTerminating", "-o", "name"],
        &["quota", "compute", "--hard=pods=1"],
        &["quota", "odd", "--scopes=Sometimes"],
        &["priorityclass", "NS-high", "--value=1000", "--description=high", "--preemption-policy=Never"],
        &["pc", "NS-high", "--value=5"],
        &["pc", "NS-odd", "--preemption-policy=Sometimes"],
    ];
    for case in created {
        same_output(&twins, &[&["create"][..], case].concat());
    }
    // kubectl's `create service` takes --save-config and ignores it: no annotation on either side.
    for what in [
        "service/web",
        "service/headless",
        "service/np",
        "service/lb",
        "service/ext",
        "ingress/web",
        "quota/compute",
        "priorityclass/NS-high",
    ] {
        assert_eq!(stored(&twins.ours, what), stored(&twins.theirs, what), "{what} (left: kubeupd, right: kubectl)");
    }
    let what = "pdb/web";
    assert_eq!(
        stored_without_last_applied(&twins.ours, what),
        stored_without_last_applied(&twins.theirs, what),
        "{what} (left: kubeupd)"
    );
    for ns in [&twins.ours, &twins.theirs] {
        ns.kubectl_ok(&["delete", &format!("priorityclass/{}-high", ns.name)]);
    }
}

/// The claims of a service account token (its JWT payload) as they compare with its twin's: the
/// namespace read `NAMESPACE`, uids `UID`, the token's own id gone, and its times as its
/// lifetime (`exp` - `iat`).
fn token_claims(token: &str, namespace: &str) -> serde_json::Value {
    use base64::Engine as _;
    let payload = token.split('.').nth(1).unwrap_or_else(|| panic!("not a JWT: {token:?}"));
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).expect("a base64url payload");
    let mut claims = parse_json(&bytes);
    let lifetime = claims["exp"].as_i64().expect("exp") - claims["iat"].as_i64().expect("iat");
    let fields = claims.as_object_mut().expect("claims");
    for volatile in ["exp", "iat", "nbf", "jti"] {
        fields.remove(volatile);
    }
    fields.insert("lifetime".into(), lifetime.into());
    parse_json(without_uids(&claims.to_string()).replace(namespace, "NAMESPACE").as_bytes())
}

/// `create token`: for each command line the same exit code and errors as kubectl, and tokens
/// with the same claims (printed alone, without a newline when not on a terminal, or in the
/// TokenRequest of `-o json`); kubectl's refusals, its own and the server's, in its words.
#[test]
fn tokens_match_kubectl() {
    let twins = Twins::new("gen-token");
    for ns in [&twins.ours, &twins.theirs] {
        ns.kubectl_ok(&["create", "serviceaccount", "robot", "-n", &ns.name]);
        ns.kubectl_ok(&["create", "secret", "generic", "key", "-n", &ns.name]);
    }
    let run = |ns: &TestNamespace, kubectl: bool, args: &[&str]| {
        let mut command = if kubectl { ns.kubectl() } else { ns.kubeupd_process() };
        command.args(["-n", &ns.name, "create", "token"]).args(args).output().expect("the tool runs")
    };
    for args in [
        &["robot"][..],
        &["robot", "--audience=https://vault.example", "--audience=b", "--duration=2h"],
        &["robot", "--duration=1h30m"],
        &["robot", "--bound-object-kind=Secret", "--bound-object-name=key"],
    ] {
        let (ours, theirs) = (run(&twins.ours, false, args), run(&twins.theirs, true, args));
        assert_eq!(
            (ours.status.code(), String::from_utf8_lossy(&ours.stderr)),
            (theirs.status.code(), String::from_utf8_lossy(&theirs.stderr)),
            "{args:?} (left: kubeupd, right: kubectl)"
        );
        assert!(
            !ours.stdout.ends_with(b"\n") && !theirs.stdout.ends_with(b"\n"),
            "{args:?}: a newline after the token"
        );
        let claims =
            |output: &Output, ns: &TestNamespace| token_claims(&String::from_utf8_lossy(&output.stdout), &ns.name);
        assert_eq!(
            claims(&ours, &twins.ours),
            claims(&theirs, &twins.theirs),
            "{args:?} (left: kubeupd, right: kubectl)"
        );
    }
    let answer = |ns: &TestNamespace, kubectl: bool| {
        let output = run(ns, kubectl, &["robot", "--audience=a", "--duration=1h", "-o", "json"]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let mut answer = parse_json(&output.stdout);
        let token = answer["status"]["token"].take();
        answer["status"]["token"] = token_claims(token.as_str().expect("a token"), &ns.name);
        answer["status"].as_object_mut().unwrap().remove("expirationTimestamp");
        answer["metadata"].as_object_mut().unwrap().remove("creationTimestamp");
        parse_json(without_uids(&answer.to_string()).replace(&ns.name, "NAMESPACE").as_bytes())
    };
    assert_eq!(answer(&twins.ours, false), answer(&twins.theirs, true), "-o json (left: kubeupd, right: kubectl)");
    for refused in [
        &["token", "robot", "-o", "name"][..],
        &["token", "missing"],
        &["token"],
        &["token", "a", "b"],
        &["token", "robot", "--duration=-1s"],
        &["token", "robot", "--duration=1500ms"],
        &["token", "robot", "--duration=10s"],
        &["token", "robot", "--duration=5"],
        &["token", "robot", "--duration=x"],
        &["token", "robot", "--audience="],
        &["token", "robot", "--bound-object-name=key"],
        &["token", "robot", "--bound-object-uid=0d4691ed-659b-4935-a832-355f77ee47cc"],
        &["token", "robot", "--bound-object-kind=Job", "--bound-object-name=key"],
        &["token", "robot", "--bound-object-kind=Pod"],
        &["token", "robot", "--bound-object-kind=Secret", "--bound-object-name=missing"],
        &[
            "token",
            "robot",
            "--bound-object-kind=Secret",
            "--bound-object-name=key",
            "--bound-object-uid=0d4691ed-659b-4935-a832-355f77ee47cc",
        ],
        &["token", "robot", "--dry-run=client"],
        &["token", "robot", "-o", "bad"],
    ] {
        same_output(&twins, &[&["create"][..], refused].concat());
    }
}
