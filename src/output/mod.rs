//! Printers: `-o yaml|json|name|wide`, the server's tables and diffs, each matching kubectl's
//! output byte for byte (through [`crate::gocompat`]). Pure: printers return text or write to the
//! writer they are given; they know nothing of the server or of the command line.

mod changes;
mod diff;
mod json;
pub mod jsonpath;
mod name;
mod table;
mod yaml;

use serde_json::{Value, json};

pub use changes::changed_paths;
pub use diff::unified_diff;
pub use json::{to_json, to_json_indented};
pub use name::object_name;
pub use table::{Table, TableColumn, TableOptions, TableRow, render as render_table};
pub use yaml::to_yaml;

/// The `-o` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// Indented JSON.
    Json,
    /// YAML.
    Yaml,
    /// `kind.group/name` per object.
    Name,
    /// The table with every column.
    Wide,
}

/// What `-o json|yaml|name` prints for `objects`: one object alone when a single object was asked
/// for by name, else a `List` of them all; for `name`, one line per object.
pub fn render_objects(format: OutputFormat, objects: Vec<Value>, single_object: bool) -> String {
    let mut out = Vec::new();
    write_objects(&mut out, format, objects, single_object).expect("writing into memory cannot fail");
    String::from_utf8(out).expect("printers write UTF-8")
}

/// [`render_objects`], written to `out` as it is produced (JSON is not built in memory first).
pub fn write_objects(
    out: &mut impl std::io::Write,
    format: OutputFormat,
    objects: Vec<Value>,
    single_object: bool,
) -> std::io::Result<()> {
    let document = |objects: Vec<Value>| match <[Value; 1]>::try_from(objects) {
        Ok([object]) if single_object => object,
        Ok(objects) => list_of(objects.into()),
        Err(objects) => list_of(objects),
    };
    match format {
        OutputFormat::Json => json::write_json(out, &document(objects)),
        OutputFormat::Yaml => out.write_all(to_yaml(&document(objects)).as_bytes()),
        OutputFormat::Name | OutputFormat::Wide => {
            objects.iter().try_for_each(|object| writeln!(out, "{}", object_name(object)))
        }
    }
}

/// kubectl's `List` wrapper for several objects.
pub fn list_of(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}})
}

/// Removes `metadata.managedFields`, which kubectl hides unless `--show-managed-fields`.
pub fn strip_managed_fields(object: &mut Value) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configmap(name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "managedFields": [{"manager": "x"}]}})
    }

    #[test]
    fn one_named_object_prints_alone_and_others_as_a_list() {
        let single = render_objects(OutputFormat::Json, vec![configmap("a")], true);
        assert!(single.contains("\"kind\": \"ConfigMap\"") && !single.contains("List"));
        let listed: Value =
            serde_json::from_str(&render_objects(OutputFormat::Json, vec![configmap("a")], false)).unwrap();
        assert_eq!(listed["kind"], "List");
        assert_eq!(listed["metadata"]["resourceVersion"], "");
        assert_eq!(listed["items"][0]["metadata"]["name"], "a");
        let empty = render_objects(OutputFormat::Yaml, Vec::new(), false);
        assert_eq!(empty, "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n");
    }

    #[test]
    fn names_print_one_per_line() {
        let names = render_objects(OutputFormat::Name, vec![configmap("a"), configmap("b")], false);
        assert_eq!(names, "configmap/a\nconfigmap/b\n");
    }

    #[test]
    fn managed_fields_are_stripped() {
        let mut object = configmap("a");
        strip_managed_fields(&mut object);
        assert_eq!(object["metadata"], json!({"name": "a"}));
    }
}
