//! `--validate`.

use clap::Args;

use crate::client::FieldValidation;

/// `--validate`: check objects against their kind's schema before they are sent, as kubectl does.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ValidateArg {
    /// `strict` (or `true`): refuse unknown fields and values of the wrong type; `warn`: show them
    /// and go on; `ignore` (or `false`): send objects unchecked.
    #[arg(long = "validate", value_name = "MODE", default_value = "strict", num_args = 0..=1,
          require_equals = true, default_missing_value = "strict", value_parser = parse_validation)]
    pub directive: FieldValidation,
}

fn parse_validation(text: &str) -> Result<FieldValidation, String> {
    match text {
        "strict" | "true" => Ok(FieldValidation::Strict),
        "warn" => Ok(FieldValidation::Warn),
        "ignore" | "false" => Ok(FieldValidation::Ignore),
        other => Err(format!("invalid value {other:?}: use strict, warn or ignore (or true, false)")),
    }
}
