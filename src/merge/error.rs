//! Merge errors that say what went wrong and where in the object.

use std::fmt;

use serde_json::Value;

use crate::schema::SchemaError;

/// A failed merge: what went wrong, at which path of the object (e.g. `spec.template.spec.containers[1]`).
#[derive(Debug, Clone, PartialEq)]
pub struct MergeError {
    /// Innermost segment first; reversed when printed.
    path: Vec<Segment>,
    /// What went wrong.
    pub kind: ErrorKind,
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// What went wrong in a merge.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    #[error("the element {element} does not contain declared merge key {key:?}")]
    MissingMergeKey { key: String, element: String },
    #[error("expected {expected}, but received {found}")]
    WrongType { expected: &'static str, found: String },
    #[error("unknown patch type: {directive} in map: {map}")]
    UnknownDirective { directive: String, map: String },
    #[error("invalid value for special key: $patch")]
    InvalidDirectiveValue,
    #[error("merging lists cannot yet be specified in the patch")]
    MergeDirectiveInList,
    #[error("cannot merge lists without merge key for {0}")]
    NoMergeKey(String),
    #[error("lists of lists are not supported")]
    ListOfLists,
    #[error("list element types are not identical: {0}")]
    MixedElementTypes(String),
    #[error("no elements in any of the given slices")]
    NoElements,
    #[error("invalid patch format of primitive list")]
    BadDeleteFromPrimitiveList,
    #[error("invalid patch format of retainKeys")]
    BadRetainKeys,
    #[error("{0} and {1} are not deep equal: this may happen when calculating the 3-way diff patch")]
    RetainKeysMismatch(String, String),
    #[error("invalid patch format of setElementOrder list")]
    BadSetElementOrder,
    #[error("the order in patch list:\n{patch}\n doesn't match $setElementOrder list:\n{order}")]
    OrderMismatch { patch: String, order: String },
    #[error("patch:\n{patch}\nconflicts with changes made from original to current:\n{changed}")]
    Conflict { patch: String, changed: String },
    #[error("{0}")]
    Schema(#[from] SchemaError),
    #[error("{0}")]
    InvalidDocument(String),
}

impl MergeError {
    /// An error at the root of the object.
    pub fn new(kind: ErrorKind) -> Self {
        MergeError { path: Vec::new(), kind }
    }

    /// The path of the value the error is about, e.g. `spec.template.spec.containers[1]`.
    pub fn path(&self) -> String {
        let mut text = String::new();
        for segment in self.path.iter().rev() {
            match segment {
                Segment::Index(index) => text.push_str(&format!("[{index}]")),
                Segment::Key(key) if is_plain(key) => {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    text.push_str(key);
                }
                Segment::Key(key) => text.push_str(&format!("[{key:?}]")),
            }
        }
        text
    }

    /// Whether this is a conflict between the new configuration and changes made by others.
    pub fn is_conflict(&self) -> bool {
        matches!(self.kind, ErrorKind::Conflict { .. })
    }
}

fn is_plain(key: &str) -> bool {
    !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$')
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() { write!(f, "{}", self.kind) } else { write!(f, "{}: {}", self.path(), self.kind) }
    }
}

impl std::error::Error for MergeError {}

impl From<ErrorKind> for MergeError {
    fn from(kind: ErrorKind) -> Self {
        MergeError::new(kind)
    }
}

impl From<SchemaError> for MergeError {
    fn from(err: SchemaError) -> Self {
        MergeError::new(ErrorKind::Schema(err))
    }
}

/// Adds the position of a failure as the error travels up the recursion.
pub(crate) trait AtPath<T> {
    fn at_key(self, key: &str) -> Result<T, MergeError>;
    fn at_index(self, index: usize) -> Result<T, MergeError>;
}

impl<T, E: Into<MergeError>> AtPath<T> for Result<T, E> {
    fn at_key(self, key: &str) -> Result<T, MergeError> {
        self.map_err(|err| {
            let mut err = err.into();
            err.path.push(Segment::Key(key.to_string()));
            err
        })
    }

    fn at_index(self, index: usize) -> Result<T, MergeError> {
        self.map_err(|err| {
            let mut err = err.into();
            err.path.push(Segment::Index(index));
            err
        })
    }
}

/// A short rendering of a value for messages.
pub(crate) fn brief(value: &Value) -> String {
    const LIMIT: usize = 120;
    let text = value.to_string();
    if text.len() <= LIMIT {
        return text;
    }
    let cut = (0..=LIMIT).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    format!("{}...", &text[..cut])
}

/// The name of a value's JSON type, for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_field_paths() {
        let err: Result<(), MergeError> = Err(ErrorKind::NoElements.into());
        let err = err.at_index(1).at_key("containers").at_key("spec").at_key("template").at_key("spec").unwrap_err();
        assert_eq!(err.path(), "spec.template.spec.containers[1]");
        let err: Result<(), MergeError> = Err(ErrorKind::NoElements.into());
        let err = err.at_key("app.kubernetes.io/name").at_key("labels").unwrap_err();
        assert_eq!(err.path(), r#"labels["app.kubernetes.io/name"]"#);
        assert!(err.to_string().starts_with(r#"labels["app.kubernetes.io/name"]: no elements"#));
    }
}
