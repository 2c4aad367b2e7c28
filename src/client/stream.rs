//! Streams to a pod through the API server over WebSocket: exec and attach (the
//! `v5.channel.k8s.io` subprotocol, `v4.channel.k8s.io` from an older server) and port
//! forwarding (the kubelet's `v4.channel.k8s.io` port-forward protocol, one connection per
//! forwarded connection). The framing is [`crate::remote::channel`]'s; this is the I/O.

use futures::{SinkExt as _, StreamExt as _};
use http::Request;
use hyper_util::rt::TokioIo;
use tokio::sync::mpsc;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use super::Cluster;
use super::error::{Error, Result};
use crate::remote::channel::{self, Outcome};

type Socket = WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>;

/// Where a remote stream's bytes go: a function given each chunk as it arrives.
pub type Output = Box<dyn FnMut(&[u8]) -> std::io::Result<()> + Send>;

/// An open WebSocket to a pod's exec, attach or port-forward subresource.
pub struct Channels {
    socket: Socket,
    /// v5: the client can say that its stdin ended.
    closes_channels: bool,
    path: String,
}

/// What an exec or attach session reads and writes.
pub struct Session {
    /// Chunks of stdin; the channel's end is stdin's end. `None`: no stdin.
    pub stdin: Option<mpsc::Receiver<Vec<u8>>>,
    pub stdout: Output,
    pub stderr: Option<Output>,
    /// Terminal sizes (width, height) to send as they change.
    pub resize: Option<mpsc::Receiver<(u16, u16)>>,
}

impl Cluster {
    /// Opens a WebSocket to `path` (a pod's `exec`, `attach` or `portforward` with its query).
    pub async fn open_channels(&self, path: &str) -> Result<Channels> {
        self.transport.upgrade(path).await.map(|(socket, closes_channels)| Channels {
            socket,
            closes_channels,
            path: path.to_string(),
        })
    }
}

impl super::transport::Transport {
    /// Upgrades a GET of `path` to a WebSocket speaking one of the channel subprotocols; the
    /// second value says whether it is v5.
    pub(crate) async fn upgrade(&self, path: &str) -> Result<(Socket, bool)> {
        let request = Request::get(path)
            .body(Vec::new())
            .map_err(|err| Error::InvalidRequest { path: path.to_string(), reason: err.to_string() })?;
        let url = format!("{}{path}", self.server());
        let started = std::time::Instant::now();
        match self.client().connect(request).await {
            Ok(connection) => {
                tracing::debug!("GET {url} 101 Switching Protocols in {} milliseconds", started.elapsed().as_millis());
                let v5 = connection.supports_stream_close();
                Ok((connection.into_stream(), v5))
            }
            Err(kube::Error::Api(status)) => {
                tracing::debug!("GET {url} {} in {} milliseconds", status.code, started.elapsed().as_millis());
                let mut body = serde_json::to_value(&*status).unwrap_or_default();
                body["kind"] = "Status".into();
                let code = http::StatusCode::from_u16(status.code).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
                Err(Error::from_response(code, body.to_string().as_bytes()))
            }
            Err(kube::Error::UpgradeConnection(err)) => Err(Error::InvalidResponse {
                path: path.to_string(),
                reason: format!("unable to upgrade connection: {err}"),
            }),
            Err(err) => Err(self.failure(err)),
        }
    }
}

