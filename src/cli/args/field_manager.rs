//! `--field-manager`.

use clap::Args;

/// `--field-manager`.
#[derive(Debug, Clone, Default, Args)]
pub struct FieldManagerArg {
    /// The manager recorded for the fields this write sets (default: kubectl's for the verb).
    #[arg(long = "field-manager", value_name = "NAME")]
    pub name: Option<String>,
}

impl FieldManagerArg {
    /// The manager given, else `default`.
    pub fn or(&self, default: &str) -> String {
        self.name.clone().unwrap_or_else(|| default.to_string())
    }
}
