//! Adding what a kustomization names to what it has built (kustomize's `accumulateResources`):
//! files, bases built below it, and generated ConfigMaps and Secrets merged or appended.

use std::path::Path;

use serde_json::{Map, Value};

use super::reading::{is_malformed, is_timeout};
use super::target::is_component;
use super::{Accumulated, Builder, Place};
use crate::kustomize::error::Error;
use crate::kustomize::fetch::FetchError;
use crate::kustomize::generate::{self, GeneratedKind};
use crate::kustomize::helm;
use crate::kustomize::loader::normalize;
use crate::kustomize::origin::{self, Origin};
use crate::kustomize::resource::{self, Resource};
use crate::kustomize::types::kustomization::{self, Kustomization};

/// `found`, annotated with `origin` when there is one.
pub(super) fn with_origin(mut found: Vec<Resource>, origin: Option<&Origin>) -> Vec<Resource> {
    if let Some(origin) = origin {
        for resource in found.iter_mut() {
            origin::set_origin(resource, origin);
        }
    }
    found
}

/// Adds `found` to the accumulated resources, refusing an id already there.
pub(super) fn append_resources(accumulated: &mut Accumulated, found: Vec<Resource>) -> Result<(), Error> {
    for resource in found {
        resource::append(&mut accumulated.resources, resource)?;
    }
    Ok(())
}

impl Builder<'_> {
    /// Adds the resources `entry` names, as kustomize's `accumulateResources` does: read as a file
    /// (already parsed when `ahead` has it, fetched when it is a URL), else built as a base (a
    /// directory, or a repository fetched). When both fail, the error is kustomize's, both
    /// failures in it; an error of a kustomization below passes through (it names its file).
    pub(super) fn accumulate(
        &mut self,
        dir: &Path,
        entry: &str,
        ahead: Option<Result<Vec<Resource>, Error>>,
        accumulated: &mut Accumulated,
        origin: Option<&Origin>,
    ) -> Result<(), Error> {
        let file_failure = match self.file_resources(dir, entry, ahead, origin) {
            Ok(found) => {
                self.resources_read = true;
                let Err(source) = append_resources(accumulated, found) else { return Ok(()) };
                let merging = Error::MergingResources { entry: entry.to_string(), source: Box::new(source) };
                let base = match Path::new(entry).is_absolute() {
                    true => Error::AbsoluteRoot(entry.to_string()),
                    false => Error::FileIsNotDirectory(normalize(&dir.join(entry))),
                };
                return Err(Error::AccumulationFailed { file: merging.to_string(), base: Box::new(base) });
            }
            Err(source) => Error::Accumulating { entry: entry.to_string(), source: Box::new(source) },
        };
        // An answer over HTTP that is not a repository's: no base to try.
        if matches!(&file_failure, Error::Accumulating { source, .. } if matches!(**source, Error::Fetching(FetchError::Status(_))))
        {
            return Err(file_failure);
        }
        let failed = |base: Error| Error::AccumulationFailed { file: file_failure.to_string(), base: Box::new(base) };
        let (path, remote) = match self.new_root(dir, entry) {
            Ok(found) => found,
            // A file that is not YAML is reported alone, unless its name is a repository that
            // could not be fetched in time.
            Err(base) if is_malformed(&file_failure) && !is_timeout(&base) => return Err(file_failure),
            Err(base) => return Err(failed(base)),
        };
        let (file, kustomization) = self.load_below(&path, failed)?;
        if is_component(&kustomization) {
            return Err(failed(Error::ComponentAsResource(path)));
        }
        let origin = origin.map(|origin| origin.append(entry, remote.as_ref()));
        let below = self.build_loaded(&path, &file, kustomization, Accumulated::default(), origin)?.0;
        let recursed = |source: Error| failed(Error::RecursedMerging { path: path.clone(), source: Box::new(source) });
        accumulated.config.merge(&below.config).map_err(recursed)?;
        append_resources(accumulated, below.resources).map_err(recursed)?;
        accumulated.vars.merge(below.vars).map_err(recursed)
    }

    pub(super) fn generate(
        &self,
        dir: &Path,
        place: &Place,
        kustomization: &Kustomization,
        charts_namespace: &str,
        resources: &mut Vec<Resource>,
        origin: &dyn Fn(&str) -> Option<Origin>,
    ) -> Result<(), Error> {
        let mut exists = |path: &str| self.read_text(dir, path).map(drop);
        helm::configure(kustomization, charts_namespace, self.options.helm, &mut exists)
            .map_err(|message| place.error(message))?;
        let generators = kustomization
            .config_map_generator
            .iter()
            .map(|generator| (GeneratedKind::ConfigMap, generator))
            .chain(kustomization.secret_generator.iter().map(|generator| (GeneratedKind::Secret, generator)));
        for (kind, generator) in generators {
            let mut read = |path: &str| self.read_bytes(dir, path);
            let pairs = generate::pairs(generator, &mut read, self.options.environment)
                .map_err(|message| place.error(message))?;
            let options = generate::merge_options(kustomization.generator_options.as_ref(), generator.options.as_ref());
            let object = generate::object(kind, generator, &pairs, &options);
            let behavior = generator.behavior.as_deref().unwrap_or("create");
            let mut generated = Resource::new(object);
            let kind_name = match kind {
                GeneratedKind::ConfigMap => "ConfigMapGenerator",
                GeneratedKind::Secret => "SecretGenerator",
            };
            if let Some(origin) = origin(kind_name) {
                origin::set_origin(&mut generated, &origin);
            }
            generated.needs_hash = !options.disable_name_suffix_hash;
            // kustomize reads a behavior it does not know as unspecified, which creates.
            let namespace = generator.namespace.as_deref().unwrap_or_default();
            let existing = resources
                .iter_mut()
                .find(|resource| resource.kind() == generated.kind() && resource.had_id(&generator.name, namespace));
            let go_id = || go_resource_id(generated.kind(), &generator.name, namespace);
            match (behavior, existing) {
                ("merge" | "replace", Some(existing)) => {
                    merge_generated(existing, generated, behavior == "replace", &options);
                }
                ("merge" | "replace", None) => {
                    return Err(place.error(Error::GeneratedIdMissing(go_id())));
                }
                (_, Some(_)) => {
                    let behavior =
                        if generator.behavior.as_deref() == Some("create") { "create" } else { "unspecified" };
                    return Err(place.error(Error::GeneratedIdExists { id: go_id(), behavior }));
                }
                (_, None) => resource::append(resources, generated).map_err(|message| place.error(message))?,
            }
        }
        helm::inflate(kustomization, self.options.helm).map_err(|message| place.error(message))
    }
}

