//! `kubeupd edit`: edit live objects in the user's editor and send the difference as patches.
//!
//! The objects are fetched once. Each save is compared with the objects as fetched, and only the
//! difference is sent, as a PATCH: fields that others change meanwhile survive. A save that does
//! not parse, or that the server rejects, reopens the editor on the user's text with the errors on
//! top; whenever the edit fails, the text is kept in a file so that no edit is lost.

pub mod before_create;
mod changes;
mod edit_file;
mod editor;
mod text;

use std::collections::HashMap;

use clap::Args;
use futures::future::try_join_all;
use serde_json::Value;

use self::edit_file::EditFile;
use self::editor::Editor;
use self::text::Reason;
use super::args::{FieldManagerArg, OutputArgs, RecordArg, SubresourceArg, TargetArgs, ValidateArg};
use super::validation;
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, Verdict, last_applied};
use crate::change::metadata;
use crate::client::{self, Cluster, ResourceType, Selectors, Status, WriteOptions};
use crate::gocompat;
use crate::merge::{KindPatcher, MergeError};
use crate::output;
use crate::resource::{Named, Resolver, Rules};
use crate::schema::KindSchema;

pub use self::text::EditFormat;

const NO_CHANGES: &str = "Edit cancelled, no changes made.";

/// Options of `kubeupd edit`.
#[derive(Debug, Args)]
#[command(
    mut_arg("output", |arg| arg.help("The format to edit in, yaml or json (default: yaml); when given, edited \
        objects are printed in it too")),
    mut_arg("template", |arg| arg.help("Without -o: print the edited objects through this Go template")),
)]
pub struct EditArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Also record the edited configuration in the last-applied annotation, for a later apply.
    #[arg(long)]
    pub save_config: bool,
    /// Print each patch before sending it.
    #[arg(long)]
    pub show_patch: bool,
    /// kubectl's name for --show-patch (both are taken).
    #[arg(long, hide = true)]
    pub output_patch: bool,
    #[command(flatten)]
    pub subresource: SubresourceArg,
    /// Give the editor CRLF line endings (kubectl's default on Windows).
    #[arg(long)]
    pub windows_line_endings: bool,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
    #[command(flatten)]
    pub validate: ValidateArg,
    #[command(flatten)]
    pub record: RecordArg,
}

/// What `edit` is asked, checked before any request.
struct Options {
    printer: Printer,
    /// The objects the arguments and files name.
    objects: Vec<Named>,
    editor: Editor,
}

impl EditArgs {
    /// The printer the flags ask for, the objects named and the user's editor.
    fn options(&self) -> Result<Options> {
        let output = &self.output;
        let format = EditFormat::from_output(output.output.as_deref()).map_err(Error::msg)?;
        // Without -o, kubectl prints the edited objects through --template, a Go template.
        let template = match (&output.template, format) {
            (Some(template), None) if !template.is_empty() => {
                let verb = output::Verb::Write;
                let printer =
                    output::Printer::new("go-template", Some(template), output.allow_missing_template_keys, verb);
                Some(printer.map_err(|err| Error::msg(err.to_string()))?)
            }
            _ => None,
        };
        let printer = Printer { format, template, printed: 0, show_managed_fields: output.show_managed_fields };
        let objects = self.targets.named(Rules { verb: "edit", types_alone: true, selector: false })?;
        Ok(Options { printer, objects, editor: Editor::from_env()? })
    }
}

/// Runs `kubeupd edit`.
pub async fn run(args: EditArgs, global: &GlobalArgs) -> Result {
    let Options { printer, objects, editor } = args.options()?;
    let cluster = global.connect().await?;
    let targets = fetch(&cluster, objects, global.namespace.as_deref(), &args).await?;
    let change_cause = args.record.cause(global);
    let session = Session { cluster: &cluster, args: &args, change_cause, targets, schemas: HashMap::new(), printer };
    session.run(&editor).await
}

