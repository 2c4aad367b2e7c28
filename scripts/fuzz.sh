#!/usr/bin/env bash
# Fuzzes kubeupd's parsers with libFuzzer (cargo-fuzz on nightly Rust): each target of
# fuzz/fuzz_targets (bodies in fuzz/targets.rs) for SECONDS (default 60), seeded with
# testdata/fuzz/TARGET, its working corpus in fuzz/corpus/TARGET and what fails in
# fuzz/artifacts/TARGET (both ignored by git). A failing input, once fixed, goes into
# testdata/fuzz/TARGET, which `cargo test --test offline fuzz_regressions` replays.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 600 manifest go_template
#
# An input fails when it panics, overflows the stack, takes over 10 s (-timeout) or 2 GiB.
# Needs the nightly toolchain (`rustup toolchain install nightly`) and cargo-fuzz (installed here
# with `cargo install cargo-fuzz --locked` when missing). The first build compiles kubeupd and
# its dependencies with coverage instrumentation into fuzz/target: about 30 minutes on 2 cores
# shared with other builds (kubeupd itself at opt-level 1: fuzz/Cargo.toml), 5 minutes after a
# change to kubeupd.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls fuzz/fuzz_targets | sed 's/\.rs$//')
fi

cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
# No sanitizer: kubeupd has no unsafe code of its own, and without one the targets run several
# times faster; panics, stack overflows, timeouts and memory are what is looked for.
cargo +nightly fuzz build -s none
# The binaries built, run as `cargo fuzz run` runs them, without its build before each: kubeupd's
# build script watches the repository's branches, so any commit meanwhile (another worktree's
# too) would build kubeupd again for every target.
bin=fuzz/target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release

status=0
for target in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
  echo "fuzz.sh: $target for ${seconds}s" >&2
  if ! "$bin/$target" -artifact_prefix="fuzz/artifacts/$target/" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict=fuzz/tokens.dict -close_fd_mask=3 -print_final_stats=1 \
    "fuzz/corpus/$target" "testdata/fuzz/$target"; then
    echo "fuzz.sh: $target failed: see fuzz/artifacts/$target" >&2
    status=1
  fi
done
exit $status
