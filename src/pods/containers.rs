//! Which container of a pod a command means: kubectl's `podcmd` (k8s.io/kubectl
//! pkg/cmd/util/podcmd) and the choice `logs` makes (pkg/polymorphichelpers/logsforobject.go).

use serde_json::Value;

/// kubectl's annotation naming the container to use when none is given.
pub const DEFAULT_CONTAINER_ANNOTATION: &str = "kubectl.kubernetes.io/default-container";

/// A container of a pod: its name and where the pod spec has it (`spec.containers{app}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub name: String,
    pub field_path: String,
}

/// The pod has no container of that name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("container {name} is not valid for pod {pod} out of: {names}")]
pub struct ContainerError {
    pub name: String,
    pub pod: String,
    pub names: String,
}

/// The pod's container lists in kubectl's order of lookup: regular, init, ephemeral.
const LISTS: [(&str, &str); 3] = [
    ("containers", "containers"),
    ("initContainers", "initContainers"),
    ("ephemeralContainers", "ephemeralContainers"),
];

fn names<'a>(pod: &'a Value, list: &str) -> impl Iterator<Item = &'a str> {
    pod["spec"][list].as_array().into_iter().flatten().filter_map(|container| container["name"].as_str())
}

/// The container `name` of `pod`, looked for among regular, init and ephemeral containers.
fn find(pod: &Value, name: &str) -> Option<Container> {
    LISTS.iter().find_map(|(list, path)| {
        names(pod, list)
            .any(|found| found == name)
            .then(|| Container { name: name.to_string(), field_path: format!("spec.{path}{{{name}}}") })
    })
}

/// Every container name, as kubectl lists them in messages: regular, then ephemeral ones marked
/// `(ephem)`, then init ones marked `(init)`: `app, debugger (ephem), setup (init)`.
pub fn all_container_names(pod: &Value) -> String {
    let regular = names(pod, "containers").map(String::from);
    let ephemeral = names(pod, "ephemeralContainers").map(|name| format!("{name} (ephem)"));
    let init = names(pod, "initContainers").map(|name| format!("{name} (init)"));
    regular.chain(ephemeral).chain(init).collect::<Vec<_>>().join(", ")
}

/// Every container, in the order `logs --all-containers` reads them: init, regular, ephemeral.
pub fn all_containers(pod: &Value) -> Vec<Container> {
    ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|list| names(pod, list).map(move |name| (list, name)))
        .map(|(list, name)| Container { name: name.to_string(), field_path: format!("spec.{list}{{{name}}}") })
        .collect()
}

/// The container whose log `logs` shows when `requested` (from `-c`) may be empty: the pod's
/// default-container annotation, else its first container. Returns it with the notices kubectl
/// prints on stderr on the way (`Defaulted container "app" out of: app, side`, unless `quiet`).
pub fn log_container(
    pod: &Value,
    requested: Option<&str>,
    quiet: bool,
) -> Result<(Container, Vec<String>), ContainerError> {
    let pod_name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let mut notices = Vec::new();
    let mut chosen = requested.filter(|name| !name.is_empty()).map(String::from);
    if chosen.is_none() {
        let annotated = pod["metadata"]["annotations"][DEFAULT_CONTAINER_ANNOTATION].as_str().unwrap_or_default();
        if !annotated.is_empty() {
            match find(pod, annotated) {
                Some(_) => chosen = Some(annotated.to_string()),
                None => notices.push(format!("Default container name {annotated:?} not found in pod {pod_name}")),
            }
        }
    }
    let name = match chosen {
        Some(name) => name,
        None => {
            let first = names(pod, "containers").next().unwrap_or_default().to_string();
            let several = names(pod, "containers").count() > 1
                || names(pod, "initContainers").next().is_some()
                || names(pod, "ephemeralContainers").next().is_some();
            if several && !quiet {
                notices.push(format!("Defaulted container {first:?} out of: {}", all_container_names(pod)));
            }
            first
        }
    };
    match find(pod, &name) {
        Some(container) => Ok((container, notices)),
        None => Err(ContainerError { name, pod: pod_name.to_string(), names: all_container_names(pod) }),
    }
}

/// The pod has no container at all (podcmd's check, which should never fail).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    #[error(transparent)]
    NotInPod(#[from] ContainerError),
    #[error("pod {namespace}/{pod} does not have any containers")]
    NoContainers { namespace: String, pod: String },
}

