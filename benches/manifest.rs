//! Reading manifests as `-f` reads them (`manifest::read_paths`): the CRD-heavy inputs of
//! testdata/crd-heavy (large schemas), the small examples of testdata/kubernetes-examples, and
//! 1,000 generated Deployments of the usual shape (the rows of scripts/bench.sh that read
//! manifests).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use kubeupd::manifest;

fn deployments(dir: &std::path::Path) -> PathBuf {
    let document = |n: usize| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{n}\n  labels:\n    app: web-{n}\n    tier: frontend\n\
             spec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: web-{n}\n  template:\n    metadata:\n      \
             labels:\n        app: web-{n}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        \
             ports:\n        - containerPort: 80\n          protocol: TCP\n        resources:\n          limits: {{cpu: 500m, memory: 128Mi}}\n        \
             env:\n        - name: MODE\n          value: \"production\"\n        readinessProbe:\n          httpGet: {{path: /healthz, port: 80}}\n          \
             periodSeconds: 10\n"
        )
    };
    let text: Vec<String> = (0..1000).map(document).collect();
    let path = dir.join("deployments.yaml");
    std::fs::write(&path, text.join("---\n")).unwrap();
    path
}

fn reading(c: &mut Criterion) {
    let testdata = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata"));
    let dir = tempfile::tempdir().unwrap();
    let inputs = [
        ("crd-heavy", testdata.join("crd-heavy")),
        ("kubernetes-examples", testdata.join("kubernetes-examples")),
        ("1000-deployments", deployments(dir.path())),
    ];
    for (name, path) in inputs {
        let paths = [path];
        c.bench_function(&format!("read {name}"), |b| {
            b.iter(|| black_box(manifest::read_paths(black_box(&paths), true).unwrap().len()))
        });
    }
}

criterion_group!(benches, reading);
criterion_main!(benches);
