//! `replacements` (kustomize's ReplacementTransformer): for each, the one resource its `source`
//! selects gives a value, written into the `fieldPaths` of every resource its `targets` select.

use serde::Deserialize;
use serde_json::Value;

use super::path::{self, Create, Found};
use super::set_scalar;
use super::structured;
use crate::gocompat::unmarshal;
use crate::kustomize::error::Error;
use crate::kustomize::loader::Read;
use crate::kustomize::pattern::{self, Pattern};
use crate::kustomize::resource::{Id, Resource};
use crate::kustomize::transform::selector_matches;
use crate::kustomize::types::go_types;
use crate::kustomize::types::replacement::{Entry, FieldOptions, Selector, Source, Target};
use crate::manifest::{self, Dialect};

const DEFAULT_FIELD_PATH: &str = "metadata.name";

/// A replacement, inline or read from a file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Replacement {
    source: Option<Source>,
    source_value: Option<String>,
    targets: Option<Vec<Target>>,
}

/// Runs the kustomization's `replacements` over `resources`, in order; files are read with `read`.
pub fn run(entries: &[Entry], resources: &mut [Resource], read: &mut Read) -> Result<(), Error> {
    let mut replacements = Vec::new();
    for entry in entries {
        if entry.path.is_empty() {
            // kustomize hands inline replacements to its transformer through YAML that leaves
            // an empty `targets` out: it counts as missing.
            let targets = entry.targets.clone().filter(|targets| !targets.is_empty());
            replacements.push(Replacement {
                source: entry.source.clone(),
                source_value: entry.source_value.clone(),
                targets,
            });
            continue;
        }
        if entry.source.is_some()
            || entry.source_value.is_some()
            || entry.targets.as_ref().is_some_and(|targets| !targets.is_empty())
        {
            return Err(Error::PathAndInlineReplacement);
        }
        replacements.extend(from_file(&read(&entry.path)?, &entry.path)?);
    }
    for replacement in &replacements {
        apply(replacement, resources)?;
    }
    Ok(())
}

/// The replacements of a file: one, or a list, read as kustomize's `yaml.Unmarshal` reads them
/// (sigs.k8s.io/yaml: `create: yes` is true; fields it does not know are ignored here, in a
/// kustomization they are errors).
fn from_file(text: &str, path: &str) -> Result<Vec<Replacement>, Error> {
    let document = manifest::parse_documents(text, path, Dialect::Kubectl)?.into_iter().next().unwrap_or(Value::Null);
    let items = match document {
        Value::Array(items) => items,
        Value::Object(_) => vec![document],
        other => {
            let kind = match other {
                Value::String(_) => "string",
                Value::Number(_) => "float64",
                Value::Bool(_) => "bool",
                _ => "invalid",
            };
            return Err(Error::UnsupportedReplacementType(kind));
        }
    };
    items
        .into_iter()
        .map(|item| {
            let rules = unmarshal::Rules { go_types: Some(&go_types::REPLACEMENT), ..unmarshal::PLUGIN };
            unmarshal::sigs_yaml(item, rules)
                .map_err(|err| Error::InEntry { entry: path.to_string(), source: Box::new(err.into()) })
        })
        .collect()
}

fn apply(replacement: &Replacement, resources: &mut [Resource]) -> Result<(), Error> {
    let Some(targets) = replacement.targets.as_ref() else {
        return Err(Error::ReplacementWithoutSourceOrTarget);
    };
    let value = match (&replacement.source, &replacement.source_value) {
        (None, None) => return Err(Error::ReplacementWithoutSourceOrTarget),
        (Some(_), Some(_)) => return Err(Error::ValueAndSource),
        (None, Some(value)) => Value::String(value.clone()),
        (Some(source), None) => source_value(source, resources)?,
    };
    for target in targets {
        let select = target.select.as_ref().ok_or(Error::TargetWithoutSelect)?;
        // kustomize compiles the target's patterns first, whatever the resources.
        for selector in std::iter::once(select).chain(&target.reject) {
            id_patterns(selector).map_err(|source| Error::TargetSelector(Box::new(source)))?;
        }
        for resource in resources.iter_mut() {
            if is_selected(resource, select, &target.reject)? {
                resource.change_in_place(|object, replaced| copy_to(object, &value, target, replaced))?;
            }
        }
    }
    Ok(())
}

