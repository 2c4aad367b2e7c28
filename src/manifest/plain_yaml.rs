//! A YAML document read straight from the YAML parser's events.
//!
//! As kubectl reads it ([`Dialect::Kubectl`]): every plain scalar as go-yaml v2 reads it (YAML
//! 1.1, see [`go_yaml`]), keys included (`y:` is the key `true`), anchors and aliases, merge keys
//! as go-yaml v2 merges them (in order, a later key winning), the tags `!!str`, `!!int`,
//! `!!float`, `!!bool`, `!!null`, `!!map`, `!!seq` and tags not of YAML's own; YAML 1.1-only booleans
//! read unquoted are noted ([`Truthy`]). A key or a value that JSON cannot hold (a null key,
//! `.inf`) is refused, as kubectl refuses it.
//!
//! As kustomize's kyaml reads it ([`Dialect::Kustomize`]), only the usual manifest: collections of
//! text keys, and scalars that are text, `true`, `false`, `null`, a plain count or a fraction.
//!
//! serde-saphyr reads such a document to the same value through serde, several times slower
//! (parsing is most of a large build's time). Anything else — another tag, a duplicate key, a
//! `%YAML` directive, an error, and for kustomize an anchor, an alias, a merge key or a plain
//! scalar YAML may read as another number, boolean or null — makes [`value`] answer `None`, and
//! the caller reads the document with serde-saphyr, whose words name the errors.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use serde_saphyr::granit_parser::{ScalarStyle, Tag, YamlVersion};

use super::Dialect;
use super::yaml_events::{
    Both, Collection as YamlCollection, Comments, Flow, GO_ON, STOP, Scalar, Visitor, Walked, walk,
};
use crate::gocompat::yaml::{self as go_yaml};

/// Deeper, larger or longer documents (counted in parser events, at least one per node, and the
/// nodes aliases repeat) are left to serde-saphyr, whose budget (128 levels as `yaml_options`
/// sets it, 250,000 nodes, 64 MiB of scalars) decides whether to read them.
const MAX_DEPTH: usize = 100;
const MAX_NODES: usize = 200_000;
const MAX_BYTES: usize = 32 << 20;

/// A YAML 1.1-only boolean (`yes`, `on`, `y`, `no`, ...) read unquoted as kubectl reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Truthy {
    /// The line, counting from 1 in the document.
    pub line: usize,
    pub word: String,
    pub value: bool,
}

/// What a document read here is.
#[derive(Debug, PartialEq)]
pub(super) enum Read {
    /// Its value, with the YAML 1.1-only booleans read unquoted.
    Value(Value, Vec<Truthy>),
    /// YAML whose value JSON cannot hold, as kubectl refuses it: why, after `line L column C: `.
    Refused(String),
}

/// A collection being read, and its anchor (0 for none).
struct Open {
    collection: Collection,
    anchor: usize,
}

enum Collection {
    Sequence(Vec<Value>),
    /// A mapping, with the key whose value comes next, and once a merge key has been read the
    /// keys written in it (a merged key is no duplicate of them).
    Mapping(Map<String, Value>, Option<Key>, Option<HashSet<String>>),
}

/// A mapping key read, with where it was and whether it was written otherwise (`y` for `true`).
enum Key {
    Name {
        name: String,
        written: Option<String>,
        line: usize,
        column: usize,
    },
    /// `<<`: the value's mappings are merged in.
    Merge,
}

/// The value of the single YAML document `text` as `dialect` reads it, when it has only the
/// shapes described above.
pub(super) fn value(text: &str, dialect: Dialect) -> Option<Read> {
    if text.len() > MAX_BYTES {
        return None;
    }
    let mut reader = Reader::new(dialect);
    let walked = walk(text, Comments::Skipped, &mut reader);
    reader.read(walked)
}

/// [`value`], with `watcher` seeing the same walk first (it goes on to the end when the reading
/// stops): one reading of the text for both.
pub(super) fn value_watched<'input, W: Visitor<'input>>(
    text: &'input str,
    dialect: Dialect,
    watcher: W,
) -> (Option<Read>, W) {
    if text.len() > MAX_BYTES {
        let mut watcher = watcher;
        walk(text, Comments::Skipped, &mut watcher);
        return (None, watcher);
    }
    let mut both = Both::new(watcher, Reader::new(dialect));
    let walked = walk(text, Comments::Skipped, &mut both);
    let walked = both.second_walked(walked);
    (both.second.read(walked), both.first)
}

