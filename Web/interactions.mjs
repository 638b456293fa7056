// interactions.mjs: the seeds' interactions over the kernel's springs, for the demo page.
//
// A stand-in, in JavaScript, for the interaction layer (Sources/MotionInteractions: Draggable,
// PausesSpring, SpringTo, AttachWithSpring, Tossable, SpringSource) until its Embedded Swift build
// (issue 35) joins the kernel in the .wasm; the names are the layer's, so that the scenes
// (scenes.mjs) keep their shape when the layer's calls replace these classes. What is here is
// gesture bookkeeping only: every spring is the kernel's, stepped by it, and rest is never decided
// here: an element's axis is at rest when the kernel's step listed its spring as rested
// (sk_bank_rested), or when the kernel's state says it never left (on its target, zero velocity).
//
// Positions are CSS pixels in the stage, an element's being its centre; velocities pixels a second.

const axes = ['x', 'y'];

/** The springs of a scene's elements: one kernel bank, its frame clock and its rest events. */
export class MotionRuntime {
    constructor(kernel) {
        this.kernel = kernel;
        this.bank = kernel.createBank({ capacity: 64 });
        this.elements = [];
        /** Steps taken, and the sum of their dt (seconds): the kernel's clock. */
        this.frame = 0;
        this.time = 0;
        /** The clock after each frame: frameTimes[f - 1] is the time at the end of frame f. */
        this.frameTimes = [];
        /** Every rest event: {element, axis, frame, time, predicted: {frame, time, seconds}}. */
        this.rests = [];
        this._byHandle = new Map();
    }

    /** An element with a spring per axis, at rest at (x, y). */
    addElement(name, { x, y, tension = 342, friction = 30, tolerance = 0.5, ...look }) {
        const springs = this.bank.add({ values: new Float32Array([x, y]), targets: new Float32Array([x, y]), tension, friction, tolerance });
        const element = new MotionElement(this, name, springs, x, y, look);
        element.configuration = { tension, friction };
        this.elements.push(element);
        springs.forEach((handle, axis) => this._byHandle.set(handle, [element, axis]));
        return element;
    }

    /** One frame of `dt` seconds: the kernel's step, then its rest events and the new state. */
    step(dt) {
        this.bank.step(dt);
        this.frame += 1;
        this.time += dt;
        this.frameTimes.push(this.time);
        this.readState();
        for (const handle of this.bank.rested()) {
            const [element, axis] = this._byHandle.get(handle);
            element.atRest[axis] = true;
            this.rests.push({ element: element.name, axis: axes[axis], frame: this.frame, time: this.time, predicted: element.predictions[axis] });
            element.onRest?.(axis, this.frame);
        }
    }

    /** Every element's value and velocity, read from the kernel. */
    readState() {
        if (this.elements.length === 0) return;
        const handles = new BigUint64Array(this.elements.length * 2);
        this.elements.forEach((e, i) => handles.set(e.springs, 2 * i));
        const values = this.bank.read('value', handles), velocities = this.bank.read('velocity', handles);
        this.elements.forEach((e, i) => {
            e.x = values[2 * i]; e.y = values[2 * i + 1];
            e.vx = velocities[2 * i]; e.vy = velocities[2 * i + 1];
        });
    }

    /** The bank's springs and awake springs. */
    counts() {
        return this.bank.counts();
    }

    dispose() {
        this.bank.destroy();
    }
}

/** An element whose x and y are springs of the runtime's bank. */
export class MotionElement {
    constructor(runtime, name, springs, x, y, look) {
        this.runtime = runtime;
        this.name = name;
        this.springs = springs;
        this.x = x; this.y = y; this.vx = 0; this.vy = 0;
        this.look = look;
        this.atRest = [true, true];
        /** Per axis, the kernel's rest prediction after the last change: {frame, time, seconds}. */
        this.predictions = [null, null];
        this.mask = null;
    }

