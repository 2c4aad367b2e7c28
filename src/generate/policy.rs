//! `create poddisruptionbudget`, `create priorityclass` and `create quota`.

use serde_json::{Map, Value, json};

use super::Error;
use crate::gocompat::quantity;

/// `create poddisruptionbudget NAME --selector=SELECTOR (--min-available=N | --max-unavailable=N)`.
#[derive(Debug, Clone, Default)]
pub struct PodDisruptionBudgetOptions {
    pub name: String,
    /// The selector as given; see [`pod_disruption_budget`].
    pub selector: String,
    pub min_available: String,
    pub max_unavailable: String,
}

/// kubectl's checks of `create poddisruptionbudget`'s options, in its order: a number or a
/// percentage, for exactly one of the two.
pub fn check_pod_disruption_budget(options: &PodDisruptionBudgetOptions) -> Result<(), Error> {
    if options.name.is_empty() {
        return Err(Error::NoName);
    }
    if options.selector.is_empty() {
        return Err(Error::NoSelector);
    }
    match (options.min_available.is_empty(), options.max_unavailable.is_empty()) {
        (true, true) => return Err(Error::NoBudget),
        (false, false) => return Err(Error::BothBudgets),
        _ => {}
    }
    let count_or_percent = |text: &str| {
        let digits = text.strip_suffix('%').unwrap_or(text);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    if !options.min_available.is_empty() && !count_or_percent(&options.min_available) {
        return Err(Error::BudgetFormat("min-available"));
    }
    if !options.max_unavailable.is_empty() && !count_or_percent(&options.max_unavailable) {
        return Err(Error::BudgetFormat("max-unavailable"));
    }
    Ok(())
}

/// The PodDisruptionBudget kubectl generates from checked options, with `selector` the label
/// selector already read (`matchLabels`, `matchExpressions`) and the zero status Go writes.
pub fn pod_disruption_budget(options: &PodDisruptionBudgetOptions, selector: Value) -> Value {
    let mut spec = json!({"selector": selector});
    match options.min_available.is_empty() {
        false => spec["minAvailable"] = int_or_string(&options.min_available),
        true => spec["maxUnavailable"] = int_or_string(&options.max_unavailable),
    }
    json!({
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": options.name},
        "spec": spec,
        "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0},
    })
}

/// apimachinery's `intstr.Parse`: a number when it fits 32 bits, else the text.
fn int_or_string(text: &str) -> Value {
    text.parse::<i32>().map_or_else(|_| Value::from(text), Value::from)
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

/// The PriorityClass kubectl generates; kubectl checks nothing, the server does.
pub fn priority_class(options: &PriorityClassOptions) -> Value {
    let mut class = json!({
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": options.name},
        "value": options.value,
        "preemptionPolicy": options.preemption_policy,
    });
    if options.global_default {
        class["globalDefault"] = true.into();
    }
    if !options.description.is_empty() {
        class["description"] = options.description.clone().into();
    }
    class
}

/// `create quota NAME [--hard=RESOURCE=QUANTITY,...] [--scopes=SCOPE,...]`.
#[derive(Debug, Clone, Default)]
pub struct QuotaOptions {
    pub name: String,
    pub hard: String,
    pub scopes: String,
}

/// The ResourceQuota kubectl generates: each quantity written as Go writes it, the last of a
/// resource given twice kept, scopes as given (the server checks them).
pub fn quota(options: &QuotaOptions) -> Result<Value, Error> {
    if options.name.is_empty() {
        return Err(Error::NoName);
    }
    let mut spec = json!({});
    if !options.hard.is_empty() {
        let mut hard = Map::new();
        for statement in options.hard.split(',') {
            let [resource, amount] = statement.split('=').collect::<Vec<_>>()[..] else {
                return Err(Error::QuotaSyntax(statement.to_string()));
            };
            hard.insert(resource.to_string(), quantity::canonical(amount)?.into());
        }
        spec["hard"] = Value::Object(hard);
    }
    if !options.scopes.is_empty() {
        let scopes: Vec<&str> = options.scopes.split(',').collect();
        if scopes.contains(&"") {
            return Err(Error::EmptyScope);
        }
        spec["scopes"] = scopes.into();
    }
    Ok(json!({
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": options.name},
        "spec": spec,
        "status": {},
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(selector: &str, min: &str, max: &str) -> PodDisruptionBudgetOptions {
        PodDisruptionBudgetOptions {
            name: "pdb".into(),
            selector: selector.into(),
            min_available: min.into(),
            max_unavailable: max.into(),
        }
    }

    #[test]
    fn a_budget_is_one_count_or_percentage() {
        assert_eq!(check_pod_disruption_budget(&budget("", "1", "")), Err(Error::NoSelector));
        assert_eq!(check_pod_disruption_budget(&budget("a=b", "", "")), Err(Error::NoBudget));
        assert_eq!(check_pod_disruption_budget(&budget("a=b", "1", "1")), Err(Error::BothBudgets));
        assert_eq!(check_pod_disruption_budget(&budget("a=b", "1Gb", "")), Err(Error::BudgetFormat("min-available")));
        assert_eq!(check_pod_disruption_budget(&budget("a=b", "", "%")), Err(Error::BudgetFormat("max-unavailable")));
        assert_eq!(check_pod_disruption_budget(&budget("a=b", "", "50%")), Ok(()));
        let made = pod_disruption_budget(&budget("a=b", "", "50%"), json!({"matchLabels": {"a": "b"}}));
        assert_eq!(made["spec"]["maxUnavailable"], "50%");
        let made = pod_disruption_budget(&budget("a=b", "01", ""), json!({}));
        assert_eq!(made["spec"]["minAvailable"], 1);
    }

    #[test]
    fn quotas_write_quantities_as_go_and_refuse_empty_scopes() {
        let options =
            QuotaOptions { name: "q".into(), hard: "cpu=1000m,memory=1.5Gi,cpu=2".into(), scopes: "BestEffort".into() };
        let quota = quota(&options).unwrap();
        assert_eq!(quota["spec"]["hard"], json!({"cpu": "2", "memory": "1536Mi"}));
        assert_eq!(quota["spec"]["scopes"], json!(["BestEffort"]));
        let syntax = QuotaOptions { hard: "cpu".into(), ..options.clone() };
        assert_eq!(super::quota(&syntax), Err(Error::QuotaSyntax("cpu".into())));
        let scopes = QuotaOptions { scopes: "a,".into(), ..options };
        assert_eq!(super::quota(&scopes), Err(Error::EmptyScope));
    }
}