/// A generated object's id as kustomize's messages print it (Go's `%#v` of a `resid.ResId`).
fn go_resource_id(kind: &str, name: &str, namespace: &str) -> String {
    format!(
        "resid.ResId{{Gvk:resid.Gvk{{Group:\"\", Version:\"v1\", Kind:{kind:?}, isClusterScoped:false}}, \
         Name:{name:?}, Namespace:{namespace:?}}}"
    )
}

/// An overlay's generator applied to the object a base generated, as kustomize does it: the
/// result is the generated object, with the existing one's name, namespace, labels and annotations
/// under its own, and (when merging) the existing data under its own. Whatever else the existing
/// object had (`stringData`, its `type`) is gone.
fn merge_generated(
    existing: &mut Resource,
    generated: Resource,
    replace: bool,
    options: &kustomization::GeneratorOptions,
) {
    let mut object = generated.object;
    let old = &existing.object;
    let mut fields = vec!["labels", "annotations"];
    if !replace {
        fields.extend(["data", "binaryData"]);
    }
    for field in fields {
        let in_metadata = matches!(field, "labels" | "annotations");
        let place =
            |object: &Value| if in_metadata { object["metadata"][field].clone() } else { object[field].clone() };
        let mut merged = match place(old) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if let Value::Object(added) = place(&object) {
            for (key, value) in added {
                // A merged object keeps the origin of the generator that made it first.
                if replace || !(key == origin::ORIGIN && merged.contains_key(&key)) {
                    merged.insert(key, value);
                }
            }
        }
        let target = if in_metadata { &mut object["metadata"] } else { &mut object };
        let Some(target) = target.as_object_mut() else { continue };
        // kustomize sets these maps whole, and an empty one not at all.
        if merged.is_empty() {
            target.remove(field);
        } else {
            target.insert(field.to_string(), Value::Object(merged));
        }
    }
    for field in ["name", "namespace"] {
        match old["metadata"].get(field) {
            Some(value) => object["metadata"][field] = value.clone(),
            None => {
                if let Some(metadata) = object["metadata"].as_object_mut() {
                    metadata.remove(field);
                }
            }
        }
    }
    existing.object = object;
    // The merged object keeps the existing one's suffix, unless the generator disables it.
    if options.disable_name_suffix_hash {
        existing.needs_hash = false;
    }
}
