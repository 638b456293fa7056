// scenes.mjs: the demo page's scenes, the seeds run by the interaction layer
// (Sources/MotionInteractions, in the module beside the kernel; interactions.mjs calls it).
//
// A scene draws into the stage (an 800 x 600 CSS-pixel box at the page's top left), takes the
// stage's pointer events (down, move, up: {id, x, y, t} in stage pixels and seconds), and is
// stepped once a requestAnimationFrame frame with that frame's dt. state() is what
// springKernelDemo.state() adds for it.
import { MotionStage, PointerDrag } from './interactions.mjs';

export const stageWidth = 800, stageHeight = 600;

// A scene of DOM elements whose centres the layer moves.
class ElementScene {
    constructor(kernel, stage) {
        this.layer = new MotionStage(kernel);
        this.stage = stage;
        this.nodes = new Map();
    }

    // An element and its node: a box of `width` x `height` of `color` (round if `round`).
    element(name, options) {
        const e = this.layer.addElement(name, options);
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
    get frameCount() { return this.layer.frame; }
    /** The kernel clock after each frame. */
    get frameTimes() { return this.layer.frameTimes; }

    down() {}
    move() {}
    up() {}

    frame(dt) {
        this.beforeStep?.();
        this.layer.step(dt);
    }

    render() {
        for (const [e, node] of this.nodes) {
            const [left, top] = e.state().box;
            node.style.transform = `translate(${left}px, ${top}px)`;
        }
    }

    state() {
        const { springs, awake } = this.layer.counts;
        return {
            frame: this.layer.frame, time: this.layer.time,
            elements: this.layer.elements.map((e) => e.state()),
            awake, total: springs,
            rests: this.layer.rests,
        };
    }

    dispose() {
        this.layer.dispose();
    }
}

/** A scene whose element the pointer drags (`this.drag`, a PointerDrag); `released` once a drag has ended. */
class DraggedElementScene extends ElementScene {
    down(p) { this.drag.down(p); }
    move(p) { this.drag.move(p); }
    up(p) {
        if (!this.drag.active) return;
        this.drag.up(p);
        this.released = true;
    }
}

/** Seed 000: PausesSpring's drag to open. A sheet dragged down past the boundary opens; short of it, closes. */
export class PausesSpringScene extends DraggedElementScene {
    static description = 'Drag the sheet down: past the dashed line it springs open, short of it closed (Draggable, SpringTo and PausesSpring of the interaction layer, seed 000).';

    constructor(kernel, stage, { closed = 150, open = 350, boundary = 100 } = {}) {
        super(kernel, stage);
        Object.assign(this, { closed, open, boundary });
        this.decoration('boundary', 0, closed + boundary, stageWidth, 0, 'boundary');
        this.sheet = this.element('sheet', { x: 400, y: closed, width: 360, height: 240, color: '#3b6fd8', label: 'drag me down' });
        this.layer.dragToOpen(this.sheet, { closed, open, boundary });
        // A vertical pan: the sheet moves along y only.
        this.drag = new PointerDrag(this.sheet, { axis: 'y' });
        this.released = false;
    }

    state() {
        return { ...super.state(), closed: this.closed, open: this.open, boundary: this.boundary,
            destination: this.sheet.choice === 1 ? 'open' : 'closed', release: this.released ? this.sheet.release : null };
    }
}

/** Seed 002: AttachWithSpring. Drag the ring; the disc is attached to it by a spring. */
export class AttachWithSpringScene extends ElementScene {
    static description = 'Drag the orange ring: the blue disc follows it on a spring and rests where it stops (AttachWithSpring of the interaction layer, seed 002).';

    constructor(kernel, stage) {
        super(kernel, stage);
        this.follower = this.element('follower', { x: 250, y: 300, width: 56, height: 56, color: '#3b6fd8', round: true });
        this.anchor = this.element('anchor', { x: 250, y: 300, width: 40, height: 40, color: '#f08c2e', round: true });
        this.layer.attach(this.follower, this.anchor);
        this.pointer = null;
        this.written = null;
    }

    down(p) {
        if (this.pointer !== null || !this.anchor.contains(p)) return;
        this.pointer = { id: p.id, dx: this.anchor.x - p.x, dy: this.anchor.y - p.y, x: this.anchor.x, y: this.anchor.y };
    }

    move(p) {
        if (this.pointer === null || p.id !== this.pointer.id) return;
        this.pointer.x = p.x + this.pointer.dx;
        this.pointer.y = p.y + this.pointer.dy;
    }

