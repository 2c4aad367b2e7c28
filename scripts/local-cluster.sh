#!/usr/bin/env bash
# A real control plane on loopback: kube-apiserver and etcd, and for the tests the controller
# manager's namespace, garbage-collector, service-account, root-CA and cluster-role-aggregation
# controllers (no workload controllers: tests play those through status and scale).
#
#   scripts/local-cluster.sh build   build what `up` starts, once, into the cache
#   scripts/local-cluster.sh up      build if needed, start etcd and the apiserver, write a kubeconfig
#   scripts/local-cluster.sh up --controllers   the same, and the controller manager (1.37 only)
#   scripts/local-cluster.sh env     print `export KUBECONFIG=...` for the running cluster
#   scripts/local-cluster.sh status  exit 0 when the cluster answers /readyz
#   scripts/local-cluster.sh down    stop every process (the build cache stays)
#   scripts/local-cluster.sh settle  wait (up to 10 s) until the apiserver and etcd are idle: the
#                                    work an earlier write left them (a definition's OpenAPI) is done
#   scripts/local-cluster.sh extra NAME   another cluster for many-context tests and benches (1.37
#                                    only): a second kube-apiserver on the same etcd, its objects
#                                    under their own prefix, ready in seconds; prints its kubeconfig
#                                    (context NAME). No controller manager runs for it.
#   scripts/local-cluster.sh extra NAME --own-etcd   the same on an etcd of its own (free ports,
#                                    a fresh data directory), started and stopped with it, so
#                                    that a test can restart that etcd without stopping the others
#   scripts/local-cluster.sh extra-down NAME   stop that apiserver (its objects stay in etcd), and
#                                    its own etcd if it has one (its data removed)
#   scripts/local-cluster.sh extra-restart NAME   stop that apiserver and start it again on its
#                                    port, for tests of what clients do while an apiserver restarts
#   scripts/local-cluster.sh extra-restart-etcd NAME [SECONDS]   stop the own etcd of the extra
#                                    cluster NAME, wait SECONDS (default 0), start it again on its
#                                    data and ports (ready when this returns): its apiserver
#                                    meets an etcd that goes away
#   scripts/local-cluster.sh nodes   the cluster with nodes, for tests of rollouts (1.37 only): the
#                                    extra cluster `nodes` with the workload controllers,
#                                    kube-scheduler and kwok's fake nodes, so that pods are
#                                    scheduled and become Ready (or fail, for the images of
#                                    scripts/control-plane/kwok/failing-pods.yaml), and the
#                                    node kubeupd-exec-node, whose streaming endpoints (exec,
#                                    attach, port-forward) are scripts/exec-node's; prints its
#                                    kubeconfig. Needs the cluster up.
#
# KUBEUPD_KUBERNETES picks the version: 1.37 (the default) is kube-apiserver 1.37, etcd 3.6,
# kube-controller-manager and kube-scheduler, built with `go build` from the Go modules in
# scripts/control-plane (a first build takes about 25 minutes on 2 cores, then seconds), and kwok
# for `nodes`; 1.20 is kube-apiserver 1.20
# from Debian's source package, built with Debian's Go 1.19, beside Debian's etcd 3.4 (about
# 5 minutes). Each version has its own running cluster, so both can be up at once.
#
# The cache lives outside the repository: $KUBEUPD_CACHE, default ~/.cache/kubeupd.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${KUBEUPD_CACHE:-$HOME/.cache/kubeupd}
VERSION=${KUBEUPD_KUBERNETES:-1.37}
case "$VERSION" in
  1.37|1.20) ;;
  *) printf 'local-cluster: error: KUBEUPD_KUBERNETES=%s: 1.37 or 1.20\n' "$VERSION" >&2; exit 2 ;;
esac
BIN=$CACHE/bin/$VERSION
RUN=$CACHE/cluster-$VERSION
KUBECONFIG_FILE=$RUN/kubeconfig
TOKEN=kubeupd-test-token