/// One object being edited.
struct Target {
    rt: ResourceType,
    namespace: String,
    /// The object as fetched, without `managedFields`: what the editor first shows.
    fetched: Value,
    /// The user's version of the object that the server has: `fetched` until a patch is sent.
    accepted: Value,
    /// What the server has from this session: `accepted`, annotated under `--save-config`. The
    /// next patch is computed from it.
    base: Value,
    /// Whether a patch of this object was sent.
    sent: bool,
}

impl Target {
    /// kubectl's name for the object in errors, e.g. `deployments.apps "web"`.
    fn label(&self) -> String {
        let name = self.fetched.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        format!("{} {name:?}", self.rt.group_resource())
    }
}

/// Resolves and fetches the objects, in the order asked for, each once; a type alone (`edit
/// deployments`) stands for every object of the type in the namespace, as kubectl has it.
async fn fetch(
    cluster: &Cluster,
    objects: Vec<Named>,
    namespace_flag: Option<&str>,
    args: &EditArgs,
) -> Result<Vec<Target>> {
    let resolved = Resolver::new(cluster, namespace_flag, false).resolve(objects).await?;
    let mut named = Vec::new();
    for item in resolved {
        named.extend(item.objects(cluster, Selectors::default()).await?);
    }
    let subresource = args.subresource.name.as_deref();
    let fetches = named.into_iter().map(|object| async move {
        let namespace = object.namespace.unwrap_or_default();
        let mut fetched = cluster.get_subresource(&object.rt, Some(&namespace), &object.name, subresource).await?;
        if !args.output.show_managed_fields {
            output::strip_managed_fields(&mut fetched);
        }
        Ok::<_, Error>(Target {
            rt: object.rt,
            namespace,
            accepted: fetched.clone(),
            base: fetched.clone(),
            fetched,
            sent: false,
        })
    });
    let mut targets = try_join_all(fetches).await?;
    let mut uids = Vec::new();
    targets.retain(|target| {
        let uid = target.fetched.pointer("/metadata/uid").cloned();
        let first = !uids.contains(&uid);
        uids.push(uid);
        first
    });
    Ok(targets)
}

/// A change the user can fix: the editor reopens with it on top.
struct Rejection {
    reason: Reason,
    /// What the terminal shows when it happens, after `error: `.
    summary: String,
    /// The whole error, for the final message should the user give up.
    error: String,
}

impl Rejection {
    fn syntax(err: &anyhow::Error) -> Rejection {
        let head = format!("The edited file had a syntax error: {err:#}");
        let summary = first_line(&head).to_string();
        Rejection { reason: Reason { head, causes: Vec::new() }, error: summary.clone(), summary }
    }

    fn unmergeable(target: &Target, err: &MergeError) -> Rejection {
        let summary = format!("{} is invalid: {err}", target.label());
        let reason = Reason { head: format!("{} was not valid", target.label()), causes: vec![err.to_string()] };
        Rejection { reason, error: summary.clone(), summary }
    }

    fn invalid_fields(target: &Target, errors: Vec<crate::schema::FieldError>) -> Rejection {
        let causes = errors.iter().map(ToString::to_string).collect();
        let reason = Reason { head: format!("{} was not valid", target.label()), causes };
        let summary = format!("{} is invalid", target.label());
        Rejection { reason, summary, error: validation::refused(&target.label(), errors) }
    }

