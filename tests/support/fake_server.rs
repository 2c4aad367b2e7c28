//! A small HTTP/1.1 server for tests: answers each request with whatever a handler returns (a reply,
//! a reset connection, a slow reply), and records the requests it saw. For what a real apiserver
//! cannot do: OpenAPI v3 on 1.20, and faults.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request: method, path with its query, the headers that matter, every header, and the body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub content_type: Option<String>,
    pub accept: Option<String>,
    /// Every header in order, names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    /// The values of the header `name` (lower case), in order.
    pub fn header(&self, name: &str) -> Vec<&str> {
        self.headers.iter().filter(|(header, _)| header == name).map(|(_, value)| value.as_str()).collect()
    }
}

/// What the server does with a request.
pub enum Answer {
    Reply(Reply),
    /// Close the connection without answering.
    Reset,
    /// Send the head and half the body of this answer, then close the connection.
    Truncated(Reply),
    /// Answer after a pause.
    Slow(std::time::Duration, Reply),
}

/// An answer: status code, content type, extra headers and body.
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn json(status: u16, body: &serde_json::Value) -> Self {
        Reply {
            status,
            content_type: "application/json".into(),
            headers: Vec::new(),
            body: body.to_string().into_bytes(),
        }
    }

    /// A `metav1.Status` failure.
    pub fn status(code: u16, reason: &str, message: &str) -> Self {
        Reply::json(
            code,
            &serde_json::json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason, "message": message}),
        )
    }
}

impl From<Reply> for Answer {
    fn from(reply: Reply) -> Self {
        Answer::Reply(reply)
    }
}

/// A running fake server on a free loopback port; it lives as long as the test.
pub struct FakeServer {
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl FakeServer {
    pub fn start<A: Into<Answer>>(handler: impl Fn(&Seen) -> A + Send + Sync + 'static) -> Self {
        let handler = move |seen: &Seen| handler(seen).into();
        Self::start_answering(handler)
    }

    fn start_answering(handler: impl Fn(&Seen) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = seen.clone();
        let handler = Arc::new(handler);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (handler, recorded) = (handler.clone(), recorded.clone());
                std::thread::spawn(move || serve(stream, &*handler, &recorded));
            }
        });
        FakeServer { url, seen }
    }

    /// The requests received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// A kubeconfig for this server, written into `dir`.
    pub fn kubeconfig(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let path = dir.join("fake-kubeconfig");
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\nusers:\n- name: fake\n  user: {{}}\n\
             contexts:\n- name: fake\n  context: {{cluster: fake, user: fake, namespace: default}}\ncurrent-context: fake\n",
            self.url
        );
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn serve(stream: TcpStream, handler: &(dyn Fn(&Seen) -> Answer + Send + Sync), recorded: &Mutex<Vec<Seen>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("a socket"));
    let mut writer = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = request_line.split_whitespace();
        let mut seen = Seen {
            method: parts.next().unwrap_or("").to_string(),
            path: parts.next().unwrap_or("").to_string(),
            ..Seen::default()
        };
        let mut length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header == "\r\n" {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                let (name, value) = (name.to_ascii_lowercase(), value.trim().to_string());
                match name.as_str() {
                    "content-length" => length = value.parse().unwrap_or(0),
                    "content-type" => seen.content_type = Some(value.clone()),
                    "accept" => seen.accept = Some(value.clone()),
                    _ => {}
                }
                seen.headers.push((name, value));
            }
        }
        seen.body = vec![0; length];
        if reader.read_exact(&mut seen.body).is_err() {
            return;
        }
        recorded.lock().unwrap().push(seen.clone());
        let reply = match handler(&seen) {
            Answer::Reset => {
                let _ = writer.shutdown(std::net::Shutdown::Both);
                return;
            }
            Answer::Slow(pause, reply) => {
                std::thread::sleep(pause);
                reply
            }
            Answer::Truncated(reply) => {
                let head = format!(
                    "HTTP/1.1 {} Fake\r\nContent-Type: {}\r\nContent-Length: {}\r\n\r\n",
                    reply.status,
                    reply.content_type,
                    reply.body.len()
                );
                let _ = writer
                    .write_all(head.as_bytes())
                    .and_then(|_| writer.write_all(&reply.body[..reply.body.len() / 2]));
                let _ = writer.shutdown(std::net::Shutdown::Both);
                return;
            }
            Answer::Reply(reply) => reply,
        };
        let extra: String = reply.headers.iter().map(|(name, value)| format!("{name}: {value}\r\n")).collect();
        let head = format!(
            "HTTP/1.1 {} Fake\r\nContent-Type: {}\r\n{extra}Content-Length: {}\r\n\r\n",
            reply.status,
            reply.content_type,
            reply.body.len()
        );
        if writer.write_all(head.as_bytes()).and_then(|_| writer.write_all(&reply.body)).is_err() {
            return;
        }
    }
}
