//! Runs the upstream strategic-merge-patch cases (testdata/strategic-merge*, and any case files named
//! in `SMP_CORPUS`, separated by `:`) against the engine, and ends with `N passed, M failed`.
//!
//! Each case file's schema comes from the `schema*.json` documents beside it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use kubeupd::merge::strategic;
use kubeupd::schema::OpenApiSchema;
use serde_json::{Map, Value};

#[test]
fn upstream_cases_pass() {
    let testdata = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata"));
    let mut files: Vec<PathBuf> = ["strategic-merge", "strategic-merge-upstream"]
        .iter()
        .flat_map(|folder| case_files(&testdata.join(folder)))
        .collect();
    if let Ok(corpus) = std::env::var("SMP_CORPUS") {
        files.extend(corpus.split(':').filter(|path| !path.is_empty()).map(PathBuf::from));
    }
    let mut schemas: HashMap<PathBuf, OpenApiSchema> = HashMap::new();
    let (mut passed, mut failed) = (0, 0);
    for file in &files {
        let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        let schema = schemas.entry(dir.clone()).or_insert_with(|| load_schemas(&dir));
        let cases: Vec<Value> = serde_json::from_str(
            &std::fs::read_to_string(file).unwrap_or_else(|err| panic!("{}: {err}", file.display())),
        )
        .unwrap_or_else(|err| panic!("{}: {err}", file.display()));
        for case in &cases {
            match run_case(case, schema) {
                Ok(()) => passed += 1,
                Err(why) => {
                    failed += 1;
                    println!(
                        "FAIL {} [{}] {}: {why}",
                        file.display(),
                        case["group"].as_str().unwrap_or(""),
                        case["id"]
                    );
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    assert!(failed == 0 && passed > 0, "{passed} passed, {failed} failed");
}

fn case_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json") && !is_schema_file(path))
        .collect();
    files.sort();
    files
}

fn is_schema_file(path: &Path) -> bool {
    path.file_name().and_then(|name| name.to_str()).is_some_and(|name| name.starts_with("schema"))
}

/// All `schema*.json` documents of a folder, as one document.
fn load_schemas(dir: &Path) -> OpenApiSchema {
    let mut definitions = Map::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display())) {
        let path = entry.unwrap().path();
        if is_schema_file(&path) && path.extension().is_some_and(|ext| ext == "json") {
            let document: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            if let Some(found) = document["definitions"].as_object() {
                definitions.extend(found.clone());
            }
        }
    }
    OpenApiSchema::from_document(&serde_json::json!({ "definitions": definitions })).expect("schema documents")
}

fn run_case(case: &Value, schema: &OpenApiSchema) -> Result<(), String> {
    let name = case["schema"].as_str().unwrap_or("mergeItem");
    let node = schema.definition(name).ok_or_else(|| format!("no schema definition {name:?}"))?;
    let original = case.get("original").cloned().unwrap_or(Value::Null);
    let modified = case.get("modified").cloned().unwrap_or(Value::Null);
    let two_way = case.get("twoWay").cloned().unwrap_or_else(|| serde_json::json!({}));
    let two_way_result = case.get("twoWayResult").cloned().unwrap_or_else(|| modified.clone());

    if let Some(expected) = case.get("expectedError").and_then(Value::as_str) {
        return match strategic::apply(original, two_way, &node) {
            Err(err) if err.to_string().contains(expected) => Ok(()),
            Err(err) => Err(format!("error {err:?} does not contain {expected:?}")),
            Ok(result) => Err(format!("expected an error containing {expected:?}, got {result}")),
        };
    }
    if case["applyOnly"].as_bool() == Some(true) {
        let result = strategic::apply(original, two_way, &node).map_err(|err| format!("apply: {err}"))?;
        return expect("result of applying twoWay", &result, &two_way_result);
    }

    let patch = strategic::create_two_way(&original, &modified, &node).map_err(|err| format!("two-way: {err}"))?;
    expect("two-way patch", &patch, &two_way)?;
    let result = strategic::apply(original.clone(), patch, &node).map_err(|err| format!("apply two-way: {err}"))?;
    expect("two-way result", &result, &two_way_result)?;

    let Some(three_way) = case.get("threeWay") else { return Ok(()) };
    let current = case.get("current").cloned().unwrap_or(Value::Null);
    let patch = match strategic::create_three_way(&original, &modified, &current, &node, false) {
        Ok(_) if case["conflict"].as_bool() == Some(true) => return Err("expected a conflict, got none".into()),
        Ok(patch) => patch,
        Err(err) if err.is_conflict() && case["conflict"].as_bool() == Some(true) => {
            if case.get("threeWayResult").is_none() {
                return Ok(());
            }
            strategic::create_three_way(&original, &modified, &current, &node, true)
                .map_err(|err| format!("three-way with overwrite: {err}"))?
        }
        Err(err) => return Err(format!("three-way: {err}")),
    };
    expect("three-way patch", &patch, three_way)?;
    if let Some(expected) = case.get("threeWayResult") {
        let result = strategic::apply(current, patch, &node).map_err(|err| format!("apply three-way: {err}"))?;
        expect("three-way result", &result, expected)?;
    }
    Ok(())
}

fn expect(what: &str, got: &Value, want: &Value) -> Result<(), String> {
    if same(got, want) { Ok(()) } else { Err(format!("{what}:\n    got  {got}\n    want {want}")) }
}

/// Structural equality; numbers compare by value (Go prints the float 1.0 as 1).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, value)| y.get(key).is_some_and(|other| same(value, other)))
        }
        _ => a == b,
    }
}
