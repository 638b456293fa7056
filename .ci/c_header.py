#!/usr/bin/env python3
"""Writes (or, with --check, checks) spring_kernel.h, the C interface's plain C99 header.

usage: c_header.py COMPILER_HEADER SWIFT_SOURCES HEADER [--check]

The declarations come from COMPILER_HEADER, the header swiftc writes for the `@c` functions and
enums of SpringKernelC (-emit-clang-header-path): every function's name, return type, parameter
types and names, every enum's name, underlying type, constants and values. The doc comments come
from the Swift sources in SWIFT_SOURCES (the `///` block above each `@c` declaration and enum
case), as written there (Markdown, made ASCII). Nothing is listed by hand: a new `@c` function,
enum or case appears in the header when .ci/c-header is run.

What swiftc writes needs clang (SWIFT_ENUM, nullability, pragmas, vector typedefs); the header
written here is plain C99 and C++11: each enum an int32_t typedef with one `#define` per constant
(an int literal, which C and C++ take alike, with no cast), `extern "C"` for C++, include guards.

--check parses HEADER's declarations and compares them with the compiler's (names, parameter
types and names, return types, enum names and values), then the whole text (doc comments
included) with what this script writes; it fails on any difference and says what drifted.
Anything in the compiler's header this script cannot render plainly (a type it does not know, an
attribute, a declaration of another shape) stops it with an error rather than being dropped.
"""
import difflib
import os
import re
import sys
from dataclasses import dataclass, field

WIDTH = 110  # lines of declarations wrap after this many characters

# Types the plain header may use, and the standard header each needs (None: a keyword).
STANDARD_TYPES = {
    "void": None, "char": None, "signed char": None, "unsigned char": None, "short": None,
    "unsigned short": None, "int": None, "unsigned int": None, "long": None, "unsigned long": None,
    "long long": None, "unsigned long long": None, "float": None, "double": None,
    "bool": "stdbool.h", "size_t": "stddef.h", "ptrdiff_t": "stddef.h",
    "int8_t": "stdint.h", "int16_t": "stdint.h", "int32_t": "stdint.h", "int64_t": "stdint.h",
    "uint8_t": "stdint.h", "uint16_t": "stdint.h", "uint32_t": "stdint.h", "uint64_t": "stdint.h",
    "intptr_t": "stdint.h", "uintptr_t": "stdint.h",
}
# Qualifiers swiftc adds that plain C has no word for (clang's nullability); dropped.
DROPPED_QUALIFIERS = {"_Nullable", "_Nonnull", "_Null_unspecified", "_Nullable_result"}
# Function attributes swiftc writes after a prototype, and what the plain header says instead.
FUNCTION_ATTRIBUTES = {"SWIFT_NOEXCEPT": "noexcept", "SWIFT_WARN_UNUSED_RESULT": "nodiscard"}
# Doc comments are written in ASCII (a compiler reading the header in another code page, MSVC's
# C4819, sees no byte it cannot represent).
ASCII = {
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "--",
    "\u2212": "-", "\u2026": "...", "\u00d7": "x", "\u2264": "<=", "\u2265": ">=", "\u00b1": "+/-",
    "\u2192": "->", "\u00b7": ".", "\u221e": "infinity", "\u00a0": " ", "\u00b5": "u", "\u00b2": "^2",
}


class HeaderError(Exception):
    pass


@dataclass
class Constant:
    name: str
    value: int
    doc: list = field(default_factory=list)


@dataclass
class Enum:
    name: str
    underlying: str
    constants: list
    doc: list = field(default_factory=list)


@dataclass
class Parameter:
    type: str
    name: str


@dataclass
class Function:
    name: str
    returns: str
    parameters: list
    attributes: tuple  # a subset of FUNCTION_ATTRIBUTES' values, in that order
    doc: list = field(default_factory=list)


# -- the compiler's header ----------------------------------------------------------------------


