#!/usr/bin/env bash
# Times kubeupd against kubectl on the local cluster, in the same run: each scenario is run
# RUNS times (default 5; the 300-object ones RUNS_MANY times, default 3; the CRD-heavy inputs of
# testdata/crd-heavy RUNS_CRD times, default 3), alternating which tool goes first, each tool with
# a warm discovery cache of its own. Prints Markdown tables of median wall times and peak resident
# memory (GNU time), with kubeupd/kubectl ratios. Each ratio is the median of the runs' own ratios
# (the two tools measured one after the other in the same run), so that the server's drift from
# one run to the next, seconds of its own work after each definition written, cancels out.
#
# The CRD-heavy inputs' phases each start on an idle server (scripts/local-cluster.sh settle).
#
# Beside them, the floor: the requests kubeupd sent for the scenario (recorded once, in a run of
# its own, with KUBEUPD_RECORD_REQUESTS) sent again with kubeupd's concurrency, each write after
# the read it was computed from (scripts/replay.sh), into a fresh namespace: what the server
# itself takes for the same work.
#
# With --baseline REV, kubeupd as built from the commit REV is measured in the same run too (a
# third tool, in every alternation), so that a change can be compared with what came before it.
#
#   scripts/bench.sh                    all scenarios
#   RUNS=9 scripts/bench.sh             more runs
#   CRD_ONLY=1 scripts/bench.sh         the CRD-heavy inputs' rows alone
#   scripts/bench.sh --baseline HEAD~1  also kubeupd as of HEAD~1
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
RUNS_MANY=${RUNS_MANY:-3}
RUNS_CRD=${RUNS_CRD:-3}
baseline_rev=
case "${1:-}" in
  --baseline) baseline_rev=${2:?--baseline needs a commit} ;;
  "") ;;
  *) echo "usage: scripts/bench.sh [--baseline REV]" >&2; exit 2 ;;
esac

scripts/local-cluster.sh up >&2
eval "$(scripts/local-cluster.sh env)"
# Three more clusters (apiservers on the same etcd, alike, without controllers) for the rows of
# many contexts: one kubeconfig list holding the three, and their contexts.
fleet_contexts="bench-one bench-two bench-three"
fleet_kubeconfig=$(for context in $fleet_contexts; do scripts/local-cluster.sh extra "$context"; done | paste -sd:)
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null; }
cargo build --release --locked --quiet
kubeupd=$PWD/target/release/kubeupd
PATH=$(scripts/reference-kubectl.sh):$PATH
kubectl=$(command -v kubectl)
tools="kubectl kubeupd floor"
if [ -n "$baseline_rev" ]; then
  # The baseline is built once per commit, in a work tree of its own under target/.
  sha=$(git rev-parse --verify "$baseline_rev^{commit}")
  tree=$PWD/target/bench-baseline/$sha
  if [ ! -x "$tree/bin/kubeupd" ]; then
    rm -rf "$tree" && git worktree prune
    git worktree add --detach "$tree/src" "$sha" >&2
    CARGO_TARGET_DIR=$PWD/target/bench-baseline/target cargo build --release --locked --quiet --manifest-path "$tree/src/Cargo.toml"
    mkdir -p "$tree/bin" && cp "$PWD/target/bench-baseline/target/release/kubeupd" "$tree/bin/kubeupd"
    git worktree remove --force "$tree/src"
  fi
  baseline=$tree/bin/kubeupd
  tools="kubectl baseline kubeupd floor"
fi

# The floor's sender, compiled once (scripts/replay.sh build), so that its start is milliseconds.
replay_sender=$(scripts/replay.sh build)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/cache-kubectl" "$work/cache-kubeupd" "$work/cache-baseline" "$work/cache-record" "$work/results"

