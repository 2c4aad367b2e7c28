//! How Go fills a struct from YAML through `sigs.k8s.io/yaml` and `encoding/json`, which is how
//! kustomize reads kustomization files, plugin configurations and transformer configurations:
//!
//! - a key names a field exactly or, failing that, whatever its case (`nameprefix` is
//!   `namePrefix`); the YAML went through a Go map, written with its keys sorted, so of two keys
//!   for one field the later in byte order wins;
//! - a key that names no field is an error (`json: unknown field "x"`, with
//!   `DisallowUnknownFields`) or ignored;
//! - `null` is a zero value: an unset field, an empty string in a map or a list;
//! - with a target struct (`yaml.Unmarshal`, not `yaml.YAMLToJSON`), a number or a boolean where
//!   a string is wanted is read as its text, as Go formats it.
//!
//! [`from_value`] is a serde deserializer over a parsed document that applies these rules to
//! whatever type is asked of it; free-form values (`serde_json::Value`) are read as they are.

use std::fmt::Display;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

/// What the Go reader does beyond what every reader does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// `DisallowUnknownFields`: a key that names no field is an error.
    pub refuse_unknown_fields: bool,
    /// `yaml.Unmarshal`'s target: numbers and booleans are read as text where a string is wanted.
    pub scalars_as_strings: bool,
}

/// kustomization files: `yaml.YAMLToJSON`, then a JSON decoder that refuses unknown fields.
pub const KUSTOMIZATION: Rules = Rules { refuse_unknown_fields: true, scalars_as_strings: false };
/// Built-in plugins' configurations: `yaml.Unmarshal` into the plugin.
pub const PLUGIN: Rules = Rules { refuse_unknown_fields: false, scalars_as_strings: true };
/// Transformer configuration files: `yaml.UnmarshalStrict`.
pub const STRICT_TARGET: Rules = Rules { refuse_unknown_fields: true, scalars_as_strings: true };

/// Why a document does not fit the type, in Go's words where they are known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub String);

impl de::Error for Error {
    fn custom<T: Display>(message: T) -> Self {
        Error(message.to_string())
    }
}

/// `value` read into `T` by Go's rules.
pub fn from_value<T: DeserializeOwned>(value: Value, rules: Rules) -> Result<T, Error> {
    T::deserialize(GoValue { value, rules })
}

/// A boolean or a number as Go's YAML reader writes it into a string: integers in full, floats
/// as `strconv.FormatFloat(f, 'g', -1, 32)`.
pub fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) if number.is_f64() => number.as_f64().map(|float| format_float32_g(float as f32)),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// Go's `%g` with the fewest digits that read back as the same `float32`: in exponent form when
/// the exponent is below -4 or at least 6 (`1e+06`), else in decimals.
fn format_float32_g(float: f32) -> String {
    if float == 0.0 {
        return if float.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    if float.is_infinite() {
        return if float < 0.0 { "-Inf".into() } else { "+Inf".into() };
    }
    if float.is_nan() {
        return "NaN".into();
    }
    // Rust's `{:e}` gives the shortest digits that round-trip, as Go's shortest formatting does.
    let scientific = format!("{float:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |rest| ("-", rest));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..6).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{fraction}e{exponent_sign}{:02}", exponent.abs());
    }
    let point = exponent + 1;
    let text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        let (whole, fraction) = digits.split_at(point as usize);
        format!("{whole}.{fraction}")
    };
    format!("{sign}{text}")
}

/// Whether two field names are equal as `encoding/json` folds them.
fn folds_to(field: &str, key: &str) -> bool {
    field.len() == key.len() && field.chars().zip(key.chars()).all(|(a, b)| a.to_lowercase().eq(b.to_lowercase()))
}

/// A `null` read as a number is 0, Go's zero value.
macro_rules! numbers_zero_when_null {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.value {
                Value::Null => visitor.visit_u64(0),
                _ => self.deserialize_any(visitor),
            }
        }
    )*};
}

struct GoValue {
    value: Value,
    rules: Rules,
}