    /**
     * After a change to the springs (a retarget, a new state, a resume): which axes move now, as
     * the kernel's state says, and when the kernel predicts each will rest (sk_bank_rest_time: the
     * first frame ending at least that many seconds from now).
     */
    changed() {
        const bank = this.runtime.bank;
        const values = bank.read('value', this.springs), targets = bank.read('target', this.springs), velocities = bank.read('velocity', this.springs);
        const seconds = bank.restTime(this.springs);
        for (let axis = 0; axis < 2; axis++) {
            const still = values[axis] === targets[axis] && velocities[axis] === 0;
            if (!still) this.atRest[axis] = false;
            this.predictions[axis] = { frame: this.runtime.frame, time: this.runtime.time, seconds: seconds[axis] };
        }
        this.runtime.readState();
    }

    /** Where the springs pull. */
    target() {
        const t = this.runtime.bank.read('target', this.springs);
        return { x: t[0], y: t[1] };
    }

    /** State for springKernelDemo.state(). */
    state() {
        const { width, height } = this.look;
        return {
            name: this.name, x: this.x, y: this.y, vx: this.vx, vy: this.vy,
            atRest: this.atRest[0] && this.atRest[1] && !this.held,
            box: [this.x - width / 2, this.y - height / 2, width, height], color: this.look.color,
        };
    }
}

/** SpringTo: pulls the element's springs toward a destination (a paused spring keeps it until resumed). */
export function springTo(element, x, y) {
    element.runtime.bank.retarget(element.springs, new Float32Array([x, y]));
    element.changed();
}

/**
 * The pointer's velocity at release, from the samples of the last 100 ms (event timestamps): the
 * layer's GestureVelocityEstimator's window. Zero if the pointer stood still for 100 ms.
 */
export class GestureVelocityEstimator {
    constructor(window = 0.1) {
        this.window = window;
        this.samples = [];
    }

    add(x, y, seconds) {
        this.samples.push({ x, y, t: seconds });
        while (this.samples.length > 2 && seconds - this.samples[0].t > this.window) this.samples.shift();
    }

    velocity(now) {
        const s = this.samples.filter((p) => now - p.t <= this.window);
        if (s.length < 2) return { x: 0, y: 0 };
        const first = s[0], last = s[s.length - 1], dt = last.t - first.t;
        return dt > 0 ? { x: (last.x - first.x) / dt, y: (last.y - first.y) / dt } : { x: 0, y: 0 };
    }
}

/**
 * Draggable with PausesSpring: while a pointer holds the element, its springs are paused (a pause
 * mask) and the element follows the pointer (the paused springs' state set, frozen); at release
 * the mask lets go, handing the springs the gesture's position and velocity. `axis`: 'both',
 * 'x' or 'y' (the other stays). Hooks: onMove(element) during the drag, onRelease(element,
 * velocity) before the springs resume (where a destination is chosen).
 */
export class Draggable {
    constructor(element, { axis = 'both', onMove = null, onRelease = null } = {}) {
        this.element = element;
        this.axis = axis;
        this.onMove = onMove;
        this.onRelease = onRelease;
        element.mask = element.runtime.bank.createMask(element.springs);
        this.pointer = null;
        this.estimator = null;
        /** The last release: {x, y, vx, vy} (the gesture's velocity). */
        this.release = null;
    }

    contains(p) {
        const [left, top, width, height] = this.element.state().box;
        return p.x >= left && p.x <= left + width && p.y >= top && p.y <= top + height;
    }

    down(p) {
        if (this.pointer !== null || !this.contains(p)) return false;
        const e = this.element;
        e.runtime.bank.pause(e.mask);
        e.held = true;
        this.pointer = { id: p.id, x: p.x, y: p.y, startX: e.x, startY: e.y };
        this.estimator = new GestureVelocityEstimator();
        this.estimator.add(p.x, p.y, p.t);
        return true;
    }

    move(p) {
        if (this.pointer === null || p.id !== this.pointer.id) return;
        const e = this.element;
        this.estimator.add(p.x, p.y, p.t);
        const x = this.axis === 'y' ? this.pointer.startX : this.pointer.startX + p.x - this.pointer.x;
        const y = this.axis === 'x' ? this.pointer.startY : this.pointer.startY + p.y - this.pointer.y;
        e.runtime.bank.setState(e.springs, new Float32Array([x, y]), null);
        e.runtime.readState();
        this.onMove?.(e);
    }

