#!/usr/bin/env python3
"""Every Swift code block of the documentation, compiled as written.

    compile_blocks.py [--selftest]

The blocks: each ```swift fence in README.md, docs/ (the DocC catalog
included) and Examples/*/README.md, and each ```swift fence of a `///`
comment in Sources/. Nothing is registered: a new block is compiled from
then on.

A block that is a manifest (`import PackageDescription`) is evaluated by
`swift package dump-package`. Every other block becomes a test target of a
package generated in .build/doc-blocks, depending on Stroll by path and on
all of its library products: its `import` lines stand at the top of the
file; a block of declarations (a `@Test`, a type, a function) is compiled
as it is; a block of statements is compiled as the body of an `async
throws` function on the main actor (a doc comment's block also imports
its own module and Foundation). The package is built with the test targets
(`swift build --build-tests`) in Stroll's own build folder, so Stroll's
modules are not compiled again. A block that does not compile fails the
check, named by its file and line.

With --selftest the check is first shown failing: one block with a name
changed must be reported, by file and line, before the real blocks are
compiled.
"""
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
OUT = os.path.join(ROOT, ".build", "doc-blocks")
SWIFT = os.environ.get("SWIFT", "swift")
DECLARATION = re.compile(r"^(@|func |final |class |struct |enum |extension |actor |protocol |public |private |fileprivate |internal |open )")


def markdown_files():
    files = [os.path.join(ROOT, "README.md")]
    for base in [os.path.join(ROOT, "docs")] + [os.path.join(ROOT, "Examples", d) for d in sorted(os.listdir(os.path.join(ROOT, "Examples")))]:
        for folder, _, names in sorted(os.walk(base)):
            if ".build" in folder:
                continue
            files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".md") and (folder.startswith(os.path.join(ROOT, "docs")) or n == "README.md")]
    return files


def markdown_blocks(path):
    blocks, lines, start = [], None, 0
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if lines is None and line.strip() == "```swift":
            lines, start = [], number + 1
        elif lines is not None and line.strip() == "```":
            blocks.append({"file": os.path.relpath(path, ROOT), "line": start, "code": "".join(lines), "module": None})
            lines = None
        elif lines is not None:
            lines.append(line)
    return blocks


def comment_blocks(path, module):
    blocks, lines, start = [], None, 0
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        text = line.strip()
        if not text.startswith("///"):
            lines = None
            continue
        body = text[3:]
        body = body[1:] if body.startswith(" ") else body
        if lines is None and body.strip() == "```swift":
            lines, start = [], number + 1
        elif lines is not None and body.strip() == "```":
            blocks.append({"file": os.path.relpath(path, ROOT), "line": start, "code": "".join(lines), "module": module})
            lines = None
        elif lines is not None:
            lines.append(body + "\n")
    return blocks


def all_blocks():
    blocks = []
    for path in markdown_files():
        blocks += markdown_blocks(path)
    sources = os.path.join(ROOT, "Sources")
    for module in sorted(os.listdir(sources)):
        for folder, _, names in sorted(os.walk(os.path.join(sources, module))):
            for name in sorted(names):
                if name.endswith(".swift"):
                    blocks += comment_blocks(os.path.join(folder, name), module)
    return blocks


DUMP = None


