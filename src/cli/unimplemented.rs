//! Verbs whose issues have not landed yet: they accept anything and say so.

use clap::Args;

/// Arguments of a verb that is not implemented yet.
#[derive(Debug, Args)]
pub struct PendingArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn run(verb: &str) -> anyhow::Result<()> {
    eprintln!("error: kubeupd {verb} is not implemented yet");
    Err(super::Reported(2).into())
}
