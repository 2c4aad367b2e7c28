//! Compiles OpenAPI v2 `definitions`, v3 `components.schemas` and JSON Schema `$defs` into a
//! compact graph of shapes that answers patch-metadata lookups with a hash lookup each.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::{ListType, LookupPatchMeta, PatchMeta, Strategy};

/// Why a schema lookup failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// The object's schema has no such field.
    #[error("unable to find api field {field:?} in {parent}")]
    FieldNotFound { field: String, parent: String },
    /// The document says the value has another shape than the one being patched.
    #[error("field {field:?}: expected {expected}, but the schema of {parent} says {found}")]
    WrongShape { field: String, parent: String, expected: &'static str, found: String },
    /// The document is not an OpenAPI document.
    #[error("not an OpenAPI document: {0}")]
    NotOpenApi(&'static str),
}

type ShapeId = u32;

/// The shape of a value, with `$ref`s already resolved to the shapes they name.
#[derive(Debug)]
enum Shape {
    /// No schema, or one that allows anything (`x-kubernetes-preserve-unknown-fields`).
    Unknown,
    /// A scalar of JSON type `kind`; `name` is where the schema says so (a definition, or
    /// `Definition.field`), as validation messages name it.
    Primitive {
        kind: Box<str>,
        name: Box<str>,
    },
    /// A `format: int-or-string` (or `x-kubernetes-int-or-string`) value: a number or a string.
    IntOrString {
        name: Box<str>,
    },
    /// An object with declared properties (a Kubernetes struct); `open` when it also keeps fields
    /// it does not declare (`x-kubernetes-preserve-unknown-fields`); `required` lists the fields
    /// it must have.
    Object {
        name: Box<str>,
        fields: HashMap<Box<str>, Field>,
        open: bool,
        required: Box<[Box<str>]>,
    },
    /// An object whose keys are free (`additionalProperties`), e.g. labels.
    Map {
        values: ShapeId,
        name: Box<str>,
    },
    Array {
        items: ShapeId,
        name: Box<str>,
    },
    /// A definition that is only a `$ref` to another definition.
    Alias(ShapeId),
}

#[derive(Debug)]
struct Field {
    meta: PatchMeta,
    shape: ShapeId,
}

const UNKNOWN: ShapeId = 0;

/// A compiled OpenAPI document: named definitions, and the kinds they describe.
#[derive(Debug)]
pub struct OpenApiSchema {
    shapes: Vec<Shape>,
    definitions: HashMap<String, ShapeId>,
    kinds: HashMap<(String, String, String), ShapeId>,
}

impl OpenApiSchema {
    /// Compiles an OpenAPI v2 or v3 document, or a JSON Schema document with `$defs`.
    pub fn from_document(document: &Value) -> Result<Self, SchemaError> {
        let definitions = document
            .get("definitions")
            .or_else(|| document.pointer("/components/schemas"))
            .or_else(|| document.get("$defs"))
            .and_then(Value::as_object)
            .ok_or(SchemaError::NotOpenApi("no definitions, components.schemas or $defs"))?;
        let mut schema = OpenApiSchema {
            shapes: vec![Shape::Unknown],
            definitions: HashMap::with_capacity(definitions.len()),
            kinds: HashMap::new(),
        };
        // Reserve an id per definition first so that `$ref`s, even cyclic ones, resolve directly.
        for name in definitions.keys() {
            let id = schema.push(Shape::Unknown);
            schema.definitions.insert(name.clone(), id);
        }
        for (name, body) in definitions {
            let id = schema.definitions[name];
            schema.shapes[id as usize] = schema.compile_shape(body, name);
            for gvk in body.get("x-kubernetes-group-version-kind").and_then(Value::as_array).into_iter().flatten() {
                let part = |key| gvk.get(key).and_then(Value::as_str).unwrap_or("").to_string();
                schema.kinds.insert((part("group"), part("version"), part("kind")), id);
            }
        }
        Ok(schema)
    }

    /// The schema of a named definition, e.g. `io.k8s.api.apps.v1.Deployment`.
    pub fn definition(&self, name: &str) -> Option<SchemaNode<'_>> {
        self.definitions.get(name).map(|&id| SchemaNode { schema: Some(self), id })
    }

    /// The schema of the kind `kind` in `api_version` (`v1`, `apps/v1`), if the document has it.
    pub fn for_kind(&self, api_version: &str, kind: &str) -> Option<SchemaNode<'_>> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let key = (group.to_string(), version.to_string(), kind.to_string());
        self.kinds.get(&key).map(|&id| SchemaNode { schema: Some(self), id })
    }

    /// How many kinds the document describes.
    pub fn kind_count(&self) -> usize {
        self.kinds.len()
    }

    fn push(&mut self, shape: Shape) -> ShapeId {
        self.shapes.push(shape);
        (self.shapes.len() - 1) as ShapeId
    }

    /// The id of the shape `body` describes, reusing a definition's id for a plain `$ref`; an
    /// inline struct is named `name`, after where it is (`example.v1.Widget.spec`).
    fn compile_nested(&mut self, body: &Value, name: &str) -> ShapeId {
        if let Some(target) = self.reference(body) {
            return target;
        }
        let shape = self.compile_shape(body, name);
        match shape {
            Shape::Unknown => UNKNOWN,
            shape => self.push(shape),
        }
    }

    /// The definition a `$ref` (or v3's single-element `allOf: [{$ref}]`) points at.
    fn reference(&self, body: &Value) -> Option<ShapeId> {
        let single = || body.get("allOf")?.get(0)?.get("$ref");
        let reference = body.get("$ref").or_else(single)?.as_str()?;
        let name = reference.rsplit('/').next()?;
        Some(self.definitions.get(name).copied().unwrap_or(UNKNOWN))
    }

    fn compile_shape(&mut self, body: &Value, name: &str) -> Shape {
        if let Some(target) = self.reference(body) {
            // A definition that only refers to another one.
            return Shape::Alias(target);
        }
        let kind = schema_type(body);
        if body.get("format").and_then(Value::as_str) == Some("int-or-string")
            || body.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
        {
            return Shape::IntOrString { name: name.into() };
        }
        let open = body.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        if let Some(properties) = body.get("properties").and_then(Value::as_object) {
            let required = body.get("required").and_then(Value::as_array).into_iter().flatten();
            return Shape::Object {
                name: name.into(),
                fields: self.compile_fields(properties, name),
                open,
                required: required.filter_map(Value::as_str).map(Box::from).collect(),
            };
        }
        if open && kind != Some("object") {
            return Shape::Unknown;
        }
        if kind == Some("object") || body.get("additionalProperties").is_some() {
            let values = match body.get("additionalProperties") {
                Some(values @ Value::Object(_)) => self.compile_nested(values, name),
                _ => UNKNOWN,
            };
            return Shape::Map { values, name: name.into() };
        }
        if kind == Some("array") || body.get("items").is_some() {
            let items = body.get("items").map_or(UNKNOWN, |items| self.compile_nested(items, name));
            return Shape::Array { items, name: name.into() };
        }
        match kind {
            Some(kind @ ("string" | "integer" | "number" | "boolean")) => {
                Shape::Primitive { kind: kind.into(), name: name.into() }
            }
            _ => Shape::Unknown,
        }
    }

    fn compile_fields(&mut self, properties: &Map<String, Value>, parent: &str) -> HashMap<Box<str>, Field> {
        properties
            .iter()
            .map(|(key, body)| {
                let name = if parent.is_empty() { String::new() } else { format!("{parent}.{key}") };
                let field = Field { meta: patch_meta(body), shape: self.compile_nested(body, &name) };
                (key.as_str().into(), field)
            })
            .collect()
    }

    /// The shape `id` stands for, following aliases (a cycle of aliases means nothing is known).
    fn shape(&self, mut id: ShapeId) -> (ShapeId, &Shape) {
        for _ in 0..self.shapes.len() {
            match &self.shapes[id as usize] {
                Shape::Alias(target) => id = *target,
                shape => return (id, shape),
            }
        }
        (UNKNOWN, &Shape::Unknown)
    }
}

