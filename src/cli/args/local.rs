//! `--local`.

use clap::Args;

/// `--local`: change the objects of the `-f` files, not the server's.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct LocalArg {
    /// Change the objects of the -f files and print them, without contacting the server.
    #[arg(long)]
    pub local: bool,
}
