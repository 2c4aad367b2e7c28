//! `create deployment`, `create job` (of an image, or of a CronJob's template) and `create
//! cronjob`.

use serde_json::{Map, Value, json};

use super::{Error, strings};

/// `create deployment NAME --image=IMAGE... [--port] [--replicas] [-- COMMAND ARGS...]`.
#[derive(Debug, Clone, Default)]
pub struct DeploymentOptions {
    pub name: String,
    /// One container per image, in order.
    pub images: Vec<String>,
    /// The first container's port; kubectl leaves ports out for a negative `--port`.
    pub port: Option<i32>,
    pub replicas: i32,
    /// The containers' command (words after `--`).
    pub command: Vec<String>,
}

/// The Deployment kubectl generates: labels and selector `app: NAME`, a container per image named
/// after the image, and `random_suffix` where kubectl makes a name unique (see [`container_name`]).
pub fn deployment(options: &DeploymentOptions, random_suffix: &mut dyn FnMut() -> String) -> Result<Value, Error> {
    if options.images.len() > 1 && !options.command.is_empty() {
        return Err(Error::ImagesWithCommand);
    }
    let labels = json!({"app": options.name});
    let mut containers: Vec<Value> = options
        .images
        .iter()
        .map(|image| container(&container_name(image, random_suffix), image, &options.command))
        .collect();
    if let (Some(port), Some(first)) = (options.port, containers.first_mut()) {
        first["ports"] = json!([{"containerPort": port}]);
    }
    Ok(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": options.name, "labels": labels},
        "spec": {
            "replicas": options.replicas,
            "selector": {"matchLabels": labels},
            "strategy": {},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": containers}},
        },
        "status": {},
    }))
}

/// A container's name made of its image as kubectl makes it: the last path segment without tag
/// or digest; a name with `_` or `.` gets them as `-` and, as in kubectl, a random suffix
/// (`busybox` stays `busybox`, `my_app.v2:1` becomes `my-app-v2-x7k2q`). Two images of the same
/// name give two containers of the same name, which the server refuses, as it does kubectl's.
pub fn container_name(image: &str, random_suffix: &mut dyn FnMut() -> String) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    let name = last.split(':').next().unwrap_or(last);
    let name = name.split('@').next().unwrap_or(name);
    if name.contains(['_', '.']) {
        format!("{}-{}", name.replace(['_', '.'], "-"), random_suffix())
    } else {
        name.to_string()
    }
}

/// Five characters of the alphabet Kubernetes draws random names from (no vowels, no
/// look-alikes), as `k8s.io/apimachinery/pkg/util/rand.String(5)` gives them.
pub fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    (0..5).map(|_| char::from(ALPHABET[fastrand::usize(..ALPHABET.len())])).collect()
}

fn container(name: &str, image: &str, command: &[String]) -> Value {
    let mut container = json!({"name": name, "image": image, "resources": {}});
    if !command.is_empty() {
        container["command"] = strings(command);
    }
    container
}

/// `create job NAME --image=IMAGE [-- COMMAND ARGS...]` or `create job NAME --from=cronjob/NAME`.
#[derive(Debug, Clone, Default)]
pub struct JobOptions {
    pub name: String,
    pub image: String,
    /// `--from`, e.g. `cronjob/nightly`.
    pub from: String,
    pub command: Vec<String>,
}

/// kubectl's checks of `create job`'s options, before anything is read from the server.
pub fn check_job(options: &JobOptions) -> Result<(), Error> {
    if options.image.is_empty() == options.from.is_empty() {
        return Err(Error::ImageOrFrom);
    }
    if !options.command.is_empty() && !options.from.is_empty() {
        return Err(Error::FromWithCommand);
    }
    Ok(())
}

/// The Job of an image: one container named after the Job, never restarted.
pub fn job(options: &JobOptions) -> Value {
    json!({
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": options.name},
        "spec": {"template": pod_template(&options.name, &options.image, &options.command, "Never")},
        "status": {},
    })
}

/// The Job `name` started by hand from `cron_job` (as the server returned it): its job template's
/// spec and labels, its annotations with `cronjob.kubernetes.io/instantiate: manual`, and the
/// CronJob as controlling owner.
pub fn job_from_cron_job(name: &str, cron_job: &Value) -> Value {
    let template = &cron_job["spec"]["jobTemplate"];
    let mut annotations = Map::new();
    annotations.insert("cronjob.kubernetes.io/instantiate".into(), "manual".into());
    if let Some(own) = template["metadata"]["annotations"].as_object() {
        annotations.extend(own.clone());
    }
    let owner = json!({
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "name": cron_job["metadata"]["name"],
        "uid": cron_job["metadata"]["uid"],
        "controller": true,
    });
    let mut metadata = json!({"name": name, "annotations": annotations, "ownerReferences": [owner]});
    if let Some(labels) = template["metadata"]["labels"].as_object().filter(|labels| !labels.is_empty()) {
        metadata["labels"] = Value::Object(labels.clone());
    }
    let spec = template.get("spec").cloned().unwrap_or_else(|| json!({"template": {"metadata": {}, "spec": {}}}));
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec, "status": {}})
}