/// The container exec, attach and cp use: the one `requested` (from `-c`) names, which the pod
/// must have, else podcmd's `FindOrDefaultContainerByName`: the annotation's container when the
/// pod has it, else the first, with kubectl's note (for stderr) when there were several.
pub fn command_container(pod: &Value, requested: Option<&str>) -> Result<(Container, Option<String>), ChoiceError> {
    let pod_name = pod["metadata"]["name"].as_str().unwrap_or_default();
    if let Some(name) = requested.filter(|name| !name.is_empty()) {
        let missing =
            || ContainerError { name: name.to_string(), pod: pod_name.to_string(), names: all_container_names(pod) };
        return Ok((find(pod, name).ok_or_else(missing)?, None));
    }
    let Some(first) = names(pod, "containers").next() else {
        let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default().to_string();
        return Err(ChoiceError::NoContainers { namespace, pod: pod_name.to_string() });
    };
    let annotated = pod["metadata"]["annotations"][DEFAULT_CONTAINER_ANNOTATION].as_str().unwrap_or_default();
    if let Some(container) = find(pod, annotated).filter(|_| !annotated.is_empty()) {
        return Ok((container, None));
    }
    let several = names(pod, "containers").count() > 1
        || names(pod, "initContainers").next().is_some()
        || names(pod, "ephemeralContainers").next().is_some();
    let note = several.then(|| format!("Defaulted container {first:?} out of: {}", all_container_names(pod)));
    Ok((Container { name: first.to_string(), field_path: format!("spec.containers{{{first}}}") }, note))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(annotation: Option<&str>) -> Value {
        let mut pod = json!({"metadata": {"name": "web"}, "spec": {
            "initContainers": [{"name": "setup"}],
            "containers": [{"name": "app"}, {"name": "side"}],
            "ephemeralContainers": [{"name": "debug"}]}});
        if let Some(name) = annotation {
            pod["metadata"]["annotations"] = json!({DEFAULT_CONTAINER_ANNOTATION: name});
        }
        pod
    }

    #[test]
    fn the_first_container_is_the_default_and_kubectl_says_so() {
        let (container, notices) = log_container(&pod(None), None, false).unwrap();
        assert_eq!(container, Container { name: "app".into(), field_path: "spec.containers{app}".into() });
        assert_eq!(notices, [r#"Defaulted container "app" out of: app, side, debug (ephem), setup (init)"#]);
        assert!(log_container(&pod(None), None, true).unwrap().1.is_empty(), "quiet");
        let alone = json!({"metadata": {"name": "one"}, "spec": {"containers": [{"name": "only"}]}});
        assert!(log_container(&alone, None, false).unwrap().1.is_empty());
    }

    #[test]
    fn the_annotation_names_the_default_when_the_pod_has_it() {
        let (container, notices) = log_container(&pod(Some("side")), None, false).unwrap();
        assert_eq!((container.name.as_str(), notices.len()), ("side", 0));
        let (container, notices) = log_container(&pod(Some("gone")), None, false).unwrap();
        assert_eq!(container.name, "app");
        assert_eq!(notices[0], r#"Default container name "gone" not found in pod web"#);
        let (container, _) = log_container(&pod(Some("side")), Some("setup"), false).unwrap();
        assert_eq!(container.field_path, "spec.initContainers{setup}");
    }

    #[test]
    fn an_unknown_container_is_refused_with_the_pods_containers() {
        let err = log_container(&pod(None), Some("nope"), false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "container nope is not valid for pod web out of: app, side, debug (ephem), setup (init)"
        );
    }

    #[test]
    fn all_containers_come_init_first() {
        let names: Vec<String> = all_containers(&pod(None)).into_iter().map(|container| container.name).collect();
        assert_eq!(names, ["setup", "app", "side", "debug"]);
    }

    #[test]
    fn commands_take_the_named_the_annotated_or_the_first_container() {
        let name = |chosen: Result<(Container, Option<String>), ChoiceError>| {
            chosen.map(|(container, note)| (container.name, note))
        };
        let pod = json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {
            "containers": [{"name": "a"}, {"name": "b"}], "initContainers": [{"name": "setup"}]}});
        let note = r#"Defaulted container "a" out of: a, b, setup (init)"#.to_string();
        assert_eq!(name(command_container(&pod, None)), Ok(("a".into(), Some(note.clone()))));
        assert_eq!(name(command_container(&pod, Some("b"))), Ok(("b".into(), None)));
        assert_eq!(name(command_container(&pod, Some("setup"))), Ok(("setup".into(), None)));
        assert_eq!(
            command_container(&pod, Some("z")).unwrap_err().to_string(),
            "container z is not valid for pod p out of: a, b, setup (init)"
        );
        let one = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "only"}]}});
        assert_eq!(name(command_container(&one, None)), Ok(("only".into(), None)));
        let annotated = |container: &str| {
            json!({"metadata": {"name": "p", "annotations": {DEFAULT_CONTAINER_ANNOTATION: container}},
                   "spec": {"containers": [{"name": "a"}, {"name": "b"}]}})
        };
        assert_eq!(name(command_container(&annotated("b"), None)), Ok(("b".into(), None)));
        // An annotation naming no container of the pod is passed over, as podcmd does.
        let passed_over = r#"Defaulted container "a" out of: a, b"#.to_string();
        assert_eq!(name(command_container(&annotated("zz"), None)), Ok(("a".into(), Some(passed_over))));
        let empty = json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": []}});
        assert_eq!(command_container(&empty, None).unwrap_err().to_string(), "pod ns/p does not have any containers");
    }
}
