// Types of spring-kernel.mjs: SpringKernel's C interface (Sources/SpringKernelC/include/spring_kernel.h)
// for JavaScript, over the WebAssembly module .ci/web build makes.

/** The lane format of a bank (sk_format). */
export declare const Format: Readonly<{ float32: 0; q16: 1 }>;
/** What a read reads (sk_quantity). */
export declare const Quantity: Readonly<{ value: 0; velocity: 1; target: 2 }>;
/** Which springs a storage-order call covers (sk_region). */
export declare const Region: Readonly<{ all: 0; moving: 1 }>;

export type FormatName = keyof typeof Format;
export type QuantityName = keyof typeof Quantity;
export type RegionName = keyof typeof Region;
/** float32 banks take Float32Array lanes; Q16.16 banks raw Int32Array lanes (the number times 65536). */
export type Lanes = Float32Array | Int32Array;
/** A list of spring handles: a JavaScript array (copied into wasm memory for the call) or one in wasm memory. */
export type SpringList = BigUint64Array | WasmArray<BigUint64Array>;
export type LaneList = Lanes | WasmArray<Float32Array> | WasmArray<Int32Array>;

/** A refused call; the bank is as it was before it. */
export declare class SpringKernelError extends Error {
    /** The C function ("sk_bank_step"). */
    readonly call: string;
    /** The sk_status code. */
    readonly status: number;
    /** Its name ("invalid_time_step"). */
    readonly statusName: string;
}

/** Whether this engine runs WebAssembly SIMD (WebAssembly.validate on a one-instruction module). */
export declare function simdSupported(): boolean;

export interface LoadOptions {
    /** Which build: default simdSupported(). */
    simd?: boolean;
    /** Where the .wasm files are (default: beside spring-kernel.mjs). */
    baseURL?: string | URL;
    /** The module's bytes, instead of fetching it. */
    bytes?: BufferSource;
}

/** Loads spring-kernel-simd128.wasm where SIMD validates, else spring-kernel-scalar.wasm. */
export declare function loadSpringKernel(options?: LoadOptions): Promise<SpringKernel>;

type TypedArrayConstructor<T> = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number };

/** An array in wasm memory: passed to a call as is (no copy). */
export declare class WasmArray<T extends Float32Array | Int32Array | Uint32Array | Float64Array | BigUint64Array> {
    /** Its address in wasm memory. */
    readonly pointer: number;
    readonly length: number;
    /** A typed array over it, made again when memory.grow has detached the last one: take it after any call that may allocate. */
    readonly view: T;
    /** Gives the memory back. */
    free(): void;
}

/** One instance of the module. */
export declare class SpringKernel {
    /** The module's exports: the sk_ calls as spring_kernel.h declares them (uint64_t as BigInt, pointers and size_t as i32), skw_allocate, skw_deallocate, skw_simd128, and the interaction layer's calls (MotionInteractionsExports). */
    readonly exports: WebAssembly.Exports & MotionInteractionsExports & Record<string, Function>;
    readonly memory: WebAssembly.Memory;
    /** True for the SIMD128 build. */
    readonly simd: boolean;
    /** The .wasm file loaded. */
    readonly file: string;
    /** Its size in bytes, when the response said. */
    readonly bytes: number | undefined;
    /** Milliseconds from fetch to a ready instance (compile included). */
    readonly loadMilliseconds: number;
    /** `length` zeroed elements in wasm memory. */
    allocate<T extends Float32Array | Int32Array | Uint32Array | Float64Array | BigUint64Array>(Type: TypedArrayConstructor<T>, length: number): WasmArray<T>;
    /** sk_bank_create. */
    createBank(options?: { format?: FormatName; threads?: number; capacity?: number }): SpringBank;
    /** sk_status_name. */
    statusName(status: number): string;
}

