//! Unified diffs of objects, like `diff -u -N` between kubectl's LIVE and MERGED folders.

use similar::{ChangeTag, TextDiff};

/// The unified diff of `before` and `after` (YAML texts) under the name `name`; empty when they
/// are equal. With `color`, removed lines are red, added lines green and hunk headers cyan.
pub fn unified_diff(name: &str, before: &str, after: &str, color: bool) -> String {
    if before == after {
        return String::new();
    }
    let (live, merged) = (format!("live/{name}"), format!("merged/{name}"));
    let diff = TextDiff::from_lines(before, after);
    let mut text = format!("diff -u -N {live} {merged}\n--- {live}\n+++ {merged}\n");
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

fn paint(text: &str, code: &str, color: bool) -> String {
    if color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_a_unified_diff_with_headers() {
        let before = "a: 1\nb: 2\nc: 3\n";
        let after = "a: 1\nb: 20\nc: 3\n";
        let diff = unified_diff("v1.ConfigMap.default.x", before, after, false);
        assert_eq!(
            diff,
            "diff -u -N live/v1.ConfigMap.default.x merged/v1.ConfigMap.default.x\n--- live/v1.ConfigMap.default.x\n\
             +++ merged/v1.ConfigMap.default.x\n@@ -1,3 +1,3 @@\n a: 1\n-b: 2\n+b: 20\n c: 3\n"
        );
        assert_eq!(unified_diff("x", before, before, false), "");
        assert!(unified_diff("x", before, after, true).contains("\x1b[31m-b: 2\x1b[0m"));
    }
}
