//! Files named by an http(s) URL, fetched as kustomize's file loader fetches them with Go's
//! `http.Client`: a GET that follows up to 10 redirects, through the environment's proxy
//! (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`), trusting the system's certificate authorities. A
//! 2xx answer's body is the file; any other status is kustomize's `ErrHTTP`.

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

/// Why a file could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// kustomize's `ErrHTTP`: the server answered, but not with the file.
    #[error("HTTP Error: status code {} ({})", .0.as_u16(), .0.canonical_reason().unwrap_or_default())]
    Status(StatusCode),
    /// No answer (or no usable one), in the words of Go's `url.Error`.
    #[error("Get \"{url}\": {reason}")]
    Get { url: String, reason: String },
    #[error("this loader does not fetch files over HTTP")]
    Unsupported,
}

/// kustomize's `IsRemoteFile`: whether `entry` is a URL with the `http` or `https` scheme.
pub fn is_remote_file(entry: &str) -> bool {
    entry.parse::<Uri>().is_ok_and(|uri| matches!(uri.scheme_str(), Some("http" | "https")) && uri.host().is_some())
}

/// The body of `url`. Runs on a thread of its own with its own runtime: a build is synchronous and
/// may be called from within another runtime (`apply -k`), which must not be blocked on.
pub fn get(url: &str) -> Result<Vec<u8>, FetchError> {
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
            .unwrap_or_else(|_| Err(FetchError::Get { url: url.to_string(), reason: "the fetch panicked".into() }))
    })
}

async fn get_following_redirects(url: &str) -> Result<Vec<u8>, FetchError> {
    let mut current: Uri = url.parse().map_err(|err| failed(url, &err))?;
    let proxies = Matcher::from_env();
    for _ in 0..=MAX_REDIRECTS {
        let response = send(&current, &proxies).await.map_err(|err| failed(url, err.as_ref()))?;
        let status = response.status();
        let location = response.headers().get(header::LOCATION).and_then(|value| value.to_str().ok());
        match location.filter(|_| is_followed_redirect(status)) {
            Some(location) => current = resolve(&current, location).map_err(|err| failed(url, &err))?,
            None if status.is_success() => {
                let body = response.into_body().collect().await.map_err(|err| failed(url, &err))?;
                return Ok(body.to_bytes().to_vec());
            }
            None => return Err(FetchError::Status(status)),
        }
    }
    Err(FetchError::Get { url: url.to_string(), reason: format!("stopped after {MAX_REDIRECTS} redirects") })
}

/// The redirects Go's client follows (it answers the others, and one without a `Location`, as is).
fn is_followed_redirect(status: StatusCode) -> bool {
    [301, 302, 303, 307, 308].contains(&status.as_u16())
}

type Response = http::Response<hyper::body::Incoming>;
type BoxError = Box<dyn StdError + Send + Sync>;

/// One GET of `uri`, through a CONNECT tunnel when the environment names a proxy for it.
async fn send(uri: &Uri, proxies: &Matcher) -> Result<Response, BoxError> {
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

async fn send_over<C: Connect + Clone + Send + Sync + 'static>(connector: C, uri: &Uri) -> Result<Response, BoxError> {
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

/// `Get "URL": ` and the innermost reason of `err` (the system's, or TLS's), as Go's `url.Error`
/// reads; hyper's outer layers only say which step failed.
fn failed(url: &str, err: &(dyn StdError + 'static)) -> FetchError {
    let mut innermost = err;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    FetchError::Get { url: url.to_string(), reason: innermost.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_and_https_urls_are_remote_files() {
        assert!(is_remote_file("https://github.com/org/proj/releases/download/v1/install.yaml"));
        assert!(is_remote_file("http://127.0.0.1:8080/cm.yaml"));
        for entry in ["cm.yaml", "../base", "/abs/cm.yaml", "file:///srv/repo", "github.com/org/repo", "s3://b/x"] {
            assert!(!is_remote_file(entry), "{entry}");
        }
    }

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
    fn a_status_reads_as_kustomize_writes_it() {
        assert_eq!(FetchError::Status(StatusCode::NOT_FOUND).to_string(), "HTTP Error: status code 404 (Not Found)");
    }
}
