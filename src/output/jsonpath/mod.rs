//! kubectl's JSONPath dialect (client-go `util/jsonpath`), which is not RFC 9535: templates mix
//! text with `{actions}`; actions hold fields (`.a.b`, `..a`, `.*`), array slices (`[1:3]`,
//! `[-1]`, `[*]`), unions (`[0,2]`), filters (`[?(@.type=="Ready")]`), quoted literals (`{"\n"}`)
//! and `{range ...}`/`{end}`. Values print as kubectl prints them: strings bare, numbers and
//! booleans as Go's `fmt`, objects and lists as Go's compact JSON, several values of one action
//! separated by a space. Pure: one shared evaluator for `-o jsonpath`, custom columns, `--sort-by`
//! and `wait --for=jsonpath`.

use std::borrow::Cow;

use serde_json::Value;

use crate::gocompat;

mod eval;
mod parser;

use eval::find_block;
use parser::Element;

/// Why a template cannot be parsed or evaluated, in client-go's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub String);

fn error<T>(text: impl Into<String>) -> Result<T, Error> {
    Err(Error(text.into()))
}

/// A parsed template.
#[derive(Debug, Clone)]
pub struct JsonPath {
    block: Vec<Element>,
}

/// How values found are printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// A field that is missing yields nothing instead of `NAME is not found` (kubectl's
    /// `--allow-missing-template-keys`, on by default).
    pub allow_missing_keys: bool,
    /// `-o jsonpath-as-json`: each group as an indented JSON list.
    pub as_json: bool,
}

impl JsonPath {
    /// Parses `template`; errors read as client-go's (`unclosed action`, `invalid array index x`).
    pub fn parse(template: &str) -> Result<JsonPath, Error> {
        Ok(JsonPath { block: parser::parse(template)? })
    }

    /// The groups of values the template finds in `data`, in order (one per action or text).
    pub fn find<'a>(&self, data: &'a Value, allow_missing_keys: bool) -> Result<Vec<Vec<Cow<'a, Value>>>, Error> {
        let mut groups = Vec::new();
        find_block(&self.block, data, allow_missing_keys, &mut groups)?;
        Ok(groups)
    }

    /// The template applied to `data`, as kubectl prints it.
    pub fn render(&self, data: &Value, options: Options) -> Result<String, Error> {
        let groups = self.find(data, options.allow_missing_keys)?;
        let mut out = String::new();
        for group in groups {
            if options.as_json {
                let list = Value::Array(group.into_iter().map(Cow::into_owned).collect());
                let mut bytes = Vec::new();
                gocompat::json::write_indented(&mut bytes, &list, "    ").expect("writing into memory cannot fail");
                out.push_str(&String::from_utf8(bytes).expect("JSON is UTF-8"));
                continue;
            }
            for (index, value) in group.iter().enumerate() {
                if index > 0 {
                    out.push(' ');
                }
                out.push_str(&value_text(value));
            }
        }
        Ok(out)
    }
}

/// How kubectl's JSONPath prints one value: strings bare, objects, lists and null as Go's compact
/// JSON, numbers and booleans as Go's `fmt`.
pub fn value_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::Object(_) | Value::Array(_) | Value::Null => Cow::Owned(gocompat::json::to_compact(value)),
        other => gocompat::fmt::value_text(other),
    }
}

/// kubectl's relaxed spelling for custom columns and `--sort-by`: `a.b`, `.a.b`, `{a.b}` and
/// `{.a.b}` all mean `{.a.b}`.
pub fn relaxed(path: &str) -> Result<String, Error> {
    let inner = path.strip_prefix('{').unwrap_or(path);
    let inner = inner.strip_suffix('}').unwrap_or(inner);
    if inner.contains(['{', '}']) {
        return error(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
        );
    }
    if inner.starts_with('.') { Ok(format!("{{{inner}}}")) } else { Ok(format!("{{.{inner}}}")) }
}

/// Go's `%#v` of a decoded JSON value, as kubectl's jsonpath errors show the object.
pub fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".into(),
        Value::Bool(bool) => bool.to_string(),
        Value::Number(number) => gocompat::fmt::number_text(number),
        Value::String(text) => go_quote(text),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map.iter().map(|(k, v)| format!("{}:{}", go_quote(k), go_syntax(v))).collect();
            format!("map[string]interface {{}}{{{}}}", entries.join(", "))
        }
    }
}

