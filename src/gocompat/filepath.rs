//! Go's `path/filepath` as kubectl's `-f` reads a path that does not exist: a pattern
//! (`filepath.Glob`, `filepath.Match`) whose matches are the files, and `filepath.Clean` for the
//! names of what it matched. `**` is `*` (Go has no recursive pattern), a class is negated by
//! `^` (`[!a]` matches `!` or `a`), `\` escapes.

use std::fmt;

/// Go's `filepath.ErrBadPattern`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadPattern;

impl fmt::Display for BadPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("syntax error in pattern")
    }
}

impl std::error::Error for BadPattern {}

/// Whether `pattern` has Go's pattern characters (`*?[\`).
pub fn has_meta(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '\\'])
}

/// Go's `filepath.Glob`: the paths `pattern` matches, each directory's names in byte order; an
/// unreadable directory matches nothing.
pub fn glob(pattern: &str) -> Result<Vec<String>, BadPattern> {
    matches(pattern, "")?;
    if !has_meta(pattern) {
        return Ok(std::fs::symlink_metadata(pattern).map(|_| vec![pattern.to_string()]).unwrap_or_default());
    }
    let (dir, file) = pattern.rsplit_once('/').map_or(("", pattern), |(dir, file)| (dir, file));
    // Go's `cleanGlobPath`: no directory is `.`, the root stays `/`.
    let dir = match (dir, pattern.contains('/')) {
        (_, false) => ".",
        ("", true) => "/",
        (dir, true) => dir,
    };
    if !has_meta(dir) {
        return glob_in(dir, file);
    }
    if dir == pattern {
        return Err(BadPattern);
    }
    let mut found = Vec::new();
    for dir in glob(dir)? {
        found.extend(glob_in(&dir, file)?);
    }
    Ok(found)
}

/// The names in `dir` that `pattern` matches, joined to it.
fn glob_in(dir: &str, pattern: &str) -> Result<Vec<String>, BadPattern> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(Vec::new()) };
    let mut names: Vec<String> =
        entries.filter_map(|entry| entry.ok()).map(|entry| entry.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let mut found = Vec::new();
    for name in names {
        if matches(pattern, &name)? {
            found.push(clean(&format!("{dir}/{name}")));
        }
    }
    Ok(found)
}

/// Go's `filepath.Match`: whether all of `name` matches `pattern`; a malformed pattern is an
/// error, found even where the name already failed to match.
pub fn matches(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let (mut pattern, mut name) = (pattern, name);
    'chunks: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            // A trailing `*` matches the rest of the name unless it has a `/`.
            return Ok(!name.contains('/'));
        }
        let (left, err) = match_chunk(chunk, name);
        if let Some(left) = left.filter(|left| left.is_empty() || !pattern.is_empty()) {
            name = left;
            continue;
        }
        err?;
        if star {
            for (at, _) in name.char_indices().take_while(|(_, c)| *c != '/') {
                let skipped = &name[at + name[at..].chars().next().map_or(1, char::len_utf8)..];
                let (left, err) = match_chunk(chunk, skipped);
                if let Some(left) = left {
                    if pattern.is_empty() && !left.is_empty() {
                        continue;
                    }
                    name = left;
                    continue 'chunks;
                }
                err?;
            }
        }
        // No match: the rest of the pattern must still be well-formed.
        while !pattern.is_empty() {
            let (_, chunk, rest) = scan_chunk(pattern);
            pattern = rest;
            match_chunk(chunk, "").1?;
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Go's `scanChunk`: the leading stars, then the text up to the next star outside a class.
fn scan_chunk(pattern: &str) -> (bool, &str, &str) {
    let rest = pattern.trim_start_matches('*');
    let star = rest.len() < pattern.len();
    let bytes = rest.as_bytes();
    let (mut at, mut in_class) = (0, false);
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if at + 1 < bytes.len() => at += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'*' if !in_class => break,
            _ => {}
        }
        at += 1;
    }
    (star, &rest[..at], &rest[at..])
}

/// Go's `matchChunk`: what is left of `name` once `chunk` matched its start (`None`: no match),
/// and whether `chunk` is malformed (read to its end even once the match failed).
fn match_chunk<'a>(chunk: &str, name: &'a str) -> (Option<&'a str>, Result<(), BadPattern>) {
    let (mut chunk, mut name) = (chunk, name);
    let mut failed = false;
    while let Some(first) = chunk.chars().next() {
        failed |= name.is_empty();
        match first {
            '[' => {
                let mut rune = '\0';
                if !failed {
                    rune = name.chars().next().expect("not empty");
                    name = &name[rune.len_utf8()..];
                }
                chunk = &chunk[1..];
                let negated = chunk.starts_with('^');
                if negated {
                    chunk = &chunk[1..];
                }
                let (mut matched, mut ranges) = (false, 0);
                loop {
                    if ranges > 0 && chunk.starts_with(']') {
                        chunk = &chunk[1..];
                        break;
                    }
                    let low;
                    (low, chunk) = match class_char(chunk) {
                        Ok(read) => read,
                        Err(err) => return (None, Err(err)),
                    };
                    let mut high = low;
                    if chunk.starts_with('-') {
                        (high, chunk) = match class_char(&chunk[1..]) {
                            Ok(read) => read,
                            Err(err) => return (None, Err(err)),
                        };
                    }
                    matched |= low <= rune && rune <= high;
                    ranges += 1;
                }
                failed |= matched == negated;
            }
            '?' => {
                if !failed {
                    let c = name.chars().next().expect("not empty");
                    failed = c == '/';
                    name = &name[c.len_utf8()..];
                }
                chunk = &chunk[1..];
            }
            _ => {
                if first == '\\' {
                    chunk = &chunk[1..];
                    if chunk.is_empty() {
                        return (None, Err(BadPattern));
                    }
                }
                let literal = chunk.as_bytes()[0];
                if !failed {
                    failed = name.as_bytes()[0] != literal;
                    name = name.get(1..).unwrap_or_default();
                }
                chunk = chunk.get(1..).unwrap_or_default();
            }
        }
    }
    (if failed { None } else { Some(name) }, Ok(()))
}

