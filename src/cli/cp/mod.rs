//! `kubeupd cp`: copy files and directories to and from containers, as kubectl does: a tar
//! stream over exec (`tar cf - SRC` in the container, unpacked here; or packed here and
//! `tar -xmf - -C DIR` in the container), kubectl's messages included (the container's `tar`
//! messages of a copy from it are printed on stdout, as kubectl prints them).

use std::time::Duration;

use clap::Args;
use tokio::sync::mpsc;

use super::exec::{Wanted, choose_container, finish, stderr, stdout, subresource_path};
use super::{Error, GlobalArgs, Result};
use crate::client::{Cluster, Output, Session};
use crate::remote::channel::Outcome;
use crate::remote::copy::{self, FileSpec};
use crate::remote::tarball;

/// Options of `kubeupd cp`.
#[derive(Debug, Args)]
pub struct CpArgs {
    /// The source and the destination: a local path, or `[[NAMESPACE/]POD:]PATH`.
    #[arg(value_name = "FILE-SPEC")]
    pub specs: Vec<String>,
    /// Container name; without it, the pod's default container (or its first).
    #[arg(short = 'c', long, value_name = "NAME")]
    pub container: Option<String>,
    /// Do not keep the ownership and permissions of the copied files in the container.
    #[arg(long)]
    pub no_preserve: bool,
    /// Retries of a copy from a container that broke off (negative: without end; 0: none).
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub retries: i64,
}

/// The checked options.
struct Options {
    src: FileSpec,
    dest: FileSpec,
    container: Option<String>,
    no_preserve: bool,
    retries: i64,
}

/// kubectl's checks of the arguments, in its order (those of its `Run` that come before its first
/// request included: the specifications, then a local source that must exist); nothing is sent
/// before they pass.
fn options(args: &CpArgs) -> Result<Options> {
    let [src, dest] = args.specs.as_slice() else {
        return Err(Error::msg("source and destination are required"));
    };
    let src = copy::parse_spec(src).map_err(Error::msg)?;
    let dest = copy::parse_spec(dest).map_err(Error::msg)?;
    if src.pod.is_some() && dest.pod.is_some() {
        return Err(Error::msg("one of src or dest must be a local file specification"));
    }
    if src.file.is_empty() || dest.file.is_empty() {
        return Err(Error::msg("filepath can not be empty"));
    }
    if src.pod.is_none() && dest.pod.is_none() {
        return Err(Error::msg("one of src or dest must be a remote file specification"));
    }
    if src.pod.is_none() && std::fs::metadata(&src.file).is_err() {
        return Err(Error::msg(format!("{} doesn't exist in local filesystem", src.file)));
    }
    Ok(Options { src, dest, container: args.container.clone(), no_preserve: args.no_preserve, retries: args.retries })
}

/// Runs `kubeupd cp`: the copy from the pod or to it.
pub async fn run(args: CpArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let namespace = global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
    match options.src.pod.is_some() {
        true => from_pod(&cluster, &namespace, &options).await,
        false => to_pod(&cluster, &namespace, &options).await,
    }
}

/// The pod of `spec`, read, and the container to use (`named` by `-c`, or the pod's default);
/// the note about a default container goes to `note`.
async fn pod_and_container(
    cluster: &Cluster,
    namespace: &str,
    spec: &FileSpec,
    named: Option<&str>,
    note: &mut dyn FnMut(&str),
) -> Result<(serde_json::Value, String)> {
    let namespace = spec.namespace.as_deref().unwrap_or(namespace);
    let pods = cluster.resolve("pods").await?;
    let pod = cluster.get(&pods, Some(namespace), spec.pod.as_deref().unwrap_or_default()).await?;
    let phase = pod["status"]["phase"].as_str().unwrap_or_default();
    if phase == "Succeeded" || phase == "Failed" {
        return Err(Error::msg(format!("cannot exec into a container in a completed pod; current phase is {phase}")));
    }
    let container = choose_container(&pod, named, false, note)?;
    Ok((pod, container))
}

async fn exec(cluster: &Cluster, path: &str, session: Session) -> Result<Outcome> {
    Ok(cluster.open_channels(path).await?.run(session).await?)
}

fn discard() -> Output {
    Box::new(|_| Ok(()))
}

