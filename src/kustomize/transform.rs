//! The built-in transformers, in the order kustomize runs them: strategic merge patches,
//! `patches`, namespace, name prefix and suffix, labels, annotations, JSON 6902 patches, replicas,
//! images.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::error::Error;
use super::loader::Read;
use super::pattern::{self, Pattern};
use super::resource::{Id, Resource, effective_namespace, group_version, id_text, is_cluster_scoped};
use super::types::field_specs::{Config, FieldSpec, merge_specs, pointer_segment};
use super::types::kustomization::{Image, Kustomization, Label, PatchEntry, Selector};
use super::{empty_nulls, kyaml_merge, order};
use crate::gocompat::json::to_compact;
use crate::manifest::{self, Dialect, LabelSelector};
use crate::merge::json_patch;
use crate::schema::OpenApiSchema;
use ::json_patch::jsonptr;

/// Called after each transformer kustomize would configure, with its kind
/// (`PrefixTransformer`, ...), for `buildMetadata`'s records.
pub type Record<'a> = dyn FnMut(&mut [Resource], &'static str) + 'a;

/// Runs the kustomization's transformers over `resources`, on the fields `config` names.
pub fn run(
    kustomization: &Kustomization,
    config: &Config,
    resources: &mut Vec<Resource>,
    read: &mut Read,
    record: &mut Record,
    schema: Option<&Arc<OpenApiSchema>>,
) -> Result<(), Error> {
    let mut loaded = 0;
    for entry in &kustomization.patches_strategic_merge {
        // An entry is a file, or (when it is not one) the patch itself.
        let text =
            if entry.contains('\n') || entry.trim_start().starts_with('{') { entry.clone() } else { read(entry)? };
        for patch in documents(&text, entry, Dialect::Kustomize)? {
            loaded += 1;
            strategic_by_id(resources, &patch, schema)?;
        }
    }
    // Entries that hold no patch at all (empty files, comments) are kustomize's error.
    if loaded == 0 && !kustomization.patches_strategic_merge.is_empty() {
        return Err(Error::EmptyPatches(kustomization.patches_strategic_merge.clone()));
    }
    if !kustomization.patches_strategic_merge.is_empty() {
        record(resources, "PatchStrategicMergeTransformer");
    }
    for entry in &kustomization.patches {
        patch(resources, entry, read, schema)?;
        record(resources, "PatchTransformer");
    }
    if let Some(namespace) = kustomization.namespace.as_deref().filter(|namespace| !namespace.is_empty()) {
        set_namespace(resources, namespace, &config.namespace)?;
        record(resources, "NamespaceTransformer");
    }
    let prefix = kustomization.name_prefix.as_deref().unwrap_or_default();
    let suffix = kustomization.name_suffix.as_deref().unwrap_or_default();
    if !prefix.is_empty() || !suffix.is_empty() {
        add_prefix_and_suffix(resources, (prefix, &config.name_prefix), (suffix, &config.name_suffix));
    }
    if !prefix.is_empty() {
        record(resources, "PrefixTransformer");
    }
    if !suffix.is_empty() {
        record(resources, "SuffixTransformer");
    }
    for label in &kustomization.labels {
        add_pairs(resources, &label.pairs, &label_specs(label, config)?);
        record(resources, "LabelTransformer");
    }
    // kustomize configures a commonLabels transformer whenever there are labels of either kind.
    if !kustomization.common_labels.is_empty() || !kustomization.labels.is_empty() {
        if !kustomization.common_labels.is_empty() {
            add_pairs(resources, &kustomization.common_labels, &config.common_labels);
        }
        record(resources, "LabelTransformer");
    }
    if !kustomization.common_annotations.is_empty() {
        add_pairs(resources, &kustomization.common_annotations, &config.common_annotations);
        record(resources, "AnnotationsTransformer");
    }
    for entry in &kustomization.patches_json6902 {
        let target = entry.target.as_ref().filter(|target| !target.name.is_empty()).ok_or_else(|| {
            // kustomize's words, with the entry as its plugin's configuration.
            let mut config = serde_json::json!({"target": entry.target});
            for (key, value) in [("path", &entry.path), ("jsonOp", &entry.patch)] {
                if let Some(value) = value {
                    config[key] = Value::String(value.clone());
                }
            }
            Error::Json6902WithoutTargetName(crate::output::to_yaml(&config))
        })?;
        let text = patch_text(entry, read)?;
        // Read with sigs.k8s.io/yaml, as kustomize reads JSON patches.
        let patch = documents(&text, entry.path.as_deref().unwrap_or("inline patch"), Dialect::Kubectl)?
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        json6902(resources, target, &patch)?;
        record(resources, "PatchJson6902Transformer");
    }
    for replica in &kustomization.replicas {
        // A replica count that names no object its field specs select is kustomize's error.
        let mut found = false;
        for spec in &config.replicas {
            let named = |resource: &&mut Resource| resource.had_name(&replica.name) && spec.selects(&resource.object);
            for resource in resources.iter_mut().filter(named) {
                found = true;
                spec.apply(&mut resource.object, &mut |value| *value = Value::from(replica.count));
            }
        }
        if !found {
            // kustomize lists its field specs sorted as it sorts objects.
            let mut specs: Vec<&FieldSpec> = config.replicas.iter().collect();
            specs.sort_by(|a, b| order::compare_default_gvks(a.gvk(), b.gvk()));
            let gvks: Vec<String> = specs.into_iter().map(FieldSpec::gvk_text).collect();
            return Err(Error::ReplicasMatchNothing { name: replica.name.clone(), gvks: gvks.join(" ") });
        }
        record(resources, "ReplicaCountTransformer");
    }
    for image in kustomization.images.iter().chain(&kustomization.image_tags) {
        set_image(resources, image, config);
        record(resources, "ImageTagTransformer");
    }
    Ok(())
}