/// Whether a target's `select` takes `resource` and no `reject` drops it. A reject drops by its
/// id fields, or (separately, as in kustomize) by its label and annotation selectors. The id
/// fields are kustomize's `TargetSelectorRegex`: anchored patterns, the namespace as written.
fn is_selected(resource: &Resource, select: &Selector, rejects: &[Selector]) -> Result<bool, Error> {
    let object = &resource.object;
    let rejected_by_labels = rejects.iter().any(|reject| {
        (!reject.label_selector.is_empty() || !reject.annotation_selector.is_empty())
            && matches_labels_and_annotations(reject, object)
    });
    if !matches_labels_and_annotations(select, object) || rejected_by_labels {
        return Ok(false);
    }
    // Previous ids keep the namespace kustomize records for them: `default` when unset.
    let mut ids = resource.ids();
    for previous in ids.iter_mut().skip(1) {
        previous.namespace = previous.effective_namespace().to_string();
    }
    for reject in rejects.iter().filter(|reject| !reject.id().is_empty()) {
        let patterns = id_patterns(reject)?;
        if ids.iter().any(|id| patterns_select(&patterns, id)) {
            return Ok(false);
        }
    }
    let patterns = id_patterns(select)?;
    Ok(ids.iter().any(|id| patterns_select(&patterns, id)))
}

/// A selector's group, version, kind, name and namespace as anchored patterns (`None`: any).
fn id_patterns(selector: &Selector) -> Result<[Option<Pattern>; 5], Error> {
    let id = selector.id();
    let compile = |field: &str| (!field.is_empty()).then(|| pattern::anchored(field)).transpose();
    Ok([compile(&id.group)?, compile(&id.version)?, compile(&id.kind)?, compile(&id.name)?, compile(&id.namespace)?])
}

fn patterns_select(patterns: &[Option<Pattern>; 5], id: &Id) -> bool {
    let values = [&id.group, &id.version, &id.kind, &id.name, &id.namespace];
    patterns.iter().zip(values).all(|(pattern, value)| pattern.as_ref().is_none_or(|pattern| pattern.is_match(value)))
}

/// Whether `selector`'s label and annotation selectors match `object`.
fn matches_labels_and_annotations(selector: &Selector, object: &Value) -> bool {
    selector_matches(&selector.label_selector, &object["metadata"]["labels"])
        && selector_matches(&selector.annotation_selector, &object["metadata"]["annotations"])
}

/// The value the source names: the field of the one resource it selects, cut by its options.
fn source_value(source: &Source, resources: &[Resource]) -> Result<Value, Error> {
    let selector = source.id();
    let mut selected = resources.iter().filter(|resource| resource.ids().iter().any(|id| selector.selects(id)));
    let resource = selected.next().ok_or_else(|| Error::NothingSelected(source.text()))?;
    if selected.next().is_some() {
        return Err(Error::ManySelected(source.text()));
    }
    let field_path = if source.field_path.is_empty() { DEFAULT_FIELD_PATH } else { &source.field_path };
    let found = path::lookup(&resource.object, &path::split(field_path))
        .map_err(|source| Error::LookingUpSource { source: Box::new(source) })?;
    let value = match found {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) if map.is_empty() => None,
        Some(Value::Array(items)) if items.is_empty() => None,
        Some(value) => Some(value),
    }
    .ok_or_else(|| Error::SourceFieldMissing { field_path: field_path.to_string(), source_id: selector.text() })?;
    match source.options.as_ref().filter(|options| !options.delimiter.is_empty()) {
        None => Ok(value.clone()),
        Some(options) => {
            if value.is_object() || value.is_array() {
                return Err(Error::DelimiterOnNonScalar);
            }
            let text = path::scalar_text(value);
            let piece = usize::try_from(options.index)
                .ok()
                .and_then(|index| text.split(options.delimiter.as_str()).nth(index))
                .ok_or_else(|| Error::IndexOutOfBounds { index: options.index, value: text.clone() })?;
            Ok(match value {
                Value::String(_) => Value::String(piece.to_string()),
                _ => super::plain_scalar(piece),
            })
        }
    }
}

