//! Sending one request: timeout, kubectl-style request logging, and turning failures into errors.

use std::error::Error as StdError;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use bytes::Bytes;
use futures::{Stream, TryStreamExt as _};
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt as _;
use hyper::rt::{Read, Write};
use hyper_util::client::legacy::connect::proxy::{SocksV5, Tunnel};
use hyper_util::client::legacy::connect::{Connection, HttpConnector};
use hyper_util::rt::TokioExecutor;
use kube::client::{Body, ConfigExt as _};
use tower::{Service, ServiceBuilder};
use tower_http::decompression::DecompressionLayer;

use super::error::{Error, Result};
use super::retry::{Transient, retry_after};
use super::warnings::Warnings;

/// The `User-Agent` of every request: the server derives the default field manager from its first
/// word, as it makes `kubectl` of kubectl's.
fn user_agent() -> String {
    format!("kubeupd/{} ({}/{})", env!("CARGO_PKG_VERSION"), std::env::consts::OS, std::env::consts::ARCH)
}

/// How many times a request is sent while its connection is refused (nothing listens: a server
/// that is gone is said so soon), unless the server answered earlier in the run (then it is
/// restarting, and waited for: [`Transient::pause_while_restarting`]).
const READ_ATTEMPTS: u32 = 3;

/// How many times a request is sent while its answer does not come within the request timeout.
const TIMED_OUT_ATTEMPTS: u32 = 2;

/// What may be done again with a request that met a transient fault.
enum Repeat {
    /// Send it again: it leaves the same object however often it is sent.
    Freely,
    /// A create of the object at `object_path`: read it back first.
    Create { object_path: String, wanted: serde_json::Value },
    /// Send it again only when it cannot have reached the server (a 429, a refused connection).
    Never,
}

/// Whether `request` is a JSON patch, which need not leave the same object when sent twice (an
/// `add` to a list adds twice).
fn is_json_patch(request: &Request<Vec<u8>>) -> bool {
    request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes() == b"application/json-patch+json")
}

/// A copy of `request`, to send again.
fn copy(request: &Request<Vec<u8>>) -> Request<Vec<u8>> {
    let mut copy = Request::builder().method(request.method()).uri(request.uri());
    if let Some(headers) = copy.headers_mut() {
        headers.extend(request.headers().clone());
    }
    copy.body(request.body().clone()).expect("a copy of a valid request is valid")
}

/// `object` without what the server sets and changes on every write (`resourceVersion`,
/// `managedFields`, `generation`, the times) and without `status`: what a write of it leaves in
/// the object read back.
fn without_server_fields(object: &serde_json::Value) -> serde_json::Value {
    let mut object = object.clone();
    if let Some(map) = object.as_object_mut() {
        map.remove("status");
        if let Some(metadata) = map.get_mut("metadata").and_then(serde_json::Value::as_object_mut) {
            for field in ["resourceVersion", "managedFields", "generation", "creationTimestamp", "uid"] {
                metadata.remove(field);
            }
        }
    }
    object
}

/// A kube client plus what is needed to log and time requests the way kubectl does.
#[derive(Clone)]
pub(crate) struct Transport {
    client: kube::Client,
    server: String,
    timeout: Option<Duration>,
    /// The server's warnings, from every answer.
    pub(crate) warnings: Arc<Warnings>,
    /// Where each request is written, with `KUBEUPD_RECORD_REQUESTS`.
    recorder: Option<Arc<Recorder>>,
    /// Whether the server answered a request of this run: a connection it refuses afterwards is a
    /// restart (its port closed until it listens again), not a server that is not there.
    answered: Arc<AtomicBool>,
}

impl Transport {
    /// A client for the server in `config`, each request limited to `timeout`.
    pub(crate) fn new(config: &kube::Config, timeout: Option<Duration>) -> Result<Self> {
        let server = config.cluster_url.to_string().trim_end_matches('/').to_string();
        let client = build_client(config)?;
        let recorder = std::env::var_os(RECORD_REQUESTS).map(|dir| Arc::new(Recorder::new(dir.into())));
        Ok(Transport { client, server, timeout, warnings: Arc::default(), recorder, answered: Arc::default() })
    }

