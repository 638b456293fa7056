// interactions.mjs: the interaction layer (Sources/MotionInteractions, in the module beside the
// kernel) for the demo page's scenes: thin calls into Web/MotionInteractionsWeb.swift's `mi_`
// exports (types: interactions.d.ts).
//
// A MotionStage is one MotionRuntime of the layer and a table of elements; each element is moved
// by one of the layer's interactions (dragToOpen, attach, toss, springSource), fed the page's
// pointer events as pan gesture events (gesture) and stepped by requestAnimationFrame's dt (step).
// Every element is read in one call per frame into a Float64Array in wasm memory. Rest is the
// layer's, from the kernel's rest events: an element rests when its interaction's state says so;
// this file only records when (a rest event), with the kernel's prediction made after the last
// change to its springs (predict: SpringBankReader.restTime).
//
// Positions are CSS pixels in the stage, an element's being its centre; velocities pixels a second.

/** A pan gesture event's phase (mi_gesture). */
export const Phase = Object.freeze({ began: 0, changed: 1, ended: 2, cancelled: 3 });

// mi_stage_read's layout: a header of 4 doubles (frame, springs, awake, elements), then 12 a element.
const headerLength = 4, recordLength = 12;

function check(call, status) {
    if (status < 0) throw new Error(`${call}: ${status === -1 ? 'unknown id or address' : 'refused'} (${status})`);
    return status;
}

/** A runtime of the interaction layer and its elements: one scene. */
export class MotionStage {
    constructor(kernel) {
        this.kernel = kernel;
        this.k = kernel.exports;
        this.id = check('mi_stage_create', this.k.mi_stage_create());
        /** The elements, by id. */
        this.elements = [];
        /** Frames stepped, and the sum of their dt (seconds): the kernel's clock. */
        this.frame = 0;
        this.time = 0;
        /** The clock after each frame: frameTimes[f - 1] is the time at the end of frame f. */
        this.frameTimes = [];
        /** Every rest event: {element, axis, frame, time, predicted: {frame, time, seconds}}. */
        this.rests = [];
        /** The kernel's springs and awake springs, as of the last read. */
        this.counts = { springs: 0, awake: 0 };
        this.records = null;
        this.seconds = kernel.allocate(Float64Array, 1);
    }

    /** An element at (x, y), moved by nothing until an interaction is set up on it. */
    addElement(name, { x, y, ...look }) {
        const id = check('mi_element_create', this.k.mi_element_create(this.id, x, y));
        const element = new StageElement(this, id, name, look);
        this.elements.push(element);
        this.records?.free();
        this.records = this.kernel.allocate(Float64Array, headerLength + recordLength * this.elements.length);
        this.read();
        return element;
    }

    /** Seed 000: the PausesSpring specification's drag to open (Draggable, SpringTo, PausesSpring). */
    dragToOpen(element, { closed, open, boundary }) {
        check('mi_drag_to_open', this.k.mi_drag_to_open(this.id, element.id, closed, open, boundary));
        this.read();
    }

    /** Seed 002: AttachWithSpring from `element` to `target`'s position (written with move()). */
    attach(element, target) {
        check('mi_attach', this.k.mi_attach(this.id, element.id, target.id));
        this.read();
    }

    /** Seed 003: Tossable, to the slot ({x, y}) nearest the release velocity's projection over `projection` s. */
    toss(element, { slots, projection }) {
        const pairs = this.kernel.allocate(Float32Array, 2 * slots.length);
        slots.forEach((s, i) => { pairs.view[2 * i] = s.x; pairs.view[2 * i + 1] = s.y; });
        try {
            check('mi_toss', this.k.mi_toss(this.id, element.id, pairs.pointer, slots.length, projection));
        } finally {
            pairs.free();
        }
        this.read();
    }

    /** Seed 004: a springSource spring of the element's position, of its own tension and friction. */
    springSource(element, { tension, friction }) {
        check('mi_spring_source', this.k.mi_spring_source(this.id, element.id, tension, friction));
        element.configuration = { tension, friction };
        this.read();
    }

    /** Sends a springSource element toward (x, y), counting its values from zero. */
    start(element, x, y) {
        check('mi_spring_source_start', this.k.mi_spring_source_start(this.id, element.id, x, y));
        this.changed(element);
    }

    /** Sets the tension and friction of the spring that moves the element, keeping its state. */
    configure(element, tension, friction) {
        check('mi_configure', this.k.mi_configure(this.id, element.id, tension, friction));
        element.configuration = { tension, friction };
        this.changed(element);
    }

    /** Writes an element's position (an AttachWithSpring's target). */
    move(element, x, y) {
        check('mi_element_move', this.k.mi_element_move(this.id, element.id, x, y));
    }