/// Writes `value` into every field the target's paths match in `object`, noting in `replaced`
/// the maps and lists it replaces whole (a scalar is set in place, as kustomize sets it).
fn copy_to(object: &mut Value, value: &Value, target: &Target, replaced: &mut Vec<String>) -> Result<(), Error> {
    let options = target.options.clone().unwrap_or_default();
    let create = match value {
        _ if !options.create => Create::Nothing,
        Value::Object(_) => Create::Map,
        Value::Array(_) => Create::List,
        _ => Create::Scalar,
    };
    let default_paths = [DEFAULT_FIELD_PATH.to_string()];
    let field_paths = if target.field_paths.is_empty() { &default_paths[..] } else { &target.field_paths };
    for field_path in field_paths {
        let not_found = || match create {
            Create::Nothing => Error::TargetFieldNotFound(field_path.clone()),
            _ => Error::TargetFieldNotCreated(field_path.clone()),
        };
        // kustomize drops one leading dot of a target's path (kubebuilder writes `.spec.dnsNames.0`).
        let segments = path::split(field_path.strip_prefix('.').unwrap_or(field_path));
        if structured::set(object, &segments, field_path, value, create)? {
            continue;
        }
        let mut failed = None;
        let mut set = |at: &str, field: &mut Value, found: Found| {
            if found == Found::Discarded {
                // Set in a copy: only a delimiter on a map or a list fails.
                if failed.is_none() && !options.delimiter.is_empty() && (field.is_object() || field.is_array()) {
                    failed = Some(Error::DelimiterOnNonScalar);
                }
                return Ok(());
            }
            if field.is_object() || field.is_array() {
                replaced.push(at.to_string());
            }
            if failed.is_none()
                && let Err(err) = set_field(field, value, &options, found)
            {
                failed = Some(err);
            }
            Ok(())
        };
        let count = path::for_each_match(object, &segments, create, &mut set)
            .map_err(|err| Error::TargetField { not_found: Box::new(not_found()), source: Box::new(err) })?;
        if let Some(err) = failed {
            return Err(err);
        }
        if count == 0 {
            return Err(not_found());
        }
    }
    Ok(())
}

/// Sets one target field: a scalar gets the value's text (spliced in at `index` of its
/// `delimiter`-separated parts when a delimiter is given), anything else the value itself.
fn set_field(field: &mut Value, value: &Value, options: &FieldOptions, found: Found) -> Result<(), Error> {
    let scalar_target = !field.is_object() && !field.is_array();
    if options.delimiter.is_empty() {
        if !scalar_target {
            *field = value.clone();
            return Ok(());
        }
        return set_scalar(field, &path::scalar_text(value), found == Found::Created);
    }
    if !scalar_target {
        return Err(Error::DelimiterOnNonScalar);
    }
    let text = spliced(&path::scalar_text(field), &path::scalar_text(value), &options.delimiter, options.index);
    set_scalar(field, &text, found == Found::Created)
}