/// Sets the image `image` names in every container list (kustomize's legacy search) and in the
/// fields the configuration names.
fn set_image(resources: &mut [Resource], image: &Image, config: &Config) {
    for resource in resources.iter_mut() {
        set_images(&mut resource.object, image);
        if resource.kind() == "CustomResourceDefinition" {
            continue;
        }
        // Never created: kustomize's images filter asks for no kind of node to create.
        for spec in config.images.iter().map(|spec| FieldSpec { create: false, ..spec.clone() }) {
            spec.apply(&mut resource.object, &mut |value| {
                if let Value::String(current) = value
                    && let Some(updated) = updated_image(current, image)
                {
                    *current = updated;
                }
            });
        }
    }
}

/// One `patches` entry: a JSON 6902 patch (a list) for its target, or strategic merge patches
/// for their target or for the object each names.
fn patch(
    resources: &mut Vec<Resource>,
    entry: &PatchEntry,
    read: &mut Read,
    schema: Option<&Arc<OpenApiSchema>>,
) -> Result<(), Error> {
    let text = patch_text(entry, read)?;
    let source = entry.path.as_deref().unwrap_or("inline patch");
    let patches = documents(&text, source, Dialect::Kustomize)?;
    if let [Value::Array(_)] = patches.as_slice() {
        let target = entry.target.as_ref().ok_or(Error::Json6902WithoutTarget)?;
        // kustomize reads a JSON patch with sigs.k8s.io/yaml, not kyaml: `value: yes` is true.
        let operations = documents(&text, source, Dialect::Kubectl)?;
        return json6902(resources, target, &operations[0]);
    }
    for patch in patches {
        match &entry.target {
            Some(target) => {
                let target = Target::compile(target).map_err(|err| Error::PatchTargetNotFound {
                    target: selector_text(target),
                    source: Box::new(err),
                })?;
                let allow_name_change = entry.options.allow_name_change;
                for resource in resources.iter_mut().filter(|resource| target.selects(resource)) {
                    let mut patch = patch.clone();
                    // A patch keeps the target's namespace, and its name unless allowed to change
                    // it; a rename is remembered so that references follow it.
                    if let Some(metadata) = patch.get_mut("metadata").and_then(Value::as_object_mut) {
                        metadata.remove("namespace");
                        if !allow_name_change {
                            metadata.remove("name");
                        }
                    }
                    if !entry.options.allow_kind_change && patch.get("kind").is_some() {
                        patch["kind"] = resource.object["kind"].clone();
                    }
                    // The patch takes the target's apiVersion (kustomize sets its gvk to the
                    // target's, then its own kind back): a Service patched as `apps/v1` stays `v1`.
                    if let Some(object) = patch.as_object_mut() {
                        match resource.object.get("apiVersion") {
                            Some(api_version) => {
                                object.insert("apiVersion".into(), api_version.clone());
                            }
                            None => {
                                object.remove("apiVersion");
                            }
                        }
                    }
                    if allow_name_change || entry.options.allow_kind_change {
                        resource.store_previous_id();
                    }
                    strategic_in_place(resource, &patch, schema)?;
                }
                // A resource the patch deleted is gone: selected still, or emptied (kustomize drops
                // empty resources).
                if deletes(&patch) {
                    resources.retain(|resource| !target.selects(resource));
                }
                resources.retain(|resource| resource.object.as_object().is_some_and(|object| !object.is_empty()));
            }
            None => strategic_by_id(resources, &patch, schema).map_err(|err| match err {
                Error::PatchTargetById { ref id, .. } => Error::NoPatchTarget { id: id.clone(), source: Box::new(err) },
                other => other,
            })?,
        }
    }
    Ok(())
}