    up(p) {
        if (this.pointer === null || p.id !== this.pointer.id) return;
        const e = this.element;
        this.move(p);
        const v = this.estimator.velocity(p.t);
        const velocity = { x: this.axis === 'y' ? 0 : v.x, y: this.axis === 'x' ? 0 : v.y };
        this.release = { x: e.x, y: e.y, vx: velocity.x, vy: velocity.y };
        this.onRelease?.(e, velocity);
        e.runtime.bank.resume(e.mask, e.springs, new Float32Array([e.x, e.y]), new Float32Array([velocity.x, velocity.y]));
        e.held = false;
        this.pointer = null;
        e.changed();
    }
}

/**
 * PausesSpring's seed (000), drag to open: a sheet dragged along y springs to `closed` or `open`;
 * crossing `boundary` (past closed) during the drag moves the paused spring's destination, which
 * the release lets it continue to.
 */
export class DragToOpen {
    constructor(element, { closed, open, boundary }) {
        this.closed = closed; this.open = open; this.boundary = boundary;
        this.willOpen = false;
        this.draggable = new Draggable(element, {
            axis: 'y',
            onMove: (e) => {
                const crossed = e.y - this.closed > this.boundary;
                if (crossed !== this.willOpen) {
                    this.willOpen = crossed;
                    springTo(e, e.x, crossed ? this.open : this.closed);
                }
            },
        });
    }
}

/** AttachWithSpring (seed 002): the element's springs pull it toward the destination element's position, wherever it moves. */
export class AttachWithSpring {
    constructor(element, destination) {
        this.element = element;
        this.destination = destination;
    }

    /** The destination moved: the springs' targets follow. */
    destinationMoved() {
        springTo(this.element, this.destination.x, this.destination.y);
    }
}

/**
 * Tossable (seed 003): dragged, then tossed: at release the destination is the slot nearest to
 * where the release velocity would carry the element in `projection` seconds, and the springs
 * start from the release position at the release velocity.
 */
export class Tossable {
    constructor(element, { slots, projection = 0.2 }) {
        this.slots = slots;
        this.projection = projection;
        this.destination = null;
        this.draggable = new Draggable(element, {
            onRelease: (e, v) => {
                const px = e.x + v.x * this.projection, py = e.y + v.y * this.projection;
                let best = null;
                for (const slot of this.slots) {
                    const d = Math.hypot(slot.x - px, slot.y - py);
                    if (best === null || d < best.d) best = { slot, d };
                }
                this.destination = best.slot.name;
                e.runtime.bank.retarget(e.springs, new Float32Array([best.slot.x, best.slot.y]));
            },
        });
    }
}

/**
 * springSource (seed 004): a spring with a configurable tension and friction that emits its value
 * every frame from a start until the kernel says it rests (the rest frame's value, on its target,
 * is the last one).
 */
export class SpringSource {
    constructor(element) {
        this.element = element;
        this.emitted = 0;
        this.startFrame = null;
        this.restFrame = null;
        this.lastValue = null;
        this._moving = false;
        element.onRest = () => {
            if (this._moving && element.atRest[0] && element.atRest[1]) {
                this.emit();
                this._moving = false;
                this.restFrame = element.runtime.frame;
            }
        };
    }

    /** Sets the spring's configuration (sk_bank_configure: the state is kept). */
    configure(tension, friction) {
        const e = this.element;
        e.runtime.bank.configure(e.springs, { tension, friction, mass: 1 });
        e.configuration = { tension, friction };
        if (this._moving) e.changed();
    }

    /** Starts toward (x, y). */
    start(x, y) {
        springTo(this.element, x, y);
        this.emitted = 0;
        this.startFrame = this.element.runtime.frame;
        this.restFrame = null;
        this._moving = !(this.element.atRest[0] && this.element.atRest[1]);
    }

    /** Called each frame after the step: a value while moving. */
    afterStep() {
        if (this._moving) this.emit();
    }

    emit() {
        this.emitted += 1;
        this.lastValue = { x: this.element.x, y: this.element.y };
    }
}
