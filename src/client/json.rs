//! Decoding JSON bodies into `serde_json::Value`, with large objects built in one pass.
//!
//! serde_json's own `Value` inserts keys into its `BTreeMap` one at a time; for objects with
//! thousands of keys (a big ConfigMap) collecting the entries first and building the map in bulk
//! is about twice as fast. Small objects are still inserted directly.

use serde::de::MapAccess;
use serde_json::{Map, Value};

use crate::manifest::json::{Entries, JsonValue};

/// Objects with more keys than this are built in bulk.
const BULK_FROM: usize = 32;

/// Parses a JSON document. Repeated keys keep the last value, as with serde_json and Go.
pub fn decode(bytes: &[u8]) -> serde_json::Result<Value> {
    serde_json::from_slice::<JsonValue<InBulk>>(bytes).map(|decoded| decoded.0)
}

/// Whether `live` holds every field of `wanted` with its value: maps key by key, lists item by
/// item. What the server adds (defaults, status, metadata) does not count against it: an object
/// read back after its write's answer was lost is judged by it.
pub fn contains(live: &Value, wanted: &Value) -> bool {
    match (live, wanted) {
        (Value::Object(live), Value::Object(wanted)) => {
            wanted.iter().all(|(key, value)| live.get(key).is_some_and(|found| contains(found, value)))
        }
        (Value::Array(live), Value::Array(wanted)) => {
            live.len() == wanted.len() && live.iter().zip(wanted).all(|(found, value)| contains(found, value))
        }
        (Value::Number(live), Value::Number(wanted)) => live.as_f64() == wanted.as_f64(),
        _ => live == wanted,
    }
}

/// Objects built in bulk past [`BULK_FROM`] keys; a repeated key keeps its last value.
struct InBulk;

impl Entries for InBulk {
    fn collect<'de, A: MapAccess<'de>>(mut entries: A) -> Result<Map<String, Value>, A::Error> {
        let mut map = Map::new();
        while let Some((key, value)) = entries.next_entry::<String, JsonValue<Self>>()? {
            map.insert(key, value.0);
            if map.len() == BULK_FROM {
                let mut collected: Vec<(String, Value)> = std::mem::take(&mut map).into_iter().collect();
                while let Some((key, value)) = entries.next_entry::<String, JsonValue<Self>>()? {
                    collected.push((key, value.0));
                }
                // Bulk building sorts stably and keeps the last of repeated keys.
                return Ok(collected.into_iter().collect());
            }
        }
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_serde_json() {
        let big: String = (0..100).map(|i| format!("\"k{}\": {i}", 100 - i)).collect::<Vec<_>>().join(",");
        for text in [
            r#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": {}}, "n": 9223372036854775807}"#.to_string(),
            format!("{{{big}}}"),
            format!(r#"{{{big}, "k1": "last", "k99": "wins"}}"#),
            r#"{"a": 1, "a": 2}"#.to_string(),
        ] {
            let expected: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(decode(text.as_bytes()).unwrap(), expected, "{text}");
        }
        assert!(decode(b"{").is_err());
    }
}
