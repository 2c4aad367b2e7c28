//! The `-o` printers, chosen once from the format text: JSON, YAML, names, the wide table, and
//! kubectl's template printers (JSONPath, custom columns). The formats a verb accepts and the
//! error listing them come from here, so no verb refuses a format by hand.

use std::io::{self, Write};

use serde_json::Value;

use super::go_template;
use super::jsonpath::{self, JsonPath};
use super::kyaml::to_kyaml_fields;
use super::{json, list_of, object_name, table, to_kyaml, to_yaml};
use crate::gocompat;

/// How objects are printed.
#[derive(Debug, Clone)]
pub enum Printer {
    /// Indented JSON.
    Json,
    /// YAML.
    Yaml,
    /// KYAML (kubectl 1.34 and later), each document after its `---`.
    Kyaml,
    /// `kind.group/name` per object.
    Name,
    /// The server's table with every column (`get` only).
    Wide,
    /// `-o jsonpath=TEMPLATE`, `jsonpath-file=PATH`, `jsonpath-as-json=TEMPLATE`.
    JsonPath(JsonPathPrinter),
    /// `-o custom-columns=HEADER:PATH,...` (`get` only).
    CustomColumns(CustomColumns),
    /// `-o go-template=TEMPLATE`, `go-template-file=PATH`, `template`, `templatefile`.
    GoTemplate(Box<GoTemplatePrinter>),
}

/// Which verbs a format is for: `get` prints tables, the others print objects they wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Get,
    Write,
}

/// Why the `-o` text names no printer, in kubectl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("unable to match a printer suitable for the output format {format:?}, allowed formats are: {}", allowed(*.verb))]
    Unknown { format: String, verb: Verb },
    #[error("template format specified but no template given")]
    NoTemplate,
    #[error("custom-columns format specified but no custom columns given")]
    NoColumns,
    #[error("unexpected custom-columns spec: {0}, expected <header>:<json-path-expr>")]
    ColumnSpec(String),
    #[error("error parsing jsonpath {template}, {error}")]
    JsonPath { template: String, error: jsonpath::Error },
    #[error("error parsing template {template}, {error}")]
    GoTemplate { template: String, error: go_template::Error },
    #[error("{0}")]
    Path(jsonpath::Error),
    /// A template failed on the objects: the whole message, as kubectl words it.
    #[error("{0}")]
    Execute(String),
}

/// Every `-o` format in kubectl's order, and whether only `get` takes it.
const FORMATS: [(&str, bool); 14] = [
    ("custom-columns", true),
    ("custom-columns-file", true),
    ("go-template", false),
    ("go-template-file", false),
    ("json", false),
    ("jsonpath", false),
    ("jsonpath-as-json", false),
    ("jsonpath-file", false),
    ("kyaml", false),
    ("name", false),
    ("template", false),
    ("templatefile", false),
    ("wide", true),
    ("yaml", false),
];

/// The `-o` formats of `verb`, in kubectl's order for its error.
pub fn formats(verb: Verb) -> impl Iterator<Item = &'static str> {
    FORMATS.into_iter().filter(move |(_, get_only)| verb == Verb::Get || !get_only).map(|(format, _)| format)
}

fn allowed(verb: Verb) -> String {
    formats(verb).collect::<Vec<_>>().join(",")
}

/// The JSONPath printer: the template as given (for messages) and parsed.
#[derive(Debug, Clone)]
pub struct JsonPathPrinter {
    template: String,
    path: JsonPath,
    options: jsonpath::Options,
}

/// The Go template printer: the template as given (for messages) and parsed.
#[derive(Debug, Clone)]
pub struct GoTemplatePrinter {
    template: String,
    parsed: go_template::Template,
    allow_missing_keys: bool,
}

/// The custom-columns printer: a header and a path per column.
#[derive(Debug, Clone)]
pub struct CustomColumns {
    columns: Vec<(String, JsonPath)>,
    /// `--no-headers`.
    pub no_headers: bool,
}