# The same three clusters as remote ones: each apiserver behind a relay that delays every byte by
# REMOTE_DELAY each way (scripts/latency-relay; default 10ms, a 20 ms round trip, a cluster in
# another zone or a nearby region), so that what a command costs in round trips shows, and a
# cluster's wait for the network is not spent on the CPU the three servers share. The same
# context names, in a kubeconfig list of their own.
REMOTE_DELAY=${REMOTE_DELAY:-10ms}
relay=${KUBEUPD_CACHE:-$HOME/.cache/kubeupd}/latency-relay
(cd scripts/latency-relay && GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$relay" .)
remote_kubeconfig=
for context in $fleet_contexts; do
  file=$work/remote-$context.kubeconfig
  KUBECONFIG=$fleet_kubeconfig $kubectl config view --raw --flatten --minify --context "$context" >"$file"
  server=$($kubectl --kubeconfig "$file" config view -o jsonpath='{.clusters[0].cluster.server}')
  "$relay" 127.0.0.1:0 "${server#https://}" "$REMOTE_DELAY" >"$file.relay" &
  until [ -s "$file.relay" ]; do sleep 0.05; done
  address=$(cat "$file.relay")
  $kubectl --kubeconfig "$file" config set-cluster "$($kubectl --kubeconfig "$file" config view -o jsonpath='{.clusters[0].name}')" \
    --server "https://$address" >/dev/null
  remote_kubeconfig=${remote_kubeconfig:+$remote_kubeconfig:}$file
done

# The tool's command line with its own cache.
tool() {
  case $1 in
    kubectl) echo "$kubectl --cache-dir $work/cache-kubectl" ;;
    kubeupd) echo "$kubeupd --cache-dir $work/cache-kubeupd" ;;
    baseline) echo "$baseline --cache-dir $work/cache-baseline" ;;
  esac
}

# record SLUG ARGS...: kubeupd ARGS once, outside the measurements, its requests written into
# $work/rec/SLUG for the floor.
record() {
  local slug=$1
  shift
  KUBEUPD_RECORD_REQUESTS=$work/rec/$slug $kubeupd --cache-dir "$work/cache-record" "$@" >/dev/null 2>&1 || true
}

# floor SCENARIO SLUG CONCURRENCY [FROM TO]: sends the requests recorded as SLUG (in namespace
# FROM, sent to namespace TO) again (scripts/replay.sh), and measures that.
floor() {
  local scenario=$1 slug=$2 concurrency=$3 out=$work/floor/$2-${5:-same}
  [ -d "$work/rec/$slug" ] || return 0
  [ -d "$out" ] || scripts/replay.sh prepare "$work/rec/$slug" "$out" "${4:-}" "${5:-}"
  measure "$scenario" floor "$replay_sender" "$out" "$concurrency"
}

# measure SCENARIO TOOL COMMAND...: runs the command once, records wall seconds (from the clock,
# in nanoseconds) and peak KiB (from GNU time).
measure() {
  local scenario=$1 name=$2 started ended
  shift 2
  started=$(date +%s%N)
  if ! /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>"$work/stderr"; then
    if [ -z "${MAY_FAIL:-}" ]; then
      echo "bench: $name failed in '$scenario':" >&2
      cat "$work/stderr" >&2
      exit 1
    fi
    # Allowed (the CRD-heavy rows: what a server refuses, it refuses to every tool), but said
    # under the table, so that a row timing a failure is never read as a success.
    echo "$name" >>"$work/results/$scenario.failed"
  fi
  ended=$(date +%s%N)
  echo "$(( ended - started )) $(tail -n1 "$work/rss")" | awk '{printf "%.6f %d\n", $1 / 1e9, $2}' >>"$work/results/$scenario.$name"
}

deployment() {
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: $1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:$2
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
        ports: [{containerPort: 80}]
YAML
}

many() {
  for i in $(seq 0 149); do
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d}\ndata: {v: "%s"}\n---\n' "$i" "$1"
    printf 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d-%d}\nspec:\n  selector: {matchLabels: {app: d-%d}}\n  template:\n    metadata: {labels: {app: d-%d}}\n    spec:\n      containers: [{name: c, image: "img:%s"}]\n---\n' "$i" "$i" "$i" "$1"
  done
}

deployment 2 1.25 >"$work/one-v1.yaml"
deployment 3 1.27 >"$work/one-v2.yaml"
many 1 >"$work/many-v1.yaml"
many 2 >"$work/many-v2.yaml"