/// Go's `getEsc`: one character of a class (`\` escaping it), and the class after it.
fn class_char(chunk: &str) -> Result<(char, &str), BadPattern> {
    let chunk = match chunk.strip_prefix('\\') {
        Some(escaped) if !escaped.is_empty() => escaped,
        Some(_) => return Err(BadPattern),
        None if chunk.is_empty() || chunk.starts_with(['-', ']']) => return Err(BadPattern),
        None => chunk,
    };
    let c = chunk.chars().next().ok_or(BadPattern)?;
    let rest = &chunk[c.len_utf8()..];
    if rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((c, rest))
}

/// Go's `filepath.Clean`: the shortest path naming the same file, read by its text alone (`./a`
/// is `a`, `a//b/../c` is `a/c`).
pub fn clean(path: &str) -> String {
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            ".." if rooted => {}
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Cases from Go's path/filepath match tests (Go 1.26).
    #[test]
    fn patterns_match_as_gos_match() {
        let cases: &[(&str, &str, Result<bool, BadPattern>)] = &[
            ("abc", "abc", Ok(true)),
            ("*", "abc", Ok(true)),
            ("*c", "abc", Ok(true)),
            ("a*", "a", Ok(true)),
            ("a*", "abc", Ok(true)),
            ("a*", "ab/c", Ok(false)),
            ("a*/b", "abc/b", Ok(true)),
            ("a*/b", "a/c/b", Ok(false)),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", Ok(false)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", Ok(false)),
            ("a*b?c*x", "abxbbxdbxebxczzx", Ok(true)),
            ("a*b?c*x", "abxbbxdbxebxczzy", Ok(false)),
            ("ab[c]", "abc", Ok(true)),
            ("ab[b-d]", "abc", Ok(true)),
            ("ab[e-g]", "abc", Ok(false)),
            ("ab[^c]", "abc", Ok(false)),
            ("ab[^b-d]", "abc", Ok(false)),
            ("ab[^e-g]", "abc", Ok(true)),
            ("a\\*b", "a*b", Ok(true)),
            ("a\\*b", "ab", Ok(false)),
            ("a?b", "a☺b", Ok(true)),
            ("a[^a]b", "a☺b", Ok(true)),
            ("a???b", "a☺b", Ok(false)),
            ("a[^a][^a][^a]b", "a☺b", Ok(false)),
            ("[a-ζ]*", "α", Ok(true)),
            ("*[a-ζ]", "A", Ok(false)),
            ("a?b", "a/b", Ok(false)),
            ("a*b", "a/b", Ok(false)),
            ("[\\]a]", "]", Ok(true)),
            ("[\\-]", "-", Ok(true)),
            ("[x\\-]", "x", Ok(true)),
            ("[x\\-]", "-", Ok(true)),
            ("[x\\-]", "z", Ok(false)),
            ("[\\-x]", "x", Ok(true)),
            ("[\\-x]", "-", Ok(true)),
            ("[\\-x]", "a", Ok(false)),
            ("[]a]", "]", Err(BadPattern)),
            ("[-]", "-", Err(BadPattern)),
            ("[x-]", "x", Err(BadPattern)),
            ("[x-]", "-", Err(BadPattern)),
            ("[x-]", "z", Err(BadPattern)),
            ("[-x]", "x", Err(BadPattern)),
            ("[-x]", "-", Err(BadPattern)),
            ("[-x]", "a", Err(BadPattern)),
            ("\\", "a", Err(BadPattern)),
            ("[a-b-c]", "a", Err(BadPattern)),
            ("[", "a", Err(BadPattern)),
            ("[^", "a", Err(BadPattern)),
            ("[^bc", "a", Err(BadPattern)),
            ("a[", "a", Err(BadPattern)),
            ("a[", "ab", Err(BadPattern)),
            ("a[", "x", Err(BadPattern)),
            ("a/b[", "x", Err(BadPattern)),
            ("*x", "xxx", Ok(true)),
        ];
        for (pattern, name, expected) in cases {
            assert_eq!(matches(pattern, name), *expected, "{pattern} {name}");
        }
    }

    #[test]
    fn globs_find_what_gos_glob_finds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        for file in ["a/x.yaml", "a/y.json", "b/z.yaml", "c.yaml"] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let found = |pattern: &str| -> Vec<String> {
            glob(&format!("{root}/{pattern}")).unwrap().iter().map(|path| path[root.len() + 1..].to_string()).collect()
        };
        assert_eq!(found("*/*.yaml"), ["a/x.yaml", "b/z.yaml"]);
        assert_eq!(found("**/*.yaml"), ["a/x.yaml", "b/z.yaml"]);
        assert_eq!(found("*"), ["a", "b", "c.yaml"]);
        assert_eq!(found("[^a]/*"), ["b/z.yaml"]);
        assert_eq!(found("?/*.json"), ["a/y.json"]);
        assert!(found("*/").is_empty());
        assert!(found("*.nothing").is_empty());
        assert_eq!(glob(&format!("{root}/[]/*")), Err(BadPattern));
        assert_eq!(clean("./k8s//a/../b.yaml"), "k8s/b.yaml");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(clean("../../a"), "../../a");
        assert_eq!(clean("./"), ".");
    }
}