/// The reader: the collections open, the root once read, and what it counts.
struct Reader {
    kubectl: bool,
    last_key_wins: bool,
    open: Vec<Open>,
    root: Option<Value>,
    documents: usize,
    nodes: usize,
    anchors: HashMap<usize, (Value, usize)>,
    truthy: Vec<Truthy>,
    /// Why kubectl refuses the document, once it does.
    refused: Option<String>,
}

impl Reader {
    fn new(dialect: Dialect) -> Self {
        Reader {
            kubectl: dialect != Dialect::Kustomize,
            last_key_wins: dialect == Dialect::KustomizationFile,
            open: Vec::new(),
            root: None,
            documents: 0,
            nodes: 0,
            anchors: HashMap::new(),
            truthy: Vec::new(),
            refused: None,
        }
    }

    /// What the walk read: `None` when it stopped short of a value, for serde-saphyr to read.
    fn read(self, walked: Walked) -> Option<Read> {
        match walked {
            Walked::Failed => None,
            Walked::Stopped => self.refused.map(Read::Refused),
            Walked::Ended => self.root.map(|root| Read::Value(root, self.truthy)),
        }
    }

    /// kubectl refuses the document, with `message` at `line` and `column`.
    fn refuse(&mut self, line: usize, column: usize, message: impl std::fmt::Display) -> Flow {
        self.refused = Some(format!("line {line} column {column}: {message}"));
        STOP
    }

    /// A node read: into its collection (or the root), and its anchor remembered.
    fn add(&mut self, value: Value, anchor: usize) -> Flow {
        if anchor != 0 {
            self.anchors.insert(anchor, (value.clone(), size(&value)));
        }
        match self.open.last_mut().map(|open| &mut open.collection) {
            None if self.root.is_none() => self.root = Some(value),
            None => return STOP,
            Some(Collection::Sequence(items)) => items.push(value),
            Some(Collection::Mapping(map, next, written)) => match next.take() {
                None => return STOP,
                Some(Key::Merge) => {
                    if merge(map, written, value).is_none() {
                        return STOP;
                    }
                }
                Some(Key::Name { name, written: spelt, line, column }) => {
                    let duplicate = match written {
                        Some(written) => !written.insert(name.clone()),
                        None => map.contains_key(&name),
                    };
                    if duplicate && !self.kubectl {
                        return STOP;
                    }
                    if duplicate && self.last_key_wins {
                        // go-yaml v2 keeps the later value, where the earlier key was.
                        map.insert(name, value);
                        return GO_ON;
                    }
                    if duplicate {
                        let read_as = spelt.map(|spelt| format!(" (`{spelt}` is read as {name})")).unwrap_or_default();
                        return self.refuse(line, column, format_args!("duplicate mapping key: {name}{read_as}"));
                    }
                    map.insert(name, value);
                }
            },
        }
        GO_ON
    }

    /// A scalar as kubectl reads it.
    fn kubectl_scalar(&mut self, scalar: &mut Scalar<'_>) -> Flow {
        let (line, column) = (scalar.span.start.line(), scalar.span.start.col() + 1);
        let text = std::mem::take(&mut scalar.text);
        let plain = scalar.style == ScalarStyle::Plain && scalar.tag.is_none();
        if plain && let Some(flag) = go_yaml::yaml11_only_bool(&text) {
            self.truthy.push(Truthy { line, word: text.to_string(), value: flag });
        }
        let read = match &scalar.tag {
            None if plain => go_yaml::resolve(&text),
            None => go_yaml::Plain::Text,
            Some(tag) => match tagged(tag, &text) {
                None => return STOP,
                Some(Ok(read)) => read,
                Some(Err(message)) => return self.refuse(line, column, message),
            },
        };
        if scalar.key {
            if scalar.anchor != 0 {
                return STOP;
            }
            let key = if plain && text == "<<" {
                Key::Merge
            } else {
                // Text is moved, not copied: most keys and values are text.
                let (name, written) = match read {
                    go_yaml::Plain::Text => (text.into_owned(), None),
                    read => match go_yaml::key_name(read, &text) {
                        Ok(name) => {
                            let name = name.into_owned();
                            let written = (name != text).then(|| text.into_owned());
                            (name, written)
                        }
                        Err(err) => return self.refuse(line, column, err),
                    },
                };
                Key::Name { name, written, line, column }
            };
            set_next_key(&mut self.open, key);
            return GO_ON;
        }
        if read == go_yaml::Plain::Text {
            self.add(Value::String(text.into_owned()), scalar.anchor)
        } else {
            match go_yaml::json_value(read, &text) {
                Ok(value) => self.add(value, scalar.anchor),
                Err(float) => {
                    self.refuse(line, column, format_args!("{text} is read as {float}, which JSON cannot hold"))
                }
            }
        }
    }

