//! Label selectors (`-l app=web,tier!=db,env in (a,b),!legacy`), matched against objects read
//! from files: `apply -l` applies only the objects of the files that match, as kubectl does.

use serde_json::Value;

/// A label selector: every requirement must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelSelector {
    text: String,
    requirements: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// A selector that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unable to parse requirement: {0:?}")]
pub struct BadSelector(String);

impl std::str::FromStr for LabelSelector {
    type Err = BadSelector;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let requirements = split_top_level(text)
            .into_iter()
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(requirement)
            .collect::<Result<_, _>>()?;
        Ok(LabelSelector { text: text.to_string(), requirements })
    }
}

/// An object's `LabelSelector` (`matchLabels`, `matchExpressions`) written as the server reads
/// `labelSelector`, as apimachinery's `LabelSelectorAsSelector(...).String()` writes it: one
/// requirement per key, sorted by key, with sorted values; empty for a selector that selects all.
pub fn selector_text(selector: &Value) -> String {
    let mut requirements: Vec<(String, String)> = Vec::new();
    if let Some(labels) = selector["matchLabels"].as_object() {
        requirements.extend(
            labels.iter().map(|(key, value)| (key.clone(), format!("{key}={}", value.as_str().unwrap_or_default()))),
        );
    }
    for expression in selector["matchExpressions"].as_array().into_iter().flatten() {
        let key = expression["key"].as_str().unwrap_or_default();
        let mut values: Vec<&str> =
            expression["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        values.sort_unstable();
        let text = match expression["operator"].as_str().unwrap_or_default() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => continue,
        };
        requirements.push((key.to_string(), text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    requirements.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join(",")
}

impl LabelSelector {
    /// The selector as given, for the server (`labelSelector`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The labels a Service's `spec.selector` takes from this selector, as `kubectl set selector`
    /// reads it (`ParseToLabelSelector`): equalities only, kubectl's words for the rest.
    pub fn service_selector(&self) -> Result<serde_json::Map<String, Value>, String> {
        let mut labels = serde_json::Map::new();
        let mut expressions = Vec::new();
        for requirement in &self.requirements {
            let (key, operator, values) = match requirement {
                Requirement::Equals(key, value) => {
                    labels.insert(key.clone(), Value::String(value.clone()));
                    continue;
                }
                Requirement::NotEquals(..) => return Err("\"!=\" is not a valid label selector operator".to_string()),
                Requirement::In(key, values) => (key, "In", values.clone()),
                Requirement::NotIn(key, values) => (key, "NotIn", values.clone()),
                Requirement::Exists(key) => (key, "Exists", Vec::new()),
                Requirement::NotExists(key) => (key, "DoesNotExist", Vec::new()),
            };
            let mut values = values;
            values.sort();
            expressions.push(format!("{{{key} {operator} [{}]}}", values.join(" ")));
        }
        if !expressions.is_empty() {
            return Err(format!("match expression [{}] not supported on this object", expressions.join(" ")));
        }
        Ok(labels)
    }

    /// The selector as a `LabelSelector` object, as apimachinery's `ParseToLabelSelector` makes
    /// it: equalities in `matchLabels` (the last of a key kept), the rest in `matchExpressions`
    /// sorted by key, each with its values sorted once; `!=` refused in kubectl's words.
    pub fn label_selector(&self) -> Result<Value, String> {
        let mut requirements: Vec<&Requirement> = self.requirements.iter().collect();
        requirements.sort_by_key(|requirement| requirement.key());
        let mut labels = serde_json::Map::new();
        let mut expressions = Vec::new();
        for requirement in requirements {
            let (key, operator, values) = match requirement {
                Requirement::Equals(key, value) => {
                    labels.insert(key.clone(), Value::String(value.clone()));
                    continue;
                }
                Requirement::NotEquals(..) => return Err("\"!=\" is not a valid label selector operator".to_string()),
                Requirement::In(key, values) => (key, "In", Some(values)),
                Requirement::NotIn(key, values) => (key, "NotIn", Some(values)),
                Requirement::Exists(key) => (key, "Exists", None),
                Requirement::NotExists(key) => (key, "DoesNotExist", None),
            };
            let mut expression = serde_json::json!({"key": key, "operator": operator});
            if let Some(values) = values {
                let mut values = values.clone();
                values.sort();
                values.dedup();
                expression["values"] = values.into();
            }
            expressions.push(expression);
        }
        let mut selector = serde_json::json!({});
        if !labels.is_empty() {
            selector["matchLabels"] = Value::Object(labels);
        }
        if !expressions.is_empty() {
            selector["matchExpressions"] = Value::Array(expressions);
        }
        Ok(selector)
    }

    /// Whether `object`'s labels satisfy every requirement.
    pub fn matches(&self, object: &Value) -> bool {
        let labels = &object["metadata"]["labels"];
        let value = |key: &str| labels.get(key).and_then(Value::as_str);
        self.requirements.iter().all(|requirement| match requirement {
            Requirement::Equals(key, wanted) => value(key) == Some(wanted),
            Requirement::NotEquals(key, unwanted) => value(key) != Some(unwanted),
            Requirement::In(key, values) => value(key).is_some_and(|value| values.iter().any(|v| v == value)),
            Requirement::NotIn(key, values) => value(key).is_none_or(|value| values.iter().all(|v| v != value)),
            Requirement::Exists(key) => value(key).is_some(),
            Requirement::NotExists(key) => value(key).is_none(),
        })
    }
}

impl Requirement {
    fn key(&self) -> &str {
        match self {
            Requirement::Equals(key, _)
            | Requirement::NotEquals(key, _)
            | Requirement::In(key, _)
            | Requirement::NotIn(key, _)
            | Requirement::Exists(key)
            | Requirement::NotExists(key) => key,
        }
    }
}

/// The requirements of `text`, split at the commas outside parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn requirement(text: &str) -> Result<Requirement, BadSelector> {
    let bad = || BadSelector(text.to_string());
    let key = |key: &str| {
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) { Err(bad()) } else { Ok(key.to_string()) }
    };
    if let Some(rest) = text.strip_prefix('!') {
        return Ok(Requirement::NotExists(key(rest)?));
    }
    for (operator, make) in [
        ("!=", Requirement::NotEquals as fn(String, String) -> Requirement),
        ("==", Requirement::Equals),
        ("=", Requirement::Equals),
    ] {
        if let Some((left, right)) = text.split_once(operator) {
            return Ok(make(key(left)?, right.trim().to_string()));
        }
    }
    for (operator, make) in
        [(" notin ", Requirement::NotIn as fn(String, Vec<String>) -> Requirement), (" in ", Requirement::In)]
    {
        if let Some((left, right)) = text.split_once(operator) {
            let values = right.trim().strip_prefix('(').and_then(|rest| rest.strip_suffix(')')).ok_or_else(bad)?;
            return Ok(make(key(left)?, values.split(',').map(|value| value.trim().to_string()).collect()));
        }
    }
    Ok(Requirement::Exists(key(text)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_of_requirement_matches_as_kubernetes_does() {
        let object = json!({"metadata": {"labels": {"app": "web", "env": "prod"}}});
        let unlabelled = json!({"metadata": {}});
        let cases = [
            ("app=web", true, false),
            ("app==web,env=prod", true, false),
            ("app!=db", true, true),
            ("app", true, false),
            ("!app", false, true),
            ("env in (prod, dev)", true, false),
            ("env notin (prod)", false, true),
            ("app=web,env in (dev)", false, false),
            ("", true, true),
        ];
        for (text, labelled, bare) in cases {
            let selector: LabelSelector = text.parse().unwrap();
            assert_eq!((selector.matches(&object), selector.matches(&unlabelled)), (labelled, bare), "{text}");
        }
        assert!("env in prod".parse::<LabelSelector>().is_err());
        assert!("a b=c".parse::<LabelSelector>().is_err());
    }

    #[test]
    fn a_selector_becomes_a_label_selector_as_apimachinery_makes_it() {
        let selector: LabelSelector = "tier in (b,a,b),app=web,!old,app=api,env".parse().unwrap();
        assert_eq!(
            selector.label_selector(),
            Ok(json!({
                "matchLabels": {"app": "api"},
                "matchExpressions": [
                    {"key": "env", "operator": "Exists"},
                    {"key": "old", "operator": "DoesNotExist"},
                    {"key": "tier", "operator": "In", "values": ["a", "b"]},
                ],
            }))
        );
        let unequal: LabelSelector = "a!=b".parse().unwrap();
        assert_eq!(unequal.label_selector(), Err("\"!=\" is not a valid label selector operator".to_string()));
    }
}
