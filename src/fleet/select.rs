//! Which contexts a `--context` value selects.

/// Why a `--context` value selects nothing to run.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    /// kubectl's words for a context the kubeconfig does not have.
    #[error("context was not found for specified context: {0}")]
    NotFound(String),
    #[error("no context of the kubeconfig matches {0:?}")]
    NoMatch(String),
    #[error("--context {pattern:?}: {message}")]
    BadPattern { pattern: String, message: String },
}

/// The contexts `value` selects among `names` (the kubeconfig's, in its order), or `None` when it
/// names one context as kubectl's `--context` does: a name without a comma or a pattern
/// character, or a context named exactly so. A list (`a,b`) keeps its order; a pattern (`*`, `?`,
/// `[...]`, as a shell matches file names) gives its matches in the kubeconfig's order; each
/// context is run once.
pub fn select(value: &str, names: &[String]) -> Result<Option<Vec<String>>, SelectError> {
    let is_selection = value.contains([',', '*', '?', '[']);
    if !is_selection || names.iter().any(|name| name == value) {
        return Ok(None);
    }
    let mut selected: Vec<String> = Vec::new();
    for part in value.split(',').map(str::trim).filter(|part| !part.is_empty()) {
        let matches: Vec<&String> = if names.iter().any(|name| name == part) {
            names.iter().filter(|name| *name == part).collect()
        } else if part.contains(['*', '?', '[']) {
            let pattern = glob::Pattern::new(part)
                .map_err(|err| SelectError::BadPattern { pattern: part.into(), message: err.msg.into() })?;
            let found: Vec<&String> = names.iter().filter(|name| pattern.matches(name)).collect();
            if found.is_empty() {
                return Err(SelectError::NoMatch(part.into()));
            }
            found
        } else {
            return Err(SelectError::NotFound(part.into()));
        };
        for name in matches {
            if !selected.contains(name) {
                selected.push(name.clone());
            }
        }
    }
    if selected.is_empty() {
        return Err(SelectError::NoMatch(value.into()));
    }
    Ok(Some(selected))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["dev", "prod-eu", "prod-us", "staging", "odd,name"].map(String::from).to_vec()
    }

    #[test]
    fn one_name_is_kubectls_context() {
        assert!(select("dev", &names()).unwrap().is_none());
        assert!(select("missing", &names()).unwrap().is_none(), "kubectl's own error comes later");
        assert!(select("odd,name", &names()).unwrap().is_none(), "a context named so is that context");
    }

    #[test]
    fn lists_keep_their_order_and_patterns_the_kubeconfigs() {
        assert_eq!(select("staging,dev", &names()).unwrap().unwrap(), ["staging", "dev"]);
        assert_eq!(select("prod-*", &names()).unwrap().unwrap(), ["prod-eu", "prod-us"]);
        assert_eq!(select("prod-u?,prod-*,dev", &names()).unwrap().unwrap(), ["prod-us", "prod-eu", "dev"]);
        assert_eq!(select("[ds]*", &names()).unwrap().unwrap(), ["dev", "staging"]);
    }

    #[test]
    fn what_selects_nothing_is_named() {
        assert_eq!(
            select("dev,nope", &names()).unwrap_err().to_string(),
            "context was not found for specified context: nope"
        );
        assert_eq!(select("qa-*", &names()).unwrap_err().to_string(), "no context of the kubeconfig matches \"qa-*\"");
        assert!(matches!(select("[", &names()).unwrap_err(), SelectError::BadPattern { .. }));
    }
}