    /// A scalar as kustomize's kyaml reads the usual manifest.
    fn kustomize_scalar(&mut self, scalar: &mut Scalar<'_>) -> Flow {
        if scalar.anchor != 0 || scalar.tag.is_some() {
            return STOP;
        }
        let text = std::mem::take(&mut scalar.text);
        if scalar.key {
            let Some(name) = key(text, scalar.style) else { return STOP };
            let (line, column) = (scalar.span.start.line(), scalar.span.start.col() + 1);
            set_next_key(&mut self.open, Key::Name { name, written: None, line, column });
            return GO_ON;
        }
        match self::scalar(text, scalar.style) {
            Some(value) => self.add(value, 0),
            None => STOP,
        }
    }
}

impl<'input> Visitor<'input> for Reader {
    fn event(&mut self) -> Flow {
        self.nodes += 1;
        if self.nodes > MAX_NODES { STOP } else { GO_ON }
    }

    fn document_start(&mut self, version: Option<YamlVersion>) -> Flow {
        self.documents += 1;
        if version.is_some() || self.documents > 1 { STOP } else { GO_ON }
    }

    fn scalar(&mut self, scalar: &mut Scalar<'input>) -> Flow {
        if self.kubectl { self.kubectl_scalar(scalar) } else { self.kustomize_scalar(scalar) }
    }

    fn alias(&mut self, id: usize, key: bool) -> Flow {
        if !self.kubectl || key {
            return STOP;
        }
        let Some((value, size)) = self.anchors.get(&id) else { return STOP };
        self.nodes += size;
        let value = value.clone();
        self.add(value, 0)
    }

    fn collection_start(&mut self, start: &mut YamlCollection<'input>) -> Flow {
        let core = if start.sequence { "seq" } else { "map" };
        let kubectl = self.kubectl;
        let tag_read = start.tag.as_ref().is_none_or(|tag| kubectl && (is_core(tag, core) || !is_core_handle(tag)));
        if (start.anchor != 0 && !kubectl) || !tag_read || start.key || self.open.len() >= MAX_DEPTH {
            return STOP;
        }
        let collection = match start.sequence {
            true => Collection::Sequence(Vec::new()),
            false => Collection::Mapping(Map::new(), None, None),
        };
        self.open.push(Open { collection, anchor: start.anchor });
        GO_ON
    }

    fn collection_end(&mut self, sequence: bool) -> Flow {
        let (value, anchor) = match (self.open.pop(), sequence) {
            (Some(Open { collection: Collection::Sequence(items), anchor }), true) => (Value::Array(items), anchor),
            (Some(Open { collection: Collection::Mapping(map, None, _), anchor }), false) => {
                (Value::Object(map), anchor)
            }
            _ => return STOP,
        };
        self.add(value, anchor)
    }

    /// A comment or an unresolved alias: left to serde-saphyr.
    fn other(&mut self) -> Flow {
        STOP
    }
}

fn set_next_key(open: &mut [Open], key: Key) {
    if let Some(Open { collection: Collection::Mapping(_, next, _), .. }) = open.last_mut() {
        *next = Some(key);
    }
}

/// Whether `tag` is the core schema's `!!suffix`.
fn is_core(tag: &Tag, suffix: &str) -> bool {
    tag.is_yaml_core_schema_tag(suffix)
}

/// Whether `tag` is one of YAML's own (`!!...`), which go-yaml v2 resolves or refuses; others
/// (`!thing`) it ignores.
fn is_core_handle(tag: &Tag) -> bool {
    tag.handle() == "tag:yaml.org,2002:"
}

