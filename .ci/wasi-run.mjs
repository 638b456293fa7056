// Runs a WASI command module (preview 1) under Node's WebAssembly engine, which has the 128-bit
// SIMD proposal that wasmkit lacks: node .ci/wasi-run.mjs PROGRAM.wasm. Used by .ci/cross.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, exit } from 'node:process';

const wasi = new WASI({ version: 'preview1', args: [argv[2]], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(argv[2]));
const imports = wasi.getImportObject ? wasi.getImportObject() : { wasi_snapshot_preview1: wasi.wasiImport };
const instance = await WebAssembly.instantiate(module, imports);
exit(wasi.start(instance));