    up(p) {
        if (this.pointer === null || p.id !== this.pointer.id) return;
        this.move(p);
        // Where the ring is let go, at once (no frame may come before the next pointer).
        this.writeTarget();
        this.pointer = null;
    }

    // The ring's position, written by the page every frame it is held (the attached spring's
    // destination): a change is the follower's springs' change, and the kernel predicts anew.
    writeTarget() {
        const { x, y } = this.pointer;
        this.layer.move(this.anchor, x, y);
        if (this.written === null || this.written.x !== x || this.written.y !== y) {
            this.written = { x, y };
            this.layer.changed(this.follower);
        }
    }

    beforeStep() {
        if (this.pointer !== null) this.writeTarget();
    }

    state() {
        const base = super.state();
        // The ring is moved by the page: at rest unless a finger holds it.
        base.elements.find((e) => e.name === 'anchor').atRest = this.pointer === null;
        return base;
    }
}

/** Seed 003: Tossable. Toss the card: it lands in the slot its release velocity carries it toward. */
export class TossableScene extends DraggedElementScene {
    static description = 'Toss the card: it springs to the slot its release velocity points at, at that velocity (Tossable of the interaction layer, seed 003).';

    constructor(kernel, stage, { projection = 0.2 } = {}) {
        super(kernel, stage);
        this.slots = [{ name: 'left', x: 200, y: 300 }, { name: 'right', x: 600, y: 300 }];
        this.projection = projection;
        for (const s of this.slots) this.decoration('slot', s.x - 70, s.y - 50, 140, 100, s.name);
        this.card = this.element('card', { x: 200, y: 300, width: 120, height: 80, color: '#2e9d5b', label: 'toss me' });
        this.layer.toss(this.card, { slots: this.slots, projection });
        this.drag = new PointerDrag(this.card);
        this.released = false;
    }

    state() {
        const card = this.card;
        return { ...super.state(), slots: this.slots, projection: this.projection, destination: this.slots[card.choice].name, release: this.released ? card.release : null };
    }
}

/** Seed 004: springSource. Three springs of their own tension and friction; a tap sends them across. */
export class SpringSourceScene extends ElementScene {
    static description = 'Tap the stage: each spring (its tension and friction in the panel) emits values until the kernel says it rests (springSource of the interaction layer, seed 004).';

    constructor(kernel, stage, { configurations = [{ tension: 342, friction: 30 }, { tension: 342, friction: 10 }, { tension: 120, friction: 14 }] } = {}) {
        super(kernel, stage);
        this.left = 150; this.right = 650;
        this.sources = configurations.map((c, i) => {
            const y = 150 + 150 * i;
            this.decoration('track', this.left, y - 1, this.right - this.left, 2);
            const e = this.element(`source-${i}`, { x: this.left, y, width: 44, height: 44, color: ['#3b6fd8', '#d8473b', '#8e44ad'][i % 3], round: true });
            this.layer.springSource(e, c);
            e.startFrame = null;
            return e;
        });
        this.toward = this.left;
        this.tap = null;
    }

    down(p) { this.tap = p; }
    up(p) {
        if (this.tap === null || Math.hypot(p.x - this.tap.x, p.y - this.tap.y) > 10) { this.tap = null; return; }
        this.tap = null;
        this.toward = this.toward === this.left ? this.right : this.left;
        for (const e of this.sources) {
            e.startFrame = this.layer.frame;
            this.layer.start(e, this.toward, e.y);
        }
    }

    /** Sets source i's tension and friction (the panel's fields). */
    configure(i, tension, friction) {
        this.layer.configure(this.sources[i], tension, friction);
    }

    state() {
        const base = super.state();
        base.elements.forEach((e, i) => {
            const s = this.sources[i];
            // Its rest frame since its last start (null while it moves).
            const restFrame = s.startFrame !== null && s.restFrame > s.startFrame ? s.restFrame : null;
            Object.assign(e, { ...s.configuration, emitted: s.emitted, startFrame: s.startFrame, restFrame });
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
            // The targets and the step in one call: one pass over the lanes.
            this.bank.layoutRetargetStep(layout, this.targets, dt);
            this.moved = false;
        } else {
            this.bank.step(dt);
        }
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

export const scenes = {
    'pauses-spring': PausesSpringScene,
    'attach-with-spring': AttachWithSpringScene,
    'tossable': TossableScene,
    'spring-source': SpringSourceScene,
    'many-springs': ManySpringsScene,
};
