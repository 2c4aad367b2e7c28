//! `helmCharts`, `helmGlobals` and the older `helmChartInflationGenerator`. kubeupd never runs
//! helm: a chart fails the build as kubectl's kustomize fails it without `--enable-helm`, with a
//! chart it would refuse, or without helm installed, in kustomize's words; where kustomize would
//! go on to run helm, kubeupd refuses in its own.

use std::path::PathBuf;

use serde_json::Value;

use super::error::Error;
use super::types::helm::{HelmChart, HelmGlobals};
use super::types::kustomization::Kustomization;

/// `--enable-helm`, and what running helm would meet.
#[derive(Debug, Clone)]
pub struct Helm {
    /// `--helm-command`.
    pub command: String,
    /// Whether the command was found (on the PATH, or at its path).
    pub installed: bool,
    /// The temporary directory kustomize would make for helm's homes, as its messages name it.
    pub temporary_home: PathBuf,
}

/// The charts and globals of a kustomization, the deprecated entries converted as kustomize
/// converts them. `inherited` is the namespace of the nearest kustomization above that sets one.
fn charts(kustomization: &Kustomization, inherited: &str) -> (Vec<HelmChart>, HelmGlobals) {
    let mut charts = kustomization.helm_charts.clone();
    let mut converted = HelmGlobals::default();
    for old in &kustomization.helm_chart_inflation_generator {
        charts.push(HelmChart {
            name: old.chart_name.clone(),
            version: old.chart_version.clone(),
            repo: old.chart_repo_url.clone(),
            values_file: old.values.clone(),
            values_inline: old.values_local.clone(),
            values_merge: old.values_merge.clone(),
            release_name: old.release_name.clone(),
            ..HelmChart::default()
        });
        if !old.helm_home.is_empty() {
            converted.config_home = old.helm_home.clone();
        }
        if !old.chart_home.is_empty() {
            converted.chart_home = old.chart_home.clone();
        }
    }
    // A chart without a namespace takes the kustomization's or, without one, the nearest one
    // above (kustomize v5.8.1).
    let namespace = kustomization.namespace.as_deref().filter(|namespace| !namespace.is_empty()).unwrap_or(inherited);
    for chart in charts.iter_mut().filter(|chart| chart.namespace.is_empty()) {
        chart.namespace = namespace.to_string();
    }
    let globals = kustomization.helm_globals.clone().unwrap_or(converted);
    (charts, globals)
}

/// The chart's configuration as kustomize prints it in its messages: the globals and the chart's
/// set fields, in YAML with sorted keys.
fn config_text(chart: &HelmChart, globals: &HelmGlobals) -> String {
    let mut config = serde_json::to_value(chart).expect("a chart serializes");
    for (key, value) in [("chartHome", &globals.chart_home), ("configHome", &globals.config_home)] {
        if !value.is_empty() {
            config[key] = Value::String(value.clone());
        }
    }
    crate::output::to_yaml(&config)
}

const MERGE_OPTIONS: [&str; 3] = ["merge", "override", "replace"];

/// kustomize's checks when it configures the chart generators, before any generator runs.
/// `inherited_namespace` is the namespace of the nearest kustomization above that sets one;
/// `exists` says whether a file the kustomization names may be read.
pub fn configure(
    kustomization: &Kustomization,
    inherited_namespace: &str,
    helm: Option<&Helm>,
    exists: &mut dyn FnMut(&str) -> Result<(), Error>,
) -> Result<(), Error> {
    let (charts, globals) = charts(kustomization, inherited_namespace);
    for chart in &charts {
        let trouble =
            |problem: Error| Error::HelmChart { config: config_text(chart, &globals), problem: Box::new(problem) };
        if helm.is_none() {
            return Err(trouble(Error::HelmNotEnabled));
        }
        if chart.name.is_empty() {
            return Err(trouble(Error::ChartNameEmpty));
        }
        for file in &chart.additional_values_files {
            exists(file).map_err(|err| trouble(Error::AdditionalValuesFile(Box::new(err))))?;
        }
        if !chart.values_merge.is_empty() && !MERGE_OPTIONS.contains(&chart.values_merge.as_str()) {
            return Err(trouble(Error::ValuesMerge(MERGE_OPTIONS.join(" "))));
        }
    }
    Ok(())
}

