//! kustomize's regular expressions (Go's `regexp`, RE2 syntax): patch targets' group, version,
//! kind, name and namespace, anchored as kustomize anchors them, and replacements' `[field=value]`
//! list selectors, unanchored. Compiled with the `regex` crate, whose syntax is RE2's; a pattern
//! that does not compile fails with Go's words for it.

use std::collections::HashMap;
use std::convert::Infallible;
use std::ops::Range;
use std::sync::{Mutex, OnceLock};

use regex::Regex;
use regex_syntax::ast::{self, Ast, Visitor};
use regex_syntax::hir;

use super::error::Error;

/// A compiled pattern. One without metacharacters (most selectors name a kind or a name) is
/// compared as text: the same answers, without building a regular expression per patch.
#[derive(Debug)]
pub enum Pattern {
    /// Matches a value equal to the text.
    Whole(String),
    /// Matches a value holding the text.
    Within(String),
    Regex(Regex),
}

impl Pattern {
    pub fn is_match(&self, text: &str) -> bool {
        match self {
            Pattern::Whole(literal) => text == literal,
            Pattern::Within(literal) => text.contains(literal.as_str()),
            Pattern::Regex(regex) => regex.is_match(text),
        }
    }
}

fn is_literal(pattern: &str) -> bool {
    !pattern.chars().any(regex_syntax::is_meta_character)
}

/// `pattern` as kustomize compiles a selector's field: it must match the whole value.
pub fn anchored(pattern: &str) -> Result<Pattern, Error> {
    if is_literal(pattern) {
        return Ok(Pattern::Whole(pattern.to_string()));
    }
    regex(&format!("^(?:{pattern})$")).map(Pattern::Regex)
}

/// `pattern` as Go compiles it: it may match anywhere in a value.
pub fn compile(pattern: &str) -> Result<Pattern, Error> {
    if is_literal(pattern) {
        return Ok(Pattern::Within(pattern.to_string()));
    }
    regex(pattern).map(Pattern::Regex)
}

/// `pattern` compiled once per process: a build's patch targets repeat the same few groups
/// (`rbac.authorization.k8s.io` is a pattern: its dots match any character), and compiling one
/// costs more than the patch it selects for.
fn regex(pattern: &str) -> Result<Regex, Error> {
    static COMPILED: OnceLock<Mutex<HashMap<String, Regex>>> = OnceLock::new();
    let compiled = COMPILED.get_or_init(Mutex::default);
    if let Some(regex) = compiled.lock().expect("no thread panics holding it").get(pattern) {
        return Ok(regex.clone());
    }
    let regex = compile_regex(pattern)?;
    compiled.lock().expect("no thread panics holding it").insert(pattern.to_string(), regex.clone());
    Ok(regex)
}

fn compile_regex(pattern: &str) -> Result<Regex, Error> {
    let ast = ast::parse::Parser::new().parse(pattern).map_err(|err| go_words(syntax_error(&err)))?;
    if let Some(refusal) = go_refusal(pattern, &ast) {
        return Err(go_words(refusal));
    }
    hir::translate::Translator::new().translate(pattern, &ast).map_err(|err| go_words(meaning_error(&err)))?;
    let as_go_means_it =
        ast::visit(&ast, GoMeaning { pattern, edits: Vec::new() }).unwrap_or_else(|never| match never {});
    Regex::new(&as_go_means_it).map_err(|_| go_words(("expression too large", pattern.to_string())))
}

