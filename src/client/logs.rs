//! A container's log: the pod `log` subresource as a stream of bytes, with kubectl's
//! `PodLogOptions` as its query.

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt as _};

use super::Cluster;
use super::dynamic::with_query;
use super::error::Result;

/// The query of one log request (`PodLogOptions`), each field sent only when set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogOptions {
    pub container: String,
    /// Keep the stream open and send lines as the container writes them.
    pub follow: bool,
    /// The previous instance of the container (after a restart).
    pub previous: bool,
    /// Each line after the time the runtime recorded it.
    pub timestamps: bool,
    /// Lines of the last this many seconds.
    pub since_seconds: Option<i64>,
    /// Lines after this time, RFC 3339 as the server reads it.
    pub since_time: Option<String>,
    /// The last this many lines.
    pub tail_lines: Option<i64>,
    /// At most this many bytes.
    pub limit_bytes: Option<i64>,
    /// Let the server skip checking the kubelet's certificate.
    pub insecure_skip_tls_verify_backend: bool,
}

impl LogOptions {
    fn query(&self) -> Vec<(&'static str, String)> {
        let mut query = vec![("container", self.container.clone())];
        let flags = [
            ("follow", self.follow),
            ("insecureSkipTLSVerifyBackend", self.insecure_skip_tls_verify_backend),
            ("previous", self.previous),
            ("timestamps", self.timestamps),
        ];
        query.extend(flags.into_iter().filter(|(_, on)| *on).map(|(name, _)| (name, "true".to_string())));
        let numbers =
            [("limitBytes", self.limit_bytes), ("sinceSeconds", self.since_seconds), ("tailLines", self.tail_lines)];
        query.extend(numbers.into_iter().filter_map(|(name, value)| Some((name, value?.to_string()))));
        if let Some(time) = &self.since_time {
            query.push(("sinceTime", time.clone()));
        }
        query
    }
}

/// The bytes of a log as the server sends them, until it closes the stream.
pub type ByteStream = BoxStream<'static, Result<Bytes>>;

impl Cluster {
    /// The log of one container of the pod `name` in `namespace`: an error answer (a container
    /// not started, not found) is the error for its status; otherwise the bytes as they come.
    pub async fn pod_logs(&self, namespace: &str, name: &str, options: &LogOptions) -> Result<ByteStream> {
        let path = with_query(format!("/api/v1/namespaces/{namespace}/pods/{name}/log"), &options.query());
        Ok(self.transport.stream(&path, "*/*").await?.boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_options_given_are_sent() {
        let plain = LogOptions { container: "app".into(), ..LogOptions::default() };
        assert_eq!(plain.query(), [("container", "app".to_string())]);
        let all = LogOptions {
            container: "app".into(),
            follow: true,
            previous: true,
            timestamps: true,
            since_seconds: Some(60),
            since_time: None,
            tail_lines: Some(0),
            limit_bytes: Some(5),
            insecure_skip_tls_verify_backend: false,
        };
        let names: Vec<_> = all.query().into_iter().map(|(name, value)| format!("{name}={value}")).collect();
        assert_eq!(
            names,
            [
                "container=app",
                "follow=true",
                "previous=true",
                "timestamps=true",
                "limitBytes=5",
                "sinceSeconds=60",
                "tailLines=0"
            ]
        );
    }
}
