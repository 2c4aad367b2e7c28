//! The user's editor: `$KUBE_EDITOR`, else `$EDITOR`, else `vi`. The variable may hold a command
//! with arguments (`code --wait`); it is split into words as a shell would, but run directly, never
//! through a shell.

use std::path::Path;

use anyhow::{Context as _, bail};

/// An editor command, ready to be run on a file.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Editor {
    /// The command as the user wrote it, for messages.
    command: String,
    program: String,
    args: Vec<String>,
}

impl Editor {
    /// The editor the environment names.
    pub(super) fn from_env() -> anyhow::Result<Editor> {
        let var = |name| std::env::var_os(name).map(|value| value.to_string_lossy().into_owned());
        Editor::from_variables(var("KUBE_EDITOR"), var("EDITOR"))
    }

    /// The first of `kube_editor` and `editor` that holds a command, else `vi`.
    fn from_variables(kube_editor: Option<String>, editor: Option<String>) -> anyhow::Result<Editor> {
        let command = [kube_editor, editor]
            .into_iter()
            .flatten()
            .find(|command| !command.trim().is_empty())
            .unwrap_or_else(|| "vi".to_string());
        let Some(words) = shlex::split(&command) else {
            bail!("cannot read the editor command {command:?}: a quote or escape is not closed");
        };
        let Some((program, args)) = words.split_first().filter(|(program, _)| !program.is_empty()) else {
            bail!("the editor command {command:?} names no program");
        };
        Ok(Editor { program: program.clone(), args: args.to_vec(), command })
    }

    /// Runs the editor on `file` with the terminal handed over, and waits for it to exit.
    /// An editor that exits with a failure status means the user gave up: that is an error.
    pub(super) async fn edit(&self, file: &Path) -> anyhow::Result<()> {
        let status = tokio::process::Command::new(&self.program)
            .args(&self.args)
            .arg(file)
            .status()
            .await
            .with_context(|| format!("cannot start the editor {:?}", self.command))?;
        if !status.success() {
            bail!("there was a problem with the editor {:?}: it {}", self.command, exit_description(status));
        }
        Ok(())
    }
}

fn exit_description(status: std::process::ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "was stopped by a signal".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn editor(kube_editor: Option<&str>, editor: Option<&str>) -> anyhow::Result<Editor> {
        Editor::from_variables(kube_editor.map(String::from), editor.map(String::from))
    }

    fn words(editor: &Editor) -> Vec<&str> {
        std::iter::once(editor.program.as_str()).chain(editor.args.iter().map(String::as_str)).collect()
    }

    #[test]
    fn kube_editor_comes_first_then_editor_then_vi() {
        assert_eq!(words(&editor(Some("nano"), Some("emacs")).unwrap()), ["nano"]);
        assert_eq!(words(&editor(None, Some("emacs")).unwrap()), ["emacs"]);
        assert_eq!(words(&editor(Some("  "), Some("emacs")).unwrap()), ["emacs"]);
        assert_eq!(words(&editor(None, None).unwrap()), ["vi"]);
    }

    #[test]
    fn commands_split_like_a_shell_without_one() {
        assert_eq!(words(&editor(Some("code --wait"), None).unwrap()), ["code", "--wait"]);
        let quoted = editor(Some(r#"'/opt/my editor/bin/ed' -c "set ft=yaml" a\ b $HOME;x"#), None).unwrap();
        assert_eq!(words(&quoted), ["/opt/my editor/bin/ed", "-c", "set ft=yaml", "a b", "$HOME;x"]);
    }

    #[test]
    fn unreadable_commands_are_errors() {
        let err = editor(Some("vim 'unclosed"), None).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"cannot read the editor command "vim 'unclosed": a quote or escape is not closed"#
        );
        assert!(editor(Some("''"), None).unwrap_err().to_string().contains("names no program"));
    }
}
