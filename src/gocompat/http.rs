//! Go's `http.Get`, as kubectl's `-f URL` and kustomize's remote files call it: a GET that follows
//! up to 10 redirects, through the environment's proxy (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`),
//! trusting the system's certificate authorities, with Go's `User-Agent`; the answer's status as
//! Go's `Response.Status` reads (`404 Not Found`), and failures in the words of Go's `url.Error`.

use std::error::Error as StdError;

use http::{StatusCode, Uri, header};
use http_body_util::{BodyExt as _, Empty};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connect, HttpConnector};
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::TokioExecutor;

/// How many redirects Go's `http.Client` follows before giving up.
const MAX_REDIRECTS: usize = 10;

/// What the server answered last (after the redirects), its body read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: StatusCode,
    /// Go's `Response.Status`: the code and the reason the server gave (`404 Not Found`).
    pub status_text: String,
    pub body: Vec<u8>,
}

/// No answer (or no usable one), in the words of Go's `url.Error`: `Get "URL": REASON`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Get \"{url}\": {reason}")]
pub struct GetError {
    pub url: String,
    pub reason: String,
    /// Whether the server refused the connection (Go's `ECONNREFUSED`), which kubectl words
    /// apart.
    pub refused: bool,
}

impl GetError {
    fn new(url: &str, reason: String) -> Self {
        GetError { url: url.to_string(), reason, refused: false }
    }

    /// The host and port of the URL as written (Go's `URL.Host`), when the server refused the
    /// connection.
    pub fn refused_host(&self) -> Option<&str> {
        let rest = self.url.split_once("://").map_or(self.url.as_str(), |(_, rest)| rest);
        self.refused.then(|| rest.split(['/', '?', '#']).next().unwrap_or(rest))
    }
}

/// The answer to a GET of `url`. Runs on a thread of its own with its own runtime: its callers
/// are synchronous and may be called from within another runtime (`apply -f URL`, `apply -k`),
/// which must not be blocked on.
pub fn get(url: &str) -> Result<Response, GetError> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|err| failed(url, &err))?;
                runtime.block_on(get_following_redirects(url))
            })
            .join()
            .unwrap_or_else(|_| Err(GetError::new(url, "the fetch panicked".into())))
    })
}

async fn get_following_redirects(url: &str) -> Result<Response, GetError> {
    let mut current: Uri = url.parse().map_err(|err| failed(url, &err))?;
    let proxies = Matcher::from_env();
    for _ in 0..=MAX_REDIRECTS {
        let response = send(&current, &proxies).await.map_err(|err| failed(url, err.as_ref()))?;
        let status = response.status();
        let location = response.headers().get(header::LOCATION).and_then(|value| value.to_str().ok());
        match location.filter(|_| is_followed_redirect(status)) {
            Some(location) => current = resolve(&current, location).map_err(|err| failed(url, &err))?,
            None => {
                let status_text = status_text(&response);
                let body = response.into_body().collect().await.map_err(|err| failed(url, &err))?;
                return Ok(Response { status, status_text, body: body.to_bytes().to_vec() });
            }
        }
    }
    Err(GetError::new(url, format!("stopped after {MAX_REDIRECTS} redirects")))
}

/// Go's `Response.Status`: the status line after its protocol, the server's own reason kept.
fn status_text(response: &Answer) -> String {
    let status = response.status();
    let reason = match response.extensions().get::<hyper::ext::ReasonPhrase>() {
        Some(reason) => String::from_utf8_lossy(reason.as_bytes()).into_owned(),
        None => status.canonical_reason().unwrap_or_default().to_string(),
    };
    format!("{} {reason}", status.as_u16())
}

/// The redirects Go's client follows (it answers the others, and one without a `Location`, as is).
fn is_followed_redirect(status: StatusCode) -> bool {
    [301, 302, 303, 307, 308].contains(&status.as_u16())
}

/// An answer whose body is not read yet.
type Answer = http::Response<hyper::body::Incoming>;
type BoxError = Box<dyn StdError + Send + Sync>;

/// One GET of `uri`, through a CONNECT tunnel when the environment names a proxy for it.
async fn send(uri: &Uri, proxies: &Matcher) -> Result<Answer, BoxError> {
    let mut direct = HttpConnector::new();
    direct.enforce_http(false);
    match proxies.intercept(uri).filter(|_| !is_loopback(uri)) {
        None => send_over(https(direct)?, uri).await,
        Some(proxy) => {
            let mut tunnel = Tunnel::new(proxy.uri().clone(), direct);
            if let Some(auth) = proxy.basic_auth() {
                tunnel = tunnel.with_auth(auth.clone());
            }
            send_over(https(tunnel)?, uri).await
        }
    }
}

