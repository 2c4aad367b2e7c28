//! What to wait for (`--for`, in kubectl's syntax, plus `ready`), and whether an object's state meets it.

use serde_json::Value;

use super::Error;
use crate::output::jsonpath::{self, JsonPath};
use crate::status::{self, Readiness};

/// What an object must come to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// Ready by kstatus's rules ([`crate::status`]).
    Ready,
    /// Gone (or replaced by another object of the same name).
    Deleted,
    /// There.
    Created,
    /// `condition=NAME[=VALUE]`: the status condition `NAME` has the status `VALUE` (default
    /// `true`), both compared without regard to case, for the latest generation.
    Status { name: String, value: String },
    /// `jsonpath=EXPR[=VALUE]`: the expression finds one value equal to `VALUE`, or any value at all.
    JsonPath(JsonPathCondition),
}

/// `--for=jsonpath=...`: an expression in kubectl's JSONPath (`{.status.phase}`) and the value to see.
#[derive(Debug, Clone)]
pub struct JsonPathCondition {
    /// The expression, braced and with its leading dot (`{.status.phase}`).
    query: String,
    /// `query` parsed.
    path: JsonPath,
    /// The value to see; `None`: any value.
    value: Option<String>,
}

impl PartialEq for JsonPathCondition {
    fn eq(&self, other: &Self) -> bool {
        self.query == other.query && self.value == other.value
    }
}

impl Eq for JsonPathCondition {}

/// What a condition says of an object's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Met,
    /// Not yet, and why.
    Waiting(String),
    /// Never without a change, and why: the wait ends.
    Failed(String),
    /// A failure condition of the caller's ([`FailOn`]) is met, and which: the wait ends.
    FailedOn(String),
}

/// `--fail-on`: a condition (`condition=NAME[=VALUE]` or `jsonpath=EXPR[=VALUE]`, read as `--for`
/// reads them) that ends the wait as a failure as soon as an object meets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailOn {
    /// As the user wrote it.
    text: String,
    condition: Condition,
}

impl FailOn {
    /// Parses `condition=NAME[=VALUE]` or `jsonpath=EXPR[=VALUE]`.
    pub fn parse(text: &str) -> Result<FailOn, Error> {
        let condition = match Condition::parse(text) {
            Ok(condition @ (Condition::Status { .. } | Condition::JsonPath(_))) => condition,
            Ok(_) | Err(Error::UnknownCondition(_)) => return Err(Error::UnknownFailure(text.to_string())),
            Err(err) => return Err(err),
        };
        Ok(FailOn { text: text.to_string(), condition })
    }

    /// Why `object` has failed, when it meets this condition: `--fail-on=condition=Failed met`,
    /// with a status condition's reason and message when it has them.
    pub fn check(&self, group: &str, kind: &str, object: &Value) -> Option<String> {
        if self.condition.check(group, kind, Some(object)) != Check::Met {
            return None;
        }
        let met = format!("--fail-on={} met", self.text);
        let Condition::Status { name, .. } = &self.condition else { return Some(met) };
        let conditions = object["status"]["conditions"].as_array().into_iter().flatten();
        let found = conditions.into_iter().find(|condition| {
            condition["type"].as_str().is_some_and(|kind| kind.to_lowercase() == name.to_lowercase())
        });
        let text = |field: &str| found.and_then(|found| found[field].as_str()).filter(|text| !text.is_empty());
        Some(match (text("reason"), text("message")) {
            (Some(reason), Some(message)) => format!("{met}: {reason}: {message}"),
            (Some(why), None) | (None, Some(why)) => format!("{met}: {why}"),
            (None, None) => met,
        })
    }
}

impl Condition {
    /// Parses `--for`: `ready`, `delete`, `create`, `condition=NAME[=VALUE]` or
    /// `jsonpath=EXPR[=VALUE]`, with kubectl's messages for what it refuses.
    pub fn parse(text: &str) -> Result<Condition, Error> {
        match text.to_lowercase().as_str() {
            "ready" => return Ok(Condition::Ready),
            "delete" => return Ok(Condition::Deleted),
            "create" => return Ok(Condition::Created),
            _ => {}
        }
        if let Some(condition) = text.strip_prefix("condition=") {
            let (name, value) = condition.split_once('=').unwrap_or((condition, "true"));
            return Ok(Condition::Status { name: name.to_string(), value: value.to_string() });
        }
        if let Some(input) = text.strip_prefix("jsonpath=") {
            return JsonPathCondition::parse(input).map(Condition::JsonPath);
        }
        Err(Error::UnknownCondition(text.to_string()))
    }

    /// Whether `object` (`None`: it does not exist), of `kind` in `group`, meets the condition.
    pub fn check(&self, group: &str, kind: &str, object: Option<&Value>) -> Check {
        let Some(object) = object else {
            return match self {
                Condition::Deleted => Check::Met,
                Condition::Created => Check::Waiting("not created yet".into()),
                _ => Check::Waiting("not found".into()),
            };
        };
        match self {
            Condition::Ready => match status::readiness(group, kind, object) {
                Readiness::Current => Check::Met,
                Readiness::InProgress(reason) => Check::Waiting(reason),
                Readiness::Failed(reason) => Check::Failed(reason),
            },
            Condition::Deleted => Check::Waiting("still there".into()),
            Condition::Created => Check::Met,
            Condition::Status { name, value } => status_condition(object, name, value),
            Condition::JsonPath(condition) => condition.check(object),
        }
    }
}