fn patch_text(entry: &PatchEntry, read: &mut Read) -> Result<String, Error> {
    match (&entry.path, &entry.patch) {
        (Some(path), None) => read(path),
        (None, Some(patch)) => Ok(patch.clone()),
        _ => Err(Error::PathAndPatch),
    }
}

fn documents(text: &str, source: &str, dialect: Dialect) -> Result<Vec<Value>, Error> {
    Ok(manifest::parse_documents(text, source, dialect)?.into_iter().filter(|document| !document.is_null()).collect())
}

fn deletes(patch: &Value) -> bool {
    patch.get("$patch").and_then(Value::as_str) == Some("delete")
}

/// Applies a strategic merge patch to the one resource its own id names: an id the resource has
/// now or had before (its name and namespace before a prefix or a `namespace:` changed them), the
/// namespaces compared as kustomize does (unset being `default`).
fn strategic_by_id(
    resources: &mut Vec<Resource>,
    patch: &Value,
    schema: Option<&Arc<OpenApiSchema>>,
) -> Result<(), Error> {
    let wanted = Id::of(patch);
    let matches: Vec<usize> = resources
        .iter()
        .enumerate()
        .filter(|(_, resource)| resource.ids().iter().any(|id| id.equals(&wanted)))
        .map(|(index, _)| index)
        .collect();
    let id = id_text(patch);
    match matches.as_slice() {
        [index] if deletes(patch) => {
            resources.remove(*index);
            Ok(())
        }
        [index] => {
            let mut patch = patch.clone();
            // The patch may name its target by an earlier id; the target keeps the kind, the name
            // and the namespace it has now.
            let target = &resources[*index];
            patch["kind"] = Value::String(target.kind().to_string());
            patch["metadata"]["name"] = Value::String(target.name().to_string());
            let metadata = patch["metadata"].as_object_mut().expect("a patch found by its name has metadata");
            match target.namespace() {
                "" => metadata.remove("namespace"),
                namespace => metadata.insert("namespace".into(), Value::String(namespace.to_string())),
            };
            strategic_in_place(&mut resources[*index], &patch, schema)?;
            Ok(())
        }
        [] => Err(Error::PatchTargetById { id, many: false }),
        _ => Err(Error::PatchTargetById { id, many: true }),
    }
}