/// What go-yaml v2 reads a scalar tagged `tag` as (`resolve(tag, text)`), or its refusal (`cannot
/// decode !!str `abc` as a !!int`); `None` for the tags left to serde-saphyr (`!!binary`,
/// `!!timestamp`, `!!map` on a scalar, ...). A tag not of YAML's own is ignored: the text stays.
fn tagged(tag: &Tag, text: &str) -> Option<Result<go_yaml::Plain, String>> {
    use go_yaml::Plain;
    if !is_core_handle(tag) || is_core(tag, "str") {
        return Some(Ok(Plain::Text));
    }
    let wanted = ["int", "float", "bool", "null"].into_iter().find(|suffix| is_core(tag, suffix))?;
    let read = go_yaml::resolve(text);
    let found = match read {
        Plain::Null => "null",
        Plain::Bool(_) => "bool",
        Plain::Int(_) | Plain::Uint(_) => "int",
        Plain::Float(_) => "float",
        Plain::Text => "str",
    };
    Some(match (wanted, read) {
        ("float", Plain::Int(integer)) => Ok(Plain::Float(integer as f64)),
        ("float", Plain::Uint(integer)) => Ok(Plain::Float(integer as f64)),
        _ if wanted == found => Ok(read),
        _ => Err(format!("cannot decode !!{found} `{text}` as a !!{wanted}")),
    })
}

/// go-yaml v2's merge of `value` (a mapping, or a sequence of them, the earlier winning) into
/// `map`: each merged key replaces what the mapping had, and a key written after the merge key
/// replaces it in turn. `None` for anything else, which go-yaml refuses.
fn merge(map: &mut Map<String, Value>, written: &mut Option<HashSet<String>>, value: Value) -> Option<()> {
    let sources = match value {
        Value::Object(source) => vec![source],
        Value::Array(items) => {
            let mut sources = Vec::with_capacity(items.len());
            for item in items.into_iter().rev() {
                match item {
                    Value::Object(source) => sources.push(source),
                    _ => return None,
                }
            }
            sources
        }
        _ => return None,
    };
    if written.is_none() {
        *written = Some(map.keys().cloned().collect());
    }
    for source in sources {
        map.extend(source);
    }
    Some(())
}

/// How many nodes `value` has: what repeating it through an alias costs.
fn size(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(size).sum::<usize>(),
        Value::Object(map) => 1 + map.values().map(|value| 1 + size(value)).sum::<usize>(),
        _ => 1,
    }
}

/// A mapping key: text, unless YAML may read it as something else (or as a merge key).
fn key(text: Cow<'_, str>, style: ScalarStyle) -> Option<String> {
    if text == "<<" || (style == ScalarStyle::Plain && may_be_other_than_text(&text)) {
        return None;
    }
    Some(text.into_owned())
}

/// A value scalar: quoted and block scalars are text; plain ones are `true`, `false`, `null`, a
/// count without a leading zero, a decimal fraction, or text that no YAML schema reads as
/// anything else.
fn scalar(text: Cow<'_, str>, style: ScalarStyle) -> Option<Value> {
    if style != ScalarStyle::Plain {
        return Some(Value::String(text.into_owned()));
    }
    match &*text {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" | "~" => return Some(Value::Null),
        _ => {}
    }
    let count = text.len() <= 18
        && text.bytes().all(|byte| byte.is_ascii_digit())
        && (text.len() == 1 || !text.starts_with('0'));
    if count {
        return text.parse::<u64>().ok().map(Value::from);
    }
    // A decimal fraction (`0.5`, `1.0`) is a float.
    let fraction = text.split_once('.').is_some_and(|(whole, part)| {
        [whole, part].iter().all(|digits| !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()))
    });
    if fraction && text.len() <= 24 {
        return text.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(Value::Number);
    }
    if may_be_other_than_text(&text) {
        return None;
    }
    Some(Value::String(text.into_owned()))
}