export interface SpringParameters {
    values: LaneList;
    targets: LaneList;
    /** Default: all 0. */
    velocities?: LaneList | null;
    /** Default 342. */
    tension?: number;
    /** Default 30. */
    friction?: number;
    /** Default 1. */
    mass?: number;
    /** The rest band's half-width (default 0.5; a raw Q16.16 number for a q16 bank). */
    tolerance?: number;
}

/** A layout: the springs of a region in the bank's order, valid until `version` moves on. */
export interface Layout {
    count: number;
    version: bigint;
}

/** A bank of springs: each method one C call, its refusal thrown as a SpringKernelError. */
export declare class SpringBank {
    readonly kernel: SpringKernel;
    readonly id: bigint;
    readonly format: FormatName;
    /** sk_bank_add_f32 / _q16: the new springs' handles. */
    add(parameters: SpringParameters): BigUint64Array;
    /** sk_bank_step: any finite dt > 0, new every frame if need be. */
    step(dt: number): void;
    /** sk_bank_retarget_*. */
    retarget(springs: SpringList, targets: LaneList): void;
    /** sk_bank_set_state_* (velocities null: 0). */
    setState(springs: SpringList, values: LaneList, velocities?: LaneList | null): void;
    /** sk_bank_impulse_*. */
    impulse(springs: SpringList, deltas: LaneList): void;
    /** sk_bank_configure. */
    configure(springs: SpringList, configuration?: { tension?: number; friction?: number; mass?: number }): void;
    /** sk_bank_set_tolerance_*. */
    setTolerance(springs: SpringList, tolerance: number): void;
    /** sk_bank_set_user_values. */
    setUserValues(springs: SpringList, values: BigUint64Array | WasmArray<BigUint64Array>): void;
    /** sk_bank_read_*: into `out` (returned), or a new array. */
    read<T extends LaneList>(quantity: QuantityName, springs: SpringList, out?: T | null): T;
    /** sk_bank_rested: the springs the last step brought to rest, each snapped onto its target. */
    rested(): BigUint64Array;
    /** sk_bank_saturated. */
    saturated(): BigUint64Array;
    /** sk_bank_rest_time: seconds from now until each spring stays within its tolerance for good (0 at rest, Infinity never). */
    restTime(springs: SpringList): Float64Array;
    /** sk_bank_counts. */
    counts(): { springs: number; awake: number; frames: number };
    /** sk_bank_layout. */
    layout(region?: RegionName): Layout;
    /** sk_layout_read_*: `out.length` must be the layout's count. */
    layoutRead<T extends LaneList>(quantity: QuantityName, layout: Layout, out: T, region?: RegionName): T;
    /** sk_layout_read_user_values. */
    layoutUserValues<T extends BigUint64Array | WasmArray<BigUint64Array>>(layout: Layout, out: T, region?: RegionName): T;
    /** sk_layout_retarget_*. */
    layoutRetarget(layout: Layout, targets: LaneList, region?: RegionName): void;
    /** sk_layout_retarget_step_*: layoutRetarget then step(dt), in one call. */
    layoutRetargetStep(layout: Layout, targets: LaneList, dt: number, region?: RegionName): void;
    /** sk_bank_set_fixed_timestep (0: the variable clock). */
    setFixedTimestep(seconds: number): void;
    /** sk_bank_state_hash. */
    stateHash(): bigint;
    /** sk_mask_create: a mask handle, not pausing. */
    createMask(springs?: SpringList | null): bigint;
    /** sk_mask_pause. */
    pause(mask: bigint): void;
    /** sk_mask_resume_*: springs[i] moves on from values[i] at velocities[i]. */
    resume(mask: bigint, springs?: SpringList | null, values?: LaneList | null, velocities?: LaneList | null): void;
    /** sk_mask_destroy. */
    destroyMask(mask: bigint): void;
    /** sk_mask_insert. */
    maskInsert(mask: bigint, springs: SpringList): void;
    /** sk_mask_remove. */
    maskRemove(mask: bigint, springs: SpringList): void;
    /** sk_bank_read_user_values. */
    userValues(springs: SpringList): BigUint64Array;
    /** sk_layout_read_springs. */
    layoutSprings<T extends BigUint64Array | WasmArray<BigUint64Array>>(layout: Layout, out: T, region?: RegionName): T;
    /** sk_layout_set_state_* (velocities null: 0). */
    layoutSetState(layout: Layout, values: LaneList, velocities?: LaneList | null, region?: RegionName): void;
    /** sk_layout_set_user_values. */
    layoutSetUserValues(layout: Layout, values: BigUint64Array | WasmArray<BigUint64Array>, region?: RegionName): void;
    /** sk_bank_set_threading. */
    setThreading(threads: number): void;
    /** sk_bank_remove. */
    remove(springs: SpringList): void;
    /** sk_bank_destroy. */
    destroy(): void;
}

