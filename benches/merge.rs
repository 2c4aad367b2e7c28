//! Three-way strategic merge patches of large objects (the work `apply` does per object).
//!
//! `KUBEUPD_BENCH_DUMP=DIR` also writes the inputs as JSON, for scripts/bench-go-smp.sh, which
//! times Kubernetes' own Go implementation on the same documents.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kubeupd::merge::strategic;
use kubeupd::schema::builtin;
use serde_json::{Value, json};

fn container(index: usize, image: &str, env: impl Iterator<Item = (usize, String)>) -> Value {
    let env: Vec<Value> = env.map(|(key, value)| json!({"name": format!("VAR_{key}"), "value": value})).collect();
    json!({"name": format!("c{index:03}"), "image": image, "env": env, "ports": [{"containerPort": 8000 + index}]})
}

fn deployment(containers: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "big", "labels": {"app": "big"}},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "big"}},
                 "template": {"metadata": {"labels": {"app": "big"}}, "spec": {"containers": containers}}}
    })
}

/// 200 containers with 10 env entries each; the new configuration changes images and values of
/// some, drops an env entry from others, removes one container and adds another; the live object
/// carries server defaults and status.
fn large_deployment() -> (Value, Value, Value) {
    let original: Vec<Value> = (0..200).map(|i| container(i, "app:1", (0..10).map(|k| (k, format!("v{k}"))))).collect();
    let mut modified: Vec<Value> = (0..200)
        .filter(|i| *i != 7)
        .map(|i| {
            let image = if i % 10 == 0 { "app:2" } else { "app:1" };
            let env = (0..10)
                .filter(|k| !(i % 7 == 0 && *k == 9))
                .map(|k| (k, if i % 5 == 0 && k == 0 { "changed".to_string() } else { format!("v{k}") }));
            container(i, image, env)
        })
        .collect();
    modified.push(container(200, "new:1", (0..10).map(|k| (k, format!("v{k}")))));
    let mut current = deployment(original.clone());
    for item in current["spec"]["template"]["spec"]["containers"].as_array_mut().unwrap() {
        item["imagePullPolicy"] = json!("IfNotPresent");
        item["terminationMessagePath"] = json!("/dev/termination-log");
        item["resources"] = json!({});
    }
    current["status"] = json!({"replicas": 3, "readyReplicas": 3});
    (deployment(original), deployment(modified), current)
}

/// 10,000 keys; the new configuration changes 100, removes 100 and adds 100.
fn large_configmap() -> (Value, Value, Value) {
    let data = |keys: &mut dyn Iterator<Item = (String, String)>| {
        Value::Object(keys.map(|(k, v)| (k, Value::String(v))).collect())
    };
    let original = data(&mut (0..10_000).map(|i| (format!("key{i:05}"), format!("value{i}"))));
    let modified = data(
        &mut (100..10_100)
            .map(|i| (format!("key{i:05}"), if i < 200 { "changed".into() } else { format!("value{i}") })),
    );
    let configmap =
        |data: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": data});
    let mut current = configmap(original.clone());
    current["metadata"]["annotations"] = json!({"other": "writer"});
    (configmap(original), configmap(modified), current)
}

fn three_way(c: &mut Criterion) {
    let cases = [("deployment_200x10", large_deployment()), ("configmap_10000", large_configmap())];
    if let Ok(dir) = std::env::var("KUBEUPD_BENCH_DUMP") {
        for (name, (original, modified, current)) in &cases {
            let document = json!({"original": original, "modified": modified, "current": current});
            std::fs::write(format!("{dir}/{name}.json"), document.to_string()).unwrap();
        }
    }
    for (name, (original, modified, current)) in &cases {
        let schema =
            builtin().for_kind(original["apiVersion"].as_str().unwrap(), original["kind"].as_str().unwrap()).unwrap();
        c.bench_function(&format!("three_way/{name}"), |b| {
            b.iter(|| {
                strategic::create_three_way(black_box(original), black_box(modified), black_box(current), &schema, true)
                    .unwrap()
            })
        });
        // The same work from and to JSON bytes, as Kubernetes' CreateThreeWayMergePatch does it.
        let bytes: Vec<Vec<u8>> =
            [original, modified, current].iter().map(|value| serde_json::to_vec(value).unwrap()).collect();
        c.bench_function(&format!("three_way_bytes/{name}"), |b| {
            b.iter(|| {
                let [original, modified, current] =
                    [0, 1, 2].map(|i| kubeupd::client::decode_json(black_box(&bytes[i])).unwrap());
                let patch = strategic::create_three_way(&original, &modified, &current, &schema, true).unwrap();
                serde_json::to_vec(&patch).unwrap()
            })
        });
        let patch = strategic::create_three_way(original, modified, current, &schema, true).unwrap();
        let patch_bytes = serde_json::to_vec(&patch).unwrap();
        c.bench_function(&format!("apply_bytes/{name}"), |b| {
            b.iter(|| {
                let current = kubeupd::client::decode_json(black_box(&bytes[2])).unwrap();
                let patch = kubeupd::client::decode_json(black_box(&patch_bytes)).unwrap();
                serde_json::to_vec(&strategic::apply(current, patch, &schema).unwrap()).unwrap()
            })
        });
        c.bench_function(&format!("apply/{name}"), |b| {
            b.iter(|| strategic::apply(black_box(current.clone()), black_box(patch.clone()), &schema).unwrap())
        });
    }
}

criterion_group!(benches, three_way);
criterion_main!(benches);
