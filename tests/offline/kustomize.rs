//! `kubeupd kustomize` against `kubectl kustomize` (kubectl 1.37, kustomize v5.8.1), the oracle,
//! whose outputs are recorded in `testdata/golden/kustomize-*.json`: every kustomization of the
//! corpus in testdata/kustomize (kustomize's own examples, cases of our own per field, and real
//! overlays of public projects) must build to the same bytes, and the error cases must fail in both.
//! Remote bases (git repositories made by a test) are in the cluster tests' `kustomize_remote`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::golden::{self, Run};

fn kubeupd(args: &[&str], dir: &Path) -> Output {
    Command::new(assert_cmd::cargo::cargo_bin("kubeupd")).args(args).arg(dir).output().unwrap()
}

/// kubectl's outputs of `kubectl ARGS DIR` in DIR for each run, recorded in
/// `testdata/golden/NAME.json`; `inputs` are the files the builds read.
fn kubectl(name: &str, inputs: &[&Path], runs: &[(&[&str], &Path)]) -> Vec<Output> {
    let runs: Vec<Run> =
        runs.iter().map(|(args, dir)| Run::in_dir(&[*args, &[dir.to_str().unwrap()]].concat(), dir)).collect();
    golden::kubectl(name, inputs, &runs)
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/kustomize")
}

/// The directories under `dir` that hold a kustomization (not a component), sorted.
fn kustomizations(dir: &Path) -> Vec<PathBuf> {
    kustomization_dirs(dir, false)
}

/// The directories under `dir` that hold a kustomization file of a component (`components`) or
/// of another kind, sorted.
fn kustomization_dirs(dir: &Path, components: bool) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let text = std::fs::read_to_string(dir.join("kustomization.yaml")).unwrap_or_default();
    if !text.is_empty() && text.contains("kind: Component") == components {
        found.push(dir.to_path_buf());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().path()).collect();
    entries.sort();
    for path in entries.into_iter().filter(|path| path.is_dir()) {
        found.extend(kustomization_dirs(&path, components));
    }
    found
}

/// Warnings and log lines as they can be compared: klog's header (time and process) cut off the
/// log lines, and the unused vars, which kustomize lists in Go's map order, sorted.
fn comparable_stderr(stderr: &[u8]) -> String {
    let unused = "well-defined vars that were never replaced: ";
    let mut lines = Vec::new();
    for line in String::from_utf8_lossy(stderr).lines() {
        let is_klog = line.starts_with('I') && line.contains(" log.go:244] ");
        let line =
            if is_klog { format!("I {}", line.split_once(" log.go:244] ").unwrap().1) } else { line.to_string() };
        lines.push(match line.split_once(unused) {
            Some((before, names)) => {
                let mut names: Vec<&str> = names.split(',').collect();
                names.sort();
                format!("{before}{unused}{}", names.join(","))
            }
            None => line,
        });
    }
    lines.join("\n")
}

/// Kustomizations whose build kubeupd refuses on purpose, with the reason.
const NOT_YET: &[(&str, &str)] = &[];

#[test]
fn builds_match_kubectl_kustomize_byte_for_byte() {
    let mut compared = 0;
    let dirs: Vec<PathBuf> =
        ["upstream", "cases", "real"].iter().flat_map(|group| kustomizations(&corpus().join(group))).collect();
    let runs: Vec<(&[&str], &Path)> = dirs.iter().map(|dir| (&["kustomize"][..], dir.as_path())).collect();
    let recorded = kubectl("kustomize-builds", &[&corpus()], &runs);
    for (dir, theirs) in dirs.iter().zip(recorded) {
        let name = dir.strip_prefix(corpus()).unwrap().display().to_string();
        let ours = kubeupd(&["kustomize"], dir);
        if let Some((_, reason)) = NOT_YET.iter().find(|(skipped, _)| *skipped == name) {
            assert!(!ours.status.success(), "{name}: expected to be refused until supported");
            assert!(
                String::from_utf8_lossy(&ours.stderr).contains(reason),
                "{name}: {}",
                String::from_utf8_lossy(&ours.stderr)
            );
            continue;
        }
        assert!(theirs.status.success(), "{name}: kubectl failed: {}", String::from_utf8_lossy(&theirs.stderr));
        assert!(ours.status.success(), "{name}: kubeupd failed: {}", String::from_utf8_lossy(&ours.stderr));
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&theirs.stdout),
            "{name}: output differs (left: kubeupd)"
        );
        assert_eq!(
            comparable_stderr(&ours.stderr),
            comparable_stderr(&theirs.stderr),
            "{name}: warnings differ (left: kubeupd)"
        );
        compared += 1;
    }
    assert!(compared >= 170, "only {compared} kustomizations compared");
}

