// scenes.mjs: the demo page's scenes, the seeds over the kernel's springs (interactions.mjs).
//
// A scene draws into the stage (an 800 x 600 CSS-pixel box at the page's top left), takes the
// stage's pointer events (down, move, up: {id, x, y, t} in stage pixels and seconds), and is
// stepped once a requestAnimationFrame frame with that frame's dt. state() is what
// springKernelDemo.state() adds for it.
import { MotionRuntime, DragToOpen, AttachWithSpring, Draggable, Tossable, SpringSource, GestureVelocityEstimator } from './interactions.mjs';

export const stageWidth = 800, stageHeight = 600;

// A scene of DOM elements whose centres are springs.
class ElementScene {
    constructor(kernel, stage) {
        this.runtime = new MotionRuntime(kernel);
        this.stage = stage;
        this.nodes = new Map();
    }

    // An element and its node: a box of `width` x `height` of `color` (round if `round`).
    element(name, options) {
        const e = this.runtime.addElement(name, options);
        const node = document.createElement('div');
        node.className = `element ${options.round ? 'round' : ''}`;
        node.dataset.name = name;
        node.style.width = `${options.width}px`;
        node.style.height = `${options.height}px`;
        node.style.background = options.color;
        if (options.label) node.textContent = options.label;
        this.stage.appendChild(node);
        this.nodes.set(e, node);
        return e;
    }

