#!/usr/bin/env bash
# A real kube-apiserver (Kubernetes 1.20, built from Debian's source package) and etcd on loopback.
#
#   scripts/local-cluster.sh build   build kube-apiserver once into the cache (about 5 minutes)
#   scripts/local-cluster.sh up      build if needed, start etcd and the apiserver, write a kubeconfig
#   scripts/local-cluster.sh env     print `export KUBECONFIG=...` for the running cluster
#   scripts/local-cluster.sh status  exit 0 when the cluster answers /readyz
#   scripts/local-cluster.sh down    stop both processes (the build cache stays)
#   scripts/local-cluster.sh settle  wait (up to 10 s) until both are idle: the work an earlier
#                                    write left them (a definition's OpenAPI) is done
#
# The cache lives outside the repository: $KUBEUPD_CACHE, default ~/.cache/kubeupd.
set -euo pipefail

CACHE=${KUBEUPD_CACHE:-$HOME/.cache/kubeupd}
APISERVER=$CACHE/bin/kube-apiserver
RUN=$CACHE/cluster
KUBECONFIG_FILE=$RUN/kubeconfig
TOKEN=kubeupd-test-token

log() { printf 'local-cluster: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian's source packages are off by default: add a deb-src copy of the machine's own apt source.
enable_deb_src() {
  local src=/etc/apt/sources.list.d/debian.sources dst=/etc/apt/sources.list.d/kubeupd-deb-src.sources
  if grep -qs '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources; then return; fi
  [ -f "$src" ] || die "no $src to derive a deb-src entry from"
  sed 's/^Types: .*/Types: deb-src/' "$src" | as_root tee "$dst" >/dev/null
  as_root apt-get update -qq
}

install_packages() {
  local need=()
  for pkg in golang-go etcd-server rsync make openssl dpkg-dev golang-github-modern-go-reflect2-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || need+=("$pkg")
  done
  [ ${#need[@]} -eq 0 ] && return
  log "installing ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
}

build() {
  if [ -x "$APISERVER" ]; then return; fi
  install_packages
  enable_deb_src
  local work=$CACHE/build
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
  log "building kube-apiserver (about 5 minutes)"
  local started=$SECONDS
  (cd "$tree" && GOPATH=$tree/.go CGO_ENABLED=0 HOME=$work/home GOFLAGS=-mod=vendor \
     make WHAT=cmd/kube-apiserver >"$work/build.log" 2>&1) \
     || { tail -n 30 "$work/build.log" >&2; die "kube-apiserver build failed (log: $work/build.log)"; }
  mkdir -p "$CACHE/bin"
  cp "$tree/_output/bin/kube-apiserver" "$APISERVER"
  log "built $APISERVER in $((SECONDS - started))s"
  rm -rf "$work"
}

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

up() {
  if alive etcd && alive apiserver && ready; then log "already running"; return; fi
  down quiet
  build
  command -v etcd >/dev/null || install_packages
  local started=$SECONDS
  mkdir -p "$RUN/certs"
  local client_port peer_port api_port
  client_port=$(free_port 23790)
  peer_port=$(free_port $(( client_port + 1 )))
  api_port=$(free_port 26443)
  echo "$api_port" >"$RUN/apiserver.port"

  rm -rf "$RUN/etcd-data"
  setsid etcd --name kubeupd --data-dir "$RUN/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$client_port" --advertise-client-urls "http://127.0.0.1:$client_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "kubeupd=http://127.0.0.1:$peer_port" \
    >"$RUN/etcd.log" 2>&1 </dev/null &
  echo $! >"$RUN/etcd.pid"

  [ -f "$RUN/sa.key" ] || openssl genrsa -out "$RUN/sa.key" 2048 2>/dev/null
  echo "$TOKEN,kubeupd-admin,kubeupd-admin,\"system:masters\"" >"$RUN/tokens.csv"
  setsid "$APISERVER" --etcd-servers "http://127.0.0.1:$client_port" \
    --cert-dir "$RUN/certs" --secure-port "$api_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --insecure-port 0 \
    --service-cluster-ip-range 10.0.0.0/16 --token-auth-file "$RUN/tokens.csv" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$RUN/sa.key" --service-account-signing-key-file "$RUN/sa.key" \
    --authorization-mode RBAC --disable-admission-plugins ServiceAccount \
    >"$RUN/apiserver.log" 2>&1 </dev/null &
  echo $! >"$RUN/apiserver.pid"

  local i
  for i in $(seq 1 120); do
    if [ -f "$RUN/certs/apiserver.crt" ] && ready; then break; fi
    alive apiserver || { tail -n 20 "$RUN/apiserver.log" >&2; die "kube-apiserver exited"; }
    sleep 0.5
  done
  ready || { tail -n 20 "$RUN/apiserver.log" >&2; die "kube-apiserver not ready after 60s"; }
  write_kubeconfig "$api_port"
  log "ready on https://127.0.0.1:$api_port in $((SECONDS - started))s; kubeconfig: $KUBECONFIG_FILE"
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
  for name in apiserver etcd; do
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

# CPU ticks (1/100 s) both processes have used so far.
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
  up) up ;;
  down) down ;;
  env) [ -f "$KUBECONFIG_FILE" ] && ready || die "not running (scripts/local-cluster.sh up)"; echo "export KUBECONFIG=$KUBECONFIG_FILE" ;;
  status) ready ;;
  *) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
