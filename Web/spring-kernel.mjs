// spring-kernel.mjs: SpringKernel in WebAssembly, for JavaScript (types: spring-kernel.d.ts).
//
// Loads the module .ci/web build makes (the kernel and its C interface as Embedded Swift, no
// imports): spring-kernel-simd128.wasm where the engine validates WebAssembly SIMD, else
// spring-kernel-scalar.wasm. Every call is one of the C interface's (Sources/SpringKernelC,
// include/spring_kernel.h), with its semantics; a refused call throws a SpringKernelError carrying
// the status and its name, and, as in C, changes nothing.
//
// Arrays cross through wasm memory. A call given a JavaScript typed array copies it into scratch
// memory (and copies outputs out); a WasmArray (kernel.allocate) lives in wasm memory already,
// for the calls made every frame over many springs: no copy. Wasm memory can grow during any call
// that allocates (adding springs, making a bank), which detaches every view of the old buffer:
// WasmArray.view and the module's own views are made again whenever memory.buffer has changed, so
// take `.view` after such a call rather than keeping one across it.
//
// Handles and bank ids are uint64_t: BigInt here (a BigUint64Array for lists).

/** The lane format of a bank (sk_format). */
export const Format = Object.freeze({ float32: 0, q16: 1 });
/** What a read reads (sk_quantity). */
export const Quantity = Object.freeze({ value: 0, velocity: 1, target: 2 });
/** Which springs a storage-order call covers (sk_region). */
export const Region = Object.freeze({ all: 0, moving: 1 });

/** A refused call: `status` is the sk_status code, `statusName` its name ("stale_handle", ...). */
export class SpringKernelError extends Error {
    constructor(call, status, statusName) {
        super(`${call}: ${statusName} (${status})`);
        this.name = 'SpringKernelError';
        this.call = call;
        this.status = status;
        this.statusName = statusName;
    }
}

// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)): valid only where the engine
// has WebAssembly SIMD (the probe wasm-feature-detect uses).
const simdProbe = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/** Whether this engine runs WebAssembly SIMD (128-bit). */
export function simdSupported() {
    return WebAssembly.validate(simdProbe);
}

/**
 * Loads the kernel: the SIMD128 module where SIMD validates (or `options.simd` says so), else the
 * scalar one. `options.baseURL` is where the .wasm files are (default: beside this module);
 * `options.bytes` gives the module's bytes instead (Node, tests).
 */
export async function loadSpringKernel(options = {}) {
    const simd = options.simd ?? simdSupported();
    const file = simd ? 'spring-kernel-simd128.wasm' : 'spring-kernel-scalar.wasm';
    const started = performance.now();
    let result, bytes;
    if (options.bytes) {
        bytes = options.bytes.byteLength;
        result = await WebAssembly.instantiate(options.bytes, {});
    } else {
        const url = new URL(file, options.baseURL ?? new URL('./', import.meta.url));
        const response = await fetch(url);
        if (!response.ok) throw new Error(`loadSpringKernel: ${url}: HTTP ${response.status}`);
        bytes = Number(response.headers.get('content-length')) || undefined;
        result = await WebAssembly.instantiateStreaming(response, {});
    }
    const kernel = new SpringKernel(result.instance, { simd, file, bytes, loadMilliseconds: performance.now() - started });
    if ((kernel.exports.skw_simd128() === 1) !== simd) throw new Error(`loadSpringKernel: ${file} is not the ${simd ? 'SIMD128' : 'scalar'} build`);
    return kernel;
}

/** An array in wasm memory (kernel.allocate): its `pointer`, `length` and a `view` made anew after memory grows. */
export class WasmArray {
    constructor(kernel, Type, length, pointer) {
        this.kernel = kernel;
        this.Type = Type;
        this.length = length;
        this.pointer = pointer;
        this._view = null;
    }

    /** A typed array over the wasm memory (the same object until memory grows). */
    get view() {
        if (this.pointer === 0) throw new Error('WasmArray: used after free()');
        const buffer = this.kernel.memory.buffer;
        if (this._view === null || this._view.buffer !== buffer) this._view = new this.Type(buffer, this.pointer, this.length);
        return this._view;
    }

    /** Gives the memory back; the array is unusable after. */
    free() {
        if (this.pointer !== 0) this.kernel.exports.skw_deallocate(this.pointer);
        this.pointer = 0;
        this._view = null;
    }
}

const scratchSlots = 6;