/// kubectl's rule: the first condition named `name` decides, unless it (or the status) was
/// observed for an older generation than the object's.
fn status_condition(object: &Value, name: &str, value: &str) -> Check {
    let conditions = object["status"]["conditions"].as_array().into_iter().flatten();
    for condition in conditions {
        let matches_name = condition["type"].as_str().is_some_and(|kind| kind.to_lowercase() == name.to_lowercase());
        let Some(status) = condition["status"].as_str().filter(|_| matches_name) else { continue };
        let observed = condition["observedGeneration"].as_i64().or(object["status"]["observedGeneration"].as_i64());
        if let (Some(generation), Some(observed)) = (object["metadata"]["generation"].as_i64(), observed)
            && observed < generation
        {
            return Check::Waiting(format!("{name} was observed for generation {observed}, not yet {generation}"));
        }
        if status.to_lowercase() == value.to_lowercase() {
            return Check::Met;
        }
        return Check::Waiting(format!("{name} is {status}"));
    }
    Check::Waiting(format!("no {name} condition"))
}

impl JsonPathCondition {
    /// Parses `EXPR[=VALUE]` as kubectl does: the first single `=` ends the expression (`==`
    /// belongs to it), quotes around the value are dropped, and the braces of `{.a.b}` are optional.
    fn parse(input: &str) -> Result<JsonPathCondition, Error> {
        let parts = split_on_single_equals(input);
        let (expression, value) = match parts.as_slice() {
            [expression] => (expression.as_str(), None),
            [expression, value] => {
                let value = value.trim_matches(|c| c == '\'' || c == '"');
                if value.is_empty() {
                    return Err(Error::JsonPath(
                        "jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3"
                            .into(),
                    ));
                }
                (expression.as_str(), Some(value.to_string()))
            }
            _ => {
                return Err(Error::JsonPath(
                    "jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or \
                     --for=jsonpath='{.status.readyReplicas}'"
                        .into(),
                ));
            }
        };
        let inner = expression.strip_prefix('{').and_then(|rest| rest.strip_suffix('}')).unwrap_or(expression).trim();
        if inner.is_empty() {
            return Err(Error::JsonPath("jsonpath expression cannot be empty".into()));
        }
        let invalid =
            |err: jsonpath::Error| Error::JsonPath(format!("invalid jsonpath expression {expression:?}: {err}"));
        let query = jsonpath::relaxed(inner).map_err(invalid)?;
        let path = JsonPath::parse(&query).map_err(invalid)?;
        Ok(JsonPathCondition { query, path, value })
    }

    /// kubectl's rule: exactly one value found; a nested object or list only when any value will do;
    /// otherwise its text equal to the value, spaces around either aside.
    fn check(&self, object: &Value) -> Check {
        let groups = match self.path.find(object, true) {
            Ok(groups) => groups,
            Err(err) => return Check::Failed(format!("cannot evaluate {}: {err}", self.query)),
        };
        let found = match groups.as_slice() {
            [] => return Check::Waiting(format!("{} has no value", self.query)),
            [group] => match group.as_slice() {
                [] => return Check::Waiting(format!("{} has no value", self.query)),
                [one] => one.as_ref(),
                _ => return Check::Failed("given jsonpath expression matches more than one value".into()),
            },
            _ => return Check::Failed("given jsonpath expression matches more than one list".into()),
        };
        let Some(expected) = &self.value else { return Check::Met };
        let text = match found {
            Value::Object(_) | Value::Array(_) => {
                return Check::Failed("jsonpath leads to a nested object or list which is not supported".into());
            }
            Value::String(text) => text.clone(),
            Value::Null => "<nil>".to_string(),
            other => other.to_string(),
        };
        if text.trim() == expected.trim() {
            Check::Met
        } else {
            Check::Waiting(format!("{} is {text:?}, not {expected:?}", self.query))
        }
    }
}

