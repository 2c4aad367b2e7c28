//! `-o go-template` and `-o template`: Go's `text/template` over an object as kubectl hands it
//! over (decoded JSON with integers as int64 and other numbers as float64), with the functions
//! kubectl adds (`exists`, `base64decode`). Text and `{{actions}}` with trim markers and
//! comments; pipelines, variables, `if`/`else if`/`range`/`with`/`break`/`continue`,
//! `define`/`template`/`block`; the built-in functions (`and`, `or`, `not`, `len`, `index`,
//! `slice`, `print`, `printf`, `println`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `html`, `js`,
//! `urlquery`). Errors are Go's words with its `template: output:LINE:COL` locations. Pure: a
//! value in, text out.
//!
//! [`parser`] makes the syntax tree, [`executor`] runs it over a value, [`functions`] are the
//! functions it calls; Go's `fmt` (`print`, `printf`, `%v`) is [`crate::gocompat::fmt`]'s.

mod executor;
mod functions;
mod parser;

use std::collections::HashMap;

use parser::Node;

/// Why a template cannot be parsed or run, in Go's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `template: output:1: unclosed action`.
    #[error("{0}")]
    Parse(String),
    /// `template: output:1:7: executing "output" at <.a.b>: ...`; `partial` is what was written
    /// before the failure, which kubectl prints.
    #[error("{message}")]
    Execute { message: String, partial: String },
}

/// A parsed template.
#[derive(Debug, Clone)]
pub struct Template {
    text: String,
    root: Vec<Node>,
    defined: HashMap<String, Vec<Node>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn run(template: &str, data: &Value) -> String {
        Template::parse(template).unwrap().execute(data, true).unwrap()
    }

    fn failure(template: &str, data: &Value) -> String {
        match Template::parse(template).and_then(|parsed| parsed.execute(data, false)) {
            Err(err) => err.to_string(),
            Ok(text) => panic!("{template} printed {text:?}"),
        }
    }

    // Expectations from kubectl 1.32: `kubectl annotate -f OBJECT --local x=y -o go-template=T`.
    #[test]
    fn values_print_as_kubectl_prints_them() {
        let data = json!({"n": 3, "f": 0.5, "tiny": 0.00001, "big": 100000000, "null": null,
                          "list": ["x", "y"], "map": {"b": 2, "a": "1"}});
        assert_eq!(
            run("{{.n}} {{.f}} {{.tiny}} {{.big}} {{.null}} {{.nope}} {{.nope.deeper}}", &data),
            "3 0.5 1e-05 100000000 <no value> <no value> <no value>"
        );
        assert_eq!(run("{{.list}} {{.map}} {{print .null}}", &data), "[x y] map[a:1 b:2] <nil>");
        assert_eq!(run("{{range $k, $v := .map}}{{$k}}={{$v}};{{end}}", &data), "a=1;b=2;");
        assert_eq!(run("{{if eq .n 3}}int{{end}} {{lt .f 1.0}} {{len .list}}", &data), "int true 2");
        assert_eq!(run("{{printf \"%05d|%-3s|%q|%.2f\" .n \"a\" .list .f}}", &data), "00003|a  |[\"x\" \"y\"]|0.50");
        assert_eq!(run("{{ .n -}}  |  {{- .f }}", &data), "3|0.5");
    }

    #[test]
    fn errors_are_gos_with_their_location() {
        let data = json!({"spec": {"list": [1], "n": 3}});
        assert_eq!(
            failure("{{.spec.list.x}}", &data),
            "template: output:1:7: executing \"output\" at <.spec.list.x>: can't evaluate field x in type interface {}"
        );
        assert_eq!(
            failure("{{if eq .spec.n 3.0}}{{end}}", &data),
            "template: output:1:5: executing \"output\" at <eq .spec.n 3.0>: error calling eq: incompatible types for \
             comparison: int64 and float64"
        );
        assert_eq!(
            failure("x\n{{.nope}}", &data),
            "template: output:2:2: executing \"output\" at <.nope>: map has no entry for key \"nope\""
        );
        assert_eq!(failure("{{.spec", &data), "template: output:1: unclosed action");
        assert_eq!(failure("{{foo}}", &data), "template: output:1: function \"foo\" not defined");
        assert_eq!(failure("{{break}}", &data), "template: output:1: {{break}} outside {{range}}");
    }

    /// Found by fuzzing: a template that calls itself overflowed the stack; Go stops it at
    /// 100000 calls deep (kubectl 1.37's words, from `patch --local -o go-template=...`).
    #[test]
    fn a_template_that_calls_itself_stops_where_go_stops() {
        assert_eq!(
            failure("{{define \"r\"}}{{template \"r\" .}}{{end}}{{template \"r\" .}}", &json!({})),
            "template: output:1:25: executing \"r\" at <{{template \"r\" .}}>: exceeded maximum template depth (100000)"
        );
    }
}
