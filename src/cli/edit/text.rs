//! The text in the editor: kubectl's header comment, the reasons the last save failed, then the
//! objects; and reading the objects back from what the user saved.

use serde_json::{Value, json};

use crate::manifest;
use crate::output;

/// kubectl's header, word for word.
const HEADER: &str = "\
# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
";

/// The format the objects are edited in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EditFormat {
    #[default]
    Yaml,
    Json,
    /// KYAML (kubectl 1.34 and later): YAML that reads the same to every YAML parser.
    Kyaml,
}

impl EditFormat {
    /// The format `-o` names (none: YAML, objects printed by name); kubectl 1.37's editor printer
    /// takes only these three, and its refusal of the others is kept.
    pub fn from_output(output: Option<&str>) -> Result<Option<EditFormat>, String> {
        match output.unwrap_or_default() {
            "" => Ok(None),
            "yaml" => Ok(Some(EditFormat::Yaml)),
            "json" => Ok(Some(EditFormat::Json)),
            "kyaml" => Ok(Some(EditFormat::Kyaml)),
            other => Err(format!(
                "unable to match a printer suitable for the output format {other:?}, allowed formats are: \
                 json,kyaml,yaml"
            )),
        }
    }

    /// The temporary file's extension, so that editors highlight it.
    pub(super) fn extension(self) -> &'static str {
        match self {
            EditFormat::Yaml | EditFormat::Kyaml => "yaml",
            EditFormat::Json => "json",
        }
    }
}

/// Why the last save failed, shown as comment lines above the objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Reason {
    /// What failed, e.g. `deployments.apps "web" was not valid`.
    pub head: String,
    /// One line per cause, e.g. `spec.replicas: Invalid value: -1: ...`.
    pub causes: Vec<String>,
}

/// The objects as the editor first shows them: one alone, several as a `List`.
pub(super) fn render(objects: &[Value], format: EditFormat) -> String {
    let document = match objects {
        [object] => object.clone(),
        objects => json!({"apiVersion": "v1", "items": objects, "kind": "List", "metadata": {}}),
    };
    match format {
        EditFormat::Yaml => output::to_yaml(&document),
        EditFormat::Json => output::to_json(&document),
        EditFormat::Kyaml => output::to_kyaml(&document),
    }
}

/// The file's text: the header, the reasons the last save failed, then `body`.
pub(super) fn compose(reasons: &[Reason], body: &str) -> String {
    let mut text = HEADER.to_string();
    for reason in reasons {
        let colon = if reason.causes.is_empty() { "" } else { ":" };
        text.push_str(&format!("# {}{colon}\n", commented(&reason.head)));
        for cause in &reason.causes {
            text.push_str(&format!("# * {}\n", commented(cause)));
        }
        text.push_str("#\n");
    }
    text.push_str(body);
    text
}

/// Continues a message's later lines as comments too.
fn commented(message: &str) -> String {
    message.replace('\n', "\n# ")
}

/// The saved text without its leading comment lines (the header, and the reasons): what the editor
/// is reopened on after a failure.
pub(super) fn body(text: &str) -> &str {
    let mut rest = text;
    while !rest.is_empty() {
        let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let trimmed = line.trim();
        if !(trimmed.is_empty() || trimmed.starts_with('#')) {
            break;
        }
        rest = after;
    }
    rest
}

/// The objects in the saved text, single or in a `List`; none when the user emptied the file.
/// Errors count lines as in the saved file, whose name is `file_name`.
pub(super) fn parse(text: &str, file_name: &str) -> anyhow::Result<Vec<Value>> {
    // The leading comments become blank lines: JSON has no comments, and line numbers stay right.
    let header_lines = text[..text.len() - body(text).len()].matches('\n').count();
    let readable = "\n".repeat(header_lines) + body(text);
    Ok(manifest::parse(&readable, file_name)?.into_iter().map(|object| object.object).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configmap(name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"flag": "true", "size": "1"}})
    }

    #[test]
    fn one_object_shows_alone_and_several_as_a_list() {
        let one = render(&[configmap("a")], EditFormat::Yaml);
        assert_eq!(
            one,
            "apiVersion: v1\ndata:\n  flag: \"true\"\n  size: \"1\"\nkind: ConfigMap\nmetadata:\n  name: a\n"
        );
        let several = render(&[configmap("a"), configmap("b")], EditFormat::Json);
        let list: Value = serde_json::from_str(&several).unwrap();
        assert_eq!(list["kind"], "List");
        assert_eq!(list["metadata"], json!({}));
        assert_eq!(list["items"][1]["metadata"]["name"], "b");
    }

    #[test]
    fn reasons_are_comment_lines_under_the_header() {
        let reasons = [
            Reason {
                head: "deployments.apps \"web\" was not valid".into(),
                causes: vec!["spec.replicas: bad".into(), "a: b".into()],
            },
            Reason { head: "The edited file had a syntax error: line 3\n  | here".into(), causes: vec![] },
        ];
        let text = compose(&reasons, "kind: X\n");
        let expected = "\
# deployments.apps \"web\" was not valid:
# * spec.replicas: bad
# * a: b
#
# The edited file had a syntax error: line 3
#   | here
#
kind: X
";
        assert_eq!(text, HEADER.to_string() + expected);
        assert_eq!(body(&text), "kind: X\n");
        assert_eq!(compose(&[], "kind: X\n"), HEADER.to_string() + "kind: X\n");
    }

    #[test]
    fn the_body_starts_after_leading_comments_and_blank_lines() {
        assert_eq!(body("# a\n\n  # b\nx: 1\n# c\ny: 2\n"), "x: 1\n# c\ny: 2\n");
        assert_eq!(body("# only comments\n#"), "");
        assert_eq!(body(""), "");
    }

    #[test]
    fn saved_text_parses_back_in_both_formats() {
        for format in [EditFormat::Yaml, EditFormat::Json] {
            let objects = [configmap("a"), configmap("b")];
            let saved = compose(&[], &render(&objects, format));
            assert_eq!(parse(&saved, "f").unwrap(), objects, "{format:?}");
            let saved = compose(&[], &render(&objects[..1], format));
            assert_eq!(parse(&saved, "f").unwrap(), objects[..1], "{format:?}");
        }
        assert_eq!(parse(&compose(&[], ""), "f").unwrap(), Vec::<Value>::new());
        assert_eq!(parse("# header\n\n# more\n", "f").unwrap(), Vec::<Value>::new());
    }

    #[test]
    fn syntax_errors_count_lines_in_the_saved_file() {
        let saved = compose(&[], "a: 1\n  : : bad: [\n");
        let err = format!("{:#}", parse(&saved, "kubeupd-edit-1.yaml").unwrap_err());
        assert!(err.starts_with("kubeupd-edit-1.yaml"), "{err}");
        assert!(err.contains("line 6"), "{err}");
    }
}