/** One instance of the module: its memory and its banks. */
export class SpringKernel {
    constructor(instance, info) {
        this.exports = instance.exports;
        this.memory = instance.exports.memory;
        /** True for the SIMD128 build. */
        this.simd = info.simd;
        /** The .wasm file's name, its size in bytes (when known) and the milliseconds from fetch to instance. */
        this.file = info.file;
        this.bytes = info.bytes;
        this.loadMilliseconds = info.loadMilliseconds;
        // Scratch memory for the calls' arguments and outputs: one growing buffer per argument slot.
        this._scratch = Array.from({ length: scratchSlots }, () => ({ pointer: 0, bytes: 0 }));
        this._names = new Map();
    }

    /** `length` elements of `Type` (a typed array constructor) in wasm memory, zeroed. */
    allocate(Type, length) {
        const bytes = Math.max(1, length * Type.BYTES_PER_ELEMENT);
        const pointer = this.exports.skw_allocate(bytes);
        if (pointer === 0) throw new Error(`SpringKernel.allocate: no memory for ${bytes} bytes`);
        const array = new WasmArray(this, Type, length, pointer);
        array.view.fill(Type === BigUint64Array || Type === BigInt64Array ? 0n : 0);
        return array;
    }

    /** Makes a bank (sk_bank_create): `format` 'float32' or 'q16', `capacity` springs reserved. */
    createBank({ format = 'float32', threads = 1, capacity = 0 } = {}) {
        const code = Format[format];
        if (code === undefined) throw new Error(`createBank: unknown format ${format}`);
        const out = this._scratchArray(0, BigUint64Array, 1);
        this._check('sk_bank_create', this.exports.sk_bank_create(code, threads, capacity, out));
        return new SpringBank(this, this._read(BigUint64Array, out, 1)[0], format);
    }

    /** The name of a status code (sk_status_name). */
    statusName(status) {
        let name = this._names.get(status);
        if (name === undefined) {
            const pointer = this.exports.sk_status_name(status);
            const bytes = new Uint8Array(this.memory.buffer, pointer);
            name = new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0)));
            this._names.set(status, name);
        }
        return name;
    }

    _check(call, status) {
        if (status !== 0) throw new SpringKernelError(call, status, this.statusName(status));
    }

    // A scratch buffer of `length` elements of `Type` in slot `slot`; its address.
    _scratchArray(slot, Type, length) {
        const bytes = Math.max(16, length * Type.BYTES_PER_ELEMENT);
        const scratch = this._scratch[slot];
        if (scratch.bytes < bytes) {
            if (scratch.pointer !== 0) this.exports.skw_deallocate(scratch.pointer);
            const size = Math.max(bytes, scratch.bytes * 2);
            scratch.pointer = this.exports.skw_allocate(size);
            if (scratch.pointer === 0) throw new Error(`SpringKernel: no memory for ${size} bytes of scratch`);
            scratch.bytes = size;
        }
        return scratch.pointer;
    }

    // The address of an input array: a WasmArray's own, else the array copied into slot `slot`
    // (null or undefined: 0, the C interface's NULL).
    _in(slot, Type, array) {
        if (array === null || array === undefined) return 0;
        if (array instanceof WasmArray) {
            if (array.Type !== Type) throw new TypeError(`expected a WasmArray of ${Type.name}, got ${array.Type.name}`);
            return array.pointer;
        }
        const pointer = this._scratchArray(slot, Type, array.length);
        new Type(this.memory.buffer, pointer, array.length).set(array);
        return pointer;
    }

    // A copy of `length` elements of `Type` at `pointer`.
    _read(Type, pointer, length) {
        return new Type(this.memory.buffer, pointer, length).slice();
    }
}

function lengthOf(array) {
    return array.length;
}

/** A bank of springs (one sk_bank): every call as the C interface's, refusals thrown. */
export class SpringBank {
    constructor(kernel, id, format) {
        this.kernel = kernel;
        /** The bank id (BigInt). */
        this.id = id;
        /** 'float32' or 'q16'. */
        this.format = format;
        this._k = kernel.exports;
    }

    _suffix() { return this.format === 'float32' ? 'f32' : 'q16'; }
    _lanes() { return this.format === 'float32' ? Float32Array : Int32Array; }

