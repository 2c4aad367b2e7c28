//! How Go fills a struct from YAML through `sigs.k8s.io/yaml` and `encoding/json`, which is how
//! kustomize reads kustomization files, plugin configurations and transformer configurations:
//!
//! - a key names a field exactly or, failing that, whatever its case (`nameprefix` is
//!   `namePrefix`); the YAML went through a Go map, written with its keys sorted, so of two keys
//!   for one field the later in byte order wins;
//! - a key that names no field is an error (`json: unknown field "x"`, with
//!   `DisallowUnknownFields`) or ignored;
//! - `null` is a zero value: an unset field, an empty string in a map or a list;
//! - a whole number (`1e3`, `2.0`) fills an integer field, as its JSON text (`1000`) does;
//! - with a target struct (`yaml.Unmarshal`, not `yaml.YAMLToJSON`), a number or a boolean where
//!   a string is wanted is read as its text, as Go formats it;
//! - a value of the wrong kind is an error in `encoding/json`'s words (`json: cannot unmarshal
//!   array into Go struct field Kustomization.namePrefix of type string`) when the Go types it is
//!   read into are given ([`GoTypes`]); the first in the document's (sorted) order is reported.
//!
//! [`from_value`] is a serde deserializer over a parsed document that applies these rules to
//! whatever type is asked of it; free-form values (`serde_json::Value`) are read as they are.

use std::fmt::Display;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer as _, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Number, Value};

/// What the Go reader does beyond what every reader does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// `DisallowUnknownFields`: a key that names no field is an error.
    pub refuse_unknown_fields: bool,
    /// `encoding/json`: a key names a field whatever its case; go-yaml wants the exact name.
    pub fold_field_names: bool,
    /// What a number or a boolean is where a string is wanted.
    pub scalars_as_strings: ScalarStrings,
    /// The Go types the document is read into, for Go's words when a value does not fit; without
    /// them, serde's words.
    pub go_types: Option<&'static GoTypes>,
}

/// What a number or a boolean becomes where a string is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStrings {
    /// Nothing: it is refused (`yaml.YAMLToJSON`, then `encoding/json`).
    Refused,
    /// Its text, a float's as a `float32`'s (`sigs.k8s.io/yaml`'s `yaml.Unmarshal` into a target).
    TargetText,
    /// Its text as go-yaml writes it, a float's in full (go-yaml's `Unmarshal` into a struct, of
    /// the YAML `yaml.JSONToYAML` wrote).
    YamlText,
}

/// kustomization files: `yaml.YAMLToJSON`, then a JSON decoder that refuses unknown fields.
pub const KUSTOMIZATION: Rules = Rules {
    refuse_unknown_fields: true,
    fold_field_names: true,
    scalars_as_strings: ScalarStrings::Refused,
    go_types: None,
};
/// Built-in plugins' configurations: `sigs.k8s.io/yaml`'s `yaml.Unmarshal` into the plugin.
pub const PLUGIN: Rules = Rules {
    refuse_unknown_fields: false,
    fold_field_names: true,
    scalars_as_strings: ScalarStrings::TargetText,
    go_types: None,
};
/// Transformer configuration files: `yaml.UnmarshalStrict`.
pub const STRICT_TARGET: Rules = Rules { refuse_unknown_fields: true, ..PLUGIN };
/// go-yaml v3's `yaml.Unmarshal` into a struct (kyaml's), of what `yaml.JSONToYAML` wrote: the
/// prefix and suffix transformers' configurations.
pub const GO_YAML: Rules = Rules { fold_field_names: false, scalars_as_strings: ScalarStrings::YamlText, ..PLUGIN };

/// Go's declarations of the types a document is read into, as Go writes them: the document's
/// type, and each struct type's fields. A field is its JSON name, after the embedded structs it
/// is promoted from (`ResId.Gvk.kind`: Go names them in its errors), and its type (`[]string`,
/// `*types.SortOptions`, `map[string]interface {}`). A struct listed here has no other fields.
#[derive(Debug, PartialEq, Eq)]
pub struct GoTypes {
    /// The document's type (`types.Kustomization`).
    pub root: &'static str,
    /// Struct types by name (`types.Replica`), with their fields.
    pub structs: &'static [(&'static str, &'static [(&'static str, &'static str)])],
}