def plain_type(text, enums, where):
    """A C type as swiftc writes it (`uint64_t const * _Nullable`), written plainly
    (`const uint64_t *`); an error for anything plain C99 cannot say."""
    tokens = re.findall(r"[A-Za-z_]\w*|\*", text)
    if "".join(tokens) != re.sub(r"\s+", "", text):
        raise HeaderError(f"{where}: type `{text}` has a token the plain header cannot write")
    tokens = [t for t in tokens if t not in DROPPED_QUALIFIERS]
    if "SWIFT_ENUM_TAG" in tokens[:1]:
        tokens = tokens[1:]
    base = []
    while tokens and tokens[0] not in ("const", "*"):
        base.append(tokens.pop(0))
    base = " ".join(base)
    if base not in STANDARD_TYPES and base not in enums:
        raise HeaderError(f"{where}: type `{text}`: `{base}` is neither a standard C type nor a `@c` enum")
    const = False
    if tokens[:1] == ["const"]:
        const = True
        tokens.pop(0)
    suffix = ""
    for token in tokens:
        if token == "*":
            suffix += "*"
        elif token == "const" and suffix:
            suffix += "const "
        else:
            raise HeaderError(f"{where}: type `{text}` has `{token}` where a pointer or const belongs")
    written = ("const " if const else "") + base
    return written + (" " + suffix.strip() if suffix else "")


def parse_compiler_header(text):
    """The enums and functions in the `extern "C"` block swiftc writes."""
    match = re.search(r'#if defined\(__cplusplus\)\nextern "C" \{\n#endif\n(.*?)\n#if defined\(__cplusplus\)\n\} // extern "C"', text, re.S)
    if not match:
        raise HeaderError('the compiler\'s header has no `extern "C"` block')
    block = match.group(1)
    enums, functions = {}, {}

    def enum(m):
        underlying, name, _ = m.group(1), m.group(2), m.group(3)
        if underlying not in STANDARD_TYPES:
            raise HeaderError(f"enum {name}: underlying type {underlying}")
        constants = []
        for line in m.group(4).split("\n"):
            if line.lstrip().startswith("///") or not line.strip():
                continue
            case = re.fullmatch(r"\s*(\w+) = (-?\d+),", line)
            if not case:
                raise HeaderError(f"enum {name}: cannot read `{line}`")
            constants.append(Constant(case.group(1), int(case.group(2))))
        enums[name] = Enum(name, underlying, constants)
        return ""

    rest = re.sub(r"typedef SWIFT_ENUM\((\w+), (\w+), (\w+)\) \{\n(.*?)\n\};", enum, block, flags=re.S)
    for line in rest.split("\n"):
        if not line.strip() or line.lstrip().startswith("///"):
            continue
        m = re.fullmatch(r"SWIFT_EXTERN (.+?)\b(\w+)\((.*)\)((?: \w+)*);", line)
        if not m:
            raise HeaderError(f"the compiler's header declares something this script cannot render: `{line}`")
        returns, name, parameters, attributes = m.groups()
        unknown = [a for a in attributes.split() if a not in FUNCTION_ATTRIBUTES]
        if unknown:
            raise HeaderError(f"{name}: attribute {unknown[0]}")
        if "(" in parameters:
            raise HeaderError(f"{name}: a parameter of function type")
        params = []
        if parameters.strip() not in ("", "void"):
            for index, parameter in enumerate(parameters.split(","), 1):
                p = re.fullmatch(r"\s*(.+?)\s*\b(\w+)\s*", parameter)
                if not p:
                    raise HeaderError(f"{name}: cannot read parameter {index} `{parameter}`")
                params.append(Parameter(plain_type(p.group(1), enums, f"{name} parameter {index}"), p.group(2)))
        functions[name] = Function(
            name, plain_type(returns, enums, f"{name} return type"), params,
            tuple(v for k, v in FUNCTION_ATTRIBUTES.items() if k in attributes.split()))
    declared = len(re.findall(r"^SWIFT_EXTERN ", text, re.M))
    if declared != len(functions):
        raise HeaderError(f"the compiler's header declares {declared} functions, {len(functions)} read")
    if len(re.findall(r"SWIFT_ENUM\(", block)) != len(enums):
        raise HeaderError("the compiler's header has an enum of a shape this script cannot read")
    return enums, functions


# -- the Swift sources' doc comments ------------------------------------------------------------