    /**
     * Adds springs (sk_bank_add_f32 / _q16): spring i at values[i] toward targets[i] at
     * velocities[i] (null: 0), one configuration and tolerance for all. Returns their handles.
     */
    add({ values, targets, velocities = null, tension = 342, friction = 30, mass = 1, tolerance = 0.5 }) {
        const k = this.kernel, n = lengthOf(values), Lanes = this._lanes();
        if (lengthOf(targets) !== n || (velocities && lengthOf(velocities) !== n)) throw new RangeError('add: values, targets and velocities differ in length');
        const v = k._in(0, Lanes, values), t = k._in(1, Lanes, targets), w = k._in(2, Lanes, velocities);
        const out = k._scratchArray(3, BigUint64Array, n);
        const call = `sk_bank_add_${this._suffix()}`;
        k._check(call, this._k[call](this.id, n, v, t, w, tension, friction, mass, tolerance, out));
        return k._read(BigUint64Array, out, n);
    }

    /** Advances every moving spring by `dt` seconds and settles those due (sk_bank_step). */
    step(dt) {
        this.kernel._check('sk_bank_step', this._k.sk_bank_step(this.id, dt));
    }

    /** Pulls springs[i] toward targets[i] (sk_bank_retarget_*). */
    retarget(springs, targets) {
        const k = this.kernel, n = lengthOf(springs), call = `sk_bank_retarget_${this._suffix()}`;
        k._check(call, this._k[call](this.id, k._in(0, BigUint64Array, springs), k._in(1, this._lanes(), targets), n));
    }

    /** Sets springs[i]'s value and velocity (null: 0), keeping its target (sk_bank_set_state_*). */
    setState(springs, values, velocities = null) {
        const k = this.kernel, n = lengthOf(springs), call = `sk_bank_set_state_${this._suffix()}`;
        k._check(call, this._k[call](this.id, k._in(0, BigUint64Array, springs), k._in(1, this._lanes(), values), k._in(2, this._lanes(), velocities), n));
    }

    /** Adds deltas[i] to springs[i]'s velocity (sk_bank_impulse_*). */
    impulse(springs, deltas) {
        const k = this.kernel, n = lengthOf(springs), call = `sk_bank_impulse_${this._suffix()}`;
        k._check(call, this._k[call](this.id, k._in(0, BigUint64Array, springs), k._in(1, this._lanes(), deltas), n));
    }

    /** Gives springs one configuration, keeping their state (sk_bank_configure). */
    configure(springs, { tension = 342, friction = 30, mass = 1 } = {}) {
        const k = this.kernel;
        k._check('sk_bank_configure', this._k.sk_bank_configure(this.id, k._in(0, BigUint64Array, springs), lengthOf(springs), tension, friction, mass));
    }

    /** Sets the springs' tolerance, the rest band's half-width (sk_bank_set_tolerance_*). */
    setTolerance(springs, tolerance) {
        const k = this.kernel, call = `sk_bank_set_tolerance_${this._suffix()}`;
        k._check(call, this._k[call](this.id, k._in(0, BigUint64Array, springs), lengthOf(springs), tolerance));
    }

    /** Sets springs[i]'s user value (sk_bank_set_user_values). */
    setUserValues(springs, values) {
        const k = this.kernel;
        k._check('sk_bank_set_user_values', this._k.sk_bank_set_user_values(this.id, k._in(0, BigUint64Array, springs), k._in(1, BigUint64Array, values), lengthOf(springs)));
    }

    /**
     * Reads a quantity ('value', 'velocity' or 'target') of the springs (sk_bank_read_*): into
     * `out` if given (a WasmArray or typed array), else a new typed array. Returns it.
     */
    read(quantity, springs, out = null) {
        const k = this.kernel, n = lengthOf(springs), Lanes = this._lanes(), call = `sk_bank_read_${this._suffix()}`;
        const target = out instanceof WasmArray ? out.pointer : k._scratchArray(1, Lanes, n);
        k._check(call, this._k[call](this.id, Quantity[quantity], k._in(0, BigUint64Array, springs), n, target));
        if (out instanceof WasmArray) return out;
        const values = new Lanes(k.memory.buffer, target, n);
        if (out) { out.set(values); return out; }
        return values.slice();
    }

    /** The springs that came to rest in the last step (sk_bank_rested). */
    rested() {
        return this._list('sk_bank_rested');
    }

    /** The springs the last step saturated (Q16.16; sk_bank_saturated). */
    saturated() {
        return this._list('sk_bank_saturated');
    }

    _list(call) {
        // Into the scratch slot as it is; a list longer than it holds is short_buffer, with the count set.
        const k = this.kernel, countOut = k._scratchArray(5, Uint32Array, 1);
        let capacity = Math.max(64, k._scratch[4].bytes / 8);
        let springs = k._scratchArray(4, BigUint64Array, capacity);
        let status = this._k[call](this.id, springs, capacity, countOut);
        if (status === 102) {
            capacity = new Uint32Array(k.memory.buffer, countOut, 1)[0];
            springs = k._scratchArray(4, BigUint64Array, capacity);
            status = this._k[call](this.id, springs, capacity, countOut);
        }
        k._check(call, status);
        return k._read(BigUint64Array, springs, new Uint32Array(k.memory.buffer, countOut, 1)[0]);
    }

