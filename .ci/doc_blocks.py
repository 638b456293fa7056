#!/usr/bin/env python3
"""The code blocks of the docs, as programs: every ```swift and ```c block of README.md, of the
DocC articles (Sources/*/*.docc/*.md) and of the doc comments (`///`) of the modules that have a
catalog (SpringKernel, MotionInteractions), extracted into a package that depends on the checkout.

usage: doc_blocks.py generate CHECKOUT OUTPUT     writes the package OUTPUT and OUTPUT/blocks.json
       doc_blocks.py blame OUTPUT LOG            names the blocks the build errors in LOG are in

A block is a whole program (main.swift or main.c as it stands), unless the line right before its
fence is a marker naming a harness:

    <!-- fragment: HARNESS -->

(an HTML comment: GitHub and DocC show nothing for it; in a doc comment, `/// <!-- ... -->`). The harness, Tests/DocBlocks/HARNESS.swift
or HARNESS.c, is a small program with one line `// DOC BLOCK` (Swift) or `/* DOC BLOCK */` (C)
where the block goes: it declares what the fragment uses and, after it, may check what the
fragment's comments promise. Every line of the generated sources says where it came from
(#sourceLocation, #line), so a compiler error names the Markdown file and line, or the harness's.

Each block becomes one executable target, Doc_<file>_<line>: Swift ones depend on the SpringKernel
and MotionInteractions products, C ones on SpringKernelCStatic with spring_kernel.h on the include
path (C99, -Wall -Wextra -Werror -pedantic). blocks.json lists them for .ci/doc-blocks, which builds
the package once and runs every target. A marker naming a missing harness, a harness no block
uses, a harness without exactly one DOC BLOCK line, or a malformed marker stops the generation.
"""
import json
import os
import re
import sys

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+)(?P<info>[^`]*)$")  # any indent: a fence in a list item too
MARKER = re.compile(r"^\s*<!-- fragment: (?P<harness>[a-z0-9-]+) -->\s*$")
LANGUAGES = {"swift": "swift", "c": "c"}
SLOT = {"swift": "// DOC BLOCK", "c": "/* DOC BLOCK */"}
HARNESSES = "Tests/DocBlocks"


class DocBlockError(Exception):
    pass


def documented_files(checkout):
    """README.md, each module's DocC articles, and the Swift sources of the modules that have a
    catalog (their doc comments are the catalog's symbol pages)."""
    files = ["README.md"]
    sources = os.path.join(checkout, "Sources")
    for module in sorted(os.listdir(sources)):
        catalogs = [entry for entry in sorted(os.listdir(os.path.join(sources, module))) if entry.endswith(".docc")]
        for catalog in catalogs:
            folder = os.path.join("Sources", module, catalog)
            files += [os.path.join(folder, name) for name in sorted(os.listdir(os.path.join(checkout, folder))) if name.endswith(".md")]
        if catalogs:
            for root, folders, names in sorted(os.walk(os.path.join(sources, module))):
                folders[:] = sorted(folder for folder in folders if not folder.endswith(".docc"))
                files += [os.path.relpath(os.path.join(root, name), checkout) for name in sorted(names) if name.endswith(".swift")]
    return files


DOC_COMMENT = re.compile(r"^\s*/// ?(?P<text>.*)$")


def markdown_lines(checkout, path):
    """The file's lines as Markdown, numbered as in the file: a Swift source's doc comments (the
    text after `///`), None for its other lines, which no block or marker spans."""
    lines = open(os.path.join(checkout, path), encoding="utf-8").read().split("\n")
    if not path.endswith(".swift"):
        return lines
    return [match.group("text") if match else None for match in map(DOC_COMMENT.match, lines)]


def blocks_of(checkout, path):
    """The swift and c blocks of one file: language, first line of code (1-based), code, harness."""
    lines = markdown_lines(checkout, path)
    found, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index]) if lines[index] is not None else None
        if not opening:
            if lines[index] is not None and lines[index].lstrip().startswith("<!-- fragment"):
                if not MARKER.match(lines[index]):
                    raise DocBlockError("%s:%d: a malformed marker (write <!-- fragment: HARNESS -->)" % (path, index + 1))
                if index + 1 >= len(lines) or lines[index + 1] is None or not FENCE.match(lines[index + 1]):
                    raise DocBlockError("%s:%d: a marker must be the line right before a code block's fence" % (path, index + 1))
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end] is not None and not re.match(r"^\s*%s\s*$" % opening.group("fence"), lines[end]):
            end += 1
        if end == len(lines) or lines[end] is None:
            raise DocBlockError("%s:%d: a code block that is never closed" % (path, index + 1))
        words = opening.group("info").strip().split()
        language = LANGUAGES.get(words[0].lower()) if words else None
        marker = MARKER.match(lines[index - 1]) if index > 0 and lines[index - 1] is not None else None
        if language:
            indent = len(opening.group("indent"))
            code = [line[indent:] if line[:indent].strip() == "" else line.lstrip() for line in lines[index + 1:end]]
            found.append({"file": path, "fence": index + 1, "first": index + 2, "last": end, "language": language,
                          "harness": marker.group("harness") if marker else None, "code": code})
        elif marker:
            raise DocBlockError("%s:%d: a fragment marker on a block that is neither swift nor c" % (path, index))
        index = end + 1
    return found


