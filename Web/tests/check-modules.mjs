// .ci/web build's check of the modules: each imports nothing; the SIMD128 one holds SIMD
// instructions and the scalar one none (WebAssembly.validate with the SIMD feature is how the ES
// module chooses). Prints each module's size and exports.
import { readFile } from 'node:fs/promises';
import { exit } from 'node:process';

let failed = false;
for (const path of process.argv.slice(2)) {
    const bytes = await readFile(path);
    const module = await WebAssembly.compile(bytes);
    const imports = WebAssembly.Module.imports(module);
    const exports = WebAssembly.Module.exports(module);
    const instance = await WebAssembly.instantiate(module, {});
    const simd = instance.exports.skw_simd128();
    const wantsSimd = path.includes('simd128');
    console.log(`${path.split('/').pop()}: ${bytes.length} bytes, ${imports.length} imports, ${exports.length} exports, skw_simd128() = ${simd}`);
    if (imports.length > 0) { console.error(`  imports: ${imports.map((i) => `${i.module}.${i.name}`).join(', ')}`); failed = true; }
    if (simd !== (wantsSimd ? 1 : 0)) { console.error('  the wrong build'); failed = true; }
}
exit(failed ? 1 : 0);