    /** For each spring, the seconds from now after which it stays within its tolerance for good (sk_bank_rest_time). */
    restTime(springs) {
        const k = this.kernel, n = lengthOf(springs), out = k._scratchArray(1, Float64Array, n);
        k._check('sk_bank_rest_time', this._k.sk_bank_rest_time(this.id, k._in(0, BigUint64Array, springs), n, out));
        return k._read(Float64Array, out, n);
    }

    /** The bank's springs, awake springs and frames stepped (sk_bank_counts). */
    counts() {
        const k = this.kernel, out = k._scratchArray(5, BigUint64Array, 3);
        k._check('sk_bank_counts', this._k.sk_bank_counts(this.id, out, out + 4, out + 8));
        const words = new Uint32Array(k.memory.buffer, out, 4);
        return { springs: words[0], awake: words[1], frames: Number(new BigUint64Array(k.memory.buffer, out + 8, 1)[0]) };
    }

    /** The springs of `region` ('all' or 'moving') and the layout version (sk_bank_layout). */
    layout(region = 'all') {
        const k = this.kernel, out = k._scratchArray(5, BigUint64Array, 2);
        k._check('sk_bank_layout', this._k.sk_bank_layout(this.id, Region[region], out, out + 8));
        return { count: new Uint32Array(k.memory.buffer, out, 1)[0], version: new BigUint64Array(k.memory.buffer, out + 8, 1)[0] };
    }

    /** Reads a quantity of the layout's springs, in the bank's order, into `out` (sk_layout_read_*). */
    layoutRead(quantity, layout, out, region = 'all') {
        const k = this.kernel, call = `sk_layout_read_${this._suffix()}`;
        const target = out instanceof WasmArray ? out.pointer : k._scratchArray(1, this._lanes(), out.length);
        k._check(call, this._k[call](this.id, Quantity[quantity], Region[region], layout.version, target, lengthOf(out)));
        if (!(out instanceof WasmArray)) out.set(new (this._lanes())(k.memory.buffer, target, out.length));
        return out;
    }

    /** The user value of each of the layout's springs, in the bank's order (sk_layout_read_user_values). */
    layoutUserValues(layout, out, region = 'all') {
        const k = this.kernel;
        const target = out instanceof WasmArray ? out.pointer : k._scratchArray(1, BigUint64Array, out.length);
        k._check('sk_layout_read_user_values', this._k.sk_layout_read_user_values(this.id, Region[region], layout.version, target, lengthOf(out)));
        if (!(out instanceof WasmArray)) out.set(new BigUint64Array(k.memory.buffer, target, out.length));
        return out;
    }

    /** Pulls each of the layout's springs toward targets[i], in the bank's order (sk_layout_retarget_*). */
    layoutRetarget(layout, targets, region = 'all') {
        const k = this.kernel, call = `sk_layout_retarget_${this._suffix()}`;
        k._check(call, this._k[call](this.id, Region[region], layout.version, k._in(0, this._lanes(), targets), lengthOf(targets)));
    }

    /**
     * Pulls each of the layout's springs toward targets[i], in the bank's order, and advances the
     * bank by dt in one call: layoutRetarget then step, the same bits and rests, in one pass over
     * the lanes where the targets move (sk_layout_retarget_step_*).
     */
    layoutRetargetStep(layout, targets, dt, region = 'all') {
        const k = this.kernel, call = `sk_layout_retarget_step_${this._suffix()}`;
        k._check(call, this._k[call](this.id, Region[region], layout.version, k._in(0, this._lanes(), targets), lengthOf(targets), dt));
    }

    /** Declares a fixed timestep (0: the variable clock again; sk_bank_set_fixed_timestep). */
    setFixedTimestep(seconds) {
        this.kernel._check('sk_bank_set_fixed_timestep', this._k.sk_bank_set_fixed_timestep(this.id, seconds));
    }

    /** A 64-bit hash of the bank's state (sk_bank_state_hash). */
    stateHash() {
        const k = this.kernel, out = k._scratchArray(5, BigUint64Array, 1);
        k._check('sk_bank_state_hash', this._k.sk_bank_state_hash(this.id, out));
        return new BigUint64Array(k.memory.buffer, out, 1)[0];
    }

