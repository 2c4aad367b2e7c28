#!/usr/bin/env bash
# Sends again, without kubeupd, the requests kubeupd sent: the floor that scripts/bench.sh sets
# beside kubeupd, what the server itself takes for the same work.
#
#   KUBEUPD_RECORD_REQUESTS=DIR kubeupd apply -f app.yaml   # kubeupd writes each request into DIR
#   scripts/replay.sh prepare DIR OUT [FROM TO]             # the requests in OUT (FROM, a
#                                                           # namespace, renamed TO), outside timings
#   scripts/replay.sh build                                 # builds the sender (Go), prints its path
#   scripts/replay.sh send OUT [CONCURRENCY]                # sends them (default 8 at once)
#
# The requests go in two waves, as kubeupd sends them: up to the last write of a Namespace or of
# a CustomResourceDefinition whose kind later requests use (what the other objects need first),
# then the rest; in each wave up to CONCURRENCY at once over kept-alive connections, in the
# recorded order. A write goes out only once the request it was computed from has been answered,
# as any client that reads before it writes must wait: the object's own request before it (a
# read, or the write before a migration's), else the list of its type it was seen in. The server
# and token are those of the current context of $KUBECONFIG; answers are not checked. A JSON
# patch's precondition on the resourceVersion (the migration to server-side apply) is left out:
# the replayed objects have other versions, and a refused patch would leave the server less work
# than kubeupd had.
set -euo pipefail
sender=${KUBEUPD_CACHE:-$HOME/.cache/kubeupd}/replay-send
case "${1:-}" in
  prepare)
    dir=${2:?usage: scripts/replay.sh prepare DIR OUT [FROM TO]}
    out=${3:?usage: scripts/replay.sh prepare DIR OUT [FROM TO]}
    server=$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.server}')
    token=$(kubectl config view --minify --raw -o jsonpath='{.users[0].user.token}')
    mkdir -p "$out"
    python3 - "$dir" "$out" "$server" "$token" "${4:-}" "${5:-}" <<'PY'
import json, os, re, sys
dir, out, server, token, old, new = sys.argv[1:]
rename = (lambda data: data.replace(old.encode(), new.encode())) if old else (lambda data: data)
def without_version_test(body):
    """A JSON patch without its operations on the resourceVersion: the migration to server-side
    apply sets it as a precondition, which the replayed objects, written at other versions, would
    fail (409), and the server would skip the migration's work."""
    operations = json.loads(body)
    kept = [op for op in operations if op.get('path') != '/metadata/resourceVersion']
    return body if len(kept) == len(operations) else json.dumps(kept).encode()
requests = []
for name in sorted(name for name in os.listdir(dir) if re.fullmatch(r'\d+-\d+', name)):
    with open(os.path.join(dir, name), 'rb') as file:
        head, _, rest = rename(file.read()).partition(b'\n')
    content_type, _, body = rest.partition(b'\n')
    method, path = head.decode().split(' ', 1)
    if content_type == b'application/json-patch+json':
        body = without_version_test(body)
    requests.append((name, method, path, content_type.decode(), body))
# A write of a Namespace or a CRD: a collection or one of its items.
namespace = re.compile(r'^/api/v1/namespaces(/[^/?]+)?(\?|$)')
definition = re.compile(r'^/apis/apiextensions\.k8s\.io/v1/customresourcedefinitions(?:/([^/?]+))?(\?|$)')
def defined_kind_used(path, body):
    """Whether the CRD written is of a kind (its name is PLURAL.GROUP) some request uses."""
    named = definition.match(path).group(1)
    if not named:
        try:
            named = json.loads(body)['metadata']['name']
        except (ValueError, KeyError, TypeError):
            return True
    plural, _, group = named.partition('.')
    used = re.compile(rf'^/apis/{re.escape(group)}/[^/]+/(namespaces/[^/]+/)?{re.escape(plural)}(/|\?|$)')
    return any(used.match(request[2]) for request in requests)
first_wave = max((index + 1 for index, (_, method, path, _, body) in enumerate(requests)
                  if method != 'GET' and (namespace.match(path)
                                          or (definition.match(path) and defined_kind_used(path, body)))),
                 default=0)
def object_path(method, path, body):
    """The path of the object a request is about: a create names it in its body."""
    path = path.split('?')[0]
    if method == 'POST':
        try:
            return path + '/' + json.loads(body)['metadata']['name']
        except (ValueError, KeyError, TypeError):
            return path
    return path
last_of = {}
plan = []
for index, (name, method, path, content_type, body) in enumerate(requests):
    wave = 1 if index < first_wave else 2
    own = object_path(method, path, body)
    after = None
    if method != 'GET':
        after = last_of.get(own, last_of.get(own.rsplit('/', 1)[0]))
    last_of[own] = index
    entry = {'method': method, 'path': path, 'wave': wave, 'after': after}
    if method != 'GET':
        entry['content_type'] = content_type
        entry['body'] = f'{name}.body'
        with open(os.path.join(out, entry['body']), 'wb') as file:
            file.write(body)
    plan.append(entry)
with open(os.path.join(out, 'requests.json'), 'w') as file:
    json.dump({'server': server, 'token': token, 'requests': plan}, file)
PY
    ;;
  build)
    # The sender (scripts/replay-send, Go's standard library only), built once into the cache so
    # that no build lands in a measured send.
    command -v go >/dev/null || { echo "replay.sh: Go is required" >&2; exit 1; }
    (cd "$(dirname "$0")/replay-send" && GOWORK=off CGO_ENABLED=0 go build -trimpath -o "$sender" .)
    echo "$sender"
    ;;
  send)
    out=${2:?usage: scripts/replay.sh send OUT [CONCURRENCY]}
    [ -x "$sender" ] || "$0" build >/dev/null
    exec "$sender" "$out" "${3:-8}"
    ;;
  *) echo "usage: scripts/replay.sh prepare DIR OUT [FROM TO] | build | send OUT [CONCURRENCY]" >&2; exit 2 ;;
esac
