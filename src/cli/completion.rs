//! `kubeupd completion <shell>`: print a completion script.

use clap::{Args, ValueEnum as _};
use clap_complete::Shell;

use super::Error;

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to generate the script for: bash, zsh, fish, powershell or elvish.
    #[arg(value_name = "SHELL")]
    pub shells: Vec<String>,
}

pub fn run(args: &CompletionArgs) -> super::Result {
    // kubectl's checks of its words, with its usage errors.
    let usage = |reason: &str| Error::msg(format!("{reason}\nSee 'kubeupd completion -h' for help and examples"));
    let shell = match args.shells.as_slice() {
        [] => return Err(usage("Shell not specified.")),
        [shell] => Shell::from_str(shell, false).map_err(|_| usage(&format!("Unsupported shell type {shell:?}.")))?,
        _ => return Err(usage("Too many arguments. Expected only the shell type.")),
    };
    let mut command = super::command();
    clap_complete::generate(shell, &mut command, "kubeupd", &mut std::io::stdout());
    Ok(())
}