/// Every component of the corpus built on its own, as kustomize builds one: the same output, or
/// the same failure (kubeupd's one line being the start of kustomize's message).
#[test]
fn components_build_alone_as_in_kubectl() {
    let dirs: Vec<PathBuf> = ["upstream", "cases", "real"]
        .iter()
        .flat_map(|group| kustomization_dirs(&corpus().join(group), true))
        .collect();
    let runs: Vec<(&[&str], &Path)> = dirs.iter().map(|dir| (&["kustomize"][..], dir.as_path())).collect();
    let recorded = kubectl("kustomize-components", &[&corpus()], &runs);
    let mut built = 0;
    for (dir, theirs) in dirs.iter().zip(recorded) {
        let name = dir.strip_prefix(corpus()).unwrap().display().to_string();
        let ours = kubeupd(&["kustomize"], dir);
        assert_eq!(ours.status.code(), theirs.status.code(), "{name}: {}", String::from_utf8_lossy(&ours.stderr));
        assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout), "{name}");
        if theirs.status.success() {
            assert_eq!(comparable_stderr(&ours.stderr), comparable_stderr(&theirs.stderr), "{name}: warnings");
            built += 1;
        } else {
            let (ours, theirs) = (String::from_utf8_lossy(&ours.stderr), String::from_utf8_lossy(&theirs.stderr));
            let theirs = without_go_pointers(&kubectl_error(&theirs));
            let ours = kubeupd_error(&ours);
            assert!(without_accumulation_chain(&theirs).starts_with(&ours), "{name}: {ours} / {theirs}");
        }
    }
    assert!(built >= 15, "only {built} components built");
}

