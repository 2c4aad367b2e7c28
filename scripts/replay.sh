#!/usr/bin/env bash
# Sends again, without kubeupd, the requests kubeupd sent: the floor that scripts/bench.sh sets
# beside kubeupd, what the server itself takes for the same work.
#
#   KUBEUPD_RECORD_REQUESTS=DIR kubeupd apply -f app.yaml   # kubeupd writes each request into DIR
#   scripts/replay.sh prepare DIR OUT [FROM TO]             # the requests in OUT (FROM, a
#                                                           # namespace, renamed TO), outside timings
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
  send)
    out=${2:?usage: scripts/replay.sh send OUT [CONCURRENCY]}
    python3 - "$out" "${3:-8}" <<'PY'
import http.client, json, os, queue, ssl, sys, threading, urllib.parse
out, concurrency = sys.argv[1], int(sys.argv[2])
with open(os.path.join(out, 'requests.json')) as file:
    recorded = json.load(file)
server = urllib.parse.urlsplit(recorded['server'])
headers = {'Authorization': f"Bearer {recorded['token']}", 'Accept': 'application/json'}
context = ssl._create_unverified_context()
requests = recorded['requests']
bodies = {index: open(os.path.join(out, request['body']), 'rb').read()
          for index, request in enumerate(requests) if 'body' in request}
answered = [threading.Event() for _ in requests]
def worker(jobs):
    connection = http.client.HTTPSConnection(server.hostname, server.port, context=context)
    while (index := jobs.get()) is not None:
        request = requests[index]
        if request['after'] is not None:
            answered[request['after']].wait()
        extra = {'Content-Type': request['content_type']} if 'body' in request else {}
        try:
            connection.request(request['method'], request['path'], body=bodies.get(index), headers={**headers, **extra})
            connection.getresponse().read()
        except (http.client.HTTPException, OSError):
            connection.close()
            connection = http.client.HTTPSConnection(server.hostname, server.port, context=context)
        answered[index].set()
    connection.close()
for wave in (1, 2):
    jobs = queue.Queue()
    # In the recorded order: a request's dependency is always handed out before it.
    for index, request in enumerate(requests):
        if request['wave'] == wave:
            jobs.put(index)
    threads = [threading.Thread(target=worker, args=(jobs,)) for _ in range(concurrency)]
    for _ in threads:
        jobs.put(None)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
PY
    ;;
  *) echo "usage: scripts/replay.sh prepare DIR OUT [FROM TO] | send OUT [CONCURRENCY]" >&2; exit 2 ;;
esac