/// Go's `error parsing regexp: CODE: `FRAGMENT``.
fn go_words((code, fragment): (&'static str, String)) -> Error {
    Error::Regexp { code, fragment }
}

/// Go's code and fragment for a pattern the parser refuses.
fn syntax_error(err: &ast::Error) -> (&'static str, String) {
    use ast::ErrorKind::*;
    let pattern = err.pattern();
    let span = err.span();
    let text = pattern[span.start.offset..span.end.offset].to_string();
    // Go quotes a group's flags from the `(?` that opens it up to the character it stopped at.
    let group_start = group_start(pattern, span.start.offset);
    let from_group = || {
        let stopped_at = pattern[span.start.offset..].chars().next().map_or(0, char::len_utf8);
        pattern[group_start..span.end.offset.max(span.start.offset + stopped_at)].to_string()
    };
    // A group's name up to its `>`, or to the end when there is none.
    let named_group = || {
        let rest = &pattern[group_start..];
        rest.find('>').map_or(rest, |end| &rest[..=end]).to_string()
    };
    // And an escape from its backslash.
    let from_backslash = || {
        let start = pattern[..span.start.offset].rfind('\\').unwrap_or(span.start.offset);
        pattern[start..span.end.offset].to_string()
    };
    match err.kind() {
        GroupUnclosed => ("missing closing )", pattern.to_string()),
        GroupUnopened => ("unexpected )", pattern.to_string()),
        ClassUnclosed => ("missing closing ]", pattern[span.start.offset..].to_string()),
        ClassRangeInvalid | ClassRangeLiteral => ("invalid character class range", text),
        EscapeUnexpectedEof => ("trailing backslash at end of expression", String::new()),
        RepetitionMissing => ("missing argument to repetition operator", operator(&pattern[span.start.offset..])),
        RepetitionCountInvalid => ("invalid repeat count", text),
        NestLimitExceeded(_) => ("expression nests too deeply", pattern.to_string()),
        // Go (since 1.22) reads `(?<` as the start of a group's name too.
        UnsupportedLookAround if pattern[group_start..].starts_with("(?<") => ("invalid named capture", named_group()),
        UnsupportedLookAround => {
            ("invalid or unsupported Perl syntax", pattern[group_start..].chars().take(3).collect())
        }
        FlagUnrecognized
        | FlagDanglingNegation
        | FlagDuplicate { .. }
        | FlagRepeatedNegation { .. }
        | FlagUnexpectedEof => ("invalid or unsupported Perl syntax", from_group()),
        EscapeHexEmpty | EscapeHexInvalid | EscapeHexInvalidDigit => ("invalid escape sequence", from_backslash()),
        GroupNameDuplicate { .. } | GroupNameEmpty | GroupNameInvalid | GroupNameUnexpectedEof => {
            ("invalid named capture", named_group())
        }
        _ => ("invalid escape sequence", text),
    }
}

/// Where the group whose `(?` is at, or just before, `offset` opens.
fn group_start(pattern: &str, offset: usize) -> usize {
    let mut end = offset + pattern[offset..].chars().next().map_or(0, char::len_utf8);
    if pattern[end..].starts_with('?') {
        end += 1;
    }
    pattern[..end].rfind("(?").unwrap_or(offset)
}

/// The repetition operator `text` starts with, as Go quotes it: `*`, `+?`, `{2,3}`.
fn operator(text: &str) -> String {
    let end = match text.chars().next() {
        Some('{') => text.find('}').map_or(text.len(), |close| close + 1),
        Some(_) => 1,
        None => 0,
    };
    let lazy = text[end..].starts_with('?');
    text[..end + usize::from(lazy)].to_string()
}

/// Go's code and fragment for a pattern that parses but names what does not exist.
fn meaning_error(err: &hir::Error) -> (&'static str, String) {
    let span = err.span();
    let text = err.pattern()[span.start.offset..span.end.offset].to_string();
    match err.kind() {
        hir::ErrorKind::UnicodePropertyNotFound | hir::ErrorKind::UnicodePropertyValueNotFound => {
            ("invalid character class range", text)
        }
        _ => ("invalid escape sequence", text),
    }
}

/// What Go refuses that the regex crate takes: a repetition operator right after another
/// (`a**`, `x{2}{3}`), a count above 1000, and the flags `x`, `u` and `R`. The first, in Go's words.
fn go_refusal(pattern: &str, ast: &Ast) -> Option<(&'static str, String)> {
    let first = |asts: &[Ast]| asts.iter().find_map(|ast| go_refusal(pattern, ast));
    match ast {
        Ast::Repetition(outer) => {
            if let Ast::Repetition(inner) = outer.ast.as_ref() {
                let both = &pattern[inner.op.span.start.offset..outer.op.span.end.offset];
                return Some(("invalid nested repetition operator", both.to_string()));
            }
            if let ast::RepetitionKind::Range(range) = &outer.op.kind {
                let (ast::RepetitionRange::Exactly(count)
                | ast::RepetitionRange::AtLeast(count)
                | ast::RepetitionRange::Bounded(_, count)) = *range;
                if count > 1000 {
                    let op = &pattern[outer.op.span.start.offset..outer.op.span.end.offset];
                    return Some(("invalid repeat count", op.trim_end_matches('?').to_string()));
                }
            }
            go_refusal(pattern, &outer.ast)
        }
        Ast::Flags(set) => unsupported_flag(pattern, &set.flags),
        Ast::Group(group) => match &group.kind {
            ast::GroupKind::NonCapturing(flags) => unsupported_flag(pattern, flags),
            _ => None,
        }
        .or_else(|| go_refusal(pattern, &group.ast)),
        Ast::Alternation(alternation) => first(&alternation.asts),
        Ast::Concat(concat) => first(&concat.asts),
        _ => None,
    }
}

/// Go knows the flags `i`, `m`, `s` and `U` only; it quotes a group from its `(?` to the flag.
fn unsupported_flag(pattern: &str, flags: &ast::Flags) -> Option<(&'static str, String)> {
    let unsupported = flags.items.iter().find(|item| {
        matches!(
            item.kind,
            ast::FlagsItemKind::Flag(ast::Flag::IgnoreWhitespace | ast::Flag::Unicode | ast::Flag::CRLF)
        )
    })?;
    let start = flags.span.start.offset.saturating_sub(2);
    Some(("invalid or unsupported Perl syntax", pattern[start..unsupported.span.end.offset].to_string()))
}

/// Rewrites what the regex crate reads otherwise than Go: Go's `\d`, `\w`, `\s` and `\b` are
/// ASCII only (the crate's are Unicode), and Go reads `\<` and `\>` as characters and
/// `\b{start}` as `\b` then the characters `{start}` (the crate, as assertions).
struct GoMeaning<'a> {
    pattern: &'a str,
    /// Spans of the pattern and what replaces them, in order.
    edits: Vec<(Range<usize>, String)>,
}

