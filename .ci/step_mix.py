#!/usr/bin/env python3
"""The instruction mix of the kernel's step loops in a disassembled aarch64 or wasm32 object.

Usage: step_mix.py DISASSEMBLY   (llvm-objdump -d --no-show-raw-insn of a program that steps both
formats). Prints, per format, how many of the step's instructions work on vector registers (or,
in WebAssembly, are 128-bit SIMD instructions) and the most frequent ones; exits 1 if a format's
step is not vector code (called by .ci/cross check).
"""
import collections
import re
import sys

# The object is built with a section per function: objdump prints "Disassembly of section
# .text.SYMBOL:" before each (its symbol lines name aarch64's mapping symbol `$x`), then
# "  offset:\tmnemonic\toperands".
# A WebAssembly object has one code section: each function starts "OFFSET <SYMBOL>:", and its
# SIMD instructions name their lane shape (f32x4.mul, i32x4.add, v128.load...).
functions = {}
name = None
lines = open(sys.argv[1]).readlines()
wasm = any("file format wasm" in line for line in lines[:5])
for line in lines:
    header = re.match(r'^[0-9a-f]+ <(.*)>:$', line) if wasm else re.match(r'^Disassembly of section \.text\.(.*):$', line)
    if header:
        name = header.group(1)
        functions.setdefault(name, [])
    elif name and '\t' in line:
        parts = line.rstrip('\n').split('\t')
        if len(parts) >= 2 and parts[1].strip():
            functions[name].append((parts[1].strip(), parts[2] if len(parts) > 2 else ''))

WASM_SIMD = re.compile(r'^(v128|[fi](8x16|16x8|32x4|64x2))\.')
VECTOR = re.compile(r'\bv\d+\.(4s|2d|2s|16b|8b|8h|4h)\b|\bq\d+\b')
ok = True
for label, lanes in (("float32", "Float32"), ("q16.16", "Q16")):
    # The step's loops, specialised for the format into the program (as into any client): the
    # plan's advance, which inlines the format's bundle loop, and the format's own advance. The
    # format's name after the generic signature is mangled whole (12Float32LanesO) or, where an
    # earlier word of the name is reused (RetargetingLanes), as a word and a substitution
    # (07Float32O0O).
    format_name = re.compile(r'^\d+' + lanes + r'(Lanes)?O')
    chosen = [n for n in functions
              if ("StepExecutionO7advance_7bundles" in n and format_name.match(n.split("RzlFZAA")[-1]))
              or re.match(r'^\$e12SpringKernel\d+' + lanes + r'LanesO7advance_7bundles', n)]
    ops = collections.Counter()
    vector_ops = collections.Counter()
    for n in chosen:
        for op, operands in functions[n]:
            ops[op] += 1
            lanes_used = VECTOR.search(operands)
            if lanes_used:
                vector_ops["%s %s" % (op, lanes_used.group(1) or "q")] += 1
            elif WASM_SIMD.match(op):
                vector_ops[op] += 1
    vector = sum(vector_ops.values())
    shown = sorted(vector_ops.items(), key=lambda kv: (-kv[1], kv[0]))[:12]
    print("%s step (%d functions): %d of %d instructions on vector registers: %s" % (
        label, len(chosen), vector, sum(ops.values()), ", ".join("%s %d" % kv for kv in shown)))
    if not chosen or vector < 16:
        ok = False
        print("%s: the step loop is not vector code" % label)
sys.exit(0 if ok else 1)