/// Whether `uri` names this machine, which Go's proxy rules never send through a proxy.
fn is_loopback(uri: &Uri) -> bool {
    let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// TLS (when the URL asks for it) over `connector`, trusting the system's authorities as Go does.
fn https<C>(connector: C) -> std::io::Result<HttpsConnector<C>> {
    Ok(HttpsConnectorBuilder::new().with_native_roots()?.https_or_http().enable_http1().wrap_connector(connector))
}

async fn send_over<C: Connect + Clone + Send + Sync + 'static>(connector: C, uri: &Uri) -> Result<Answer, BoxError> {
    let client = Client::builder(TokioExecutor::new()).build::<_, Empty<bytes::Bytes>>(connector);
    let request = http::Request::get(uri.clone()).header(header::USER_AGENT, "Go-http-client/1.1").body(Empty::new())?;
    Ok(client.request(request).await?)
}

/// `location` (absolute, or relative to `base` as a browser resolves it) as a URL.
fn resolve(base: &Uri, location: &str) -> Result<Uri, http::uri::InvalidUri> {
    if location.contains("://") {
        return location.parse();
    }
    let scheme = base.scheme_str().unwrap_or("http");
    let authority = base.authority().map(|authority| authority.as_str()).unwrap_or_default();
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{scheme}://{rest}").parse();
    }
    if location.starts_with('/') {
        return format!("{scheme}://{authority}{location}").parse();
    }
    let directory = base.path().rsplit_once('/').map(|(directory, _)| directory).unwrap_or_default();
    format!("{scheme}://{authority}{directory}/{location}").parse()
}

/// `Get "URL": ` and the reason of `err` as Go words it: a refused connection as Go's dialer
/// says it (`dial tcp 127.0.0.1:1: connect: connection refused`), else the innermost reason (the
/// system's, or TLS's); hyper's outer layers only say which step failed.
fn failed(url: &str, err: &(dyn StdError + 'static)) -> GetError {
    let mut innermost = err;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    match innermost.downcast_ref::<std::io::Error>() {
        Some(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => GetError {
            refused: true,
            ..GetError::new(url, format!("dial tcp {}: connect: connection refused", dialed_address(url)))
        },
        Some(io) => GetError::new(url, super::os::error_text(io)),
        None => GetError::new(url, innermost.to_string()),
    }
}

/// The `host:port` Go's dialer names for `url` (the scheme's port when the URL has none).
fn dialed_address(url: &str) -> String {
    let Ok(uri) = url.parse::<Uri>() else { return url.to_string() };
    let port = uri.port_u16().unwrap_or(if uri.scheme_str() == Some("https") { 443 } else { 80 });
    let host = uri.host().unwrap_or_default();
    format!("{host}:{port}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_resolve_against_the_url_they_answer() {
        let base: Uri = "https://host.example/a/b/file.yaml?x=1".parse().unwrap();
        for (location, expected) in [
            ("https://other.example/x.yaml", "https://other.example/x.yaml"),
            ("//cdn.example/x.yaml", "https://cdn.example/x.yaml"),
            ("/root.yaml", "https://host.example/root.yaml"),
            ("sibling.yaml", "https://host.example/a/b/sibling.yaml"),
        ] {
            assert_eq!(resolve(&base, location).unwrap().to_string(), expected, "{location}");
        }
    }

    #[test]
    fn loopback_hosts_are_never_proxied() {
        for (url, loopback) in [
            ("http://localhost:80/x", true),
            ("http://127.0.0.1/x", true),
            ("http://[::1]:8/x", true),
            ("https://a.example/x", false),
        ] {
            assert_eq!(is_loopback(&url.parse().unwrap()), loopback, "{url}");
        }
    }

    #[test]
    fn a_refused_connection_reads_as_gos_dialer_says_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/x.yaml", listener.local_addr().unwrap());
        drop(listener);
        let err = get(&url).unwrap_err();
        let address = url.trim_start_matches("http://").trim_end_matches("/x.yaml");
        assert_eq!(err.to_string(), format!("Get \"{url}\": dial tcp {address}: connect: connection refused"));
        assert_eq!(err.refused_host(), Some(address));
    }
}
