//! Unified diffs of objects, as `diff -u -N` prints them between kubectl's LIVE and MERGED folders.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use similar::{ChangeTag, TextDiff};

/// Where kubectl's `diff -u -N LIVE-* MERGED-*` finds one object's two sides, as the headers
/// name them: the file of the object's name in each folder, written at `written`.
pub struct DiffSides<'a> {
    pub live_dir: &'a Path,
    pub merged_dir: &'a Path,
    pub written: SystemTime,
}

/// The unified diff of `before` and `after` (YAML texts) of the object named `name` (the file name
/// `apps.v1.Deployment.default.web`), with diff's header lines for the two files; empty when they
/// are equal. With `color`, removed lines are red, added lines green and hunk headers cyan.
pub fn unified_diff(name: &str, before: &str, after: &str, sides: &DiffSides, color: bool) -> String {
    if before == after {
        return String::new();
    }
    let (live, merged) = (sides.live_dir.join(name), sides.merged_dir.join(name));
    let (live, merged, time) = (live.display(), merged.display(), file_time(sides.written));
    let diff = TextDiff::from_lines(before, after);
    let mut text = format!("diff -u -N {live} {merged}\n--- {live}\t{time}\n+++ {merged}\t{time}\n");
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        text.push_str(&paint(&hunk.header().to_string(), "36", color));
        text.push('\n');
        for change in hunk.iter_changes() {
            let (sign, code) = match change.tag() {
                ChangeTag::Delete => ('-', "31"),
                ChangeTag::Insert => ('+', "32"),
                ChangeTag::Equal => (' ', ""),
            };
            let line = format!("{sign}{}", change.value().trim_end_matches('\n'));
            text.push_str(&paint(&line, code, color && !code.is_empty()));
            text.push('\n');
        }
    }
    text
}

/// A file's time as GNU diff's header shows it (`2026-11-28 08:10:06.496190690 +0000`), in UTC.
fn file_time(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = since.as_secs();
    let (year, month, day) = crate::gocompat::time::civil_from_days((seconds / 86_400) as i64);
    let rest = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:09} +0000",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_nanos()
    )
}

fn paint(text: &str, code: &str, color: bool) -> String {
    if color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_a_unified_diff_with_diffs_headers() {
        let before = "a: 1\nb: 2\nc: 3\n";
        let after = "a: 1\nb: 20\nc: 3\n";
        let written = UNIX_EPOCH + std::time::Duration::from_nanos(1_795_853_406_496_190_690);
        let sides = DiffSides { live_dir: Path::new("/tmp/LIVE-1"), merged_dir: Path::new("/tmp/MERGED-2"), written };
        let diff = unified_diff("v1.ConfigMap.default.x", before, after, &sides, false);
        assert_eq!(
            diff,
            "diff -u -N /tmp/LIVE-1/v1.ConfigMap.default.x /tmp/MERGED-2/v1.ConfigMap.default.x\n\
             --- /tmp/LIVE-1/v1.ConfigMap.default.x\t2026-11-28 08:10:06.496190690 +0000\n\
             +++ /tmp/MERGED-2/v1.ConfigMap.default.x\t2026-11-28 08:10:06.496190690 +0000\n\
             @@ -1,3 +1,3 @@\n a: 1\n-b: 2\n+b: 20\n c: 3\n"
        );
        assert_eq!(unified_diff("x", before, before, &sides, false), "");
        assert!(unified_diff("x", before, after, &sides, true).contains("\x1b[31m-b: 2\x1b[0m"));
    }
}
