//! `create poddisruptionbudget` and `create priorityclass`, as kubectl's generators make them.

use serde_json::{Value, json};

use super::Error;
use crate::manifest::LabelSelector;

/// `create poddisruptionbudget NAME --selector=SELECTOR --min-available=N|N% | --max-unavailable=...`.
#[derive(Debug, Clone, Default)]
pub struct DisruptionBudgetOptions {
    pub name: String,
    pub selector: String,
    pub min_available: String,
    pub max_unavailable: String,
}

/// The PodDisruptionBudget, or kubectl's words for what is wrong, checked in its order.
pub fn disruption_budget(options: &DisruptionBudgetOptions) -> Result<Value, Error> {
    if options.selector.is_empty() {
        return Err(Error::NoSelector);
    }
    let (field, value) = match (options.min_available.as_str(), options.max_unavailable.as_str()) {
        ("", "") => return Err(Error::NoBudget),
        (_, "") => ("minAvailable", &options.min_available),
        ("", _) => ("maxUnavailable", &options.max_unavailable),
        _ => return Err(Error::BothBudgets),
    };
    let digits = value.strip_suffix('%').unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(Error::BudgetFormat(if field == "minAvailable" { "min-available" } else { "max-unavailable" }));
    }
    let selector: LabelSelector =
        options.selector.parse().map_err(|err: crate::manifest::BadSelector| Error::Selector(err.to_string()))?;
    let selector = selector.to_label_selector().map_err(Error::Selector)?;
    // intstr.Parse: a number as a number, anything else as text.
    let value = value.parse::<i32>().map_or_else(|_| json!(value), |number| json!(number));
    Ok(json!({
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": options.name},
        "spec": {field: value, "selector": selector},
        "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0},
    }))
}

/// `create priorityclass NAME [--value] [--global-default] [--description] [--preemption-policy]`.
#[derive(Debug, Clone, Default)]
pub struct PriorityClassOptions {
    pub name: String,
    pub value: i32,
    pub global_default: bool,
    pub description: String,
    pub preemption_policy: String,
}

/// The PriorityClass kubectl generates (cluster-scoped; Go leaves out a false default and an
/// empty description).
pub fn priority_class(options: &PriorityClassOptions) -> Value {
    let mut class = json!({
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": options.name},
        "value": options.value,
        "preemptionPolicy": options.preemption_policy,
    });
    if options.global_default {
        class["globalDefault"] = json!(true);
    }
    if !options.description.is_empty() {
        class["description"] = json!(options.description);
    }
    class
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(selector: &str, min: &str, max: &str) -> Result<Value, Error> {
        disruption_budget(&DisruptionBudgetOptions {
            name: "p".into(),
            selector: selector.into(),
            min_available: min.into(),
            max_unavailable: max.into(),
        })
    }

    #[test]
    fn a_budget_takes_a_number_or_a_percentage_and_a_selector() {
        let made = budget("app=x,tier in (b,a),!legacy", "50%", "").unwrap();
        assert_eq!(made["spec"]["minAvailable"], "50%");
        assert_eq!(
            made["spec"]["selector"],
            json!({"matchLabels": {"app": "x"}, "matchExpressions": [
                {"key": "legacy", "operator": "DoesNotExist"},
                {"key": "tier", "operator": "In", "values": ["a", "b"]},
            ]})
        );
        assert_eq!(budget("app=x", "", "1").unwrap()["spec"]["maxUnavailable"], 1);
    }

    #[test]
    fn kubectls_checks_and_words() {
        assert_eq!(budget("", "1", "").unwrap_err().to_string(), "a selector must be specified");
        assert_eq!(
            budget("a=b", "", "").unwrap_err().to_string(),
            "one of min-available or max-unavailable must be specified"
        );
        assert_eq!(
            budget("a=b", "1", "1").unwrap_err().to_string(),
            "min-available and max-unavailable cannot be both specified"
        );
        assert_eq!(budget("a=b", "1Gb", "").unwrap_err().to_string(), "invalid format specified for min-available");
    }
}