/// Splits on single `=`; `==` stays in the part, as kubectl's `splitJSONPathInput` does.
fn split_on_single_equals(input: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '=' if chars.peek() == Some(&'=') => {
                chars.next();
                parts.last_mut().expect("never empty").push_str("==");
            }
            '=' => parts.push(String::new()),
            c => parts.last_mut().expect("never empty").push(c),
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(condition: &str, object: &Value) -> Check {
        Condition::parse(condition).unwrap().check("", "Pod", Some(object))
    }

    #[test]
    fn conditions_parse_like_kubectl() {
        assert_eq!(Condition::parse("delete").unwrap(), Condition::Deleted);
        assert_eq!(Condition::parse("Ready").unwrap(), Condition::Ready);
        assert_eq!(
            Condition::parse("condition=Available").unwrap(),
            Condition::Status { name: "Available".into(), value: "true".into() }
        );
        assert_eq!(
            Condition::parse("condition=Ready=false").unwrap(),
            Condition::Status { name: "Ready".into(), value: "false".into() }
        );
        assert_eq!(Condition::parse("bogus").unwrap_err().to_string(), r#"unrecognized condition: "bogus""#);
        assert_eq!(Condition::parse("").unwrap_err().to_string(), r#"unrecognized condition: """#);
        assert!(Condition::parse("jsonpath={.a}=").unwrap_err().to_string().contains("has to have a value"));
        assert!(Condition::parse("jsonpath={.a}=1=2").unwrap_err().to_string().contains("format must be"));
        assert_eq!(Condition::parse("jsonpath={}").unwrap_err().to_string(), "jsonpath expression cannot be empty");
        assert!(Condition::parse("jsonpath={.a[}").is_err());
    }

    #[test]
    fn failure_conditions_name_what_is_met() {
        let job = json!({"status": {"phase": "x", "conditions": [
            {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"},
            {"type": "Suspended", "status": "False"}
        ]}});
        let on = |text: &str| FailOn::parse(text).unwrap().check("batch", "Job", &job);
        assert_eq!(
            on("condition=Failed").unwrap(),
            "--fail-on=condition=Failed met: BackoffLimitExceeded: Job has reached the specified backoff limit"
        );
        assert_eq!(on("condition=suspended=false").unwrap(), "--fail-on=condition=suspended=false met");
        assert_eq!(on("jsonpath={.status.phase}=x").unwrap(), "--fail-on=jsonpath={.status.phase}=x met");
        assert_eq!(on("condition=Complete"), None);
        assert_eq!(on("jsonpath={.status.phase}=y"), None);
        for refused in ["ready", "delete", "create", "bogus"] {
            assert_eq!(
                FailOn::parse(refused).unwrap_err().to_string(),
                format!(
                    "unrecognized failure condition: {refused:?} (--fail-on takes condition=NAME[=VALUE] or jsonpath=EXPR[=VALUE])"
                )
            );
        }
        assert!(FailOn::parse("jsonpath={.a}=").unwrap_err().to_string().contains("has to have a value"));
    }

    #[test]
    fn absent_objects_meet_delete_only() {
        assert_eq!(Condition::Deleted.check("", "Pod", None), Check::Met);
        assert_eq!(Condition::Ready.check("", "Pod", None), Check::Waiting("not found".into()));
        assert_eq!(Condition::Created.check("", "Pod", None), Check::Waiting("not created yet".into()));
        assert_eq!(Condition::Created.check("", "Pod", Some(&json!({}))), Check::Met);
    }

    #[test]
    fn status_conditions_compare_without_case_for_the_latest_generation() {
        let pod = json!({"metadata": {"generation": 2}, "status": {"observedGeneration": 2, "conditions": [
            {"type": "Ready", "status": "True"}, {"type": "Synced", "status": "False", "observedGeneration": 1}
        ]}});
        assert_eq!(check("condition=ready", &pod), Check::Met);
        assert_eq!(check("condition=Ready=false", &pod), Check::Waiting("Ready is True".into()));
        assert_eq!(
            check("condition=Synced=False", &pod),
            Check::Waiting("Synced was observed for generation 1, not yet 2".into())
        );
        assert_eq!(check("condition=Other", &pod), Check::Waiting("no Other condition".into()));
    }

    #[test]
    fn jsonpath_finds_one_value_and_compares_its_text() {
        let pod = json!({"status": {"phase": "Running", "replicas": 3, "ok": true, "conditions": [
            {"type": "Ready", "status": "True"}, {"type": "Scheduled", "status": "True"}
        ]}});
        assert_eq!(check("jsonpath={.status.phase}=Running", &pod), Check::Met);
        assert_eq!(check("jsonpath=.status.phase='Running'", &pod), Check::Met);
        assert_eq!(check("jsonpath={.status.replicas}=3", &pod), Check::Met);
        assert_eq!(check("jsonpath={.status.ok}=true", &pod), Check::Met);
        assert_eq!(check(r#"jsonpath={.status.conditions[?(@.type=="Ready")].status}=True"#, &pod), Check::Met);
        assert_eq!(check("jsonpath={.status.conditions}", &pod), Check::Met);
        assert_eq!(
            check("jsonpath={.status.phase}=Pending", &pod),
            Check::Waiting(r#"{.status.phase} is "Running", not "Pending""#.into())
        );
        assert_eq!(
            check("jsonpath={.status.missing}=x", &pod),
            Check::Waiting("{.status.missing} has no value".into())
        );
        assert_eq!(
            check("jsonpath={.status.conditions}=x", &pod),
            Check::Failed("jsonpath leads to a nested object or list which is not supported".into())
        );
        assert_eq!(
            check("jsonpath={.status.conditions[*].status}=True", &pod),
            Check::Failed("given jsonpath expression matches more than one value".into())
        );
    }

    #[test]
    fn ready_follows_the_status_rules() {
        let failed = json!({"status": {"phase": "Failed"}});
        assert_eq!(Condition::Ready.check("", "Pod", Some(&failed)), Check::Failed("phase Failed".into()));
    }
}
