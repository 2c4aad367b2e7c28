//! The fuzz targets (`fuzz/targets.rs`) as ordinary tests: every input of
//! `testdata/fuzz/TARGET/` (seeds, and what fuzzing found: inputs that panicked, overflowed the
//! stack or ran too long before their fix) run through its target; then a short fuzz run without
//! libFuzzer, inputs made from that corpus by a seeded mutator (the same inputs on every run;
//! `KUBEUPD_FUZZ_SEED` picks others, `KUBEUPD_FUZZ_INPUTS` how many per target). The long,
//! coverage-guided runs are `scripts/fuzz.sh` (docs/reliability.md).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

#[path = "../../fuzz/targets.rs"]
mod targets;

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fuzz").join(target)
}

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = corpus_dir(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files.into_iter().map(|path| (path.clone(), std::fs::read(&path).unwrap())).collect()
}

/// Runs `input` through `target` on a thread with the main thread's stack (8 MiB, what the
/// command line has); the panic's message when it panics.
fn run(target: fn(&[u8]), input: &[u8]) -> Result<(), String> {
    let input = input.to_vec();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            catch_unwind(AssertUnwindSafe(|| target(&input))).map_err(|panic| {
                panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
                    .unwrap_or_default()
            })
        })
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn every_target_has_a_corpus_and_a_libfuzzer_binary() {
    for (name, _) in targets::TARGETS {
        assert!(!corpus(name).is_empty(), "testdata/fuzz/{name} is empty");
        let binary = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets").join(format!("{name}.rs"));
        assert!(binary.is_file(), "{} is missing", binary.display());
    }
}

#[test]
fn the_corpus_of_every_target_runs_clean() {
    let mut failures = Vec::new();
    for (name, target) in targets::TARGETS {
        for (path, input) in corpus(name) {
            let started = std::time::Instant::now();
            if let Err(panic) = run(*target, &input) {
                failures.push(format!("{}: {panic}", path.display()));
            }
            if std::env::var_os("KUBEUPD_FUZZ_TRACE").is_some() {
                eprintln!("{:?} {}", started.elapsed(), path.display());
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The tokens the parsers give meaning to (`fuzz/tokens.dict`, libFuzzer's dictionary), inserted
/// by the mutator.
fn tokens() -> Vec<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/tokens.dict");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    text.lines().filter(|line| line.starts_with('"')).map(|line| unescape_token(&line[1..line.len() - 1])).collect()
}

/// A dictionary token's bytes: libFuzzer's escapes `\\`, `\"` and `\xNN`.
fn unescape_token(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match (bytes[at], bytes.get(at + 1)) {
            (b'\\', Some(b'x')) => {
                let hex = std::str::from_utf8(&bytes[at + 2..at + 4]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                at += 4;
            }
            (b'\\', Some(&escaped)) => {
                out.push(escaped);
                at += 2;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    out
}

/// `input` changed a few times: bytes flipped, tokens inserted, a range deleted or repeated (long
/// strings, deep nesting), or spliced with `other`.
fn mutate(rng: &mut fastrand::Rng, tokens: &[Vec<u8>], input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..rng.usize(1..5) {
        let at = rng.usize(0..=out.len());
        match rng.u8(0..6) {
            0 if !out.is_empty() => {
                let at = rng.usize(0..out.len());
                out[at] = rng.u8(..);
            }
            1 | 2 => {
                let token = &tokens[rng.usize(0..tokens.len())];
                out.splice(at..at, token.iter().copied());
            }
            3 => {
                let end = rng.usize(at..=out.len().min(at + 16));
                out.drain(at..end);
            }
            4 => {
                let end = rng.usize(at..=out.len().min(at + 8));
                let piece = out[at..end].to_vec();
                for _ in 0..rng.usize(1..64) {
                    out.splice(at..at, piece.iter().copied());
                }
            }
            _ if !other.is_empty() => {
                let start = rng.usize(0..other.len());
                let end = rng.usize(start..=other.len());
                out.splice(at..at, other[start..end].iter().copied());
            }
            _ => {}
        }
    }
    out.truncate(1 << 16);
    out
}

/// The short fuzz run: inputs made from each target's corpus, on every test run. An input that
/// fails is written to `target/fuzz-failures/TARGET-N` to be kept in the corpus once fixed.
#[test]
fn a_short_fuzz_run_of_every_target_finds_nothing() {
    let seed = std::env::var("KUBEUPD_FUZZ_SEED").ok().and_then(|seed| seed.parse().ok()).unwrap_or(55);
    let inputs: usize = std::env::var("KUBEUPD_FUZZ_INPUTS").ok().and_then(|n| n.parse().ok()).unwrap_or(300);
    let failed_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    let tokens = tokens();
    let mut failures = Vec::new();
    for (name, target) in targets::TARGETS {
        // Inputs named `slow-*` take seconds each in a debug build (a template calling itself
        // 100000 deep): replayed above, not mutated.
        let corpus: Vec<Vec<u8>> = (corpus(name).into_iter())
            .filter(|(path, _)| !path.file_name().unwrap().to_string_lossy().starts_with("slow-"))
            .map(|(_, input)| input)
            .collect();
        let mut rng = fastrand::Rng::with_seed(seed);
        let made: Vec<Vec<u8>> = (0..inputs)
            .map(|_| {
                let input = &corpus[rng.usize(0..corpus.len())];
                let other = &corpus[rng.usize(0..corpus.len())];
                mutate(&mut rng, &tokens, input, other)
            })
            .collect();
        let target = *target;
        // One thread runs them all: a thread per input would cost more than most inputs.
        let outcome = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                let mut failed = Vec::new();
                for input in made {
                    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| target(&input))) {
                        let message = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
                            .unwrap_or_default();
                        failed.push((input, message));
                    }
                }
                failed
            })
            .unwrap()
            .join()
            .unwrap();
        for (number, (input, message)) in outcome.into_iter().enumerate() {
            std::fs::create_dir_all(&failed_dir).unwrap();
            let path = failed_dir.join(format!("{name}-{number}"));
            std::fs::write(&path, &input).unwrap();
            failures.push(format!("{name}: {message} (input in {})", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
