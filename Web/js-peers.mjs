// js-peers.mjs: the JavaScript contenders the kernel is measured against, and the drag's path,
// shared by the browser benchmark (Web/benchmark.mjs) and .ci/wasm-drag's Node run
// (Benchmarks/WasmDrag/wasm-drag.mjs), so both judge the kernel against the same peers.

/** Each spring's anchor: spread over ±1000 pt. */
export const anchor = (i) => ((i * 7919) % 2000) - 1000;

/**
 * The pointer's offset for each of the 16 groups at `frame` (60 Hz): (least + 10 g) pt at 1 Hz,
 * each group in its own phase, written to `out`.
 */
export function shifts(frame, out, least) {
    for (let g = 0; g < 16; g++) out[g] = (least + 10 * g) * Math.sin(2 * Math.PI * (frame / 60 + (5 * g) / 16));
}

/**
 * One object per spring, stepping the closed form from its state each frame (re-anchored on the
 * target it was given this frame), with a rest check as animation libraries have (speed and
 * distance within their thresholds: then it snaps and sleeps until its target moves).
 */
export class Spring {
    constructor(value, target, velocity, tension, friction, mass, tolerance) {
        this.position = value;
        this.velocity = velocity;
        this.target = target;
        this.omega0 = Math.sqrt(tension / mass);
        this.zeta = friction / (2 * Math.sqrt(tension * mass));
        this.omegaD = this.omega0 * Math.sqrt(Math.abs(1 - this.zeta * this.zeta));
        this.restDelta = tolerance;
        this.restSpeed = 2;
        this.resting = value === target && velocity === 0;
    }

    setTarget(target) {
        if (target !== this.target) { this.target = target; this.resting = false; }
    }

    step(dt) {
        if (this.resting) return;
        const x0 = this.position - this.target, v0 = this.velocity;
        const zw = this.zeta * this.omega0;
        const decay = Math.exp(-zw * dt);
        let x, v;
        if (this.zeta < 1) {
            const wd = this.omegaD, c = Math.cos(wd * dt), s = Math.sin(wd * dt);
            const b = (v0 + zw * x0) / wd;
            x = decay * (x0 * c + b * s);
            v = decay * ((b * wd - zw * x0) * c - (x0 * wd + zw * b) * s);
        } else if (this.zeta === 1) {
            const b = v0 + this.omega0 * x0;
            x = decay * (x0 + b * dt);
            v = decay * (b - this.omega0 * (x0 + b * dt));
        } else {
            const r1 = -zw + this.omegaD, r2 = -zw - this.omegaD;
            const c2 = (v0 - r1 * x0) / (r2 - r1), c1 = x0 - c2;
            const e1 = Math.exp(r1 * dt), e2 = Math.exp(r2 * dt);
            x = c1 * e1 + c2 * e2;
            v = c1 * r1 * e1 + c2 * r2 * e2;
        }
        if (Math.abs(v) <= this.restSpeed && Math.abs(x) <= this.restDelta) {
            this.position = this.target; this.velocity = 0; this.resting = true;
        } else {
            this.position = this.target + x; this.velocity = v;
        }
    }
}

/**
 * The struct-of-arrays peer's step: the exact propagator of (x − target, v) over `dt` for an
 * under-damped spring, applied to typed arrays. Returns `step(position, velocity, targets, n)`.
 * The loop is compiled anew for each call (new Function): V8 shares a function's optimized code
 * among its closures, and one optimized for another size ran up to 4x slower.
 */
export function soaStep(tension, friction, mass, dt) {
    const w0 = Math.sqrt(tension / mass), zeta = friction / (2 * Math.sqrt(tension * mass));
    const zw = zeta * w0, wd = w0 * Math.sqrt(1 - zeta * zeta);
    const e = Math.exp(-zw * dt), c = Math.cos(wd * dt), s = Math.sin(wd * dt);
    const a11 = e * (c + (zw / wd) * s), a12 = (e * s) / wd, a21 = (-e * w0 * w0 * s) / wd, a22 = e * (c - (zw / wd) * s);
    const loop = new Function('position', 'velocity', 'targets', 'n', 'a11', 'a12', 'a21', 'a22', `
        for (let i = 0; i < n; i++) {
            const t = targets[i], d = position[i] - t, v = velocity[i];
            position[i] = t + a11 * d + a12 * v;
            velocity[i] = a21 * d + a22 * v;
        }`);
    return (position, velocity, targets, n) => loop(position, velocity, targets, n, a11, a12, a21, a22);
}
