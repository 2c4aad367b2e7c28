//! `kubeupd proxy`: an HTTP server on a local port (or a Unix socket) that forwards every request
//! to the API server with the kubeconfig's credentials, as kubectl 1.37's proxy does: the API
//! under `--api-prefix`, kubectl's filter of hosts, paths and methods (exec and attach refused by
//! default), `Starting to serve on ADDRESS` once it listens.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use clap::Args;
use http::{HeaderMap, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full, combinators::UnsyncBoxBody};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use regex::Regex;

use super::{Error, GlobalArgs, Result};
use crate::client::Cluster;

/// kubectl's default port, which `--unix-socket` cannot be given with another of.
const DEFAULT_PORT: i64 = 8001;

/// Options of `kubeupd proxy`.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// The port to serve on; 0 picks a free one.
    #[arg(short = 'p', long, value_name = "PORT", default_value_t = DEFAULT_PORT, allow_negative_numbers = true, value_parser = super::pflag::int)]
    pub port: i64,
    /// The IP address to serve on.
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1")]
    pub address: String,
    /// Serve the API under this path prefix.
    #[arg(long, value_name = "PREFIX", default_value = "/")]
    pub api_prefix: String,
    /// Regular expressions (comma-separated) of the paths the proxy accepts.
    #[arg(long, value_name = "REGEXPS", default_value = "^.*")]
    pub accept_paths: String,
    /// Regular expressions of the paths the proxy refuses, even if accepted.
    #[arg(long, value_name = "REGEXPS", default_value = r"^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach")]
    pub reject_paths: String,
    /// Regular expressions of the hosts (of the Host header) the proxy accepts.
    #[arg(long, value_name = "REGEXPS", default_value = r"^localhost$,^127\.0\.0\.1$,^\[::1\]$")]
    pub accept_hosts: String,
    /// Regular expressions of the HTTP methods the proxy refuses.
    #[arg(long, value_name = "REGEXPS", default_value = "^$")]
    pub reject_methods: String,
    /// Forward every request, without the filter (dangerous on a reachable port).
    #[arg(long)]
    pub disable_filter: bool,
    /// Serve on this Unix socket instead of a port.
    #[arg(short = 'u', long, value_name = "PATH")]
    pub unix_socket: Option<std::path::PathBuf>,
    /// Refused: kubeupd's proxy does not serve static files.
    #[arg(short = 'w', long, value_name = "DIR")]
    pub www: Option<String>,
    /// The prefix of --www's files (unused: --www is refused).
    #[arg(short = 'P', long, value_name = "PREFIX", default_value = "/static/")]
    pub www_prefix: String,
    /// Accepted for kubectl's scripts: the connections to the server are kept alive as kubeupd's client does.
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = super::pflag::duration)]
    pub keepalive: std::time::Duration,
    /// Refused: the server URL's path is always put before each request's.
    #[arg(long)]
    pub append_server_path: bool,
}

/// kubectl's filter: the paths, hosts and methods a request must (not) match.
#[derive(Debug)]
struct Filter {
    accept_paths: Vec<Regex>,
    reject_paths: Vec<Regex>,
    accept_hosts: Vec<Regex>,
    reject_methods: Vec<Regex>,
}

/// Comma-separated regular expressions, as kubectl's `MakeRegexpArray` reads them.
fn regexps(text: &str) -> Result<Vec<Regex>> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|part| Regex::new(part).map_err(|err| Error::msg(format!("Error compiling re: {err}"))))
        .collect()
}

impl Filter {
    fn accepts(&self, method: &str, path: &str, host: &str) -> bool {
        let matches = |text: &str, regexps: &[Regex]| regexps.iter().any(|regexp| regexp.is_match(text));
        !matches(path, &self.reject_paths)
            && !matches(method, &self.reject_methods)
            && matches(path, &self.accept_paths)
            && matches(host, &self.accept_hosts)
    }
}

/// The host of a `Host` header without its port (`[::1]:8001` → `[::1]`... as Go's
/// `net.SplitHostPort` does: `::1`), or the header as it is when it has no port.
fn host_of(header: &str) -> &str {
    if let Some(rest) = header.strip_prefix('[')
        && let Some((host, port)) = rest.split_once(']')
        && port.starts_with(':')
    {
        return host;
    }
    match header.rsplit_once(':') {
        Some((host, _)) if !host.contains(':') => host,
        _ => header,
    }
}