/// The first non-null `type`: JSON Schema documents write `type: [array, "null"]`.
fn schema_type(body: &Value) -> Option<&str> {
    match body.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).find(|kind| *kind != "null"),
        _ => None,
    }
}

/// Reads the `x-kubernetes-*` patch extensions of a property.
fn patch_meta(body: &Value) -> PatchMeta {
    let mut meta = PatchMeta::default();
    if let Some(strategies) = body.get("x-kubernetes-patch-strategy").and_then(Value::as_str) {
        for strategy in strategies.split(',') {
            match strategy {
                "merge" => meta.strategy = Strategy::Merge,
                "replace" => meta.strategy = Strategy::Replace,
                "retainKeys" => meta.retain_keys = true,
                _ => {}
            }
        }
    }
    meta.merge_key = body.get("x-kubernetes-patch-merge-key").and_then(Value::as_str).map(Arc::from);
    meta.list_type = match body.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("atomic") => Some(ListType::Atomic),
        Some("set") => Some(ListType::Set),
        Some("map") => Some(ListType::Map),
        _ => None,
    };
    if let Some(keys) = body.get("x-kubernetes-list-map-keys").and_then(Value::as_array) {
        meta.list_map_keys = keys.iter().filter_map(Value::as_str).map(String::from).collect();
    }
    meta
}

