// demo.mjs: the demo page. Loads the kernel (spring-kernel.mjs), runs the current scene
// (scenes.mjs) on requestAnimationFrame's timestamps (dt: the time between two frames' timestamps,
// dropped frames and jitter included), routes the stage's pointer events (mouse, pen and touch) to
// it, and exposes window.springKernelDemo, the automation interface (README.md in this folder).
import { loadSpringKernel } from './spring-kernel.mjs';
import { scenes } from './scenes.mjs';
import { benchmark } from './benchmark.mjs';

const stage = document.getElementById('stage');
const statsNode = document.getElementById('stats');
const kernel = await loadSpringKernel();
document.getElementById('build').textContent =
    `${kernel.simd ? 'WebAssembly SIMD128' : 'WebAssembly (scalar)'}, ${kernel.bytes ?? '?'} bytes, loaded in ${kernel.loadMilliseconds.toFixed(1)} ms`;

let current = null, currentName = null, last = null;
// The last rAF intervals (ms), whatever the scene: the clock the scenes ran on.
const intervals = [];

function load(name, options = {}) {
    const Scene = scenes[name];
    if (!Scene) throw new Error(`springKernelDemo.load: no scene ${name}; scenes: ${Object.keys(scenes).join(', ')}`);
    current?.dispose();
    stage.replaceChildren();
    current = new Scene(kernel, stage, options);
    currentName = name;
    last = null;
    current.render();
    document.getElementById('description').textContent = Scene.description;
    for (const button of document.querySelectorAll('#scene-buttons button')) button.classList.toggle('current', button.dataset.scene === name);
    controls(name, options);
    return state();
}

function state() {
    return {
        scene: currentName, ...current.state(),
        kernel: { simd: kernel.simd, file: kernel.file, bytes: kernel.bytes, loadMilliseconds: kernel.loadMilliseconds },
        crossOriginIsolated: globalThis.crossOriginIsolated === true,
    };
}

function tick(timestamp) {
    requestAnimationFrame(tick);
    if (last !== null && timestamp > last) {
        intervals.push(timestamp - last);
        if (intervals.length > 600) intervals.shift();
        current.frame((timestamp - last) / 1000);
    }
    last = timestamp;
    current.render();
    if (current.frameCount % 6 === 0) showStats();
}

function showStats() {
    const s = current.state();
    const lines = [`frame ${s.frame}, ${s.time.toFixed(2)} s; springs ${s.total}, awake ${s.awake}`];
    if (s.timing) {
        const t = s.timing;
        lines.push(`per frame (median / p95 ms of ${t.frames}):`, `  retarget + step ${t.step.p50.toFixed(2)} / ${t.step.p95.toFixed(2)}`,
            `  read ${t.read.p50.toFixed(2)} / ${t.read.p95.toFixed(2)}`, `  draw ${t.draw.p50.toFixed(2)} / ${t.draw.p95.toFixed(2)}`,
            `  total ${t.total.p50.toFixed(2)} / ${t.total.p95.toFixed(2)} of 16.7`);
    } else {
        for (const e of s.elements) lines.push(`${e.name}: (${e.x.toFixed(1)}, ${e.y.toFixed(1)}) ${e.atRest ? 'at rest' : 'moving'}${e.emitted !== undefined ? `, ${e.emitted} values` : ''}`);
        if (s.destination) lines.push(`destination: ${s.destination}`);
    }
    statsNode.textContent = lines.join('\n');
}

function controls(name, options) {
    const node = document.getElementById('controls');
    node.replaceChildren();
    if (name === 'spring-source') {
        current.sources.forEach((source, i) => {
            const label = document.createElement('label');
            label.textContent = `source ${i}: tension `;
            const tension = Object.assign(document.createElement('input'), { type: 'number', value: source.configuration.tension, min: 1 });
            const friction = Object.assign(document.createElement('input'), { type: 'number', value: source.configuration.friction, min: 0 });
            const apply = () => current.configure(i, Number(tension.value), Number(friction.value));
            tension.addEventListener('change', apply);
            friction.addEventListener('change', apply);
            label.append(tension, ' friction ', friction);
            node.appendChild(label);
        });
    } else if (name === 'many-springs') {
        for (const n of [100_000, 1_000_000]) {
            const button = document.createElement('button');
            button.textContent = `${n / 1000}K springs`;
            button.disabled = current.n === n;
            button.addEventListener('click', () => load('many-springs', { springs: n }));
            node.appendChild(button);
        }
    }
}

// Pointer events: every pointer the stage captures, in stage pixels and seconds.
function pointer(event) {
    const rect = stage.getBoundingClientRect();
    return { id: event.pointerId, x: event.clientX - rect.left, y: event.clientY - rect.top, t: event.timeStamp / 1000 };
}
stage.addEventListener('pointerdown', (event) => {
    stage.setPointerCapture(event.pointerId);
    current.down(pointer(event));
    event.preventDefault();
});
stage.addEventListener('pointermove', (event) => current.move(pointer(event)));
stage.addEventListener('pointerup', (event) => current.up(pointer(event)));
stage.addEventListener('pointercancel', (event) => current.up(pointer(event)));

const buttons = document.getElementById('scene-buttons');
for (const name of Object.keys(scenes)) {
    const button = document.createElement('button');
    button.textContent = name;
    button.dataset.scene = name;
    button.addEventListener('click', () => load(name));
    buttons.appendChild(button);
}

load(new URLSearchParams(location.search).get('scene') ?? 'pauses-spring');
requestAnimationFrame(tick);

/**
 * The automation interface (documented in Web/README.md): tests and engines' authors drive the
 * page through it.
 */
window.springKernelDemo = {
    /** The scenes' names. */
    scenes: () => Object.keys(scenes),
    /** Loads a scene (options: each scene's constructor's); returns its first state. */
    load,
    /** The current scene's state: frame, time, elements (name, x, y, vx, vy, atRest, box), awake and total springs. */
    state,
    /** The kernel clock's time at the end of each frame of the current scene (index f - 1: frame f). */
    frameLog: () => [...(current.frameTimes ?? [])],
    /** The last (up to 600) requestAnimationFrame intervals, in ms. */
    intervals: () => [...intervals],
    /** Sets spring-source's source i's tension and friction. */
    configure: (i, tension, friction) => current.configure(i, tension, friction),
    /** ns per spring-frame of one implementation: {n, mode: 'plain' | 'drag', impl, frames}. */
    benchmark: (options) => benchmark(options),
};
