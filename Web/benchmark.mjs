// benchmark.mjs: springKernelDemo.benchmark({n, mode, impl, frames}), ns per spring-frame in the
// page's own engine. The springs and contenders are .ci/wasm-drag's (Benchmarks/WasmDrag), so the
// browser's figures sit beside Node's:
//   mode 'plain'  the step alone, of n springs that keep moving (tension 342, friction 0.01: a
//                 decay time of 200 s; spring i at its anchor plus (i % 200 - 100), velocity i % 7 * 10)
//   mode 'drag'   every spring's target moved every frame, then the step: the default spring
//                 (342, 30, mass 1, tolerance 0.5) at anchor ((i * 7919) % 2000) - 1000, its target
//                 the anchor plus (40 + 10 g) sin(2 pi (frame / 60 + 5 g / 16)), g = i % 16
//   impl 'kernel-simd' | 'kernel-scalar'  the kernel (SIMD128 or scalar module, an instance of its
//                 own): drag writes the targets in the bank's storage order and steps, in one call
//                 (sk_layout_retarget_step_f32: one pass over the lanes)
//   impl 'js-object'  one JavaScript object per spring stepping the closed form (exp, sin, cos each
//                 frame, re-anchored on its target), as web animation libraries step
//   impl 'js-soa'  one loop over Float32Arrays applying the exact 2x2 propagator (one dt)
// A frame is 1/60 s. Each frame's targets are computed outside the timed part (drag); the plain
// step is timed over all its frames at once, the drag frame by frame (performance.now(): 5 us in a
// cross-origin isolated page). Warm-up frames first (the JIT; the kernel's first layout), untimed.
import { loadSpringKernel } from './spring-kernel.mjs';
import { anchor, shifts, Spring, soaStep } from './js-peers.mjs';

const dt = 1 / 60;
const least = 40;
const kernels = {};

// The kernel contenders' modules: an instance each, apart from the page's (its scenes' memory).
function kernelFor(impl) {
    if (!kernels[impl]) kernels[impl] = loadSpringKernel({ simd: impl === 'kernel-simd' });
    return kernels[impl];
}

function plainStart(n) {
    const values = new Float32Array(n), targets = new Float32Array(n), velocities = new Float32Array(n);
    for (let i = 0; i < n; i++) { targets[i] = anchor(i); values[i] = anchor(i) + (i % 200 - 100); velocities[i] = (i % 7) * 10; }
    return { values, targets, velocities };
}

function kernelContender(kernel, n, mode) {
    const bank = kernel.createBank({ capacity: n });
    let frame = 0;
    const shift = new Float64Array(16);
    if (mode === 'plain') {
        const { values, targets, velocities } = plainStart(n);
        bank.add({ values, targets, velocities, tension: 342, friction: 0.01, tolerance: 0.5 });
        const step = kernel.exports.sk_bank_step, id = bank.id;
        return {
            block(frames) { for (let f = 0; f < frames; f++) { const s = step(id, dt); if (s !== 0) throw new Error(`sk_bank_step: ${kernel.statusName(s)}`); } },
            dispose() { bank.destroy(); },
        };
    }
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = anchor(i);
    const handles = bank.add({ values, targets: values });
    bank.setUserValues(handles, BigUint64Array.from({ length: n }, (_, i) => BigInt(i)));
    const targets = kernel.allocate(Float32Array, n), userValues = kernel.allocate(BigUint64Array, n);
    const ids = new Uint32Array(n), anchors = Float64Array.from({ length: n }, (_, i) => anchor(i));
    let version = null, layout = null, rests = 0;
    return {
        prepare() {
            frame += 1;
            shifts(frame, shift, least);
            layout = bank.layout('all');
            if (layout.version !== version) {
                bank.layoutUserValues(layout, userValues);
                const u = new Uint32Array(kernel.memory.buffer, userValues.pointer, 2 * n);
                for (let j = 0; j < n; j++) ids[j] = u[2 * j];
                version = layout.version;
            }
            const t = targets.view;
            for (let j = 0; j < n; j++) { const i = ids[j]; t[j] = anchors[i] + shift[i & 15]; }
        },
        frame() { bank.layoutRetargetStep(layout, targets, dt); },
        after() { rests += bank.rested().length; },
        rests: () => rests,
        dispose() { bank.destroy(); targets.free(); userValues.free(); },
    };
}