def swift_docs(directory):
    """Each `@c` declaration's and enum case's doc comment, by the C name the compiler gives it
    (`@c(name)` or the Swift name; an enum case is the enum's name followed by the case's)."""
    docs = {}
    for file in sorted(os.listdir(directory)):
        if not file.endswith(".swift"):
            continue
        path = os.path.join(directory, file)
        lines = open(path, encoding="utf-8").read().split("\n")
        pending, exported, enum = [], None, None
        for number, line in enumerate(lines, 1):
            stripped = line.strip()
            if stripped.startswith("///"):
                pending.append((stripped[3:][1:] if stripped[3:4] == " " else stripped[3:], f"{path}:{number}"))
                continue
            c = re.match(r"@c(?:\((\w+)\))?(?=\s|$)\s*(.*)", stripped)
            if c:
                exported = (c.group(1), pending)
                stripped = c.group(2)  # the declaration, if on the same line
            if exported and stripped:
                declaration = re.match(
                    r"(?:(?:public|package|final|nonisolated|@\w+(?:\([^)]*\))?)\s+)*(func|enum)\s+(\w+)", stripped)
                if declaration:
                    name = exported[0] or declaration.group(2)
                    docs[name] = exported[1]
                    enum = name if declaration.group(1) == "enum" else None
                    exported = None
                elif not stripped.startswith("@"):
                    exported = None
            elif enum:
                case = re.match(r"case\s+(\w+)\s*=", stripped)
                if case:
                    docs[enum + case.group(1)] = pending
                elif line.startswith("}"):
                    enum = None
            if not stripped.startswith("@"):
                pending = []
    return docs


def ascii_doc(lines, name):
    """A doc comment's lines, in ASCII, as `//` comment text."""
    if not lines:
        raise HeaderError(f"{name} has no doc comment in the Swift source")
    written = []
    for text, where in lines:
        text = "".join(ASCII.get(ch, ch) for ch in text).rstrip()
        other = [ch for ch in text if ord(ch) > 127]
        if other:
            raise HeaderError(f"{where}: `{other[0]}` (U+{ord(other[0]):04X}) in {name}'s doc comment has no ASCII "
                              "spelling in .ci/c_header.py (add one to ASCII)")
        if text.endswith("\\"):
            raise HeaderError(f"{where}: a doc line ending in a backslash would continue the comment")
        written.append(text)
    return written


def attach_docs(enums, functions, docs):
    for item in list(enums.values()) + list(functions.values()):
        item.doc = ascii_doc(docs.get(item.name, []), item.name)
    for enum in enums.values():
        for constant in enum.constants:
            constant.doc = ascii_doc(docs.get(constant.name, []), constant.name)


# -- the plain header ---------------------------------------------------------------------------


PREAMBLE = """\
// spring_kernel.h: the C interface of SpringKernel (libSpringKernelC).
//
// Generated by .ci/c-header from the `@c` functions and enums of Sources/SpringKernelC: the
// declarations are those swiftc writes for them, the comments those of the Swift source. Do not
// edit it: edit the Swift source and run .ci/c-header (CI's `.ci/c-header --check` fails when
// this file and the compiler's declarations differ).
//
// Plain C99, and C++11 (extern "C"): each enum is an int32_t typedef whose constants are
// `#define`s of int literals, which C and C++ take alike.
//
// Handles are uint64_t. A bank id: serial number (bits 63-16, never reused) and registry slot
// (bits 15-0). A spring or mask handle, never 0:
//   bits 63-48 bank slot . 47 kind (0 spring, 1 mask) . 46-30 generation tag . 29-0 index
// A removed spring's or mask's handle never names anything again (a record is retired before its
// tag repeats); a destroyed bank's is refused by the banks made within 2^32 creations after it.
// Every list count is at most 2^30 (a bank's most springs), checked before the list is read.
"""

ATTRIBUTES_OPEN = """\
// SPRING_KERNEL_NODISCARD asks for a warning when a returned status is dropped, where a compiler
// offers one that a `(void)` cast silences; SPRING_KERNEL_NOEXCEPT tells C++ the calls never
// throw. Both are undefined again at the end of this file.
#if defined(__cplusplus)
#  if __cplusplus >= 201703L
#    define SPRING_KERNEL_NODISCARD [[nodiscard]]
#  elif defined(__clang__)
#    define SPRING_KERNEL_NODISCARD __attribute__((warn_unused_result))
#  else
#    define SPRING_KERNEL_NODISCARD
#  endif
#  define SPRING_KERNEL_NOEXCEPT noexcept
#elif defined(__clang__)
#  define SPRING_KERNEL_NODISCARD __attribute__((warn_unused_result))
#  define SPRING_KERNEL_NOEXCEPT
#else
#  define SPRING_KERNEL_NODISCARD
#  define SPRING_KERNEL_NOEXCEPT
#endif
"""

