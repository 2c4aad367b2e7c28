//! The flags of the verbs that open a session with a pod's container (`exec`, `attach`, `run`,
//! `port-forward`, `cp`): which container, how long to wait for the pod, and the session's
//! streams.

use std::time::Duration;

use clap::Args;

/// `-c`: the container.
#[derive(Debug, Clone, Default, Args)]
pub struct ContainerArg {
    /// Container name; without it, the pod's default container (or its first).
    #[arg(short = 'c', long, value_name = "NAME")]
    pub container: Option<String>,
}

/// `--pod-running-timeout`, kubectl's one minute by default.
#[derive(Debug, Clone, Copy, Args)]
pub struct PodRunningTimeoutArg {
    /// How long to wait for a pod of a workload to appear, or to run (e.g. 5s, 2m).
    #[arg(long, value_name = "DURATION", default_value = "1m0s", value_parser = super::super::pflag::duration,
          allow_hyphen_values = true)]
    pub pod_running_timeout: Duration,
}

/// `-i`, `-t` and `-q`: the streams of a session with the container.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct StreamArgs {
    /// Pass stdin to the container.
    #[arg(short = 'i', long)]
    pub stdin: bool,
    /// Stdin is a terminal.
    #[arg(short = 't', long)]
    pub tty: bool,
    /// Print nothing but what the container prints.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}