def swift_source(block, harness_path, harness_lines):
    """main.swift: the harness around the block (or the block alone), every line traced to its file."""
    def traced(path, first, lines):
        return ['#sourceLocation(file: "%s", line: %d)' % (path, first)] + lines + ["#sourceLocation()"]
    if harness_lines is None:
        return traced(block["file"], block["first"], block["code"])
    slot = harness_lines.index(SLOT["swift"])
    return (traced(harness_path, 1, harness_lines[:slot]) + traced(block["file"], block["first"], block["code"])
            + traced(harness_path, slot + 2, harness_lines[slot + 1:]))


def c_source(block, harness_path, harness_lines):
    def traced(path, first, lines):
        return ['#line %d "%s"' % (first, path)] + lines
    if harness_lines is None:
        return traced(block["file"], block["first"], block["code"])
    slot = harness_lines.index(SLOT["c"])
    return (traced(harness_path, 1, harness_lines[:slot]) + traced(block["file"], block["first"], block["code"])
            + traced(harness_path, slot + 2, harness_lines[slot + 1:]))


def generate(checkout, output):
    checkout = os.path.abspath(checkout)
    blocks = [block for path in documented_files(checkout) for block in blocks_of(checkout, path)]
    used, used_targets = {}, set()
    for block in blocks:
        name = re.sub(r"[^A-Za-z0-9]", "_", os.path.splitext(os.path.basename(block["file"]))[0])
        block["target"] = "Doc_%s_%d" % (name, block["fence"])
        if block["target"] in used_targets:
            raise DocBlockError("%s:%d: two blocks would be the target %s" % (block["file"], block["fence"], block["target"]))
        used_targets.add(block["target"])
        if block["harness"]:
            harness_path = "%s/%s.%s" % (HARNESSES, block["harness"], block["language"])
            if not os.path.exists(os.path.join(checkout, harness_path)):
                raise DocBlockError("%s:%d: the fragment's harness %s does not exist" % (block["file"], block["fence"] - 1, harness_path))
            harness_lines = open(os.path.join(checkout, harness_path), encoding="utf-8").read().rstrip("\n").split("\n")
            slots = [line for line in harness_lines if line.strip() == SLOT[block["language"]]]
            if len(slots) != 1 or SLOT[block["language"]] not in harness_lines:
                raise DocBlockError("%s: needs exactly one line '%s' (unindented), where the block goes" % (
                    harness_path, SLOT[block["language"]]))
            used[harness_path] = True
            block["harness_path"] = harness_path
        else:
            harness_path, harness_lines = None, None
        source = (swift_source if block["language"] == "swift" else c_source)(block, harness_path, harness_lines)
        folder = os.path.join(output, "Sources", block["target"])
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "main." + block["language"]), "w", encoding="utf-8") as out:
            out.write("\n".join(source) + "\n")
    unused = sorted(set("%s/%s" % (HARNESSES, name) for name in os.listdir(os.path.join(checkout, HARNESSES))
                        if name.endswith((".swift", ".c"))) - set(used))
    if unused:
        raise DocBlockError("harnesses no block names (remove them, or mark the block): %s" % ", ".join(unused))

    identity = os.path.basename(checkout).lower()
    include = os.path.join(checkout, "Sources/SpringKernelC/include")
    targets = []
    for block in blocks:
        if block["language"] == "swift":
            targets.append('        .executableTarget(name: "%s", dependencies: [\n'
                           '            .product(name: "SpringKernel", package: "%s"), .product(name: "MotionInteractions", package: "%s"),\n'
                           '        ], swiftSettings: swift),' % (block["target"], identity, identity))
        else:
            targets.append('        .executableTarget(name: "%s", dependencies: [.product(name: "SpringKernelCStatic", package: "%s")],\n'
                           '                          cSettings: c),' % (block["target"], identity))
    manifest = """// swift-tools-version:6.2
// Generated by .ci/doc_blocks.py: one executable per code block of the docs (blocks.json).
import PackageDescription

let swift: [SwiftSetting] = [.swiftLanguageMode(.v6), .treatAllWarnings(as: .error)]
let c: [CSetting] = [.unsafeFlags(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", %s])]

let package = Package(
    name: "DocBlocks",
    dependencies: [.package(path: %s)],
    targets: [
%s
    ]
)
""" % (json.dumps(include), json.dumps(checkout), "\n".join(targets))
    with open(os.path.join(output, "Package.swift"), "w", encoding="utf-8") as out:
        out.write(manifest)
    with open(os.path.join(output, "blocks.json"), "w", encoding="utf-8") as out:
        json.dump([{key: block[key] for key in ("file", "fence", "first", "last", "language", "harness", "target")} for block in blocks],
                  out, indent=1)
    whole = sum(1 for block in blocks if not block["harness"])
    print("%d code blocks (%d swift, %d c): %d whole programs, %d fragments in %d harnesses (%s)" % (
        len(blocks), sum(b["language"] == "swift" for b in blocks), sum(b["language"] == "c" for b in blocks),
        whole, len(blocks) - whole, len(used), ", ".join(sorted(os.path.basename(p) for p in used))))


