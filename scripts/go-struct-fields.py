#!/usr/bin/env python3
"""Writes src/output/go_fields.rs: the JSON fields of the Go structs of the kinds kubectl's
generators make (`create configmap|secret|deployment|...`, `run`'s Pod), in the structs' order, which is the
order kubectl's JSON printer writes a typed object's keys in (`kind` before `apiVersion`).

Read from the Go sources of k8s.io/api and k8s.io/apimachinery at the version of the reference
kubectl, in the Go module cache (`go mod download` in scripts/kubectl-flags fetches them):

    scripts/go-struct-fields.py > src/output/go_fields.rs
"""
import os
import re
import sys

VERSION = "v0.37.2"
MOD = os.path.expanduser(os.environ.get("GOMODCACHE", "~/go/pkg/mod"))
PACKAGES = {
    "core/v1": f"k8s.io/api@{VERSION}/core/v1",
    "apps/v1": f"k8s.io/api@{VERSION}/apps/v1",
    "batch/v1": f"k8s.io/api@{VERSION}/batch/v1",
    "networking/v1": f"k8s.io/api@{VERSION}/networking/v1",
    "rbac/v1": f"k8s.io/api@{VERSION}/rbac/v1",
    "policy/v1": f"k8s.io/api@{VERSION}/policy/v1",
    "scheduling/v1": f"k8s.io/api@{VERSION}/scheduling/v1",
    "meta/v1": f"k8s.io/apimachinery@{VERSION}/pkg/apis/meta/v1",
}
# Import names of the packages as the sources write them.
ALIASES = {"metav1": "meta/v1", "v1": "core/v1", "corev1": "core/v1", "batchv1": "batch/v1"}
# Structs that marshal as a scalar or as raw JSON.
LEAVES = {"meta/v1.Time", "meta/v1.MicroTime", "meta/v1.Duration", "meta/v1.FieldsV1"}
# The kinds the generators make, with their apiVersion.
KINDS = [
    ("v1", "ConfigMap", "core/v1.ConfigMap"),
    # Not a generator's: `kubectl events -o json` prints the EventList it builds.
    ("v1", "EventList", "core/v1.EventList"),
    ("v1", "Event", "core/v1.Event"),
    ("v1", "Secret", "core/v1.Secret"),
    ("v1", "Namespace", "core/v1.Namespace"),
    ("v1", "ServiceAccount", "core/v1.ServiceAccount"),
    ("v1", "Service", "core/v1.Service"),
    ("v1", "Pod", "core/v1.Pod"),
    ("v1", "ResourceQuota", "core/v1.ResourceQuota"),
    ("apps/v1", "Deployment", "apps/v1.Deployment"),
    ("batch/v1", "Job", "batch/v1.Job"),
    ("batch/v1", "CronJob", "batch/v1.CronJob"),
    ("networking.k8s.io/v1", "Ingress", "networking/v1.Ingress"),
    ("rbac.authorization.k8s.io/v1", "Role", "rbac/v1.Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "rbac/v1.RoleBinding"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "rbac/v1.ClusterRole"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "rbac/v1.ClusterRoleBinding"),
    ("policy/v1", "PodDisruptionBudget", "policy/v1.PodDisruptionBudget"),
    ("scheduling.k8s.io/v1", "PriorityClass", "scheduling/v1.PriorityClass"),
]

FIELD = re.compile(r"^\s+(?:(\w+)\s+)?([\w.\[\]*]+(?:\[[\w.]+\][\w.\[\]*]+)?)\s+`json:\"([^\"]*)\"")


def read_structs(package):
    """The struct types of a package: name -> [(json name or None for inline, Go type)]."""
    structs, kinds = {}, {}
    root = os.path.join(MOD, PACKAGES[package])
    for name in sorted(os.listdir(root)):
        if not name.endswith(".go") or name.endswith("_test.go") or "generated" in name:
            continue
        current = None
        for line in open(os.path.join(root, name)):
            start = re.match(r"^type (\w+) struct \{", line)
            if start:
                current = structs.setdefault(start.group(1), [])
                continue
            alias = re.match(r"^type (\w+) (\S+)", line)
            if alias and current is None:
                kinds[alias.group(1)] = alias.group(2)
                continue
            if current is not None and line.startswith("}"):
                current = None
                continue
            if current is None:
                continue
            field = FIELD.match(line)
            if not field:
                continue
            go_name, go_type, tag = field.groups()
            if go_name is None:  # embedded: TypeMeta inline, ObjectMeta as `metadata`
                go_name = go_type
            json_name = tag.split(",")[0]
            if json_name == "-":
                continue
            inline = "inline" in tag.split(",")[1:] or (json_name == "" and field.group(1) is None)
            current.append((None if inline else (json_name or go_name), go_type))
    return structs, kinds


STRUCTS, ALIASED = {}, {}
for package in PACKAGES:
    structs, kinds = read_structs(package)
    for name, fields in structs.items():
        STRUCTS[f"{package}.{name}"] = fields
    for name, target in kinds.items():
        ALIASED[f"{package}.{name}"] = target


def resolve(go_type, package):
    """The struct a field's values are (`[]T`, `*T`, `map[K]T` looked through), or ''."""
    while True:
        go_type = go_type.lstrip("*")
        if go_type.startswith("[]"):
            go_type = go_type[2:]
            continue
        if go_type.startswith("map["):
            go_type = go_type[go_type.index("]") + 1:]
            continue
        break
    if "." in go_type:
        alias, name = go_type.split(".", 1)
        if alias not in ALIASES:
            return ""
        qualified = f"{ALIASES[alias]}.{name}"
    else:
        qualified = f"{package}.{go_type}"
    if qualified in LEAVES:
        return ""
    if qualified in STRUCTS:
        return qualified
    if qualified in ALIASED:
        return resolve(ALIASED[qualified], qualified.rsplit(".", 1)[0])
    return ""


def fields(qualified):
    """The JSON fields of a struct in order, inline structs' spliced in: (name, struct or '')."""
    package = qualified.rsplit(".", 1)[0]
    out = []
    for json_name, go_type in STRUCTS[qualified]:
        target = resolve(go_type, package)
        if json_name is None:
            out.extend(fields(target))
        else:
            out.append((json_name, target))
    return out


def main():
    todo = [kind[2] for kind in KINDS]
    seen, rows = set(), []
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        row = fields(name)
        rows.append((name, row))
        todo.extend(target for _, target in row if target and target not in seen)
    rows.sort()
    out = sys.stdout
    out.write("//! The JSON fields of the Go structs of the kinds kubectl's generators make, in the structs'\n")
    out.write("//! order: each field with the struct its values are (`\"\"` for a scalar, a string map, a\n")
    out.write(f"//! quantity...). Written by scripts/go-struct-fields.py from k8s.io/api {VERSION}; do not edit.\n\n")
    out.write("/// Each kind's apiVersion, kind and struct.\n")
    out.write("pub(super) const KINDS: &[(&str, &str, &str)] = &[\n")
    for api_version, kind, struct in KINDS:
        out.write(f'    ("{api_version}", "{kind}", "{struct}"),\n')
    out.write("];\n\n")
    out.write("/// Each struct's fields, by the struct's name, sorted.\n")
    out.write("#[rustfmt::skip]\n")
    out.write("pub(super) const STRUCTS: &[(&str, &[(&str, &str)])] = &[\n")
    for name, row in rows:
        items = ", ".join(f'("{field}", "{target}")' for field, target in row)
        out.write(f'    ("{name}", &[{items}]),\n')
    out.write("];\n")


main()
