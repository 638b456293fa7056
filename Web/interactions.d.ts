// Types of interactions.mjs: the interaction layer's calls (Web/MotionInteractionsWeb.swift) for the demo page's scenes.
import type { SpringKernel } from './spring-kernel.mjs';

/** A pan gesture event's phase (mi_gesture). */
export declare const Phase: Readonly<{ began: 0; changed: 1; ended: 2; cancelled: 3 }>;

/** The kernel's rest prediction after an element's last change: the first frame ending at least `seconds` after `time` (the end of frame `frame`). */
export interface RestPrediction { frame: number; time: number; seconds: number }

/** A rest of an element's interaction (its state from the kernel's rest events), with the prediction made after its last change. */
export interface RestEvent { element: string; axis: 'x, y'; frame: number; time: number; predicted: RestPrediction | null }

/** A runtime of the interaction layer and its elements: one scene. Positions in stage pixels (an element's centre), velocities pixels a second. */
export declare class MotionStage {
    constructor(kernel: SpringKernel);
    readonly elements: StageElement[];
    /** Frames stepped, and the kernel's clock (the sum of their dt, seconds). */
    readonly frame: number;
    readonly time: number;
    /** frameTimes[f - 1]: the clock at the end of frame f. */
    readonly frameTimes: number[];
    readonly rests: RestEvent[];
    /** The kernel's springs and awake springs, as of the last read. */
    readonly counts: { springs: number; awake: number };
    /** An element at (x, y), moved by nothing until an interaction is set up on it; `look` is the page's (width, height, color...). */
    addElement(name: string, options: { x: number; y: number; width: number; height: number; color: string; [look: string]: unknown }): StageElement;
    /** Seed 000: the PausesSpring specification's drag to open. */
    dragToOpen(element: StageElement, options: { closed: number; open: number; boundary: number }): void;
    /** Seed 002: AttachWithSpring from `element` to `target`'s position. */
    attach(element: StageElement, target: StageElement): void;
    /** Seed 003: Tossable to the slot nearest the release velocity's projection over `projection` seconds. */
    toss(element: StageElement, options: { slots: { x: number; y: number }[]; projection: number }): void;
    /** Seed 004: a springSource spring of the element's position. */
    springSource(element: StageElement, configuration: { tension: number; friction: number }): void;
    /** Sends a springSource element toward (x, y). */
    start(element: StageElement, x: number, y: number): void;
    /** Sets the tension and friction of the element's spring. */
    configure(element: StageElement, tension: number, friction: number): void;
    /** Writes an element's position (an AttachWithSpring's target); call changed() on the follower after. */
    move(element: StageElement, x: number, y: number): void;
    /** A pan gesture event for the element's recognizer (then changed(element)). */
    gesture(element: StageElement, phase: number, x: number, y: number, seconds: number): void;
    /** Takes the kernel's rest prediction for the element after a change to its springs. */
    changed(element: StageElement): void;
    /** One frame of `dt` seconds. */
    step(dt: number): void;
    /** Reads every element from the layer (one call). */
    read(): void;
    dispose(): void;
}

/** An element of a stage: what the layer last said of it. */
export declare class StageElement {
    readonly stage: MotionStage;
    readonly id: number;
    readonly name: string;
    readonly x: number; readonly y: number; readonly vx: number; readonly vy: number;
    /** Its interaction's state is at rest, and no finger holds it. */
    readonly atRest: boolean;
    /** The frame of its last rest (-1 none), values its springSource emitted since its last start, the destination its interaction chose (toss slot; sheet 0 closed, 1 open). */
    readonly restFrame: number;
    readonly emitted: number;
    readonly choice: number;
    /** Where the finger last let go and the gesture's release velocity (zeros before a release). */
    readonly release: { x: number; y: number; vx: number; vy: number };
    readonly prediction: RestPrediction | null;
    contains(p: { x: number; y: number }): boolean;
    state(): { name: string; x: number; y: number; vx: number; vy: number; atRest: boolean; box: [number, number, number, number]; color: string };
}

/** A pointer dragging an element through its recognizer (`axis` 'y': vertical translations only). */
export declare class PointerDrag {
    constructor(element: StageElement, options?: { axis?: 'both' | 'y' });
    readonly active: boolean;
    down(p: { id: number; x: number; y: number; t: number }): boolean;
    move(p: { id: number; x: number; y: number; t: number }): void;
    up(p: { id: number; x: number; y: number; t: number }): void;
}
