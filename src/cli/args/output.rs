//! `-o` and its templates: the printer a verb prints with, and how it prints an object.

use std::sync::OnceLock;

use clap::Args;
use serde_json::Value;

use crate::cli::Error;
use crate::output::{self, Printer, Verb};

/// `-o`, its templates, and `--show-managed-fields`.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Output format: json, yaml, name, jsonpath=TEMPLATE, jsonpath-file=PATH, jsonpath-as-json=TEMPLATE;
    /// for get also wide, custom-columns=HEADER:PATH,... and custom-columns-file=PATH.
    #[arg(short = 'o', long, value_name = "FORMAT")]
    pub output: Option<String>,
    /// The template (or template file) of -o jsonpath or jsonpath-file when not given after `=`.
    #[arg(long, value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// With a template: a field that is missing prints nothing instead of failing.
    #[arg(long, value_name = "BOOL", default_value_t = true)]
    pub allow_missing_template_keys: bool,
    /// Keep `metadata.managedFields` in JSON and YAML output.
    #[arg(long)]
    pub show_managed_fields: bool,
    /// The printer, made from the flags the first time it is asked for.
    #[arg(skip)]
    printer: OnceLock<Result<Option<Printer>, String>>,
}

impl Default for OutputArgs {
    fn default() -> Self {
        OutputArgs {
            output: None,
            template: None,
            allow_missing_template_keys: true,
            show_managed_fields: false,
            printer: OnceLock::new(),
        }
    }
}

impl OutputArgs {
    /// The printer `-o` asks for (`None`: the verb's own lines, or get's table), as `verb` accepts
    /// it; the flags are read once, template files included.
    pub fn printer(&self, verb: Verb) -> Result<Option<&Printer>, Error> {
        let made = self.printer.get_or_init(|| self.make_printer(verb));
        made.as_ref().map(Option::as_ref).map_err(|err| Error::msg(err.clone()))
    }

    fn make_printer(&self, verb: Verb) -> Result<Option<Printer>, String> {
        // kubectl prints with a Go template when only --template is given.
        let template_alone = self.template.as_deref().filter(|template| !template.is_empty()).map(|_| "go-template");
        let Some(output) = self.output.as_deref().or(template_alone) else { return Ok(None) };
        let (format, inline) = match output.split_once('=') {
            Some((format, template)) => (format, Some(template)),
            None => (output, None),
        };
        let template = inline.or(self.template.as_deref());
        let from_file;
        let template = match (format.ends_with("-file") || format == "templatefile", template) {
            (true, Some(path)) if !path.is_empty() => {
                from_file = std::fs::read_to_string(path).map_err(|err| {
                    let reason = crate::gocompat::os::error_text(&err);
                    format!("error reading --template {path}, open {path}: {reason}")
                })?;
                Some(from_file.as_str())
            }
            (_, template) => template,
        };
        let printer = Printer::new(format, template, self.allow_missing_template_keys, verb).map_err(|err| match err {
            output::PrinterError::Unknown { verb, .. } => output::PrinterError::Unknown { format: output.into(), verb },
            err => err,
        });
        printer.map(Some).map_err(|err| err.to_string())
    }

    /// `object` as `printer` prints it, without `metadata.managedFields` unless asked for.
    pub fn render(&self, printer: &Printer, object: &Value) -> Result<String, Error> {
        self.render_with(printer, object, Printer::render)
    }

    /// An object kubectl prints from a Go struct (what its generators make, before or after the
    /// server has it): as [`OutputArgs::render`], JSON in the struct's order of keys.
    pub fn render_typed(&self, printer: &Printer, object: &Value) -> Result<String, Error> {
        self.render_with(printer, object, Printer::render_typed)
    }

    fn render_with(
        &self,
        printer: &Printer,
        object: &Value,
        render: fn(&Printer, &Value) -> Result<String, output::PrintError>,
    ) -> Result<String, Error> {
        let shown_whole = self.show_managed_fields || !printer.hides_managed_fields();
        let printed = if shown_whole || object.pointer("/metadata/managedFields").is_none() {
            render(printer, object)
        } else {
            let mut shown = object.clone();
            output::strip_managed_fields(&mut shown);
            render(printer, &shown)
        };
        printed.map_err(print_error)
    }

    /// What a writing verb prints for one object: the object with `-o`, else kubectl's line
    /// `deployment.apps/web patched`, with ` (no change)` when the write changed nothing.
    pub fn written(&self, object: &Value, operation: &str, changed: bool, suffix: &str) -> Result<String, Error> {
        match self.printer(Verb::Write)? {
            Some(printer) => self.render(printer, object),
            None => {
                let unchanged = if changed { "" } else { " (no change)" };
                Ok(format!("{} {operation}{unchanged}{suffix}\n", output::object_name(object)))
            }
        }
    }
}

/// A printer's failure as the cli reports it.
pub fn print_error(err: output::PrintError) -> Error {
    match err {
        output::PrintError::Template(err) => Error::msg(err.to_string()),
        output::PrintError::Io(err) => Error::Other(err.into()),
        output::PrintError::Partial { printed, error } => match crate::cli::write_stdout(&printed) {
            Ok(()) => Error::msg(error.to_string()),
            Err(err) => err,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::dry_run::{DryRunArg, DryRunMode};
    use super::*;
    use serde_json::json;

    #[test]
    fn written_objects_print_like_kubectl() {
        let deployment =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "managedFields": []}});
        let lines = OutputArgs::default();
        let server = DryRunArg { mode: DryRunMode::Server };
        let written = |args: &OutputArgs, operation, changed, suffix| {
            args.written(&deployment, operation, changed, suffix).unwrap()
        };
        assert_eq!(written(&lines, "patched", true, ""), "deployment.apps/web patched\n");
        assert_eq!(written(&lines, "patched", false, ""), "deployment.apps/web patched (no change)\n");
        assert_eq!(written(&lines, "updated", true, server.suffix()), "deployment.apps/web updated (server dry run)\n");
        let with = |format: &str| OutputArgs { output: Some(format.into()), ..OutputArgs::default() };
        assert_eq!(written(&with("name"), "patched", true, ""), "deployment.apps/web\n");
        assert_eq!(
            written(&with("yaml"), "patched", true, ""),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
        );
        assert_eq!(written(&with("jsonpath={.kind}"), "patched", true, ""), "Deployment");
        let managed = OutputArgs { show_managed_fields: true, ..with("yaml") };
        assert!(written(&managed, "patched", true, "").contains("managedFields: []"));
        let wide = with("wide").written(&deployment, "patched", true, "").unwrap_err().line();
        assert!(wide.starts_with("error: unable to match a printer suitable for the output format \"wide\""), "{wide}");
    }
}