/// Whether a plain scalar might be read as a number, a boolean (YAML 1.1's `yes`, `on` and `y`
/// included) or a null: the empty one, the words of those types in any case, and those shaped
/// like a number: a digit then only what numbers, times and radix prefixes are written with
/// (`100Mi` and `30s` are text), or a sign or a dot then a digit or `inf`/`nan`.
fn may_be_other_than_text(text: &str) -> bool {
    const WORDS: [&str; 13] =
        ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "inf", "infinity", "nan"];
    let is_word = |text: &str| WORDS.iter().any(|word| text.eq_ignore_ascii_case(word));
    if text.is_empty() || is_word(text) {
        return true;
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let signed = unsigned.len() < text.len();
    let after_dot = unsigned.strip_prefix('.');
    match unsigned.chars().next() {
        None => true,
        // Two dots make a version or an address, never a number.
        Some(first) if first.is_ascii_digit() => {
            unsigned.chars().all(|c| c.is_ascii_hexdigit() || "._+-xXoObB:tTzZ ".contains(c))
                && unsigned.matches('.').count() < 2
        }
        Some('.') => after_dot.is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_digit() || c == '_')
                || rest
                    .get(..3)
                    .is_some_and(|start| start.eq_ignore_ascii_case("inf") || start.eq_ignore_ascii_case("nan"))
        }),
        Some(_) => signed && is_word(unsigned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kustomize(text: &str) -> Option<Value> {
        match value(text, Dialect::Kustomize)? {
            Read::Value(value, truthy) => {
                assert!(truthy.is_empty());
                Some(value)
            }
            Read::Refused(message) => panic!("refused: {message}"),
        }
    }

    fn kubectl(text: &str) -> Read {
        value(text, Dialect::Kubectl).unwrap_or_else(|| panic!("left to serde-saphyr: {text:?}"))
    }

    /// Each as `kubectl patch --local -o json` read it (kubectl 1.37.1).
    #[test]
    fn kubectl_reads_yaml_11_keys_included() {
        let text = "data:\n  y: one\n  yEs: two\n  a: yes\n  b: yEs\n  c: NO\n  d: 0777\n  e: 1_000\n  f: 1:20\n  \
                    h: 0x1F\n  i: 0o17\n  j: 1e3\n  k: Off\n  l: 08\n  n: 2001-12-14\n  p: +12\n  q: 'yes'\n  \
                    r: !!str on\n  0x1F: hex\n  1.5: float\n  t: Null\n  u: \"0777\"\n";
        let expected = json!({"data": {
            "true": "one", "yEs": "two", "a": true, "b": "yEs", "c": false, "d": 511, "e": 1000, "f": "1:20",
            "h": 31, "i": 15, "j": 1000.0, "k": false, "l": 8.0, "false": "2001-12-14", "p": 12, "q": "yes",
            "r": "on", "31": "hex", "1.5": "float", "t": null, "u": "0777",
        }});
        let Read::Value(read, truthy) = kubectl(text) else { panic!("refused") };
        assert_eq!(read, expected);
        let words: Vec<(usize, &str, bool)> = truthy.iter().map(|t| (t.line, t.word.as_str(), t.value)).collect();
        assert_eq!(words, [(2, "y", true), (4, "yes", true), (6, "NO", false), (13, "Off", false), (15, "n", false)]);
    }

    #[test]
    fn kubectl_reads_anchors_aliases_and_merge_keys_as_go_yaml_v2() {
        let text = "base: &base {a: 1, b: 2}\nlist: &list [x, y]\ncopy: *list\n\
                    merged:\n  a: 0\n  <<: [*base, {b: 3, c: 4}]\n  c: 5\n";
        let expected = json!({
            "base": {"a": 1, "b": 2},
            "list": ["x", true],
            "copy": ["x", true],
            // The merge replaces what came before it; a later key replaces the merged one.
            "merged": {"a": 1, "b": 2, "c": 5},
        });
        assert!(matches!(kubectl(text), Read::Value(read, _) if read == expected));
    }

    #[test]
    fn kubectl_refuses_what_json_cannot_hold() {
        let refused = |text: &str| match kubectl(text) {
            Read::Refused(message) => message,
            Read::Value(value, _) => panic!("read {value} from {text:?}"),
        };
        assert_eq!(refused("a: .inf\n"), "line 1 column 4: .inf is read as +Inf, which JSON cannot hold");
        assert_eq!(refused("a:\n- -.Inf\n"), "line 2 column 3: -.Inf is read as -Inf, which JSON cannot hold");
        assert_eq!(refused("~: a\n"), "line 1 column 1: a null key has no JSON name");
        assert_eq!(
            refused("data:\n  y: 1\n  yes: 2\n"),
            "line 3 column 3: duplicate mapping key: true (`yes` is read as true)"
        );
        assert_eq!(refused("a: 1\nb: 2\na: 3\n"), "line 3 column 1: duplicate mapping key: a");
    }

    /// kustomize reads its kustomization with go-yaml v2's non-strict decoding: a repeated key
    /// keeps its last value, in the place of the first.
    #[test]
    fn a_kustomization_file_keeps_a_repeated_keys_last_value() {
        let text = "a: 1\nb: on\na: 3\n";
        match value(text, Dialect::KustomizationFile) {
            Some(Read::Value(value, _)) => {
                assert_eq!(serde_json::to_string(&value).unwrap(), r#"{"a":3,"b":true}"#);
            }
            other => panic!("{other:?}"),
        }
    }

    /// Each as `kubectl patch --local -o json` read it (kubectl 1.37.1).
    #[test]
    fn kubectl_reads_tags_as_go_yaml_v2() {
        let text = "int: !!int \"12\"\nfloat: !!float 3\nbool: !!bool \"Off\"\nnothing: !!null \"\"\n\
                    str: !!str 0777\ncustom: !thing yes\nmap: !thing {a: on}\nseq: !!seq [y]\n";
        let expected = json!({
            "int": 12, "float": 3.0, "bool": false, "nothing": null, "str": "0777", "custom": "yes",
            "map": {"a": true}, "seq": [true],
        });
        let Read::Value(read, truthy) = kubectl(text) else { panic!("refused") };
        assert_eq!(read, expected);
        // Only the untagged words are warned of.
        assert_eq!(truthy.iter().map(|t| t.word.as_str()).collect::<Vec<_>>(), ["on", "y"]);
        assert_eq!(
            kubectl("a: !!int abc\n"),
            Read::Refused("line 1 column 10: cannot decode !!str `abc` as a !!int".into())
        );
    }

    #[test]
    fn kubectl_leaves_other_tags_to_serde_saphyr() {
        for text in ["a: !!binary aGk=\n", "a: !!map x\n", "&k a: 1\n", "? [a]\n: 1\n", "a: *missing\n"] {
            assert_eq!(value(text, Dialect::Kubectl), None, "{text:?}");
        }
    }

    #[test]
    fn the_usual_shapes_are_read_as_serde_saphyr_reads_them() {
        let text = "kind: Service\nspec:\n  ports:\n  - port: 80\n    name: \"80\"\n  flag: true\n  none: null\n  empty:\n  list: [a, 'b', 0]\nnote: |\n  two\n  lines\n";
        let expected = json!({
            "kind": "Service",
            "spec": {"ports": [{"port": 80, "name": "80"}], "flag": true, "none": null, "empty": null, "list": ["a", "b", 0]},
            "note": "two\nlines\n",
        });
        assert_eq!(kustomize(text), Some(expected));
        let texts = "memory: 100Mi\nperiod: 30s\nversion: 13.0.2\nratio: [0.5, 1.0, 01.50]\nargs: [--port=80, -Xmx1g, ./run, ..., .x, info, nano, yesterday, v1.2]\n";
        let reference: Value = serde_saphyr::from_str(texts).unwrap();
        assert_eq!(kustomize(texts), Some(reference));
    }

    #[test]
    fn what_yaml_may_read_otherwise_is_left_to_serde_saphyr() {
        for text in [
            "a: yes\n",
            "a: On\n",
            "a: y\n",
            "a: 0755\n",
            "a: -1\n",
            "a: .inf\n",
            "a: Infinity\n",
            "a: -.inf\n",
            "a: +1\n",
            "a: 0x1F\n",
            "a: .5\n",
            "a: 12:30\n",
            "a: 1e3\n",
            "a: NaN\n",
            "a: 2001-12-14\n",
            "a: True\n",
            "a: NULL\n",
            "1: a\n",
            "y: a\n",
            "a: !!str 1\n",
            "a: &x 1\nb: *x\n",
            "<<: {a: 1}\n",
            "a: 1\na: 2\n",
            "? [a]\n: 1\n",
            "%YAML 1.1\n---\na: 1\n",
            "a: [unclosed\n",
            "",
            "a: 99999999999999999999\n",
        ] {
            assert_eq!(value(text, Dialect::Kustomize), None, "{text:?}");
        }
        let many_nodes = format!("[{}]", "1, ".repeat(MAX_NODES));
        assert_eq!(value(&many_nodes, Dialect::Kustomize), None);
        assert!(value(&format!("[{}]", "1, ".repeat(1000)), Dialect::Kustomize).is_some());
    }
}