    /** A pan gesture event for the element's recognizer: the translation since it began, the event's time (s). */
    gesture(element, phase, x, y, seconds) {
        check('mi_gesture', this.k.mi_gesture(this.id, element.id, phase, x, y, seconds));
        this.changed(element);
    }

    /**
     * After a change to an element's springs (a gesture event, a moved target, a start): the
     * kernel's prediction of its rest (the first frame ending at least that many seconds from now).
     */
    changed(element) {
        check('mi_stage_rest_time', this.k.mi_stage_rest_time(this.id, element.id, this.seconds.pointer));
        element.prediction = { frame: this.frame, time: this.time, seconds: this.seconds.view[0] };
        this.read();
    }

    /** One frame of `dt` seconds: the runtime's step, its deliveries and rests, then the new state. */
    step(dt) {
        check('mi_stage_advance', this.k.mi_stage_advance(this.id, dt));
        this.frame += 1;
        this.time += dt;
        this.frameTimes.push(this.time);
        this.read();
    }

    /** Every element's state, from the layer (one call); a new rest frame is a rest event. */
    read() {
        const r = this.records;
        if (r === null) return;
        check('mi_stage_read', this.k.mi_stage_read(this.id, r.pointer, r.length));
        const v = r.view;
        this.counts.springs = v[1];
        this.counts.awake = v[2];
        for (const e of this.elements) {
            const o = headerLength + recordLength * e.id;
            e.x = v[o]; e.y = v[o + 1]; e.vx = v[o + 2]; e.vy = v[o + 3];
            e.atRest = v[o + 4] === 1;
            e.emitted = v[o + 6];
            e.choice = v[o + 7];
            const release = e.release;
            release.x = v[o + 8]; release.y = v[o + 9]; release.vx = v[o + 10]; release.vy = v[o + 11];
            const restFrame = v[o + 5];
            if (restFrame !== e.restFrame) {
                e.restFrame = restFrame;
                this.rests.push({ element: e.name, axis: 'x, y', frame: restFrame, time: this.frameTimes[restFrame - 1] ?? 0, predicted: e.prediction });
            }
        }
    }

    dispose() {
        this.k.mi_stage_destroy(this.id);
        this.records?.free();
        this.seconds.free();
    }
}

/** An element of a stage: what the layer last said of it. */
export class StageElement {
    constructor(stage, id, name, look) {
        this.stage = stage;
        this.id = id;
        this.name = name;
        this.look = look;
        this.x = 0; this.y = 0; this.vx = 0; this.vy = 0;
        this.atRest = true;
        /** The frame of its last rest (-1 none), values emitted (springSource), destination chosen. */
        this.restFrame = -1;
        this.emitted = 0;
        this.choice = 0;
        /** Where the finger last let go, and the release velocity (zeros before a release). */
        this.release = { x: 0, y: 0, vx: 0, vy: 0 };
        /** The kernel's rest prediction after the last change: {frame, time, seconds}. */
        this.prediction = null;
    }

    /** Whether the stage point p is inside the element's box. */
    contains(p) {
        const { width, height } = this.look;
        return Math.abs(p.x - this.x) <= width / 2 && Math.abs(p.y - this.y) <= height / 2;
    }

    /** State for springKernelDemo.state(). */
    state() {
        const { width, height, color } = this.look;
        return { name: this.name, x: this.x, y: this.y, vx: this.vx, vy: this.vy, atRest: this.atRest, box: [this.x - width / 2, this.y - height / 2, width, height], color };
    }
}

/**
 * A pointer dragging an element through its recognizer: the pointer that pressed inside it, the
 * translation since then (`axis` 'y': only the vertical one, as a sheet's vertical pan), sent as
 * began, changed and ended events with the pointer events' timestamps.
 */
export class PointerDrag {
    constructor(element, { axis = 'both' } = {}) {
        this.element = element;
        this.axis = axis;
        this.pointer = null;
    }

    get active() { return this.pointer !== null; }

    translation(p) {
        return [this.axis === 'y' ? 0 : p.x - this.pointer.x, p.y - this.pointer.y];
    }

    down(p) {
        if (this.pointer !== null || !this.element.contains(p)) return false;
        this.pointer = { id: p.id, x: p.x, y: p.y };
        this.element.stage.gesture(this.element, Phase.began, 0, 0, p.t);
        return true;
    }

    move(p) {
        if (this.pointer === null || p.id !== this.pointer.id) return;
        this.element.stage.gesture(this.element, Phase.changed, ...this.translation(p), p.t);
    }

    up(p) {
        if (this.pointer === null || p.id !== this.pointer.id) return;
        this.element.stage.gesture(this.element, Phase.ended, ...this.translation(p), p.t);
        this.pointer = null;
    }
}
