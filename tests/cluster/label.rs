//! `kubeupd label` and `kubeupd annotate` against a real kube-apiserver, with kubectl as the
//! oracle: each command runs in twin namespaces, kubeupd in one and kubectl in the other, and
//! must print the same bytes, exit the same way, and leave the same objects with the same field
//! ownership (`kubectl-label`, `kubectl-annotate`).

use crate::support;

use std::process::Output;

use support::{Twins, ensure_cluster_fixture, parse_json, testdata, twin_view};

fn twins(prefix: &str) -> Twins {
    Twins::with_objects(prefix, &["patch/app.yaml"], &[])
}

/// [`Twins::run_both`], which must print the same and exit the same way.
fn both(twins: &Twins, args: &[&str]) -> (Output, Output) {
    twins.assert_both(args)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Both tools' `-o json` output, compared as twins (namespace, uid and versions aside).
fn assert_same_objects(twins: &Twins, (ours, theirs): (Output, Output), context: &str) {
    assert!(ours.status.success(), "{context}: {}", String::from_utf8_lossy(&ours.stderr));
    assert_eq!(
        twin_view(parse_json(&ours.stdout), &twins.ours.name),
        twin_view(parse_json(&theirs.stdout), &twins.theirs.name),
        "{context}"
    );
}

#[test]
fn labels_change_like_kubectls() {
    let twins = twins("label");
    // --all takes the controllers' kube-root-ca.crt too, where they run.
    let every = if support::runs_namespace_controllers() {
        "configmap/kube-root-ca.crt labeled\nconfigmap/settings labeled\n"
    } else {
        "configmap/settings labeled\n"
    };
    let steps: &[(&[&str], &str)] = &[
        (&["label", "deploy", "web", "tier=frontend"], "deployment.apps/web labeled\n"),
        (&["label", "deploy", "web", "tier=backend"], ""),
        (&["label", "deploy", "web", "tier=frontend"], "deployment.apps/web not labeled\n"),
        (&["label", "deploy", "web", "tier=backend", "--overwrite"], "deployment.apps/web labeled\n"),
        (&["label", "deploy/web", "tier=backend", "--overwrite"], "deployment.apps/web not labeled\n"),
        (
            &["label", "deploy", "web", "tier-", "missing-"],
            "label \"missing\" not found.\ndeployment.apps/web unlabeled\n",
        ),
        // kubectl 1.36 and later: labels set and removed at once are `modified`; a removal with
        // --overwrite is `unlabeled` (1.32 said `labeled`); nothing to change sends nothing.
        (&["label", "deploy", "web", "tier=x", "app-", "--overwrite"], "deployment.apps/web modified\n"),
        (&["label", "deploy", "web", "tier-", "app=web", "--overwrite"], "deployment.apps/web modified\n"),
        (&["label", "deploy", "web", "tier=y"], "deployment.apps/web labeled\n"),
        (&["label", "deploy", "web", "tier-", "--overwrite"], "deployment.apps/web unlabeled\n"),
        (
            &["label", "deploy", "web", "gone-", "--resource-version=1"],
            "label \"gone\" not found.\ndeployment.apps/web not labeled\n",
        ),
        (&["label", "deploy/web", "svc/web", "release=1"], "deployment.apps/web labeled\nservice/web labeled\n"),
        (&["label", "cm", "-l", "app=web", "selected=yes"], "configmap/settings labeled\n"),
        (&["label", "cm", "--all", "every=one"], every),
        (&["label", "svc", "web", "--list"], "release=1\n"),
        (&["label", "svc", "--all", "--list"], "Listing labels for Service./web:\n release=1\n"),
        (&["label", "svc", "web", "more=2", "--dry-run=client"], "service/web labeled (dry run)\n"),
        (&["label", "svc", "web", "more=2", "--dry-run=server"], "service/web labeled (server dry run)\n"),
    ];
    for (args, expected) in steps {
        let (ours, _) = both(&twins, args);
        assert_eq!(stdout(&ours), *expected, "{args:?}");
        for object in ["deploy/web", "cm/settings", "svc/web"] {
            twins.assert_same(object, &format!("after {args:?}"));
        }
    }
    let web = twins.assert_same("deploy/web", "at the end");
    assert_eq!(web["metadata"]["labels"], serde_json::json!({"app": "web", "release": "1"}));
    let managers: Vec<&str> = web["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["manager"].as_str().unwrap())
        .collect();
    assert!(managers.contains(&"kubectl-label"), "{managers:?}");
    assert!(twins.assert_same("svc/web", "dry runs")["metadata"]["labels"].get("more").is_none());
}

#[test]
fn annotations_change_like_kubectls() {
    let twins = twins("annotate");
    let steps: &[(&[&str], &str)] = &[
        (&["annotate", "deploy", "web", "note=hello world", "owner=ops"], "deployment.apps/web annotated\n"),
        (&["annotate", "deploy", "web", "note=bye"], ""),
        (&["annotate", "deploy", "web", "note=bye", "--overwrite"], "deployment.apps/web annotated\n"),
        (&["annotate", "deploy", "web", "note-"], "deployment.apps/web annotated\n"),
        (&["annotate", "deploy", "web", "note-"], "deployment.apps/web annotated\n"),
        (&["annotate", "cm/settings", "svc/web", "a=1"], "configmap/settings annotated\nservice/web annotated\n"),
        (
            &["annotate", "deploy", "web", "owner-", "--dry-run=server"],
            "deployment.apps/web annotated (server dry run)\n",
        ),
        (&["annotate", "deploy", "web", "--list"], "owner=ops\n"),
    ];
    for (args, expected) in steps {
        let (ours, _) = both(&twins, args);
        assert_eq!(stdout(&ours), *expected, "{args:?}");
        for object in ["deploy/web", "cm/settings", "svc/web"] {
            twins.assert_same(object, &format!("after {args:?}"));
        }
    }
    let web = twins.assert_same("deploy/web", "at the end");
    let managers: Vec<&str> = web["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["manager"].as_str().unwrap())
        .collect();
    assert!(managers.contains(&"kubectl-annotate"), "{managers:?}");
}

#[test]
fn changed_objects_print_like_kubectls() {
    let twins = twins("label-output");
    for args in [
        &["label", "cm", "settings", "shown=yes", "-o", "json"][..],
        &["annotate", "cm", "settings", "shown=yes", "-o", "json"],
        &["label", "cm", "settings", "more=1", "-o", "json", "--dry-run=client"],
        &["annotate", "svc", "web", "x=1", "-o", "json", "--dry-run=server"],
    ] {
        assert_same_objects(&twins, twins.run_both(args), &format!("{args:?}"));
        twins.assert_same("cm/settings", &format!("after {args:?}"));
    }
    let (ours, _) = both(&twins, &["label", "cm", "settings", "named=1", "-o", "name"]);
    assert_eq!(stdout(&ours), "configmap/settings\n");
}

#[test]
fn local_changes_print_like_kubectls() {
    let twins = twins("label-local");
    ensure_cluster_fixture(&twins.ours, "crd/gadgets.yaml");
    let app = testdata("patch/app.yaml");
    let gadget = testdata("patch/gadget.yaml");
    let (ours, _) = both(&twins, &["label", "--local", "-f", app.to_str().unwrap(), "tier=web"]);
    assert_eq!(stdout(&ours), "deployment.apps/web labeled\nconfigmap/settings labeled\nservice/web labeled\n");
    both(&twins, &["label", "--local", "-f", gadget.to_str().unwrap(), "tier=back", "--overwrite", "-o", "yaml"]);
    both(&twins, &["annotate", "--local", "-f", gadget.to_str().unwrap(), "a=1", "-o", "json"]);
    both(&twins, &["label", "--local", "-f", gadget.to_str().unwrap(), "tier=back"]);
    twins.assert_same("cm/settings", "--local changes nothing on the server");
}

#[test]
fn failures_read_like_kubectls() {
    let twins = twins("label-fail");
    both(&twins, &["label", "cm", "settings", "x=1"]);
    for args in [
        // A failed precondition, one of several objects missing, a key that needs --overwrite.
        &["label", "cm", "settings", "x=2", "--overwrite", "--resource-version=1"][..],
        &["label", "cm/settings", "cm/nope", "y=1"],
        &["label", "cm/settings", "cm/nope", "x=2"],
        &["label", "deploy/web", "cm/settings", "x=2"],
        &["annotate", "cm", "nope", "a=1"],
        &["label", "foos", "x", "a=b"],
        &["label", "cm", "settings", "x=@@"],
        &["label", "cm", "settings", "x=y=z"],
        &["label", "cm", "settings", "x=1", "x-"],
        &["label", "cm", "settings"],
        &["label", "cm", "settings", "a=1", "b"],
        &["label", "x=1"],
        &["label", "cm", "x=1"],
        &["label", "cm,deploy", "--all", "y=1", "--resource-version=5"],
        &["label", "cm", "--all", "-l", "a=b", "y=1"],
        &["annotate", "cm", "settings", "a=1", "a-"],
        &["annotate", "cm", "settings"],
    ] {
        both(&twins, args);
        twins.assert_same("cm/settings", &format!("after {args:?}"));
    }
}
