//! The generators, transformers and validators a kustomization configures as plugins: their
//! configurations read, and the built-in transformers they name run.

use std::path::Path;

use serde_json::Value;

use super::{Accumulated, Builder, Place};
use crate::kustomize::error::Error;
use crate::kustomize::origin::{self, Origin};
use crate::kustomize::replace::replacements;
use crate::kustomize::resource::Resource;
use crate::kustomize::types::plugins::{self, Role};
use crate::kustomize::{names, transform, value_add};
use crate::manifest::{self, Dialect};

impl Builder<'_> {
    /// Runs the built-in transformers `transformers` configure, then fails as kustomize does on a
    /// built-in validator.
    pub(super) fn run_plugins(
        &self,
        dir: &Path,
        place: &Place,
        transformers: Vec<(Value, Option<Origin>)>,
        validators: Vec<(Value, Option<Origin>)>,
        resources: &mut Vec<Resource>,
    ) -> Result<(), Error> {
        let mut read = |path: &str| self.read_text(dir, path);
        let schema = self.schema.custom();
        for (object, plugin_origin) in transformers {
            let plugin = plugins::plugin(&object, Role::Transformer, self.options.alpha_plugins)
                .map_err(|message| place.error(message))?;
            transform::run(&plugin.kustomization, &plugin.config, resources, &mut read, &mut |_, _| {}, schema)
                .map_err(|message| place.error(message))?;
            replacements::run(&plugin.kustomization.replacements, resources, &mut read)
                .map_err(|message| place.error(message))?;
            if plugin.adds_hashes {
                names::add_hashes(resources);
            }
            if let Some(value_add) = &plugin.value_add {
                let directory_name = dir.file_name().unwrap_or_default().to_string_lossy();
                value_add::run(value_add, &directory_name, resources, &mut read)
                    .map_err(|message| place.error(message))?;
            }
            if let Some(plugin_origin) = plugin_origin {
                origin::record_transformer(resources, &plugin_origin);
            }
        }
        for (object, _) in validators {
            plugins::plugin(&object, Role::Validator, self.options.alpha_plugins)
                .map_err(|message| place.error(message))?;
            // kustomize compares the objects before and after a validator as YAML nodes, which a
            // built-in transformer never leaves equal, whatever it changes.
            if let Some(first) = resources.first() {
                return Err(place.error(Error::ValidatorChanged(first.id())));
            }
        }
        Ok(())
    }

    /// The plugin configurations `entries` name (inline YAML first, then files and kustomization
    /// directories, as kustomize takes them), each with its origin when the build records origins.
    pub(super) fn plugin_configs(
        &mut self,
        dir: &Path,
        place: &Place,
        file_name: &str,
        entries: &[String],
        origin: &Option<Origin>,
    ) -> Result<Vec<(Value, Option<Origin>)>, Error> {
        let mut configs = Vec::new();
        let is_inline = |entry: &&String| entry.contains('\n') || entry.trim_start().starts_with('{');
        let (inline, paths): (Vec<&String>, Vec<&String>) = entries.iter().partition(is_inline);
        for entry in inline {
            let objects = manifest::parse_as(entry, &place.file.display().to_string(), Dialect::Kustomize)
                .map_err(|err| place.error(err))?;
            let configured_in = origin.as_ref().map(|origin| origin.append(file_name, None));
            for object in objects {
                let plugin_origin = configured_in.as_ref().map(|configured_in| configured_in.plugin(&object.object));
                configs.push((object.object, plugin_origin));
            }
        }
        for entry in paths {
            let mut accumulated = Accumulated::default();
            self.accumulate(dir, entry, None, &mut accumulated, origin.as_ref()).map_err(|error| match error {
                inner @ Error::InFile { .. } => inner,
                failure => place.error(failure),
            })?;
            for resource in accumulated.resources {
                let plugin_origin = origin.as_ref().map(|_| Origin::of(&resource.object).plugin(&resource.object));
                configs.push((resource.object, plugin_origin));
            }
        }
        Ok(configs)
    }
}