    fn from_server(target: &Target, err: &Status) -> Rejection {
        let causes: Vec<String> = match &err.details {
            Some(details) if !details.causes.is_empty() => {
                details.causes.iter().map(|cause| format!("{}: {}", cause.field, cause.message)).collect()
            }
            _ => vec![err.message.clone()],
        };
        let (head, summary) = if err.reason == "Invalid" {
            (format!("{} was not valid", target.label()), format!("{} is invalid", target.label()))
        } else {
            (
                format!("{} could not be patched", target.label()),
                format!("{} could not be patched: {err}", target.label()),
            )
        };
        Rejection { reason: Reason { head, causes }, summary, error: err.to_string() }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// What the server rejected that the user can fix by editing again: the object is invalid, the
/// patch does not fit the object, or it carries a `resourceVersion` that is no longer current.
fn fixable(err: &client::Error) -> Option<&Status> {
    match err {
        client::Error::Invalid(status)
        | client::Error::BadRequest(status)
        | client::Error::Conflict(status)
        | client::Error::AlreadyExists(status) => Some(status),
        _ => None,
    }
}

/// Tells what became of each object: `configmap/x edited`, or with `-o`, the object itself, as
/// kubectl does.
struct Printer {
    format: Option<EditFormat>,
    /// `--template` without `-o`.
    template: Option<output::Printer>,
    printed: usize,
    show_managed_fields: bool,
}

impl Printer {
    fn print(&mut self, object: &Value, action: &str) {
        let mut shown;
        let object = if self.show_managed_fields {
            object
        } else {
            shown = object.clone();
            output::strip_managed_fields(&mut shown);
            &shown
        };
        let text = match self.format {
            None if let Some(template) = &self.template => match template.render(object) {
                Ok(text) => text,
                Err(err) => {
                    eprintln!("{}", super::args::print_error(err).line());
                    return;
                }
            },
            None => format!("{} {action}\n", output::object_name(object)),
            Some(EditFormat::Json) => output::to_json(object),
            Some(EditFormat::Yaml) if self.printed > 0 => format!("---\n{}", output::to_yaml(object)),
            Some(EditFormat::Yaml) => output::to_yaml(object),
            // Each KYAML document starts with its own `---`.
            Some(EditFormat::Kyaml) => output::to_kyaml(object),
        };
        self.printed += 1;
        print!("{text}");
    }
}

/// An edit in progress.
struct Session<'a> {
    cluster: &'a Cluster,
    args: &'a EditArgs,
    /// `--record`'s command line, written into each edited object.
    change_cause: Option<&'a str>,
    targets: Vec<Target>,
    /// The patch metadata of each `(apiVersion, kind)`, read when first needed.
    schemas: HashMap<(String, String), Option<KindSchema>>,
    printer: Printer,
}

impl Session<'_> {
    /// Opens the editor until the changes are made, the user cancels, or a failure the editor
    /// cannot fix; the edited file is kept on every failure.
    async fn run(mut self, editor: &Editor) -> Result {
        let format = self.printer.format.unwrap_or_default();
        let file = EditFile::create(format.extension())?;
        let file_name = file.path().file_name().unwrap_or_default().to_string_lossy().into_owned();
        let fetched: Vec<Value> = self.targets.iter().map(|target| target.fetched.clone()).collect();
        let mut body = text::render(&fetched, format);
        let mut rejections: Vec<Rejection> = Vec::new();
        loop {
            let reasons: Vec<Reason> = rejections.iter().map(|rejection| rejection.reason.clone()).collect();
            let text = text::compose(&reasons, &body);
            file.write(&if self.args.windows_line_endings { text.replace('\n', "\r\n") } else { text })?;
            if let Err(err) = editor.edit(file.path()).await {
                file.keep();
                return Err(err.into());
            }
            let saved = file.read()?.replace("\r\n", "\n");
            if let Some(last) = rejections.last()
                && text::body(&saved).trim_end() == body.trim_end()
            {
                file.keep();
                return Err(Error::msg(format!(
                    "Edit cancelled, no valid changes were saved; the last error was: {}",
                    last.error
                )));
            }
            body = text::body(&saved).to_string();
            rejections = match text::parse(&saved, &file_name) {
                Ok(edited) => match self.save(edited).await {
                    Ok(rejections) => rejections,
                    Err(err) => {
                        file.keep();
                        return Err(err);
                    }
                },
                Err(err) => vec![Rejection::syntax(&err)],
            };
            if rejections.is_empty() {
                return Ok(());
            }
            for rejection in &rejections {
                eprintln!("error: {}", rejection.summary);
            }
        }
    }