ATTRIBUTES_CLOSE = """\
#undef SPRING_KERNEL_NODISCARD
#undef SPRING_KERNEL_NOEXCEPT
"""

ATTRIBUTE_MACROS = {"nodiscard": "SPRING_KERNEL_NODISCARD", "noexcept": "SPRING_KERNEL_NOEXCEPT"}


def declarator(type_, name):
    """`float *out` and `double dt`: a type and a name, the `*` against the name."""
    return f"{type_}{'' if type_.endswith('*') else ' '}{name}"


def comment(lines, indent=""):
    return "".join(f"{indent}///{' ' + line if line else ''}\n" for line in lines)


def prototype(function):
    """`[NODISCARD] returns name(parameters) [NOEXCEPT];` on one line, or, past WIDTH characters,
    with the parameters on the lines after it, indented, as many to a line as fit."""
    head = ""
    if "nodiscard" in function.attributes:
        head = ATTRIBUTE_MACROS["nodiscard"] + " "
    head += declarator(function.returns, function.name) + "("
    tail = ")" + (" " + ATTRIBUTE_MACROS["noexcept"] if "noexcept" in function.attributes else "") + ";"
    parameters = [declarator(p.type, p.name) for p in function.parameters] or ["void"]
    one_line = head + ", ".join(parameters) + tail
    if len(one_line) <= WIDTH:
        return one_line + "\n"
    lines, line = [head], "   "
    for index, parameter in enumerate(parameters):
        piece = parameter + ("," if index < len(parameters) - 1 else tail)
        if line != "   " and len(line) + 1 + len(piece) > WIDTH:
            lines.append(line)
            line = "   "
        line += " " + piece
    lines.append(line)
    return "\n".join(lines) + "\n"


def render(enums, functions):
    includes = set()
    for type_ in [e.underlying for e in enums.values()] + [
            t for f in functions.values() for t in [f.returns] + [p.type for p in f.parameters]]:
        base = re.sub(r"\bconst\b|\*", "", type_).strip()
        if STANDARD_TYPES.get(base):
            includes.add(STANDARD_TYPES[base])
    out = [PREAMBLE, "#ifndef SPRING_KERNEL_H\n#define SPRING_KERNEL_H\n\n"]
    out += [f"#include <{name}>\n" for name in sorted(includes)]
    out += ["\n", ATTRIBUTES_OPEN, '\n#if defined(__cplusplus)\nextern "C" {\n#endif\n']
    for enum in enums.values():
        out += ["\n", comment(enum.doc), f"typedef {enum.underlying} {enum.name};\n"]
        for constant in enum.constants:
            value = str(constant.value) if constant.value >= 0 else f"({constant.value})"
            out += [comment(constant.doc), f"#define {constant.name} {value}\n"]
    for function in sorted(functions.values(), key=lambda f: f.name):
        out += ["\n", comment(function.doc), prototype(function)]
    out += ['\n#if defined(__cplusplus)\n} // extern "C"\n#endif\n\n', ATTRIBUTES_CLOSE, "\n#endif // SPRING_KERNEL_H\n"]
    return "".join(out)


# -- the checked-in header's declarations -------------------------------------------------------


def parse_plain_header(text):
    """The declarations of a header this script wrote (enums, constants, prototypes), for --check."""
    code = re.sub(r"//[^\n]*", "", text)
    enums, functions, current = {}, {}, None
    for m in re.finditer(r"^typedef (\w+) (\w+);|^#define (\w+) \(?(-?\d+)\)?$", code, re.M):
        if m.group(1):
            current = enums[m.group(2)] = Enum(m.group(2), m.group(1), [])
        elif current:
            current.constants.append(Constant(m.group(3), int(m.group(4))))
    body = re.sub(r"^#.*$", "", code, flags=re.M)
    for m in re.finditer(r"^(SPRING_KERNEL_NODISCARD )?([\w ]+?(?: ?\*+)?) ?(\w+)\(([^)]*)\)(?: (SPRING_KERNEL_NOEXCEPT))?;", body, re.M):
        nodiscard, returns, name, parameters, noexcept = m.groups()
        params = []
        if parameters.strip() != "void":
            for parameter in parameters.split(","):
                p = re.fullmatch(r"\s*(.+?)\s*\b(\w+)\s*", parameter, re.S)
                params.append(Parameter(re.sub(r"\s+", " ", re.sub(r"\s*\*", " *", p.group(1))).replace("* *", "**").strip(), p.group(2)))
        functions[name] = Function(name, re.sub(r"\s+", " ", returns).strip(), params,
                                   tuple(a for a, on in (("noexcept", noexcept), ("nodiscard", nodiscard)) if on))
    return enums, functions


