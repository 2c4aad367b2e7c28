//! The default human-readable output: the server's Table, laid out like kubectl's tab writer
//! (left-aligned columns, three spaces apart, at least six wide, upper-case headers).

use serde::Deserialize;
use serde_json::Value;

use crate::gocompat::fmt::value_text;
use crate::gocompat::tabwriter::TabWriter;
use crate::gocompat::time;
use std::time::SystemTime;

/// The `meta.k8s.io/v1` Table the server prints for `kubectl get`: column definitions and one
/// row per object.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Table {
    /// The columns, in display order.
    #[serde(rename = "columnDefinitions", default, deserialize_with = "crate::gocompat::null_as_default")]
    pub columns: Vec<TableColumn>,
    /// The rows, one per object.
    #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
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
    #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
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

impl Table {
    /// Reads the Table document the server sent.
    pub fn from_document(document: Value) -> Result<Table, serde_json::Error> {
        serde_json::from_value(document)
    }

    /// The table kubectl prints itself when not asked to let the server print it
    /// (`--server-print=false`): each object's name and age at `now`.
    pub fn of_objects(objects: Vec<Value>, now: SystemTime) -> Table {
        let column = |name: &str| TableColumn { name: name.to_string(), priority: 0 };
        let rows = objects
            .into_iter()
            .map(|object| {
                let created = object.pointer("/metadata/creationTimestamp").and_then(Value::as_str);
                let age = match created.and_then(time::parse_timestamp) {
                    Some(created) => time::human_duration_since(created, now),
                    None => "<unknown>".to_string(),
                };
                let name = object.pointer("/metadata/name").cloned().unwrap_or_default();
                TableRow { cells: vec![name, Value::String(age)], object }
            })
            .collect();
        Table { columns: vec![column("Name"), column("Age")], rows }
    }
}

/// Space between columns.
const PADDING: usize = 3;
/// Narrowest column, padding included.
const MIN_WIDTH: usize = 6;

/// How to lay out a Table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// Show every column, not only those of priority 0 (`-o wide`).
    pub wide: bool,
    /// Start with a NAMESPACE column (`-A`).
    pub namespace_column: bool,
    /// Prefix names with `kind.group/`, as kubectl does when several types are shown.
    pub kind_prefix: Option<String>,
    /// Leave out the header line (`--no-headers`).
    pub no_headers: bool,
    /// A column per label key, headed by the key's last segment (`-L app.kubernetes.io/name`: NAME).
    pub label_columns: Vec<String>,
    /// A last LABELS column with every label, the `k=v` texts in order (`--show-labels`).
    pub show_labels: bool,
}

/// The lines of `table`, header first; empty when the table has no rows.
pub fn render(table: &Table, options: &TableOptions) -> String {
    align(&cells(table, options))
}

/// The cells of `table`'s header (unless `no_headers`) and rows; none when it has no rows.
fn cells(table: &Table, options: &TableOptions) -> Vec<Vec<String>> {
    if table.rows.is_empty() {
        return Vec::new();
    }
    let shown: Vec<usize> =
        (0..table.columns.len()).filter(|&i| options.wide || table.columns[i].priority == 0).collect();
    let mut lines: Vec<Vec<String>> = Vec::with_capacity(table.rows.len() + 1);
    let mut header: Vec<String> = Vec::new();
    if options.namespace_column {
        header.push("NAMESPACE".into());
    }
    header.extend(shown.iter().map(|&i| table.columns[i].name.to_uppercase()));
    header.extend(options.label_columns.iter().map(|key| key.rsplit('/').next().unwrap_or(key).to_uppercase()));
    if options.show_labels {
        header.push("LABELS".into());
    }
    if !options.no_headers {
        lines.push(header);
    }
    for row in &table.rows {
        let mut line = Vec::with_capacity(shown.len() + 1);
        if options.namespace_column {
            line.push(row.namespace().unwrap_or_default().to_string());
        }
        for &i in &shown {
            let cell = row.cells.get(i).map(format_top_cell).unwrap_or_default();
            match (&options.kind_prefix, i) {
                (Some(prefix), 0) => line.push(format!("{prefix}/{cell}")),
                _ => line.push(cell),
            }
        }
        let labels = row.object.pointer("/metadata/labels").and_then(Value::as_object);
        let label = |key: &str| labels.and_then(|labels| labels.get(key)).and_then(Value::as_str).unwrap_or_default();
        line.extend(options.label_columns.iter().map(|key| label(key).to_string()));
        if options.show_labels {
            // Sorted as `key=value` text, as apimachinery's FormatLabels sorts them (so
            // `app.kubernetes.io/name=x` comes before `app=web`).
            let mut all: Vec<String> =
                labels.into_iter().flatten().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect();
            all.sort_unstable();
            line.push(if all.is_empty() { "<none>".into() } else { all.join(",") });
        }
        lines.push(line);
    }
    pad_to_widest_bytes(&mut lines, !options.no_headers);
    lines
}

