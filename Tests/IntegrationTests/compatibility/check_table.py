#!/usr/bin/env python3
"""docs/Compatibility.md's symbol tables against the public symbols of the
CoreLocation and MapKit modules, as the compiler sees them.

The public symbols come from `swift-symbolgraph-extract` run on the debug
build's modules (the build `swift test` made; no compiling here). It fails
when a name a row lists as implemented, approximated or Stroll's own is not
a public symbol of the table's module, when a name a row lists as absent is
one, and when a public symbol is in no row.

How a row names symbols: every `code span` of its first cell is a name. A
dotted name is a path from the module's top level (`CLLocation.distance(from:)`,
`CLError.Code`); a plain name is a top-level symbol when the module has one of
that name, else a member of the last type named before it in the cell
(`CLLocationManager`: `delegate`, `startUpdatingLocation()`). A name without
an argument list covers every member of that base name (`init` every
initializer, `authorizationStatus` the property and the class method); one
with an argument list covers exactly that one. An enum's cases and its
`init(rawValue:)` are covered by the enum. The second cell is the status:
`implemented`, `approximated: how`, `Stroll's own` or `absent`.

Usage: check_table.py [--bin-path DIR] [--doc FILE]
  DIR: the debug build's products (default: .build/TRIPLE/debug, the
  folder `swift build` and `swift test` use, else `swift build --show-bin-path`).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MODULES = ["CoreLocation", "MapKit"]
TYPE_KINDS = {"swift.class", "swift.struct", "swift.enum", "swift.protocol"}
PRESENT = ("implemented", "approximated", "stroll's own")


def base(component):
    return component.split("(", 1)[0]


def symbolgraph_tool():
    tool = shutil.which("swift-symbolgraph-extract")
    if tool:
        return tool
    swift = shutil.which(os.environ.get("SWIFT", "swift"))
    if swift:
        candidate = os.path.join(os.path.dirname(os.path.realpath(swift)), "swift-symbolgraph-extract")
        if os.path.exists(candidate):
            return candidate
    sys.exit("error: swift-symbolgraph-extract not found beside swift")


def target_triple():
    info = subprocess.run(["swiftc", "-print-target-info"], check=True, capture_output=True, text=True).stdout
    return json.loads(info)["target"]["triple"]


def default_bin_path(triple):
    folder = os.path.join(".build", triple, "debug")
    if os.path.isdir(os.path.join(folder, "Modules")):
        return folder
    return subprocess.run([os.environ.get("SWIFT", "swift"), "build", "--show-bin-path"], check=True,
                          capture_output=True, text=True).stdout.strip()


def public_symbols(bin_path, triple, module, out_dir):
    """{path tuple: kind} for the module's public declarations (synthesized members left out)."""
    modules = os.path.join(bin_path, "Modules")
    if not os.path.exists(os.path.join(modules, module + ".swiftmodule")):
        sys.exit(f"error: {modules}/{module}.swiftmodule not found: build first (swift build --build-tests)")
    # The C targets of dependencies (OpenCombine's helpers) are found by their module maps.
    maps = sorted(glob.glob(os.path.join(bin_path, "*.build", "module.modulemap")))
    # And the system libraries' (zlib, GEOS: CoreLocation's geocoder reads OpenStreetMap through PlacesOSM).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    maps += sorted(glob.glob(os.path.join(root, "Sources", "C*", "module.modulemap")))
    command = [symbolgraph_tool(), "-module-name", module, "-target", triple, "-I", modules,
               *[arg for m in maps for arg in ("-Xcc", f"-fmodule-map-file={m}")],
               "-output-dir", out_dir, "-minimum-access-level", "public", "-skip-synthesized-members"]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"error: {' '.join(command)}\n{run.stderr}")
    symbols = {}
    for name in os.listdir(out_dir):
        # The module's own graph and those of its extensions to other modules' types.
        if name == f"{module}.symbols.json" or name.startswith(f"{module}@"):
            with open(os.path.join(out_dir, name)) as f:
                for s in json.load(f)["symbols"]:
                    symbols[tuple(s["pathComponents"])] = s["kind"]["identifier"]
    return symbols