    /// The server URL without a trailing slash, e.g. `https://127.0.0.1:6443`.
    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    /// Sends `request` (its URI is a path on the server) and returns the body of a 2xx answer.
    /// Other answers become the [`Error`] for their status. A transient fault (429, 5xx, a failed
    /// connection) is met by sending again, per [`Transient`], where that is safe: a read, or a
    /// write that leaves the same object however often it is sent (a PUT, a DELETE, a merge,
    /// strategic or apply patch); see [`Transport::send_create`] for creates. Anything else is sent
    /// again only after a 429 or a refused connection, which it never got past.
    pub(crate) async fn send(&self, request: Request<Vec<u8>>) -> Result<Bytes> {
        let repeat = match request.method() {
            &Method::GET | &Method::HEAD | &Method::PUT | &Method::DELETE => Repeat::Freely,
            &Method::PATCH if !is_json_patch(&request) => Repeat::Freely,
            _ => Repeat::Never,
        };
        self.send_repeating(request, repeat).await.0
    }

    /// Sends the create `request` of the object at `object_path`. When its answer is lost (the
    /// connection failed, or a 5xx answer may hide a write that happened), the object is read back
    /// before the create is sent again: there, and holding every field of the create, it is the
    /// answer; so a create is never carried out twice. Also says whether an answer was lost on the
    /// way (an `AlreadyExists` then may be this very create's object, changed since).
    pub(crate) async fn send_create(&self, request: Request<Vec<u8>>, object_path: String) -> (Result<Bytes>, bool) {
        let wanted = serde_json::from_slice(request.body()).unwrap_or(serde_json::Value::Null);
        self.send_repeating(request, Repeat::Create { object_path, wanted }).await
    }

    /// The loop of [`Transport::send`] and [`Transport::send_create`]; also says whether an
    /// attempt's answer was lost.
    async fn send_repeating(&self, request: Request<Vec<u8>>, repeat: Repeat) -> (Result<Bytes>, bool) {
        let policy = Transient::default();
        let started = Instant::now();
        let write = !matches!(request.method(), &Method::GET | &Method::HEAD);
        // Whether an earlier attempt may have been carried out without its answer coming back.
        let mut lost = false;
        let mut attempt = 1;
        // The refused connections met while the server restarts; they do not count as attempts.
        let mut restart_waits = 0;
        // The answers the server itself timed out (504).
        let mut server_timeouts = 0;
        loop {
            if lost && let Repeat::Create { object_path, wanted } = &repeat {
                match self.read_back(object_path).await {
                    Ok(Some((live, body))) if super::json_contains(&live, &without_server_fields(wanted)) => {
                        tracing::info!("{object_path}: the create's answer was lost; read back, it is there");
                        return (Ok(body), true);
                    }
                    Ok(Some(_)) => {
                        tracing::info!("{object_path}: the create's answer was lost; another object is there");
                    }
                    Ok(None) => {
                        tracing::info!("{object_path}: the create's answer was lost; not there, creating again")
                    }
                    Err(err) => return (Err(err), true),
                }
            }
            let outcome = self.exchange(copy(&request)).await;
            let (failure, retry_after) = match outcome {
                Ok((status, _, body)) if status.is_success() => return (Ok(body), lost),
                Ok((status, headers, body)) => {
                    let error = Error::from_response(status, &body);
                    if lost && let Some(settled) = self.settle_after_lost(&request, &repeat, &error).await {
                        return (settled, true);
                    }
                    let transient = match status.as_u16() {
                        429 => true,
                        500 | 502 | 503 | 504 => !matches!(repeat, Repeat::Never),
                        _ => false,
                    };
                    if !transient {
                        return (Err(error), lost);
                    }
                    // A 5xx answer to a write may come after the write was carried out (a timeout in
                    // the server, a failing webhook after a mutation); a 429 never does.
                    lost |= write && status.as_u16() != 429;
                    if status == StatusCode::GATEWAY_TIMEOUT {
                        server_timeouts += 1;
                    }
                    (error, retry_after(&headers))
                }
                Err(error) => {
                    let refused =
                        matches!(&error, Error::Unreachable { cause, .. } if cause == super::error::CONNECTION_REFUSED);
                    // A refused request never reached the server: whatever it is, it is sent
                    // again once the server listens, up to the deadline.
                    if refused && self.answered.load(Ordering::Relaxed) {
                        restart_waits += 1;
                        let Some(pause) = policy.pause_while_restarting(restart_waits, started) else {
                            tracing::info!(
                                "{} {}: {error}; the server did not come back",
                                request.method(),
                                request.uri()
                            );
                            return (Err(error), lost);
                        };
                        tracing::info!(
                            "{} {}: {error}; the server is restarting, trying again in {} ms",
                            request.method(),
                            request.uri(),
                            pause.as_millis()
                        );
                        tokio::time::sleep(pause).await;
                        continue;
                    }
                    let repeatable = match &error {
                        Error::Unreachable { .. } if refused => attempt < READ_ATTEMPTS,
                        Error::Unreachable { .. } => !matches!(repeat, Repeat::Never),
                        // A stalled answer is waited for once more: the user's `--request-timeout`
                        // bounds each attempt, and two of them bound the whole.
                        Error::Timeout { .. } => !matches!(repeat, Repeat::Never) && attempt < TIMED_OUT_ATTEMPTS,
                        // TLS and credentials: sending again cannot help.
                        _ => false,
                    };
                    if !repeatable {
                        return (Err(error), lost);
                    }
                    lost |= write && !refused;
                    (error, None)
                }
            };
            let pause = match failure.status() {
                Some(status) if status.code == 504 => {
                    policy.pause_after_server_timeout(attempt, started, server_timeouts)
                }
                _ => policy.pause(attempt, started, retry_after),
            };
            let Some(pause) = pause else {
                tracing::info!("{} {}: {failure}; giving up after {attempt} attempts", request.method(), request.uri());
                return (Err(failure), lost);
            };
            tracing::info!(
                "{} {}: {failure}; trying again in {} ms",
                request.method(),
                request.uri(),
                pause.as_millis()
            );
            tokio::time::sleep(pause).await;
            attempt += 1;
        }
    }