#[test]
fn bad_kustomizations_fail_as_in_kubectl() {
    let cases = [
        ("unknown-field", r#"invalid Kustomization: json: unknown field "namePrefixx""#),
        ("patch-unknown-option", r#"invalid Kustomization: json: unknown field "allowRename""#),
        ("generator-duplicate-key", "configmap creds illegally repeats the key `password`"),
        (
            "generator-exists",
            concat!(
                r#"id resid.ResId{Gvk:resid.Gvk{Group:"", Version:"v1", Kind:"ConfigMap", isClusterScoped:false}, "#,
                r#"Name:"settings", Namespace:""} exists; can not use behavior: 'unspecified', behavior must be merge or replace"#
            ),
        ),
        (
            "generator-merge-missing",
            concat!(
                r#"id resid.ResId{Gvk:resid.Gvk{Group:"", Version:"v1", Kind:"ConfigMap", isClusterScoped:false}, "#,
                r#"Name:"settings", Namespace:"prod"} does not exist; cannot merge or replace"#
            ),
        ),
        (
            "replicas-no-match",
            concat!(
                "resource with name not-there does not match a config with the following GVK ",
                "[Deployment.[noVer].[noGrp] StatefulSet.[noVer].[noGrp] ReplicaSet.[noVer].[noGrp] ",
                "ReplicationController.[noVer].[noGrp]]"
            ),
        ),
        ("missing-file", "accumulating resources from 'not-there.yaml'"),
        (
            "json6902-add-missing-parent",
            r#"add operation does not apply: doc is missing path: "/metadata/labels/x": missing value"#,
        ),
        ("cycle/a", "cycle detected"),
        ("duplicate-id", "may not add resource with an already registered id: ConfigMap.v1.[noGrp]/c.[noNs]"),
        ("outside-root/root", "security; file"),
        ("deprecated-fields-then-failure", "missing-patch.yaml"),
        (
            "namespace-id-conflict",
            concat!(
                r#"namespace transformation produces ID conflict: [{"apiVersion":"v1","data":{"mode":"\u003cfast\u003e"},"#,
                r#""kind":"ConfigMap","metadata":{"annotations":{"internal.config.kubernetes.io/previousKinds":"ConfigMap","#,
                r#""internal.config.kubernetes.io/previousNames":"settings","#,
                r#""internal.config.kubernetes.io/previousNamespaces":"staging"},"name":"settings","namespace":"prod"}} "#,
                r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"#,
                r#""internal.config.kubernetes.io/previousKinds":"ConfigMap","#,
                r#""internal.config.kubernetes.io/previousNames":"settings","#,
                r#""internal.config.kubernetes.io/previousNamespaces":"default"},"name":"settings","namespace":"prod"}}]"#,
            ),
        ),
        ("no-match", "no resource matches strategic merge patch \"ConfigMap.v1.[noGrp]/other.[noNs]\""),
        (
            "patch-namespace-never-had/overlay",
            "no resource matches strategic merge patch \"Deployment.v1.apps/controller-manager.[noNs]\"",
        ),
        ("replacements-no-source", "nothing selected by Secret.[noVer].[noGrp]/missing.[noNs]:data.x"),
        ("replacements-two-sources", "multiple matches for selector ConfigMap.[noVer].[noGrp]/[noName].[noNs]"),
        ("replacements-missing-target", "unable to find field \"spec.containers.0.env.0.value\" in replacement target"),
        (
            "replacements-structured-missing",
            "unable to find field \"data.[config.yaml].db.port\" in replacement target",
        ),
        ("replacements-path-and-inline", "cannot specify both path and inline replacement"),
        (
            "replacements-file-wrong-type",
            "replacement.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field FieldOptions.targets.options.create of type bool",
        ),
        ("replacements-value-and-source", "value and resource selectors are mutually exclusive"),
        ("replacements-index-out-of-bounds", "options.index 1 is out of bounds for value fast"),
        (
            "patch-target-bad-regex",
            "unable to find patch target \"ConfigMap.[noVer].[noGrp]/web-(canary.[noNs]:a=:l=\" in `resources`: error parsing regexp: missing closing ): `^(?:web-(canary)$`",
        ),
        (
            "replacements-bad-regex",
            "unable to find field \"spec.containers.[name=[z-a]pp].image\" in replacement target: error parsing regexp: invalid character class range: `z-a`",
        ),
        (
            "vars-unmapped",
            "var '{MODE ConfigMap.[noVer].[noGrp] {metadata.name}}' cannot be mapped to a field in the set of known resources",
        ),
        (
            "vars-twice",
            "merging vars [{MODE ConfigMap.[noVer].[noGrp] {}} {MODE ConfigMap.[noVer].[noGrp] {}}]: var 'MODE' already encountered",
        ),
        ("vars-ambiguous", "found 2 resId matches for var {SVC Service.v1.[noGrp] {}} (unable to disambiguate)"),
        (
            "vars-missing-field",
            "field specified in var '{MODE ConfigMap.v1.[noGrp] {data.speed}}' not found in corresponding resource",
        ),
        ("configurations-conflict", "failed to merge CommonLabels fieldSpec: conflicting fieldspecs"),
        (
            "external-generators",
            "loading generator plugins: failed to load generator: external plugins disabled; unable to load external plugin 'ChartInflator'",
        ),
        ("external-transformers", "external plugins disabled; unable to load external plugin 'ChartInflator'"),
        ("external-validators", "external plugins disabled; unable to load external plugin 'ChartInflator'"),
        (
            "plugin-json6902-target-without-name",
            "plugin PatchJson6902Transformer.builtin.[noGrp]/json.[noNs] fails configuration: must specify the target name",
        ),
        ("builtin-validator", "validator shouldn't modify the resource map: nodes unequal"),
        ("builtin-unknown", "unable to load builtin FooTransformer.builtin.[noGrp]"),
        (
            "plugin-not-a-generator",
            "loading generator plugins: failed to load generator: plugin LabelTransformer.builtin.[noGrp]/h.[noNs] not a generator",
        ),
        ("plugin-not-a-transformer", "plugin ConfigMapGenerator.builtin.[noGrp]/h.[noNs] not a transformer"),
        ("openapi-path-and-version", "builtin version and custom schema provided, cannot use both"),
        ("openapi-unknown-version", "the specified OpenAPI version is not built in"),
        (
            "configurations-unknown-field",
            r#"config.yaml: error unmarshaling JSON: while decoding JSON: json: unknown field "nameReferences""#,
        ),
    ];
    let dirs: Vec<PathBuf> = cases.iter().map(|(case, _)| corpus().join("errors").join(case)).collect();
    let runs: Vec<(&[&str], &Path)> = dirs.iter().map(|dir| (&["kustomize"][..], dir.as_path())).collect();
    let recorded = kubectl("kustomize-errors", &[&corpus()], &runs);
    for (((case, words), dir), theirs) in cases.into_iter().zip(&dirs).zip(recorded) {
        let ours = kubeupd(&["kustomize"], dir);
        assert_eq!(theirs.status.code(), Some(1), "{case}: kubectl should fail");
        assert_eq!(ours.status.code(), Some(1), "{case}: kubeupd should fail");
        assert!(ours.stdout.is_empty(), "{case}: nothing printed on failure");
        // kustomize's warnings first, as kubectl prints them, then one line for the error.
        let (stderr, their_stderr) = (String::from_utf8_lossy(&ours.stderr), String::from_utf8_lossy(&theirs.stderr));
        let warnings = |stderr: &str| -> Vec<String> {
            stderr.lines().take_while(|line| line.starts_with("# Warning: ")).map(String::from).collect()
        };
        assert_eq!(warnings(&stderr), warnings(&their_stderr), "{case}: warnings differ (left: kubeupd)");
        let error: Vec<&str> = stderr.lines().skip(warnings(&stderr).len()).collect();
        assert!(
            matches!(error.as_slice(), [line] if line.starts_with("error: ") && line.contains(words)),
            "{case}: {stderr}"
        );
    }
}

/// Fields of the wrong type (one kustomization each under errors/wrong-types), refused in Go's
/// `encoding/json` words as kubectl refuses them, to the word: the Go struct, the field's path
/// through embedded structs, the Go type, the first error in the (sorted) keys' order.
#[test]
fn wrong_typed_fields_fail_in_gos_words() {
    let cases = wrong_types_fail_alike("wrong-types", "kustomize-wrong-types", "invalid Kustomization: json: ");
    assert!(cases >= 20, "only {cases} cases");
}

/// Built-in plugins' configurations with fields of the wrong type (one kustomization each under
/// errors/plugin-wrong-types), refused as kubectl refuses them: `encoding/json`'s words behind
/// `sigs.k8s.io/yaml`'s prefix, and kustomize's around them (`plugin ID fails configuration: `,
/// and for generators `loading generator plugins: failed to load generator: `).
#[test]
fn wrong_typed_plugin_configurations_fail_in_gos_words() {
    let cases = wrong_types_fail_alike("plugin-wrong-types", "kustomize-plugin-wrong-types", "");
    assert!(cases >= 15, "only {cases} cases");
}

/// Builds every kustomization under errors/`group` in both tools, which must fail with the same
/// message, a decoding error that starts with `prefix`, to the word; the number of cases.
fn wrong_types_fail_alike(group: &str, golden: &str, prefix: &str) -> usize {
    let cases = corpus().join("errors").join(group);
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(&cases).unwrap().map(|entry| entry.unwrap().path()).filter(|path| path.is_dir()).collect();
    dirs.sort();
    let runs: Vec<(&[&str], &Path)> = dirs.iter().map(|dir| (&["kustomize"][..], dir.as_path())).collect();
    let recorded = kubectl(golden, &[&cases], &runs);
    for (dir, theirs) in dirs.iter().zip(recorded) {
        let case = dir.file_name().unwrap().to_string_lossy();
        let ours = kubeupd(&["kustomize"], dir);
        assert_eq!((ours.status.code(), theirs.status.code()), (Some(1), Some(1)), "{case}");
        assert!(ours.stdout.is_empty(), "{case}: nothing printed on failure");
        let theirs = kubectl_error(&String::from_utf8_lossy(&theirs.stderr));
        let ours = kubeupd_error(&String::from_utf8_lossy(&ours.stderr));
        assert!(theirs.starts_with(prefix) && theirs.contains("json: "), "{case}: not a decoding error: {theirs}");
        assert_eq!(ours, theirs, "{case}");
    }
    dirs.len()
}

#[test]
fn load_restrictor_none_reads_files_outside_the_root() {
    let dir = corpus().join("errors/outside-root/root");
    let args = ["kustomize", "--load-restrictor", "LoadRestrictionsNone"];
    let theirs = kubectl("kustomize-load-restrictor-none", &[&corpus()], &[(&args, &dir)]).remove(0);
    let ours = kubeupd(&args, &dir);
    assert!(ours.status.success() && theirs.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
    assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout));
}

/// What follows kustomize's warnings (printed first) and `error: `, to the end: a failed build's
/// message, which may have several lines.
fn error_message(stderr: &str) -> &str {
    let mut error = stderr;
    while error.starts_with("# Warning: ") {
        error = error.split_once('\n').map_or("", |(_, rest)| rest);
    }
    error.trim_end().strip_prefix("error: ").expect("the error prefix")
}

/// kubectl's message of a failed build.
fn kubectl_error(stderr: &str) -> String {
    error_message(stderr).to_string()
}

/// kubeupd's message without the kustomization file it names.
fn kubeupd_error(stderr: &str) -> String {
    error_message(stderr).split_once("kustomization.yaml: ").expect("the kustomization named").1.to_string()
}

/// kustomize's message without the chain it puts before an error in a kustomization below
/// (`accumulating resources: accumulation err='...': recursed accumulation of path 'DIR': `),
/// which kubeupd leaves out (docs/differences.md).
fn without_accumulation_chain(message: &str) -> &str {
    const RECURSED: &str = "recursed accumulation of path '";
    match message.rfind(RECURSED) {
        Some(at) => message[at + RECURSED.len()..].split_once("': ").map_or(message, |(_, rest)| rest),
        None => message,
    }
}

/// `message` without the Go pointers kustomize prints of a generator (` &{0xc000123 <nil>}`),
/// which kubeupd leaves out.
fn without_go_pointers(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find(" &{0x") {
        out.push_str(&rest[..at]);
        rest = rest[at..].split_once('}').map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out
}

/// A random number kustomize puts in its temporary directory's name, made `N`.
fn without_temporary_number(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find("kustomize-helm-") {
        let (before, after) = rest.split_at(at + "kustomize-helm-".len());
        out.push_str(before);
        out.push('N');
        rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// Errors of several lines (a plugin's configuration printed in them), in kustomize's very words:
/// helm charts, never inflated, without `--enable-helm` and with it but no helm installed (a
/// chart's namespace taken from its kustomization or the nearest above), and a JSON 6902 patch
/// whose target has no name.
#[test]
fn configuration_errors_are_kustomizes_to_the_word() {
    let no_helm = &["kustomize", "--enable-helm", "--helm-command", "kubeupd-test-no-helm"][..];
    let cases = [
        ("helm-charts", &["kustomize"][..]),
        ("helm-charts", no_helm),
        ("helm-charts-namespace", &["kustomize"][..]),
        ("helm-charts-namespace-inherited", &["kustomize"][..]),
        ("helm-chart-inflation-generator", &["kustomize"][..]),
        ("helm-chart-inflation-generator", no_helm),
        ("json6902-target-without-name", &["kustomize"][..]),
    ];
    let dirs: Vec<PathBuf> = cases.iter().map(|(case, _)| corpus().join("errors").join(case)).collect();
    let runs: Vec<(&[&str], &Path)> = cases.iter().zip(&dirs).map(|((_, args), dir)| (*args, dir.as_path())).collect();
    let recorded = kubectl("kustomize-configuration-errors", &[&corpus()], &runs);
    for (((case, args), dir), theirs) in cases.into_iter().zip(&dirs).zip(recorded) {
        let ours = kubeupd(args, dir);
        assert_eq!((ours.status.code(), theirs.status.code()), (Some(1), Some(1)), "{case} {args:?}");
        assert!(ours.stdout.is_empty());
        let theirs = kubectl_error(&String::from_utf8_lossy(&theirs.stderr));
        let theirs = without_temporary_number(without_accumulation_chain(&theirs));
        let ours = without_temporary_number(&kubeupd_error(&String::from_utf8_lossy(&ours.stderr)));
        assert_eq!(ours, theirs, "{case} {args:?}");
    }
}

/// Writes `files` (path, text) into a new directory.
fn tree(files: Files) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    dir
}

/// A tree's files, as (path, text).
type Files<'a> = &'a [(&'a str, &'a str)];

const COFFEE: (&str, &str) =
    ("coffee.yaml", "kind: Coffee\nmetadata: {name: latte, labels: {a: b}}\nspec: {size: 2}\n");

/// kustomize reads its files as Go does: field names whatever their case, numbers and booleans
/// as strings in plugin configurations (not in kustomization files), resources without
/// `apiVersion`. Each tree builds (or fails) in both tools alike.
#[test]
fn files_are_read_with_gos_rules_as_kubectl_reads_them() {
    let annotations = "apiVersion: builtin\nkind: AnnotationsTransformer\nmetadata: {name: a}\n\
        annotations: {count: 3, enabled: true, ratio: 1.5, big: 1.0e7, small: 0.00001}\n\
        fieldSpecs: [{path: metadata/annotations, create: true}]\nunknown: ignored\n";
    let labels = "apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: l}\nLABELS: {tier: 2}\n\
        FieldSpecs: [{Path: metadata/labels, Create: true}]\n";
    let replacement = "source: {kind: Coffee, fieldPath: spec.size, extra: 1}\nTargets:\n\
        - select: {kind: Coffee}\n  FieldPaths: [metadata.annotations.size]\n  options: {create: true}\n";
    let cases: &[(&str, Files, bool)] = &[
        (
            "field names in any case",
            &[
                (
                    "kustomization.yaml",
                    "nameprefix: p-\nNAMESUFFIX: -s\nResources: [coffee.yaml]\ncommonannotations: {x: z}\n",
                ),
                COFFEE,
            ],
            true,
        ),
        (
            "YAML 1.1's booleans in a kustomization file",
            &[("kustomization.yaml", "resources: [coffee.yaml]\ncommonAnnotations: {x: y}\n"), COFFEE],
            false,
        ),
        (
            "of two keys for a field, the later in byte order",
            &[("kustomization.yaml", "nameprefix: b-\nnamePrefix: a-\nresources: [coffee.yaml]\n"), COFFEE],
            true,
        ),
        (
            "nested field names in any case",
            &[
                (
                    "kustomization.yaml",
                    "resources: [coffee.yaml]\npatchesJSON6902:\n- Target: {Kind: Coffee, NAME: latte}\n\
                     \x20 Patch: '- {op: add, path: /spec/milk, value: oat}'\n",
                ),
                COFFEE,
            ],
            true,
        ),
        ("no apiVersion", &[("kustomization.yaml", "resources: [coffee.yaml]\nnamespace: cafe\n"), COFFEE], true),
        (
            "a number for a string in a kustomization file",
            &[("kustomization.yaml", "resources: [coffee.yaml]\ncommonAnnotations: {replicas: 3}\n"), COFFEE],
            false,
        ),
        (
            "numbers and booleans for strings in plugin configurations",
            &[
                ("kustomization.yaml", "resources: [coffee.yaml]\ntransformers: [annotations.yaml, labels.yaml]\n"),
                ("annotations.yaml", annotations),
                ("labels.yaml", labels),
                COFFEE,
            ],
            true,
        ),
        (
            "a replacements file in any case, unknown fields ignored",
            &[
                ("kustomization.yaml", "resources: [coffee.yaml]\nreplacements: [{path: r.yaml}]\n"),
                ("r.yaml", replacement),
                COFFEE,
            ],
            true,
        ),
    ];
    let trees: Vec<tempfile::TempDir> = cases.iter().map(|(_, files, _)| tree(files)).collect();
    let inputs: Vec<&Path> = trees.iter().map(|dir| dir.path()).collect();
    let runs: Vec<(&[&str], &Path)> = inputs.iter().map(|dir| (&["kustomize"][..], *dir)).collect();
    let recorded = kubectl("kustomize-gos-rules", &inputs, &runs);
    for (((case, _, builds), dir), theirs) in cases.iter().zip(&inputs).zip(recorded) {
        let ours = kubeupd(&["kustomize"], dir);
        assert_eq!(theirs.status.success(), *builds, "{case}: {}", String::from_utf8_lossy(&theirs.stderr));
        assert_eq!(ours.status.code(), theirs.status.code(), "{case}: {}", String::from_utf8_lossy(&ours.stderr));
        assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout), "{case}");
    }
}
