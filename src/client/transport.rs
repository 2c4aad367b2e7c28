//! Sending one request: timeout, kubectl-style request logging, and turning failures into errors.

use std::error::Error as StdError;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, StatusCode};
use kube::client::Body;

use super::error::{ApiError, ConnectionError};

/// A kube client plus what is needed to log and time requests the way kubectl does.
#[derive(Clone)]
pub(crate) struct Transport {
    client: kube::Client,
    server: String,
    timeout: Option<Duration>,
}

impl Transport {
    pub(crate) fn new(client: kube::Client, server: String, timeout: Option<Duration>) -> Self {
        Transport { client, server, timeout }
    }

    /// The server URL without a trailing slash, e.g. `https://127.0.0.1:6443`.
    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    /// Sends `request` (its URI is a path on the server) and returns the body of a 2xx answer.
    /// Other answers become [`ApiError`]; unreachable servers become [`ConnectionError`].
    pub(crate) async fn send(&self, request: Request<Vec<u8>>) -> anyhow::Result<Bytes> {
        let (status, body) = self.exchange(request).await?;
        if status.is_success() {
            Ok(body)
        } else {
            Err(ApiError::from_response(status, &body).into())
        }
    }

    /// Sends `request` and returns the status and body whatever the status is.
    pub(crate) async fn exchange(&self, request: Request<Vec<u8>>) -> anyhow::Result<(StatusCode, Bytes)> {
        let method = request.method().clone();
        let url = format!("{}{}", self.server, request.uri());
        let started = Instant::now();
        let call = async {
            let response = self.client.send(request.map(Body::from)).await?;
            let status = response.status();
            let body = response.into_body().collect_bytes().await?;
            Ok::<_, kube::Error>((status, body))
        };
        let outcome = match self.timeout {
            Some(limit) => match tokio::time::timeout(limit, call).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    tracing::debug!("{method} {url}  in {} milliseconds", started.elapsed().as_millis());
                    anyhow::bail!("the request to {url} timed out after {}", humanize(limit));
                }
            },
            None => call.await,
        };
        let elapsed = started.elapsed().as_millis();
        match outcome {
            Ok((status, body)) => {
                tracing::debug!("{method} {url} {status} in {elapsed} milliseconds");
                Ok((status, body))
            }
            Err(err) => {
                tracing::debug!("{method} {url}  in {elapsed} milliseconds");
                Err(self.failure(err))
            }
        }
    }

    fn failure(&self, err: kube::Error) -> anyhow::Error {
        match err {
            kube::Error::Auth(auth) => anyhow::anyhow!("cannot get credentials for {}: {auth}", self.server),
            other => ConnectionError { server: self.server.clone(), cause: lowest_cause(&other) }.into(),
        }
    }
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
        Some(ErrorKind::ConnectionRefused) => "connection refused".into(),
        Some(ErrorKind::ConnectionReset) => "connection reset by the server".into(),
        Some(ErrorKind::TimedOut) => "timed out while connecting".into(),
        _ => innermost.to_string(),
    }
}

fn humanize(limit: Duration) -> String {
    if limit.subsec_millis() == 0 {
        format!("{}s", limit.as_secs())
    } else {
        format!("{}ms", limit.as_millis())
    }
}
