//! The objects kubectl's generators make (`create configmap|secret|deployment|... -o json`) are
//! Go structs, which kubectl's JSON printer writes in their fields' order (`kind`, `apiVersion`,
//! `metadata`, then the kind's own fields), where it writes the maps of objects read from the
//! server with sorted keys; so does its KYAML printer. The fields' order comes from k8s.io/api
//! ([`super::go_fields`]).

use serde::ser::{SerializeMap as _, SerializeSeq as _};
use serde_json::Value;

use super::go_fields::{KINDS, STRUCTS};

/// The Go struct of `object`'s kind, when kubeupd knows it.
pub fn struct_of(object: &Value) -> Option<&'static str> {
    let (api_version, kind) = (object["apiVersion"].as_str()?, object["kind"].as_str()?);
    let (_, _, name) = KINDS.iter().find(|(version, known, _)| *version == api_version && *known == kind)?;
    Some(name)
}

/// The entries of `map`, a value of the struct `struct_name` (`""`: a map, its keys sorted), in
/// the struct's order of fields, each with the struct of its value; keys the struct does not have
/// (none, from kubeupd's generators) after them.
pub fn entries<'a>(
    map: &'a serde_json::Map<String, Value>,
    struct_name: &str,
) -> Vec<(&'a str, &'a Value, &'static str)> {
    let fields = fields(struct_name);
    let known = fields.iter().filter_map(|(name, struct_name)| {
        map.get_key_value(*name).map(|(key, value)| (key.as_str(), value, *struct_name))
    });
    let others = map.iter().filter(|(name, _)| !fields.iter().any(|(field, _)| field == name));
    known.chain(others.map(|(name, value)| (name.as_str(), value, ""))).collect()
}

/// A value of a Go struct's field, written with the keys of each struct in the struct's order.
pub struct Typed<'a> {
    value: &'a Value,
    /// The struct the value is (a list or pointer of), or `""` for a scalar or a map.
    struct_name: &'static str,
}

impl<'a> Typed<'a> {
    /// `value`, of the struct `struct_name` (see [`struct_of`]), to serialize in Go's order.
    pub fn new(value: &'a Value, struct_name: &'static str) -> Typed<'a> {
        Typed { value, struct_name }
    }
}

fn fields(struct_name: &str) -> &'static [(&'static str, &'static str)] {
    match STRUCTS.binary_search_by(|(name, _)| (*name).cmp(struct_name)) {
        Ok(at) => STRUCTS[at].1,
        Err(_) => &[],
    }
}

impl serde::Serialize for Typed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.value {
            Value::Object(map) if !self.struct_name.is_empty() => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (name, value, struct_name) in entries(map, self.struct_name) {
                    out.serialize_entry(name, &Typed { value, struct_name })?;
                }
                out.end()
            }
            Value::Array(items) => {
                let mut out = serializer.serialize_seq(Some(items.len()))?;
                for value in items {
                    out.serialize_element(&Typed { value, struct_name: self.struct_name })?;
                }
                out.end()
            }
            value => value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn structs_are_written_in_their_fields_order() {
        let deployment = json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"b": "1", "a": "2"}},
            "spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx", "resources": {}}]}}, "replicas": 1},
            "status": {},
        });
        let text = serde_json::to_string(&Typed::new(&deployment, struct_of(&deployment).unwrap())).unwrap();
        assert_eq!(
            text,
            r#"{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","labels":{"a":"2","b":"1"}},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"web","image":"nginx","resources":{}}]}}},"status":{}}"#
        );
        assert!(struct_of(&json!({"apiVersion": "example.com/v1", "kind": "Widget"})).is_none());
        // Sorted names, for the search.
        assert!(STRUCTS.windows(2).all(|pair| pair[0].0 < pair[1].0));
    }
}
