//! The ignore flags of `apply` and `diff`: fields of existing objects left as they are live
//! (see [`crate::apply::ignore`]), from `--ignore-field`, `--ignore-rules` files in Argo CD's
//! format and `--ignore-managers`; and `--ignore-hpa`, the replicas that autoscalers own.

use std::path::PathBuf;

use clap::Args;

use std::sync::Arc;

use super::{Error, Result};
use crate::apply::ApplyOptions;
use crate::apply::ignore::IgnoreRules;

/// Options that leave fields of existing objects as they are live.
#[derive(Debug, Clone, Args)]
pub struct IgnoreArgs {
    /// Leave this field of existing objects as it is live: GROUP/KIND[/NAME]:JSON_POINTER, e.g.
    /// apps/Deployment/web:/spec/replicas (repeatable; the core group is left out).
    #[arg(long = "ignore-field", value_name = "RULE")]
    pub fields: Vec<String>,
    /// Ignore rules in Argo CD's ignoreDifferences format (a list, or an Application).
    #[arg(long = "ignore-rules", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Leave the fields that these field managers own as they are live.
    #[arg(long = "ignore-managers", value_name = "NAMES", value_delimiter = ',')]
    pub managers: Vec<String>,
    /// Keep the live spec.replicas of a Deployment, StatefulSet or ReplicaSet that a
    /// HorizontalPodAutoscaler scales.
    #[arg(long = "ignore-hpa", value_name = "BOOL", default_value_t = true)]
    pub hpa: bool,
}

impl IgnoreArgs {
    /// The rules of the flags and files, and (unless `--ignore-hpa=false`) the autoscalers'
    /// replicas kept, in `options`.
    pub fn apply_to(&self, options: &mut ApplyOptions) -> Result {
        let mut rules = IgnoreRules::default();
        for field in &self.fields {
            rules.add(IgnoreRules::parse_field(field).map_err(Error::msg)?);
        }
        for file in &self.files {
            let text = std::fs::read_to_string(file)
                .map_err(|err| Error::msg(format!("cannot read {}: {err}", file.display())))?;
            for rule in IgnoreRules::parse_file(&text, &file.display().to_string()).map_err(Error::msg)? {
                rules.add(rule);
            }
        }
        if !self.managers.is_empty() {
            rules.add(IgnoreRules::managers(self.managers.clone()));
        }
        options.ignore = Arc::new(rules);
        options.autoscalers = self.hpa.then(Default::default);
        Ok(())
    }
}
