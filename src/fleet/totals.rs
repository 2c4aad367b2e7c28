//! What one cluster's apply did, handed from its process to the one that runs many.

use serde::{Deserialize, Serialize};

/// The variable naming the file where `apply` writes its [`Totals`] when run for one context of
/// many; unset, nothing is written.
pub const TOTALS_FILE_ENV: &str = "KUBEUPD_FLEET_TOTALS";

/// Objects by what applying did to them (a server-side apply counted by what it did too).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub created: usize,
    pub configured: usize,
    pub unchanged: usize,
    pub pruned: usize,
    pub failed: usize,
}

impl Totals {
    pub fn read(path: &std::path::Path) -> Option<Totals> {
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }

    pub fn write(&self, path: &std::path::Path) -> std::io::Result<()> {
        std::fs::write(path, serde_json::to_vec(self).expect("totals serialize"))
    }
}