# Warm both discovery caches (and kubeupd's OpenAPI cache) outside the measurements.
warm=bench-warm-$$
$kubectl create namespace "$warm" >/dev/null
for name in ${tools% floor}; do
  $(tool $name) apply -n "$warm" -f "$work/one-v1.yaml" >/dev/null
  $(tool $name) apply -n "$warm" -f "$work/one-v2.yaml" >/dev/null
  $(tool $name) get -n "$warm" deployment web >/dev/null
  for context in $fleet_contexts; do
    KUBECONFIG=$fleet_kubeconfig $(tool $name) --context "$context" get namespace default >/dev/null
    KUBECONFIG=$remote_kubeconfig $(tool $name) --context "$context" get namespace default >/dev/null
  done
done

# 3 000 ConfigMaps, made once, for reading one field of each back (get -o jsonpath): paged reads
# and the JSONPath printer.
big=bench-big-$$
$kubectl create namespace "$big" >/dev/null
for i in $(seq 0 2999); do
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big-%d}\ndata: {v: "%d"}\n---\n' "$i" "$i"
done >"$work/big.yaml"
$kubeupd --cache-dir "$work/cache-kubeupd" apply -n "$big" -f "$work/big.yaml" >/dev/null 2>&1

# The floor's recordings: kubeupd's requests for each scenario, in namespaces of their own.
one=bench-rec-one-$$
many_ns=bench-rec-many-$$
$kubectl create namespace "$one" >/dev/null
$kubectl create namespace "$many_ns" >/dev/null
record one-create apply -n "$one" -f "$work/one-v1.yaml"
record one-configure apply -n "$one" -f "$work/one-v2.yaml"
record one-unchanged apply -n "$one" -f "$work/one-v2.yaml"
record get-one get -n "$one" deployment web
for i in $(seq 1 20); do
  record patches patch -n "$one" deployment web --type merge -p "{\"metadata\":{\"annotations\":{\"n\":\"$i\"}}}"
done
record many-create apply -n "$many_ns" -f "$work/many-v1.yaml"
record many-configure apply -n "$many_ns" -f "$work/many-v2.yaml"
record many-unchanged apply -n "$many_ns" -f "$work/many-v2.yaml"
record get-many get -n "$many_ns" configmaps,deployments -o json
record get-big get -n "$big" configmaps -o "jsonpath={.items[*].data.v}"

# A baseline may predate a verb or printer: its rows for them are left out (shown as -); the floor
# has no rows of its own for what sends no request.
supports() {
  [ "$1" = floor ] && [ "$2" = kustomize ] && return 1
  [ "$1" != baseline ] && return 0
  case $2 in
    kustomize) $baseline kustomize --help >/dev/null 2>&1 ;;
    fleet) $baseline apply --help 2>/dev/null | grep -q -- --canary ;;
    jsonpath) $baseline get --help 2>/dev/null | grep -q jsonpath ;;
  esac
}