log() { printf 'local-cluster: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_packages() {
  local need=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need+=("$pkg")
  done
  [ ${#need[@]} -eq 0 ] && return
  log "installing ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
}

# ---- 1.37: Go modules -------------------------------------------------------------------------

MODULES=$ROOT/scripts/control-plane

# What a binary was built from: its module's go.mod, go.sum and main packages.
fingerprint() {
  (cd "$MODULES/$1" && find . -name '*.go' -o -name go.mod -o -name go.sum | LC_ALL=C sort | xargs cat) |
    sha256sum | cut -d' ' -f1
}

built() { [ -x "$BIN/$1" ] && [ "$(cat "$BIN/$1.from" 2>/dev/null)" = "$(fingerprint "$2")" ]; }

# `go build` of the binaries named after the module, as upstream's hack/lib/golang.sh builds them.
go_build() {
  local module=$1; shift
  local version
  version=$(grep -o 'k8s.io/kubernetes v[0-9.]*' "$MODULES/kubernetes/go.mod" | head -n1 | cut -d' ' -f2)
  local minor=${version#v1.}; minor=${minor%%.*}
  local stamp="-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1"
  stamp="$stamp -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  local log_file=$BIN/build-$module.log started=$SECONDS
  (cd "$MODULES/$module" && GOWORK=off CGO_ENABLED=0 \
     go build -trimpath -tags selinux,notest -ldflags "$stamp" -o "$BIN/" "$@" >"$log_file" 2>&1) \
    || { tail -n 30 "$log_file" >&2; die "go build in scripts/control-plane/$module failed (log: $log_file)"; }
  log "built $* in $((SECONDS - started))s"
}

check_go() {
  command -v go >/dev/null || die "Go is required to build the control plane (go.dev/doc/install; the go.mod files say which)"
}

# Builds, in parallel, whichever of the named binaries is missing or older than its module.
build_137() {
  local want=("$@") pids=() name
  mkdir -p "$BIN"
  local kube=() etcd=0
  for name in "${want[@]}"; do
    case "$name" in
      etcd) built etcd etcd || etcd=1 ;;
      *) built "$name" kubernetes || kube+=("./$name") ;;
    esac
  done
  [ ${#kube[@]} -eq 0 ] && [ $etcd -eq 0 ] && return
  check_go
  log "building from Go modules: ${kube[*]#./}$([ $etcd -eq 1 ] && echo ' etcd') (a first build takes about 25 minutes)"
  [ ${#kube[@]} -gt 0 ] && { go_build kubernetes "${kube[@]}" & pids+=($!); }
  [ $etcd -eq 1 ] && { go_build etcd . & pids+=($!); }
  local failed=0 pid
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  [ $failed -eq 0 ] || die "the control plane did not build"
  for name in "${want[@]}"; do
    case "$name" in
      etcd) fingerprint etcd >"$BIN/etcd.from" ;;
      *) fingerprint kubernetes >"$BIN/$name.from" ;;
    esac
  done
}

# kwok (sigs.k8s.io/kwok, from the Go module proxy), the fake nodes of `nodes`. Its module has no
# replaces, so `go install` builds it as released.
KWOK_VERSION=v0.8.0

build_kwok() {
  [ -x "$BIN/kwok" ] && [ "$(cat "$BIN/kwok.from" 2>/dev/null)" = "$KWOK_VERSION" ] && return
  check_go
  log "building kwok $KWOK_VERSION"
  local started=$SECONDS
  (cd "$CACHE" && GOBIN=$BIN GOWORK=off CGO_ENABLED=0 go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" \
     >"$BIN/build-kwok.log" 2>&1) || { tail -n 30 "$BIN/build-kwok.log" >&2; die "kwok did not build"; }
  echo "$KWOK_VERSION" >"$BIN/kwok.from"
  log "built kwok in $((SECONDS - started))s"
}

# The directory of kwok's module, whose Stages for nodes and ready pods `nodes` uses as they are.
kwok_module() {
  (cd "$CACHE" && GOWORK=off go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION") | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'
}

# scripts/exec-node, the node whose exec, attach and port-forward endpoints answer as a kubelet's
# (exit codes, bytes), built with `go build` from its module when its sources change.
build_exec_node() {
  local dir=$ROOT/scripts/exec-node from
  from=$( (cd "$dir" && cat go.mod go.sum ./*.go) | sha256sum | cut -d' ' -f1)
  [ -x "$BIN/exec-node" ] && [ "$(cat "$BIN/exec-node.from" 2>/dev/null)" = "$from" ] && return
  check_go
  local started=$SECONDS
  (cd "$dir" && GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$BIN/exec-node" . >"$BIN/build-exec-node.log" 2>&1) \
    || { tail -n 30 "$BIN/build-exec-node.log" >&2; die "scripts/exec-node did not build"; }
  echo "$from" >"$BIN/exec-node.from"
  log "built exec-node in $((SECONDS - started))s"
}

# ---- 1.20: Debian's source package ------------------------------------------------------------

# Debian's source packages are off by default: add a deb-src copy of the machine's own apt source.
enable_deb_src() {
  local src=/etc/apt/sources.list.d/debian.sources dst=/etc/apt/sources.list.d/kubeupd-deb-src.sources
  if grep -qs '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources; then return; fi
  [ -f "$src" ] || die "no $src to derive a deb-src entry from"
  sed 's/^Types: .*/Types: deb-src/' "$src" | as_root tee "$dst" >/dev/null
  as_root apt-get update -qq
}

build_120() {
  if [ -x "$BIN/kube-apiserver" ]; then return; fi
  install_packages golang-1.19-go etcd-server rsync make openssl dpkg-dev golang-github-modern-go-reflect2-dev
  enable_deb_src
  local work=$CACHE/build-1.20
  rm -rf "$work" && mkdir -p "$work"
  log "fetching the kubernetes source package"
  (cd "$work" && apt-get source -qq kubernetes >/dev/null)
  local tree
  tree=$(find "$work" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n1)
  [ -n "$tree" ] || die "apt-get source kubernetes left no source tree in $work"
  # Kubernetes 1.20 vendors reflect2 1.0.1, which breaks map encoding under Go >= 1.18.
  rm -rf "$tree/vendor/github.com/modern-go/reflect2"
  cp -r /usr/share/gocode/src/github.com/modern-go/reflect2 "$tree/vendor/github.com/modern-go/reflect2"
  mkdir -p "$tree/.go/src/k8s.io" && ln -sfn ../../.. "$tree/.go/src/k8s.io/kubernetes"
  log "building kube-apiserver 1.20 with Go 1.19 (about 5 minutes)"
  local started=$SECONDS
  # Debian's Go 1.19, whatever `go` comes first on the PATH: 1.20 does not build with today's.
  (cd "$tree" && PATH=/usr/lib/go-1.19/bin:$PATH GOTOOLCHAIN=local GOPATH=$tree/.go CGO_ENABLED=0 \
     HOME=$work/home GOFLAGS=-mod=vendor make WHAT=cmd/kube-apiserver >"$work/build.log" 2>&1) \
     || { tail -n 30 "$work/build.log" >&2; die "kube-apiserver build failed (log: $work/build.log)"; }
  mkdir -p "$BIN"
  cp "$tree/_output/bin/kube-apiserver" "$BIN/kube-apiserver"
  log "built $BIN/kube-apiserver in $((SECONDS - started))s"
  rm -rf "$work"
}

build() {
  if [ "$VERSION" = 1.20 ]; then build_120; else build_137 kube-apiserver etcd "$@"; fi
}

# ---- running ----------------------------------------------------------------------------------

free_port() {
  local port
  for port in $(seq "$1" $(( $1 + 200 ))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
  done
  die "no free port from $1"
}

# A free port for an extra cluster from BASE (default 26500), past those the other extra clusters
# and their own etcds have: one that restarts (`extra-restart`, `extra-restart-etcd`) does not
# listen for a moment, and keeps its ports.
free_extra_port() {
  local port=${1:-26500}
  while :; do
    port=$(free_port "$port")
    grep -qsxF "$port" "$RUN"/extra-*.port "$RUN"/extra-*.peer || { echo "$port"; return; }
    port=$((port + 1))
  done
}

alive() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

# Whether the apiserver NAME (default: the cluster's own) answers /readyz.
ready() {
  local name=${1:-apiserver}
  [ -f "$RUN/$name.port" ] || return 1
  curl -fsS --max-time 2 --cacert "$RUN/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" \
    "https://127.0.0.1:$(cat "$RUN/$name.port")/readyz" >/dev/null 2>&1
}

start() {
  local name=$1; shift
  # Without the lock of `extra` (descriptor 9), which would stay held as long as the process runs.
  setsid "$@" >"$RUN/$name.log" 2>&1 </dev/null 9>&- &
  echo $! >"$RUN/$name.pid"
}

start_etcd() {
  local client_port=$1 peer_port=$2 etcd=$BIN/etcd extra=(--unsafe-no-fsync)
  if [ "$VERSION" = 1.20 ]; then
    command -v etcd >/dev/null || install_packages etcd-server
    etcd=etcd extra=()
  fi
  rm -rf "$RUN/etcd-data"
  start etcd "$etcd" --name kubeupd --data-dir "$RUN/etcd-data" "${extra[@]}" \
    --listen-client-urls "http://127.0.0.1:$client_port" --advertise-client-urls "http://127.0.0.1:$client_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "kubeupd=http://127.0.0.1:$peer_port"
}

# Starts the apiserver NAME on the given etcd and port, keeping its objects under PREFIX.
start_apiserver() {
  local name=$1 etcd_port=$2 api_port=$3 prefix=$4 version_flags=()
  if [ "$VERSION" = 1.20 ]; then
    version_flags=(--insecure-port 0 --disable-admission-plugins ServiceAccount)
  else
    # A loopback advertise address makes the `kubernetes` Endpoints invalid, hence no reconciler.
    # Without the controllers that remove them, PVC protection's finalizers would hold every claim.
    version_flags=(--endpoint-reconciler-type none
      --disable-admission-plugins ServiceAccount,StorageObjectInUseProtection)
  fi
  start "$name" "$BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" --etcd-prefix "$prefix" \
    --cert-dir "$RUN/certs" --secure-port "$api_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
    --service-cluster-ip-range 10.0.0.0/16 --token-auth-file "$RUN/tokens.csv" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$RUN/sa.key" --service-account-signing-key-file "$RUN/sa.key" \
    --authorization-mode RBAC "${version_flags[@]}"
}

start_controllers() {
  start controller-manager "$BIN/kube-controller-manager" --kubeconfig "$KUBECONFIG_FILE" \
    --leader-elect=false --secure-port 0 --use-service-account-credentials=false \
    --controllers namespace-controller,garbage-collector-controller,serviceaccount-controller,root-ca-certificate-publisher-controller,clusterrole-aggregation-controller \
    --service-account-private-key-file "$RUN/sa.key" --root-ca-file "$RUN/certs/apiserver.crt"
}

up() {
  local controllers=0
  [ "${1:-}" = --controllers ] && controllers=1
  [ $controllers -eq 1 ] && [ "$VERSION" = 1.20 ] && die "the 1.20 cluster runs no controller manager"
  if alive etcd && alive apiserver && ready; then
    if [ $controllers -eq 1 ] && ! alive controller-manager; then
      build_137 kube-controller-manager
      start_controllers
      log "controller manager started"
    else
      log "already running"
    fi
    return
  fi
  down quiet
  if [ $controllers -eq 1 ]; then build kube-controller-manager; else build; fi
  local started=$SECONDS
  mkdir -p "$RUN/certs"
  local client_port peer_port api_port
  client_port=$(free_port 23790)
  peer_port=$(free_port $(( client_port + 1 )))
  api_port=$(free_port 26443)
  echo "$api_port" >"$RUN/apiserver.port"
  start_etcd "$client_port" "$peer_port"
  [ -f "$RUN/sa.key" ] || openssl genrsa -out "$RUN/sa.key" 2048 2>/dev/null
  echo "$TOKEN,kubeupd-admin,kubeupd-admin,\"system:masters\"" >"$RUN/tokens.csv"
  echo "$client_port" >"$RUN/etcd.port"
  start_apiserver apiserver "$client_port" "$api_port" /registry

  local i
  wait_ready apiserver
  write_kubeconfig "$KUBECONFIG_FILE" kubeupd-local "$api_port"
  [ $controllers -eq 1 ] && start_controllers
  log "$VERSION ready on https://127.0.0.1:$api_port in $((SECONDS - started))s; kubeconfig: $KUBECONFIG_FILE"
}

wait_ready() {
  local name=$1 i
  for i in $(seq 1 120); do
    if [ -f "$RUN/certs/apiserver.crt" ] && ready "$name"; then return; fi
    alive "$name" || { tail -n 20 "$RUN/$name.log" >&2; die "kube-apiserver $name exited"; }
    sleep 0.5
  done
  tail -n 20 "$RUN/$name.log" >&2
  die "kube-apiserver $name not ready after 60s"
}

# Writes FILE: a kubeconfig whose one context, cluster and user are NAME, for the server on PORT.
write_kubeconfig() {
  local file=$1 name=$2 port=$3 ca
  ca=$(base64 -w0 <"$RUN/certs/apiserver.crt")
  cat >"$file" <<KC
apiVersion: v1
kind: Config
clusters:
- name: $name
  cluster:
    server: https://127.0.0.1:$port
    certificate-authority-data: $ca
users:
- name: $name
  user:
    token: $TOKEN
contexts:
- name: $name
  context:
    cluster: $name
    user: $name
    namespace: default
current-context: $name
KC
}

# Another cluster: an apiserver on the running etcd whose objects live under /registry-NAME, so
# that it sees none of the others'. Several of them cost little: they share the etcd, the
# binaries and the certificates (the serving certificate names 127.0.0.1, whatever the port).
# With --own-etcd, its etcd is its own (the process extra-NAME.etcd, its data in
# extra-NAME.etcd-data), so that restarting that etcd reaches no other cluster.
extra() {
  local name=${1:?a name} own_etcd=0
  case "${2:-}" in
    '') ;;
    --own-etcd) own_etcd=1 ;;
    *) die "extra $name: unknown flag ${2}" ;;
  esac
  [ "$VERSION" = 1.37 ] || die "extra clusters are 1.37 only"
  [[ $name =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || die "$name: a lower-case DNS label"
  alive etcd && alive apiserver || die "not running (scripts/local-cluster.sh up)"
  local file=$RUN/extra-$name.kubeconfig
  # One start at a time: two would pick the same free port.
  exec 9>"$RUN/extra.lock"
  flock 9
  # A running one is kept when it has the etcd asked for (its own, or the shared one).
  if ! { alive "extra-$name" && ready "extra-$name" && [ "$(alive "extra-$name.etcd" && echo 1 || echo 0)" = $own_etcd ]; }; then
    stop "extra-$name"
    stop_own_etcd "$name"
    local port etcd=$(etcd_port) prefix=/registry-$name
    rm -f "$RUN/extra-$name.port"
    if [ $own_etcd -eq 1 ]; then
      etcd=$(free_extra_port 24790)
      echo "$etcd" >"$RUN/extra-$name.etcd.port"
      free_extra_port $((etcd + 1)) >"$RUN/extra-$name.etcd.peer"
      rm -rf "$RUN/extra-$name.etcd-data"
      start_own_etcd "$name"
      prefix=/registry
    fi
    port=$(free_extra_port)
    echo "$port" >"$RUN/extra-$name.port"
    start_apiserver "extra-$name" "$etcd" "$port" "$prefix"
    wait_ready "extra-$name"
    write_kubeconfig "$file" "$name" "$port"
  fi
  echo "$file"
}

# Starts the own etcd of the extra cluster NAME on its ports and data (kept from an earlier start);
# returns once it answers /health.
start_own_etcd() {
  local name=$1 client peer i
  client=$(cat "$RUN/extra-$name.etcd.port")
  peer=$(cat "$RUN/extra-$name.etcd.peer")
  start "extra-$name.etcd" "$BIN/etcd" --name "$name" --data-dir "$RUN/extra-$name.etcd-data" --unsafe-no-fsync \
    --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "$name=http://127.0.0.1:$peer"
  for i in $(seq 1 120); do
    curl -fsS --max-time 2 "http://127.0.0.1:$client/health" >/dev/null 2>&1 && return
    alive "extra-$name.etcd" || { tail -n 20 "$RUN/extra-$name.etcd.log" >&2; die "the etcd of extra-$name exited"; }
    sleep 0.25
  done
  die "the etcd of extra-$name not healthy after 30s"
}

# Stops the own etcd of the extra cluster NAME, if it has one, and removes its data and ports.
stop_own_etcd() {
  local name=$1
  stop "extra-$name.etcd"
  rm -rf "$RUN/extra-$name.etcd-data" "$RUN/extra-$name.etcd.port" "$RUN/extra-$name.etcd.peer"
}

# The etcd port of the extra cluster NAME: its own, or the shared one.
extra_etcd_port() {
  if alive "extra-$1.etcd"; then cat "$RUN/extra-$1.etcd.port"; else etcd_port; fi
}

# Restarts the extra cluster NAME's apiserver on the port it had: its clients meet a restart
# (connections closed, then refused, then a server that answers again); ready when this returns.
# Without the lock of `extra`, so that the stop comes at once: no other extra cluster takes the
# port meanwhile (free_extra_port).
extra_restart() {
  local name=${1:?a name}
  alive "extra-$name" || die "extra-$name is not running (scripts/local-cluster.sh extra $name)"
  local etcd
  etcd=$(extra_etcd_port "$name")
  stop "extra-$name"
  start_apiserver "extra-$name" "$etcd" "$(cat "$RUN/extra-$name.port")" \
    "$(alive "extra-$name.etcd" && echo /registry || echo "/registry-$name")"
  wait_ready "extra-$name"
}

# Restarts the own etcd of the extra cluster NAME on its data and ports: its apiserver meets an
# etcd that goes away (its requests to it fail or wait) and comes back with every object it had.
# With SECONDS, etcd stays away that long. Returns once etcd answers again; the apiserver
# reconnects by itself.
extra_restart_etcd() {
  local name=${1:?a name} away=${2:-0}
  [[ $away =~ ^[0-9]+$ ]] || die "extra-restart-etcd $name: $away is not a number of seconds"
  alive "extra-$name.etcd" || die "extra-$name has no etcd of its own (scripts/local-cluster.sh extra $name --own-etcd)"
  stop "extra-$name.etcd"
  sleep "$away"
  start_own_etcd "$name"
}

# Stops the extra cluster NAME: its apiserver, and its own etcd if it has one.
extra_down() {
  local name=${1:?a name}
  stop "extra-$name"
  stop_own_etcd "$name"
}

# The controllers a cluster with nodes runs: the workloads', and what a namespace needs.
NODES_CONTROLLERS=deployment-controller,replicaset-controller,statefulset-controller,daemonset-controller
NODES_CONTROLLERS=$NODES_CONTROLLERS,job-controller,cronjob-controller,disruption-controller,endpointslice-controller
NODES_CONTROLLERS=$NODES_CONTROLLERS,pod-garbage-collector-controller,namespace-controller,garbage-collector-controller
NODES_CONTROLLERS=$NODES_CONTROLLERS,serviceaccount-controller,root-ca-certificate-publisher-controller

# The fake nodes kwok plays.
NODE_NAMES=(kwok-node-0 kwok-node-1)

# The cluster with nodes: the extra cluster `nodes`, its controller manager (the workload
# controllers), kube-scheduler, and kwok managing the nodes of NODE_NAMES, with kwok's own Stages
# for nodes and for pods that become Ready, complete and go, and ours for pods that fail.
nodes() {
  [ "$VERSION" = 1.37 ] || die "the cluster with nodes is 1.37 only"
  alive etcd && alive apiserver || die "not running (scripts/local-cluster.sh up)"
  build_137 kube-controller-manager kube-scheduler
  build_kwok
  build_exec_node
  # One start at a time (the lock is closed in every process `start` starts).
  exec 9>"$RUN/nodes.lock"
  flock 9
  local file
  file=$(extra nodes)
  if ! alive nodes-controller-manager; then
    start nodes-controller-manager "$BIN/kube-controller-manager" --kubeconfig "$file" \
      --leader-elect=false --secure-port 0 --use-service-account-credentials=false \
      --controllers "$NODES_CONTROLLERS" \
      --service-account-private-key-file "$RUN/sa.key" --root-ca-file "$RUN/certs/apiserver.crt"
  fi
  if ! alive nodes-scheduler; then
    start nodes-scheduler "$BIN/kube-scheduler" --kubeconfig "$file" --leader-elect=false --secure-port 0
  fi
  if ! alive nodes-kwok; then
    local module stages port
    module=$(kwok_module)
    stages=$module/kustomize/stage
    [ -d "$stages" ] || die "kwok's Stages are not in the module cache ($stages)"
    add_kwok_crds "$module/kustomize/crd/bases"
    port=$(free_port 10247)
    start nodes-kwok "$BIN/kwok" --kubeconfig "$file" \
      --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
      --node-ip 127.0.0.1 --node-port "$port" --server-address "127.0.0.1:$port" --cidr 10.244.0.0/16 \
      --config "$stages/node/fast/node-initialize.yaml" \
      --config "$stages/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml" \
      --config "$stages/pod/fast/pod-ready.yaml" --config "$stages/pod/fast/pod-complete.yaml" \
      --config "$stages/pod/fast/pod-delete.yaml" \
      --config "$MODULES/kwok/failing-pods.yaml" \
      --enable-crds "$(IFS=,; echo "${KWOK_SERVED_KINDS[*]}")"
  fi
  add_nodes "$file"
  if ! alive nodes-exec-node; then
    local exec_port
    exec_port=$(free_port 10290)
    mkdir -p "$RUN/exec-node"
    echo "$exec_port" >"$RUN/nodes-exec-node.port"
    start nodes-exec-node "$BIN/exec-node" -listen "127.0.0.1:$exec_port" -dir "$RUN/exec-node"
  fi
  add_exec_node
  echo "$file"
}

# The Node of scripts/exec-node, which kwok does not manage (it lacks kwok's annotation): tainted
# so that neither the scheduler nor the DaemonSet controller puts pods there (a test binds its
# pods by spec.nodeName), its kubelet endpoint the port exec-node serves on. Nobody reports its
# pods' status or its own conditions, nor ends a graceful deletion: its pods are to have
# terminationGracePeriodSeconds 0.
EXEC_NODE_NAME=kubeupd-exec-node

add_exec_node() {
  local port exec_port i
  port=$(cat "$RUN/extra-nodes.port")
  exec_port=$(cat "$RUN/nodes-exec-node.port")
  api() {
    curl -fsS --max-time 5 --cacert "$RUN/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" \
      -A local-cluster "$@"
  }
  for i in $(seq 1 50); do
    curl -fsSk --max-time 1 -o /dev/null "https://127.0.0.1:$exec_port/healthz" 2>/dev/null && break
    alive nodes-exec-node || { tail -n 20 "$RUN/nodes-exec-node.log" >&2; die "exec-node exited"; }
    sleep 0.1
  done
  api -o /dev/null "https://127.0.0.1:$port/api/v1/nodes/$EXEC_NODE_NAME" 2>/dev/null ||
    api -o /dev/null -X POST -H 'Content-Type: application/json' "https://127.0.0.1:$port/api/v1/nodes" -d @- <<NODE || die "node $EXEC_NODE_NAME not created"
{"apiVersion": "v1", "kind": "Node",
 "metadata": {"name": "$EXEC_NODE_NAME",
              "labels": {"kubernetes.io/hostname": "$EXEC_NODE_NAME", "kubernetes.io/os": "linux", "type": "exec-node"}},
 "spec": {"taints": [{"key": "kubeupd.test/exec-node", "effect": "NoSchedule"}]}}
NODE
  api -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
    "https://127.0.0.1:$port/api/v1/nodes/$EXEC_NODE_NAME/status" \
    -d "{\"status\": {\"addresses\": [{\"type\": \"InternalIP\", \"address\": \"127.0.0.1\"}], \"daemonEndpoints\": {\"kubeletEndpoint\": {\"Port\": $exec_port}}}}" \
    || die "node $EXEC_NODE_NAME's address not set"
}

# What kwok's server does for the node agent's API (logs, exec, attach, port-forward), each read
# from kwok's resources of that kind, so that a test sets up the pods it runs with objects of its
# own (the namespaced kinds) rather than with a file shared by every test.
KWOK_SERVED_KINDS=(Logs ClusterLogs Exec ClusterExec Attach ClusterAttach PortForward ClusterPortForward)

# Creates kwok's CustomResourceDefinitions of KWOK_SERVED_KINDS (from the module's DIR) on the
# nodes cluster, where they are missing.
add_kwok_crds() {
  local dir=$1 port kind plural
  port=$(cat "$RUN/extra-nodes.port")
  for kind in "${KWOK_SERVED_KINDS[@]}"; do
    plural=$(echo "$kind" | tr '[:upper:]' '[:lower:]')
    case $plural in *ch) plural=${plural}es ;; *s) ;; *) plural=${plural}s ;; esac
    curl -fsS --max-time 5 --cacert "$RUN/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" -A local-cluster \
      -o /dev/null "https://127.0.0.1:$port/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$plural.kwok.x-k8s.io" \
      2>/dev/null && continue
    [ -f "$dir/kwok.x-k8s.io_$plural.yaml" ] || die "kwok's CRD for $kind is not in $dir"
    curl -fsS --max-time 5 --cacert "$RUN/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" -A local-cluster \
      -o /dev/null -X POST -H 'Content-Type: application/yaml' --data-binary "@$dir/kwok.x-k8s.io_$plural.yaml" \
      "https://127.0.0.1:$port/apis/apiextensions.k8s.io/v1/customresourcedefinitions" || die "kwok's CRD for $kind not created"
  done
}

# Creates the fake nodes that are missing on the server of the kubeconfig FILE, then waits (up to
# a minute) until kwok reports every one Ready.
add_nodes() {
  local file=$1 port name i
  port=$(cat "$RUN/extra-nodes.port")
  api() {
    # Not curl's User-Agent, for which the server writes JSON over several lines.
    curl -fsS --max-time 5 --cacert "$RUN/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" \
      -A local-cluster "$@"
  }
  for name in "${NODE_NAMES[@]}"; do
    api -o /dev/null "https://127.0.0.1:$port/api/v1/nodes/$name" 2>/dev/null && continue
    api -o /dev/null -X POST -H 'Content-Type: application/json' "https://127.0.0.1:$port/api/v1/nodes" -d @- <<NODE || die "node $name not created"
{"apiVersion": "v1", "kind": "Node",
 "metadata": {"name": "$name", "annotations": {"kwok.x-k8s.io/node": "fake"},
              "labels": {"kubernetes.io/hostname": "$name", "kubernetes.io/os": "linux", "type": "kwok"}}}
NODE
  done
  for i in $(seq 1 120); do
    local ready=0
    for name in "${NODE_NAMES[@]}"; do
      api "https://127.0.0.1:$port/api/v1/nodes/$name" 2>/dev/null |
        grep -q '"type": *"Ready", *"status": *"True"\|"status": *"True", *"type": *"Ready"' && ready=$((ready + 1))
    done
    if [ $ready -eq ${#NODE_NAMES[@]} ]; then
      # The server taints a new node not-ready; the node lifecycle controller, which is not run
      # (it would evict pods whenever kwok's heartbeat is late), would lift the taint once the
      # node is Ready.
      for name in "${NODE_NAMES[@]}"; do
        api -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
          "https://127.0.0.1:$port/api/v1/nodes/$name" -d '{"spec": {"taints": null}}' || die "node $name not untainted"
      done
      return
    fi
    alive nodes-kwok || { tail -n 20 "$RUN/nodes-kwok.log" >&2; die "kwok exited"; }
    sleep 0.5
  done
  tail -n 20 "$RUN/nodes-kwok.log" >&2
  die "the fake nodes are not Ready after 60s"
}

# The running etcd's client port (from the apiserver's command line for a cluster started before
# `up` kept it in a file).
etcd_port() {
  if [ -f "$RUN/etcd.port" ]; then cat "$RUN/etcd.port"; return; fi
  tr '\0' '\n' <"/proc/$(cat "$RUN/apiserver.pid")/cmdline" | sed -n 's|^http://127.0.0.1:\([0-9]*\)$|\1|p' | head -1
}

# Stops the process NAME, if it runs.
stop() {
  local pid
  if alive "$1"; then
    pid=$(cat "$RUN/$1.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$RUN/$1.pid"
}

down() {
  local name pid
  for name in nodes-exec-node nodes-kwok nodes-scheduler nodes-controller-manager; do
    stop "$name"
  done
  for pid in "$RUN"/extra-*.pid; do
    [ -e "$pid" ] && stop "$(basename "$pid" .pid)"
  done
  for name in controller-manager apiserver etcd; do
    stop "$name"
  done
  [ "${1:-}" = quiet ] || log "stopped"
}

# CPU ticks (1/100 s) the apiserver and etcd have used so far.
ticks() {
  local name total=0 fields
  for name in apiserver etcd; do
    read -ra fields <"/proc/$(cat "$RUN/$name.pid")/stat"
    # utime and stime, after the command name (which has no spaces here).
    total=$(( total + fields[13] + fields[14] ))
  done
  echo $total
}

# Idle: under a twentieth of a core for three tenths of a second, three times in a row.
settle() {
  alive apiserver && alive etcd || die "not running (scripts/local-cluster.sh up)"
  local quiet=0 before after deadline=$(( $(date +%s) + 10 ))
  while [ $quiet -lt 3 ] && [ "$(date +%s)" -lt $deadline ]; do
    before=$(ticks)
    sleep 0.3
    after=$(ticks)
    if [ $(( after - before )) -le 1 ]; then quiet=$(( quiet + 1 )); else quiet=0; fi
  done
}

case "${1:-}" in
  build) build ;;
  settle) settle ;;
  up) up "${2:-}" ;;
  down) down ;;
  env) [ -f "$KUBECONFIG_FILE" ] && ready || die "not running (scripts/local-cluster.sh up)"; echo "export KUBECONFIG=$KUBECONFIG_FILE" ;;
  status) ready ;;
  extra) extra "${2:-}" "${3:-}" ;;
  extra-down) extra_down "${2:-}" ;;
  extra-restart) extra_restart "${2:-}" ;;
  extra-restart-etcd) extra_restart_etcd "${2:-}" "${3:-}" ;;
  nodes) nodes ;;
  *) awk 'NR > 1 && /^# KUBEUPD_KUBERNETES/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