def describe(function):
    return f"{declarator(function.returns, function.name)}({', '.join(declarator(p.type, p.name) for p in function.parameters)})"


def drift(expected, actual):
    """What differs between the compiler's declarations and the header's, one line each."""
    (enums, functions), (header_enums, header_functions) = expected, actual
    problems = []
    for name in sorted(set(enums) | set(header_enums)):
        e, h = enums.get(name), header_enums.get(name)
        if not h:
            problems.append(f"enum {name}: declared by the compiler, missing from the header")
            continue
        if not e:
            problems.append(f"enum {name}: in the header, not declared by the compiler")
            continue
        if e.underlying != h.underlying:
            problems.append(f"enum {name}: the compiler's is {e.underlying}, the header's {h.underlying}")
        ev, hv = {c.name: c.value for c in e.constants}, {c.name: c.value for c in h.constants}
        for constant in sorted(set(ev) | set(hv)):
            if constant not in hv:
                problems.append(f"{constant} = {ev[constant]}: declared by the compiler, missing from the header")
            elif constant not in ev:
                problems.append(f"{constant} = {hv[constant]}: in the header, not declared by the compiler")
            elif ev[constant] != hv[constant]:
                problems.append(f"{constant}: the compiler's value is {ev[constant]}, the header's {hv[constant]}")
    for name in sorted(set(functions) | set(header_functions)):
        e, h = functions.get(name), header_functions.get(name)
        if not h:
            problems.append(f"{name}: declared by the compiler ({describe(e)}), missing from the header")
        elif not e:
            problems.append(f"{name}: in the header ({describe(h)}), not declared by the compiler")
        else:
            if e.returns != h.returns:
                problems.append(f"{name}: returns {e.returns} in the compiler's header, {h.returns} in the header")
            if len(e.parameters) != len(h.parameters):
                problems.append(f"{name}: {len(e.parameters)} parameters in the compiler's header, {len(h.parameters)} in the header")
            for index, (ep, hp) in enumerate(zip(e.parameters, h.parameters), 1):
                if (ep.type, ep.name) != (hp.type, hp.name):
                    problems.append(f"{name}: parameter {index} is `{ep.type} {ep.name}` in the compiler's header, `{hp.type} {hp.name}` in the header")
            if sorted(e.attributes) != sorted(h.attributes):
                problems.append(f"{name}: attributes {sorted(e.attributes)} in the compiler's header, {sorted(h.attributes)} in the header")
    return problems


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] != "--check"):
        sys.exit(__doc__.split("\n\n")[1])
    compiler_header, sources, header = argv[1:4]
    check = len(argv) == 5
    try:
        enums, functions = parse_compiler_header(open(compiler_header, encoding="utf-8").read())
        attach_docs(enums, functions, swift_docs(sources))
    except HeaderError as error:
        sys.exit(f"c_header.py: {error}")
    text = render(enums, functions)
    counts = (f"{len(functions)} functions, {len(enums)} enums, "
              f"{sum(len(e.constants) for e in enums.values())} constants")
    if not check:
        with open(header, "w", encoding="ascii") as f:
            f.write(text)
        print(f"wrote {header} ({counts})")
        return
    checked_in = open(header, encoding="utf-8").read()
    problems = drift((enums, functions), parse_plain_header(checked_in))
    if problems:
        print(f"{header}: its declarations differ from the compiler's ({len(problems)}):", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
    if checked_in != text:
        sys.stderr.writelines(difflib.unified_diff(
            checked_in.splitlines(True), text.splitlines(True), header, "generated from the compiler's header"))
        print(f"{header} is not what .ci/c-header writes now"
              f"{'' if problems else ' (the declarations agree: comments or layout differ)'}: run .ci/c-header and commit it",
              file=sys.stderr)
        sys.exit(1)
    if problems:  # the text matched but the parse did not: this script's own reader is wrong
        sys.exit(f"c_header.py: {header} is what this script writes, yet its reader found the differences above")
    print(f"{header} declares what the compiler declares ({counts})")


if __name__ == "__main__":
    main(sys.argv)