# Which tool goes first alternates (rotates, with a baseline) from run to run.
order() {
  local list=($tools) i
  for i in $(seq 0 $((${#list[@]} - 1))); do printf '%s ' "${list[$(( (i + $1) % ${#list[@]} ))]}"; done
}

# CRD_ONLY=1 measures the CRD-heavy inputs alone (their rows take most of the run).
for run in $(seq 1 "$RUNS"); do
  [ -z "${CRD_ONLY:-}" ] || break
  for name in $(order "$run"); do
    ns=bench-$name-$$-$run
    $kubectl create namespace "$ns" >/dev/null
    if [ $name = floor ]; then
      floor "apply one Deployment: create" one-create 8 "$one" "$ns"
      floor "apply one Deployment: configure" one-configure 8 "$one" "$ns"
      floor "apply one Deployment: unchanged" one-unchanged 8 "$one" "$ns"
      floor "get one object" get-one 8 "$one" "$ns"
      floor "20 sequential patches" patches 1 "$one" "$ns"
      continue
    fi
    cmd=$(tool $name)
    measure "apply one Deployment: create" $name $cmd apply -n "$ns" -f "$work/one-v1.yaml"
    measure "apply one Deployment: configure" $name $cmd apply -n "$ns" -f "$work/one-v2.yaml"
    measure "apply one Deployment: unchanged" $name $cmd apply -n "$ns" -f "$work/one-v2.yaml"
    measure "get one object" $name $cmd get -n "$ns" deployment web
    ! supports $name kustomize || measure "kustomize an overlay" $name $cmd kustomize testdata/kustomize/cases/overlay
    ! supports $name kustomize || measure "kustomize a large overlay" $name $cmd kustomize testdata/kustomize/real/kube-prometheus
    # kubectl's slowest and largest build of the corpus (a rendered Helm chart patched by overlays).
    ! supports $name kustomize || measure "kustomize Argo CD HA install" $name $cmd kustomize testdata/kustomize/real/argo-cd/manifests/ha/namespace-install
    measure "20 sequential patches" $name sh -c "for i in \$(seq 1 20); do $cmd patch -n $ns deployment web --type merge -p \"{\\\"metadata\\\":{\\\"annotations\\\":{\\\"n\\\":\\\"\$i\\\"}}}\" >/dev/null || exit 1; done"
  done
done

for run in $(seq 1 "$RUNS_MANY"); do
  [ -z "${CRD_ONLY:-}" ] || break
  for name in $(order "$run"); do
    ns=bench-many-$name-$$-$run
    $kubectl create namespace "$ns" >/dev/null
    if [ $name = floor ]; then
      floor "apply 300 objects: create" many-create 8 "$many_ns" "$ns"
      floor "apply 300 objects: configure" many-configure 8 "$many_ns" "$ns"
      floor "apply 300 objects: unchanged" many-unchanged 8 "$many_ns" "$ns"
      floor "get 300 objects -o json" get-many 8 "$many_ns" "$ns"
      floor "get 3000 objects -o jsonpath" get-big 8
      continue
    fi
    cmd=$(tool $name)
    measure "apply 300 objects: create" $name $cmd apply -n "$ns" -f "$work/many-v1.yaml"
    measure "apply 300 objects: configure" $name $cmd apply -n "$ns" -f "$work/many-v2.yaml"
    measure "apply 300 objects: unchanged" $name $cmd apply -n "$ns" -f "$work/many-v2.yaml"
    measure "get 300 objects -o json" $name $cmd get -n "$ns" configmaps,deployments -o json
    # The same 300 objects on one of the three clusters, then on all three: kubeupd with one
    # --context list, kubectl in the shell loop a CI job runs; on this machine, then remote.
    for setting in local remote; do
      config=$fleet_kubeconfig where=
      [ $setting = local ] || config=$remote_kubeconfig where=" remote"
      for context in $fleet_contexts; do
        KUBECONFIG=$fleet_kubeconfig $kubectl --context "$context" create namespace "$ns-$setting" >/dev/null
      done
      KUBECONFIG=$fleet_kubeconfig $kubectl --context "${fleet_contexts%% *}" create namespace "$ns-$setting-1" >/dev/null
      KUBECONFIG=$config measure "apply 300 objects on 1$where cluster of 3: create" $name \
        $cmd --context "${fleet_contexts%% *}" apply -n "$ns-$setting-1" -f "$work/many-v1.yaml"
      if [ $name = kubectl ]; then
        KUBECONFIG=$config measure "apply 300 objects on 3$where clusters: create" $name sh -c \
          "for context in $fleet_contexts; do $cmd --context \$context apply -n $ns-$setting -f $work/many-v1.yaml >/dev/null || exit 1; done"
      elif supports $name fleet; then
        KUBECONFIG=$config measure "apply 300 objects on 3$where clusters: create" $name \
          $cmd --context "${fleet_contexts// /,}" apply -n "$ns-$setting" -f "$work/many-v1.yaml"
      fi
    done
    ! supports $name jsonpath ||
      measure "get 3000 objects -o jsonpath" $name $cmd get -n "$big" configmaps -o "jsonpath={.items[*].data.v}"
  done
done

# The 300 objects on the cluster with nodes, where they become ready (kwok): applied unchanged,
# then applied unchanged with --wait-ready (kubectl: its apply, then `wait
# --for=condition=Available` on the Deployments), so that what waiting for objects already ready
# adds to an apply shows beside the apply alone.
nodes_kubeconfig=$(scripts/local-cluster.sh nodes)
for run in $(seq 1 "$RUNS_MANY"); do
  [ -z "${CRD_ONLY:-}" ] || break
  for name in $(order "$run"); do
    [ $name = floor ] && continue
    ns=bench-ready-$name-$$-$run
    on_nodes="$kubectl --kubeconfig $nodes_kubeconfig"
    $on_nodes create namespace "$ns" >/dev/null
    $on_nodes apply -n "$ns" -f "$work/many-v1.yaml" >/dev/null
    $on_nodes wait -n "$ns" --for=condition=Available deployments --all --timeout=300s >/dev/null
    cmd="$(tool $name) --kubeconfig $nodes_kubeconfig"
    measure "apply 300 ready objects: unchanged" $name $cmd apply -n "$ns" -f "$work/many-v1.yaml"
    if [ $name = kubectl ]; then
      measure "apply 300 ready objects: unchanged, wait until ready" $name sh -c \
        "$cmd apply -n $ns -f $work/many-v1.yaml && $cmd wait -n $ns --for=condition=Available deployments --all"
    else
      measure "apply 300 ready objects: unchanged, wait until ready" $name \
        $cmd apply -n "$ns" --wait-ready -f "$work/many-v1.yaml"
    fi
    $on_nodes delete namespace "$ns" --wait=false >/dev/null
  done
done

# CRD-heavy inputs (testdata/crd-heavy): created, changed (the next release), applied unchanged, then
# applied server-side. Their CRDs and namespaces are cluster-wide, so each tool starts from a
# cluster without the input's objects: they are deleted between tools (and the namespaces
# finalized, as the namespace controller this cluster lacks would), outside the measurements.
crd_inputs=(
  "kube-prometheus setup|testdata/crd-heavy/kube-prometheus-setup/v0.8.0|testdata/crd-heavy/kube-prometheus-setup/v0.9.0|"
  "Argo CD install|testdata/crd-heavy/argo-cd/install-v2.3.0.yaml|testdata/crd-heavy/argo-cd/install-v2.3.3.yaml|bench-crd"
  "Gatekeeper|testdata/crd-heavy/gatekeeper/gatekeeper-v3.22.0.yaml|testdata/crd-heavy/gatekeeper/gatekeeper-v3.23.0.yaml|"
)
crd_phases=(create change unchanged server-side)

# clean V1 V2 [NAMESPACE]: deletes what either release of an input made.
clean() {
  local ns_flag=${3:+-n $3} namespaces namespace
  namespaces=$($kubectl get $ns_flag -f "$1" -f "$2" --ignore-not-found -o name 2>/dev/null | sed -n 's|^namespace/||p' || true)
  $kubectl delete $ns_flag -f "$1" -f "$2" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  for namespace in $namespaces; do
    $kubectl get namespace "$namespace" -o json 2>/dev/null |
      python3 -c 'import json, sys; o = json.load(sys.stdin); o["spec"]["finalizers"] = []; print(json.dumps(o))' 2>/dev/null |
      $kubectl replace --raw "/api/v1/namespaces/$namespace/finalize" -f - >/dev/null 2>&1 || true
  done
  while $kubectl get $ns_flag -f "$1" -f "$2" --ignore-not-found -o name 2>/dev/null | grep -q .; do
    sleep 0.2
  done
  [ -z "${3:-}" ] || $kubectl create namespace "$3" >/dev/null 2>&1 || true
}

# crd_apply TOOL INPUT PHASE: one phase of an input with one tool, once the server is idle: a
# write of a definition leaves the server seconds of work (its OpenAPI, republished), which would
# otherwise land in the next phase's time, whichever tool it is.
crd_apply() {
  local name=$1 label v1 v2 ns file extra=
  IFS='|' read -r label v1 v2 ns <<<"$2"
  file=$v2
  case $3 in create) file=$v1 ;; server-side) extra=--server-side ;; esac
  # The 1.20 server refuses some of these server-side applies (a Service port without a
  # protocol, the CRDs' empty status), for kubectl and kubeupd alike.
  scripts/local-cluster.sh settle
  if [ $name = floor ]; then
    MAY_FAIL=1 floor "$label: $3" "crd-$label-$3" 8
  else
    MAY_FAIL=1 measure "$label: $3" $name $(tool $name) apply ${ns:+-n $ns} $extra -f "$file"
  fi
}

for input in "${crd_inputs[@]}"; do
  IFS='|' read -r label v1 v2 ns <<<"$input"
  clean "$v1" "$v2" "$ns"
  for phase in "${crd_phases[@]}"; do
    file=$v2 extra=
    case $phase in create) file=$v1 ;; server-side) extra=--server-side ;; esac
    # Recorded on an idle server, as the phases are measured: what kubeupd sends depends on
    # what the server has done meanwhile (a definition's status, filled in after its create,
    # is handed to the manager by the next apply's patch).
    scripts/local-cluster.sh settle
    record "crd-$label-$phase" apply ${ns:+-n $ns} $extra -f "$file"
  done
  for run in $(seq 1 "$RUNS_CRD"); do
    for name in $(order "$run"); do
      clean "$v1" "$v2" "$ns"
      for phase in "${crd_phases[@]}"; do crd_apply $name "$input" $phase; done
    done
  done
  clean "$v1" "$v2" "$ns"
