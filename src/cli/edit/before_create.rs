//! `create --edit`: each object of the files, one after the other, opened in the editor before it
//! is created, as kubectl's edit-before-create mode does it: a save that does not parse, or that
//! is empty (kubectl's validation refuses it), reopens the editor with the reason on top; an
//! unchanged save creates nothing for that object; a save left as it was after a failure, or a
//! failed create, keeps the edited file and goes on with the next object.

use serde_json::Value;

use super::edit_file::EditFile;
use super::editor::Editor;
pub use super::text::EditFormat;
use super::text::{self, Reason};
use crate::cli::{Error, Result};

/// An object to edit: kubectl's name for it in messages (`configmaps "settings"`) and the object.
pub struct ToEdit {
    pub label: String,
    pub object: Value,
}

/// Edits each object in turn and hands what the user saved to `create`; returns the failures,
/// each with its edited file kept, in kubectl's order.
pub async fn edit_each(
    objects: Vec<ToEdit>,
    format: EditFormat,
    windows_line_endings: bool,
    mut create: impl AsyncFnMut(Vec<Value>) -> Result,
) -> Result<Vec<Error>> {
    let editor = Editor::from_env()?;
    let mut failures = Vec::new();
    for ToEdit { label, object } in objects {
        let file = EditFile::create(format.extension())?;
        let file_name = file.path().file_name().unwrap_or_default().to_string_lossy().into_owned();
        let original = text::render(std::slice::from_ref(&object), format);
        let mut body = original.clone();
        let mut reasons: Vec<Reason> = Vec::new();
        loop {
            let shown = text::compose(&reasons, &body);
            file.write(&if windows_line_endings { shown.replace('\n', "\r\n") } else { shown })?;
            if let Err(err) = editor.edit(file.path()).await {
                file.keep();
                failures.push(err.into());
                break;
            }
            let saved = file.read()?.replace("\r\n", "\n");
            let edited = text::body(&saved);
            if !reasons.is_empty() && stripped(edited) == stripped(&body) {
                file.keep();
                failures.push(Error::msg("Edit cancelled, no valid changes were saved."));
                break;
            }
            if reasons.is_empty() && stripped(edited) == stripped(&original) {
                eprintln!("Edit cancelled, no changes made.");
                break;
            }
            body = edited.to_string();
            if edited.trim().is_empty() {
                // kubectl's validation refuses an empty document before it sees it is empty.
                eprintln!("error: {label} is invalid");
                let cause = "<nil>: Invalid value: \"The edited file failed validation\"".to_string();
                reasons = vec![Reason { head: format!("{label} was not valid"), causes: vec![cause] }];
                continue;
            }
            match text::parse(&saved, &file_name) {
                Ok(objects) => {
                    if let Err(err) = create(objects).await {
                        file.keep();
                        failures.push(err);
                    }
                    break;
                }
                Err(err) => {
                    let head = format!("The edited file had a syntax error: {err:#}");
                    reasons = vec![Reason { head, causes: Vec::new() }];
                }
            }
        }
    }
    Ok(failures)
}

/// The text without comment lines, as kubectl compares saves.
fn stripped(text: &str) -> String {
    text.lines().filter(|line| !line.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n")
}
