//! What must match Go byte for byte, shared by the printers, the last-applied annotation, the
//! merge engine and the command line: Go's JSON encoding (escapes, compact and indented forms,
//! float format), Go's `%v` text of decoded JSON values, go-yaml's key order, the tab writer
//! kubectl's watch prints through, how go-yaml v2 reads a plain scalar (kubectl's YAML 1.1), how
//! Go reads YAML into a struct (kustomize's files), and the parsers pflag reads flag values with
//! (`strconv`, `time.ParseDuration`, `encoding/csv`), Go's words for I/O errors, and Go's
//! `http.Get` (kubectl's `-f URL`, kustomize's remote files).
//!
//! kubectl is written in Go, and users compare its output, its annotations and its patches with
//! ours; this module is the one place that knows how Go writes values. It uses nothing else of the
//! crate.

pub mod csv;
pub mod filepath;
pub mod fmt;
pub mod http;
pub mod json;
pub mod klog;
pub mod order;
pub mod os;
pub mod quantity;
pub mod strconv;
pub mod tabwriter;
pub mod time;
pub mod tls;
pub mod unmarshal;
pub mod yaml;

use serde::Deserialize as _;

/// Reads a JSON `null` as the type's default: Go servers encode empty lists as `null`.
pub fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + serde::Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}