impl Visitor for GoMeaning<'_> {
    type Output = String;
    type Err = Infallible;

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), Infallible> {
        use ast::AssertionKind::*;
        match ast {
            Ast::ClassPerl(class) => self.edits.push((range(&class.span), ascii_class(class))),
            Ast::Assertion(assertion) => {
                let text = &self.pattern[range(&assertion.span)];
                let replacement = match assertion.kind {
                    WordBoundary => r"(?-u:\b)".to_string(),
                    NotWordBoundary => r"(?-u:\B)".to_string(),
                    WordBoundaryStartAngle | WordBoundaryEndAngle => text[1..].to_string(),
                    WordBoundaryStart | WordBoundaryEnd | WordBoundaryStartHalf | WordBoundaryEndHalf => {
                        format!(r"(?-u:\b){}", regex::escape(&text[2..]))
                    }
                    _ => return Ok(()),
                };
                self.edits.push((range(&assertion.span), replacement));
            }
            _ => {}
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ast::ClassSetItem) -> Result<(), Infallible> {
        if let ast::ClassSetItem::Perl(class) = item {
            self.edits.push((range(&class.span), ascii_class(class)));
        }
        Ok(())
    }

    fn finish(mut self) -> Result<String, Infallible> {
        self.edits.sort_by_key(|(span, _)| span.start);
        let mut rewritten = String::with_capacity(self.pattern.len());
        let mut done = 0;
        for (span, replacement) in self.edits {
            rewritten.push_str(&self.pattern[done..span.start]);
            rewritten.push_str(&replacement);
            done = span.end;
        }
        rewritten.push_str(&self.pattern[done..]);
        Ok(rewritten)
    }
}