function objectContender(n, mode) {
    const springs = [];
    if (mode === 'plain') {
        const { values, targets, velocities } = plainStart(n);
        for (let i = 0; i < n; i++) springs.push(new Spring(values[i], targets[i], velocities[i], 342, 0.01, 1, 0.5));
        return {
            block(frames) { for (let f = 0; f < frames; f++) for (let i = 0; i < n; i++) springs[i].step(dt); },
            dispose() { springs.length = 0; },
        };
    }
    for (let i = 0; i < n; i++) springs.push(new Spring(anchor(i), anchor(i), 0, 342, 30, 1, 0.5));
    const targets = new Float64Array(n), anchors = Float64Array.from({ length: n }, (_, i) => anchor(i)), shift = new Float64Array(16);
    let frame = 0;
    return {
        prepare() { frame += 1; shifts(frame, shift, least); for (let i = 0; i < n; i++) targets[i] = anchors[i] + shift[i & 15]; },
        frame() { for (let i = 0; i < n; i++) { const s = springs[i]; s.setTarget(targets[i]); s.step(dt); } },
        dispose() { springs.length = 0; },
    };
}

function soaContender(n, mode) {
    const plain = mode === 'plain';
    const start = plain ? plainStart(n) : null;
    const position = new Float32Array(n), velocity = new Float32Array(n), targets = new Float32Array(n);
    for (let i = 0; i < n; i++) {
        position[i] = plain ? start.values[i] : anchor(i);
        velocity[i] = plain ? start.velocities[i] : 0;
        targets[i] = anchor(i);
    }
    // The exact propagator of (x - target, v) over dt (both springs under-damped).
    const step = soaStep(342, plain ? 0.01 : 30, 1, dt);
    if (plain) {
        return { block(frames) { for (let f = 0; f < frames; f++) step(position, velocity, targets, n); }, dispose() {} };
    }
    const anchors = Float64Array.from({ length: n }, (_, i) => anchor(i)), shift = new Float64Array(16);
    let frame = 0;
    return {
        prepare() { frame += 1; shifts(frame, shift, least); for (let i = 0; i < n; i++) targets[i] = anchors[i] + shift[i & 15]; },
        frame() { step(position, velocity, targets, n); },
        dispose() {},
    };
}

/** Runs `frames` timed frames (after `warmup` untimed) of one implementation; ns per spring-frame. */
export async function benchmark({ n = 100_000, mode = 'plain', impl = 'kernel-simd', frames = 60, warmup = null } = {}) {
    if (!['plain', 'drag'].includes(mode)) throw new Error(`benchmark: mode is 'plain' or 'drag', not ${mode}`);
    if (!(n >= 16 && frames >= 1)) throw new Error('benchmark: n >= 16 and frames >= 1');
    let contender;
    if (impl === 'kernel-simd' || impl === 'kernel-scalar') contender = kernelContender(await kernelFor(impl), n, mode);
    else if (impl === 'js-object') contender = objectContender(n, mode);
    else if (impl === 'js-soa') contender = soaContender(n, mode);
    else throw new Error(`benchmark: impl is kernel-simd, kernel-scalar, js-object or js-soa, not ${impl}`);
    const warm = warmup ?? (impl.startsWith('kernel') ? 60 : Math.max(8, Math.min(120, Math.floor(2_000_000 / n))));
    let milliseconds = 0;
    try {
        if (contender.block) {
            contender.block(warm);
            const start = performance.now();
            contender.block(frames);
            milliseconds = performance.now() - start;
        } else {
            for (let f = 0; f < warm; f++) { contender.prepare(); contender.frame(); contender.after?.(); }
            const restsBefore = contender.rests?.() ?? 0;
            for (let f = 0; f < frames; f++) {
                contender.prepare();
                const start = performance.now();
                contender.frame();
                milliseconds += performance.now() - start;
                contender.after?.();
            }
            contender.restsPerFrame = ((contender.rests?.() ?? 0) - restsBefore) / frames;
        }
    } finally {
        contender.dispose();
    }
    return { n, mode, impl, frames, warmup: warm, milliseconds, nsPerSpringFrame: (milliseconds * 1e6) / (frames * n),
        restsPerFrame: contender.restsPerFrame ?? 0, crossOriginIsolated: globalThis.crossOriginIsolated === true };
}
