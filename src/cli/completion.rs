//! `kubeupd completion <shell>`: print a completion script.

use clap::Args;
use clap_complete::Shell;

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to generate the script for.
    pub shell: Shell,
}

pub fn run(args: &CompletionArgs) -> super::Result {
    let mut command = super::command();
    clap_complete::generate(args.shell, &mut command, "kubeupd", &mut std::io::stdout());
    Ok(())
}