/**
 * The interaction layer's calls (Web/MotionInteractionsWeb.swift; interactions.mjs wraps them):
 * a stage is one MotionRuntime of the layer and a table of elements, ids are indices (i32), and a
 * negative result is an error: -1 an unknown id or address, -2 a refused argument or call.
 * Addresses are wasm memory offsets (a WasmArray's `pointer`).
 */
export interface MotionInteractionsExports {
    /** A new stage (an empty runtime): its id (its slot in the low 16 bits, the slot's generation above: a destroyed stage's id is refused). */
    mi_stage_create(): number;
    /** Frees a stage, its runtime, springs and elements. */
    mi_stage_destroy(stage: number): void;
    /** One frame of `dt` seconds (the kernel's step, the layer's deliveries and rests); -2 for a dt not finite and positive. */
    mi_stage_advance(stage: number, dt: number): number;
    /**
     * Writes the stage to `out` (a Float64 address of `capacity` doubles): frame, kernel springs,
     * awake springs, elements; then 12 doubles an element, by id: x, y, vx, vy, at rest (1/0),
     * last rest frame (-1 none), values emitted, destination chosen, release x, y, vx, vy.
     * Returns the element count (-2: `capacity` too small).
     */
    mi_stage_read(stage: number, out: number, capacity: number): number;
    /** The kernel's rest prediction for the element's springs (SpringBankReader.restTime, the longest), seconds, to `out` (a Float64 address). */
    mi_stage_rest_time(stage: number, element: number, out: number): number;
    /** A new element at (x, y): its id. */
    mi_element_create(stage: number, x: number, y: number): number;
    /** Writes the element's position (an AttachWithSpring's target). */
    mi_element_move(stage: number, element: number, x: number, y: number): number;
    /** A pan gesture event for the element's recognizer: phase 0 began, 1 changed, 2 ended, 3 cancelled; translation since it began; time in seconds. -2 if ignored. */
    mi_gesture(stage: number, element: number, phase: number, x: number, y: number, seconds: number): number;
    /** The tension and friction (mass 1) of the spring that moves the element, its state kept. */
    mi_configure(stage: number, element: number, tension: number, friction: number): number;
    /** Seed 000: Draggable + SpringTo + PausesSpring, springing to (x, openY) when dragged more than `boundary` below closedY, else to (x, closedY). */
    mi_drag_to_open(stage: number, element: number, closedY: number, openY: number, boundary: number): number;
    /** Seed 002: AttachWithSpring from the element to `target`'s position. */
    mi_attach(stage: number, element: number, target: number): number;
    /** Seed 003: Tossable to the slot (of `count` x, y Float32 pairs at `slots`) nearest the release velocity's projection over `projection` seconds. */
    mi_toss(stage: number, element: number, slots: number, count: number, projection: number): number;
    /** Seed 004: a springSource spring of the element's position, of its own tension and friction. */
    mi_spring_source(stage: number, element: number, tension: number, friction: number): number;
    /** Sends a springSource element toward (x, y), counting its values from zero. */
    mi_spring_source_start(stage: number, element: number, x: number, y: number): number;
}