def dump():
    global DUMP
    if DUMP is None:
        DUMP = json.loads(subprocess.run([SWIFT, "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    return DUMP


def libraries():
    return [p["name"] for p in dump()["products"] if "library" in p["type"]]


def module_imports(module):
    """A doc comment's block imports its module and the library modules that module depends on."""
    target = next((t for t in dump()["targets"] if t["name"] == module), None)
    names = set(libraries())
    deps = [next(iter(d.values()))[0] for d in (target or {}).get("dependencies", [])]
    return [module] + [d for d in deps if d in names]


def source_of(block):
    """The block as a Swift file: imports first, statements inside a function."""
    lines = block["code"].splitlines()
    imports = [l for l in lines if l.startswith("import ")]
    rest = [l for l in lines if not l.startswith("import ")]
    if block["module"]:
        imports = ["import Foundation"] + [f"import {m}" for m in module_imports(block["module"])] + imports
    first = next((l for l in rest if l.strip() and not l.lstrip().startswith("//")), "")
    header = [f"// {block['file']}:{block['line']}, compiled as written"]
    if DECLARATION.match(first):
        return "\n".join(header + imports + [""] + rest) + "\n"
    body = ["    " + l if l.strip() else "" for l in rest]
    return "\n".join(header + imports + ["", "@MainActor func documentationExample() async throws {"] + body + ["}"]) + "\n"


def target_name(block, k):
    return "Block%02d_" % k + re.sub(r"[^A-Za-z0-9]", "_", block["file"]).strip("_") + "_L%d" % block["line"]


def compile_blocks(blocks):
    """Compiles the blocks; returns the failures, each naming its block."""
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    failures = []
    swift_blocks = []
    for k, block in enumerate(blocks):
        if "import PackageDescription" in block["code"]:
            folder = os.path.join(OUT, "manifest-%02d" % k)
            os.makedirs(folder)
            with open(os.path.join(folder, "Package.swift"), "w") as f:
                f.write(block["code"])
            r = subprocess.run([SWIFT, "package", "dump-package", "--package-path", folder], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{block['file']}:{block['line']}: the manifest does not evaluate:\n{r.stderr.strip()[-1500:]}")
            continue
        swift_blocks.append((k, block))
    products = libraries()
    targets = []
    for k, block in swift_blocks:
        name = target_name(block, k)
        folder = os.path.join(OUT, "Tests", name)
        os.makedirs(folder)
        with open(os.path.join(folder, "Block.swift"), "w") as f:
            f.write(source_of(block))
        deps = ", ".join(f'.product(name: "{p}", package: "Stroll")' for p in products)
        targets.append(f'        .testTarget(name: "{name}", dependencies: [{deps}]),')
    with open(os.path.join(OUT, "Package.swift"), "w") as f:
        f.write("// swift-tools-version: 6.1\nimport PackageDescription\n\nlet package = Package(\n"
                '    name: "DocBlocks",\n    platforms: [.macOS(.v15)],\n'
                f'    dependencies: [.package(name: "Stroll", path: {json.dumps(ROOT)})],\n'
                "    targets: [\n" + "\n".join(targets) + "\n    ]\n)\n")
    r = subprocess.run([SWIFT, "build", "--build-tests", "--package-path", OUT, "--scratch-path", os.path.join(ROOT, ".build"),
                        "--disable-build-manifest-caching"], capture_output=True, text=True)
    if r.returncode != 0:
        errors = [l for l in (r.stdout + r.stderr).splitlines() if "error:" in l]
        by_block = {}
        for line in errors:
            m = re.search(r"Tests/(Block\d+_[A-Za-z0-9_]+)/Block\.swift", line)
            by_block.setdefault(m.group(1) if m else None, []).append(line)
        for k, block in swift_blocks:
            found = by_block.get(target_name(block, k))
            if found:
                failures.append(f"{block['file']}:{block['line']}: does not compile:\n  " + "\n  ".join(sorted(set(found))[:8]))
        if not failures:
            failures.append("the blocks' package did not build:\n" + (r.stdout + r.stderr)[-2000:])
    return failures, len(swift_blocks), len(blocks) - len(swift_blocks)


def main():
    blocks = all_blocks()
    if "--selftest" in sys.argv:
        wrong = [dict(b) for b in blocks]
        target = next(k for k, b in enumerate(wrong) if "ReplayRecording(" in b["code"])
        wrong[target]["code"] = wrong[target]["code"].replace("ReplayRecording(", "ReplayRecordings(")
        failures, _, _ = compile_blocks(wrong)
        where = f"{wrong[target]['file']}:{wrong[target]['line']}"
        if not any(f.startswith(where) for f in failures):
            sys.exit(f"selftest: a block with ReplayRecording misspelt was not reported at {where}: {failures}")
        print(f"selftest: the misspelt block is reported: {failures[0].splitlines()[0]}")
    failures, compiled, manifests = compile_blocks(blocks)
    for f in failures:
        print("FAIL: " + f)
    by_file = {}
    for b in blocks:
        by_file[b["file"]] = by_file.get(b["file"], 0) + 1
    print("doc blocks: " + ", ".join(f"{n} in {f}" for f, n in sorted(by_file.items())))
    if failures:
        sys.exit(f"doc blocks: {len(failures)} of {len(blocks)} do not compile")
    print(f"doc blocks: all {len(blocks)} compile as written ({compiled} Swift blocks built, {manifests} manifest evaluated)")


if __name__ == "__main__":
    main()
