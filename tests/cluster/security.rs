//! TLS is verified unless the user asks otherwise; credentials and Secret data never reach the
//! `-v` logs; kubeconfig exec credential plugins work.
use crate::support;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::Value;
use support::{TestNamespace, kubeconfig};

/// The test kubeconfig, changed by `edit` and written into `dir`.
fn kubeconfig_variant(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let text = std::fs::read_to_string(kubeconfig()).unwrap();
    let mut config: Value = serde_saphyr::from_str(&text).unwrap();
    edit(&mut config);
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&config).unwrap()).unwrap();
    path
}

fn kubeupd_with(config: &Path, dir: &Path, args: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("kubeupd")
        .unwrap()
        .arg("--kubeconfig")
        .arg(config)
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap()
}

#[test]
fn the_servers_certificate_is_verified_unless_asked_not_to() {
    let dir = tempfile::tempdir().unwrap();
    let without_ca = kubeconfig_variant(dir.path(), "no-ca", |config| {
        config["clusters"][0]["cluster"].as_object_mut().unwrap().remove("certificate-authority-data");
    });
    let refused = kubeupd_with(&without_ca, dir.path(), &["get", "namespace", "default", "-o", "name"]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.to_lowercase().contains("certificate"), "{stderr}");
    let allowed = kubeupd_with(
        &without_ca,
        dir.path(),
        &["--insecure-skip-tls-verify", "get", "namespace", "default", "-o", "name"],
    );
    assert!(allowed.status.success(), "{}", String::from_utf8_lossy(&allowed.stderr));
    assert_eq!(String::from_utf8_lossy(&allowed.stdout), "namespace/default\n");
}

#[test]
fn credentials_and_secret_data_never_reach_the_logs() {
    let namespace = TestNamespace::new("sec-logs");
    let dir = tempfile::tempdir().unwrap();
    // A client certificate and key that the server ignores (it authenticates the token).
    let (certificate, key_path) = support::client_certificate(dir.path());
    let key = std::fs::read_to_string(&key_path).unwrap();
    let b64 = |path: &Path| base64::engine::general_purpose::STANDARD.encode(std::fs::read(path).unwrap());
    let (key_data, cert_data) = (b64(&key_path), b64(&certificate));
    let token = support::credentials().token;
    let config = kubeconfig_variant(dir.path(), "with-key", |config| {
        let user = &mut config["users"][0]["user"];
        user["client-key-data"] = Value::String(key_data.clone());
        user["client-certificate-data"] = Value::String(cert_data.clone());
    });
    let secret_value = "s3cr3t-value-never-logged";
    let secret =
        format!("apiVersion: v1\nkind: Secret\nmetadata: {{name: creds}}\nstringData: {{password: {secret_value}}}\n");
    std::fs::write(dir.path().join("secret.yaml"), &secret).unwrap();
    let changed = secret.replace(secret_value, "an0ther-value-never-logged");
    std::fs::write(dir.path().join("changed.yaml"), &changed).unwrap();
    let n = namespace.name.as_str();
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let runs: Vec<Vec<String>> = vec![
        vec!["apply".into(), "-f".into(), file("secret.yaml")],
        vec!["apply".into(), "-f".into(), file("changed.yaml")],
        vec!["get".into(), "secret".into(), "creds".into(), "-o".into(), "yaml".into()],
        vec![
            "patch".into(),
            "secret".into(),
            "creds".into(),
            "--type".into(),
            "merge".into(),
            "-p".into(),
            r#"{"stringData":{"other":"th1rd-value-never-logged"}}"#.into(),
        ],
        vec![
            "update".into(),
            "secret/creds".into(),
            "--set-string".into(),
            "stringData.more=f0urth-value-never-logged".into(),
        ],
    ];
    for run in &runs {
        let mut args = vec!["-v=9", "-n", n];
        args.extend(run.iter().map(String::as_str));
        let output = kubeupd_with(&config, dir.path(), &args);
        assert!(output.status.success(), "{run:?}: {}", String::from_utf8_lossy(&output.stderr));
        let log = String::from_utf8_lossy(&output.stderr);
        assert!(log.contains(" 200 OK in ") || log.contains(" 201 Created in "), "{run:?}: -v=9 logs requests:\n{log}");
        let key_line = key.lines().nth(1).unwrap();
        for (what, needle) in [
            ("the token", token.as_str()),
            ("an Authorization header", "Authorization"),
            ("the client key", key_line),
            ("the client key (base64)", &key_data[..40]),
            ("Secret data", "never-logged"),
            ("Secret data (base64)", "bmV2ZXItbG9nZ2Vk"),
        ] {
            assert!(!log.contains(needle), "{run:?}: {what} appears in the -v=9 log:\n{log}");
        }
    }
}

#[test]
fn exec_credential_plugins_provide_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let token = support::credentials().token;
    let plugin = dir.path().join("credential-plugin");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\necho called >> {}\ncat <<'JSON'\n{{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{token}\"}}}}\nJSON\n",
            dir.path().join("calls").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&plugin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = kubeconfig_variant(dir.path(), "exec", |config| {
        config["users"][0]["user"] = serde_json::json!({"exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": plugin.to_str().unwrap(),
            "interactiveMode": "Never"
        }});
    });
    let output = kubeupd_with(&config, dir.path(), &["get", "namespace", "default", "-o", "name"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "namespace/default\n");
    assert!(std::fs::read_to_string(dir.path().join("calls")).unwrap().contains("called"));
}
