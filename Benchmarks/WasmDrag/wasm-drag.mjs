// The drag in the browser's engine: the kernel built for wasm32 with SIMD128
// (Benchmarks/WasmDrag/WasmDrag.swift) against JavaScript peers, in one Node run, on springs whose
// targets move every frame (issue 33). Run by .ci/wasm-drag:
//
//   node wasm-drag.mjs PROGRAM.wasm [--sizes 10000,100000,1000000] [--repeats 9] [--least 40] [--json FILE] [--commit ID]
//
// Contenders, each a frame of N springs at 60 Hz (ns per spring-frame, the targets computed
// outside the timed part):
//   wasm drag (storage)  every target written in storage order (retarget(in:to:)), then the step
//   wasm drag (one call) the same in one call, the targets written by the step itself
//                        (step(dt:retargetingIn:to:): one pass over the lanes)
//   wasm drag (handles)  every target by handle in one bulk call (retarget(_:to:)), then the step
//   wasm drag (C)        the C interface: sk_bank_retarget_f32 by handle, then sk_bank_step
//   wasm plain           the step alone, of as many springs that keep moving (decay time 200 s,
//                        started again before each repeat)
//   JS object            one object per spring stepping the closed form (exp, sin, cos each frame,
//                        re-anchored on its new target each frame, as a JS animation library does)
//   JS SoA               one loop over Float32Arrays applying the exact 2x2 propagator
// The springs: spring-bench drag's (the default spring: tension 342, friction 30, mass 1,
// tolerance 0.5; spring i at anchor ((i * 7919) % 2000) - 1000, its target the anchor plus
// (least + 10 g) sin(2 pi (frame / 60 + 5 g / 16)), g = i % 16). The judged path has least 40
// (--least); spring-bench drag's own, least 10, is measured beside it (the storage-order drag and
// the JS object loop), where the slowest springs come to rest at the turns and the rests are real
// work (a rest, a layout change, a wake the next frame). Repeats interleave the contenders
// (the order turned each repeat); figures are medians over repeats, ratios medians of the repeats'
// ratios with a 95 % bootstrap interval.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { WASI } from 'node:wasi';
import { argv, exit, version } from 'node:process';
import { performance } from 'node:perf_hooks';
import { anchor, shifts, Spring, soaStep } from '../../Web/js-peers.mjs';

const options = { sizes: [10_000, 100_000, 1_000_000], repeats: 9, json: null, commit: null, least: 40 };
const program = argv[2];
for (let i = 3; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (name === '--sizes') options.sizes = value.split(',').map(Number);
    else if (name === '--repeats') options.repeats = Number(value);
    else if (name === '--json') options.json = value;
    else if (name === '--commit') options.commit = value;
    else if (name === '--least') options.least = Number(value);
    else { console.error(`wasm-drag: unknown option ${name}`); exit(2); }
}
if (!program || options.sizes.some((n) => !(n >= 16)) || !(options.repeats >= 3)) {
    console.error('usage: node wasm-drag.mjs PROGRAM.wasm [--sizes 10000,100000,1000000] [--repeats 9] [--json FILE]');
    exit(2);
}

const dt = 1 / 60;
const tension = 342, friction = 30, mass = 1, tolerance = 0.5;
// The judged ratios at 100K springs (issue 33).
const bounds = { size: 100_000, drag: 20, plain: 100 };

