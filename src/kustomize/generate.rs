//! `configMapGenerator` and `secretGenerator`: ConfigMaps and Secrets made from literals, files and
//! env files, and the content hash kustomize appends to their names.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use super::error::Error;
use super::types::kustomization::{Generator, GeneratorOptions};

/// Which kind a generator makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeneratedKind {
    ConfigMap,
    Secret,
}

/// A key and its value: text, or any bytes from a file.
pub type Pair = (String, Vec<u8>);

/// The key-value pairs of one generator, read from its sources. `read` loads a file named in the
/// kustomization (relative to it); `environment` looks up a variable (empty when unset). A key
/// given twice is an error, in kustomize's words (which say `configmap` for Secrets too).
pub fn pairs(
    generator: &Generator,
    read: &mut dyn FnMut(&str) -> Result<Vec<u8>, Error>,
    environment: &dyn Fn(&str) -> String,
) -> Result<Vec<Pair>, Error> {
    let mut pairs: Vec<Pair> = Vec::new();
    for literal in &generator.literals {
        let (key, value) = literal.split_once('=').ok_or_else(|| Error::InvalidLiteral(literal.clone()))?;
        pairs.push((key.to_string(), unquote(value).as_bytes().to_vec()));
    }
    for source in &generator.files {
        let (key, path) = match source.split_once('=') {
            Some((key, path)) => (key.to_string(), path),
            None => (source.rsplit('/').next().unwrap_or(source).to_string(), source.as_str()),
        };
        pairs.push((key, read(path)?));
    }
    for path in generator.envs.iter().chain(&generator.env) {
        let text = String::from_utf8(read(path)?).map_err(|_| Error::EnvFileNotUtf8(path.clone()))?;
        pairs.extend(env_pairs(&text, environment).into_iter().map(|(key, value)| (key, value.into_bytes())));
    }
    for (at, (key, _)) in pairs.iter().enumerate() {
        if pairs[..at].iter().any(|(earlier, _)| earlier == key) {
            return Err(Error::RepeatedKey { name: generator.name.clone(), key: key.clone() });
        }
    }
    Ok(pairs)
}

/// A literal's value without one pair of surrounding quotes, as kustomize reads it.
fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote) {
            return &value[1..value.len() - 1];
        }
    }
    value
}

/// The `KEY=VALUE` lines of an env file; blank lines and `#` comments are skipped.
fn env_pairs(text: &str, environment: &dyn Fn(&str) -> String) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for line in text.lines() {
        let line = line.trim_start_matches('\u{feff}').trim_end_matches('\r');
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        match line.split_once('=') {
            Some((key, value)) => pairs.push((key.trim_start().to_string(), value.to_string())),
            // A key alone takes its value from the environment, as in kustomize.
            None => pairs.push((line.trim().to_string(), environment(line.trim()))),
        }
    }
    pairs
}

/// The object a generator makes from `pairs`, with `options` (the kustomization's
/// `generatorOptions` merged with the generator's own).
pub fn object(kind: GeneratedKind, generator: &Generator, pairs: &[Pair], options: &GeneratorOptions) -> Value {
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(generator.name));
    if let Some(namespace) = generator.namespace.as_ref().filter(|namespace| !namespace.is_empty()) {
        metadata.insert("namespace".into(), json!(namespace));
    }
    if !options.labels.is_empty() {
        metadata.insert("labels".into(), json!(options.labels));
    }
    if !options.annotations.is_empty() {
        metadata.insert("annotations".into(), json!(options.annotations));
    }
    // A Secret's values are base64; a ConfigMap's are text in `data`, or base64 in `binaryData`
    // when they are not UTF-8.
    let mut data: BTreeMap<&str, String> = BTreeMap::new();
    let mut binary_data: BTreeMap<&str, String> = BTreeMap::new();
    for (key, value) in pairs {
        match (kind, std::str::from_utf8(value)) {
            (GeneratedKind::ConfigMap, Ok(text)) => data.insert(key, text.to_string()),
            (GeneratedKind::ConfigMap, Err(_)) => binary_data.insert(key, base64(value)),
            (GeneratedKind::Secret, _) => data.insert(key, base64(value)),
        };
    }
    let mut object = match kind {
        GeneratedKind::ConfigMap => json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata}),
        GeneratedKind::Secret => json!({
            "apiVersion": "v1", "kind": "Secret", "metadata": metadata,
            "type": generator.secret_type.clone().unwrap_or_else(|| "Opaque".into()),
        }),
    };
    // kustomize always gives a Secret its `data`, and a ConfigMap only what it has.
    if !data.is_empty() || kind == GeneratedKind::Secret {
        object["data"] = json!(data);
    }
    if !binary_data.is_empty() {
        object["binaryData"] = json!(binary_data);
    }
    if options.immutable {
        object["immutable"] = json!(true);
    }
    object
}

/// `value` in base64 as kustomize writes it: in lines of 70 characters, each ended by a newline,
/// when it needs more than one.
fn base64(value: &[u8]) -> String {
    const LINE: usize = 70;
    let encoded = base64::engine::general_purpose::STANDARD.encode(value);
    if encoded.len() < LINE {
        return encoded;
    }
    let mut lines = String::with_capacity(encoded.len() + encoded.len() / LINE + 1);
    for line in encoded.as_bytes().chunks(LINE) {
        lines.push_str(std::str::from_utf8(line).unwrap_or_default());
        lines.push('\n');
    }
    lines
}