/// A position in a compiled schema: the schema of one value. [`SchemaNode::unknown`] knows nothing.
#[derive(Debug, Clone, Copy)]
pub struct SchemaNode<'a> {
    schema: Option<&'a OpenApiSchema>,
    id: ShapeId,
}

impl SchemaNode<'static> {
    /// A schema that knows nothing: every lookup answers with empty metadata.
    pub fn unknown() -> Self {
        SchemaNode { schema: None, id: UNKNOWN }
    }
}

impl<'a> SchemaNode<'a> {
    /// The JSON type (`string`, `integer`, `number`, `boolean`) of the scalar this schema
    /// describes; `None` for structures and for values it says nothing about (int-or-string).
    pub fn scalar_type(&self) -> Option<&'a str> {
        match self.schema?.shape(self.id).1 {
            Shape::Primitive { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// What the value this schema describes must be, for validation.
    pub fn expects(&self) -> Expected<'a> {
        let Some(schema) = self.schema else { return Expected::Anything };
        match schema.shape(self.id).1 {
            Shape::Unknown | Shape::Alias(_) => Expected::Anything,
            Shape::Primitive { kind, name } => Expected::Scalar { kind, name },
            Shape::IntOrString { name } => Expected::Scalar { kind: "string", name },
            Shape::Object { name, open, required, .. } => Expected::Struct { name, open: *open, required },
            Shape::Map { values, name } => Expected::Map { values: self.at(*values), name },
            Shape::Array { items, name } => Expected::List { items: self.at(*items), name },
        }
    }

    /// The schema of a struct's declared field `key`, if the struct declares it.
    pub fn declared_field(&self, key: &str) -> Option<Self> {
        match self.schema?.shape(self.id).1 {
            Shape::Object { fields, .. } => fields.get(key).map(|field| self.at(field.shape)),
            _ => None,
        }
    }

    /// Whether this schema is resource.Quantity's: a number or a string the server keeps by
    /// value (see [`super::same_quantity`]).
    pub fn is_quantity(&self) -> bool {
        self.schema.is_some_and(|schema| schema.definitions.get(super::stored::QUANTITY) == Some(&self.id))
    }

    /// The definition name of the struct this schema describes, if it is one.
    pub(super) fn struct_name(&self) -> Option<&'a str> {
        match self.schema?.shape(self.id).1 {
            Shape::Object { name, .. } => Some(name),
            _ => None,
        }
    }

    fn at(&self, id: ShapeId) -> Self {
        SchemaNode { schema: self.schema, id }
    }

