//! JSON values read with serde, each reader saying only how an object's entries become a map:
//! manifests read strictly (a key given twice in one object is an error, as it is in YAML,
//! instead of the last one silently winning), the server's answers in bulk (`client::json`).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// How a JSON object's entries become a map, its values read as [`JsonValue<Self>`].
pub(crate) trait Entries: Sized {
    fn collect<'de, A: MapAccess<'de>>(entries: A) -> Result<Map<String, Value>, A::Error>;
}

/// A JSON value whose objects are built as `E` builds them.
pub(crate) struct JsonValue<E>(pub Value, PhantomData<E>);

impl<'de, E: Entries> Deserialize<'de> for JsonValue<E> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor::<E>(PhantomData)).map(|value| JsonValue(value, PhantomData))
    }
}

struct ValueVisitor<E>(PhantomData<E>);

impl<'de, E: Entries> Visitor<'de> for ValueVisitor<E> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<Er>(self, value: bool) -> Result<Value, Er> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<Er>(self, value: i64) -> Result<Value, Er> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<Er>(self, value: u64) -> Result<Value, Er> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<Er>(self, value: f64) -> Result<Value, Er> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<Er>(self, value: &str) -> Result<Value, Er> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<Er>(self, value: String) -> Result<Value, Er> {
        Ok(Value::String(value))
    }

    fn visit_unit<Er>(self) -> Result<Value, Er> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(JsonValue(item, _)) = seq.next_element::<JsonValue<E>>()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, entries: A) -> Result<Value, A::Error> {
        E::collect(entries).map(Value::Object)
    }
}

/// Objects without repeated keys: one is an error naming the key.
pub(crate) struct NoRepeatedKeys;

impl Entries for NoRepeatedKeys {
    fn collect<'de, A: MapAccess<'de>>(mut entries: A) -> Result<Map<String, Value>, A::Error> {
        let mut map = Map::new();
        while let Some(key) = entries.next_key::<String>()? {
            let JsonValue(value, _) = entries.next_value::<JsonValue<Self>>()?;
            if map.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate field {key:?}")));
            }
            map.insert(key, value);
        }
        Ok(map)
    }
}

/// A JSON value whose objects have no repeated keys.
pub(super) type Strict = JsonValue<NoRepeatedKeys>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_are_errors_with_their_place() {
        let parsed: Strict = serde_json::from_str(r#"{"a": [1, {"b": null}], "c": 1.5}"#).unwrap();
        assert_eq!(parsed.0, serde_json::json!({"a": [1, {"b": null}], "c": 1.5}));
        let err = serde_json::from_str::<Strict>("{\"data\": {\"a\": \"1\",\n \"a\": \"2\"}}").err().unwrap();
        assert_eq!(err.to_string(), "duplicate field \"a\" at line 2 column 10");
    }
}