/// A strategic merge patch applied to `resource`; values it changes carry their linked ones along,
/// as kustomize sets them in place.
fn strategic_in_place(
    resource: &mut Resource,
    patch: &Value,
    schema: Option<&Arc<OpenApiSchema>>,
) -> Result<(), Error> {
    resource.change_in_place(|object, _| {
        *object = strategic(std::mem::take(object), patch, schema)?;
        Ok::<_, Error>(())
    })?;
    empty_nulls::drop_remaining(&mut resource.object, &std::mem::take(&mut resource.empty_nulls));
    Ok(())
}

/// `patch` applied to `object` as kustomize applies a strategic merge patch: by kyaml's merge walk,
/// with kyaml's built-in schema or the build's custom one (`openapi.path`). An object the patch
/// deletes comes back empty (kustomize drops empty resources).
pub fn strategic(object: Value, patch: &Value, custom: Option<&Arc<OpenApiSchema>>) -> Result<Value, Error> {
    let merged = kyaml_merge::merge(object, patch.clone(), custom)?;
    Ok(merged.unwrap_or_else(|| Value::Object(Map::new())))
}

fn json6902(resources: &mut [Resource], target: &Selector, patch: &Value) -> Result<(), Error> {
    let operations = json_patch::parse(patch).map_err(|err| Error::InvalidJson6902(Box::new(err)))?;
    let target = Target::compile(target)?;
    for resource in resources.iter_mut().filter(|resource| target.selects(resource)) {
        // It may rename: the name it had is remembered, as kustomize remembers it.
        resource.store_previous_id();
        let id = resource.id();
        // v4's refusals are kustomize's words, which it says without the resource.
        let operations = as_json_patch_v4_applies(&resource.object, &operations)?;
        json_patch::apply(&mut resource.object, &operations)
            .map_err(|err| Error::Patching { id, source: Box::new(err.into()) })?;
        // kustomize rebuilds the object from JSON: nothing in it is linked any more.
        resource.linked.clear();
    }
    Ok(())
}

/// `operations` as kustomize's JSON patch library (evanphx/json-patch v4) applies them to
/// `document`, for the engine kubeupd shares with `patch` (RFC 6902):
/// - an array index in a path is read as Go's `strconv.Atoi` reads it (`01`, `+1`), and a
///   negative one counts from the end (`-1` is the last item; for an `add`, `-1` is past it);
/// - a `replace` of a key its object lacks adds it;
/// - a path whose parent is missing (or null, or not a collection) is refused in v4's words
///   (`add operation does not apply: doc is missing path: "/a/b": missing value`).
///
/// Each operation is tried on a copy to know what the next sees.
fn as_json_patch_v4_applies(document: &Value, operations: &::json_patch::Patch) -> Result<::json_patch::Patch, Error> {
    use ::json_patch::{AddOperation, PatchOperation};
    let mut seen = document.clone();
    let mut adapted = Vec::new();
    for operation in &operations.0 {
        let mut operation = operation.clone();
        let (op, path, from) = match &mut operation {
            PatchOperation::Add(add) => ("add", &mut add.path, None),
            PatchOperation::Remove(remove) => ("remove", &mut remove.path, None),
            PatchOperation::Replace(replace) => ("replace", &mut replace.path, None),
            PatchOperation::Move(moved) => ("move", &mut moved.path, Some(&mut moved.from)),
            PatchOperation::Copy(copy) => ("copy", &mut copy.path, Some(&mut copy.from)),
            PatchOperation::Test(test) => ("test", &mut test.path, None),
        };
        if let Some(from) = from {
            *from = v4_path(&seen, from, false).ok_or_else(|| {
                Error::Json6902Path(format!(
                    "{op} operation does not apply: doc is missing from path: {from}: missing value"
                ))
            })?;
        }
        *path = v4_path(&seen, path, matches!(op, "add" | "move" | "copy")).ok_or_else(|| {
            Error::Json6902Path(match op {
                "add" | "remove" => {
                    format!("{op} operation does not apply: doc is missing path: \"{path}\": missing value")
                }
                "test" => format!("test operation does not apply: is missing path: {path}: missing value"),
                "move" | "copy" => {
                    format!("{op} operation does not apply: doc is missing destination path: {path}: missing value")
                }
                _ => format!("{op} operation does not apply: doc is missing path: {path}: missing value"),
            })
        })?;
        let missing_key = |path: &::json_patch::jsonptr::Pointer| {
            path.split_back().is_some_and(|(parent, key)| {
                seen.pointer(parent.as_str())
                    .and_then(Value::as_object)
                    .is_some_and(|object| !object.contains_key(key.decoded().as_ref()))
            })
        };
        let operation = match operation {
            PatchOperation::Replace(replace) if missing_key(&replace.path) => {
                PatchOperation::Add(AddOperation { path: replace.path, value: replace.value })
            }
            other => other,
        };
        // A failing operation fails the whole patch below, in the engine's words.
        let _ = ::json_patch::patch(&mut seen, std::slice::from_ref(&operation));
        adapted.push(operation);
    }
    Ok(::json_patch::Patch(adapted))
}