/// `piece` put into `text`'s `delimiter`-separated parts: in place of part `index`, before the
/// first when `index` is negative, after the last when it is past the end.
fn spliced(text: &str, piece: &str, delimiter: &str, index: i64) -> String {
    let mut parts: Vec<&str> = text.split(delimiter).collect();
    match usize::try_from(index) {
        Err(_) => parts.insert(0, piece),
        Ok(index) if index >= parts.len() => parts.push(piece),
        Ok(index) => parts[index] = piece,
    }
    parts.join(delimiter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kustomize::resource::PreviousId;
    use serde_json::json;

    fn replacement(yaml: &str) -> Replacement {
        from_file(yaml, "r.yaml").unwrap().remove(0)
    }

    #[test]
    fn delimiters_splice_before_in_place_of_or_after_a_part() {
        assert_eq!(spliced("a/b/c", "x", "/", 1), "a/x/c");
        assert_eq!(spliced("a/b/c", "x", "/", -1), "x/a/b/c");
        assert_eq!(spliced("a/b/c", "x", "/", 3), "a/b/c/x");
        assert_eq!(spliced("", "x", "/", 0), "x");
    }

    #[test]
    fn sources_cut_by_index_and_must_select_exactly_one_resource() {
        let resources = [
            Resource::new(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"image": "nginx:1.25"}}),
            ),
            Resource::new(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}})),
        ];
        let source = |yaml: &str| {
            source_value(&serde_saphyr::from_str::<Source>(yaml).unwrap(), &resources).map_err(|err| err.to_string())
        };
        let tag = "{kind: ConfigMap, name: a, fieldPath: data.image, options: {delimiter: ':', index: 1}}";
        assert_eq!(source(tag), Ok(json!("1.25")));
        assert_eq!(
            source("{name: a, fieldPath: data.image, options: {delimiter: ':', index: 2}}"),
            Err("options.index 2 is out of bounds for value nginx:1.25".into())
        );
        assert_eq!(
            source("{kind: ConfigMap}"),
            Err("multiple matches for selector ConfigMap.[noVer].[noGrp]/[noName].[noNs]".into())
        );
        assert_eq!(
            source("{kind: Secret, fieldPath: data.x}"),
            Err("nothing selected by Secret.[noVer].[noGrp]/[noName].[noNs]:data.x".into())
        );
        assert_eq!(
            source("{name: b, fieldPath: data.x}"),
            Err("fieldPath `data.x` is missing for replacement source [noKind].[noVer].[noGrp]/b.[noNs]".into())
        );
    }

    #[test]
    fn targets_are_selected_by_any_id_they_had_and_rejects_drop_them() {
        let mut renamed = Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "p-web", "namespace": "prod"}}),
        );
        renamed.previous_ids.push(PreviousId {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: "web".into(),
            namespace: String::new(),
        });
        let labelled = Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "db", "labels": {"tier": "data"}}}),
        );
        let select: Selector = serde_saphyr::from_str("{name: web, namespace: default}").unwrap();
        assert!(is_selected(&renamed, &select, &[]).unwrap());
        let by_kind: Selector = serde_saphyr::from_str("{kind: Deployment}").unwrap();
        let reject_prefixed: Selector = serde_saphyr::from_str("{name: p-web}").unwrap();
        let reject_labelled: Selector = serde_saphyr::from_str("{labelSelector: tier=data}").unwrap();
        assert!(!is_selected(&renamed, &by_kind, std::slice::from_ref(&reject_prefixed)).unwrap());
        assert!(is_selected(&labelled, &by_kind, std::slice::from_ref(&reject_prefixed)).unwrap());
        assert!(!is_selected(&labelled, &by_kind, &[reject_labelled]).unwrap());
    }

    #[test]
    fn files_hold_one_or_a_list_and_ignore_unknown_fields() {
        let one = replacement("source: {kind: A, extra: 1}\ntargets:\n- select: {kind: B}\n  fieldPaths: [x]\n");
        assert_eq!(one.source.unwrap().kind, "A");
        let list = from_file("- source: {kind: A}\n- source: {kind: B}\n", "r.yaml").unwrap();
        assert_eq!(list.len(), 2);
        let empty = from_file("source: {kind: A}\ntargets: []\n", "r.yaml").unwrap();
        assert_eq!(empty[0].targets.as_ref().map(Vec::len), Some(0), "a file's empty list is kept");
        let inline: Entry = serde_saphyr::from_str("{source: {kind: A}, targets: []}").unwrap();
        let err = run(&[inline], &mut [], &mut |_| unreachable!()).unwrap_err();
        assert_eq!(err.to_string(), "replacements must specify a source and at least one target");
        let both: Entry = serde_saphyr::from_str("{path: r.yaml, source: {kind: A}}").unwrap();
        let err = run(&[both], &mut [], &mut |_| unreachable!()).unwrap_err();
        assert_eq!(err.to_string(), "cannot specify both path and inline replacement");
        let err = from_file("just text\n", "r.yaml").unwrap_err();
        assert_eq!(err.to_string(), "unsupported replacement type encountered within replacement path: string");
    }

    #[test]
    fn missing_target_fields_are_errors_unless_created() {
        let mut object = json!({"kind": "Deployment", "spec": {"replicas": 1}});
        let mut replaced = Vec::new();
        let mut copy = |value: Value, yaml: &str| {
            copy_to(&mut object, &value, &serde_saphyr::from_str::<Target>(yaml).unwrap(), &mut replaced)
                .map_err(|err| err.to_string())
        };
        assert_eq!(
            copy(json!("3"), "{select: {}, fieldPaths: [spec.paused]}"),
            Err("unable to find field \"spec.paused\" in replacement target".into())
        );
        let created =
            "{select: {}, fieldPaths: [spec.replicas, spec.template.metadata.labels.n], options: {create: true}}";
        copy(json!("3"), created).unwrap();
        copy(
            json!({"m": "x"}),
            "{select: {}, fieldPaths: [spec.template.metadata.annotations], options: {create: true}}",
        )
        .unwrap();
        assert_eq!(object["spec"]["replicas"], json!(3));
        assert_eq!(object["spec"]["template"]["metadata"]["labels"]["n"], json!(3));
        assert_eq!(object["spec"]["template"]["metadata"]["annotations"], json!({"m": "x"}));
        assert_eq!(replaced, ["/spec/template/metadata/annotations"], "maps and lists set whole are noted");
        let delimited = serde_saphyr::from_str("{select: {}, fieldPaths: [spec.template], options: {delimiter: '/'}}");
        assert_eq!(
            copy_to(&mut object, &json!("x"), &delimited.unwrap(), &mut Vec::new()).map_err(|err| err.to_string()),
            Err("delimiter option can only be used with scalar nodes".into())
        );
    }
}