/// kubectl 1.37's table printer pads the header's cells (without headers, the first row's), all
/// but the last, to the longest cell of the rows in their column counted in bytes, so that its tab
/// writer, flushed every 100 rows, keeps the columns it remembers wide enough: a column with a
/// cell of non-ASCII text is thereby wider than its characters need.
fn pad_to_widest_bytes(lines: &mut [Vec<String>], header: bool) {
    let widest: Vec<usize> = (0..lines.first().map_or(0, Vec::len))
        .map(|column| {
            let rows = lines.iter().skip(usize::from(header));
            rows.filter_map(|row| row.get(column)).map(String::len).max().unwrap_or(0)
        })
        .collect();
    let Some(first) = lines.first_mut() else { return };
    let last = first.len().saturating_sub(1);
    for (cell, &width) in first.iter_mut().zip(&widest).take(last) {
        if width > cell.len() {
            let pad = width - cell.len();
            cell.extend(std::iter::repeat_n(' ', pad));
        }
    }
}

/// Tables as `get --watch` prints them, through kubectl's tab writer: the header once (again
/// when the columns change), then each change's row; columns widen as wider cells come and
/// never narrow.
#[derive(Debug)]
pub struct TableStream {
    options: TableOptions,
    /// The columns of the last table that had them: the server leaves them out of later events.
    columns: Vec<TableColumn>,
    printed_headers: bool,
    writer: TabWriter,
}

impl TableStream {
    pub fn new(options: TableOptions) -> TableStream {
        TableStream { options, columns: Vec::new(), printed_headers: false, writer: TabWriter::kubectl() }
    }

    /// The text for `table`, with an EVENT column first when `event` (`ADDED`, ...) is given
    /// (`--output-watch-events`).
    pub fn print(&mut self, event: Option<&str>, mut table: Table) -> String {
        let mut options = self.options.clone();
        if self.printed_headers && (table.columns.is_empty() || table.columns == self.columns) {
            options.no_headers = true;
        }
        if table.columns.is_empty() {
            table.columns = self.columns.clone();
        } else if table.columns != self.columns {
            self.columns = table.columns.clone();
            self.printed_headers = false;
        }
        if !table.rows.is_empty() {
            self.printed_headers = true;
        }
        let mut lines = cells(&table, &options);
        if let Some(event) = event {
            for (index, line) in lines.iter_mut().enumerate() {
                let header = index == 0 && !options.no_headers;
                line.insert(0, if header { "EVENT".to_string() } else { event_text(event) });
            }
        }
        let mut out = String::new();
        for line in lines {
            out.push_str(&self.writer.write(&format!("{}\n", line.join("\t"))));
        }
        out.push_str(&self.writer.flush());
        out
    }
}

/// kubectl's EVENT cell: the event's type, padded to eight characters.
fn event_text(event: &str) -> String {
    match event {
        "ADDED" | "MODIFIED" | "DELETED" | "ERROR" => format!("{event:8}"),
        other => other.to_string(),
    }
}