impl Printer {
    /// The printer for `format` (the name before `=`) and `template` (after `=`, from a file, or
    /// from `--template`), as `verb` accepts it. Go templates are not printed yet: they are
    /// refused as an unknown format.
    pub fn new(format: &str, template: Option<&str>, allow_missing_keys: bool, verb: Verb) -> Result<Printer, Error> {
        let unknown = || Error::Unknown {
            format: match template {
                Some(template) => format!("{format}={template}"),
                None => format.to_string(),
            },
            verb,
        };
        let for_get = |printer: Printer| if verb == Verb::Get { Ok(printer) } else { Err(unknown()) };
        match format {
            "json" => Ok(Printer::Json),
            "yaml" => Ok(Printer::Yaml),
            // Accepted, but not listed among the formats: the list is kubectl 1.32's, which has none.
            "kyaml" => Ok(Printer::Kyaml),
            "name" => Ok(Printer::Name),
            "wide" => for_get(Printer::Wide),
            "jsonpath" | "jsonpath-file" | "jsonpath-as-json" => {
                let template = template.filter(|t| !t.is_empty()).ok_or(Error::NoTemplate)?;
                let path = JsonPath::parse(template)
                    .map_err(|error| Error::JsonPath { template: template.to_string(), error })?;
                let options = jsonpath::Options { allow_missing_keys, as_json: format == "jsonpath-as-json" };
                Ok(Printer::JsonPath(JsonPathPrinter { template: template.to_string(), path, options }))
            }
            "go-template" | "go-template-file" | "template" | "templatefile" => {
                let template = template.filter(|t| !t.is_empty()).ok_or(Error::NoTemplate)?;
                let parsed = go_template::Template::parse(template)
                    .map_err(|error| Error::GoTemplate { template: template.to_string(), error })?;
                Ok(Printer::GoTemplate(Box::new(GoTemplatePrinter {
                    template: template.to_string(),
                    parsed,
                    allow_missing_keys,
                })))
            }
            "custom-columns" | "custom-columns-file" if verb == Verb::Get => {
                let spec = template.filter(|t| !t.is_empty()).ok_or(Error::NoColumns)?;
                let columns = if format == "custom-columns" { columns(spec)? } else { columns_file(spec)? };
                Ok(Printer::CustomColumns(CustomColumns { columns, no_headers: false }))
            }
            _ => Err(unknown()),
        }
    }

    /// Writes `objects`: one alone when one object was asked for by name, else as a `List`
    /// (names and custom columns: one line each).
    pub fn write(&self, out: &mut impl Write, objects: Vec<Value>, single_object: bool) -> Result<(), PrintError> {
        self.write_documents(out, objects, single_object, list_of)
    }

    /// Writes what `apply` applied: one object alone, several as the `List` kubectl's apply
    /// builds, whose metadata is empty (`get`'s has an empty `resourceVersion`). That List is a Go
    /// struct, so JSON and KYAML show its keys in the struct's order: `kind`, `apiVersion`,
    /// `metadata`, `items` (YAML sorts them).
    pub fn write_applied(&self, out: &mut impl Write, objects: Vec<Value>) -> Result<(), PrintError> {
        if objects.len() != 1 && matches!(self, Printer::Json | Printer::Kyaml) {
            let (kind, api_version, metadata) =
                (Value::from("List"), Value::from("v1"), Value::Object(Default::default()));
            let items = Value::Array(objects);
            let fields = [("kind", &kind), ("apiVersion", &api_version), ("metadata", &metadata), ("items", &items)];
            match self {
                Printer::Kyaml => out.write_all(to_kyaml_fields(&fields).as_bytes())?,
                _ => json::write_json(out, &InOrder(&fields))?,
            }
            return Ok(());
        }
        let list = |items: Vec<Value>| {
            let mut list = list_of(items);
            list["metadata"] = serde_json::json!({});
            list
        };
        self.write_documents(out, objects, true, list)
    }

    fn write_documents(
        &self,
        out: &mut impl Write,
        objects: Vec<Value>,
        single_object: bool,
        list: fn(Vec<Value>) -> Value,
    ) -> Result<(), PrintError> {
        let document = |objects: Vec<Value>| match <[Value; 1]>::try_from(objects) {
            Ok([object]) if single_object => object,
            Ok(objects) => list(objects.into()),
            Err(objects) => list(objects),
        };
        match self {
            Printer::Json => json::write_json(out, &document(objects))?,
            Printer::Yaml => out.write_all(to_yaml(&document(objects)).as_bytes())?,
            Printer::Kyaml => out.write_all(to_kyaml(&document(objects)).as_bytes())?,
            Printer::Name | Printer::Wide => {
                objects.iter().try_for_each(|object| writeln!(out, "{}", object_name(object)))?
            }
            Printer::JsonPath(printer) => out.write_all(printer.render(&document(objects))?.as_bytes())?,
            Printer::CustomColumns(printer) => out.write_all(printer.render(&objects)?.as_bytes())?,
            Printer::GoTemplate(printer) => printer.write(out, &document(objects))?,
        }
        Ok(())
    }

    /// One object, as [`Printer::write`] prints it alone.
    pub fn render(&self, object: &Value) -> Result<String, PrintError> {
        let mut out = Vec::new();
        match self.write(&mut out, vec![object.clone()], true) {
            Ok(()) => Ok(String::from_utf8(out).expect("printers write UTF-8")),
            Err(PrintError::Template(error)) if !out.is_empty() => {
                Err(PrintError::Partial { printed: String::from_utf8_lossy(&out).into_owned(), error })
            }
            Err(err) => Err(err),
        }
    }

