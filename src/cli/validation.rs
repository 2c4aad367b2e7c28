//! What `--validate` shows: kubectl's words for fields an object's schema does not declare, with
//! where the object came from.

use serde_json::Value;

use super::Error;
use crate::apply::{self, InvalidFields, Verdict};
use crate::client::{Cluster, FieldValidation};
use crate::resource::{Resolved, Source};
use crate::schema::FieldError;

/// How a file's document is named in validation messages: `"app.yaml" (document 2)`, kubectl's
/// quoted file with the document added.
pub fn document(source: &Source) -> String {
    format!("{:?} (document {})", source.file, source.document)
}

/// The error for an object whose fields are refused; `what` names the object.
pub fn refused(what: &str, errors: Vec<FieldError>) -> String {
    format!("error validating {what}: {}", InvalidFields(errors))
}

/// The warning for an object whose fields are wrong, with `--validate=warn`.
pub fn warning(what: &str, errors: &[FieldError]) -> String {
    format!("Warning: error validating {what}: {}", apply::aggregate(errors))
}

/// Checks `document` as `validation` asks: a refusal is an error, wrong fields under `warn` are
/// shown on stderr.
pub async fn check(cluster: &Cluster, what: &str, document: &Value, validation: FieldValidation) -> Result<(), Error> {
    match apply::validate(cluster, document, validation).await {
        Verdict::Valid => Ok(()),
        Verdict::Warn(errors) => {
            eprintln!("{}", warning(what, &errors));
            Ok(())
        }
        Verdict::Refuse(errors) => Err(Error::msg(refused(what, errors))),
    }
}

/// Checks every object of the files before the first write; all refusals are shown.
pub async fn check_files(cluster: &Cluster, resolved: &[Resolved], validation: FieldValidation) -> Result<(), Error> {
    let mut refused = false;
    for item in resolved {
        if let Resolved::Manifest(manifest) = item {
            let what = document(&manifest.source);
            if let Err(err) = check(cluster, &what, &manifest.document, validation).await {
                eprintln!("{}", err.line());
                refused = true;
            }
        }
    }
    if refused { Err(Error::Reported(1)) } else { Ok(()) }
}
