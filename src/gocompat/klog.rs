//! klog's info lines, as kubectl writes the log lines of the libraries it embeds (kustomize's
//! `log.Printf`): `I1128 01:40:51.679239   27747 log.go:244] message`. kubectl writes the local
//! time; kubeupd writes UTC.

use std::time::{SystemTime, UNIX_EPOCH};

/// `message` as klog writes it at info level from Go's `log` package, at `time`, by process `pid`.
pub fn info_line(message: &str, time: SystemTime, pid: u32) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (_, month, day) = super::time::civil_from_days((seconds / 86_400) as i64);
    let rest = seconds % 86_400;
    format!(
        "I{month:02}{day:02} {:02}:{:02}:{:02}.{:06} {pid:>7} log.go:244] {message}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_micros()
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn lines_have_klogs_header() {
        let time = UNIX_EPOCH + Duration::from_micros(1_795_830_051_679_239);
        assert_eq!(
            info_line("well-defined vars that were never replaced: a", time, 27747),
            "I1128 01:40:51.679239   27747 log.go:244] well-defined vars that were never replaced: a"
        );
    }
}
