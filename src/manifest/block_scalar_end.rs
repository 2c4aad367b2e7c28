//! A block scalar (`|`, `>`) that runs to the end of a document whose last line has no line
//! break: Go's YAML readers (go-yaml v2 and v3, both libyaml's scanner) give it no final line
//! break, whatever its chomping; serde-saphyr's parser adds one. Such a scalar's header is given
//! the strip indicator (`|-`) before parsing, which reads the same text as Go does: a scalar
//! without its final line break, the last line's content being its end.

use std::borrow::Cow;

/// `document`, with the header of the block scalar its unterminated last line belongs to (if
/// any) made to strip, so that it parses as Go parses the original.
pub(super) fn as_go_reads(document: &str) -> Cow<'_, str> {
    if document.ends_with('\n') {
        return Cow::Borrowed(document);
    }
    let mut lines = document.split('\n').rev();
    let Some(last) = lines.next().filter(|line| !line.trim().is_empty()) else {
        return Cow::Borrowed(document);
    };
    // Walk up through the lines less indented than all those below them, to the top. Each that
    // reads as a block scalar's header, and whose first content line is indented no more than
    // every line below (the scalar runs to the end), holds the last line; the outermost is the
    // header (inside a block scalar, a line such as `key: |` is text).
    let mut least_indent = indent(last);
    let mut next_indent = least_indent;
    let mut offset = document.len() - last.len();
    let mut header = None;
    for line in lines {
        offset -= line.len() + 1;
        if line.trim().is_empty() {
            continue;
        }
        let this_indent = indent(line);
        if this_indent < least_indent {
            if let Some(at) = chomping_position(line).filter(|_| least_indent >= next_indent) {
                header = Some(offset + at);
            }
            least_indent = this_indent;
        }
        next_indent = this_indent;
        if least_indent == 0 {
            break;
        }
    }
    let Some(at) = header else { return Cow::Borrowed(document) };
    let (head, tail) = document.split_at(at);
    // `+` (keep) becomes `-`; with no indicator, one is added.
    let tail = tail.strip_prefix('+').unwrap_or(tail);
    Cow::Owned(format!("{head}-{tail}"))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Where a block scalar header's chomping indicator is (or would go) in `line`, when the line
/// ends with one: `key: |`, `- >2`, `key: !!str |+  # comment`. Headers that strip already, and
/// other lines, give `None`.
fn chomping_position(line: &str) -> Option<usize> {
    let content = match line.find(" #") {
        Some(comment) => &line[..comment],
        None => line,
    }
    .trim_end();
    let indicator_at = content.rfind(['|', '>'])?;
    let indicators = &content[indicator_at + 1..];
    let well_formed = indicators.len() <= 2
        && indicators.chars().all(|c| matches!(c, '1'..='9' | '+' | '-'))
        && indicators.chars().filter(|c| c.is_ascii_digit()).count() <= 1;
    if !well_formed || indicators.contains('-') {
        return None;
    }
    // The header is a whole value: after `key:` or a list's `-`, with an optional tag or anchor.
    let before: Vec<&str> = content[..indicator_at].split_whitespace().collect();
    let value_starts = |words: &[&str]| match words.last() {
        Some(word) => word.ends_with(':') || *word == "-",
        None => false,
    };
    let properties = before.iter().rev().take_while(|word| word.starts_with(['!', '&'])).count();
    if !value_starts(&before[..before.len() - properties]) || !content[..indicator_at].ends_with(' ') {
        return None;
    }
    Some(indicator_at + 1 + indicators.find('+').unwrap_or(indicators.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scalar_running_to_an_unterminated_end_strips() {
        assert_eq!(as_go_reads("data:\n  a: |\n    x\n    y"), "data:\n  a: |-\n    x\n    y");
        assert_eq!(as_go_reads("a: >+ # keep\n  x\n    deeper\n  y"), "a: >- # keep\n  x\n    deeper\n  y");
        assert_eq!(as_go_reads("- |2\n   x"), "- |2-\n   x");
        assert_eq!(as_go_reads("a: !!str |\n  x"), "a: !!str |-\n  x");
        // A scalar that ended before the last line does not hold it.
        assert_eq!(as_go_reads("- a: |\n    text\n  b: x"), "- a: |\n    text\n  b: x");
        // A header-like line inside the scalar is its text (Argo Rollouts' notification templates).
        assert_eq!(
            as_go_reads("a: |\n  slack:\n    attachments: |\n      [{}]"),
            "a: |-\n  slack:\n    attachments: |\n      [{}]"
        );
    }

    #[test]
    fn other_documents_are_left_alone() {
        for document in [
            "a: |\n  x\n",
            "a: |\n  x\nb: c",
            "a: |-\n  x",
            "a: b |\n  x",
            "a:\n  b: |\n    x\n  c:\n    d",
            "a: |\n  x\n  ",
            "a: 'x |'\n  y",
        ] {
            assert_eq!(as_go_reads(document), document);
        }
    }
}