impl GoTypes {
    fn fields(&self, go_type: &str) -> Option<&'static [(&'static str, &'static str)]> {
        self.structs.iter().find(|(name, _)| *name == go_type).map(|(_, fields)| *fields)
    }
}

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
    let at = At { go_type: rules.go_types.map(|types| types.root), ..At::default() };
    T::deserialize(GoValue { value, rules, at })
}

/// `sigs.k8s.io/yaml`'s `yaml.Unmarshal` (or `UnmarshalStrict`, by `rules`) of `value` into `T`:
/// [`from_value`], its errors (the JSON decoder's) prefixed as that package prefixes them.
pub fn sigs_yaml<T: DeserializeOwned>(value: Value, rules: Rules) -> Result<T, Error> {
    from_value(value, rules)
        .map_err(|Error(message)| Error(format!("error unmarshaling JSON: while decoding JSON: {message}")))
}

/// A boolean or a number as `sigs.k8s.io/yaml` writes it into a string: integers in full, floats
/// as `strconv.FormatFloat(f, 'g', -1, 32)`.
pub fn scalar_text(value: &Value) -> Option<String> {
    scalar_text_as(value, ScalarStrings::TargetText)
}

/// A boolean or a number as text, floats as `strings` formats them.
fn scalar_text_as(value: &Value, strings: ScalarStrings) -> Option<String> {
    match value {
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64()?;
            Some(match strings {
                ScalarStrings::YamlText => format_float_g(float, format!("{float:e}")),
                _ => format_float_g(float, format!("{:e}", float as f32)),
            })
        }
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// Go's `%g` with the fewest digits that read back as the same float (`scientific`: Rust's
/// shortest `{:e}` of it, as a `float32` or a `float64`): in exponent form when the exponent is
/// below -4 or at least 6 (`1e+06`), else in decimals.
fn format_float_g(float: f64, scientific: String) -> String {
    if float == 0.0 {
        return if float.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    if float.is_infinite() {
        return if float < 0.0 { "-Inf".into() } else { "+Inf".into() };
    }
    if float.is_nan() {
        return "NaN".into();
    }
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

/// A field's JSON name, without the embedded structs it is promoted from.
fn json_name(field: &str) -> &str {
    field.rsplit('.').next().unwrap_or(field)
}

/// Where a value is, as `encoding/json` tells it in an error: the Go type it is read into, and the
/// innermost struct on the way with the fields from the top.
#[derive(Debug, Clone, Default)]
struct At {
    /// As Go writes it (`[]*types.TargetSelector`); unknown without Go types.
    go_type: Option<&'static str>,
    /// `Replica` and `replicas.count`.
    field: Option<(&'static str, String)>,
    /// Within a field promoted from an embedded struct (`ResId.Gvk.kind`), where
    /// `sigs.k8s.io/yaml` looks for the Go type in the embedded struct itself, finds no string,
    /// and so leaves numbers and booleans as they are (for `encoding/json` to refuse).
    promoted: bool,
}

impl At {
    /// Where an element of this list is.
    fn element(&self) -> At {
        let go_type = self.go_type.and_then(|go_type| go_type.strip_prefix("[]"));
        At { go_type, field: self.field.clone(), promoted: self.promoted }
    }

    /// Where a value of this map is.
    fn map_value(&self) -> At {
        let go_type = self.go_type.and_then(|go_type| go_type.strip_prefix("map[string]"));
        At { go_type, field: self.field.clone(), promoted: self.promoted }
    }

    /// The fields of this struct, if its Go type is known.
    fn struct_fields(&self, rules: Rules) -> Option<&'static [(&'static str, &'static str)]> {
        rules.go_types?.fields(self.go_type?.trim_start_matches('*'))
    }

    /// Where the value of this struct's `field` (a field of `fields`) is.
    fn field(&self, fields: &'static [(&'static str, &'static str)], field: &str) -> At {
        let struct_type = self.go_type.unwrap_or_default().trim_start_matches('*');
        let struct_name = struct_type.rsplit('.').next().unwrap_or(struct_type);
        let Some((path, go_type)) = fields.iter().find(|(path, _)| json_name(path) == field) else {
            return At::default();
        };
        let promoted = self.promoted || path.contains('.');
        let path = match &self.field {
            Some((_, outer)) => format!("{outer}.{path}"),
            None => path.to_string(),
        };
        At { go_type: Some(go_type), field: Some((struct_name, path)), promoted }
    }

    /// `encoding/json`'s error for a `what` (`array`, `number 1.5`) read here, if the Go type is
    /// known. A pointer is reported as what it points to, which Go allocates and fills.
    fn mismatch(&self, what: &str) -> Option<Error> {
        let go_type = self.go_type?.trim_start_matches('*');
        Some(Error(match &self.field {
            Some((struct_name, path)) => {
                format!("json: cannot unmarshal {what} into Go struct field {struct_name}.{path} of type {go_type}")
            }
            None => format!("json: cannot unmarshal {what} into Go value of type {go_type}"),
        }))
    }
}

/// What `encoding/json` calls a value in its errors.
fn kind_word(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The integer a number is, if it is whole: Go reads the JSON text the YAML became, in which a
/// whole float (`1e3`) is written as an integer (`1000`).
fn whole_number(number: &Number) -> Option<i128> {
    if let Some(signed) = number.as_i64() {
        return Some(signed.into());
    }
    if let Some(unsigned) = number.as_u64() {
        return Some(unsigned.into());
    }
    // Within ±2^64 a float converts exactly; anything larger fits no Go integer anyway.
    let float = number.as_f64()?;
    (float.fract() == 0.0 && float.abs() < 18_446_744_073_709_551_616.0).then_some(float as i128)
}

/// Reads into integer types of the given range; a number out of it, or not whole, is refused as
/// Go refuses it (`number 1.5`, with the number's JSON text).
macro_rules! integers {
    ($($method:ident $integer:ty)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            let whole = match &self.value {
                Value::Null => return visitor.visit_u64(0),
                Value::Number(number) => whole_number(number),
                _ => return self.mismatch_any(visitor),
            };
            match whole.filter(|whole| (<$integer>::MIN as i128..=<$integer>::MAX as i128).contains(whole)) {
                Some(whole) if whole < 0 => visitor.visit_i64(whole as i64),
                Some(whole) => visitor.visit_u64(whole as u64),
                None => {
                    let what = format!("number {}", super::json::to_compact(&self.value));
                    self.mismatch(&what, visitor)
                }
            }
        }
    )*};
}

struct GoValue {
    value: Value,
    rules: Rules,
    at: At,
}

impl GoValue {
    /// A struct's entries, each under the field its key names (or, when unknown, its key), with
    /// where its value is. With its Go fields known, a key names one of them.
    fn struct_entries(self, fields: &'static [&'static str]) -> Result<Vec<(Key, GoValue)>, Self> {
        let (rules, at) = (self.rules, self.at);
        let map = match as_map(self.value) {
            Ok(map) => map,
            Err(value) => return Err(GoValue { value, rules, at }),
        };
        let go_fields = at.struct_fields(rules);
        let is_field = |field: &&&str| go_fields.is_none_or(|go| go.iter().any(|(path, _)| json_name(path) == **field));
        let mut keyed: Vec<(String, Value)> = map.into_iter().collect();
        keyed.sort_by(|(a, _), (b, _)| a.cmp(b));
        let mut entries: Vec<(Key, GoValue)> = Vec::new();
        for (key, value) in keyed {
            let field = (fields.iter().filter(is_field).find(|field| **field == key)).or_else(|| {
                let folded = fields.iter().filter(is_field).find(|field| folds_to(field, &key));
                folded.filter(|_| rules.fold_field_names)
            });
            let (key, value_at) = match field {
                Some(field) => (Key::Field(field), go_fields.map(|go| at.field(go, field)).unwrap_or_default()),
                None if rules.refuse_unknown_fields => (Key::Unknown(key), At::default()),
                None => continue,
            };
            let value = GoValue { value, rules, at: value_at };
            match entries.iter_mut().find(|(known, _)| *known == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
        }
        Ok(entries)
    }

    /// The value does not fit the type asked of it: Go's error if its Go type is known, else
    /// serde's (the visitor's).
    fn mismatch<'de, V: Visitor<'de>>(self, what: &str, visitor: V) -> Result<V::Value, Error> {
        match self.at.mismatch(what) {
            Some(err) => Err(err),
            None => self.deserialize_any(visitor),
        }
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
        let (rules, at) = (self.rules, self.at);
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(flag) => visitor.visit_bool(flag),
            Value::Number(number) => match (number.as_u64(), number.as_i64(), number.as_f64()) {
                (Some(unsigned), ..) => visitor.visit_u64(unsigned),
                (_, Some(signed), _) => visitor.visit_i64(signed),
                (.., float) => visitor.visit_f64(float.unwrap_or_default()),
            },
            Value::String(text) => visitor.visit_string(text),
            Value::Array(items) => visitor.visit_seq(Items { items: items.into_iter(), rules, at: at.element() }),
            Value::Object(map) => visitor.visit_map(Entries::of_map(map, rules, &at)),
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
            Value::String(_) => self.deserialize_any(visitor),
            Value::Bool(_) | Value::Number(_)
                if self.rules.scalars_as_strings != ScalarStrings::Refused && !self.at.promoted =>
            {
                visitor.visit_string(scalar_text_as(&self.value, self.rules.scalars_as_strings).unwrap_or_default())
            }
            _ => self.mismatch_any(visitor),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_bool(false),
            Value::Bool(flag) => visitor.visit_bool(flag),
            _ => self.mismatch_any(visitor),
        }
    }

    integers! {
        deserialize_i8 i8 deserialize_i16 i16 deserialize_i32 i32 deserialize_i64 i64
        deserialize_u8 u8 deserialize_u16 u16 deserialize_u32 u32 deserialize_u64 u64
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.value {
            Value::Null => visitor.visit_f64(0.0),
            Value::Number(number) => visitor.visit_f64(number.as_f64().unwrap_or_default()),
            _ => self.mismatch_any(visitor),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => {
                visitor.visit_seq(Items { items: Vec::new().into_iter(), rules: self.rules, at: At::default() })
            }
            Value::Array(_) => self.deserialize_any(visitor),
            _ => self.mismatch_any(visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (rules, at) = (self.rules, self.at);
        match as_map(self.value) {
            Ok(map) => visitor.visit_map(Entries::of_map(map, rules, &at)),
            Err(value) => GoValue { value, rules, at }.mismatch_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.struct_entries(fields) {
            Ok(entries) => visitor.visit_map(Entries { entries: entries.into_iter(), value: None, refuse: true }),
            Err(not_a_map) => not_a_map.mismatch_any(visitor),
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
            _ => self.mismatch_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct
        newtype_struct tuple tuple_struct identifier ignored_any
    }
}

impl GoValue {
    /// [`GoValue::mismatch`] for the value's own kind.
    fn mismatch_any<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let what = kind_word(&self.value);
        self.mismatch(what, visitor)
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
    /// Where each item is.
    at: At,
}

impl<'de> de::SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        match self.items.next() {
            Some(value) => seed.deserialize(GoValue { value, rules: self.rules, at: self.at.clone() }).map(Some),
            None => Ok(None),
        }
    }
}

/// A map's entries, or a struct's (`refuse`: a key it does not know is an error when reached,
/// so that errors come in the document's order, as Go reports the first).
struct Entries {
    entries: std::vec::IntoIter<(Key, GoValue)>,
    value: Option<GoValue>,
    refuse: bool,
}

impl Entries {
    /// A map's entries, its values where `at`'s values are.
    fn of_map(map: Map<String, Value>, rules: Rules, at: &At) -> Entries {
        let value_at = at.map_value();
        let entries = map
            .into_iter()
            .map(|(key, value)| (Key::Unknown(key), GoValue { value, rules, at: value_at.clone() }))
            .collect::<Vec<_>>();
        Entries { entries: entries.into_iter(), value: None, refuse: false }
    }
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        let rules = value.rules;
        self.value = Some(value);
        let key = match key {
            Key::Field(field) => field.to_string(),
            Key::Unknown(key) if self.refuse => return Err(Error(format!("json: unknown field {key:?}"))),
            Key::Unknown(key) => key,
        };
        seed.deserialize(GoValue { value: Value::String(key), rules, at: At::default() }).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let value = self.value.take().expect("a value follows its key");
        seed.deserialize(value)
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

    /// A table of Go types for [`Config`]: an embedded struct (`Meta`) and a pointer in a list.
    static TYPES: GoTypes = GoTypes {
        root: "pkg.Config",
        structs: &[
            (
                "pkg.Config",
                &[
                    ("Meta.namePrefix", "string"),
                    ("labels", "map[string]string"),
                    ("images", "[]*pkg.Image"),
                    ("count", "int64"),
                    ("metadata", "map[string]interface {}"),
                ],
            ),
            ("pkg.Image", &[("newTag", "string")]),
        ],
    };

    const TYPED: Rules = Rules { go_types: Some(&TYPES), ..KUSTOMIZATION };

    #[test]
    fn values_of_the_wrong_kind_are_refused_in_gos_words_with_go_types() {
        let error = |value| read(value, TYPED).unwrap_err().0;
        let words = "json: cannot unmarshal";
        assert_eq!(
            error(json!({"namePrefix": ["a"]})),
            format!("{words} array into Go struct field Config.Meta.namePrefix of type string")
        );
        assert_eq!(
            error(json!({"labels": {"a": {"b": 1}}})),
            format!("{words} object into Go struct field Config.labels of type string")
        );
        assert_eq!(
            error(json!({"images": "x"})),
            format!("{words} string into Go struct field Config.images of type []*pkg.Image")
        );
        // A pointer is reported as what it points to; the innermost struct names the field.
        assert_eq!(
            error(json!({"images": [true]})),
            format!("{words} bool into Go struct field Config.images of type pkg.Image")
        );
        assert_eq!(
            error(json!({"images": [{"newTag": 1}]})),
            format!("{words} number into Go struct field Image.images.newTag of type string")
        );
        assert_eq!(error(json!(["a"])), format!("{words} array into Go value of type pkg.Config"));
        // Free-form values take anything.
        assert!(read(json!({"metadata": {"a": [1]}}), TYPED).is_ok());
        // The first error in the keys' sorted order.
        assert_eq!(
            error(json!({"namePrefix": 1, "count": "x"})),
            format!("{words} string into Go struct field Config.count of type int64")
        );
        // A key that names a field of the Rust type but not of the Go type is unknown.
        static NARROW: GoTypes =
            GoTypes { root: "pkg.Config", structs: &[("pkg.Config", &[("namePrefix", "string")])] };
        let narrow = Rules { go_types: Some(&NARROW), ..KUSTOMIZATION };
        assert_eq!(read(json!({"count": 1}), narrow).unwrap_err().0, r#"json: unknown field "count""#);
        // Without Go types, serde's words.
        assert!(read(json!({"namePrefix": ["a"]}), KUSTOMIZATION).unwrap_err().0.starts_with("invalid type: sequence"));
    }

    #[test]
    fn numbers_stay_numbers_within_fields_promoted_from_embedded_structs() {
        let plugin = Rules { go_types: Some(&TYPES), ..PLUGIN };
        // `Meta.namePrefix` is promoted: sigs.k8s.io/yaml finds no string there.
        assert_eq!(
            read(json!({"namePrefix": 12}), plugin).unwrap_err().0,
            "json: cannot unmarshal number into Go struct field Config.Meta.namePrefix of type string"
        );
        let config = read(json!({"labels": {"a": 1}, "images": [{"newTag": 2}]}), plugin).unwrap();
        assert_eq!((config.labels["a"].as_str(), config.images[0].new_tag.as_str()), ("1", "2"));
    }

    #[test]
    fn go_yaml_wants_field_names_as_written_and_writes_floats_in_full() {
        let config = read(json!({"NamePrefix": "a-", "labels": {"a": 1.234567891, "b": 1e-5}}), GO_YAML).unwrap();
        assert_eq!(config.name_prefix, "");
        assert_eq!((config.labels["a"].as_str(), config.labels["b"].as_str()), ("1.234567891", "1e-05"));
    }

    #[test]
    fn sigs_yaml_prefixes_the_json_decoders_errors() {
        let err = sigs_yaml::<Config>(json!({"count": "x"}), Rules { go_types: Some(&TYPES), ..PLUGIN }).unwrap_err();
        assert_eq!(
            err.0,
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field Config.count of type int64"
        );
    }

    #[test]
    fn whole_numbers_fill_integers_and_others_are_refused_with_their_json_text() {
        for (value, count) in [(json!(3.0), 3), (json!(1e3), 1000), (json!(-0.0), 0), (json!(-7), -7)] {
            assert_eq!(read(json!({"count": value}), TYPED).unwrap().count, count, "{value}");
        }
        let field = "into Go struct field Config.count of type int64";
        for (value, text) in [
            (json!(1.5), "1.5"),
            (json!(1e20), "100000000000000000000"),
            (json!(1e30), "1e+30"),
            (json!(-1e-7), "-1e-7"),
            (json!(9223372036854775808u64), "9223372036854775808"),
        ] {
            let err = read(json!({"count": value}), TYPED).unwrap_err().0;
            assert_eq!(err, format!("json: cannot unmarshal number {text} {field}"));
        }
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
