//! `replacements` and `vars`: a value taken from one resource's field and written into fields of
//! others, as kustomize v5.8.1 does. [`replacements`] run as the last transformer of each
//! kustomization; [`vars`] are declared at each level and substituted once, at the end of the
//! build, after every rename. Both select resources by kustomize's ids ([`Id`]), which include the
//! names and namespaces a resource had before; both take kustomize's dotted [`path`]s.

mod path;
pub mod replacements;
mod structured;
pub mod vars;

use serde_json::Value;

use super::error::Error;

/// `text` as a plain YAML scalar (go-yaml v3's resolution): null, a boolean, a number, or a string.
pub fn plain_scalar(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Ok(integer) = text.parse::<i64>() {
        return Value::from(integer);
    }
    let numeric = text.bytes().all(|byte| byte.is_ascii_digit() || b".eE+-".contains(&byte))
        && text.bytes().any(|byte| byte.is_ascii_digit());
    match text.parse::<f64>() {
        // Whole numbers print without a fraction, as kustomize's output prints them.
        Ok(float) if numeric && float.fract() == 0.0 && float.abs() < 9e15 => Value::from(float as i64),
        Ok(float) if numeric => serde_json::Number::from_f64(float).map_or(Value::String(text.into()), Value::Number),
        _ => Value::String(text.into()),
    }
}

/// The YAML tag of a scalar, as go-yaml names it in its errors.
fn tag(value: &Value) -> &'static str {
    match value {
        Value::Null => "!!null",
        Value::Bool(_) => "!!bool",
        Value::Number(number) if number.is_f64() => "!!float",
        Value::Number(_) => "!!int",
        Value::String(_) => "!!str",
        Value::Array(_) => "!!seq",
        Value::Object(_) => "!!map",
    }
}

/// Sets the scalar `target` to `text` as kustomize does: the target keeps its type (a string
/// stays a string, a number must get a number), and a field just created takes `text` as a plain
/// YAML scalar.
pub fn set_scalar(target: &mut Value, text: &str, created: bool) -> Result<(), Error> {
    let resolved = plain_scalar(text);
    let fits = match (&*target, &resolved) {
        _ if created => true,
        (Value::String(_), _) => {
            *target = Value::String(text.to_string());
            return Ok(());
        }
        (Value::Number(number), Value::Number(_)) if number.is_f64() => true,
        (Value::Number(_), Value::Number(new)) => !new.is_f64(),
        (Value::Bool(_), Value::Bool(_)) | (Value::Null, Value::Null) => true,
        _ => false,
    };
    if !fits {
        return Err(Error::CannotDecode { tag: tag(&resolved), text: text.to_string(), target: tag(target) });
    }
    *target = resolved;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_keep_their_type_and_new_ones_resolve_plainly() {
        assert_eq!(plain_scalar("42"), json!(42));
        assert_eq!(plain_scalar("1.50"), json!(1.5));
        assert_eq!(plain_scalar("true"), json!(true));
        assert_eq!(plain_scalar("yes"), json!("yes"));
        assert_eq!(plain_scalar("~"), Value::Null);
        assert_eq!(plain_scalar("1e3"), json!(1000));
        assert_eq!(plain_scalar("inf"), json!("inf"));

        let mut target = json!("a");
        set_scalar(&mut target, "42", false).unwrap();
        assert_eq!(target, json!("42"));
        let mut target = json!(1);
        set_scalar(&mut target, "42", false).unwrap();
        assert_eq!(target, json!(42));
        let refused = |mut target: Value, text: &str| set_scalar(&mut target, text, false).unwrap_err().to_string();
        assert_eq!(refused(target, "hello"), "yaml: cannot decode !!str `hello` as a !!int");
        assert_eq!(refused(json!(1), "true"), "yaml: cannot decode !!bool `true` as a !!int");
        assert_eq!(refused(Value::Null, "x"), "yaml: cannot decode !!str `x` as a !!null");
        let mut created = Value::Null;
        set_scalar(&mut created, "true", true).unwrap();
        assert_eq!(created, json!(true));
    }
}