/// kubectl's `copyToPod`: `dest` names a directory in the pod (then the source keeps its name
/// inside it) or the path to write.
async fn to_pod(cluster: &Cluster, namespace: &str, options: &Options) -> Result {
    let (src, dest, named) = (&options.src, &options.dest, options.container.as_deref());
    // Whether the destination is a directory: `test -d`, everything it prints discarded.
    let (pod, container) = pod_and_container(cluster, namespace, dest, named, &mut |_| {}).await?;
    let test = ["test".to_string(), "-d".to_string(), dest.file.clone()];
    let path = subresource_path(
        &pod,
        "exec",
        &container,
        &test,
        Wanted { stdin: false, stdout: true, stderr: true, tty: false },
    );
    let session = Session { stdin: None, stdout: discard(), stderr: Some(discard()), resize: None };
    let mut dest_file = dest.file.clone();
    match tokio::time::timeout(Duration::from_secs(30), exec(cluster, &path, session)).await {
        Err(_) => return Err(Error::msg("context deadline exceeded")),
        Ok(Ok(Outcome::Success)) => dest_file = copy::join(&dest_file, &copy::base(&copy::clean(&src.file))),
        Ok(_) => {}
    }
    let (pod, container) = pod_and_container(cluster, namespace, dest, named, &mut |note| eprintln!("{note}")).await?;
    let (sender, receiver) = mpsc::channel(4);
    let source = src.file.clone();
    let target = dest_file.clone();
    std::thread::spawn(move || {
        let writer = ChunkWriter(sender);
        if let Err(err) = tarball::write_tar(&source, &target, writer) {
            eprintln!("error: {err}");
        }
    });
    let command = copy::tar_into_pod(&copy::dir(&dest_file), options.no_preserve);
    let path = subresource_path(
        &pod,
        "exec",
        &container,
        &command,
        Wanted { stdin: true, stdout: true, stderr: true, tty: false },
    );
    let session = Session { stdin: Some(receiver), stdout: stdout(), stderr: Some(stderr()), resize: None };
    finish(exec(cluster, &path, session).await?)
}

/// A writer sending its bytes as chunks to the session's stdin.
struct ChunkWriter(mpsc::Sender<Vec<u8>>);

impl std::io::Write for ChunkWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.blocking_send(buf.to_vec()).map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// kubectl's `copyFromPod`: the container's `tar cf - SRC`, unpacked into `dest` without the
/// source's leading path. The container's stderr (and kubectl's note) go to stdout, as kubectl
/// writes them.
async fn from_pod(cluster: &Cluster, namespace: &str, options: &Options) -> Result {
    let (src, dest, named) = (&options.src, &options.dest, options.container.as_deref());
    let print = |text: &str| {
        let _ = stdout()(format!("{text}\n").as_bytes());
    };
    let (pod, container) = pod_and_container(cluster, namespace, src, named, &mut |note| print(note)).await?;
    let prefix = copy::strip_path_shortcuts(&copy::clean(copy::strip_leading_slash(&src.file)));
    // As kubectl words it: the namespace and pod as the specification gives them.
    let hint = format!(
        "(consider using \"kubeupd exec -n {:?} {:?} -- tar cf - {:?} | tar xf -\")",
        src.namespace.as_deref().unwrap_or_default(),
        src.pod.as_deref().unwrap_or_default(),
        src.file
    );
    let (chunks, received) = std::sync::mpsc::sync_channel::<Vec<u8>>(8);
    let dest_file = dest.file.clone();
    let unpacking = std::thread::spawn(move || {
        tarball::unpack(tarball::ChunkReader::new(received), &prefix, &dest_file, Some(&hint), &mut |line| {
            eprintln!("{line}")
        })
    });
    let command = copy::tar_from_pod(&src.file, options.retries, 0);
    let path = subresource_path(
        &pod,
        "exec",
        &container,
        &command,
        Wanted { stdin: false, stdout: true, stderr: true, tty: false },
    );
    let tar_stream: Output = Box::new(move |bytes| {
        chunks.send(bytes.to_vec()).map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    });
    let session = Session { stdin: None, stdout: tar_stream, stderr: Some(stdout()), resize: None };
    let outcome = exec(cluster, &path, session).await?;
    if outcome != Outcome::Success {
        return finish(outcome);
    }
    match unpacking.join() {
        Ok(Ok(())) => Ok(()),
        Ok(Err(err)) => Err(Error::msg(err)),
        Err(_) => Err(Error::msg("unpacking the copy failed")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "cp"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Cp(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = parse(&["shop/web:/etc/hosts/", "hosts", "-c", "app", "--retries=-1"]).unwrap();
        let remote = |namespace: Option<&str>, pod: &str, file: &str| FileSpec {
            namespace: namespace.map(String::from),
            pod: Some(pod.into()),
            file: file.into(),
        };
        assert_eq!(options.src, remote(Some("shop"), "web", "/etc/hosts"));
        assert_eq!(options.dest, FileSpec { namespace: None, pod: None, file: "hosts".into() });
        assert_eq!((options.container.as_deref(), options.retries, options.no_preserve), (Some("app"), -1, false));
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().to_str().unwrap();
        let options = parse(&[source, "web:/tmp", "--no-preserve"]).unwrap();
        assert_eq!((options.dest, options.no_preserve), (remote(None, "web", "/tmp"), true));
        for (line, expected) in [
            (&["web:/tmp"][..], "error: source and destination are required".to_string()),
            (&["a", "b", "c"], "error: source and destination are required".into()),
            (&[":/tmp", "x"], format!("error: {}", copy::BAD_SPEC)),
            (&[source, "shop/:x"], "error: one of src or dest must be a remote file specification".into()),
            (&["x", "a/b/c:/tmp"], format!("error: {}", copy::BAD_SPEC)),
            (&["a:/x", "b:/y"], "error: one of src or dest must be a local file specification".into()),
            (&["web:", "/tmp"], "error: filepath can not be empty".into()),
            (&["x", "y"], "error: one of src or dest must be a remote file specification".into()),
            (&["/no/such/file", "web:/tmp"], "error: /no/such/file doesn't exist in local filesystem".into()),
        ] {
            let said = parse(line).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert_eq!(said, expected, "{line:?}");
        }
    }
}
