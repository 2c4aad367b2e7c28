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
#
# KUBEUPD_KUBERNETES picks the version: 1.37 (the default) is kube-apiserver 1.37, etcd 3.6 and
# kube-controller-manager, built with `go build` from the Go modules in scripts/control-plane
# (a first build takes about 25 minutes on 2 cores, then seconds); 1.20 is kube-apiserver 1.20
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

alive() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

ready() {
  [ -f "$RUN/apiserver.port" ] || return 1
  curl -fsS --max-time 2 --cacert "$RUN/certs/apiserver.crt" -H "Authorization: Bearer $TOKEN" \
    "https://127.0.0.1:$(cat "$RUN/apiserver.port")/readyz" >/dev/null 2>&1
}

start() {
  local name=$1; shift
  setsid "$@" >"$RUN/$name.log" 2>&1 </dev/null &
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

start_apiserver() {
  local etcd_port=$1 api_port=$2 version_flags=()
  if [ "$VERSION" = 1.20 ]; then
    version_flags=(--insecure-port 0 --disable-admission-plugins ServiceAccount)
  else
    # A loopback advertise address makes the `kubernetes` Endpoints invalid, hence no reconciler.
    # Without the controllers that remove them, PVC protection's finalizers would hold every claim.
    version_flags=(--endpoint-reconciler-type none
      --disable-admission-plugins ServiceAccount,StorageObjectInUseProtection)
  fi
  start apiserver "$BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
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
  start_apiserver "$client_port" "$api_port"

  local i
  for i in $(seq 1 120); do
    if [ -f "$RUN/certs/apiserver.crt" ] && ready; then break; fi
    alive apiserver || { tail -n 20 "$RUN/apiserver.log" >&2; die "kube-apiserver exited"; }
    sleep 0.5
  done
  ready || { tail -n 20 "$RUN/apiserver.log" >&2; die "kube-apiserver not ready after 60s"; }
  write_kubeconfig "$api_port"
  [ $controllers -eq 1 ] && start_controllers
  log "$VERSION ready on https://127.0.0.1:$api_port in $((SECONDS - started))s; kubeconfig: $KUBECONFIG_FILE"
}

write_kubeconfig() {
  local ca
  ca=$(base64 -w0 <"$RUN/certs/apiserver.crt")
  cat >"$KUBECONFIG_FILE" <<KC
apiVersion: v1
kind: Config
clusters:
- name: kubeupd-local
  cluster:
    server: https://127.0.0.1:$1
    certificate-authority-data: $ca
users:
- name: kubeupd-admin
  user:
    token: $TOKEN
contexts:
- name: kubeupd-local
  context:
    cluster: kubeupd-local
    user: kubeupd-admin
    namespace: default
current-context: kubeupd-local
KC
}

down() {
  local name pid
  for name in controller-manager apiserver etcd; do
    if alive "$name"; then
      pid=$(cat "$RUN/$name.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$RUN/$name.pid"
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
  *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