impl GoValue {
    /// A struct's entries, each under the field its key names (or, when unknown, its key).
    fn struct_entries(map: Map<String, Value>, fields: &'static [&'static str], rules: Rules) -> Vec<(Key, Value)> {
        let mut keyed: Vec<(String, Value)> = map.into_iter().collect();
        keyed.sort_by(|(a, _), (b, _)| a.cmp(b));
        let mut entries: Vec<(Key, Value)> = Vec::new();
        for (key, value) in keyed {
            let field =
                fields.iter().find(|field| **field == key).or_else(|| fields.iter().find(|f| folds_to(f, &key)));
            let key = match field {
                Some(field) => Key::Field(field),
                None if rules.refuse_unknown_fields => Key::Unknown(key),
                None => continue,
            };
            match entries.iter_mut().find(|(known, _)| *known == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
        }
        entries
    }
}

/// A struct's key: a field it has, or a key it refuses.
#[derive(PartialEq)]
enum Key {
    Field(&'static str),
    Unknown(String),
}

impl<'de> de::Deserializer<'de> for GoValue {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let rules = self.rules;
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(flag) => visitor.visit_bool(flag),
            Value::Number(number) => match (number.as_u64(), number.as_i64(), number.as_f64()) {
                (Some(unsigned), ..) => visitor.visit_u64(unsigned),
                (_, Some(signed), _) => visitor.visit_i64(signed),
                (.., float) => visitor.visit_f64(float.unwrap_or_default()),
            },
            Value::String(text) => visitor.visit_string(text),
            Value::Array(items) => visitor.visit_seq(Items { items: items.into_iter(), rules }),
            object @ Value::Object(_) => GoValue { value: object, rules }.deserialize_map(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.value {
            Value::Null => visitor.visit_str(""),
            Value::Bool(_) | Value::Number(_) if self.rules.scalars_as_strings => {
                visitor.visit_string(scalar_text(&self.value).unwrap_or_default())
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_bool(false),
            _ => self.deserialize_any(visitor),
        }
    }

    numbers_zero_when_null! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8 deserialize_u16
        deserialize_u32 deserialize_u64 deserialize_f32 deserialize_f64
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_seq(Items { items: Vec::new().into_iter(), rules: self.rules }),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let rules = self.rules;
        match as_map(self.value) {
            Ok(map) => {
                let entries = map.into_iter().map(|(key, value)| (Key::Unknown(key), value)).collect::<Vec<_>>();
                visitor.visit_map(Entries { entries: entries.into_iter(), value: None, rules, refuse: false })
            }
            Err(value) => GoValue { value, rules }.deserialize_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let rules = self.rules;
        match as_map(self.value) {
            Ok(map) => {
                let entries = GoValue::struct_entries(map, fields, rules);
                visitor.visit_map(Entries { entries: entries.into_iter(), value: None, rules, refuse: true })
            }
            Err(value) => GoValue { value, rules }.deserialize_any(visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::String(text) => visitor.visit_enum(IntoDeserializer::<Error>::into_deserializer(text)),
            _ => self.deserialize_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct
        newtype_struct tuple tuple_struct identifier ignored_any
    }
}

/// The entries of an object, or none for `null` (Go's zero value); any other value as it is.
fn as_map(value: Value) -> Result<Map<String, Value>, Value> {
    match value {
        Value::Null => Ok(Map::new()),
        Value::Object(map) => Ok(map),
        other => Err(other),
    }
}

struct Items {
    items: std::vec::IntoIter<Value>,
    rules: Rules,
}

impl<'de> de::SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        match self.items.next() {
            Some(value) => seed.deserialize(GoValue { value, rules: self.rules }).map(Some),
            None => Ok(None),
        }
    }
}

/// A map's entries, or a struct's (`refuse`: a key it does not know is an error when reached,
/// so that errors come in the document's order, as Go reports the first).
struct Entries {
    entries: std::vec::IntoIter<(Key, Value)>,
    value: Option<Value>,
    rules: Rules,
    refuse: bool,
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        self.value = Some(value);
        let key = match key {
            Key::Field(field) => field.to_string(),
            Key::Unknown(key) if self.refuse => return Err(Error(format!("json: unknown field {key:?}"))),
            Key::Unknown(key) => key,
        };
        seed.deserialize(GoValue { value: Value::String(key), rules: self.rules }).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let value = self.value.take().unwrap_or(Value::Null);
        seed.deserialize(GoValue { value, rules: self.rules })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase", default)]
    struct Config {
        name_prefix: String,
        labels: BTreeMap<String, String>,
        images: Vec<Image>,
        count: i64,
        metadata: Option<Value>,
    }

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase", default)]
    struct Image {
        new_tag: String,
    }

