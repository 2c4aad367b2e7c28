//! kubectl's data generators: `create configmap`, `create secret generic`, `create secret
//! docker-registry` and `create secret tls`. The caller reads the files the flags name and hands
//! in their bytes as keyed entries, in the flags' order (literals, files, env files); here the
//! entries are checked (key names, a key given twice) and the object is made as kubectl's
//! generator makes it, its name hashed on `--append-hash`.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::Error;

/// A key and its value, from `--from-literal`, `--from-file` or `--from-env-file`.
pub type Entry = (String, Vec<u8>);

/// `--from-literal=KEY=VALUE`.
pub fn literal(text: &str) -> Result<Entry, Error> {
    let (key, value) = text.split_once('=').ok_or_else(|| Error::LiteralSource(text.to_string()))?;
    Ok((key.to_string(), value.as_bytes().to_vec()))
}

/// The entries of an env file's `text`: KEY=VALUE lines, leading blanks and `#` comments skipped,
/// a key alone taking its value from `environment` (empty when unset).
pub fn env_file(text: &str, environment: impl Fn(&str) -> Option<String>) -> Result<Vec<Entry>, Error> {
    let mut pairs = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = if number == 0 { line.trim_start_matches('\u{feff}') } else { line };
        let line = line.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((key, value)) => (key, value.to_string()),
            None => (line, environment(line).unwrap_or_default()),
        };
        if let Err(reason) = crate::change::env::env_var_name(key) {
            return Err(Error::EnvKey { key: key.to_string(), reason });
        }
        pairs.push((key.to_string(), value.into_bytes()));
    }
    Ok(pairs)
}

/// `create configmap NAME`: text values in `data`, the others base64 in `binaryData`.
pub fn config_map(name: &str, entries: Vec<Entry>, append_hash: bool) -> Result<Value, Error> {
    data_object("ConfigMap", name, entries, None, append_hash)
}

/// `create secret generic NAME [--type TYPE]`: every value base64 in `data`.
pub fn generic_secret(
    name: &str,
    entries: Vec<Entry>,
    secret_type: Option<&str>,
    append_hash: bool,
) -> Result<Value, Error> {
    data_object("Secret", name, entries, secret_type, append_hash)
}

fn data_object(
    kind: &str,
    name: &str,
    entries: Vec<Entry>,
    secret_type: Option<&str>,
    append_hash: bool,
) -> Result<Value, Error> {
    let mut data = Map::new();
    let mut binary = Map::new();
    for (key, value) in entries {
        check_key(kind, &key)?;
        // kubectl names the map that has the key: Data, or a ConfigMap's BinaryData.
        let clash =
            if data.contains_key(&key) { Some("Data") } else { binary.contains_key(&key).then_some("BinaryData") };
        if let Some(map) = clash {
            return Err(Error::DuplicateKey { key, map, kind: kind.to_string(), name: name.to_string() });
        }
        match (kind, String::from_utf8(value)) {
            ("ConfigMap", Ok(text)) => data.insert(key, text.into()),
            ("ConfigMap", Err(bytes)) => binary.insert(key, encode(bytes.as_bytes()).into()),
            (_, Ok(text)) => data.insert(key, encode(text.as_bytes()).into()),
            (_, Err(bytes)) => data.insert(key, encode(bytes.as_bytes()).into()),
        };
    }
    let mut object = json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": name}});
    if !data.is_empty() {
        object["data"] = Value::Object(data);
    }
    if !binary.is_empty() {
        object["binaryData"] = Value::Object(binary);
    }
    if let Some(secret_type) = secret_type {
        object["type"] = secret_type.into();
    }
    if append_hash {
        let hashed = format!("{}-{}", name, crate::kustomize::content_hash(&object, name));
        object["metadata"]["name"] = hashed.into();
    }
    Ok(object)
}

/// The registry login of `create secret docker-registry` given by its flags.
#[derive(Debug, Clone, Default)]
pub struct DockerLogin<'a> {
    pub server: &'a str,
    pub username: &'a str,
    pub password: &'a str,
    pub email: &'a str,
}