fn range(span: &ast::Span) -> Range<usize> {
    span.start.offset..span.end.offset
}

/// Go's `\d`, `\s`, `\w` (or their negations) as a class of ASCII characters (which the crate
/// also takes nested in a bracketed class).
fn ascii_class(class: &ast::ClassPerl) -> String {
    let members = match class.kind {
        ast::ClassPerlKind::Digit => "0-9",
        ast::ClassPerlKind::Space => r"\t\n\f\r ",
        ast::ClassPerlKind::Word => "0-9A-Za-z_",
    };
    format!("[{}{members}]", if class.negated { "^" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_match_whole_values_and_list_selectors_anywhere() {
        let target = anchored("web|db-\\d+").unwrap();
        assert!(target.is_match("web") && target.is_match("db-12"));
        assert!(!target.is_match("web-2") && !target.is_match("my-db-1"));
        let list_selector = compile("[a-z]+-side").unwrap();
        assert!(list_selector.is_match("app-side-car") && !list_selector.is_match("APP-side"));
    }

    #[test]
    fn perl_classes_and_word_boundaries_are_ascii_as_in_go() {
        let go = |pattern: &str, text: &str| compile(pattern).unwrap().is_match(text);
        assert!(go(r"^\d+$", "2024") && !go(r"^\d+$", "２０２４"));
        assert!(go(r"^\w+$", "web_2") && !go(r"^\w+$", "café") && go(r"^[\w.]+$", "a.b") && !go(r"^[\W]$", "a"));
        assert!(go(r"^\s$", "\t") && !go(r"^\s$", "\u{a0}") && !go(r"^\s$", "\u{b}") && go(r"^\S$", "é"));
        assert!(go(r"\bweb\b", "my web") && go(r"\bweb\b", "éweb") && !go(r"\Bweb", "a web"));
        assert!(go(r"^\<a\>$", "<a>") && go(r"^a\b{end}$", "a{end}") && go(r"(?i)^\w$", "\u{212a}"));
    }

    /// Go's messages, as `kubectl kustomize` prints them for these patterns.
    #[test]
    fn invalid_patterns_fail_in_gos_words() {
        let cases = [
            ("a(b", "missing closing ): `a(b`"),
            ("a)", "unexpected ): `a)`"),
            ("x[a-", "missing closing ]: `[a-`"),
            ("[z-a]", "invalid character class range: `z-a`"),
            (r"\q", r"invalid escape sequence: `\q`"),
            (r"\1", r"invalid escape sequence: `\1`"),
            ("a\\", "trailing backslash at end of expression: ``"),
            ("*a", "missing argument to repetition operator: `*`"),
            ("a|+?", "missing argument to repetition operator: `+?`"),
            ("{2}", "missing argument to repetition operator: `{2}`"),
            ("a**", "invalid nested repetition operator: `**`"),
            ("a+*?", "invalid nested repetition operator: `+*?`"),
            ("x{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
            ("a{2,1}", "invalid repeat count: `{2,1}`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("(?i)a(?x:b)", "invalid or unsupported Perl syntax: `(?x`"),
            ("(?<=x)", "invalid named capture: `(?<=x)`"),
            (r"\xZ", r"invalid escape sequence: `\xZ`"),
            (r"\x{110000}", r"invalid escape sequence: `\x{110000`"),
            ("(?=x)", "invalid or unsupported Perl syntax: `(?=`"),
            ("(?z)", "invalid or unsupported Perl syntax: `(?z`"),
            ("(?P<>x)", "invalid named capture: `(?P<>`"),
            ("(?P<a", "invalid named capture: `(?P<a`"),
            (r"\p{Foo}", r"invalid character class range: `\p{Foo}`"),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|(pattern, words)| {
                let error = compile(pattern).unwrap_err();
                (error.to_string() != format!("error parsing regexp: {words}")).then(|| format!("{pattern}: {error}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
        assert_eq!(anchored("a(b").unwrap_err().to_string(), "error parsing regexp: missing closing ): `^(?:a(b)$`");
    }
}
