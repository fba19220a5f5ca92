#!/usr/bin/env python3
"""The module graph of Package.swift against ARCHITECTURE.md's map.

    check_graph.py [--manifest DUMP.json]

Reads the targets and their dependencies from `swift package dump-package`
(or a saved dump), and the allowed imports from ARCHITECTURE.md's table
(`| module | holds | may import |`; a cell may name several modules). Fails,
naming each, on a dependency the map does not allow, on a module without a
row, and on a row for a module that is not there. Test targets are not
checked (they may use what they test).
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def allowed_edges(path):
    allowed = {}
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        modules = re.findall(r"`([A-Za-z0-9_]+)`", cells[0])
        imports = {m.strip() for m in cells[2].split(",") if m.strip()}
        for m in modules:
            allowed[m] = imports
    return allowed


def actual_edges(dump):
    graph = {}
    for target in dump["targets"]:
        if target["type"] == "test":
            continue
        deps = set()
        for d in target["dependencies"]:
            kind, value = next(iter(d.items()))
            deps.add(value[0])
        graph[target["name"]] = deps
    return graph


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--manifest":
        dump = json.load(open(sys.argv[2]))
    else:
        out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        dump = json.loads(out)
    allowed = allowed_edges(os.path.join(ROOT, "ARCHITECTURE.md"))
    graph = actual_edges(dump)
    problems = []
    for module, deps in sorted(graph.items()):
        if module not in allowed:
            problems.append(f"{module}: no row in ARCHITECTURE.md")
            continue
        for dep in sorted(deps - allowed[module]):
            problems.append(f"{module} imports {dep}, which ARCHITECTURE.md does not allow")
    for module in sorted(set(allowed) - set(graph)):
        problems.append(f"{module}: a row in ARCHITECTURE.md, but no such module in Package.swift")
    edges = sum(len(d) for d in graph.values())
    if problems:
        print("FAIL: the module graph and ARCHITECTURE.md disagree:")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print(f"ok: {len(graph)} modules, {edges} dependencies, each allowed by ARCHITECTURE.md")


if __name__ == "__main__":
    main()