/// Pads every cell but the last of each line to its column's width.
pub(super) fn align(lines: &[Vec<String>]) -> String {
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns.saturating_sub(1))
        .map(|column| {
            let widest = lines.iter().filter_map(|line| line.get(column)).map(|cell| cell.chars().count()).max();
            (widest.unwrap_or(0) + PADDING).max(MIN_WIDTH)
        })
        .collect();
    let mut out = String::new();
    for line in lines {
        for (column, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if let Some(&width) = widths.get(column).filter(|_| column + 1 < line.len()) {
                out.extend(std::iter::repeat_n(' ', width - cell.chars().count()));
            }
        }
        out.push('\n');
    }
    out
}

/// A cell as kubectl prints it: empty for null, else as Go's `%v` prints the decoded JSON value.
fn format_top_cell(cell: &Value) -> String {
    if cell.is_null() { String::new() } else { value_text(cell).into_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table() -> Table {
        let column = |name: &str, priority| TableColumn { name: name.into(), priority };
        let row = |cells: Value, namespace: &str| TableRow {
            cells: cells.as_array().unwrap().clone(),
            object: json!({"metadata": {"namespace": namespace}}),
        };
        Table {
            columns: vec![column("Name", 0), column("Data", 0), column("Age", 0), column("Nominated Node", 1)],
            rows: vec![
                row(json!(["one", 1, "5s", null]), "default"),
                row(json!(["a-long-name", 12, "3d", "n1"]), "kube-system"),
            ],
        }
    }

    #[test]
    fn headers_are_padded_to_their_columns_bytes_as_kubectl_1_37_pads_them() {
        let column = |name: &str| TableColumn { name: name.into(), priority: 0 };
        let row = |cells: Value| TableRow { cells: cells.as_array().unwrap().clone(), object: json!({}) };
        let table = Table {
            columns: vec![column("Name"), column("Size"), column("Age")],
            rows: vec![row(json!(["a", "très grande", "5s"])), row(json!(["b", "small", "3d"]))],
        };
        // "très grande" is 11 characters and 12 bytes: the column is one wider than it needs.
        let text = render(&table, &TableOptions::default());
        assert_eq!(text, "NAME   SIZE           AGE\na      très grande    5s\nb      small          3d\n");
        let text = render(&table, &TableOptions { no_headers: true, ..TableOptions::default() });
        // The first row is padded to the bytes of the others: its own are not more.
        assert_eq!(text, "a     très grande   5s\nb     small         3d\n");
    }

    #[test]
    fn columns_align_like_kubectl() {
        let text = render(&table(), &TableOptions::default());
        assert_eq!(text, "NAME          DATA   AGE\none           1      5s\na-long-name   12     3d\n");
    }

    #[test]
    fn wide_namespace_and_kind_prefix() {
        let options = TableOptions {
            wide: true,
            namespace_column: true,
            kind_prefix: Some("configmap".into()),
            ..TableOptions::default()
        };
        let text = render(&table(), &options);
        assert_eq!(
            text,
            "NAMESPACE     NAME                    DATA   AGE   NOMINATED NODE\n\
             default       configmap/one           1      5s    \n\
             kube-system   configmap/a-long-name   12     3d    n1\n"
        );
    }

    #[test]
    fn label_columns_and_labels_follow_the_server_columns() {
        let mut table = table();
        table.rows[0].object =
            json!({"metadata": {"labels": {"app": "one", "app.kubernetes.io/name": "web", "tier": "db"}}});
        table.rows.truncate(1);
        let options = TableOptions {
            no_headers: false,
            label_columns: vec!["app.kubernetes.io/name".into(), "other".into()],
            show_labels: true,
            ..TableOptions::default()
        };
        assert_eq!(
            render(&table, &options),
            "NAME   DATA   AGE   NAME   OTHER   LABELS\none    1      5s    web            app.kubernetes.io/name=web,app=one,tier=db\n"
        );
        let bare = TableOptions { no_headers: true, ..TableOptions::default() };
        assert_eq!(render(&table, &bare), "one   1     5s\n");
    }

    #[test]
    fn empty_tables_print_nothing() {
        let mut empty = table();
        empty.rows.clear();
        assert_eq!(render(&empty, &TableOptions::default()), "");
    }
}
