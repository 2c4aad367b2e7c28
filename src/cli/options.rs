//! Option types that several verbs share.

use clap::{Args, ValueEnum};
use serde_json::Value;

use crate::output;

/// `--dry-run`: `none` sends the request, `client` only computes it, `server` asks the server to
/// validate it without persisting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum DryRun {
    #[default]
    None,
    Client,
    Server,
}

impl DryRun {
    /// kubectl's suffix for messages: ` (dry run)`, ` (server dry run)`.
    pub fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }
}

/// `-o` of verbs that write objects: the object as JSON or YAML, or its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ObjectFormat {
    Json,
    Yaml,
    Name,
}

impl ObjectFormat {
    /// `object` in this format: indented JSON, YAML, or `kind.group/name`, each ending with a newline.
    pub fn render(self, object: &Value) -> String {
        match self {
            ObjectFormat::Json => output::to_json(object),
            ObjectFormat::Yaml => output::to_yaml(object),
            ObjectFormat::Name => output::object_name(object) + "\n",
        }
    }
}

/// `--subresource`: write a part of the object that has its own endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Subresource {
    Status,
    Scale,
}

impl Subresource {
    /// The endpoint's name, e.g. `status`.
    pub fn as_str(self) -> &'static str {
        match self {
            Subresource::Status => "status",
            Subresource::Scale => "scale",
        }
    }
}

/// The output flags of verbs that write objects.
#[derive(Debug, Clone, Default, Args)]
pub struct OutputArgs {
    /// Print the objects in this format instead of a line each.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<ObjectFormat>,
    /// Keep `metadata.managedFields` in JSON and YAML output.
    #[arg(long)]
    pub show_managed_fields: bool,
}

impl OutputArgs {
    /// `object` in `format`, without `metadata.managedFields` unless asked for, as kubectl prints it.
    pub fn render(&self, format: ObjectFormat, object: &Value) -> String {
        if self.show_managed_fields || object.pointer("/metadata/managedFields").is_none() {
            return format.render(object);
        }
        let mut shown = object.clone();
        output::strip_managed_fields(&mut shown);
        format.render(&shown)
    }

    /// What a writing verb prints for one object: the object with `-o`, else kubectl's line
    /// `deployment.apps/web patched`, with ` (no change)` when the write changed nothing.
    pub fn written(&self, object: &Value, operation: &str, changed: bool, suffix: &str) -> String {
        match self.output {
            Some(format) => self.render(format, object),
            None => {
                let unchanged = if changed { "" } else { " (no change)" };
                format!("{} {operation}{unchanged}{suffix}\n", output::object_name(object))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_objects_print_like_kubectl() {
        let deployment =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "managedFields": []}});
        let lines = OutputArgs::default();
        assert_eq!(lines.written(&deployment, "patched", true, ""), "deployment.apps/web patched\n");
        assert_eq!(lines.written(&deployment, "patched", false, ""), "deployment.apps/web patched (no change)\n");
        assert_eq!(
            lines.written(&deployment, "updated", true, DryRun::Server.suffix()),
            "deployment.apps/web updated (server dry run)\n"
        );
        let name = OutputArgs { output: Some(ObjectFormat::Name), ..OutputArgs::default() };
        assert_eq!(name.written(&deployment, "patched", true, ""), "deployment.apps/web\n");
        let yaml = OutputArgs { output: Some(ObjectFormat::Yaml), ..OutputArgs::default() };
        assert_eq!(
            yaml.written(&deployment, "patched", true, ""),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
        );
        let managed = OutputArgs { show_managed_fields: true, ..yaml };
        assert!(managed.written(&deployment, "patched", true, "").contains("managedFields: []"));
    }
}
