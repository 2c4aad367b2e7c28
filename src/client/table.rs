//! Server-side printing: the `meta.k8s.io/v1` Table the server renders for `kubectl get`.

use serde::Deserialize;
use serde_json::Value;

/// The `Accept` header that asks for a Table, falling back to plain JSON.
pub(crate) const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json";

/// A Table: column definitions and one row per object.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Table {
    /// The columns, in display order.
    #[serde(rename = "columnDefinitions", default, deserialize_with = "super::null_as_default")]
    pub columns: Vec<TableColumn>,
    /// The rows, one per object.
    #[serde(default, deserialize_with = "super::null_as_default")]
    pub rows: Vec<TableRow>,
}

/// One column: its title and how important it is (0 is shown by default, more only with `-o wide`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct TableColumn {
    /// Title, e.g. `Name` or `Nominated Node`.
    pub name: String,
    /// Priority: 0 for default columns.
    #[serde(default)]
    pub priority: i64,
}

/// One row: its cells and the object's metadata (a `PartialObjectMetadata`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct TableRow {
    /// Cell values, one per column.
    #[serde(default, deserialize_with = "super::null_as_default")]
    pub cells: Vec<Value>,
    /// The object the row shows, usually only its metadata.
    #[serde(default)]
    pub object: Value,
}

impl TableRow {
    /// The row's object's namespace, if it has one.
    pub fn namespace(&self) -> Option<&str> {
        self.object.pointer("/metadata/namespace").and_then(Value::as_str)
    }
}