    fn wrong_shape(&self, field: &str, expected: &'static str, found: &str) -> SchemaError {
        SchemaError::WrongShape { field: field.into(), parent: self.name(), expected, found: found.into() }
    }
}

/// What a schema allows a value to be; `name` is where the schema says so (a definition, or
/// `Definition.field`), as kubectl's validation names it.
#[derive(Debug, Clone, Copy)]
pub enum Expected<'a> {
    /// Anything: no schema, or unknown fields preserved.
    Anything,
    /// A scalar of this JSON type: `string`, `integer`, `number` or `boolean` (int-or-string
    /// says `string`, as Kubernetes' OpenAPI v2 document does).
    Scalar { kind: &'a str, name: &'a str },
    /// An object with declared fields, some `required`; `open` keeps undeclared ones too.
    Struct { name: &'a str, open: bool, required: &'a [Box<str>] },
    /// An object with free keys whose values are `values`.
    Map { values: SchemaNode<'a>, name: &'a str },
    /// A list of `items`.
    List { items: SchemaNode<'a>, name: &'a str },
}

fn describe(shape: &Shape) -> &str {
    match shape {
        Shape::Unknown | Shape::Alias(_) | Shape::IntOrString { .. } => "anything",
        Shape::Primitive { kind, .. } => kind,
        Shape::Object { .. } => "an object",
        Shape::Map { .. } => "a map",
        Shape::Array { .. } => "a list",
    }
}

impl LookupPatchMeta for SchemaNode<'_> {
    fn lookup_field(&self, key: &str) -> Result<(Self, PatchMeta), SchemaError> {
        let Some(schema) = self.schema else { return Ok((*self, PatchMeta::default())) };
        match schema.shape(self.id).1 {
            Shape::Unknown | Shape::Alias(_) | Shape::IntOrString { .. } => Ok((*self, PatchMeta::default())),
            Shape::Object { fields, open, .. } => match fields.get(key) {
                Some(field) => Ok((self.at(field.shape), field.meta.clone())),
                None if *open => Ok((self.at(UNKNOWN), PatchMeta::default())),
                None => Err(SchemaError::FieldNotFound { field: key.into(), parent: self.name() }),
            },
            Shape::Map { values, .. } => Ok((self.at(*values), PatchMeta::default())),
            shape => Err(self.wrong_shape(key, "an object", describe(shape))),
        }
    }

    fn lookup_list(&self, key: &str) -> Result<(Self, PatchMeta), SchemaError> {
        let Some(schema) = self.schema else { return Ok((*self, PatchMeta::default())) };
        let (value, meta) = match schema.shape(self.id).1 {
            Shape::Unknown | Shape::Alias(_) | Shape::IntOrString { .. } => return Ok((*self, PatchMeta::default())),
            Shape::Object { fields, open, .. } => match fields.get(key) {
                Some(field) => (field.shape, field.meta.clone()),
                None if *open => (UNKNOWN, PatchMeta::default()),
                None => return Err(SchemaError::FieldNotFound { field: key.into(), parent: self.name() }),
            },
            Shape::Map { values, .. } => (*values, PatchMeta::default()),
            shape => return Err(self.wrong_shape(key, "a list", describe(shape))),
        };
        match schema.shape(value) {
            (_, Shape::Array { items, .. }) => Ok((self.at(*items), meta)),
            (_, Shape::Unknown | Shape::Alias(_) | Shape::IntOrString { .. }) => Ok((self.at(UNKNOWN), meta)),
            // A list where the schema names a struct: its items are that struct (as Kubernetes does).
            (object, Shape::Object { .. }) => Ok((self.at(object), meta)),
            (_, shape) => Err(self.wrong_shape(key, "a list", describe(shape))),
        }
    }

    fn name(&self) -> String {
        match self.schema.map(|schema| schema.shape(self.id).1) {
            Some(Shape::Object { name, .. }) if !name.is_empty() => name.to_string(),
            Some(shape) => describe(shape).to_string(),
            None => "an unknown schema".to_string(),
        }
    }
}