/// What the server does with each request.
struct Proxy {
    cluster: Cluster,
    /// `--api-prefix`, ending with `/`.
    prefix: String,
    filter: Option<Filter>,
}

type Body = UnsyncBoxBody<Bytes, Box<dyn std::error::Error + Send + Sync>>;

/// Go's `http.Error`: the text and a newline, as plain text.
fn text_answer(status: StatusCode, text: &str) -> Response<Body> {
    let body = Full::new(Bytes::from(format!("{text}\n"))).map_err(|never| match never {}).boxed_unsync();
    let mut answer = Response::new(body);
    *answer.status_mut() = status;
    let headers = answer.headers_mut();
    headers.insert(header::CONTENT_TYPE, header::HeaderValue::from_static("text/plain; charset=utf-8"));
    headers.insert("x-content-type-options", header::HeaderValue::from_static("nosniff"));
    answer
}

/// Headers that belong to one connection, not to the request or answer forwarded.
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

fn forwarded_headers(from: &HeaderMap, to: &mut HeaderMap) {
    for (name, value) in from {
        if !HOP_BY_HOP.contains(&name.as_str()) && name != header::HOST {
            to.append(name.clone(), value.clone());
        }
    }
}

impl Proxy {
    async fn answer(&self, request: Request<Incoming>) -> Response<Body> {
        let path = request.uri().path().to_string();
        // kubectl's mux serves the API under the prefix only.
        if !path.starts_with(&self.prefix) {
            return text_answer(StatusCode::NOT_FOUND, "404 page not found");
        }
        let mut forwarded_path = path.clone();
        if !self.prefix.starts_with("/api") {
            let rest = &path[self.prefix.len()..];
            forwarded_path =
                if rest.is_empty() || rest.starts_with('/') { rest.to_string() } else { format!("/{rest}") };
        }
        if let Some(filter) = &self.filter {
            let host = request.headers().get(header::HOST).and_then(|host| host.to_str().ok()).unwrap_or_default();
            if !filter.accepts(request.method().as_str(), &forwarded_path, host_of(host)) {
                return text_answer(StatusCode::FORBIDDEN, "Forbidden");
            }
        }
        let target = match request.uri().query() {
            Some(query) => format!("{}?{query}", if forwarded_path.is_empty() { "/" } else { &forwarded_path }),
            None if forwarded_path.is_empty() => "/".to_string(),
            None => forwarded_path,
        };
        let (parts, body) = request.into_parts();
        let body = match body.collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(err) => return text_answer(StatusCode::BAD_GATEWAY, &err.to_string()),
        };
        let mut outgoing = Request::builder().method(parts.method).uri(&target);
        if let Some(headers) = outgoing.headers_mut() {
            forwarded_headers(&parts.headers, headers);
        }
        let outgoing = match outgoing.body(kube::client::Body::from(body.to_vec())) {
            Ok(outgoing) => outgoing,
            Err(err) => return text_answer(StatusCode::BAD_REQUEST, &err.to_string()),
        };
        match self.cluster.forward(outgoing).await {
            Ok(answer) => {
                let (parts, body) = answer.into_parts();
                let mut response = Response::new(body.map_err(|err| Box::new(err) as _).boxed_unsync());
                *response.status_mut() = parts.status;
                forwarded_headers(&parts.headers, response.headers_mut());
                response
            }
            Err(err) => {
                let text = err.line();
                eprintln!("Error while proxying request: {}", text.trim_start_matches("error: "));
                text_answer(StatusCode::INTERNAL_SERVER_ERROR, text.trim_start_matches("error: "))
            }
        }
    }
}

/// Go's words for a listener that cannot be made: `listen tcp 127.0.0.1:8001: bind: address already in use`.
fn listen_error(network: &str, address: &str, err: &std::io::Error) -> Error {
    let reason = match err.kind() {
        std::io::ErrorKind::AddrInUse => "bind: address already in use".to_string(),
        std::io::ErrorKind::PermissionDenied => "bind: permission denied".to_string(),
        std::io::ErrorKind::AddrNotAvailable => "bind: cannot assign requested address".to_string(),
        _ => err.to_string(),
    };
    Error::msg(format!("listen {network} {address}: {reason}"))
}

/// Where the proxy listens.
#[derive(Debug, PartialEq)]
enum Listen {
    /// `--unix-socket`.
    Unix(std::path::PathBuf),
    /// `--address` and `--port`, as `HOST:PORT` (`[HOST]:PORT` for IPv6).
    Tcp(String),
}

