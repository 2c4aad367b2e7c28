//! `kubeupd get`.

use clap::Args;

use super::GlobalArgs;

#[derive(Debug, Args)]
pub struct GetArgs {
    /// TYPE [NAME...] or TYPE/NAME...
    pub targets: Vec<String>,
}

pub async fn run(_args: GetArgs, _global: &GlobalArgs) -> anyhow::Result<()> {
    super::unimplemented::run("get")
}