def tables(doc):
    """{module: [(line number, names, status)]} from the `### Module` tables under `## Symbols`."""
    result, module, in_symbols = {}, None, False
    for number, line in enumerate(doc.splitlines(), 1):
        if line.startswith("## "):
            in_symbols = line.strip() == "## Symbols"
            module = None
        elif in_symbols and line.startswith("### "):
            module = line[4:].strip()
            result[module] = []
        elif module and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[0] == "symbol":
                continue
            result[module].append((number, re.findall(r"`([^`]+)`", cells[0]), cells[1]))
    return result


def matches(symbols, path):
    """The symbols a resolved name covers: exact last component, or its base name when it has no argument list."""
    *prefix, last = path
    prefix = tuple(prefix)
    return [p for p in symbols if p[:-1] == prefix and (p[-1] == last or ("(" not in last and base(p[-1]) == last))]


def check(module, rows, symbols):
    problems, covered = [], set()
    top_level = {base(p[0]) for p in symbols if len(p) == 1}
    for number, names, status in rows:
        where = f"docs/Compatibility.md:{number} ({module})"
        kind = status.lower()
        present = kind.startswith(PRESENT)
        if not present and not kind.startswith("absent"):
            problems.append(f"{where}: status {status!r} is none of implemented, approximated: how, Stroll's own, absent")
            continue
        if kind.startswith("approximated") and not kind.startswith("approximated:"):
            problems.append(f"{where}: 'approximated' without how (approximated: ...)")
        if not names:
            problems.append(f"{where}: the row names no symbol in `code`")
        owner = None
        for name in names:
            parts = tuple(name.split("."))
            if len(parts) > 1:
                candidates = [parts]
            elif name in top_level or owner is None:
                candidates = [parts]
            else:
                candidates = [owner + parts]
                if not present:
                    candidates.append(parts)
            found = [p for c in candidates for p in matches(symbols, c)]
            if present:
                if found:
                    covered.update(found)
                else:
                    problems.append(f"{where}: `{name}` is listed as {status.split(':')[0]} but "
                                    f"`{'.'.join(candidates[0])}` is not a public symbol of {module}")
            elif found:
                problems.append(f"{where}: `{name}` is listed as absent but {module} declares "
                                + ", ".join(".".join(p) for p in found))
            # The owner of the plain names after this one: the type it names, or
            # the type it is a member of (none after a top-level function or constant).
            resolved = candidates[0]
            if any(symbols.get(p) in TYPE_KINDS for p in matches(symbols, resolved)):
                owner = resolved
            elif len(resolved) > 1:
                owner = resolved[:-1]
            elif found:
                owner = None
    for path, kind in symbols.items():
        if path in covered:
            continue
        parent = path[:-1]
        if parent in covered and symbols.get(parent) == "swift.enum" and (kind == "swift.enum.case" or path[-1] == "init(rawValue:)"):
            continue
        problems.append(f"docs/Compatibility.md ({module}): public symbol `{'.'.join(path)}` ({kind}) is in no row")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-path")
    parser.add_argument("--doc", default="docs/Compatibility.md")
    args = parser.parse_args()
    started = time.monotonic()
    triple = target_triple()
    bin_path = args.bin_path or default_bin_path(triple)
    with open(args.doc) as f:
        found = tables(f.read())
    problems, counts = [], []
    for module in MODULES:
        if module not in found:
            problems.append(f"{args.doc}: no '### {module}' table under '## Symbols'")
            continue
        with tempfile.TemporaryDirectory() as out:
            symbols = public_symbols(bin_path, triple, module, out)
        problems += check(module, found[module], symbols)
        counts.append(f"{module}: {len(symbols)} public symbols, {len(found[module])} rows")
    seconds = time.monotonic() - started
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"FAIL: {len(problems)} problem(s) in {args.doc} ({'; '.join(counts)}; {seconds:.1f} s)", file=sys.stderr)
        return 1
    print(f"ok: {args.doc} names every public symbol and only those ({'; '.join(counts)}; {seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