    /// One object that kubectl prints from a Go struct (what its generators make): as
    /// [`Printer::render`], but JSON and KYAML with the keys in the struct's order (see
    /// [`super::go_order`]).
    pub fn render_typed(&self, object: &Value) -> Result<String, PrintError> {
        match (self, super::go_order::struct_of(object)) {
            (Printer::Json, Some(struct_name)) => {
                let mut out = Vec::new();
                json::write_json(&mut out, &super::go_order::Typed::new(object, struct_name))?;
                Ok(String::from_utf8(out).expect("printers write UTF-8"))
            }
            (Printer::Kyaml, Some(struct_name)) => Ok(super::kyaml::to_kyaml_typed(object, struct_name)),
            _ => self.render(object),
        }
    }

    /// Whether kubectl leaves `metadata.managedFields` out unless `--show-managed-fields`: for
    /// JSON and YAML only (templates see the whole object).
    pub fn hides_managed_fields(&self) -> bool {
        matches!(self, Printer::Json | Printer::Yaml | Printer::Kyaml)
    }

    /// Whether this printer shows whole objects (JSON or YAML), rather than lines from them.
    pub fn prints_objects(&self) -> bool {
        !matches!(self, Printer::Name | Printer::Wide)
    }
}

/// A map whose keys serialize in the order given, as Go writes a struct's fields.
struct InOrder<'a>(&'a [(&'a str, &'a Value)]);

impl serde::Serialize for InOrder<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().copied())
    }
}

/// Why printing failed: the output, or a template on these objects.
#[derive(Debug, thiserror::Error)]
pub enum PrintError {
    #[error(transparent)]
    Io(#[from] io::Error),
    #[error(transparent)]
    Template(#[from] Error),
    /// A template that failed after `printed` was written: kubectl prints it, then the error.
    #[error("{error}")]
    Partial { printed: String, error: Error },
}

impl GoTemplatePrinter {
    /// Runs the template into `out`; on failure, what it wrote and kubectl's account of the
    /// failure go to `out` too, before the error.
    fn write(&self, out: &mut impl Write, data: &Value) -> Result<(), PrintError> {
        match self.parsed.execute(data, self.allow_missing_keys) {
            Ok(text) => Ok(out.write_all(text.as_bytes())?),
            Err(go_template::Error::Execute { message, partial }) => {
                write!(
                    out,
                    "{partial}Error executing template: {message}. Printing more information for debugging the \
                     template:\n\ttemplate was:\n\t\t{}\n\traw data was:\n\t\t{}\n\tobject given to template engine \
                     was:\n\t\t{}\n\n",
                    self.template,
                    gocompat::json::to_compact(data),
                    gocompat::fmt::value_text(data),
                )?;
                let template = jsonpath::go_quote(&self.template);
                Err(PrintError::Template(Error::Execute(format!("error executing template {template}: {message}"))))
            }
            Err(error) => Err(PrintError::Template(Error::Execute(error.to_string()))),
        }
    }
}

impl JsonPathPrinter {
    fn render(&self, data: &Value) -> Result<String, Error> {
        self.path.render(data, self.options).map_err(|error| {
            Error::Execute(format!(
                "error executing jsonpath {}: Error executing template: {error}. Printing more information for \
                 debugging the template:\n\ttemplate was:\n\t\t{}\n\tobject given to jsonpath engine was:\n\t\t{}\n\n",
                jsonpath::go_quote(&self.template),
                self.template,
                jsonpath::go_syntax(data),
            ))
        })
    }
}

impl CustomColumns {
    fn render(&self, objects: &[Value]) -> Result<String, Error> {
        Ok(table::align(&self.lines(objects, !self.no_headers)?))
    }

    /// `object`'s line with tabs between the cells, after the header line when `header` (unless
    /// `--no-headers`), for a tab writer to align: how kubectl's watch prints custom columns.
    pub fn tabbed(&self, object: &Value, header: bool) -> Result<String, Error> {
        let lines = self.lines(std::slice::from_ref(object), header && !self.no_headers)?;
        Ok(lines.iter().map(|line| format!("{}\n", line.join("\t"))).collect())
    }

    fn lines(&self, objects: &[Value], header: bool) -> Result<Vec<Vec<String>>, Error> {
        let mut lines = Vec::with_capacity(objects.len() + 1);
        if header {
            lines.push(self.columns.iter().map(|(header, _)| header.clone()).collect());
        }
        for object in objects {
            let mut line = Vec::with_capacity(self.columns.len());
            for (_, path) in &self.columns {
                let groups = path.find(object, true).map_err(Error::Path)?;
                let texts: Vec<String> =
                    groups.iter().flatten().map(|v| gocompat::fmt::value_text(v).into_owned()).collect();
                line.push(if texts.is_empty() { "<none>".to_string() } else { texts.join(",") });
            }
            lines.push(line);
        }
        Ok(lines)
    }
}

/// `HEADER:PATH,HEADER:PATH`.
fn columns(spec: &str) -> Result<Vec<(String, JsonPath)>, Error> {
    spec.split(',')
        .map(|column| match column.split(':').collect::<Vec<_>>().as_slice() {
            [header, path] => column_path(header, path),
            _ => Err(Error::ColumnSpec(column.to_string())),
        })
        .collect()
}

/// A custom-columns file: the headers on the first line, their paths on the second.
fn columns_file(text: &str) -> Result<Vec<(String, JsonPath)>, Error> {
    let mut lines = text.lines();
    let headers: Vec<&str> = lines.next().unwrap_or_default().split_whitespace().collect();
    let paths: Vec<&str> = lines.next().unwrap_or_default().split_whitespace().collect();
    if headers.len() != paths.len() {
        return Err(Error::Execute(format!(
            "number of headers ({}) does not match number of columns ({})",
            headers.len(),
            paths.len()
        )));
    }
    headers.iter().zip(paths).map(|(header, path)| column_path(header, path)).collect()
}

fn column_path(header: &str, path: &str) -> Result<(String, JsonPath), Error> {
    let relaxed = jsonpath::relaxed(path).map_err(Error::Path)?;
    let parsed = JsonPath::parse(&relaxed).map_err(|error| Error::JsonPath { template: relaxed, error })?;
    Ok((header.to_string(), parsed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn configmap(name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"a": "b"}}})
    }

