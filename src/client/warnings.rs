//! The `Warning` headers of the API server's answers (deprecated APIs, unknown fields under
//! `fieldValidation=Warn`, admission webhooks): parsed, and each distinct text handed once to the
//! handler the caller installed, as kubectl shows each warning once.

use std::collections::HashSet;
use std::sync::Mutex;

use http::HeaderMap;

/// What to do with a warning's text.
type Handler = Box<dyn Fn(&str) + Send + Sync>;

/// The warnings of one connection: the texts seen so far and where they go.
#[derive(Default)]
pub(crate) struct Warnings {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    seen: HashSet<String>,
    handler: Option<Handler>,
}

impl Warnings {
    /// Sends every warning not seen before to `handler`, from now on.
    pub(crate) fn set_handler(&self, handler: Handler) {
        self.lock().handler = Some(handler);
    }

    /// Takes the warnings of one answer's headers.
    pub(crate) fn record(&self, headers: &HeaderMap) {
        for value in headers.get_all(http::header::WARNING) {
            let Ok(value) = value.to_str() else { continue };
            for text in parse(value) {
                let mut state = self.lock();
                if state.seen.insert(text.clone())
                    && let Some(handler) = &state.handler
                {
                    handler(&text);
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The texts of a `Warning` header (RFC 7234: `299 - "text"`, several separated by commas). Only
/// code 299, the one Kubernetes sends, is taken; a value that does not parse is skipped.
fn parse(header: &str) -> Vec<String> {
    let mut texts = Vec::new();
    let mut rest = header;
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        let Some((code, after_code)) = rest.split_once(' ') else { break };
        let Some((_agent, after_agent)) = after_code.split_once(' ') else { break };
        let Some((text, after_text)) = quoted(after_agent) else { break };
        if code == "299" {
            texts.push(text);
        }
        // An optional quoted date follows; the next warning starts after a comma.
        rest = match after_text.find(',') {
            Some(at) => &after_text[at..],
            None => break,
        };
    }
    texts
}

/// The quoted string that `text` starts with, unescaped, and what follows it.
fn quoted(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut unquoted = String::new();
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => unquoted.push(chars.next()?.1),
            '"' => return Some((unquoted, &body[at + 1..])),
            c => unquoted.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn headers_parse_like_kubernetes_writes_them() {
        assert_eq!(parse(r#"299 - "a is deprecated""#), ["a is deprecated"]);
        assert_eq!(parse(r#"299 - "say \"hi\", twice" "Tue, 15 Nov 1994 08:12:31 GMT""#), [r#"say "hi", twice"#]);
        assert_eq!(parse(r#"299 - "one", 299 - "two", 199 - "not ours""#), ["one", "two"]);
        assert!(parse("299 - unquoted").is_empty());
        assert!(parse("").is_empty());
    }

    #[test]
    fn each_text_reaches_the_handler_once() {
        let warnings = Warnings::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        warnings.set_handler(Box::new(move |text| sink.lock().unwrap().push(text.to_string())));
        let mut headers = HeaderMap::new();
        headers.append(http::header::WARNING, r#"299 - "old API""#.parse().unwrap());
        headers.append(http::header::WARNING, r#"299 - "unknown field""#.parse().unwrap());
        warnings.record(&headers);
        warnings.record(&headers);
        assert_eq!(*seen.lock().unwrap(), ["old API", "unknown field"]);
    }
}
