// The ES module's own checks, in Node (.ci/web test runs them before the browser's):
//   node Web/tests/module-test.mjs SITE
// - typed-array views: a WasmArray's view taken before memory grows is detached after; `.view` is
//   made anew, over the same contents;
// - a refused call throws SpringKernelError (its status named) and leaves the bank as it was;
// - a spring rests on the frame sk_bank_rest_time predicted;
// - the SIMD128 and scalar modules step the same springs to the same bits (the state hashes);
// - the interaction layer's calls (interactions.mjs over the mi_ exports): the PausesSpring
//   specification's drag to open as Tests/CrossLayer scripts it opens the sheet, which rests on the
//   frame the kernel predicted at the release, the same frames in both modules; refused calls.
import { readFile } from 'node:fs/promises';
import { exit } from 'node:process';
import { loadSpringKernel, SpringKernelError } from '../spring-kernel.mjs';
import { MotionStage, Phase } from '../interactions.mjs';

const site = process.argv[2];
let failed = 0;
function check(condition, what) {
    console.log(`  ${condition ? 'ok' : 'FAILED'}: ${what}`);
    if (!condition) failed += 1;
}

const hashes = {}, layerPaths = {};
for (const simd of [true, false]) {
    const file = simd ? 'spring-kernel-simd128.wasm' : 'spring-kernel-scalar.wasm';
    const kernel = await loadSpringKernel({ simd, bytes: await readFile(`${site}/${file}`) });
    console.log(`${file} (Node ${process.version})`);

    const array = kernel.allocate(Float32Array, 4);
    array.view.set([1, 2, 3, 4]);
    const before = array.view, pages = kernel.memory.buffer.byteLength;
    const big = kernel.createBank({ capacity: 1_000_000 });   // 88 MB: memory grows
    check(kernel.memory.buffer.byteLength > pages && before.byteLength === 0 && array.view !== before && array.view.join() === '1,2,3,4',
        `memory grew ${pages >> 20} -> ${kernel.memory.buffer.byteLength >> 20} MB: the old view detached, .view made anew over the same values`);
    big.destroy();

    const bank = kernel.createBank();
    const springs = bank.add({ values: new Float32Array([0, 5, -40]), targets: new Float32Array([100, 5, 60]), velocities: new Float32Array([0, 0, 300]), tension: 342, friction: 18 });
    const hash = bank.stateHash();
    let refused = null;
    try { bank.step(Number.NaN); } catch (error) { refused = error; }
    check(refused instanceof SpringKernelError && refused.statusName === 'invalid_time_step' && bank.stateHash() === hash,
        `step(NaN) throws SpringKernelError (${refused?.statusName}), the bank unchanged`);
    try { bank.retarget(new BigUint64Array([0n]), new Float32Array([1])); } catch (error) { refused = error; }
    check(refused.statusName === 'foreign_handle' && bank.stateHash() === hash, `a handle of 0 is refused (${refused.statusName})`);

    const predicted = bank.restTime(springs);
    const dts = [1 / 60, 1 / 30, 1 / 60, 0.05, 1 / 60, 0.004];   // a jittery clock with dropped frames
    const restFrames = [null, null, null];
    let time = 0;
    for (let frame = 1; frame <= 200 && restFrames.some((f, i) => f === null && predicted[i] > 0); frame++) {
        const dt = dts[frame % dts.length];
        bank.step(dt);
        time += dt;
        for (const handle of bank.rested()) restFrames[springs.indexOf(handle)] = { frame, time };
    }
    const onTime = [0, 2].every((i) => restFrames[i] && restFrames[i].time >= predicted[i] && restFrames[i].time - dts[restFrames[i].frame % dts.length] < predicted[i]);
    check(onTime && restFrames[1] === null, `rests on the frames predicted (${restFrames[0]?.frame}, ${restFrames[2]?.frame} for ${predicted[0].toFixed(3)} s, ${predicted[2].toFixed(3)} s); the spring at its target never moved`);
    hashes[file] = bank.stateHash();
    // Storage order: the layout's handles and user values are the springs', in one order.
    bank.setUserValues(springs, new BigUint64Array([7n, 8n, 9n]));
    const layout = bank.layout('all'), order = bank.layoutSprings(layout, new BigUint64Array(layout.count));
    const ids = bank.layoutUserValues(layout, new BigUint64Array(layout.count)), byHandle = bank.userValues(order);
    check(layout.count === 3 && ids.every((id, j) => id === byHandle[j]) && [...ids].sort().join() === '7,8,9',
        'the layout\'s handles and user values agree, spring for spring');
    const values = bank.read('value', springs);
    check(values[0] === 100 && values[2] === 60, 'snapped exactly onto their targets');

    // A drag in one call a frame (layoutRetargetStep) leaves the bits and rests of layoutRetarget
    // then step, in two banks of the same springs.
    const pair = [kernel.createBank(), kernel.createBank()];
    const count = 700, starts = Float32Array.from({ length: count }, (_, i) => (i * 37) % 400 - 200);
    for (const b of pair) b.add({ values: starts, targets: starts, velocities: new Float32Array(count), tension: 342, friction: 30 });
    const pairRests = [[], []];
    for (let frame = 1; frame <= 150; frame++) {
        pair.forEach((b, k) => {
            // Slot j's goal: the banks stay equal, so their layouts hold the same springs.
            const at = b.layout('all'), goals = b.layoutRead('target', at, new Float32Array(at.count));
            for (let j = 0; j < at.count; j++) if (frame <= 60 + (j % 40)) goals[j] = starts[j] + 80 * Math.sin(frame / 9 + (j % 16));
            if (k === 0) b.layoutRetargetStep(at, goals, 1 / 60); else { b.layoutRetarget(at, goals); b.step(1 / 60); }
            pairRests[k].push(b.rested().length);
        });
    }
    check(pair[0].stateHash() === pair[1].stateHash() && pairRests[0].join() === pairRests[1].join() && pairRests[0].some((r) => r > 0),
        `layoutRetargetStep leaves the bits and rests of layoutRetarget then step (${pairRests[0].reduce((a, b) => a + b, 0)} rests)`);
    for (const b of pair) b.destroy();

    // The layer: Tests/CrossLayer's drag to open (15 pt a frame for 10 frames at 60 Hz, released
    // at 150 pt, past the 100 pt boundary), through the exports.
    const stage = new MotionStage(kernel);
    const sheet = stage.addElement('sheet', { x: 0, y: 0, width: 10, height: 10 });
    stage.dragToOpen(sheet, { closed: 0, open: 200, boundary: 100 });
    let t = 0;
    stage.gesture(sheet, Phase.began, 0, 0, t);
    const path = [];
    for (let frame = 1; frame <= 10; frame++) {
        t += 1 / 60;
        stage.gesture(sheet, Phase.changed, 0, 15 * frame, t);
        stage.step(1 / 60);
        path.push(sheet.y);
    }
    stage.gesture(sheet, Phase.ended, 0, 150, t);
    const releasedAt = stage.frame, prediction = sheet.prediction;
    while (stage.rests.length === 0 && stage.frame < 1000) { stage.step(1 / 60); path.push(sheet.y); }
    const rest = stage.rests[0];
    const due = prediction.time + prediction.seconds;
    const expected = stage.frameTimes.findIndex((end, i) => i >= releasedAt && end >= due) + 1;
    check(path.slice(0, 10).every((y, i) => y === 15 * (i + 1)) && sheet.release.vy > 500 && sheet.choice === 1,
        `the layer's drag to open: the sheet follows the drag, its spring paused; released at ${sheet.release.vy.toFixed(0)} pt/s past the boundary, toward open`);
    check(rest && rest.frame === expected && sheet.atRest && sheet.x === 0 && sheet.y === 200 && stage.counts.awake === 0,
        `rests exactly open on frame ${rest?.frame}, the one the kernel predicted at the release (${prediction.seconds.toFixed(3)} s after frame ${releasedAt})`);
    layerPaths[file] = path.join();
    const k = kernel.exports, frames = stage.frame;
    const refusals = [k.mi_stage_advance(stage.id, Number.NaN), k.mi_stage_advance(9999, 1 / 60),
        k.mi_gesture(stage.id, sheet.id, Phase.ended, 0, 0, t), k.mi_attach(stage.id, sheet.id, sheet.id)];
    stage.read();
    check(refusals.join() === '-2,-1,-2,-2' && stage.records.view[0] === frames && sheet.y === 200 && sheet.atRest,
        'the layer\'s calls refuse a NaN frame, an unknown stage, an event out of turn and an element attached to itself, and change nothing');
    stage.dispose();
    const next = k.mi_stage_create();
    check(next !== stage.id && (next & 0xffff) === (stage.id & 0xffff) && k.mi_stage_advance(stage.id, 1 / 60) === -1 && k.mi_stage_advance(next, 1 / 60) === 0,
        'a destroyed stage\'s id is refused, though the next stage takes its slot (its generation moved on)');
    k.mi_stage_destroy(next);
}
check(layerPaths['spring-kernel-simd128.wasm'] === layerPaths['spring-kernel-scalar.wasm'],
    'the layer\'s drag to open moves the sheet through the same positions in both modules');
check(hashes['spring-kernel-simd128.wasm'] === hashes['spring-kernel-scalar.wasm'],
    `the SIMD128 and scalar modules reach the same state, bit for bit (hash ${hashes['spring-kernel-simd128.wasm'].toString(16)})`);
exit(failed ? 1 : 0);