/// The checked options.
struct Options {
    /// `--api-prefix`, ending with `/`.
    prefix: String,
    filter: Option<Filter>,
    listen: Listen,
}

/// kubeupd's refusals of what it does not serve, then kubectl's checks (`Complete`, then
/// `Validate`); `warnings` gets kubectl's warnings of a filter relaxed or off, which it prints
/// even when a later check fails. Nothing is sent before they pass.
fn options(args: &ProxyArgs, warnings: &mut Vec<String>) -> Result<Options> {
    let mut prefix = args.api_prefix.clone();
    if !prefix.ends_with('/') {
        prefix.push('/');
    }
    let filter = match args.disable_filter {
        true => {
            if args.unix_socket.is_none() {
                warnings.push(
                    "Warning: Request filter disabled, your proxy is vulnerable to XSRF attacks, please be cautious"
                        .into(),
                );
            }
            None
        }
        false => {
            if args.reject_paths.is_empty() || args.reject_methods.is_empty() {
                warnings.push(
                    "Warning: Request filter has been relaxed, your proxy may be vulnerable to attacks, please be cautious"
                        .into(),
                );
            }
            Some(Filter {
                accept_paths: regexps(&args.accept_paths)?,
                reject_paths: regexps(&args.reject_paths)?,
                accept_hosts: regexps(&args.accept_hosts)?,
                reject_methods: regexps(&args.reject_methods)?,
            })
        }
    };
    if args.port != DEFAULT_PORT && args.unix_socket.is_some() {
        return Err(Error::msg("cannot set --unix-socket and --port at the same time"));
    }
    let listen = match &args.unix_socket {
        Some(path) => Listen::Unix(path.clone()),
        None if args.address.contains(':') => Listen::Tcp(format!("[{}]:{}", args.address, args.port)),
        None => Listen::Tcp(format!("{}:{}", args.address, args.port)),
    };
    Ok(Options { prefix, filter, listen })
}

/// Runs `kubeupd proxy` until it is interrupted.
/// The flags kubeupd does not build, refused before anything else (the configuration included):
/// what kubeupd cannot do is said whatever else is wrong.
fn refuse_unbuilt(args: &ProxyArgs) -> Result {
    if args.www.as_deref().is_some_and(|dir| !dir.is_empty()) {
        return Err(Error::msg("--www is not supported: kubeupd's proxy serves the API only, not static files"));
    }
    if args.append_server_path {
        return Err(Error::msg(
            "--append-server-path is not supported: kubeupd always puts the server URL's path before each request's",
        ));
    }
    Ok(())
}

pub async fn run(args: ProxyArgs, global: &GlobalArgs) -> Result {
    refuse_unbuilt(&args)?;
    let mut warnings = Vec::new();
    let checked = options(&args, &mut warnings);
    // kubectl reads its configuration before it warns or checks the port: a configuration that
    // cannot be read is the only error it reports.
    let cluster = global.connect().await?;
    for warning in warnings {
        eprintln!("{warning}");
    }
    let Options { prefix, filter, listen } = checked?;
    let proxy = Arc::new(Proxy { cluster, prefix, filter });
    match listen {
        Listen::Unix(path) => {
            use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
            if std::fs::metadata(&path).is_ok_and(|meta| meta.file_type().is_socket()) {
                let _ = std::fs::remove_file(&path);
            }
            let listener = tokio::net::UnixListener::bind(&path)
                .map_err(|err| listen_error("unix", &path.display().to_string(), &err))?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                .map_err(|err| Error::Other(err.into()))?;
            super::write_stdout(&format!("Starting to serve on {}\n", path.display()))?;
            loop {
                let (stream, _) = listener.accept().await.map_err(|err| Error::Other(err.into()))?;
                serve(TokioIo::new(stream), proxy.clone());
            }
        }
        Listen::Tcp(address) => {
            let listener =
                tokio::net::TcpListener::bind(&address).await.map_err(|err| listen_error("tcp", &address, &err))?;
            let bound = listener.local_addr().map_err(|err| Error::Other(err.into()))?;
            super::write_stdout(&format!("Starting to serve on {bound}\n"))?;
            let _ = std::io::Write::flush(&mut std::io::stdout());
            loop {
                let (stream, _) = listener.accept().await.map_err(|err| Error::Other(err.into()))?;
                let _ = stream.set_nodelay(true);
                serve(TokioIo::new(stream), proxy.clone());
            }
        }
    }
}