done

# middle: the median of the numbers on stdin, one per line.
middle() { sort -g | awk '{a[NR]=$1} END {print NR == 0 ? 0 : (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# median FILE COLUMN (0 when the tool was not measured)
median() { [ -f "$1" ] || { echo 0; return; }; awk -v c="$2" '{print $c}' "$1" | middle; }
# ratio FILE OVER COLUMN: the median of the per-run ratios of FILE's column to OVER's (line n of
# each is run n); 0 when either tool was not measured.
ratio() { [ -f "$1" ] && [ -f "$2" ] || { echo 0; return; }; paste -d' ' "$1" "$2" | awk -v c="$3" '$(c + 2) > 0 {print $c / $(c + 2)}' | middle; }

scenarios=("apply one Deployment: create" "apply one Deployment: configure" "apply one Deployment: unchanged"
  "get one object" "kustomize an overlay" "kustomize a large overlay"
  "kustomize Argo CD HA install" "20 sequential patches" "apply 300 objects: create"
  "apply 300 objects: configure" "apply 300 objects: unchanged" "get 300 objects -o json"
  "apply 300 objects on 1 cluster of 3: create" "apply 300 objects on 3 clusters: create"
  "apply 300 objects on 1 remote cluster of 3: create" "apply 300 objects on 3 remote clusters: create"
  "get 3000 objects -o jsonpath" "apply 300 ready objects: unchanged"
  "apply 300 ready objects: unchanged, wait until ready")
for input in "${crd_inputs[@]}"; do
  for phase in "${crd_phases[@]}"; do scenarios+=("${input%%|*}: $phase"); done
done
if [ -z "$baseline_rev" ]; then
  echo "| scenario | kubectl | kubeupd | floor | vs kubectl | vs floor | kubectl peak RSS | kubeupd peak RSS | RSS ratio |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
else
  echo "| scenario | kubectl | kubeupd $baseline_rev | kubeupd | floor | time vs $baseline_rev | vs kubectl | vs floor | kubeupd $baseline_rev peak RSS | kubeupd peak RSS | RSS vs $baseline_rev |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
fi
for scenario in "${scenarios[@]}"; do
  [ -f "$work/results/$scenario.kubeupd" ] || continue
  t_ctl=$(median "$work/results/$scenario.kubectl" 1)
  t_upd=$(median "$work/results/$scenario.kubeupd" 1)
  t_flr=$(median "$work/results/$scenario.floor" 1)
  m_ctl=$(median "$work/results/$scenario.kubectl" 2)
  m_upd=$(median "$work/results/$scenario.kubeupd" 2)
  r_flr=$(ratio "$work/results/$scenario.kubeupd" "$work/results/$scenario.floor" 1)
  if [ -z "$baseline_rev" ]; then
    r_ctl=$(ratio "$work/results/$scenario.kubeupd" "$work/results/$scenario.kubectl" 1)
    r_mem=$(ratio "$work/results/$scenario.kubeupd" "$work/results/$scenario.kubectl" 2)
    awk -v s="$scenario" -v a="$t_ctl" -v b="$t_upd" -v f="$t_flr" -v c="$m_ctl" -v d="$m_upd" -v ra="$r_ctl" -v rf="$r_flr" -v rm="$r_mem" 'BEGIN {
      floor = f > 0 ? sprintf("%.1f ms", f * 1000) : "-"; vs = rf > 0 ? sprintf("%.2f", rf) : "-"
      printf "| %s | %.1f ms | %.1f ms | %s | %.2f | %s | %.1f MB | %.1f MB | %.2f |\n", s, a * 1000, b * 1000, floor, ra, vs, c / 1024, d / 1024, rm
    }'
  else
    t_base=$(median "$work/results/$scenario.baseline" 1)
    m_base=$(median "$work/results/$scenario.baseline" 2)
    r_base=$(ratio "$work/results/$scenario.kubeupd" "$work/results/$scenario.baseline" 1)
    r_ctl=$(ratio "$work/results/$scenario.kubeupd" "$work/results/$scenario.kubectl" 1)
    r_mem=$(ratio "$work/results/$scenario.kubeupd" "$work/results/$scenario.baseline" 2)
    awk -v s="$scenario" -v k="$t_ctl" -v a="$t_base" -v b="$t_upd" -v f="$t_flr" -v c="$m_base" -v d="$m_upd" -v ra="$r_base" -v rk="$r_ctl" -v rf="$r_flr" -v rm="$r_mem" 'BEGIN {
      floor = f > 0 ? sprintf("%.1f ms", f * 1000) : "-"; vs = rf > 0 ? sprintf("%.2f", rf) : "-"
      printf "| %s | %.1f ms | %.1f ms | %.1f ms | %s | %.2f | %.2f | %s | %.1f MB | %.1f MB | %.2f |\n", s, k * 1000, a * 1000, b * 1000, floor, ra, rk, vs, c / 1024, d / 1024, rm
    }'
  fi
