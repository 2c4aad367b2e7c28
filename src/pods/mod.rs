//! Pods as kubectl picks them for `logs`, `exec`, `attach`, `cp` and `port-forward`: the label
//! selector of a workload (a Deployment's, a Service's, ...), the pods it selects in kubectl's
//! orders of preference, the container of a pod a command means (the default-container
//! annotation, else the first), and a log's lines with their source before each. Pure: the caller reads the objects and prints the notices.

mod containers;
mod lines;
mod order;
mod selector;

pub use containers::{
    ChoiceError, Container, ContainerError, all_container_names, all_containers, command_container, log_container,
};
pub use lines::{LineSplitter, log_prefix};
pub use order::{most_active, sort_for_logging};
pub use selector::{SelectorError, pod_selector};
