//! Printers: `-o yaml|json|name|wide|jsonpath|custom-columns` ([`Printer`]), the server's tables and diffs, each matching kubectl's
//! output byte for byte (through [`crate::gocompat`]). Pure: printers return text or write to the
//! writer they are given; they know nothing of the server or of the command line.

mod changes;

mod diff;
mod events;
mod go_fields;
mod go_order;
pub mod go_template;
mod json;
pub mod jsonpath;
mod kyaml;
mod name;
mod printer;
pub mod sort;
mod table;
mod yaml;

use serde_json::{Value, json};

pub use changes::changed_paths;

pub use diff::{DiffSides, unified_diff};
pub use events::{event_row, events_header, sort_events};
pub use json::{to_json, to_json_indented};
pub use kyaml::to_kyaml;
pub use name::object_name;
pub use printer::{CustomColumns, Error as PrinterError, JsonPathPrinter, PrintError, Printer, Verb, formats};
pub use table::{Table, TableColumn, TableOptions, TableRow, TableStream, render as render_table};
pub use yaml::to_yaml;

/// kubectl's `List` wrapper for several objects. The items are moved in: `json!` would copy
/// each of them, a third of the work of reading a long list.
pub fn list_of(items: Vec<Value>) -> Value {
    let mut list = json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}});
    list["items"] = Value::Array(items);
    list
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

    fn render_objects(printer: Printer, objects: Vec<Value>, single_object: bool) -> String {
        let mut out = Vec::new();
        printer.write(&mut out, objects, single_object).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn one_named_object_prints_alone_and_others_as_a_list() {
        let single = render_objects(Printer::Json, vec![configmap("a")], true);
        assert!(single.contains("\"kind\": \"ConfigMap\"") && !single.contains("List"));
        let listed: Value = serde_json::from_str(&render_objects(Printer::Json, vec![configmap("a")], false)).unwrap();
        assert_eq!(listed["kind"], "List");
        assert_eq!(listed["metadata"]["resourceVersion"], "");
        assert_eq!(listed["items"][0]["metadata"]["name"], "a");
        let empty = render_objects(Printer::Yaml, Vec::new(), false);
        assert_eq!(empty, "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n");
    }

    #[test]
    fn names_print_one_per_line() {
        let names = render_objects(Printer::Name, vec![configmap("a"), configmap("b")], false);
        assert_eq!(names, "configmap/a\nconfigmap/b\n");
    }

    #[test]
    fn managed_fields_are_stripped() {
        let mut object = configmap("a");
        strip_managed_fields(&mut object);
        assert_eq!(object["metadata"], json!({"name": "a"}));
    }
}