/// `path` with its array indices as v4 reads them in `document`, written as RFC 6902 reads them;
/// `None` when v4 finds no object or array to hold its last token (a missing or null parent, a
/// scalar, the root). `inserts`: the last token is where a value goes in (`add`, and the
/// destination of `move` and `copy`), so an array's `-1` is past its last item. A last token v4
/// refuses is left as it is, for the engine to refuse.
fn v4_path(document: &Value, path: &jsonptr::Pointer, inserts: bool) -> Option<jsonptr::PointerBuf> {
    let tokens: Vec<String> = path.tokens().map(|token| token.decoded().into_owned()).collect();
    let (last, parents) = tokens.split_last()?;
    let mut at = document;
    let mut written: Vec<String> = Vec::with_capacity(tokens.len());
    for token in parents {
        match at {
            Value::Object(map) => {
                at = map.get(token)?;
                written.push(token.clone());
            }
            Value::Array(items) => {
                let index = v4_index(token, items.len(), false)?;
                at = &items[index];
                written.push(index.to_string());
            }
            _ => return None,
        }
    }
    match at {
        Value::Object(_) => written.push(last.clone()),
        Value::Array(items) if last != "-" => match v4_index(last, items.len(), inserts) {
            Some(index) => written.push(index.to_string()),
            None => written.push(last.clone()),
        },
        Value::Array(_) => written.push(last.clone()),
        _ => return None,
    }
    Some(jsonptr::PointerBuf::from_tokens(written.iter().map(|token| jsonptr::Token::new(token.as_str()))))
}

/// The index `token` names in an array of `len` items as v4 reads it: Go's `strconv.Atoi`, a
/// negative one counted from the end (of `len + 1` places when inserting); `None` out of range.
fn v4_index(token: &str, len: usize, inserts: bool) -> Option<usize> {
    let places = i64::try_from(len).ok()? + i64::from(inserts);
    let index: i64 = token.parse().ok()?;
    let index = if index < 0 { index + places } else { index };
    (0..places).contains(&index).then_some(index as usize)
}

/// A patch's `target`, compiled: group, version, kind, name and namespace are anchored regular
/// expressions in kustomize (an empty one matches anything).
pub struct Target<'a> {
    selector: &'a Selector,
    group: Option<Pattern>,
    version: Option<Pattern>,
    kind: Option<Pattern>,
    name: Option<Pattern>,
    namespace: Option<Pattern>,
}

impl<'a> Target<'a> {
    pub fn compile(selector: &'a Selector) -> Result<Self, Error> {
        let field = |text: &str| (!text.is_empty()).then(|| pattern::anchored(text)).transpose();
        Ok(Target {
            selector,
            group: field(&selector.group)?,
            version: field(&selector.version)?,
            kind: field(&selector.kind)?,
            name: field(&selector.name)?,
            namespace: field(&selector.namespace)?,
        })
    }