    // A fixed decoration (a slot outline, the boundary line).
    decoration(className, left, top, width, height, text = '') {
        const node = document.createElement('div');
        node.className = className;
        Object.assign(node.style, { left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` });
        node.textContent = text;
        this.stage.appendChild(node);
        return node;
    }

    /** Frames stepped. */
    get frameCount() { return this.runtime.frame; }

    down() {}
    move() {}
    up() {}

    frame(dt) {
        this.runtime.step(dt);
        this.afterStep?.();
    }

    render() {
        for (const [e, node] of this.nodes) {
            const [left, top] = e.state().box;
            node.style.transform = `translate(${left}px, ${top}px)`;
        }
    }

    state() {
        const counts = this.runtime.counts();
        return {
            frame: this.runtime.frame, time: this.runtime.time,
            elements: this.runtime.elements.map((e) => e.state()),
            awake: counts.awake, total: counts.springs,
            rests: this.runtime.rests,
        };
    }

    dispose() {
        this.runtime.dispose();
    }
}

/** Seed 000: PausesSpring's drag to open. A sheet dragged down past the boundary opens; short of it, closes. */
export class PausesSpringScene extends ElementScene {
    static description = 'Drag the sheet down: past the dashed line it springs open, short of it closed (PausesSpring, seed 000).';

    constructor(kernel, stage, { closed = 150, open = 350, boundary = 100 } = {}) {
        super(kernel, stage);
        this.decoration('boundary', 0, closed + boundary, stageWidth, 0, 'boundary');
        this.sheet = this.element('sheet', { x: 400, y: closed, width: 360, height: 240, color: '#3b6fd8', label: 'drag me down' });
        this.interaction = new DragToOpen(this.sheet, { closed, open, boundary });
    }

    down(p) { this.interaction.draggable.down(p); }
    move(p) { this.interaction.draggable.move(p); }
    up(p) { this.interaction.draggable.up(p); }

    state() {
        const i = this.interaction;
        return { ...super.state(), closed: i.closed, open: i.open, boundary: i.boundary, destination: i.willOpen ? 'open' : 'closed', release: i.draggable.release };
    }
}

/** Seed 002: AttachWithSpring. Drag the ring; the disc is attached to it by a spring. */
export class AttachWithSpringScene extends ElementScene {
    static description = 'Drag the orange ring: the blue disc follows it on a spring and rests where it stops (AttachWithSpring, seed 002).';

    constructor(kernel, stage) {
        super(kernel, stage);
        this.follower = this.element('follower', { x: 250, y: 300, width: 56, height: 56, color: '#3b6fd8', round: true });
        this.anchor = this.element('anchor', { x: 250, y: 300, width: 40, height: 40, color: '#f08c2e', round: true });
        this.drag = new Draggable(this.anchor, { onMove: () => this.attach.destinationMoved() });
        this.attach = new AttachWithSpring(this.follower, this.anchor);
    }

    down(p) { this.drag.down(p); }
    move(p) { this.drag.move(p); }
    up(p) {
        this.drag.up(p);
        // The ring stays where it was let go (its springs take its position, no velocity).
        springAt(this.anchor);
        this.attach.destinationMoved();
    }
}

// An element's springs set at rest where it is.
function springAt(e) {
    e.runtime.bank.setState(e.springs, new Float32Array([e.x, e.y]), null);
    e.runtime.bank.retarget(e.springs, new Float32Array([e.x, e.y]));
    e.changed();
}

/** Seed 003: Tossable. Toss the card: it lands in the slot its release velocity carries it toward. */
export class TossableScene extends ElementScene {
    static description = 'Toss the card: it springs to the slot its release velocity points at, at that velocity (Tossable, seed 003).';

    constructor(kernel, stage, { projection = 0.2 } = {}) {
        super(kernel, stage);
        const slots = [{ name: 'left', x: 200, y: 300 }, { name: 'right', x: 600, y: 300 }];
        for (const s of slots) this.decoration('slot', s.x - 70, s.y - 50, 140, 100, s.name);
        this.card = this.element('card', { x: 200, y: 300, width: 120, height: 80, color: '#2e9d5b', label: 'toss me' });
        this.interaction = new Tossable(this.card, { slots, projection });
        this.interaction.destination = 'left';
    }

    down(p) { this.interaction.draggable.down(p); }
    move(p) { this.interaction.draggable.move(p); }
    up(p) { this.interaction.draggable.up(p); }

    state() {
        const i = this.interaction;
        return { ...super.state(), slots: i.slots, projection: i.projection, destination: i.destination, release: i.draggable.release };
    }
}

/** Seed 004: springSource. Three springs of their own tension and friction; a tap sends them across. */
export class SpringSourceScene extends ElementScene {
    static description = 'Tap the stage: each spring (its tension and friction in the panel) emits values until the kernel says it rests (springSource, seed 004).';

    constructor(kernel, stage, { configurations = [{ tension: 342, friction: 30 }, { tension: 342, friction: 10 }, { tension: 120, friction: 14 }] } = {}) {
        super(kernel, stage);
        this.left = 150; this.right = 650;
        this.sources = configurations.map((c, i) => {
            const y = 150 + 150 * i;
            this.decoration('track', this.left, y - 1, this.right - this.left, 2);
            const e = this.element(`source-${i}`, { x: this.left, y, width: 44, height: 44, color: ['#3b6fd8', '#d8473b', '#8e44ad'][i % 3], round: true, ...c });
            return new SpringSource(e);
        });
        this.toward = this.left;
        this.tap = null;
    }

    down(p) { this.tap = p; }
    up(p) {
        if (this.tap === null || Math.hypot(p.x - this.tap.x, p.y - this.tap.y) > 10) { this.tap = null; return; }
        this.tap = null;
        this.toward = this.toward === this.left ? this.right : this.left;
        for (const s of this.sources) s.start(this.toward, s.element.y);
    }

    /** Sets source i's tension and friction (the panel's fields). */
    configure(i, tension, friction) {
        this.sources[i].configure(tension, friction);
    }

    afterStep() {
        for (const s of this.sources) s.afterStep();
    }

    state() {
        const base = super.state();
        base.elements.forEach((e, i) => {
            const s = this.sources[i];
            Object.assign(e, { ...s.element.configuration, emitted: s.emitted, startFrame: s.startFrame, restFrame: s.restFrame });
        });
        return { ...base, toward: this.toward };
    }
}

/**
 * Many springs following the pointer: `springs` springs (an x and a y spring for each of
 * springs / 2 dots, on a sunflower around the pointer; four tensions, so the swarm trails), all
 * retargeted in the bank's storage order when the pointer moves, stepped, read in storage order,
 * drawn as pixels. Shows the milliseconds a frame of each part.
 */
export class ManySpringsScene {
    static description = 'Move the pointer: every dot is two springs (x, y) following it; the panel shows each frame\'s step, read and draw times.';

    constructor(kernel, stage, { springs = 100_000 } = {}) {
        this.kernel = kernel;
        this.stage = stage;
        this.n = Math.max(2, springs - (springs % 2));
        const dots = this.n / 2;
        this.bank = kernel.createBank({ capacity: this.n });
        this.offsets = new Float32Array(this.n);
        const radius = 260;
        for (let d = 0; d < dots; d++) {
            const r = radius * Math.sqrt((d + 0.5) / dots), a = d * 2.399963229728653;
            this.offsets[2 * d] = r * Math.cos(a);
            this.offsets[2 * d + 1] = r * Math.sin(a);
        }
        this.pointer = { x: stageWidth / 2, y: stageHeight / 2 };
        // Four groups of dots by tension; spring 2d is dot d's x, 2d + 1 its y; its user value its index.
        for (let group = 0; group < 4; group++) {
            const members = [];
            for (let i = group * 2; i < this.n; i += 8) members.push(i, i + 1);
            const values = new Float32Array(members.length);
            members.forEach((i, j) => { values[j] = (i & 1 ? this.pointer.y : this.pointer.x) + this.offsets[i]; });
            const handles = this.bank.add({ values, targets: values, tension: 120 + 80 * group, friction: 14 + 4 * group, tolerance: 0.5 });
            this.bank.setUserValues(handles, BigUint64Array.from(members, BigInt));
        }
        this.targets = kernel.allocate(Float32Array, this.n);
        this.values = kernel.allocate(Float32Array, this.n);
        this.userValues = kernel.allocate(BigUint64Array, this.n);
        this.ids = new Uint32Array(this.n);
        this.version = null;
        this.positions = new Float32Array(this.n);
        for (let i = 0; i < this.n; i++) this.positions[i] = (i & 1 ? this.pointer.y : this.pointer.x) + this.offsets[i];
        this.moved = false;
        this.frameNumber = 0; this.time = 0;
        this.timings = [];
        this.canvas = document.createElement('canvas');
        this.canvas.width = stageWidth; this.canvas.height = stageHeight;
        this.canvas.className = 'many';
        stage.appendChild(this.canvas);
        this.context = this.canvas.getContext('2d');
        this.image = this.context.createImageData(stageWidth, stageHeight);
        this.pixels = new Uint32Array(this.image.data.buffer);
        this.dirty = true;
    }

    // The bank's storage order: ids[j] is the spring at slot j (read again when the layout changes).
    layout() {
        const layout = this.bank.layout('all');
        if (layout.version !== this.version) {
            this.bank.layoutUserValues(layout, this.userValues);
            // The user values' low words (each below 2^32), without a BigInt each.
            const u = new Uint32Array(this.kernel.memory.buffer, this.userValues.pointer, 2 * this.n), ids = this.ids;
            for (let j = 0; j < this.n; j++) ids[j] = u[2 * j];
            this.version = layout.version;
        }
        return layout;
    }

    /** Frames stepped. */
    get frameCount() { return this.frameNumber; }

    down(p) { this.move(p); }
    move(p) { this.pointer = { x: p.x, y: p.y }; this.moved = true; }
    up(p) { this.move(p); }

    frame(dt) {
        const t0 = performance.now();
        if (this.moved) {
            const layout = this.layout(), t = this.targets.view, ids = this.ids, o = this.offsets, px = this.pointer.x, py = this.pointer.y;
            for (let j = 0; j < this.n; j++) { const i = ids[j]; t[j] = (i & 1 ? py : px) + o[i]; }
            this.bank.layoutRetarget(layout, this.targets);
            this.moved = false;
        }
        this.bank.step(dt);
        this.frameNumber += 1;
        this.time += dt;
        const t1 = performance.now();
        const { awake } = this.bank.counts();
        const rested = this.bank.rested().length;
        this.awake = awake;
        this.rested = (this.rested ?? 0) + rested;
        if (awake > 0 || rested > 0) {
            const layout = this.layout();
            this.bank.layoutRead('value', layout, this.values);
            const v = this.values.view, ids = this.ids, pos = this.positions;
            for (let j = 0; j < this.n; j++) pos[ids[j]] = v[j];
            this.dirty = true;
        }
        const t2 = performance.now();
        this.stepMilliseconds = t1 - t0;
        this.readMilliseconds = t2 - t1;
    }

    render() {
        const t2 = performance.now();
        if (this.dirty) {
            const pixels = this.pixels, pos = this.positions, w = stageWidth, h = stageHeight;
            pixels.fill(0xff1e1a17); // #171a1e, opaque (little-endian ABGR)
            const color = 0xff5ac8f0; // #f0c85a
            for (let i = 0; i < this.n; i += 2) {
                const x = pos[i] | 0, y = pos[i + 1] | 0;
                if (x >= 0 && x < w && y >= 0 && y < h) pixels[y * w + x] = color;
            }
            this.context.putImageData(this.image, 0, 0);
            this.dirty = false;
        }
        const draw = performance.now() - t2;
        this.timings.push({ step: this.stepMilliseconds ?? 0, read: this.readMilliseconds ?? 0, draw });
        if (this.timings.length > 240) this.timings.shift();
    }

    // Medians and 95th percentiles of the last frames' parts (ms).
    timing() {
        const part = (key) => {
            const xs = this.timings.map((t) => t[key]).sort((a, b) => a - b);
            return { p50: xs[Math.floor(xs.length / 2)] ?? 0, p95: xs[Math.floor(xs.length * 0.95)] ?? 0 };
        };
        const total = this.timings.map((t) => t.step + t.read + t.draw).sort((a, b) => a - b);
        return { frames: this.timings.length, step: part('step'), read: part('read'), draw: part('draw'),
            total: { p50: total[Math.floor(total.length / 2)] ?? 0, p95: total[Math.floor(total.length * 0.95)] ?? 0 } };
    }

    state() {
        const counts = this.bank.counts();
        return {
            frame: this.frameNumber, time: this.time,
            // The dot at the sunflower's centre and the pointer it follows, as elements.
            elements: [{ name: 'dot-0', x: this.positions[0], y: this.positions[1], vx: 0, vy: 0, atRest: counts.awake === 0, box: [this.positions[0], this.positions[1], 1, 1], color: '#f0c85a' }],
            awake: counts.awake, total: counts.springs, pointer: this.pointer, rested: this.rested ?? 0,
            timing: this.timing(), timings: this.timings.slice(-120),
        };
    }

    dispose() {
        this.bank.destroy();
        this.targets.free(); this.values.free(); this.userValues.free();
    }
}

/**
 * Seed 003 through the interaction layer itself: the layer's Tossable (Sources/MotionInteractions,
 * built into the module with the kernel; Web/MotionInteractionsWeb.swift), fed this page's pointer
 * events as pan gesture events and each frame's dt. The page picks the slot at release (as the
 * tossable scene does: the one nearest the release velocity's projection) and sets the layer's
 * destination to it; the layer measures the release velocity, tosses, and says when it rests.
 */
export class TossableLayerScene {
    static description = 'The same toss, run by the interaction layer\'s own Tossable (Swift, in the module beside the kernel). Known defect of the layer\'s Embedded build: the card does not follow the finger during the drag.';

    constructor(kernel, stage, { projection = 0.2 } = {}) {
        this.kernel = kernel;
        this.k = kernel.exports;
        this.stage = stage;
        this.projection = projection;
        this.slots = [{ name: 'left', x: 200, y: 300 }, { name: 'right', x: 600, y: 300 }];
        for (const slot of this.slots) {
            const node = document.createElement('div');
            node.className = 'slot';
            Object.assign(node.style, { left: `${slot.x - 70}px`, top: `${slot.y - 50}px`, width: '140px', height: '100px' });
            node.textContent = slot.name;
            stage.appendChild(node);
        }
        this.scene = this.k.mi_toss_create(200, 300, 200, 300);
        if (this.scene < 0) throw new Error(`mi_toss_create: ${this.scene}`);
        this.out = kernel.allocate(Float32Array, 3);
        this.node = document.createElement('div');
        this.node.className = 'element';
        Object.assign(this.node.style, { width: '120px', height: '80px', background: '#2e9d5b' });
        this.node.textContent = 'toss me';
        stage.appendChild(this.node);
        this.look = { width: 120, height: 80, color: '#2e9d5b' };
        this.destination = 'left';
        this.pointer = null;
        this.release = null;
        this.frameNumber = 0;
        this.time = 0;
        this.frameTimes = [];
        this.seconds = kernel.allocate(Float64Array, 1);
        this.rests = [];
        this.prediction = null;
        this.released = false;
        this.read();
    }

    get frameCount() { return this.frameNumber; }

    read() {
        const status = this.k.mi_toss_read(this.scene, this.out.pointer);
        if (status !== 0) throw new Error(`mi_toss_read: ${status}`);
        const [x, y, atRest] = this.out.view;
        this.x = x; this.y = y; this.atRest = atRest === 1;
    }

    gesture(phase, p) {
        const status = this.k.mi_toss_gesture(this.scene, phase, p.x - this.pointer.x, p.y - this.pointer.y, p.t);
        if (status !== 0) throw new Error(`mi_toss_gesture: ${status}`);
    }

    down(p) {
        const { width, height } = this.look;
        if (this.pointer !== null || Math.abs(p.x - this.x) > width / 2 || Math.abs(p.y - this.y) > height / 2) return;
        this.pointer = { id: p.id, x: p.x, y: p.y, startX: this.x, startY: this.y };
        this.estimator = new GestureVelocityEstimator();
        this.estimator.add(p.x, p.y, p.t);
        this.gesture(0, p);
    }

    move(p) {
        if (this.pointer === null || p.id !== this.pointer.id) return;
        this.estimator.add(p.x, p.y, p.t);
        this.gesture(1, p);
        this.read();
    }

    up(p) {
        if (this.pointer === null || p.id !== this.pointer.id) return;
        this.estimator.add(p.x, p.y, p.t);
        const v = this.estimator.velocity(p.t);
        // Projected from the finger's position (where the drag puts the card).
        const fingerX = this.pointer.startX + p.x - this.pointer.x, fingerY = this.pointer.startY + p.y - this.pointer.y;
        const px = fingerX + v.x * this.projection, py = fingerY + v.y * this.projection;
        const slot = this.slots.reduce((best, s) => (Math.hypot(s.x - px, s.y - py) < Math.hypot(best.x - px, best.y - py) ? s : best));
        this.destination = slot.name;
        this.release = { x: this.x, y: this.y, vx: v.x, vy: v.y };
        this.k.mi_toss_destination(this.scene, slot.x, slot.y);
        this.gesture(2, p);
        this.pointer = null;
        this.released = true;
    }

    frame(dt) {
        const status = this.k.mi_toss_advance(this.scene, dt);
        if (status !== 0) throw new Error(`mi_toss_advance: ${status}`);
        this.frameNumber += 1;
        this.time += dt;
        this.frameTimes.push(this.time);
        const wasAtRest = this.atRest;
        this.read();
        // The first frame after a release: the kernel's prediction of the toss's rest (nothing
        // changes the springs after it, so a prediction then holds until the rest).
        if (this.released) {
            this.released = false;
            if (this.k.mi_toss_rest_time(this.scene, this.seconds.pointer) !== 0) throw new Error('mi_toss_rest_time');
            this.prediction = { frame: this.frameNumber, time: this.time, seconds: this.seconds.view[0] };
        }
        if (this.atRest && !wasAtRest && this.prediction) {
            this.rests.push({ element: 'card', axis: 'x, y', frame: this.frameNumber, time: this.time, predicted: this.prediction });
        }
    }

    render() {
        this.node.style.transform = `translate(${this.x - this.look.width / 2}px, ${this.y - this.look.height / 2}px)`;
    }

    state() {
        const { width, height, color } = this.look;
        const atRest = this.atRest && this.pointer === null;
        return {
            frame: this.frameNumber, time: this.time,
            elements: [{ name: 'card', x: this.x, y: this.y, vx: 0, vy: 0, atRest, box: [this.x - width / 2, this.y - height / 2, width, height], color }],
            // The layer's streams: one (the card's position), awake unless the Tossable rests.
            awake: atRest ? 0 : 1, total: 1, layer: true,
            slots: this.slots, projection: this.projection, destination: this.destination, release: this.release, rests: this.rests,
        };
    }

    dispose() {
        this.k.mi_toss_destroy(this.scene);
        this.out.free();
        this.seconds.free();
    }
}

export const scenes = {
    'pauses-spring': PausesSpringScene,
    'attach-with-spring': AttachWithSpringScene,
    'tossable': TossableScene,
    'spring-source': SpringSourceScene,
    'many-springs': ManySpringsScene,
    'tossable-layer': TossableLayerScene,
};
