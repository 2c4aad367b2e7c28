//! `set image`: the images of an object's containers, found where each kind keeps its pod spec.

use serde_json::Value;

/// Where a kind keeps its pod spec, as kubectl's `UpdatePodSpecForObject` knows them.
pub fn pod_spec_path(kind: &str) -> Option<&'static str> {
    match kind {
        "Pod" => Some("/spec"),
        "ReplicationController" | "Deployment" | "DaemonSet" | "ReplicaSet" | "StatefulSet" | "Job" => {
            Some("/spec/template/spec")
        }
        "CronJob" => Some("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    }
}

/// Why the images cannot be set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("invalid image format: {0}")]
    Format(String),
    #[error("at least one image update is required")]
    NoImages,
    #[error("all containers are already specified by *, but saw more than one container_name=container_image pairs")]
    WildcardAndNames,
    /// The object's kind has no pod spec.
    #[error("the object is not a pod or does not have a pod template")]
    NoPodTemplate,
    #[error("unable to find container named {0:?}")]
    NoContainer(String),
}

/// `CONTAINER=IMAGE` pairs; `*` names every container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageUpdates {
    pub images: Vec<(String, String)>,
}

impl ImageUpdates {
    /// Reads the pairs (as [`super::split_pairs`] found them); a name given twice takes its last image.
    /// Whether there are pairs to set is [`ImageUpdates::check`]'s question, asked later.
    pub fn parse(pairs: &[&str]) -> Result<ImageUpdates, Error> {
        let mut images: Vec<(String, String)> = Vec::new();
        for pair in pairs {
            let (name, image) = pair.split_once('=').ok_or_else(|| Error::Format(pair.to_string()))?;
            images.retain(|(old, _)| old != name);
            images.push((name.to_string(), image.to_string()));
        }
        Ok(ImageUpdates { images })
    }

    /// kubectl's checks of the pairs read: at least one, and `*` alone. kubectl makes them once
    /// the objects are read, so they are apart from [`ImageUpdates::parse`].
    pub fn check(&self) -> Result<(), Error> {
        match self.images.len() {
            0 => Err(Error::NoImages),
            1 => Ok(()),
            _ if self.images.iter().any(|(name, _)| name == "*") => Err(Error::WildcardAndNames),
            _ => Ok(()),
        }
    }

    /// Sets the images in `object`'s init, regular and ephemeral containers. Names that match no
    /// container are returned as errors; the others are still set, as kubectl sets them.
    pub fn apply(&self, object: &mut Value) -> Result<Vec<Error>, Error> {
        let kind = object["kind"].as_str().unwrap_or_default().to_string();
        let spec = pod_spec_path(&kind).and_then(|path| object.pointer_mut(path)).ok_or(Error::NoPodTemplate)?;
        let mut missing = Vec::new();
        for (name, image) in &self.images {
            let mut found = false;
            for list in ["initContainers", "containers", "ephemeralContainers"] {
                for container in spec.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
                    if name == "*" || container["name"].as_str() == Some(name) {
                        container["image"] = Value::String(image.clone());
                        found = true;
                    }
                }
            }
            if !found {
                missing.push(Error::NoContainer(name.clone()));
            }
        }
        Ok(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({"kind": "Deployment", "spec": {"template": {"spec": {
            "initContainers": [{"name": "init", "image": "busybox:1"}],
            "containers": [{"name": "app", "image": "nginx:1"}, {"name": "log", "image": "fluent:1"}]}}}})
    }

    #[test]
    fn named_containers_and_the_wildcard_get_images() {
        let mut object = deployment();
        let missing = ImageUpdates::parse(&["app=nginx:2", "nope=x"]).unwrap().apply(&mut object).unwrap();
        assert_eq!(missing, [Error::NoContainer("nope".into())]);
        assert_eq!(object["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:2");
        ImageUpdates::parse(&["*=img:3"]).unwrap().apply(&mut object).unwrap();
        let spec = &object["spec"]["template"]["spec"];
        assert_eq!([&spec["initContainers"][0]["image"], &spec["containers"][1]["image"]], ["img:3", "img:3"]);
        let mut job = json!({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "a"}]}}}}}});
        assert!(ImageUpdates::parse(&["a=b"]).unwrap().apply(&mut job).unwrap().is_empty());
        assert_eq!(
            ImageUpdates::parse(&["a=b"]).unwrap().apply(&mut json!({"kind": "ConfigMap"})),
            Err(Error::NoPodTemplate)
        );
    }

    #[test]
    fn bad_pairs_get_kubectls_words() {
        let checked = |pairs: &[&str]| ImageUpdates::parse(pairs).and_then(|updates| updates.check());
        assert_eq!(checked(&[]).unwrap_err().to_string(), "at least one image update is required");
        assert_eq!(checked(&["app-"]).unwrap_err().to_string(), "invalid image format: app-");
        assert_eq!(checked(&["*=a", "b=c"]).unwrap_err(), Error::WildcardAndNames);
        assert_eq!(checked(&["*=a", "*=c"]), Ok(()));
    }
}