    fn read(value: Value, rules: Rules) -> Result<Config, Error> {
        from_value(value, rules)
    }

    #[test]
    fn field_names_match_whatever_their_case_the_exact_one_first_then_the_last_in_byte_order() {
        let read = |value| read(value, KUSTOMIZATION).unwrap();
        assert_eq!(read(json!({"nameprefix": "a-"})).name_prefix, "a-");
        assert_eq!(read(json!({"NAMEPREFIX": "a-", "images": [{"NewTag": "v1"}]})).images[0].new_tag, "v1");
        // Sorted, `namePrefix` comes before `nameprefix`: the later is kept.
        assert_eq!(read(json!({"nameprefix": "b-", "namePrefix": "a-"})).name_prefix, "b-");
        // Keys of maps and of free-form values keep their case.
        let config = read(json!({"labels": {"App": "x"}, "metadata": {"Name": "m"}}));
        assert_eq!(config.labels["App"], "x");
        assert_eq!(config.metadata, Some(json!({"Name": "m"})));
    }

    #[test]
    fn unknown_fields_are_refused_in_gos_words_or_ignored() {
        let err = read(json!({"namePrefixx": "a-"}), KUSTOMIZATION).unwrap_err();
        assert_eq!(err.0, r#"json: unknown field "namePrefixx""#);
        let err = read(json!({"images": [{"tag": "v1"}], "zz": 1}), KUSTOMIZATION).unwrap_err();
        assert_eq!(err.0, r#"json: unknown field "tag""#, "the first in the document's (sorted) order");
        assert_eq!(read(json!({"namePrefixx": "a-", "count": 2}), PLUGIN).unwrap().count, 2);
    }

    #[test]
    fn nulls_are_zero_values_and_free_form_nulls_stay() {
        let config = read(
            json!({"namePrefix": null, "labels": {"a": null}, "images": null, "count": null,
            "metadata": {"a": null}}),
            KUSTOMIZATION,
        )
        .unwrap();
        assert_eq!((config.name_prefix.as_str(), config.labels["a"].as_str(), config.count), ("", "", 0));
        assert_eq!(config.metadata, Some(json!({"a": null})));
    }

    #[test]
    fn numbers_and_booleans_are_text_where_a_target_wants_a_string() {
        let config = read(json!({"namePrefix": 12, "labels": {"a": true, "b": 1.5, "c": 1.0e7, "d": 0.1}}), PLUGIN);
        let config = config.unwrap();
        assert_eq!(config.name_prefix, "12");
        let labels: Vec<&str> = config.labels.values().map(String::as_str).collect();
        assert_eq!(labels, ["true", "1.5", "1e+07", "0.1"]);
        // Without a target (a kustomization file), the types must agree.
        assert!(read(json!({"namePrefix": 12}), KUSTOMIZATION).is_err());
    }

    #[test]
    fn floats_are_formatted_as_go_formats_a_float32() {
        let cases = [(1.234567891, "1.2345679"), (100000.0, "100000"), (1e6, "1e+06"), (0.0001, "0.0001")];
        for (float, text) in cases {
            assert_eq!(scalar_text(&json!(float)).unwrap(), text, "{float}");
        }
        assert_eq!(scalar_text(&json!(0.00001)).unwrap(), "1e-05");
        assert_eq!(scalar_text(&json!(-2.5e-7)).unwrap(), "-2.5e-07");
    }
}