impl Channels {
    /// Runs an exec or attach session to its end: stdin sent, stdout and stderr written as they
    /// come, and the outcome the error channel gives when the command ends.
    pub async fn run(self, mut session: Session) -> Result<Outcome> {
        let Channels { socket, closes_channels, path } = self;
        let broken =
            |err: &dyn std::fmt::Display| Error::InvalidResponse { path: path.clone(), reason: err.to_string() };
        let (mut sink, mut stream) = socket.split();
        let mut status = Vec::new();
        let mut stdin_open = session.stdin.is_some();
        let mut resize_open = session.resize.is_some();
        loop {
            tokio::select! {
                message = stream.next() => match message {
                    None | Some(Ok(Message::Close(_))) => break,
                    Some(Err(err)) => return Err(broken(&err)),
                    Some(Ok(Message::Binary(data))) => match channel::split(&data) {
                        Some((channel::STDOUT, bytes)) if !bytes.is_empty() => {
                            (session.stdout)(bytes).map_err(|err| broken(&err))?;
                        }
                        Some((channel::STDERR, bytes)) if !bytes.is_empty() => {
                            if let Some(stderr) = session.stderr.as_mut() {
                                stderr(bytes).map_err(|err| broken(&err))?;
                            }
                        }
                        Some((channel::ERROR, bytes)) => status.extend_from_slice(bytes),
                        _ => {}
                    },
                    Some(Ok(Message::Text(_))) => return Err(broken(&"unexpected message type: 1")),
                    Some(Ok(_)) => {}
                },
                chunk = recv(&mut session.stdin), if stdin_open => match chunk {
                    Some(data) => {
                        // The remote end may have gone: its outcome is what counts.
                        if sink.send(Message::binary(channel::frame(channel::STDIN, &data))).await.is_err() {
                            stdin_open = false;
                        }
                    }
                    None => {
                        stdin_open = false;
                        if closes_channels {
                            let _ = sink.send(Message::binary(channel::close(channel::STDIN))).await;
                        }
                    }
                },
                size = recv(&mut session.resize), if resize_open => match size {
                    Some((width, height)) => {
                        let _ = sink.send(Message::binary(channel::resize(width, height))).await;
                    }
                    None => resize_open = false,
                },
            }
        }
        let _ = sink.close().await;
        Ok(Outcome::from_status(&status))
    }

    /// Forwards one local connection through this port-forward WebSocket (opened for one port):
    /// bytes both ways until either side ends. An error the kubelet reports on the port's error
    /// channel is returned as [`Error::ForwardingFailed`].
    pub async fn forward(self, local: tokio::net::TcpStream) -> Result<()> {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let (mut sink, mut stream) = self.socket.split();
        let (mut reader, mut writer) = local.into_split();
        // The first two bytes of each channel carry the port number.
        let mut prefixes = [2usize, 2usize];
        let mut remote_error = Vec::new();
        let mut buffer = vec![0u8; 32 * 1024];
        let path = self.path;
        let broken =
            |err: &dyn std::fmt::Display| Error::InvalidResponse { path: path.clone(), reason: err.to_string() };
        loop {
            tokio::select! {
                message = stream.next() => match message {
                    None | Some(Ok(Message::Close(_))) => break,
                    Some(Err(err)) => return Err(broken(&err)),
                    Some(Ok(Message::Binary(data))) => {
                        let Some((index, mut bytes)) = channel::split(&data) else { continue };
                        let Some(prefix) = prefixes.get_mut(index as usize) else { continue };
                        let skip = (*prefix).min(bytes.len());
                        *prefix -= skip;
                        bytes = &bytes[skip..];
                        match index {
                            0 if !bytes.is_empty() && writer.write_all(bytes).await.is_err() => break,
                            1 => remote_error.extend_from_slice(bytes),
                            _ => {}
                        }
                    }
                    Some(Ok(_)) => {}
                },
                read = reader.read(&mut buffer) => match read {
                    Ok(0) | Err(_) => break,
                    Ok(count) => {
                        if sink.send(Message::binary(channel::frame(0, &buffer[..count]))).await.is_err() {
                            break;
                        }
                    }
                },
            }
        }
        let _ = writer.shutdown().await;
        let _ = sink.close().await;
        match remote_error.is_empty() {
            true => Ok(()),
            false => Err(Error::ForwardingFailed(String::from_utf8_lossy(&remote_error).into_owned())),
        }
    }
}

/// The next item of an optional receiver (never, when there is none).
async fn recv<T>(receiver: &mut Option<mpsc::Receiver<T>>) -> Option<T> {
    match receiver {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}