    /// Sends the changes in `edited` and returns those the server rejected in ways the user can fix.
    /// Fails, without sending anything, when an object's identity was changed; fails after trying
    /// every change when one failed for good.
    async fn save(&mut self, edited: Vec<Value>) -> Result<Vec<Rejection>> {
        let mut pairs = Vec::with_capacity(edited.len());
        for object in edited {
            let Some(index) = changes::find_fetched(self.targets.iter().map(|target| &target.fetched), &object) else {
                return Err(Error::msg(format!(
                    "the edited file holds {}, which is not one of the objects being edited",
                    output::object_name(&object)
                )));
            };
            if !changes::same_identity(&self.targets[index].fetched, &object) {
                return Err(Error::msg(changes::IDENTITY_CHANGED));
            }
            pairs.push((index, object));
        }
        if pairs.iter().all(|(index, object)| self.targets[*index].accepted == *object) {
            if !self.targets.iter().any(|target| target.sent) {
                eprintln!("{NO_CHANGES}");
            }
            return Ok(Vec::new());
        }
        let mut rejections = Vec::new();
        let mut failed = false;
        for (index, object) in pairs {
            if self.targets[index].accepted == object {
                if !self.targets[index].sent {
                    self.printer.print(&object, "skipped");
                }
                continue;
            }
            match apply::validate(self.cluster, &object, self.args.validate.directive).await {
                Verdict::Valid => {}
                Verdict::Warn(errors) => eprintln!("{}", validation::warning(&self.targets[index].label(), &errors)),
                Verdict::Refuse(errors) => {
                    rejections.push(Rejection::invalid_fields(&self.targets[index], errors));
                    continue;
                }
            }
            let schema = self.schema(index).await;
            let target = &mut self.targets[index];
            let mut desired =
                if self.args.save_config { last_applied::with_annotation(&object) } else { object.clone() };
            if let Some(cause) = self.change_cause {
                metadata::record_change_cause(&mut desired, cause);
            }
            let patch = match KindPatcher::for_kind(schema.as_ref()).two_way(&target.base, &desired) {
                Ok(patch) => patch,
                Err(err) => {
                    rejections.push(Rejection::unmergeable(target, &err));
                    continue;
                }
            };
            if self.args.show_patch || self.args.output_patch {
                println!("Patch: {}", gocompat::json::to_compact(&patch.to_json()));
            }
            let options = WriteOptions {
                field_manager: Some(self.args.field_manager.or("kubectl-edit")),
                subresource: self.args.subresource.name.clone(),
                ..WriteOptions::default()
            };
            let name = object["metadata"]["name"].as_str().unwrap_or_default();
            match self.cluster.patch(&target.rt, Some(&target.namespace), name, &patch, &options).await {
                Ok(patched) => {
                    self.printer.print(&patched, "edited");
                    (target.accepted, target.base, target.sent) = (object, desired, true);
                }
                Err(err) => match (fixable(&err), &err) {
                    (Some(status), _) => rejections.push(Rejection::from_server(target, status)),
                    (None, client::Error::NotFound(_)) => {
                        eprintln!("error: {} could not be found on the server", target.label());
                        failed = true;
                    }
                    (None, err) => {
                        eprintln!("error: {} could not be patched: {err}", target.label());
                        failed = true;
                    }
                },
            }
        }
        if failed {
            return Err(Error::Reported(1));
        }
        Ok(rejections)
    }

    /// The strategic-merge metadata of the target's kind; `None` for custom resources.
    async fn schema(&mut self, index: usize) -> Option<KindSchema> {
        let fetched = &self.targets[index].fetched;
        let field = |name: &str| fetched[name].as_str().unwrap_or_default().to_string();
        let key = (field("apiVersion"), field("kind"));
        if let Some(schema) = self.schemas.get(&key) {
            return schema.clone();
        }
        let schema = self.cluster.patch_schema(&key.0, &key.1).await;
        self.schemas.insert(key, schema.clone());
        schema
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn flags_parse() {
        let cli =
            crate::cli::parse(["kubeupd", "edit", "cm/a", "--output-patch", "--save-config", "-o", "json"]).unwrap();
        let crate::cli::Command::Edit(args) = cli.command else { unreachable!() };
        assert!(args.output_patch && args.save_config);
        assert_eq!(
            (args.output.output.as_deref(), args.field_manager.or("kubectl-edit")),
            (Some("json"), "kubectl-edit".into())
        );
    }
}
