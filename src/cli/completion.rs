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

/// kubectl's checks of its words, with its usage errors: the one shell the script is for.
fn options(args: &CompletionArgs) -> super::Result<Shell> {
    let usage = |reason: &str| Error::msg(format!("{reason}\nSee 'kubeupd completion -h' for help and examples"));
    match args.shells.as_slice() {
        [] => Err(usage("Shell not specified.")),
        [shell] => Shell::from_str(shell, false).map_err(|_| usage(&format!("Unsupported shell type {shell:?}."))),
        _ => Err(usage("Too many arguments. Expected only the shell type.")),
    }
}

pub fn run(args: &CompletionArgs) -> super::Result {
    let shell = options(args)?;
    let mut command = super::command();
    clap_complete::generate(shell, &mut command, "kubeupd", &mut std::io::stdout());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> super::super::Result<Shell> {
        let cli = crate::cli::parse(["kubeupd", "completion"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Completion(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        assert_eq!(parse(&["zsh"]).unwrap(), Shell::Zsh);
        assert_eq!(parse(&["bash"]).unwrap(), Shell::Bash);
        let see = "\nSee 'kubeupd completion -h' for help and examples";
        for (line, expected) in [
            (&[][..], "Shell not specified."),
            (&["tcsh"], "Unsupported shell type \"tcsh\"."),
            (&["bash", "zsh"], "Too many arguments. Expected only the shell type."),
        ] {
            let refused = parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert_eq!(refused, format!("error: {expected}{see}"), "{line:?}");
        }
    }
}