    /** Makes a pause mask listing the springs, not pausing (sk_mask_create); its handle. */
    createMask(springs = null) {
        const k = this.kernel, out = k._scratchArray(5, BigUint64Array, 1);
        k._check('sk_mask_create', this._k.sk_mask_create(this.id, k._in(0, BigUint64Array, springs), springs ? lengthOf(springs) : 0, out));
        return new BigUint64Array(k.memory.buffer, out, 1)[0];
    }

    /** Pauses the mask's springs (sk_mask_pause). */
    pause(mask) {
        this.kernel._check('sk_mask_pause', this._k.sk_mask_pause(this.id, mask));
    }

    /**
     * Lets go of the mask's hold (sk_mask_resume_*): springs[i] moves on from values[i] at
     * velocities[i] (the hand-off from a gesture); the mask's other springs from where they were.
     */
    resume(mask, springs = null, values = null, velocities = null) {
        const k = this.kernel, call = `sk_mask_resume_${this._suffix()}`, n = springs ? lengthOf(springs) : 0;
        k._check(call, this._k[call](this.id, mask, k._in(0, BigUint64Array, springs), k._in(1, this._lanes(), values), k._in(2, this._lanes(), velocities), n));
    }

    /** Destroys a mask, resuming its springs if it paused them (sk_mask_destroy). */
    destroyMask(mask) {
        this.kernel._check('sk_mask_destroy', this._k.sk_mask_destroy(this.id, mask));
    }

    /** Adds springs to a mask (paused too if it pauses; sk_mask_insert). */
    maskInsert(mask, springs) {
        const k = this.kernel;
        k._check('sk_mask_insert', this._k.sk_mask_insert(this.id, mask, k._in(0, BigUint64Array, springs), lengthOf(springs)));
    }

    /** Takes springs out of a mask (sk_mask_remove). */
    maskRemove(mask, springs) {
        const k = this.kernel;
        k._check('sk_mask_remove', this._k.sk_mask_remove(this.id, mask, k._in(0, BigUint64Array, springs), lengthOf(springs)));
    }

    /** Each spring's user value (sk_bank_read_user_values). */
    userValues(springs) {
        const k = this.kernel, n = lengthOf(springs), out = k._scratchArray(1, BigUint64Array, n);
        k._check('sk_bank_read_user_values', this._k.sk_bank_read_user_values(this.id, k._in(0, BigUint64Array, springs), n, out));
        return k._read(BigUint64Array, out, n);
    }

    /** The handles of the layout's springs, in the bank's order, into `out` (sk_layout_read_springs). */
    layoutSprings(layout, out, region = 'all') {
        const k = this.kernel;
        const target = out instanceof WasmArray ? out.pointer : k._scratchArray(1, BigUint64Array, out.length);
        k._check('sk_layout_read_springs', this._k.sk_layout_read_springs(this.id, Region[region], layout.version, target, lengthOf(out)));
        if (!(out instanceof WasmArray)) out.set(new BigUint64Array(k.memory.buffer, target, out.length));
        return out;
    }

    /** Sets the layout's springs' values and velocities (null: 0), in the bank's order (sk_layout_set_state_*). */
    layoutSetState(layout, values, velocities = null, region = 'all') {
        const k = this.kernel, call = `sk_layout_set_state_${this._suffix()}`;
        k._check(call, this._k[call](this.id, Region[region], layout.version, k._in(0, this._lanes(), values), k._in(1, this._lanes(), velocities), lengthOf(values)));
    }

    /** Sets the layout's springs' user values, in the bank's order (sk_layout_set_user_values). */
    layoutSetUserValues(layout, values, region = 'all') {
        const k = this.kernel;
        k._check('sk_layout_set_user_values', this._k.sk_layout_set_user_values(this.id, Region[region], layout.version, k._in(0, BigUint64Array, values), lengthOf(values)));
    }

    /** Sets how many threads a step uses (sk_bank_set_threading; a page's module has one). */
    setThreading(threads) {
        this.kernel._check('sk_bank_set_threading', this._k.sk_bank_set_threading(this.id, threads));
    }

    /** Removes springs; their handles become stale (sk_bank_remove). */
    remove(springs) {
        const k = this.kernel;
        k._check('sk_bank_remove', this._k.sk_bank_remove(this.id, k._in(0, BigUint64Array, springs), lengthOf(springs)));
    }

    /** Destroys the bank (sk_bank_destroy); its id and handles become invalid. */
    destroy() {
        this.kernel._check('sk_bank_destroy', this._k.sk_bank_destroy(this.id));
    }
}