// --- The kernel, as WebAssembly ---
const wasi = new WASI({ version: 'preview1', args: [program], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(program));
const imports = wasi.getImportObject ? wasi.getImportObject() : { wasi_snapshot_preview1: wasi.wasiImport };
const instance = await WebAssembly.instantiate(module, imports);
if (wasi.start(instance) !== 0) { console.error('wasm-drag: the program\'s _start failed'); exit(1); }
const k = instance.exports;
const memory = k.memory;
const f32 = (address, count) => new Float32Array(memory.buffer, address, count);
const u32 = (address, count) => new Uint32Array(memory.buffer, address, count);
function check(status, what) {
    if (status < 0) { console.error(`wasm-drag: ${what} failed (${status})`); exit(1); }
    return status;
}

// The pointer's offset for each of the 16 groups at `frame`: (least + 10 g) pt at 1 Hz, each group
// in its own phase. The judged path: least 40 (40-190 pt, the brief's); spring-bench drag's own
// (least 10, 10-160 pt: its slowest groups come near rest at the turns, and rests come due) is
// measured beside it.
const benchLeast = 10;

// A wasm contender: `kind` 0 drag bank (storage or handles), 1 plain bank, 2 C interface bank.
function wasmContender(name, n, kind, call, least = options.least) {
    const bank = check(k.wd_create(n, kind), `${name}: wd_create(${n})`);
    const anchors = new Float64Array(n);
    for (let i = 0; i < n; i++) anchors[i] = anchor(i);
    const shift = new Float64Array(16);
    let ids = null, frame = 0;
    const storage = call === k.wd_drag_storage || call === k.wd_drag_storage_step;
    return {
        name, frames: 4,
        prepareRepeat() { if (kind === 1) check(k.wd_restart(bank), `${name}: wd_restart`); },
        // Untimed: this frame's targets, written into the bank's buffer in the order the call takes.
        prepare() {
            frame += 1;
            if (kind === 1) return;
            shifts(frame, shift, least);
            const targets = f32(k.wd_targets(bank), n);
            if (storage) {
                if (check(k.wd_prepare(bank), `${name}: wd_prepare`) === 1 || ids === null || ids.buffer !== memory.buffer) {
                    ids = u32(k.wd_ids(bank), n).slice();
                }
                for (let j = 0; j < n; j++) { const i = ids[j]; targets[j] = anchors[i] + shift[i & 15]; }
            } else {
                for (let i = 0; i < n; i++) targets[i] = anchors[i] + shift[i & 15];
            }
        },
        frame() { return call(bank); },
        rests() { return kind === 1 ? 0 : k.wd_rests(bank); },
        values() {
            const out = k.wd_buffer(n);
            check(out === 0 ? -1 : k.wd_values(bank, out), `${name}: wd_values`);
            return f32(out, n).slice();
        },
        dispose() { k.wd_destroy(bank); },
    };
}

// The JS peers (Web/js-peers.mjs: one object per spring, and the struct-of-arrays loop) are the
// browser benchmark's.

// The JS peers read this frame's targets (natural order) from an array filled outside the timed part.
function jsTargets(n, least) {
    const anchors = new Float64Array(n);
    for (let i = 0; i < n; i++) anchors[i] = anchor(i);
    const shift = new Float64Array(16);
    let frame = 0;
    return (out) => {
        frame += 1;
        shifts(frame, shift, least);
        for (let i = 0; i < n; i++) out[i] = anchors[i] + shift[i & 15];
    };
}

function objectContender(n, least = options.least, name = 'JS object') {
    const springs = [];
    for (let i = 0; i < n; i++) springs.push(new Spring(anchor(i), anchor(i), 0, tension, friction, mass, tolerance));
    const targets = new Float64Array(n);
    const fill = jsTargets(n, least);
    return {
        name, frames: 1,
        prepareRepeat() {},
        prepare() { fill(targets); },
        frame() {
            for (let i = 0; i < n; i++) { const spring = springs[i]; spring.setTarget(targets[i]); spring.step(dt); }
            return 0;
        },
        rests() { return 0; },
        values() { return Float64Array.from(springs, (spring) => spring.position); },
        dispose() { springs.length = 0; },
    };
}

function soaContender(n) {
    const position = new Float32Array(n), velocity = new Float32Array(n), targets = new Float32Array(n);
    for (let i = 0; i < n; i++) position[i] = anchor(i);
    // The exact propagator of (x - target, v) over dt, for the default spring (under-damped).
    const step = soaStep(tension, friction, mass, dt);
    const fill = jsTargets(n, options.least);
    return {
        name: 'JS SoA', frames: 1,
        prepareRepeat() {},
        prepare() { fill(targets); },
        frame() {
            step(position, velocity, targets, n);
            return 0;
        },
        rests() { return 0; },
        values() { return position.slice(); },
        dispose() {},
    };
}

// An empty frame: what the timing itself costs a frame (subtracted from the CPU times).
const empty = { name: 'empty', frames: 4, prepareRepeat() {}, prepare() {}, frame() { return 0; }, rests() { return 0; }, dispose() {} };

// Runs `frames` frames of a contender; returns the seconds of the timed parts, [wall, CPU]. CPU
// time is the process's (getrusage), read around each frame's call: a time slice the scheduler
// gives another process is not the contender's cost (this machine kind is shared); the JS peers'
// engine threads (JIT, GC) count for them.
function run(contender, frames) {
    let wall = 0, cpu = 0;
    for (let f = 0; f < frames; f++) {
        contender.prepare();
        const before = process.cpuUsage();
        const start = performance.now();
        const status = contender.frame();
        const end = performance.now();
        const after = process.cpuUsage();
        wall += end - start;
        cpu += after.user - before.user + after.system - before.system;
        if (status !== 0) check(status < 0 ? status : -status, `${contender.name}: frame`);
    }
    return [wall / 1e3, cpu / 1e6];
}

function pathName(least) { return `${least}-${least + 150} pt`; }

const median = (xs) => { const s = [...xs].sort((a, b) => a - b), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
// A 95 % percentile-bootstrap interval of the median (seeded: the same resamples every run).
function medianInterval(xs) {
    let seed = 0x9e3779b9;
    const random = () => { seed = (seed * 1664525 + 1013904223) >>> 0; return seed / 2 ** 32; };
    const medians = [];
    for (let b = 0; b < 2000; b++) medians.push(median(xs.map(() => xs[Math.floor(random() * xs.length)])));
    medians.sort((a, b) => a - b);
    return [medians[Math.floor(0.025 * medians.length)], medians[Math.ceil(0.975 * medians.length) - 1]];
}

// First, that the contenders move the same springs: 5000 springs (not a multiple of a bundle),
// 150 frames of drag each, every value within the tolerance of the JS object's (they differ by
// float32 rounding, and where a rest snaps a spring to its target a frame apart).
const agreement = (() => {
    const n = 5000, frames = 150, result = {};
    for (const least of [options.least, benchLeast]) {
        const reference = objectContender(n, least), path = least === options.least ? '' : `, ${pathName(least)}`;
        const others = [
            wasmContender(`wasm drag (storage)${path}`, n, 0, k.wd_drag_storage, least),
            wasmContender(`wasm drag (one call)${path}`, n, 0, k.wd_drag_storage_step, least),
            wasmContender(`wasm drag (handles)${path}`, n, 0, k.wd_drag_handles, least),
            wasmContender(`wasm drag (C)${path}`, n, 2, k.wd_drag_c, least)];
        if (least === options.least) others.push(soaContender(n));
        for (const c of [reference, ...others]) for (let f = 0; f < frames; f++) { c.prepare(); check(c.frame(), `${c.name}: frame`); }
        const expected = reference.values();
        for (const c of others) {
            const values = c.values();
            let largest = 0;
            for (let i = 0; i < n; i++) largest = Math.max(largest, Math.abs(values[i] - expected[i]));
            result[c.name] = largest;
            c.dispose();
        }
        reference.dispose();
        if (least === benchLeast) break;
    }
    return result;
})();
const disagreeing = Object.entries(agreement).filter(([, largest]) => !(largest <= tolerance));
if (disagreeing.length > 0) {
    console.error(`wasm-drag: the contenders do not move the same springs (largest difference from the JS object's values): ${JSON.stringify(agreement)}`);
    exit(1);
}

const rows = [];
for (const n of options.sizes) {
    const contenders = [
        wasmContender('wasm drag (storage)', n, 0, k.wd_drag_storage),
        wasmContender('wasm drag (one call)', n, 0, k.wd_drag_storage_step),
        wasmContender('wasm drag (handles)', n, 0, k.wd_drag_handles),
        wasmContender('wasm drag (C)', n, 2, k.wd_drag_c),
        wasmContender('wasm plain', n, 1, k.wd_step),
        objectContender(n),
        soaContender(n),
    ];
    // spring-bench drag's own path, when it is not the judged one.
    const bench = `, ${pathName(benchLeast)}`;
    if (options.least !== benchLeast) {
        contenders.push(wasmContender(`wasm drag (storage)${bench}`, n, 0, k.wd_drag_storage, benchLeast));
        contenders.push(objectContender(n, benchLeast, `JS object${bench}`));
    }
    // spring-bench drag's frames a repeat for the JavaScript peers, four times as many for the
    // kernel's contenders (whose frames are 20-100x shorter: a repeat of milliseconds, not
    // microseconds); warm-up: two seconds of drag for the kernel (the rests the springs were added
    // with come due and go), and enough frames for the JIT.
    const frames = Math.max(8, Math.min(400, Math.floor(4_000_000 / n)));
    for (const c of contenders) {
        c.prepareRepeat();
        run(c, c.name.startsWith('wasm') ? 120 : Math.max(8, Math.min(120, Math.floor(2_000_000 / n))));
    }
    const restsBefore = contenders.map((c) => c.rests());
    const timed = [...contenders, empty];
    const wall = timed.map(() => []), cpu = timed.map(() => []);
    for (let r = 0; r < options.repeats; r++) {
        for (let j = 0; j < timed.length; j++) {
            const index = (j + r) % timed.length, c = timed[index];
            c.prepareRepeat();
            const [w, t] = run(c, frames * c.frames);
            wall[index].push(w);
            cpu[index].push(t);
        }
    }
    // The timing's own CPU cost a frame (two getrusage calls), taken off every contender's.
    const overhead = median(cpu[contenders.length]) / (frames * empty.frames);
    const perSpring = (seconds, c) => seconds.map((x) => (x * 1e9) / (frames * c.frames * n));
    const cpuNs = contenders.map((c, i) => perSpring(cpu[i].map((x) => Math.max(0, x - overhead * frames * c.frames)), c));
    const wallNs = contenders.map((c, i) => perSpring(wall[i], c));
    const byName = Object.fromEntries(contenders.map((c, i) => [c.name, cpuNs[i]]));
    const ratio = (peer, ours) => byName[peer].map((x, r) => x / byName[ours][r]);
    const row = {
        springs: n, framesPerRepeat: Object.fromEntries(contenders.map((c) => [c.name, frames * c.frames])), repeats: options.repeats, clock: 'process CPU time',
        timingOverheadNsPerFrame: overhead * 1e9,
        nsPerSpringFrame: Object.fromEntries(contenders.map((c, i) => [c.name, median(cpuNs[i])])),
        nsPerSpringFrameWall: Object.fromEntries(contenders.map((c, i) => [c.name, median(wallNs[i])])),
        nsPerSpringFrameRepeats: byName,
        restsPerFrame: Object.fromEntries(contenders.map((c, i) => [c.name, (c.rests() - restsBefore[i]) / (frames * c.frames * options.repeats)])),
        ratios: {},
    };
    for (const [label, peer, ours] of [
        ['JS object / wasm drag (storage)', 'JS object', 'wasm drag (storage)'],
        ['JS object / wasm drag (handles)', 'JS object', 'wasm drag (handles)'],
        ['JS object / wasm drag (C)', 'JS object', 'wasm drag (C)'],
        ['JS object / wasm plain', 'JS object', 'wasm plain'],
        ['JS SoA / wasm drag (storage)', 'JS SoA', 'wasm drag (storage)'],
        ['JS object / wasm drag (one call)', 'JS object', 'wasm drag (one call)'],
        ['JS SoA / wasm drag (one call)', 'JS SoA', 'wasm drag (one call)'],
        ['wasm drag (storage) / wasm plain', 'wasm drag (storage)', 'wasm plain'],
        [`JS object / wasm drag (storage)${bench}`, `JS object${bench}`, `wasm drag (storage)${bench}`],
    ]) {
        if (!byName[peer] || !byName[ours]) continue;
        const xs = ratio(peer, ours);
        row.ratios[label] = { median: median(xs), interval: medianInterval(xs) };
    }
    rows.push(row);
    for (const c of contenders) c.dispose();
}

// --- Report ---
const cpuinfo = await readFile('/proc/cpuinfo', 'utf8').catch(() => '');
const cpuField = (name) => cpuinfo.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1];
const cpu = cpuField('model name') ?? 'unknown';
const cpuDetail = { family: cpuField('cpu family'), model: cpuField('model'), cores: (await import('node:os')).cpus().length };
const format = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const ratioCell = (row, label) => {
    const r = row.ratios[label];
    return r ? `${format(r.median)}x [${format(r.interval[0])}, ${format(r.interval[1])}]` : '-';
};
function printTable(header, cells) {
    const lines = [header, ...rows.map(cells)];
    const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
    for (const l of lines) console.log(l.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
}
const bench = `, ${pathName(benchLeast)}`;
console.log(`ns per spring-frame, process CPU time (medians of ${options.repeats} interleaved repeats); ratios: the peer's time over ours, median [95 % interval]`);
console.log(`CPU: ${cpu} (family ${cpuDetail.family}, model ${cpuDetail.model}, ${cpuDetail.cores} cores); Node ${version}`);
console.log(`the same motion: after 150 frames of drag of 5000 springs, the largest difference from the JS object's values: ${
    Object.entries(agreement).map(([name, largest]) => `${name} ${largest.toPrecision(2)}`).join(', ')} (tolerance ${tolerance})`);
console.log(`\nthe judged path: targets ${pathName(options.least)} from their anchors`);
const columns = ['wasm drag (storage)', 'wasm drag (one call)', 'wasm drag (handles)', 'wasm drag (C)', 'wasm plain', 'JS object', 'JS SoA'];
printTable(['springs', ...columns, 'JS object / drag', 'JS object / plain', 'JS SoA / drag', 'JS SoA / one call'], (row) => [
    String(row.springs), ...columns.map((c) => format(row.nsPerSpringFrame[c])),
    ratioCell(row, 'JS object / wasm drag (storage)'), ratioCell(row, 'JS object / wasm plain'), ratioCell(row, 'JS SoA / wasm drag (storage)'),
    ratioCell(row, 'JS SoA / wasm drag (one call)')]);
if (options.least !== benchLeast) {
    console.log(`\nspring-bench drag's path: targets ${pathName(benchLeast)} from their anchors (rests come due; not judged)`);
    printTable(['springs', 'wasm drag (storage)', 'rests a frame', 'JS object', 'JS object / drag'], (row) => [
        String(row.springs), format(row.nsPerSpringFrame[`wasm drag (storage)${bench}`]),
        row.restsPerFrame[`wasm drag (storage)${bench}`].toFixed(0), format(row.nsPerSpringFrame[`JS object${bench}`]),
        ratioCell(row, `JS object / wasm drag (storage)${bench}`)]);
}

const judged = rows.find((r) => r.springs === bounds.size);
const verdicts = [];
if (judged) {
    for (const [label, bound, what] of [
        ['JS object / wasm drag (storage)', bounds.drag, 'the drag (storage order)'],
        ['JS object / wasm plain', bounds.plain, 'the plain step'],
    ]) {
        const r = judged.ratios[label];
        verdicts.push({ figure: `${what} at ${bounds.size} springs vs the JS object loop`, target: `>= ${bound}x`,
            median: r.median, interval: r.interval, met: r.median >= bound });
    }
    console.log('');
    for (const v of verdicts) console.log(`${v.met ? 'met' : 'NOT MET'}: ${v.figure}: ${format(v.median)}x (target ${v.target})`);
}
if (options.json) {
    await mkdir(dirname(options.json), { recursive: true });
    await writeFile(options.json, JSON.stringify({
        measured: new Date().toISOString(), commit: options.commit, cpu, cpuDetail, node: version, program: basename(program), dt, spring: { tension, friction, mass, tolerance },
        sizes: options.sizes, repeats: options.repeats,
        paths: { judged: { least: options.least, offsets: `(${options.least} + 10 g) sin(2 pi (frame / 60 + 5 g / 16))` },
            springBench: { least: benchLeast, offsets: `(${benchLeast} + 10 g) sin(2 pi (frame / 60 + 5 g / 16))` } },
        agreement, rows, verdicts,
    }, null, 2) + '\n');
}
exit(verdicts.length > 0 && verdicts.every((v) => v.met) ? 0 : judged ? 1 : 0);
