//! `--cascade` and `--grace-period`.

use clap::Args;

use crate::cli::Error;
use crate::client::{DeleteParams, Propagation};

/// `--cascade` and `--grace-period`: how `--force` deletes an object before creating it again.
#[derive(Debug, Clone, Args)]
pub struct DeletionArgs {
    /// What happens to the objects the deleted one owns: background, foreground or orphan.
    #[arg(long, value_name = "MODE", default_value = "background", num_args = 0..=1, require_equals = true,
          default_missing_value = "background")]
    pub cascade: String,
    /// Seconds the object gets to terminate gracefully; negative for its own default.
    #[arg(long, value_name = "SECONDS", default_value_t = -1, allow_hyphen_values = true, value_parser = crate::cli::pflag::int)]
    pub grace_period: i64,
}

impl DeletionArgs {
    /// The delete's options, with kubectl's deprecation warning for the boolean spellings of
    /// `--cascade`.
    pub fn options(&self) -> Result<(DeleteParams, Option<String>), Error> {
        let (propagation, warning) = match self.cascade.as_str() {
            "background" => (Propagation::Background, None),
            "foreground" => (Propagation::Foreground, None),
            "orphan" => (Propagation::Orphan, None),
            "true" => (Propagation::Background, Some("background")),
            "false" => (Propagation::Orphan, Some("orphan")),
            other => {
                return Err(Error::msg(format!(
                    "invalid cascade value ({other}). Must be \"background\", \"foreground\", or \"orphan\""
                )));
            }
        };
        let warning = warning.map(|mode| {
            format!(
                "warning: --cascade={} is deprecated (boolean value) and can be replaced with --cascade={mode}.",
                self.cascade
            )
        });
        let grace_period = (self.grace_period >= 0).then_some(self.grace_period);
        Ok((DeleteParams { grace_period, propagation: Some(propagation), dry_run: false }, warning))
    }
}
