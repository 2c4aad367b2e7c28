//! JSON as kubectl prints it: Go's `json.MarshalIndent` with four spaces.

use std::io::{self, Write};

use serde_json::Value;

use crate::gocompat;

/// `value` as indented JSON, ending with a newline.
pub fn to_json(value: &Value) -> String {
    to_json_indented(value, "    ")
}

/// Writes `value` as indented JSON, ending with a newline, without building the text first.
pub fn write_json(out: &mut impl Write, value: &(impl serde::Serialize + ?Sized)) -> io::Result<()> {
    gocompat::json::write_indented(out, value, "    ")
}

/// `value` as JSON indented by `indent` (kubectl uses two spaces in some places), with a newline.
pub fn to_json_indented(value: &Value, indent: &str) -> String {
    let mut out = Vec::new();
    gocompat::json::write_indented(&mut out, value, indent).expect("writing into memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}