/// Serves one connection's requests in a task of its own.
fn serve<I>(io: TokioIo<I>, proxy: Arc<Proxy>)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let service = hyper::service::service_fn(move |request| {
            let proxy = proxy.clone();
            async move { Ok::<_, Infallible>(proxy.answer(request).await) }
        });
        if let Err(err) =
            hyper::server::conn::http1::Builder::new().title_case_headers(true).serve_connection(io, service).await
        {
            tracing::debug!("proxy connection: {err}");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectls_default_filter_refuses_exec_and_other_hosts() {
        let filter = Filter {
            accept_paths: regexps("^.*").unwrap(),
            reject_paths: regexps(r"^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach").unwrap(),
            accept_hosts: regexps(r"^localhost$,^127\.0\.0\.1$,^\[::1\]$").unwrap(),
            reject_methods: regexps("^$").unwrap(),
        };
        assert!(filter.accepts("GET", "/api/v1/namespaces", "127.0.0.1"));
        assert!(filter.accepts("POST", "/api/v1/namespaces/a/pods", "localhost"));
        assert!(!filter.accepts("POST", "/api/v1/namespaces/a/pods/p/exec", "localhost"));
        assert!(!filter.accepts("GET", "/api/v1/namespaces/a/pods/p/attach", "localhost"));
        assert!(!filter.accepts("GET", "/api", "evil.example.com"));
        assert_eq!(host_of("127.0.0.1:8001"), "127.0.0.1");
        assert_eq!(host_of("[::1]:8001"), "::1");
        assert_eq!(host_of("localhost"), "localhost");
    }

    fn parse(line: &[&str]) -> (Result<Options>, Vec<String>) {
        let cli = crate::cli::parse(["kubeupd", "proxy"].iter().chain(line)).unwrap();
        let mut warnings = Vec::new();
        match cli.command {
            crate::cli::Command::Proxy(args) => (options(&args, &mut warnings), warnings),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let (options, warnings) = parse(&["--api-prefix=/k8s", "--address=::1", "-p", "0"]);
        let options = options.unwrap();
        assert_eq!((options.prefix.as_str(), options.listen), ("/k8s/", Listen::Tcp("[::1]:0".into())));
        let filter = options.filter.unwrap();
        assert!(filter.accepts("GET", "/api", "localhost") && !filter.accepts("GET", "/api", "example.com"));
        assert!(warnings.is_empty());
        let (options, warnings) = parse(&["--disable-filter", "-u", "/tmp/proxy.sock"]);
        let options = options.unwrap();
        assert!(options.filter.is_none() && warnings.is_empty());
        assert_eq!(options.listen, Listen::Unix("/tmp/proxy.sock".into()));
        let (options, warnings) = parse(&["--disable-filter"]);
        assert_eq!(options.unwrap().listen, Listen::Tcp("127.0.0.1:8001".into()));
        assert_eq!(
            warnings,
            ["Warning: Request filter disabled, your proxy is vulnerable to XSRF attacks, please be cautious"]
        );
        // The warning is kubectl's even when a later check fails.
        let (options, warnings) = parse(&["--reject-methods=", "-u", "/tmp/proxy.sock", "-p", "9000"]);
        let said = options.err().expect("--unix-socket with --port is accepted").line();
        assert_eq!(said, "error: cannot set --unix-socket and --port at the same time");
        assert_eq!(
            warnings,
            ["Warning: Request filter has been relaxed, your proxy may be vulnerable to attacks, please be cautious"]
        );
        for (line, expected) in [
            (
                &["--www=/srv"][..],
                "error: --www is not supported: kubeupd's proxy serves the API only, not static files",
            ),
            (
                &["--append-server-path"],
                "error: --append-server-path is not supported: kubeupd always puts the server URL's path before each request's",
            ),
        ] {
            let cli = crate::cli::parse(["kubeupd", "proxy"].iter().chain(line)).unwrap();
            let crate::cli::Command::Proxy(args) = cli.command else { unreachable!() };
            let said = refuse_unbuilt(&args).err().unwrap_or_else(|| panic!("{line:?} is accepted")).line();
            assert_eq!(said, expected, "{line:?}");
        }
        let said = parse(&["--accept-paths=("]).0.err().expect("a bad expression is accepted").line();
        assert!(said.starts_with("error: Error compiling re: "), "{said}");
    }
}