done
failures=$(for scenario in "${scenarios[@]}"; do
  [ -f "$work/results/$scenario.failed" ] && sort "$work/results/$scenario.failed" | uniq -c | awk -v s="$scenario" '{printf "%s: %s failed in %d run(s); ", s, $2, $1}'
done)
echo
for name in kubectl kubeupd; do
  for where in "" " remote"; do
    times=$(ratio "$work/results/apply 300 objects on 3$where clusters: create.$name" \
      "$work/results/apply 300 objects on 1$where cluster of 3: create.$name" 1)
    awk -v n="$name" -v r="$times" -v w="$where" -v d="$REMOTE_DELAY" 'BEGIN {
      if (r > 0) printf "%s: 300 objects on 3%s clusters take %.2f times one%s cluster'"'"'s time%s.\n", n, w, r, w, w == "" ? " (the three servers on this machine'"'"'s cores)" : " (" d " each way)"
    }'
  done
done
[ -z "$failures" ] || echo "Exited non-zero (allowed in the CRD-heavy rows, timed as they ran): ${failures%; }."
echo "Medians of $RUNS runs ($RUNS_MANY for 300 objects, $RUNS_CRD for the CRD-heavy inputs) on $(nproc) cores; kubectl $($kubectl version --client -o json | sed -n 's/.*"gitVersion": "\(v[^"]*\)".*/\1/p' | head -1), kube-apiserver $($kubectl version -o json 2>/dev/null | sed -n 's/.*"gitVersion": "\(v[^"]*\)".*/\1/p' | tail -1). Ratios: the median of each run's own ratio. The floor: kubeupd's requests sent again, each write after its read (scripts/replay.sh)."
