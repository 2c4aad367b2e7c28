//! `set env`: environment variables of containers, as kubectl's `set env` changes them: the
//! `KEY=VALUE`, `KEY-` and `-` (stdin) arguments, variables taken from a ConfigMap's or Secret's
//! keys, `--prefix`, `--overwrite=false`, and the `--list` view.

use serde_json::{Value, json};

/// kubectl's `SplitEnvironmentFromResources`: objects first, then every `KEY=VALUE` or `KEY-`;
/// `None` when an object follows a variable.
pub fn split_arguments(args: &[String]) -> Option<(Vec<String>, Vec<String>)> {
    let is_env = |arg: &str| arg.ends_with('-') || arg.split_once('=').is_some_and(|(key, _)| !key.is_empty());
    let first_env = args.iter().position(|arg| is_env(arg)).unwrap_or(args.len());
    let (objects, variables) = args.split_at(first_env);
    variables.iter().all(|arg| is_env(arg)).then(|| (objects.to_vec(), variables.to_vec()))
}

/// The variables to set and the names to remove, read from the arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvChanges {
    /// `EnvVar` objects, in the order given.
    pub set: Vec<Value>,
    pub remove: Vec<String>,
}

/// kubectl's `ParseEnv`: `KEY=VALUE` (the key checked as an environment variable name), `KEY-`,
/// and `-` for `stdin` (lines of `KEY=VALUE`, `#` comments, keys not checked).
pub fn parse(specs: &[String], stdin: impl FnOnce() -> Result<String, String>) -> Result<(EnvChanges, bool), String> {
    let mut changes = EnvChanges::default();
    let mut stdin = Some(stdin);
    let mut used_stdin = false;
    let mut named = Vec::new();
    for spec in specs {
        if spec == "-" {
            let text = match stdin.take() {
                Some(read) => read()?,
                None => String::new(),
            };
            for line in text.lines() {
                let line = line.split('#').next().unwrap_or_default();
                if let Some((name, value)) = line.split_once('=') {
                    changes.set.push(json!({"name": name, "value": value}));
                }
            }
            used_stdin = true;
        } else if let Some((name, value)) = spec.split_once('=') {
            if let Err(reason) = env_var_name(name) {
                return Err(format!("{name:?} is not a valid key name: {reason}"));
            }
            named.push(name.to_string());
            changes.set.push(json!({"name": name, "value": value}));
        } else if let Some(name) = spec.strip_suffix('-') {
            changes.remove.push(name.to_string());
        } else {
            return Err(format!("unknown environment variable: {spec}"));
        }
    }
    if changes.remove.iter().any(|name| named.contains(name)) {
        return Err("can not both modify and remove the same environment variable in the same command".to_string());
    }
    Ok((changes, used_stdin))
}

/// apimachinery's `IsEnvVarName`: what is wrong with `name` as an environment variable name, in
/// its words (several reasons joined by `;`).
pub fn env_var_name(name: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    let valid = name.chars().next().is_some_and(|c| !c.is_ascii_digit() && allowed(c)) && name.chars().all(allowed);
    let mut reasons = Vec::new();
    if !valid {
        reasons.push(
            "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and \
             must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for \
             validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
        );
    }
    match name {
        "." => reasons.push("must not be '.'"),
        ".." => reasons.push("must not be '..'"),
        _ if name.starts_with("..") => reasons.push("must not start with '..'"),
        _ => {}
    }
    if reasons.is_empty() { Ok(()) } else { Err(reasons.join(";")) }
}

/// The variable name kubectl makes of a ConfigMap's or Secret's key: other characters than
/// letters, digits and `_` become `_`, then upper case.
pub fn key_to_name(key: &str) -> String {
    key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect::<String>().to_uppercase()
}

/// `--from=configmap/NAME|secret/NAME`: a variable per key of `source`'s `data` (those in `keys`,
/// or all), each a reference to its key; kubectl's warning for each renamed key. Keys come in
/// their sorted order (kubectl's come in Go's map order, which varies).
pub fn from_source(source: &Value, keys: &[String]) -> Result<(Vec<Value>, Vec<String>), String> {
    let reference = match source["kind"].as_str() {
        Some("Secret") => "secretKeyRef",
        Some("ConfigMap") => "configMapKeyRef",
        _ => return Err("unsupported resource specified in --from".to_string()),
    };
    let name = source["metadata"]["name"].as_str().unwrap_or_default();
    let mut variables = Vec::new();
    let mut warnings = Vec::new();
    for key in source["data"].as_object().into_iter().flatten().map(|(key, _)| key) {
        if !keys.is_empty() && !keys.contains(key) {
            continue;
        }
        let variable = key_to_name(key);
        if &variable != key {
            warnings.push(format!("key {key} transferred to {variable}"));
        }
        variables.push(json!({"name": variable, "valueFrom": {reference: {"name": name, "key": key}}}));
    }
    Ok((variables, warnings))
}