    /// Whether it selects `resource`, by its name and namespace now or by the first it had.
    pub fn selects(&self, resource: &Resource) -> bool {
        let matches =
            |pattern: &Option<Pattern>, text: &str| pattern.as_ref().is_none_or(|pattern| pattern.is_match(text));
        let (group, version) = group_version(&resource.object);
        let (api_version, kind) = (resource.api_version(), resource.kind());
        (matches(&self.namespace, effective_namespace(api_version, kind, resource.original_namespace()))
            || matches(&self.namespace, effective_namespace(api_version, kind, resource.namespace())))
            && (matches(&self.name, resource.original_name()) || matches(&self.name, resource.name()))
            && matches(&self.group, group)
            && matches(&self.version, version)
            && matches(&self.kind, kind)
            && selector_matches(&self.selector.label_selector, &resource.object["metadata"]["labels"])
            && selector_matches(&self.selector.annotation_selector, &resource.object["metadata"]["annotations"])
    }
}

/// A patch target as kustomize quotes it: `ConfigMap.[noVer].[noGrp]/web.[noNs]:a=:l=app=web`.
fn selector_text(selector: &Selector) -> String {
    let Selector { group, version, kind, name, namespace, label_selector, annotation_selector } = selector.clone();
    let id = Id { group, version, kind, name, namespace };
    format!("{}:a={annotation_selector}:l={label_selector}", id.text())
}

/// Whether a label or annotation selector (empty: anything) matches `pairs`.
pub fn selector_matches(selector: &str, pairs: &Value) -> bool {
    if selector.is_empty() {
        return true;
    }
    match selector.parse::<LabelSelector>() {
        Ok(selector) => selector.matches(&serde_json::json!({"metadata": {"labels": pairs}})),
        Err(_) => false,
    }
}

/// The fields a `labels` entry sets: its own `fields`, the configuration's `labels`, then the
/// selectors and templates (`includeSelectors`), the templates (`includeTemplates`) or only the
/// object's labels, merged as kustomize merges them.
fn label_specs(label: &Label, config: &Config) -> Result<Vec<FieldSpec>, Error> {
    let mut specs = label.fields.clone();
    let mut merge = |incoming: &[FieldSpec]| merge_specs(&mut specs, incoming).map_err(Error::MergeLabels);
    merge(&config.labels)?;
    if label.include_selectors {
        merge(&config.common_labels)?;
    } else {
        if label.include_templates {
            merge(&config.template_labels)?;
        }
        merge(&[FieldSpec::any_kind("metadata/labels", true)])?;
    }
    Ok(specs)
}

/// The name prefix and suffix, each with the fields it goes on: `metadata/name` renames the
/// object (remembering its old name), other fields get the text prepended or appended.
fn add_prefix_and_suffix(
    resources: &mut [Resource],
    (prefix, prefix_specs): (&str, &[FieldSpec]),
    (suffix, suffix_specs): (&str, &[FieldSpec]),
) {
    let is_name = |spec: &FieldSpec| spec.path == ["metadata", "name"];
    for resource in resources.iter_mut().filter(|resource| !keeps_its_name(&resource.object)) {
        let mut renamed = resource.name().to_string();
        for (specs, affix, before) in [(prefix_specs, prefix, true), (suffix_specs, suffix, false)] {
            let selected = || specs.iter().filter(|spec| spec.selects(&resource.object));
            if affix.is_empty() {
                continue;
            }
            if selected().any(is_name) {
                renamed = if before { format!("{affix}{renamed}") } else { format!("{renamed}{affix}") };
                let affixes = if before { &mut resource.prefixes } else { &mut resource.suffixes };
                affixes.push(affix.to_string());
            }
            let others: Vec<FieldSpec> = selected().filter(|spec| !is_name(spec)).cloned().collect();
            for spec in others {
                spec.apply(&mut resource.object, &mut |value| {
                    if let Value::String(text) = value {
                        *text = if before { format!("{affix}{text}") } else { format!("{text}{affix}") };
                    }
                });
            }
        }
        if renamed != resource.name() {
            resource.rename(renamed);
        }
    }
}

/// Kinds whose names prefixes and suffixes leave alone, as kustomize's.
fn keeps_its_name(object: &Value) -> bool {
    let kind = object["kind"].as_str().unwrap_or_default();
    matches!(kind, "CustomResourceDefinition" | "Namespace")
        || (kind == "APIService" && group_version(object).0 == "apiregistration.k8s.io")
}