def blame(output, log):
    """Each block a compiler error of LOG points into (its file, between its fences), once."""
    blocks = json.load(open(os.path.join(output, "blocks.json")))
    named = []
    for line in open(log, encoding="utf-8", errors="replace"):
        where = re.match(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error", line)
        if not where:
            continue
        path, number = where.group("file"), int(where.group("line"))
        for block in blocks:
            harness = block["harness"] and path.endswith("%s/%s.%s" % (HARNESSES, block["harness"], block["language"]))
            inside = path.endswith(block["file"]) and block["first"] <= number <= block["last"]
            if (inside or harness) and block not in named:
                named.append(block)
                print("%s:%d: the ```%s block%s does not build (%s)" % (
                    block["file"], block["fence"], block["language"],
                    " (fragment, harness %s)" % block["harness"] if block["harness"] else "", line.strip()))
    return named


if __name__ == "__main__":
    try:
        if len(sys.argv) == 4 and sys.argv[1] == "generate":
            generate(sys.argv[2], sys.argv[3])
        elif len(sys.argv) == 4 and sys.argv[1] == "blame":
            blame(sys.argv[2], sys.argv[3])
        else:
            sys.exit(__doc__)
    except DocBlockError as error:
        sys.exit("doc_blocks.py: %s" % error)
