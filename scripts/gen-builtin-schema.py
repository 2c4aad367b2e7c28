#!/usr/bin/env python3
"""Regenerates src/schema/builtin-openapi.json, the patch metadata kubeupd embeds for built-in kinds,
and src/schema/builtin-kinds.txt, the list of those kinds (checked without reading the metadata).

Source: the JSON schemas in the PyPI package kubernetes-validate (per Kubernetes version, with the
x-kubernetes-* extensions). Every version the package ships is read, oldest first, so that kinds
removed from newer releases stay known; a newer version's field wins over an older one's.

The output is a compact OpenAPI v2 document that keeps only what patching needs: the object
structure (properties, items, additionalProperties, $ref), primitive types, the patch extensions
and x-kubernetes-group-version-kind. kubeupd reads it with the same code as a server's document.

Usage: scripts/gen-builtin-schema.py [--package-version 1.37.0] [--output PATH]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

KEPT_EXTENSIONS = (
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
)
PRIMITIVES = ("string", "integer", "number", "boolean")


def download(package_version, workdir):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", workdir,
         f"kubernetes-validate=={package_version}"],
        check=True,
    )
    wheel = glob.glob(os.path.join(workdir, "kubernetes_validate-*.whl"))[0]
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(workdir)
    return os.path.join(workdir, "kubernetes_validate", "kubernetes-json-schema")


def version_key(directory):
    return tuple(int(part) for part in re.match(r"v(\d+)\.(\d+)\.(\d+)", directory).groups())


def schema_type(body):
    kind = body.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return kind


def reduce(body):
    """The parts of one schema that patching needs."""
    out = {key: body[key] for key in KEPT_EXTENSIONS if key in body}
    if isinstance(body.get("$ref"), str):
        out["$ref"] = "#/definitions/" + body["$ref"].rsplit("/", 1)[-1]
        return out
    kind = schema_type(body)
    if "properties" in body:
        out["properties"] = {name: reduce(sub) for name, sub in sorted(body["properties"].items())}
    elif kind == "array" or "items" in body:
        out["type"] = "array"
        if isinstance(body.get("items"), dict):
            out["items"] = reduce(body["items"])
    elif kind == "object" or "additionalProperties" in body:
        out["type"] = "object"
        if isinstance(body.get("additionalProperties"), dict):
            out["additionalProperties"] = reduce(body["additionalProperties"])
    elif kind in PRIMITIVES:
        out["type"] = kind
    return out


def merge_definition(old, new):
    """A newer version's definition, keeping fields only older versions had."""
    if old is None or "properties" not in old or "properties" not in new:
        return new
    merged = dict(new)
    merged["properties"] = {**old["properties"], **new["properties"]}
    return merged


def references(body):
    if isinstance(body, dict):
        if isinstance(body.get("$ref"), str):
            yield body["$ref"].rsplit("/", 1)[-1]
        for value in body.values():
            yield from references(value)
    elif isinstance(body, list):
        for value in body:
            yield from references(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package-version", default="1.37.0")
    parser.add_argument("--output", default=os.path.join(os.path.dirname(__file__), "..", "src", "schema", "builtin-openapi.json"))
    parser.add_argument("--kinds-output", default=os.path.join(os.path.dirname(__file__), "..", "src", "schema", "builtin-kinds.txt"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as workdir:
        root = download(args.package_version, workdir)
        directories = sorted(
            (d for d in os.listdir(root) if re.fullmatch(r"v\d+\.\d+\.\d+-local", d)), key=version_key
        )
        definitions, versions = {}, []
        for directory in directories:
            with open(os.path.join(root, directory, "_definitions.json")) as handle:
                document = json.load(handle)
            for name, body in document["$defs"].items():
                reduced = reduce(body)
                gvks = body.get("x-kubernetes-group-version-kind")
                if gvks:
                    reduced["x-kubernetes-group-version-kind"] = gvks
                definitions[name] = merge_definition(definitions.get(name), reduced)
            versions.append(directory.split("-")[0])

    # Keep what the kinds reach.
    wanted = [name for name, body in definitions.items() if "x-kubernetes-group-version-kind" in body]
    reachable = set()
    while wanted:
        name = wanted.pop()
        if name in reachable or name not in definitions:
            continue
        reachable.add(name)
        wanted.extend(references(definitions[name]))

    kinds = sum(len(definitions[name]["x-kubernetes-group-version-kind"]) for name in reachable
                if "x-kubernetes-group-version-kind" in definitions[name])
    lines = [
        "{",
        '"swagger":"2.0",',
        '"info":' + json.dumps({
            "title": "kubeupd built-in patch metadata (scripts/gen-builtin-schema.py)",
            "version": f"Kubernetes {versions[0]} to {versions[-1]}, from kubernetes-validate {args.package_version}",
        }, separators=(",", ":")) + ",",
        '"definitions":{',
    ]
    names = sorted(reachable)
    for index, name in enumerate(names):
        comma = "," if index + 1 < len(names) else ""
        lines.append(json.dumps(name) + ":" + json.dumps(definitions[name], sort_keys=True, separators=(",", ":")) + comma)
    lines += ["}", "}"]
    with open(args.output, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    kind_lines = sorted({
        f"{(gvk['group'] + '/' if gvk['group'] else '')}{gvk['version']} {gvk['kind']}"
        for name in reachable
        for gvk in definitions[name].get("x-kubernetes-group-version-kind", [])
    })
    with open(args.kinds_output, "w") as handle:
        handle.write("# apiVersion kind, one built-in kind per line (scripts/gen-builtin-schema.py)\n")
        handle.write("\n".join(kind_lines) + "\n")
    print(f"{args.output}: {len(names)} definitions, {kinds} kinds, Kubernetes {versions[0]}..{versions[-1]}")


if __name__ == "__main__":
    main()