/// Sets every resource's namespace; two that end up with one id are refused, as kustomize
/// refuses them.
fn set_namespace(resources: &mut [Resource], namespace: &str, specs: &[FieldSpec]) -> Result<(), Error> {
    for index in 0..resources.len() {
        let resource = &mut resources[index];
        // kustomize remembers every resource's id here, cluster-scoped ones too.
        resource.store_previous_id();
        let object = &mut resource.object;
        set_object_namespace(object, namespace);
        // As kustomize's namespace filter: its own namespace is set above, and a name only on
        // the core group's kind (a `Namespace` of another group keeps its name).
        let core = object["apiVersion"] == "v1";
        let wanted =
            |spec: &&FieldSpec| spec.path != ["metadata", "namespace"] && (core || spec.path != ["metadata", "name"]);
        for spec in specs.iter().filter(wanted) {
            spec.apply(object, &mut |value| *value = Value::String(namespace.to_string()));
        }
        let same_id: Vec<String> = resources
            .iter()
            .filter(|other| same_id(other, &resources[index]))
            .map(|other| to_compact(&other.with_previous_ids()))
            .collect();
        if same_id.len() > 1 {
            return Err(Error::NamespaceConflict(same_id.join(" ")));
        }
    }
    Ok(())
}

/// kustomize's namespace filter on one object, without field specs: its own namespace unless it
/// is cluster-scoped, and the subjects of (cluster) role bindings named `default` (kustomize's
/// default mode).
pub fn set_object_namespace(object: &mut Value, namespace: &str) {
    let text = |field: &str| object[field].as_str().unwrap_or_default().to_string();
    if !is_cluster_scoped(&text("apiVersion"), &text("kind")) {
        object["metadata"]["namespace"] = Value::String(namespace.to_string());
    }
    if matches!(object["kind"].as_str(), Some("RoleBinding" | "ClusterRoleBinding"))
        && let Some(subjects) = object["subjects"].as_array_mut()
    {
        for subject in subjects.iter_mut().filter(|subject| subject["name"] == "default") {
            subject["namespace"] = Value::String(namespace.to_string());
        }
    }
}

/// Whether two resources have one id: group, version, kind, name and namespace (unset being
/// `default`).
fn same_id(one: &Resource, other: &Resource) -> bool {
    let (api_version, kind) = (one.api_version(), one.kind());
    group_version(&one.object) == group_version(&other.object)
        && kind == other.kind()
        && one.name() == other.name()
        && effective_namespace(api_version, kind, one.namespace())
            == effective_namespace(api_version, kind, other.namespace())
}

/// Sets `pairs` in the maps `specs` name. As in kustomize, a key one call adds to several maps
/// of an object is one YAML node there: those values stay linked, and a key that is set where it
/// was already sets the values linked to it.
fn add_pairs(resources: &mut [Resource], pairs: &BTreeMap<String, String>, specs: &[FieldSpec]) {
    for resource in resources.iter_mut() {
        let mut added: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        let mut overwritten = Vec::new();
        for spec in specs {
            spec.apply_at(&mut resource.object, &mut |pointer, value| {
                if !value.is_object() {
                    *value = Value::Object(Map::new());
                }
                let map = value.as_object_mut().expect("made an object");
                for (key, pair_value) in pairs {
                    let at = format!("{pointer}/{}", pointer_segment(key));
                    match map.insert(key.clone(), Value::String(pair_value.clone())) {
                        None => added.entry(key).or_default().push(at),
                        Some(_) => overwritten.push((at, pair_value)),
                    }
                }
            });
        }
        for (pointer, value) in overwritten {
            resource.set_linked(&pointer, &Value::String(value.clone()));
        }
        resource.linked.extend(added.into_values().filter(|group| group.len() > 1));
    }
}