impl DockerLogin<'_> {
    /// Whether the flags say enough to log in: a user, a password and a server.
    pub fn complete(&self) -> bool {
        !self.username.is_empty() && !self.password.is_empty() && !self.server.is_empty()
    }
}

/// What a docker-registry Secret holds: the files given (`--from-file`, keyed `.dockerconfigjson`
/// unless the user named a key), or a `.dockerconfigjson` made of the login.
#[derive(Debug, Clone)]
pub enum DockerSource<'a> {
    Files(Vec<Entry>),
    Login(DockerLogin<'a>),
}

/// `create secret docker-registry NAME`: the files, or the login written as Go's JSON of
/// kubectl's config types (fields in their order, empty ones left out).
pub fn docker_secret(name: &str, source: DockerSource, append_hash: bool) -> Result<Value, Error> {
    let mut data = Map::new();
    match source {
        DockerSource::Login(login) => {
            if !login.complete() {
                return Err(Error::DockerLogin);
            }
            let password = login.password;
            let fields = [
                ("username", login.username.to_string()),
                ("password", password.to_string()),
                ("email", login.email.to_string()),
                ("auth", encode(format!("{}:{password}", login.username).as_bytes())),
            ];
            let fields: Vec<String> = fields
                .iter()
                .filter(|(_, value)| !value.is_empty())
                .map(|(name, value)| {
                    format!("\"{name}\":{}", crate::gocompat::json::to_compact(&Value::from(value.as_str())))
                })
                .collect();
            let entry = format!("{{{}}}", fields.join(","));
            let server = crate::gocompat::json::to_compact(&Value::from(login.server));
            data.insert(
                ".dockerconfigjson".into(),
                encode(format!("{{\"auths\":{{{server}:{entry}}}}}").as_bytes()).into(),
            );
        }
        DockerSource::Files(entries) => {
            for (key, value) in entries {
                check_key("Secret", &key)?;
                if data.contains_key(&key) {
                    let name = name.to_string();
                    return Err(Error::DuplicateKey { key, map: "Data", kind: "Secret".into(), name });
                }
                data.insert(key, encode(&value).into());
            }
        }
    }
    Ok(secret(name, "kubernetes.io/dockerconfigjson", data, append_hash))
}

/// `create secret tls NAME`: the certificate and key, checked as Go's `tls.X509KeyPair` checks
/// them.
pub fn tls_secret(name: &str, cert: &[u8], key: &[u8], append_hash: bool) -> Result<Value, Error> {
    crate::gocompat::tls::check_key_pair(cert, key).map_err(Error::KeyPair)?;
    let mut data = Map::new();
    data.insert("tls.crt".into(), encode(cert).into());
    data.insert("tls.key".into(), encode(key).into());
    Ok(secret(name, "kubernetes.io/tls", data, append_hash))
}

/// A Secret of `secret_type` holding `data`, its name hashed when asked.
fn secret(name: &str, secret_type: &str, data: Map<String, Value>, append_hash: bool) -> Value {
    let mut object =
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": data, "type": secret_type});
    if append_hash {
        let hashed = format!("{name}-{}", crate::kustomize::content_hash(&object, name));
        object["metadata"]["name"] = hashed.into();
    }
    object
}

fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// kubectl's rule for ConfigMap and Secret keys.
fn check_key(kind: &str, key: &str) -> Result<(), Error> {
    let valid = !key.is_empty()
        && key.len() <= 253
        && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && key != "."
        && key != ".."
        && !key.starts_with("..");
    match valid {
        true => Ok(()),
        false => Err(Error::DataKey { key: key.to_string(), kind: kind.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: &str, value: &[u8]) -> Entry {
        (key.to_string(), value.to_vec())
    }

    #[test]
    fn a_config_map_keeps_text_in_data_and_bytes_in_binary_data() {
        let object = config_map("settings", vec![entry("a", b"1"), entry("blob", &[0xff, 0x00])], false).unwrap();
        assert_eq!(
            object,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"},
                   "data": {"a": "1"}, "binaryData": {"blob": "/wA="}})
        );
        let empty = config_map("empty", Vec::new(), false).unwrap();
        assert_eq!(empty, json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "empty"}}));
    }

    #[test]
    fn a_generic_secret_encodes_every_value_and_takes_its_type() {
        let object = generic_secret("s", vec![entry("user", b"admin")], Some("Opaque"), false).unwrap();
        assert_eq!(object["data"], json!({"user": "YWRtaW4="}));
        assert_eq!(object["type"], "Opaque");
        assert!(generic_secret("s", Vec::new(), None, false).unwrap().get("type").is_none());
    }

    #[test]
    fn an_appended_hash_changes_the_name_with_the_content() {
        let hashed = |value: &[u8]| {
            config_map("c", vec![entry("k", value)], true).unwrap()["metadata"]["name"].as_str().unwrap().to_string()
        };
        assert!(hashed(b"1").starts_with("c-"));
        assert_ne!(hashed(b"1"), hashed(b"2"));
        assert_eq!(hashed(b"1"), hashed(b"1"));
    }

    #[test]
    fn keys_are_refused_in_kubectls_words() {
        let twice = config_map("c", vec![entry("k", b"1"), entry("k", b"2")], false).unwrap_err();
        assert_eq!(
            twice.to_string(),
            "cannot add key \"k\", another key by that name already exists in Data for ConfigMap \"c\""
        );
        let binary_twice = config_map("c", vec![entry("k", &[0xff]), entry("k", b"2")], false).unwrap_err();
        assert!(binary_twice.to_string().contains("already exists in BinaryData for ConfigMap"), "{binary_twice}");
        for bad in ["", ".", "..", "..a", "a b", "a/b"] {
            let err = generic_secret("s", vec![entry(bad, b"1")], None, false).unwrap_err();
            assert!(err.to_string().starts_with(&format!("{bad:?} is not a valid key name for a Secret")), "{err}");
        }
        assert_eq!(literal("novalue").unwrap_err().to_string(), "invalid literal source novalue, expected key=value");
        assert_eq!(literal("k=v=w").unwrap(), entry("k", b"v=w"));
    }

    #[test]
    fn env_files_read_as_kubectl_reads_them() {
        let text = "\u{feff}A=1\n  # comment\n\n  B= two \nFROM_ENV\n";
        let environment = |key: &str| (key == "FROM_ENV").then(|| "set".to_string());
        let pairs = env_file(text, environment).unwrap();
        assert_eq!(pairs, vec![entry("A", b"1"), entry("B", b" two "), entry("FROM_ENV", b"set")]);
        let err = env_file("1BAD=x\n", |_| None).unwrap_err().to_string();
        assert!(err.starts_with("\"1BAD\" is not a valid key name: "), "{err}");
    }

    #[test]
    fn a_docker_login_is_written_as_gos_json() {
        let login = DockerLogin { server: "registry.example", username: "bot", password: "pw", email: "" };
        let object = docker_secret("reg", DockerSource::Login(login.clone()), false).unwrap();
        let config = base64::engine::general_purpose::STANDARD
            .decode(object["data"][".dockerconfigjson"].as_str().unwrap())
            .unwrap();
        assert_eq!(
            String::from_utf8(config).unwrap(),
            r#"{"auths":{"registry.example":{"username":"bot","password":"pw","auth":"Ym90OnB3"}}}"#
        );
        assert_eq!(object["type"], "kubernetes.io/dockerconfigjson");
        let incomplete = DockerLogin { password: "", ..login.clone() };
        assert_eq!(
            docker_secret("reg", DockerSource::Login(incomplete), false).unwrap_err().to_string(),
            "either --from-file or the combination of --docker-username, --docker-password and --docker-server is \
             required"
        );
        let files = DockerSource::Files(vec![entry(".dockerconfigjson", b"{}")]);
        let from_files = docker_secret("reg", files, false).unwrap();
        assert_eq!(from_files["data"], json!({".dockerconfigjson": "e30="}));
    }

    #[test]
    fn a_tls_secret_needs_a_certificate_and_its_key() {
        let err = tls_secret("t", b"not a certificate", b"not a key", false).unwrap_err();
        assert_eq!(
            err.to_string(),
            crate::gocompat::tls::check_key_pair(b"not a certificate", b"not a key").unwrap_err()
        );
    }
}