/// What `set env` does to one container: `--overwrite=false` refuses a variable that has
/// another value; else kubectl's `updateEnv` (removed names go, set ones replace theirs in place,
/// new ones are appended).
pub fn update_container(container: &mut Value, changes: &EnvChanges, overwrite: bool) -> Result<(), String> {
    let existing: Vec<Value> = container["env"].as_array().cloned().unwrap_or_default();
    let find = |list: &[Value], name: &str| list.iter().find(|e| e["name"] == name).cloned();
    if !overwrite {
        for variable in &changes.set {
            let name = variable["name"].as_str().unwrap_or_default();
            if let Some(current) = find(&existing, name)
                && current["value"] != variable["value"]
                && !(current["value"].is_null() && variable["value"] == "")
            {
                return Err(format!(
                    "'{name}' already has a value ({}), and --overwrite is false",
                    current["value"].as_str().unwrap_or_default()
                ));
            }
        }
    }
    let mut covered: Vec<String> = changes.remove.clone();
    let mut updated = Vec::new();
    for variable in existing {
        let name = variable["name"].as_str().unwrap_or_default().to_string();
        if covered.contains(&name) {
            continue;
        }
        match find(&changes.set, &name) {
            Some(newer) => {
                covered.push(name);
                updated.push(newer);
            }
            None => updated.push(variable),
        }
    }
    for variable in &changes.set {
        let name = variable["name"].as_str().unwrap_or_default().to_string();
        if !covered.contains(&name) {
            covered.push(name);
            updated.push(variable.clone());
        }
    }
    if updated.is_empty() {
        if let Some(container) = container.as_object_mut() {
            container.remove("env");
        }
    } else {
        container["env"] = Value::Array(updated);
    }
    Ok(())
}

/// How `set env --list` names where a variable's value comes from.
pub fn reference_text(from: &Value) -> String {
    if let Some(key) = from.get("configMapKeyRef") {
        format!("configmap {}, key {}", text(&key["name"]), text(&key["key"]))
    } else if let Some(key) = from.get("secretKeyRef") {
        format!("secret {}, key {}", text(&key["name"]), text(&key["key"]))
    } else if let Some(field) = from.get("fieldRef") {
        format!("field path {}", text(&field["fieldPath"]))
    } else if let Some(resource) = from.get("resourceFieldRef") {
        let container = text(&resource["containerName"]);
        let prefix = if container.is_empty() { String::new() } else { format!("{container}/") };
        format!("resource field {prefix}{}", text(&resource["resource"]))
    } else {
        "invalid valueFrom".to_string()
    }
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn objects_come_before_variables() {
        let (objects, vars) = split_arguments(&strings(&["deploy/web", "A=1", "B-"])).unwrap();
        assert_eq!((objects, vars), (strings(&["deploy/web"]), strings(&["A=1", "B-"])));
        assert_eq!(split_arguments(&strings(&["A=1", "deploy/web"])), None);
    }

    #[test]
    fn arguments_and_stdin_are_read_as_kubectl_reads_them() {
        let (changes, stdin) =
            parse(&strings(&["A=1", "B-", "-"]), || Ok("C=3 # comment\n# all\nD==x\n".to_string())).unwrap();
        assert!(stdin);
        let names: Vec<&str> = changes.set.iter().map(|v| v["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["A", "C", "D"]);
        assert_eq!(changes.set[1]["value"], "3 ");
        assert_eq!(changes.set[2]["value"], "=x");
        assert_eq!(changes.remove, ["B"]);
        assert!(
            parse(&strings(&["1A=x"]), || Ok(String::new())).unwrap_err().starts_with("\"1A\" is not a valid key name")
        );
        assert_eq!(
            parse(&strings(&["A=1", "A-"]), || Ok(String::new())).unwrap_err(),
            "can not both modify and remove the same environment variable in the same command"
        );
        assert_eq!(parse(&strings(&["what"]), || Ok(String::new())).unwrap_err(), "unknown environment variable: what");
    }

    #[test]
    fn variables_are_replaced_in_place_removed_and_appended() {
        let mut container = json!({"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]});
        let changes = EnvChanges {
            set: vec![json!({"name": "C", "value": "3"}), json!({"name": "A", "value": "9"})],
            remove: vec!["B".into()],
        };
        assert_eq!(
            update_container(&mut container, &changes, false).unwrap_err(),
            "'A' already has a value (1), and --overwrite is false"
        );
        update_container(&mut container, &changes, true).unwrap();
        assert_eq!(container["env"], json!([{"name": "A", "value": "9"}, {"name": "C", "value": "3"}]));
    }

    #[test]
    fn keys_of_a_source_become_references() {
        let map =
            json!({"kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"log.level": "x", "mode": "y"}});
        let (vars, warnings) = from_source(&map, &[]).unwrap();
        assert_eq!(
            vars[0],
            json!({"name": "LOG_LEVEL", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "log.level"}}})
        );
        assert_eq!(warnings, ["key log.level transferred to LOG_LEVEL", "key mode transferred to MODE"]);
        assert_eq!(from_source(&map, &["mode".into()]).unwrap().0.len(), 1);
        assert_eq!(from_source(&json!({"kind": "Pod"}), &[]).unwrap_err(), "unsupported resource specified in --from");
    }
}
