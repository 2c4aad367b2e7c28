//! The changes kubectl's update verbs make to an object, as pure functions on its JSON: labels and
//! annotations (`label`, `annotate`), container images (`set image`), fields by path (`update
//! --set`). Each verb reads the object,
//! changes a copy here, and sends the difference as a patch through [`crate::merge`]; no I/O.

pub mod env;
pub mod field_path;
pub mod image;
pub mod metadata;
pub mod pod_template;
pub mod rollback;
pub mod rollout;
pub mod scale;

/// kubectl's split of a verb's arguments into objects and `KEY=VALUE` / `KEY-` pairs: every
/// object comes first; `pair_type` (`label`, `annotation`) names the pairs in the error.
pub fn split_pairs<'a>(args: &'a [String], pair_type: &str) -> Result<(Vec<String>, Vec<&'a str>), String> {
    let mut objects = Vec::new();
    let mut pairs = Vec::new();
    for arg in args {
        let is_pair = (arg.contains('=') && !arg.starts_with('=')) || (arg.ends_with('-') && arg != "-");
        match (is_pair, pairs.is_empty()) {
            (true, _) => pairs.push(arg.as_str()),
            (false, true) => objects.push(arg.clone()),
            (false, false) => {
                return Err(format!("all resources must be specified before {pair_type} changes: {arg}"));
            }
        }
    }
    Ok((objects, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str) -> Result<(Vec<String>, Vec<String>), String> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        split_pairs(&args, "label").map(|(objects, pairs)| (objects, pairs.into_iter().map(String::from).collect()))
    }

    #[test]
    fn objects_come_before_pairs() {
        assert_eq!(
            split("deploy web a=b c-").unwrap(),
            (vec!["deploy".into(), "web".into()], vec!["a=b".into(), "c-".into()])
        );
        // `=x` and `-` are names, as kubectl reads them.
        assert_eq!(split("cm =x - a=1").unwrap().0, ["cm", "=x", "-"]);
        assert_eq!(split("cm a a=1 b").unwrap_err(), "all resources must be specified before label changes: b");
    }
}
