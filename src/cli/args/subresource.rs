//! `--subresource`.

use clap::Args;

/// `--subresource`: a verb's read or write goes to this subresource of each object.
#[derive(Debug, Clone, Default, Args)]
pub struct SubresourceArg {
    /// Work on this subresource of each object (e.g. status, scale) instead of the object.
    #[arg(id = "subresource", long = "subresource", value_name = "NAME")]
    pub name: Option<String>,
}
