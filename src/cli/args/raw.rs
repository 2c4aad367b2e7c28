//! `--raw`.

use clap::Args;

/// `--raw`: a request to a path of the server, its answer printed as it is.
#[derive(Debug, Clone, Default, Args)]
pub struct RawArg {
    /// Send the request to this path of the server (e.g. /api/v1/namespaces/default/configmaps/x)
    /// and print the answer as it is.
    #[arg(id = "raw", long = "raw", value_name = "PATH")]
    pub path: Option<String>,
}
