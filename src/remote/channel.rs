//! The channel framing of the Kubernetes streaming protocols over WebSocket (`v4.channel.k8s.io`,
//! `v5.channel.k8s.io`): every binary message starts with the channel it belongs to; exec and
//! attach use stdin, stdout, stderr, the error channel (a `metav1.Status` when the command ends)
//! and resize; v5 adds a message that closes one channel (stdin's end of file). Port forwarding
//! over the same framing gives each port two channels (data, error) whose first message carries
//! the port. Pure: bytes in, frames and outcomes out. (k8s.io/apimachinery
//! `pkg/util/remotecommand/constants.go`, client-go `tools/remotecommand/websocket.go`, `v4.go`.)

use serde::Deserialize;

/// Channel numbers of exec and attach.
pub const STDIN: u8 = 0;
pub const STDOUT: u8 = 1;
pub const STDERR: u8 = 2;
pub const ERROR: u8 = 3;
pub const RESIZE: u8 = 4;
/// v5's control channel: `[255, N]` says the client closed channel N.
pub const CLOSE: u8 = 255;

/// The subprotocols kubeupd offers, best first (kubectl 1.37 offers v5 only, then falls back to
/// SPDY; a server too old for v5 speaks v4 over WebSocket).
pub const V5: &str = "v5.channel.k8s.io";
pub const V4: &str = "v4.channel.k8s.io";

/// One message: its channel's data.
pub fn frame(channel: u8, data: &[u8]) -> Vec<u8> {
    let mut message = Vec::with_capacity(data.len() + 1);
    message.push(channel);
    message.extend_from_slice(data);
    message
}

/// v5's message closing the client's side of `channel` (stdin's end of file).
pub fn close(channel: u8) -> Vec<u8> {
    vec![CLOSE, channel]
}

/// A resize message: the terminal's size as JSON, as `TerminalSize` is sent.
pub fn resize(width: u16, height: u16) -> Vec<u8> {
    frame(RESIZE, format!(r#"{{"Width":{width},"Height":{height}}}"#).as_bytes())
}

/// A message split into its channel and data; an empty message has no channel.
pub fn split(message: &[u8]) -> Option<(u8, &[u8])> {
    message.split_first().map(|(channel, data)| (*channel, data))
}

/// How a remote command ended, as the error channel's `metav1.Status` says (client-go's
/// `errorDecoderV4`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// `Success`, or no status at all (the stream closed without one).
    Success,
    /// `NonZeroExitCode` with its `ExitCode` cause: kubectl exits with this code after
    /// `command terminated with exit code N`.
    Exited(u8),
    /// Any other failure, in the words kubectl prints after `error: `.
    Failed(String),
}

#[derive(Deserialize)]
struct StatusMessage {
    #[serde(default)]
    status: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    details: Option<Details>,
}

#[derive(Deserialize)]
struct Details {
    #[serde(default)]
    causes: Vec<Cause>,
}

#[derive(Deserialize)]
struct Cause {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
}

impl Outcome {
    /// The outcome the error channel's bytes give; none (empty) is a success.
    pub fn from_status(bytes: &[u8]) -> Outcome {
        if bytes.is_empty() {
            return Outcome::Success;
        }
        let status: StatusMessage = match serde_json::from_slice(bytes) {
            Ok(status) => status,
            Err(err) => {
                return Outcome::Failed(format!(
                    "error stream protocol error: {} in {:?}",
                    err,
                    String::from_utf8_lossy(bytes)
                ));
            }
        };
        match status.status.as_str() {
            "Success" => Outcome::Success,
            "Failure" if status.reason == "NonZeroExitCode" => {
                let Some(details) = status.details else {
                    return Outcome::Failed("error stream protocol error: details must be set".into());
                };
                match details.causes.iter().find(|cause| cause.reason == "ExitCode") {
                    Some(cause) => match cause.message.parse::<u8>() {
                        Ok(code) => Outcome::Exited(code),
                        Err(_) => Outcome::Failed(format!(
                            "error stream protocol error: invalid exit code value {:?}",
                            cause.message
                        )),
                    },
                    None => Outcome::Failed("error stream protocol error: no ExitCode cause given".into()),
                }
            }
            "Failure" => Outcome::Failed(status.message),
            _ => Outcome::Failed("error stream protocol error: unknown error".into()),
        }
    }
}

/// Port forwarding's channels for the `index`-th port of the request: data, then error.
pub fn port_channels(index: usize) -> (u8, u8) {
    ((index * 2) as u8, (index * 2 + 1) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_their_channel_first() {
        assert_eq!(frame(STDIN, b"ls\n"), b"\x00ls\n");
        assert_eq!(split(b"\x01out"), Some((STDOUT, &b"out"[..])));
        assert_eq!(split(b"\x02"), Some((STDERR, &b""[..])));
        assert_eq!(split(b""), None);
        assert_eq!(close(STDIN), vec![255, 0]);
        assert_eq!(resize(80, 24), b"\x04{\"Width\":80,\"Height\":24}");
        assert_eq!(port_channels(0), (0, 1));
        assert_eq!(port_channels(2), (4, 5));
    }

    #[test]
    fn a_non_zero_exit_code_comes_from_its_cause() {
        let status = br#"{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#;
        assert_eq!(Outcome::from_status(status), Outcome::Exited(3));
    }

    #[test]
    fn success_and_silence_are_success() {
        assert_eq!(Outcome::from_status(br#"{"metadata":{},"status":"Success"}"#), Outcome::Success);
        assert_eq!(Outcome::from_status(b""), Outcome::Success);
    }

    #[test]
    fn other_failures_keep_the_servers_words() {
        // What kwok sends for a command that exits 3: no exit code, an internal error.
        let status = br#"{"metadata":{},"status":"Failure","message":"Internal error occurred: error executing command in container: cmd wait: sh -c exit 3: exit status 3","reason":"InternalError","details":{"causes":[{"message":"error executing command in container: cmd wait: sh -c exit 3: exit status 3"}]},"code":500}"#;
        assert_eq!(
            Outcome::from_status(status),
            Outcome::Failed(
                "Internal error occurred: error executing command in container: cmd wait: sh -c exit 3: exit status 3"
                    .into()
            )
        );
    }

    #[test]
    fn malformed_statuses_are_protocol_errors() {
        let no_details = br#"{"status":"Failure","reason":"NonZeroExitCode"}"#;
        assert_eq!(
            Outcome::from_status(no_details),
            Outcome::Failed("error stream protocol error: details must be set".into())
        );
        let no_cause = br#"{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[]}}"#;
        assert_eq!(
            Outcome::from_status(no_cause),
            Outcome::Failed("error stream protocol error: no ExitCode cause given".into())
        );
        let too_big = br#"{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"300"}]}}"#;
        assert_eq!(
            Outcome::from_status(too_big),
            Outcome::Failed("error stream protocol error: invalid exit code value \"300\"".into())
        );
        assert_eq!(
            Outcome::from_status(br#"{"status":"Weird"}"#),
            Outcome::Failed("error stream protocol error: unknown error".into())
        );
        assert!(
            matches!(Outcome::from_status(b"{"), Outcome::Failed(text) if text.starts_with("error stream protocol error: "))
        );
    }
}