/// Go's `%q` of a string (`strconv.Quote`), which lives with Go's other `fmt` behaviours.
pub use crate::gocompat::fmt::quote as go_quote;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object() -> Value {
        json!({
            "kind": "List",
            "items": [
                {"metadata": {"name": "a", "labels": {"app.kubernetes.io/name": "web"}}, "spec": {"replicas": 1},
                 "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Progressing", "status": "False"}]}},
                {"metadata": {"name": "b"}, "spec": {"replicas": 3, "ratio": 0.5}, "status": {"conditions": []}},
            ],
            "extra": {"nil": null, "s": "x<y"}
        })
    }

    fn render(template: &str) -> Result<String, Error> {
        JsonPath::parse(template)?.render(&object(), Options { allow_missing_keys: true, as_json: false })
    }

    #[test]
    fn fields_slices_and_literals_print_like_kubectl() {
        let cases = [
            ("{.kind}", "List"),
            ("kind={.kind}{\"\\n\"}", "kind=List\n"),
            ("{.items[*].metadata.name}", "a b"),
            ("{.items[0].spec.replicas}", "1"),
            ("{.items[-1].metadata.name}", "b"),
            ("{.items[0:1].metadata.name}", "a"),
            ("{.items[:2:2].metadata.name}", "a"),
            ("{.items[1].spec.ratio}", "0.5"),
            ("{.items[0,1].metadata.name}", "a b"),
            ("{.items[0].metadata.labels.app\\.kubernetes\\.io/name}", "web"),
            ("{.items[0].metadata.labels['app.kubernetes.io/name']}", ""),
            ("{.extra.nil}", "null"),
            ("{.extra.s}", "x<y"),
            ("{.items[1].status}", "{\"conditions\":[]}"),
            ("{.items[0].status.conditions[?(@.type==\"Ready\")].status}", "True"),
            ("{.items[?(@.spec.replicas>1)].metadata.name}", "b"),
            ("{.items[?(@.metadata.labels)].metadata.name}", "a"),
            ("{..replicas}", "1 3"),
            ("{range .items[*]}{.metadata.name}:{.spec.replicas};{end}", "a:1;b:3;"),
            ("{range .items[*]}[{range .status.conditions[*]}{.type},{end}]{end}", "[Ready,Progressing,][]"),
            ("{.missing}", ""),
            ("{@.kind}", "List"),
        ];
        for (template, expected) in cases {
            assert_eq!(render(template).as_deref(), Ok(expected), "{template}");
        }
    }

    #[test]
    fn errors_read_as_client_go() {
        let cases = [
            ("{.kind", "unclosed action"),
            ("{.items[x]}", "invalid array index x"),
            ("{.items[5]}", "array index out of bounds: index 5, length 2"),
            ("{.extra[0]}", "map[string]interface {} is not array or slice"),
            ("{end}", "not in range, nothing to end"),
            ("{kind}", "unrecognized identifier kind"),
            ("{.items[?(@.spec.replicas>1.5)]}", "incompatible types for comparison"),
            ("{.items[?(@.spec.replicas=1)]}", "unrecognized filter operator ="),
            ("{.items[::0]}", "step must be > 0"),
            ("{~}", "unrecognized character in action: U+007E '~'"),
        ];
        for (template, expected) in cases {
            assert_eq!(render(template), Err(Error(expected.into())), "{template}");
        }
        let data = object();
        let strict = JsonPath::parse("{.nope}").unwrap().find(&data, false);
        assert_eq!(strict.unwrap_err(), Error("nope is not found".into()));
    }

    /// A `{range}` without its `{end}` goes on at its own level after the last `{end}` it
    /// reached, so its trailing text is printed once more: kubectl 1.37's bytes for these
    /// templates on a List of ConfigMaps `a` and `b`.
    #[test]
    fn a_range_without_its_end_repeats_what_follows_the_last_end_reached() {
        let list = json!({"kind": "List", "items": [
            {"kind": "ConfigMap", "metadata": {"name": "a"}},
            {"kind": "ConfigMap", "metadata": {"name": "b"}},
        ]});
        for (template, expected) in [
            ("{range .items[*]}<{.kind}>", "<ConfigMap><ConfigMap><List>"),
            ("{range .items[*]}{range .x}{end}<{.kind}>", "<ConfigMap><ConfigMap><List>"),
            ("{.kind}{range .items[*]}{range .x[*]}y{end}<{.metadata.name}>{range .z}{end}", "List<a><b>"),
            ("{range .items[*]}{range .x}-{.metadata.name}-", "-a--b---"),
            ("{range .items[*]}{.metadata.name}{\"\\n\"}", "a\nb\n\n"),
        ] {
            let path = JsonPath::parse(template).unwrap();
            let options = Options { allow_missing_keys: true, as_json: false };
            assert_eq!(path.render(&list, options).unwrap(), expected, "{template}");
        }
    }

    #[test]
    fn as_json_prints_each_group_as_a_list() {
        let path = JsonPath::parse("{.items[*].spec.replicas}{.nope}").unwrap();
        let text = path.render(&object(), Options { allow_missing_keys: true, as_json: true }).unwrap();
        assert_eq!(text, "[\n    1,\n    3\n]\n[]\n");
    }

    #[test]
    fn relaxed_paths_gain_braces_and_a_dot() {
        assert_eq!(relaxed("metadata.name").unwrap(), "{.metadata.name}");
        assert_eq!(relaxed("{.metadata.name}").unwrap(), "{.metadata.name}");
        assert!(relaxed("{a}{b}").is_err());
    }

    #[test]
    fn go_syntax_matches_percent_sharp_v() {
        let value = json!({"a": [1, "t\"w"], "n": null, "f": 0.5});
        assert_eq!(
            go_syntax(&value),
            r#"map[string]interface {}{"a":[]interface {}{1, "t\"w"}, "f":0.5, "n":interface {}(nil)}"#
        );
    }
}
