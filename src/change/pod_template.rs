//! What kubectl's setters share: the pod spec of an object (where each kind keeps it), the
//! containers a `--containers` pattern selects, and the small setters (`set resources`,
//! `set serviceaccount`).

use serde_json::{Map, Value};

use super::image::pod_spec_path;

/// kubectl's words for an object that has no pod spec.
pub const NO_POD_TEMPLATE: &str = "the object is not a pod or does not have a pod template";

/// The pod spec of `object`, where its kind keeps it.
pub fn pod_spec_mut(object: &mut Value) -> Option<&mut Value> {
    let kind = object["kind"].as_str().unwrap_or_default().to_string();
    pod_spec_path(&kind).and_then(|path| object.pointer_mut(path))
}

/// kubectl's `selectString`: `*` selects all, a name without `*` itself, and a pattern with `*`
/// is matched part by part as kubectl matches it (quirks included: each part is searched from the
/// position of the previous match, and a part found before that position fails).
pub fn selects(pattern: &str, name: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    if !pattern.contains('*') {
        return pattern == name;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let mut position = 0usize;
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        // Go: strings.Index(s[pos:], part), an index into the rest, compared with pos itself.
        let Some(next) = name.get(position..).and_then(|rest| rest.find(part)) else { return false };
        if next < position || (i == 0 && position != 0) || (i == parts.len() - 1 && name.len() != part.len() + next) {
            return false;
        }
        position = next;
    }
    true
}

/// Indexes of the containers `pattern` selects: the regular ones, then the init containers.
pub fn selected_containers(spec: &Value, pattern: &str) -> Vec<(&'static str, usize)> {
    let mut selected = Vec::new();
    for list in ["containers", "initContainers"] {
        for (i, container) in spec[list].as_array().into_iter().flatten().enumerate() {
            if selects(pattern, container["name"].as_str().unwrap_or_default()) {
                selected.push((list, i));
            }
        }
    }
    selected
}

/// `set resources`: the limits and requests given, set in every selected container. Returns
/// whether any container was selected.
pub fn set_resources(
    spec: &mut Value,
    pattern: &str,
    limits: &Map<String, Value>,
    requests: &Map<String, Value>,
) -> bool {
    let selected = selected_containers(spec, pattern);
    for (list, i) in &selected {
        let resources = &mut spec[*list][*i]["resources"];
        for (field, amounts) in [("limits", limits), ("requests", requests)] {
            if amounts.is_empty() {
                continue;
            }
            if !resources[field].is_object() {
                resources[field] = Value::Object(Map::new());
            }
            for (name, amount) in amounts {
                resources[field][name] = amount.clone();
            }
        }
    }
    !selected.is_empty()
}

/// kubectl's `--limits`/`--requests` value, `cpu=100m,memory=256Mi`, checked as kubectl checks
/// it; the quantities are sent as written (the server writes them in its canonical form).
pub fn resource_list(spec: &str) -> Result<Map<String, Value>, String> {
    let mut list = Map::new();
    if spec.is_empty() {
        return Ok(list);
    }
    for statement in spec.split(',') {
        let parts: Vec<&str> = statement.split('=').collect();
        let [name, amount] = parts[..] else {
            return Err(format!("invalid argument syntax {statement}, expected <resource>=<value>"));
        };
        if !is_quantity(amount) {
            return Err("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
                .to_string());
        }
        list.insert(name.to_string(), Value::String(amount.to_string()));
    }
    Ok(list)
}

/// Whether `text` is a quantity as apimachinery's `ParseQuantity` reads it: a decimal number and
/// one of the suffixes (`m`, `Ki`, `G`, `e3`...).
fn is_quantity(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let end = unsigned.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(unsigned.len());
    let (number, suffix) = unsigned.split_at(end);
    let digits = number.replace('.', "");
    if digits.is_empty() || number.matches('.').count() > 1 {
        return false;
    }
    const SUFFIXES: [&str; 16] = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    if SUFFIXES.contains(&suffix) {
        return true;
    }
    let exponent = suffix.strip_prefix(['e', 'E']).map(|e| e.strip_prefix(['+', '-']).unwrap_or(e));
    exponent.is_some_and(|e| !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn patterns_select_as_kubectls_select_string() {
        assert!(selects("*", "app"));
        assert!(selects("app", "app"));
        assert!(!selects("app", "apps"));
        assert!(selects("ap*", "app"));
        assert!(selects("*s", "apps"));
        // kubectl finds a last part's first occurrence only: `*p` does not select `app`.
        assert!(!selects("*p", "app"));
        assert!(!selects("x*", "app"));
        assert!(!selects("*x", "app"));
        // kubectl's quirk: a later part's index is relative to the previous match, yet compared as
        // if it were absolute, so `*a*b` does not select `xab`.
        assert!(!selects("*a*b", "xab"));
        assert!(selects("a*b", "ab"));
    }

    #[test]
    fn resources_are_set_in_the_selected_containers() {
        let mut spec = json!({"containers": [{"name": "app"}, {"name": "log", "resources": {"limits": {"cpu": "1"}}}],
                              "initContainers": [{"name": "init"}]});
        let limits = resource_list("memory=256Mi").unwrap();
        assert!(set_resources(&mut spec, "*", &limits, &Map::new()));
        assert_eq!(spec["containers"][1]["resources"], json!({"limits": {"cpu": "1", "memory": "256Mi"}}));
        assert_eq!(spec["initContainers"][0]["resources"], json!({"limits": {"memory": "256Mi"}}));
        assert!(!set_resources(&mut spec, "nope", &limits, &Map::new()));
        assert_eq!(resource_list("cpu").unwrap_err(), "invalid argument syntax cpu, expected <resource>=<value>");
        assert!(resource_list("cpu=lots").unwrap_err().starts_with("quantities must match"));
        assert!(resource_list("cpu=0.5,memory=1e3").is_ok());
    }
}
