//! A log's lines as kubectl writes them: whole lines, each at once (so that the logs of several
//! containers followed together interleave by line, never within one), each after its source
//! with `--prefix`.

/// `--prefix`'s source before each line: `[pod/web-1/app] `.
pub fn log_prefix(pod: &str, container: &str) -> String {
    format!("[pod/{pod}/{container}] ")
}

/// Cuts a byte stream into lines, each with its newline; what follows the last newline waits
/// for more bytes, or for [`LineSplitter::finish`] at the stream's end.
#[derive(Debug, Default)]
pub struct LineSplitter {
    pending: Vec<u8>,
}

impl LineSplitter {
    /// The lines `chunk` completes.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|&byte| byte == b'\n') {
            let mut line = std::mem::take(&mut self.pending);
            line.extend_from_slice(&rest[..=end]);
            lines.push(line);
            rest = &rest[end + 1..];
        }
        self.pending.extend_from_slice(rest);
        lines
    }

    /// The last line, without a newline, when the stream did not end with one.
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        (!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_cut_across_chunks_come_out_whole() {
        let mut splitter = LineSplitter::default();
        assert_eq!(splitter.push(b"one\ntw"), [b"one\n".to_vec()]);
        assert!(splitter.push(b"o").is_empty());
        assert_eq!(splitter.push(b"\nthree\nfo"), [b"two\n".to_vec(), b"three\n".to_vec()]);
        assert_eq!(splitter.finish(), Some(b"fo".to_vec()));
        assert_eq!(splitter.finish(), None);
        assert_eq!(log_prefix("web-1", "app"), "[pod/web-1/app] ");
    }
}