    /// After an earlier attempt of a write may have been carried out, the failure `error` of a
    /// later one may say only that: a DELETE's NotFound (the object went), a 409 (the first write
    /// changed the object's `resourceVersion`, or created it). The object is read back and, when
    /// it is as the write leaves it, that is the answer. `None`: the failure stands as it is.
    async fn settle_after_lost(
        &self,
        request: &Request<Vec<u8>>,
        repeat: &Repeat,
        error: &Error,
    ) -> Option<Result<Bytes>> {
        let path = request.uri().path().to_string();
        match (request.method(), error) {
            (&Method::DELETE, Error::NotFound(status)) => {
                tracing::info!("{path}: the delete's answer was lost; read back, the object is gone");
                let details = status.details.as_ref();
                let gone = serde_json::json!({
                    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                    "details": details.map(|details| serde_json::json!({"name": details.name, "kind": details.kind})),
                });
                Some(Ok(Bytes::from(serde_json::to_vec(&gone).expect("JSON serializes"))))
            }
            (&Method::DELETE, Error::Conflict(_)) => match self.read_back(&path).await {
                Ok(None) => Some(Ok(Bytes::from_static(
                    br#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}"#,
                ))),
                Ok(Some((live, body))) if !live["metadata"]["deletionTimestamp"].is_null() => Some(Ok(body)),
                _ => None,
            },
            (&Method::PUT, Error::Conflict(_)) => {
                let wanted = serde_json::from_slice(request.body()).ok()?;
                match self.read_back(&path).await {
                    Ok(Some((live, body))) if super::json_contains(&live, &without_server_fields(&wanted)) => {
                        tracing::info!("{path}: the replace's answer was lost; read back, it is applied");
                        Some(Ok(body))
                    }
                    _ => None,
                }
            }
            (&Method::POST, Error::AlreadyExists(_)) => {
                let Repeat::Create { object_path, wanted } = repeat else { return None };
                match self.read_back(object_path).await {
                    Ok(Some((live, body))) if super::json_contains(&live, &without_server_fields(wanted)) => {
                        tracing::info!("{object_path}: the create's answer was lost; read back, it is there");
                        Some(Ok(body))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// GETs the object at `path` (retrying as reads are): the object and its bytes, or `None` when
    /// it is not there.
    async fn read_back(&self, path: &str) -> Result<Option<(serde_json::Value, Bytes)>> {
        let request = Request::get(path)
            .header(http::header::ACCEPT, "application/json")
            .body(Vec::new())
            .map_err(|err| Error::InvalidRequest { path: path.to_string(), reason: err.to_string() })?;
        match Box::pin(self.send_repeating(request, Repeat::Freely)).await.0 {
            Ok(body) => {
                let live = super::json::decode(&body).map_err(|err| Error::InvalidResponse {
                    path: path.to_string(),
                    reason: format!("invalid JSON: {err}"),
                })?;
                Ok(Some((live, body)))
            }
            Err(Error::NotFound(_)) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// GETs `path`, accepting `accept`, and returns the body of a 2xx answer.
    pub(crate) async fn get(&self, path: &str, accept: &str) -> Result<Bytes> {
        let request = Request::get(path)
            .header(http::header::ACCEPT, accept)
            .body(Vec::new())
            .map_err(|err| Error::InvalidRequest { path: path.to_string(), reason: err.to_string() })?;
        self.send(request).await
    }

    /// Sends `request` once and returns the status, headers and body whatever the status is.
    async fn exchange(&self, request: Request<Vec<u8>>) -> Result<(StatusCode, http::HeaderMap, Bytes)> {
        if let Some(recorder) = &self.recorder {
            recorder.record(&request);
        }
        let method = request.method().clone();
        let url = format!("{}{}", self.server, request.uri());
        let started = Instant::now();
        let call = async {
            let response = self.client.send(request.map(Body::from)).await?;
            self.warnings.record(response.headers());
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.into_body().collect_bytes().await?;
            Ok::<_, kube::Error>((status, headers, body))
        };
        let outcome = match self.timeout {
            Some(limit) => match tokio::time::timeout(limit, call).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    tracing::debug!("{method} {url}  in {} milliseconds", started.elapsed().as_millis());
                    return Err(Error::Timeout { url, limit: humanize(limit) });
                }
            },
            None => call.await,
        };
        let elapsed = started.elapsed().as_millis();
        match outcome {
            Ok((status, headers, body)) => {
                self.answered.store(true, Ordering::Relaxed);
                tracing::debug!("{method} {url} {status} in {elapsed} milliseconds");
                Ok((status, headers, body))
            }
            Err(err) => {
                tracing::debug!("{method} {url}  in {elapsed} milliseconds");
                Err(self.failure(err))
            }
        }
    }

    /// GETs `path` whose answer is a stream (a watch) and returns the body as it arrives. The
    /// request timeout limits only the wait for the answer to begin: a watch lasts as long as the
    /// `timeoutSeconds` it asks for, which is how kubectl keeps `--request-timeout` from cutting it.
    pub(crate) async fn stream(&self, path: &str, accept: &str) -> Result<impl Stream<Item = Result<Bytes>> + use<>> {
        let request = Request::get(path)
            .header(http::header::ACCEPT, accept)
            // kube's gzip layer decodes only the first gzip member, and servers gzip a watch per event.
            .header(http::header::ACCEPT_ENCODING, "identity")
            .body(Body::empty())
            .map_err(|err| Error::InvalidRequest { path: path.to_string(), reason: err.to_string() })?;
        let url = format!("{}{path}", self.server);
        let started = Instant::now();
        let call = self.client.send(request);
        let answer = match self.timeout {
            Some(limit) => tokio::time::timeout(limit, call)
                .await
                .map_err(|_| Error::Timeout { url: url.clone(), limit: humanize(limit) })?,
            None => call.await,
        };
        let response = answer.map_err(|err| self.failure(err))?;
        let status = response.status();
        tracing::debug!("GET {url} {status} in {} milliseconds", started.elapsed().as_millis());
        if !status.is_success() {
            let body = response.into_body().collect_bytes().await.map_err(|err| self.failure(err))?;
            return Err(Error::from_response(status, &body));
        }
        let server = self.server.clone();
        Ok(response
            .into_body()
            .into_data_stream()
            .map_err(move |err| Error::Unreachable { server: server.clone(), cause: lowest_cause(&err) }))
    }

    /// Sends `request` as it is (its URI a path on the server) with the kubeconfig's credentials,
    /// and returns the answer whatever its status, its body as it arrives: what a proxy forwards.
    pub(crate) async fn forward(&self, request: Request<Body>) -> Result<http::Response<Body>> {
        let (method, url) = (request.method().clone(), format!("{}{}", self.server, request.uri()));
        let started = Instant::now();
        // The server's warnings go to the proxy's client, in the answer's headers.
        let response = self.client.send(request).await.map_err(|err| self.failure(err))?;
        tracing::debug!("{method} {url} {} in {} milliseconds", response.status(), started.elapsed().as_millis());
        Ok(response)
    }

    /// The kube client under this transport (for upgrades to WebSocket).
    pub(crate) fn client(&self) -> &kube::Client {
        &self.client
    }

    pub(crate) fn failure(&self, err: kube::Error) -> Error {
        match err {
            kube::Error::Auth(auth) => Error::Credentials { server: self.server.clone(), message: auth.to_string() },
            other => match tls_failure(&other) {
                Some(cause) => Error::Tls { server: self.server.clone(), cause },
                None => Error::Unreachable { server: self.server.clone(), cause: lowest_cause(&other) },
            },
        }
    }
}

/// The environment variable naming a directory where every request is written (method, path,
/// content type and body, one file each, numbered in the order sent), so that the same requests
/// can be sent without kubeupd: `scripts/bench.sh` measures the server's floor that way. The
/// files can hold Secrets: they and the directory are for their owner only.
const RECORD_REQUESTS: &str = "KUBEUPD_RECORD_REQUESTS";

/// Writes requests into a directory, for [`RECORD_REQUESTS`]. Files are named after the time the
/// process started and the request's number, so that several commands recorded into one
/// directory sort in the order they ran.
struct Recorder {
    dir: std::path::PathBuf,
    started: u128,
    sent: std::sync::atomic::AtomicUsize,
}

impl Recorder {
    fn new(dir: std::path::PathBuf) -> Self {
        let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        Recorder { dir, started, sent: std::sync::atomic::AtomicUsize::new(0) }
    }

    /// Writes `METHOD PATH`, the content type and the body of `request` to the next file.
    fn record(&self, request: &Request<Vec<u8>>) {
        use std::io::Write as _;
        use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
        let number = self.sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let content_type = request.headers().get(http::header::CONTENT_TYPE).and_then(|value| value.to_str().ok());
        let written = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&self.dir).and_then(|()| {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(self.dir.join(format!("{:020}-{number:06}", self.started)))?;
            writeln!(file, "{} {}\n{}", request.method(), request.uri(), content_type.unwrap_or_default())?;
            file.write_all(request.body())
        });
        if let Err(err) = written {
            tracing::warn!("cannot record request {number} in {}: {err}", self.dir.display());
        }
    }
}

/// kube's client stack (base URI, gzip, credentials, extra headers; no retries: [`Transport::send`]
/// has the one policy) over a connector with `TCP_NODELAY`: without it, the request written right
/// after the TLS handshake waits for the server's delayed ACK, about 40 ms on every new connection.
/// The connection goes through the proxy of the kubeconfig's `proxy-url` (or of `$HTTPS_PROXY`)
/// when there is one: `http://` (a CONNECT tunnel) or `socks5://`, with the credentials of its URL.
fn build_client(config: &kube::Config) -> Result<kube::Client> {
    let mut config = config.clone();
    let agent = http::HeaderValue::from_str(&user_agent()).expect("the user agent is ASCII");
    config.headers.push((http::header::USER_AGENT, agent));
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(config.connect_timeout);
    let built = match config.proxy_url.clone() {
        None => client_over(&config, http),
        Some(proxy) => {
            let credentials = proxy_credentials(&proxy);
            match proxy.scheme_str() {
                Some("http") => {
                    let mut tunnel = Tunnel::new(proxy, http);
                    if let Some((user, password)) = credentials {
                        let basic = BASE64.encode(format!("{user}:{password}"));
                        if let Ok(header) = http::HeaderValue::from_str(&format!("Basic {basic}")) {
                            tunnel = tunnel.with_auth(header);
                        }
                    }
                    client_over(&config, tunnel)
                }
                Some("socks5") => {
                    let mut socks = SocksV5::new(proxy, http).local_dns(false);
                    if let Some((user, password)) = credentials {
                        socks = socks.with_auth(user, password);
                    }
                    client_over(&config, socks)
                }
                scheme => {
                    return Err(Error::Config(format!(
                        "proxy-url: {}:// proxies are not supported; use an http:// or socks5:// proxy",
                        scheme.unwrap_or_default()
                    )));
                }
            }
        }
    };
    let server = config.cluster_url.to_string();
    built.map_err(|err| Error::Config(format!("cannot set up a client for {}: {err}", server.trim_end_matches('/'))))
}

/// The client stack over `connector`, whatever reaches the server: a direct connection or a proxy.
fn client_over<C>(config: &kube::Config, connector: C) -> kube::Result<kube::Client>
where
    C: Service<http::Uri> + Clone + Send + Sync + 'static,
    C::Response: Connection + Read + Write + Send + Unpin + 'static,
    C::Future: Send + 'static,
    C::Error: Into<tower::BoxError>,
{
    let https = config.rustls_https_connector_with_connector(connector)?;
    let hyper_client = hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build::<_, Body>(https);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .layer(DecompressionLayer::new().gzip(!config.disable_compression))
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(tower::BoxError::from)
        .service(hyper_client);
    Ok(kube::Client::new(service, config.default_namespace.clone()))
}

/// The user and password in a proxy's URL (`http://user:pass@proxy:3128`), percent-decoded.
fn proxy_credentials(proxy: &http::Uri) -> Option<(String, String)> {
    let (userinfo, _) = proxy.authority()?.as_str().rsplit_once('@')?;
    let decode = |text: &str| percent_encoding::percent_decode_str(text).decode_utf8_lossy().into_owned();
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    Some((decode(user), decode(password)))
}

/// The TLS handshake's failure in `err`'s chain, if that is what failed, in Go's words where
/// kubectl has them: a certificate its TLS client does not accept. (An `io::Error` hides the
/// error it wraps from `source()`: it is looked into.)
fn tls_failure(err: &(dyn StdError + 'static)) -> Option<String> {
    let mut current = Some(err);
    while let Some(layer) = current {
        // An io::Error may wrap another (the connector's around the handshake's).
        let mut candidate = Some(layer);
        while let Some(error) = candidate {
            if let Some(tls) = error.downcast_ref::<rustls::Error>() {
                return Some(in_go_words(tls));
            }
            candidate = error
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .map(|inner| inner as &(dyn StdError + 'static));
        }
        current = layer.source();
    }
    None
}

/// A TLS failure as Go's client words it, where it is one kubectl users meet; rustls's words
/// otherwise.
fn in_go_words(err: &rustls::Error) -> String {
    use crate::gocompat::tls::{CertificateFailure, verification_error};
    use rustls::CertificateError;
    let failure = match err {
        rustls::Error::InvalidCertificate(certificate) => match certificate {
            CertificateError::UnknownIssuer => Some(CertificateFailure::UnknownAuthority),
            CertificateError::NotValidForNameContext { expected, presented } => {
                let host = expected.to_str();
                return verification_error(&CertificateFailure::NotForHost { host: &host, presented });
            }
            CertificateError::ExpiredContext { time, not_after } => Some(CertificateFailure::OutsideValidity {
                now: time.as_secs(),
                bound: not_after.as_secs(),
                expired: true,
            }),
            CertificateError::NotValidYetContext { time, not_before } => Some(CertificateFailure::OutsideValidity {
                now: time.as_secs(),
                bound: not_before.as_secs(),
                expired: false,
            }),
            _ => None,
        },
        _ => None,
    };
    failure.map_or_else(|| err.to_string(), |failure| verification_error(&failure))
}

/// The innermost cause of a transport failure, in words a reader knows.
fn lowest_cause(err: &(dyn StdError + 'static)) -> String {
    let mut innermost = err;
    let mut io_kind = None;
    let mut current = Some(err);
    while let Some(layer) = current {
        if let Some(io) = layer.downcast_ref::<std::io::Error>() {
            io_kind = Some(io.kind());
        }
        innermost = layer;
        current = layer.source();
    }
    use std::io::ErrorKind;
    match io_kind {
        Some(ErrorKind::ConnectionRefused) => super::error::CONNECTION_REFUSED.into(),
        Some(ErrorKind::ConnectionReset) => "connection reset by the server".into(),
        Some(ErrorKind::TimedOut) => "timed out while connecting".into(),
        _ => innermost.to_string(),
    }
}

fn humanize(limit: Duration) -> String {
    if limit.subsec_millis() == 0 { format!("{}s", limit.as_secs()) } else { format!("{}ms", limit.as_millis()) }
}