/// `create cronjob NAME --image=IMAGE --schedule=CRON [--restart] [-- COMMAND ARGS...]`.
#[derive(Debug, Clone, Default)]
pub struct CronJobOptions {
    pub name: String,
    pub image: String,
    pub schedule: String,
    /// The pods' restart policy; kubectl's default is `OnFailure`.
    pub restart: String,
    pub command: Vec<String>,
}

/// The CronJob kubectl generates: its job template named after it, one container likewise.
pub fn cron_job(options: &CronJobOptions) -> Value {
    let restart = if options.restart.is_empty() { "OnFailure" } else { options.restart.as_str() };
    json!({
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": options.name},
        "spec": {
            "schedule": options.schedule,
            "jobTemplate": {
                "metadata": {"name": options.name},
                "spec": {"template": pod_template(&options.name, &options.image, &options.command, restart)},
            },
        },
        "status": {},
    })
}

fn pod_template(name: &str, image: &str, command: &[String], restart: &str) -> Value {
    json!({"metadata": {}, "spec": {"containers": [container(name, image, command)], "restartPolicy": restart}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed() -> String {
        "abcde".into()
    }

    #[test]
    fn container_names_come_from_the_image() {
        let name = |image: &str| container_name(image, &mut fixed);
        assert_eq!(name("nginx"), "nginx");
        assert_eq!(name("registry.k8s.io/pause:3.9"), "pause");
        assert_eq!(name("quay.io/org/app@sha256:0123"), "app");
        assert_eq!(name("localhost:5000/web:1"), "web");
        assert_eq!(name("my_app.v2:1"), "my-app-v2-abcde");
    }

    #[test]
    fn random_suffixes_use_the_kubernetes_alphabet() {
        let suffix = random_suffix();
        assert_eq!(suffix.len(), 5);
        assert!(suffix.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)), "{suffix}");
    }

    #[test]
    fn a_deployment_has_app_labels_and_the_port_on_its_first_container() {
        let options = DeploymentOptions {
            name: "web".into(),
            images: vec!["nginx".into(), "redis:7".into()],
            port: Some(80),
            replicas: 2,
            command: vec![],
        };
        let deployment = deployment(&options, &mut fixed).unwrap();
        assert_eq!(deployment["metadata"]["labels"], json!({"app": "web"}));
        assert_eq!(deployment["spec"]["selector"]["matchLabels"], json!({"app": "web"}));
        let containers = &deployment["spec"]["template"]["spec"]["containers"];
        assert_eq!(containers[0]["ports"], json!([{"containerPort": 80}]));
        assert_eq!(containers[1]["name"], "redis");
        assert!(containers[1].get("ports").is_none());
    }

    #[test]
    fn several_images_take_no_command() {
        let options = DeploymentOptions {
            name: "web".into(),
            images: vec!["a".into(), "b".into()],
            command: vec!["sleep".into()],
            ..Default::default()
        };
        assert_eq!(deployment(&options, &mut fixed), Err(Error::ImagesWithCommand));
    }

    #[test]
    fn a_job_needs_an_image_or_a_cron_job_but_not_both() {
        let job = |image: &str, from: &str, command: &[&str]| JobOptions {
            name: "j".into(),
            image: image.into(),
            from: from.into(),
            command: command.iter().map(|word| word.to_string()).collect(),
        };
        assert_eq!(check_job(&job("", "", &[])), Err(Error::ImageOrFrom));
        assert_eq!(check_job(&job("busybox", "cronjob/c", &[])), Err(Error::ImageOrFrom));
        assert_eq!(check_job(&job("", "cronjob/c", &["date"])), Err(Error::FromWithCommand));
        assert_eq!(check_job(&job("busybox", "", &["date"])), Ok(()));
    }

    #[test]
    fn a_job_from_a_cron_job_is_owned_by_it_and_marked_manual() {
        let cron_job = json!({
            "metadata": {"name": "nightly", "uid": "u-1"},
            "spec": {"jobTemplate": {
                "metadata": {"labels": {"team": "a"}, "annotations": {"note": "x"}},
                "spec": {"backoffLimit": 2, "template": {"metadata": {}, "spec": {"containers": []}}},
            }},
        });
        let job = job_from_cron_job("manual-1", &cron_job);
        assert_eq!(job["metadata"]["annotations"], json!({"cronjob.kubernetes.io/instantiate": "manual", "note": "x"}));
        assert_eq!(job["metadata"]["labels"], json!({"team": "a"}));
        assert_eq!(job["metadata"]["ownerReferences"][0]["uid"], "u-1");
        assert_eq!(job["metadata"]["ownerReferences"][0]["controller"], true);
        assert_eq!(job["spec"]["backoffLimit"], 2);
    }

    #[test]
    fn a_cron_job_restarts_on_failure_unless_told() {
        let options = CronJobOptions {
            name: "c".into(),
            image: "busybox".into(),
            schedule: "* * * * *".into(),
            ..Default::default()
        };
        let restart = |value: &Value| value["spec"]["jobTemplate"]["spec"]["template"]["spec"]["restartPolicy"].clone();
        assert_eq!(restart(&cron_job(&options)), "OnFailure");
        let never = CronJobOptions { restart: "Never".into(), ..options };
        assert_eq!(restart(&cron_job(&never)), "Never");
    }
}