/// Sets the images `image` names, in every `containers` and `initContainers` list of `object`
/// (kustomize looks for them anywhere, not only where its table says).
fn set_images(object: &mut Value, image: &Image) {
    match object {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if matches!(key.as_str(), "containers" | "initContainers")
                    && let Value::Array(containers) = value
                {
                    for container in containers.iter_mut() {
                        if let Some(Value::String(current)) = container.get_mut("image")
                            && let Some(updated) = updated_image(current, image)
                        {
                            *current = updated;
                        }
                    }
                }
                set_images(value, image);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| set_images(item, image)),
        _ => {}
    }
}

/// `current` changed as `image` says, when `image` names it.
fn updated_image(current: &str, image: &Image) -> Option<String> {
    let (name, tag, digest) = split_image(current);
    if name != image.name {
        return None;
    }
    let mut name = name.to_string();
    let (mut tag, mut digest) = (tag.to_string(), digest.to_string());
    if !image.new_name.is_empty() {
        name = image.new_name.clone();
    }
    match (image.new_tag.is_empty(), image.digest.is_empty()) {
        (false, false) => (tag, digest) = (image.new_tag.clone(), image.digest.clone()),
        (false, true) => (tag, digest) = (image.new_tag.clone(), String::new()),
        (true, false) => (tag, digest) = (String::new(), image.digest.clone()),
        (true, true) => {}
    }
    if !image.tag_suffix.is_empty() && !tag.is_empty() {
        tag.push_str(&image.tag_suffix);
    }
    if !tag.is_empty() {
        name = format!("{name}:{tag}");
    }
    if !digest.is_empty() {
        name = format!("{name}@{digest}");
    }
    Some(name)
}

/// An image reference's name, tag and digest: `name:tag@digest`, the tag after the last `:` that
/// follows the last `/` (a registry's port is not a tag).
fn split_image(image: &str) -> (&str, &str, &str) {
    let (rest, digest) = image.split_once('@').unwrap_or((image, ""));
    let slash = rest.rfind('/').map_or(0, |at| at + 1);
    match rest[slash..].rfind(':') {
        Some(at) => (&rest[..slash + at], &rest[slash + at + 1..], digest),
        None => (rest, "", digest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_split_and_update_as_kustomize_does() {
        assert_eq!(split_image("registry:5000/app:1.0@sha256:abc"), ("registry:5000/app", "1.0", "sha256:abc"));
        assert_eq!(split_image("registry:5000/app"), ("registry:5000/app", "", ""));
        let image =
            Image { name: "nginx".into(), new_name: "my/nginx".into(), new_tag: "1.25".into(), ..Image::default() };
        assert_eq!(updated_image("nginx:1.0@sha256:x", &image).as_deref(), Some("my/nginx:1.25"));
        assert_eq!(updated_image("redis", &image), None);
        let digest = Image { name: "nginx".into(), digest: "sha256:d".into(), ..Image::default() };
        assert_eq!(updated_image("nginx:1.0", &digest).as_deref(), Some("nginx@sha256:d"));
    }

    #[test]
    fn labels_added_to_several_fields_stay_linked_until_a_json_patch() {
        let object = serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {}});
        let mut resources = vec![Resource::new(object)];
        let everywhere = [FieldSpec::any_kind("metadata/labels", true), FieldSpec::any_kind("spec/selector", true)];
        add_pairs(&mut resources, &BTreeMap::from([("app".into(), "a".into())]), &everywhere);
        assert_eq!(resources[0].linked, [vec!["/metadata/labels/app".to_string(), "/spec/selector/app".to_string()]]);
        add_pairs(&mut resources, &BTreeMap::from([("app".into(), "b".into())]), &everywhere[..1]);
        assert_eq!(resources[0].object["spec"]["selector"]["app"], "b");
        resources[0].change_in_place(|object, _| object["metadata"]["labels"]["app"] = "c".into());
        assert_eq!(resources[0].object["spec"]["selector"]["app"], "c");
        let selector = Selector { kind: "Service".into(), ..Selector::default() };
        json6902(&mut resources, &selector, &serde_json::json!([{"op": "add", "path": "/spec/x", "value": 1}]))
            .unwrap();
        assert!(resources[0].linked.is_empty());
    }
}