/// What inflating the charts comes to here: kustomize's error when helm is not installed (its
/// first step is `helm version`), and kubeupd's refusal to run it otherwise.
pub fn inflate(kustomization: &Kustomization, helm: Option<&Helm>) -> Result<(), Error> {
    let (charts, globals) = charts(kustomization, "");
    let (Some(_), Some(helm)) = (charts.first(), helm) else { return Ok(()) };
    if helm.installed {
        return Err(Error::HelmNotRun);
    }
    let home = match globals.config_home.as_str() {
        "" => helm.temporary_home.join("helm"),
        configured => PathBuf::from(configured),
    };
    let command = &helm.command;
    let reason = if command.contains('/') {
        format!("fork/exec {command}: no such file or directory")
    } else {
        format!("exec: {command:?}: executable file not found in $PATH")
    };
    Err(Error::HelmNotInstalled { command: command.clone(), home, reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kustomization(yaml: &str) -> Kustomization {
        crate::kustomize::types::kustomization::parse(serde_saphyr::from_str(yaml).unwrap()).unwrap()
    }

    #[test]
    fn without_enable_helm_the_chart_is_printed_as_kustomize_prints_it() {
        let kustomization = kustomization(
            "helmGlobals: {chartHome: ch}\nhelmCharts:\n- {name: x, version: '1', includeCRDs: false, valuesInline: {}}\n",
        );
        let err = configure(&kustomization, "", None, &mut |_| Ok(())).unwrap_err().to_string();
        assert_eq!(
            err,
            "trouble configuring builtin HelmChartInflationGenerator with config: `\nchartHome: ch\nname: x\nversion: \"1\"\n`: must specify --enable-helm"
        );
    }

    #[test]
    fn a_chart_takes_its_own_namespace_else_its_kustomizations_else_the_one_inherited() {
        let namespaces = |yaml: &str, inherited: &str| -> Vec<String> {
            charts(&kustomization(yaml), inherited).0.into_iter().map(|chart| chart.namespace).collect()
        };
        let charts = "helmCharts:\n- {name: a, namespace: own}\n- {name: b}\n";
        assert_eq!(namespaces(&format!("namespace: k\n{charts}"), "above"), ["own", "k"]);
        assert_eq!(namespaces(charts, "above"), ["own", "above"]);
        assert_eq!(namespaces(&format!("namespace: ''\n{charts}"), "above"), ["own", "above"]);
        assert_eq!(namespaces(charts, ""), ["own", ""]);
    }

    #[test]
    fn old_entries_become_charts_and_a_missing_helm_is_kustomizes_error() {
        let kustomization =
            kustomization("helmChartInflationGenerator:\n- {chartName: x, chartRepoUrl: 'https://c', helmHome: /h}\n");
        let helm = Helm { command: "helm".into(), installed: false, temporary_home: "/tmp/kustomize-helm-1".into() };
        configure(&kustomization, "", Some(&helm), &mut |_| Ok(())).unwrap();
        assert_eq!(
            inflate(&kustomization, Some(&helm)).unwrap_err().to_string(),
            "unable to run: 'helm version --short' with env=[HELM_CONFIG_HOME=/h HELM_CACHE_HOME=/h/.cache \
             HELM_DATA_HOME=/h/.data] (is 'helm' installed?): exec: \"helm\": executable file not found in $PATH"
        );
        let installed = Helm { installed: true, ..helm };
        assert!(inflate(&kustomization, Some(&installed)).unwrap_err().to_string().contains("does not run helm"));
    }
}