/// A generator's own `options` (`local`) with the kustomization's `generatorOptions` (`global`)
/// merged in, as kustomize merges the Go structs (`MergeGlobalOptionsIntoLocal`): the local labels
/// and annotations win, and a flag is set when either sets it. Go cannot tell a `false` written
/// from one left out, so a local `disableNameSuffixHash: false` does not undo a global `true`.
pub fn merge_options(global: Option<&GeneratorOptions>, local: Option<&GeneratorOptions>) -> GeneratorOptions {
    let mut merged = global.cloned().unwrap_or_default();
    if let Some(local) = local {
        merged.labels.extend(local.labels.clone());
        merged.annotations.extend(local.annotations.clone());
        merged.disable_name_suffix_hash |= local.disable_name_suffix_hash;
        merged.immutable |= local.immutable;
    }
    merged
}

/// The suffix kustomize appends to a generated ConfigMap's or Secret's name: the SHA-256 of a
/// canonical JSON encoding of its kind, type and data, cut to 10 hex digits with some of them
/// replaced by letters (so the suffix never reads as a number or a bad word). Kustomize's encoding
/// looks the name up under a path it never finds, so the name always encodes as "".
pub fn hash_suffix(object: &Value) -> String {
    content_hash(object, "")
}

/// The content hash of a ConfigMap or Secret encoded with `name` (kubectl's `--append-hash`
/// encodes the object's name, kustomize an empty one).
pub fn content_hash(object: &Value, name: &str) -> String {
    let field = |name: &str| object.get(name).cloned().unwrap_or_else(|| json!(""));
    let encoded = match object["kind"].as_str() {
        Some("ConfigMap") => {
            let mut encoded = json!({"kind": "ConfigMap", "name": name, "data": field("data")});
            if object["binaryData"].is_object() {
                encoded["binaryData"] = field("binaryData");
            }
            encoded
        }
        Some("Secret") => {
            let mut encoded = json!({"kind": "Secret", "type": field("type"), "name": name, "data": field("data")});
            if object["stringData"].is_object() {
                encoded["stringData"] = field("stringData");
            }
            encoded
        }
        _ => object.clone(),
    };
    let digest = Sha256::digest(crate::gocompat::json::to_compact(&encoded).as_bytes());
    let hex: String = digest.iter().take(5).map(|byte| format!("{byte:02x}")).collect();
    hex.chars()
        .map(|c| match c {
            '0' => 'g',
            '1' => 'h',
            '3' => 'k',
            'a' => 'm',
            'e' => 't',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generator(literals: &[&str]) -> Generator {
        Generator {
            name: "cfg".into(),
            literals: literals.iter().map(|s| s.to_string()).collect(),
            ..Generator::default()
        }
    }

    #[test]
    fn config_map_hash_is_kustomizes() {
        // `kubectl kustomize` (v5.8.1) names this ConfigMap cfg-7gdc49gk6d, whatever its prefix.
        let generator = generator(&["b=2", "a=1"]);
        let pairs = pairs(&generator, &mut |_| unreachable!(), &|_| unreachable!()).unwrap();
        let object = object(GeneratedKind::ConfigMap, &generator, &pairs, &GeneratorOptions::default());
        assert_eq!(hash_suffix(&object), "7gdc49gk6d");
        assert_eq!(object["data"], json!({"a": "1", "b": "2"}));
    }

    #[test]
    fn options_merge_as_kustomize_merges_the_go_structs() {
        let options = |disable: bool, labels: &[(&str, &str)]| GeneratorOptions {
            disable_name_suffix_hash: disable,
            labels: labels.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect(),
            ..GeneratorOptions::default()
        };
        let global = options(true, &[("scope", "global"), ("both", "global")]);
        let merged = merge_options(Some(&global), Some(&options(false, &[("both", "local")])));
        // A local false is Go's zero value: it never undoes a global true.
        assert!(merged.disable_name_suffix_hash);
        assert_eq!(merged.labels["both"], "local");
        assert_eq!(merged.labels["scope"], "global");
        assert!(merge_options(Some(&options(false, &[])), Some(&options(true, &[]))).disable_name_suffix_hash);
        assert!(!merge_options(None, Some(&options(false, &[]))).disable_name_suffix_hash);
    }

    #[test]
    fn literals_lose_their_quotes_and_env_files_skip_comments() {
        let generator = Generator { envs: vec!["e.env".into()], ..generator(&["k=\"v=1\""]) };
        let text = "# comment\n\nA=1\n B= two \nC";
        let pairs = pairs(&generator, &mut |_| Ok(text.into()), &|key| format!("${key}")).unwrap();
        let expected = [("k", "v=1"), ("A", "1"), ("B", " two "), ("C", "$C")]
            .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()));
        assert_eq!(pairs, expected);
    }

    #[test]
    fn a_key_given_twice_is_kustomizes_error() {
        let generator = Generator { files: vec!["b".into()], ..generator(&["a=1", "b=2"]) };
        let err = pairs(&generator, &mut |_| Ok(b"3".to_vec()), &|_| unreachable!()).unwrap_err();
        assert_eq!(err.to_string(), "configmap cfg illegally repeats the key `b`");
    }
}
