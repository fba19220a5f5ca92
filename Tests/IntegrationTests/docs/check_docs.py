#!/usr/bin/env python3
"""The documentation's front page and doc comments against the modules.

    check_docs.py GRAPHS_DIR [--update]

Reads the symbol graphs `scripts/docs` gathered (one `MODULE.symbols.json` per
library module, `MODULE@OTHER.symbols.json` for its extensions of other
modules' types) and fails, naming each:

- on a module the front page (docs/Stroll.docc/Stroll.md) does not link as
  ``MODULE``, or that has no page docs/Stroll.docc/Modules/MODULE.md;
- on a module with more public declarations without a doc comment than
  docs/undocumented.txt allows it (declarations written in Stroll's sources:
  members the compiler synthesizes are not counted, and an implementation of a
  documented protocol requirement has that requirement's comment). The
  figures only go down: a module that does better is told to lower its line,
  and `--update` writes the current figures.

Prints the figures per module either way.
"""
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CATALOG = os.path.join(ROOT, "docs", "Stroll.docc")
BUDGET = os.path.join(ROOT, "docs", "undocumented.txt")


def declarations(graphs):
    """{module: (public declarations in the sources, [undocumented ones as 'path (file:line)'])}."""
    modules = {}
    for path in sorted(glob.glob(os.path.join(graphs, "*.symbols.json"))):
        module = os.path.basename(path).split(".symbols.json")[0].split("@")[0]
        with open(path, encoding="utf-8") as f:
            graph = json.load(f)
        total, missing = modules.get(module, (0, []))
        for symbol in graph["symbols"]:
            location = symbol.get("location")
            if location is None or "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            total += 1
            if not symbol.get("docComment"):
                file = location["uri"].split(ROOT + "/", 1)[-1]
                line = location["position"]["line"] + 1
                name = ".".join(symbol["pathComponents"])
                missing.append(f"{symbol['kind']['displayName'].lower()} {name} ({file}:{line})")
        modules[module] = (total, missing)
    return modules


def read_budget():
    budget = {}
    if os.path.exists(BUDGET):
        for line in open(BUDGET, encoding="utf-8"):
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                budget[line[0]] = int(line[1])
    return budget


def write_budget(modules):
    with open(BUDGET, "w", encoding="utf-8") as f:
        f.write("# Public declarations without a doc comment that each module may still have\n"
                "# (Tests/IntegrationTests/docs/check_docs.py, run by `make docs`). The figures\n"
                "# only go down: document a declaration, then lower its module's line\n"
                "# (`python3 Tests/IntegrationTests/docs/check_docs.py .build/docs/symbol-graphs --update`).\n")
        for module, (_, missing) in sorted(modules.items()):
            f.write(f"{module} {len(missing)}\n")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    modules = declarations(args[0])
    if not modules:
        sys.exit(f"FAIL: no symbol graphs in {args[0]}")
    if "--update" in sys.argv:
        write_budget(modules)
        print(f"wrote {os.path.relpath(BUDGET, ROOT)}")
    front = open(os.path.join(CATALOG, "Stroll.md"), encoding="utf-8").read()
    linked = set(re.findall(r"^- ``([A-Za-z0-9_]+)``\s*$", front, re.M))
    budget = read_budget()
    problems, lower = [], []
    print(f"{'module':20} {'public':>7} {'undocumented':>13} {'allowed':>8}")
    for module, (total, missing) in sorted(modules.items()):
        allowed = budget.get(module, 0)
        print(f"{module:20} {total:7} {len(missing):13} {allowed:8}")
        if module not in linked:
            problems.append(f"{module}: not listed on the front page (- ``{module}`` in docs/Stroll.docc/Stroll.md)")
        if not os.path.exists(os.path.join(CATALOG, "Modules", module + ".md")):
            problems.append(f"{module}: no page docs/Stroll.docc/Modules/{module}.md")
        if len(missing) > allowed:
            problems.append(f"{module}: {len(missing)} public declarations without a doc comment, "
                            f"{allowed} allowed by docs/undocumented.txt; those without one:\n      "
                            + "\n      ".join(missing))
        elif len(missing) < allowed:
            lower.append(f"{module} {len(missing)}")
    total = sum(t for t, _ in modules.values())
    undocumented = sum(len(m) for _, m in modules.values())
    print(f"{'all':20} {total:7} {undocumented:13} {sum(budget.get(m, 0) for m in modules):8}")
    for module in sorted(set(budget) - set(modules)):
        problems.append(f"{module}: a line in docs/undocumented.txt, but no such module")
    if lower:
        print("docs/undocumented.txt may be lowered: " + ", ".join(lower))
    if problems:
        print("FAIL: the documentation and the modules disagree:")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print(f"ok: {len(modules)} modules on the front page, {undocumented} of {total} public declarations without a doc comment, none more than allowed")


if __name__ == "__main__":
    main()