    fn print(printer: &Printer, objects: Vec<Value>, single: bool) -> String {
        let mut out = Vec::new();
        printer.write(&mut out, objects, single).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn unknown_formats_list_the_verbs_formats() {
        let err = Printer::new("foo", None, true, Verb::Write).unwrap_err().to_string();
        assert_eq!(
            err,
            "unable to match a printer suitable for the output format \"foo\", allowed formats are: \
             go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,template,templatefile,\
             yaml"
        );
        assert!(Printer::new("wide", None, true, Verb::Write).is_err());
        assert!(Printer::new("custom-columns", Some("A:.a"), true, Verb::Write).is_err());
        assert_eq!(Printer::new("jsonpath", None, true, Verb::Get).unwrap_err(), Error::NoTemplate);
        assert_eq!(Printer::new("custom-columns", Some(""), true, Verb::Get).unwrap_err(), Error::NoColumns);
    }

    #[test]
    fn applied_lists_keep_the_go_structs_key_order_in_json_and_kyaml() {
        let applied = |format: &str| {
            let mut out = Vec::new();
            let printer = Printer::new(format, None, true, Verb::Write).unwrap();
            printer
                .write_applied(&mut out, vec![serde_json::json!({"kind": "A"}), serde_json::json!({"kind": "B"})])
                .unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            applied("json"),
            "{\n    \"kind\": \"List\",\n    \"apiVersion\": \"v1\",\n    \"metadata\": {},\n    \"items\": [\n        \
             {\n            \"kind\": \"A\"\n        },\n        {\n            \"kind\": \"B\"\n        }\n    ]\n}\n"
        );
        assert_eq!(
            applied("kyaml"),
            "---\n{\n  kind: \"List\",\n  apiVersion: \"v1\",\n  metadata: {},\n  items: [{\n    kind: \"A\",\n  }, {\n    \
             kind: \"B\",\n  }],\n}\n"
        );
        assert_eq!(applied("yaml"), "apiVersion: v1\nitems:\n- kind: A\n- kind: B\nkind: List\nmetadata: {}\n");
    }

    #[test]
    fn jsonpath_sees_a_list_or_the_single_object() {
        let printer = Printer::new("jsonpath", Some("{.items[*].metadata.name}"), true, Verb::Get).unwrap();
        assert_eq!(print(&printer, vec![configmap("a"), configmap("b")], false), "a b");
        let printer = Printer::new("jsonpath", Some("{.metadata.name}"), true, Verb::Get).unwrap();
        assert_eq!(print(&printer, vec![configmap("a")], true), "a");
    }

    #[test]
    fn custom_columns_align_and_show_none() {
        let printer = Printer::new("custom-columns", Some("N:.metadata.name,L:.metadata.labels,X:.x"), true, Verb::Get);
        let text = print(&printer.unwrap(), vec![configmap("a"), configmap("bb")], false);
        assert_eq!(text, "N     L          X\na     map[a:b]   <none>\nbb    map[a:b]   <none>\n");
        let err = Printer::new("custom-columns", Some("A"), true, Verb::Get).unwrap_err();
        assert_eq!(err.to_string(), "unexpected custom-columns spec: A, expected <header>:<json-path-expr>");
    }
}
