// The storage-order streams and the platform needs below; the rest of the shims are header-only
// (include/spring_kernel_shims.h).
#include "spring_kernel_shims.h"
#include <stdint.h>

// The storage-order reads (SpringBank.values(in:into:) and the Q16.16 reads): streams of two
// lane arrays into the caller's array. The library is built for the baseline CPU, where these
// loops run at half the speed of memory in cache (SSE2: 16 bytes an instruction, measured 0.51-0.54x
// memcpy at 1M springs on Zen 5) and AVX2/AVX-512 at 0.75-0.85x; Swift cannot mark a function for
// another CPU, so they are here, compiled for each and chosen by the CPU at the first call.
// The choice is a plain test, not an ifunc (`target_clones`): an ifunc resolver runs while the
// program is being relocated, before ThreadSanitizer's runtime is up (it crashed there), and musl
// has no ifuncs at all.
// The arithmetic is the Swift one's, lane for lane: the storage-order tests compare every read
// with the one-spring read, bit for bit.

/// Q16.16 lanes stored 2^shift finer (1 <= shift <= 31), rounded to nearest (ties up) at the API's
/// resolution: (x >> s) + ((x >> (s - 1)) & 1), as Q16Lanes.apiLanes.
static inline __attribute__((always_inline)) int32_t sk_api_lane(int32_t stored, int32_t shift) {
    return (stored >> shift) + ((stored >> (shift - 1)) & 1);
}

static inline __attribute__((always_inline)) void values_f32(
    const float *restrict displacements, const float *restrict targets, float *restrict out, intptr_t count) {
    for (intptr_t i = 0; i < count; i++) out[i] = targets[i] + displacements[i];
}

static inline __attribute__((always_inline)) void values_q16(
    const int32_t *restrict displacements, const int32_t *restrict targets, int32_t shift, int32_t *restrict out,
    intptr_t count) {
    for (intptr_t i = 0; i < count; i++) {
        // The sum saturated to Int32, as Q16Lanes.valuePattern.
        int64_t sum = (int64_t)targets[i] + sk_api_lane(displacements[i], shift);
        out[i] = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : (int32_t)sum;
    }
}

static inline __attribute__((always_inline)) void lanes_q16(
    const int32_t *restrict lanes, int32_t shift, int32_t *restrict out, intptr_t count) {
    for (intptr_t i = 0; i < count; i++) out[i] = sk_api_lane(lanes[i], shift);
}

/// Spring handles packed into 64 bits: high | (generation & generationMask) << indexBits | index.
static inline __attribute__((always_inline)) void pack_handles(
    const uint32_t *restrict indices, const uint32_t *restrict generations, uint64_t high, uint32_t generationMask,
    int32_t indexBits, uint64_t *restrict out, intptr_t count) {
    for (intptr_t i = 0; i < count; i++) out[i] = high | (uint64_t)(generations[i] & generationMask) << indexBits | indices[i];
}

// The storage-order writes of float32 lanes (SpringBank.retarget(in:to:) and setState(in:...)):
// their checks and their lane arithmetic, sixteen lanes (a bundle) at a time, branch-free within
// a bundle. Lanes are handled as bits where bits decide (a target "changes" when its bits do).
typedef uint32_t sk_bits16 __attribute__((ext_vector_type(16)));
typedef float sk_floats16 __attribute__((ext_vector_type(16)));

// Macros, not functions: a 64-byte vector passed to or returned from a function compiled for
// less than AVX-512 has another ABI (clang warns so, even for an inlined one).
#define SK_LOAD_BITS(p) ({ sk_bits16 loaded_; __builtin_memcpy(&loaded_, (p), sizeof loaded_); loaded_; })
#define SK_STORE_BITS(p, v) do { sk_bits16 stored_ = (v); __builtin_memcpy((p), &stored_, sizeof stored_); } while (0)
/// Bit l set where lane l of `mask` (all ones or zeros) is set.
typedef _Bool sk_bool16 __attribute__((ext_vector_type(16)));
typedef int32_t sk_ints16 __attribute__((ext_vector_type(16)));
#if defined(__wasm_simd128__)
// WebAssembly SIMD128: LLVM takes the form below lane by lane there (16 extract_lane, shifts and
// ors a bundle; or masks narrowed to bytes through replace_lane), which made the float32
// storage-order retarget 3-5x slower than the step in Node; i32x4.bitmask takes four lanes' bits
// at once. The lanes are all ones or zeros, so their sign bits are the lanes.
typedef int32_t sk_i32x4 __attribute__((vector_size(16)));
#define SK_QUARTER_BITS(m, a, b, c, d) SK_QUARTER_LANE_BITS(__builtin_shufflevector((m), (m), a, b, c, d))
#define SK_LANE_BITS(mask) ({ sk_ints16 m_ = (sk_ints16)(mask); \
    SK_QUARTER_BITS(m_, 0, 1, 2, 3) | SK_QUARTER_BITS(m_, 4, 5, 6, 7) << 4 | SK_QUARTER_BITS(m_, 8, 9, 10, 11) << 8 | \
    SK_QUARTER_BITS(m_, 12, 13, 14, 15) << 12; })
// The loops that work a bundle a quarter at a time (see retarget_f32_bundles).
typedef uint32_t sk_u32x4 __attribute__((vector_size(16)));
typedef float sk_f32x4 __attribute__((vector_size(16)));
/// Bit l set where lane l of the quarter `mask` (all ones or zeros) is set.
#define SK_QUARTER_LANE_BITS(mask) ((uint32_t)__builtin_wasm_bitmask_i32x4((sk_i32x4)(mask)))
/// A quarter's lanes whose magnitude bits (a float's bits without its sign) are at most `band`'s:
/// both shifted out of the sign and compared unsigned (band < 2^31, so its shift loses nothing),
/// which needs no mask constant (V8 makes a v128 constant anew at each use). `shiftedBand` is
/// SK_SHIFTED_BAND(band), made once outside the loop.
#define SK_SHIFTED_BAND(band) ((sk_u32x4){(band), (band), (band), (band)} << 1)
#define SK_QUARTER_WITHIN(x, shiftedBand) ((sk_u32x4)(((sk_u32x4)(x) << 1) <= (shiftedBand)))
#else
#define SK_LANE_BITS(mask) ({ sk_bool16 set_ = __builtin_convertvector((mask) != 0, sk_bool16); uint16_t bits_; __builtin_memcpy(&bits_, &set_, 2); (uint32_t)bits_; })
#endif
/// Whether any lane of `mask` (all ones or zeros) is set: one reduction, where SK_LANE_BITS
/// narrows the lanes to bits (on AVX2, two packs, a shuffle and a movemask a bundle), so that
/// a stream tests a bundle first and takes its bits only where it must.
#define SK_ANY(mask) (__builtin_reduce_or((sk_bits16)(mask)) != 0)
/// The largest magnitude among float lanes, as bits (a float's bits without its sign, compared as
/// unsigned: NaN's lie above +infinity's), folded into `worst`.
#define SK_FOLD_MAGNITUDE(worst, x) ((worst) = __builtin_elementwise_max((worst), (sk_bits16)(x) & 0x7fffffffu))
/// The magnitude of Int32 lanes `x` (unsigned lanes holding the bits; `Signed` is the signed
/// vector type of the same shape), as unsigned lanes: the two's-complement absolute value
/// (INT32_MIN gives 2^31, above any band).
#define SK_INT_MAGNITUDE(x, Signed) ({ __typeof__(x) x_ = (x), sign_ = (__typeof__(x))((Signed)x_ >> 31); (x_ ^ sign_) - sign_; })
/// All ones where -limit <= x <= limit (Int32 or float lanes; false for NaN).
#define SK_WITHIN(x, limit) ((sk_bits16)((x) <= (limit)) & (sk_bits16)((x) >= -(limit)))
/// All ones where |x| <= limit, as Float32Lanes.lanePattern(of:as:) accepts.
#if defined(__wasm_simd128__)
// WebAssembly SIMD128: the two compares' lanes are narrowed to bytes there, lane by lane
// (extract_lane, replace_lane); the same answer from the bits (limit is a bound >= 0, not NaN):
// |x| <= limit where x's magnitude bits are at most limit's (NaN's lie above +infinity's), so
// (limit's bits - x's magnitude bits) is negative where x is refused.
#define SK_STORABLE(x, limit) ({ float limit_ = (limit); int32_t bound_; __builtin_memcpy(&bound_, &limit_, 4); \
    sk_ints16 magnitude_ = (sk_ints16)((sk_bits16)(x) & 0x7fffffffu); \
    (sk_bits16)~(((sk_ints16)bound_ - magnitude_) >> 31); })
#else
#define SK_STORABLE(x, limit) SK_WITHIN(x, limit)
#endif

/// Lanes from which a write into spare lanes stores around the cache: 2^18 (1 MB a lane array)
/// unless a test lowers it (sk_set_streaming_store_lanes) to run that path on a small bank.
static intptr_t sk_streaming_store_lanes = 1 << 18;

void sk_set_streaming_store_lanes(intptr_t lanes) {
    __atomic_store_n(&sk_streaming_store_lanes, lanes < 0 ? (intptr_t)1 << 18 : lanes, __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) intptr_t first_unstorable_f32(const float *restrict x, float limit, intptr_t count) {
    // A chunk at a time with no exit inside it (so it vectorizes), then the refused chunk's first.
    // A chunk is refused where its largest magnitude (as bits) lies above the limit's bits: a
    // mask and an unsigned max a vector (limit is a bound >= 0, not NaN).
    enum { chunk = 256 };
    uint32_t bound;
    __builtin_memcpy(&bound, &limit, 4);
    intptr_t start = 0;
    for (; start + chunk <= count; start += chunk) {
        sk_bits16 worst = 0;
        for (intptr_t b = 0; b < chunk / 16; b++) SK_FOLD_MAGNITUDE(worst, SK_LOAD_BITS(x + start + 16 * b));
        if (__builtin_reduce_max(worst) > bound) break;
    }
    for (intptr_t i = start; i < count; i++) {
        if (!(x[i] <= limit && x[i] >= -limit)) return i;
    }
    return count;
}

/// Whether some lane of `goals` differs in its bits from `targets`: compared a chunk at a time,
/// and only the bits, since an engine that writes every target every frame usually moves none,
/// and that read is then all the call costs.
static inline __attribute__((always_inline)) int lanes_differ(const void *restrict goals, const void *restrict targets, intptr_t count) {
    const uint32_t *g = goals, *t = targets;
    enum { chunk = 256 };
    intptr_t start = 0;
    for (; start + chunk <= count; start += chunk) {
        sk_bits16 differs = 0;
        for (intptr_t b = 0; b < chunk / 16; b++) differs |= SK_LOAD_BITS(g + start + 16 * b) ^ SK_LOAD_BITS(t + start + 16 * b);
        if (SK_LANE_BITS((sk_bits16)(differs != 0)) != 0) return 1;
    }
    int unchanged = 1;
    for (intptr_t i = start; i < count; i++) unchanged &= g[i] == t[i];
    return !unchanged;
}

static inline __attribute__((always_inline)) int scan_targets_f32(
    const float *restrict goals, const float *restrict targets, float limit, intptr_t count) {
    if (!lanes_differ(goals, targets, count)) return 0;
    // Something changed: every goal checked, the unchanged ones too (each equals a target that
    // was accepted when stored, so this refuses exactly the changed goals that are refused).
    // The goals alone are read: the write that follows reads the targets anyway.
    return 1 | (first_unstorable_f32(goals, limit, count) < count ? 2 : 0);
}

/// The lanes of the bundle starting at lane `first` that are `restFrom` or later: those of
/// springs at rest, in a batch's slots.
#define SK_RESTING_LANES(first, restFrom) \
    ((sk_bits16)((sk_ints16){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15} >= (sk_ints16)(int32_t)((restFrom) - (first))))

/// Bundles from..<to of retarget_f32; with `resting` (a constant at each call, so each call is a
/// loop of its own), the lanes from restFrom on are springs at rest, kept there within restBand.
#if defined(__wasm_simd128__)
// WebAssembly SIMD128: a quarter (one v128 of each lane array) at a time, its lane bits taken as
// it goes (i32x4.bitmask is one instruction), magnitudes compared by SK_QUARTER_WITHIN. A whole
// bundle at once kept more vectors live than the sixteen registers V8 has on x86-64, and it
// spilled them in the loop. Every quarter is stored (a bundle whose targets all keep their bits
// stores what it read).
static inline __attribute__((always_inline)) void retarget_f32_bundles(
    const float *restrict goals, float *restrict targets, float *restrict displacements, uint16_t *restrict changed,
    intptr_t from, intptr_t to, int resting, intptr_t restFrom, uint32_t restBand) {
    sk_u32x4 band = SK_SHIFTED_BAND(restBand);
    for (intptr_t b = from; b < to; b++) {
        intptr_t first = 16 * b;
        uint32_t keptBits = 0;
        for (int q = 0; q < 16; q += 4) {
            sk_u32x4 goal, target, displacement;
            __builtin_memcpy(&goal, goals + first + q, 16);
            __builtin_memcpy(&target, targets + first + q, 16);
            __builtin_memcpy(&displacement, displacements + first + q, 16);
            // The value kept, about the new target, and the lanes kept as they are: as below.
            sk_u32x4 moved = (sk_u32x4)(((sk_f32x4)target + (sk_f32x4)displacement) - (sk_f32x4)goal);
            sk_u32x4 kept = (sk_u32x4)(goal == target);
            if (resting)
                kept |= (sk_u32x4)((sk_i32x4){0, 1, 2, 3} >= (int32_t)(restFrom - first - q))
                    & (sk_u32x4)(displacement == 0) & SK_QUARTER_WITHIN(moved, band);
            keptBits |= SK_QUARTER_LANE_BITS(kept) << q;
            displacement = (moved & ~kept) | (displacement & kept);
            __builtin_memcpy(displacements + first + q, &displacement, 16);
            __builtin_memcpy(targets + first + q, &goal, 16);
        }
        changed[b] = (uint16_t)(~keptBits & 0xffffu);
    }
}
#else
static inline __attribute__((always_inline)) void retarget_f32_bundles(
    const float *restrict goals, float *restrict targets, float *restrict displacements, uint16_t *restrict changed,
    intptr_t from, intptr_t to, int resting, intptr_t restFrom, uint32_t restBand) {
    for (intptr_t b = from; b < to; b++) {
        intptr_t first = 16 * b;
        sk_bits16 goal = SK_LOAD_BITS(goals + first), target = SK_LOAD_BITS(targets + first);
        sk_bits16 same = (sk_bits16)(goal == target);
        sk_bits16 displacement = SK_LOAD_BITS(displacements + first);
        // The value kept, about the new target: (target + displacement) - goal, rounded as
        // Float32Lanes.retargetedDisplacement rounds it (no contraction: no product here).
        sk_bits16 moved = (sk_bits16)(((sk_floats16)target + (sk_floats16)displacement) - (sk_floats16)goal);
        // Lanes kept as they are: the unchanged, and the resting springs whose new displacement
        // is within the band (their displacement stays the exact 0 of rest; the target moves).
        sk_bits16 kept = same;
        if (resting)
            kept |= SK_RESTING_LANES(first, restFrom) & (sk_bits16)(displacement == 0) & (sk_bits16)((moved & 0x7fffffffu) <= restBand);
        if (!SK_ANY(kept)) {
            // A drag: every target of the bundle moved (no lane bits to narrow, no blend).
            changed[b] = 0xffff;
            SK_STORE_BITS(displacements + first, moved);
            SK_STORE_BITS(targets + first, goal);
            continue;
        }
        uint32_t bits = SK_LANE_BITS(~kept);
        changed[b] = (uint16_t)bits;
        if (!SK_ANY(~same)) continue;
        SK_STORE_BITS(displacements + first, (moved & ~kept) | (displacement & kept));
        // Where the bits are equal, storing the goal stores the same target.
        SK_STORE_BITS(targets + first, goal);
    }
}
#endif

static inline __attribute__((always_inline)) void retarget_f32(
    const float *restrict goals, float *restrict targets, float *restrict displacements, uint16_t *restrict changed,
    intptr_t restFrom, uint32_t restBand, intptr_t count) {
    intptr_t bundles = count / 16;
    // The bundles before the first spring at rest (a drag's moving springs) in a loop with no
    // rest test: in WebAssembly, the test's code in the same loop kept more vectors live across
    // it, and V8 ran the storage-order drag at about 1.4x the time (100K springs in Node: 2.4-2.6 ns
    // a spring-frame against 1.6-2.0 split).
    intptr_t resting = restFrom < 0 ? 0 : restFrom / 16 < bundles ? restFrom / 16 : bundles;
    retarget_f32_bundles(goals, targets, displacements, changed, 0, resting, 0, restFrom, restBand);
    retarget_f32_bundles(goals, targets, displacements, changed, resting, bundles, 1, restFrom, restBand);
    if (bundles * 16 == count) return;
    // The last, partial bundle: lane by lane, touching no lane past `count`.
    uint32_t bits = 0;
    for (intptr_t i = bundles * 16; i < count; i++) {
        uint32_t g, t;
        __builtin_memcpy(&g, goals + i, 4);
        __builtin_memcpy(&t, targets + i, 4);
        if (g == t) continue;
        float moved = (targets[i] + displacements[i]) - goals[i];
        uint32_t magnitude, at;
        __builtin_memcpy(&magnitude, &moved, 4);
        __builtin_memcpy(&at, displacements + i, 4);
        targets[i] = goals[i];
        if (i >= restFrom && at == 0 && (magnitude & 0x7fffffffu) <= restBand) continue;
        displacements[i] = moved;
        bits |= 1u << (i - bundles * 16);
    }
    changed[bundles] = (uint16_t)bits;
}

/// One bundle of the step that retargets (advance_retargeting_f32): returns the lanes whose goals
/// differ from their targets; in *within, the lanes whose new displacement's magnitude bits are
/// at most `band` (as watch_candidates finds them).
#if defined(__wasm_simd128__)
// WebAssembly SIMD128: a quarter at a time, as retarget_f32_bundles, the pulled lanes blended
// with no branch. A whole bundle at once kept sixteen vectors live beside the coefficients, and
// V8 spilled them in the loop (with the marks' pointers: see advance_retargeting_f32). 100K
// springs in Node: the one-pass drag about 20 % faster.
static inline __attribute__((always_inline)) uint32_t advance_retargeting_bundle_f32(
    const float *restrict goals, float *restrict targets, float *restrict displacements, float *restrict velocities,
    const float *restrict coefficients, uint32_t band, uint32_t *within) {
#pragma STDC FP_CONTRACT OFF
    sk_f32x4 a0 = {coefficients[0], coefficients[0], coefficients[0], coefficients[0]};
    sk_f32x4 a1 = {coefficients[1], coefficients[1], coefficients[1], coefficients[1]};
    sk_f32x4 a2 = {coefficients[2], coefficients[2], coefficients[2], coefficients[2]};
    sk_f32x4 a3 = {coefficients[3], coefficients[3], coefficients[3], coefficients[3]};
    uint32_t same = 0, found = 0;
    sk_u32x4 bound = SK_SHIFTED_BAND(band);
    for (int q = 0; q < 16; q += 4) {
        sk_u32x4 goal, target;
        sk_f32x4 d, v;
        __builtin_memcpy(&goal, goals + q, 16);
        __builtin_memcpy(&target, targets + q, 16);
        __builtin_memcpy(&d, displacements + q, 16);
        __builtin_memcpy(&v, velocities + q, 16);
        sk_i32x4 kept = (sk_i32x4)(goal == target);
        // The value kept, about the new target: (target + displacement) - goal, as retarget_f32.
        sk_f32x4 pulled = ((sk_f32x4)target + d) - (sk_f32x4)goal;
        pulled = (sk_f32x4)(((sk_u32x4)pulled & ~(sk_u32x4)kept) | ((sk_u32x4)d & (sk_u32x4)kept));
        // The step as Float32Lanes.Step computes it: each product rounded, then the sum; none fused.
        sk_f32x4 nd = a0 * pulled + a1 * v, nv = a2 * pulled + a3 * v;
        __builtin_memcpy(displacements + q, &nd, 16);
        __builtin_memcpy(velocities + q, &nv, 16);
        __builtin_memcpy(targets + q, &goal, 16);
        same |= SK_QUARTER_LANE_BITS(kept) << q;
        found |= SK_QUARTER_LANE_BITS(SK_QUARTER_WITHIN(nd, bound)) << q;
    }
    *within = found;
    return ~same & 0xffffu;
}
#else
static inline __attribute__((always_inline)) uint32_t advance_retargeting_bundle_f32(
    const float *restrict goals, float *restrict targets, float *restrict displacements, float *restrict velocities,
    const float *restrict coefficients, uint32_t band, uint32_t *within) {
#pragma STDC FP_CONTRACT OFF
    sk_floats16 a[4] = {coefficients[0], coefficients[1], coefficients[2], coefficients[3]};
    sk_bits16 goal = SK_LOAD_BITS(goals), target = SK_LOAD_BITS(targets);
    sk_floats16 d, v;
    __builtin_memcpy(&d, displacements, sizeof d);
    __builtin_memcpy(&v, velocities, sizeof v);
    sk_bits16 same = (sk_bits16)(goal == target);
    // The value kept, about the new target: (target + displacement) - goal, as retarget_f32.
    sk_floats16 pulled = ((sk_floats16)target + d) - (sk_floats16)goal;
    uint32_t moved = 0xffffu;
    if (SK_ANY(same)) {
        moved = SK_LANE_BITS(~same);
        pulled = (sk_floats16)(((sk_bits16)pulled & ~same) | ((sk_bits16)d & same));
    }
    // The step as Float32Lanes.Step computes it: each product rounded, then the sum; none fused.
    sk_floats16 d11 = a[0] * pulled, d12 = a[1] * v, v21 = a[2] * pulled, v22 = a[3] * v;
    sk_floats16 nd = d11 + d12, nv = v21 + v22;
    __builtin_memcpy(displacements, &nd, sizeof nd);
    __builtin_memcpy(velocities, &nv, sizeof nv);
    SK_STORE_BITS(targets, goal);
    // Dragged springs lie outside the band: the lanes narrowed to bits only where one is not.
    sk_bits16 inside = (sk_bits16)(((sk_bits16)nd & (sk_bits16)0x7fffffffu) <= (sk_bits16)band);
    *within = __builtin_expect(SK_ANY(inside), 0) ? SK_LANE_BITS(inside) : 0;
    return moved;
}
#endif

/// The step that retargets, float32 lanes (Float32Lanes.advance(_:retargeting:toward:bundles:path:)):
/// bundles first..<end, each lane pulled toward its goal where the goal differs in its bits from
/// its target (as retarget_f32), stepped (d' = a11 d + a12 v, v' = a21 d + a22 v, each product
/// and sum rounded, as the Swift step), its target set to the goal. With marks (watched non-NULL,
/// a watched batch): the watch's marks moved on (watched = retargeted | lanes whose goal differs,
/// aged = the last watched not watched now, retargeted cleared) and candidates = the watched and
/// aged lanes whose new displacement's magnitude bits are at most `band`, as watch_candidates.
static inline __attribute__((always_inline)) void advance_retargeting_f32(
    const float *restrict goals, float *restrict targets, float *restrict displacements, float *restrict velocities,
    const float *restrict coefficients, uint16_t *restrict retargeted, uint16_t *restrict watched, uint16_t *restrict aged,
    uint16_t *restrict candidates, uint32_t band, intptr_t first, intptr_t end) {
    if (!watched) {
        uint32_t inside;
        for (intptr_t b = first; b < end; b++)
            (void)advance_retargeting_bundle_f32(
                goals + 16 * b, targets + 16 * b, displacements + 16 * b, velocities + 16 * b, coefficients, band, &inside);
        return;
    }
    // A block of bundles stepped, then their marks moved on: two loops, each with few pointers
    // live (V8 spilled the eight of one loop on x86-64).
    enum { block = 64 };
    uint16_t moved[block], within[block];
    for (intptr_t start = first; start < end; start += block) {
        intptr_t count = end - start < block ? end - start : block;
        for (intptr_t i = 0; i < count; i++) {
            intptr_t b = start + i;
            uint32_t inside;
            moved[i] = (uint16_t)advance_retargeting_bundle_f32(
                goals + 16 * b, targets + 16 * b, displacements + 16 * b, velocities + 16 * b, coefficients, band, &inside);
            within[i] = (uint16_t)inside;
        }
        for (intptr_t i = 0; i < count; i++) {
            intptr_t b = start + i;
            uint32_t now = (uint32_t)retargeted[b] | moved[i], last = watched[b];
            watched[b] = (uint16_t)now;
            aged[b] = (uint16_t)(last & ~now);
            retargeted[b] = 0;
            candidates[b] = (uint16_t)(within[i] & (now | last));
        }
    }
}

// The watch over springs retargeted since the last step (SpringBankCore+Watch.swift): which of
// them lie within their batch's band, asked by the step of each block of bundles it has just
// advanced (StepWatch), so the lanes are read from the first-level cache. Nothing written but a
// mask per bundle.
#if defined(__wasm_simd128__)
// WebAssembly SIMD128: a quarter at a time, as retarget_f32_bundles, each format's lanes in a
// loop of its own (integerLanes is a constant in each).
static inline __attribute__((always_inline)) int watch_candidates_lanes(
    const uint32_t *restrict displacements, const uint16_t *restrict watched, const uint16_t *restrict aged,
    uint16_t *restrict candidates, uint32_t band, int integerLanes, intptr_t bundles) {
    uint32_t any = 0;
    // A float's magnitude by SK_QUARTER_WITHIN; an integer's two's-complement absolute value
    // (INT32_MIN gives 2^31, above any band).
    sk_u32x4 bound = {band, band, band, band}, shiftedBound = SK_SHIFTED_BAND(band);
    for (intptr_t b = 0; b < bundles; b++) {
        uint32_t watching = (uint32_t)watched[b] | aged[b];
        candidates[b] = 0;
        if (watching == 0) continue;
        uint32_t inside = 0;
        for (int q = 0; q < 16; q += 4) {
            sk_u32x4 lanes;
            __builtin_memcpy(&lanes, displacements + 16 * b + q, 16);
            sk_u32x4 within = integerLanes ? (sk_u32x4)(SK_INT_MAGNITUDE(lanes, sk_i32x4) <= bound)
                                           : SK_QUARTER_WITHIN(lanes, shiftedBound);
            inside |= SK_QUARTER_LANE_BITS(within) << q;
        }
        inside &= watching;
        candidates[b] = (uint16_t)inside;
        any |= inside;
    }
    return any != 0;
}

static inline __attribute__((always_inline)) int watch_candidates(
    const uint32_t *restrict displacements, const uint16_t *restrict watched, const uint16_t *restrict aged,
    uint16_t *restrict candidates, uint32_t band, int32_t integerLanes, intptr_t bundles) {
    return integerLanes ? watch_candidates_lanes(displacements, watched, aged, candidates, band, 1, bundles)
                        : watch_candidates_lanes(displacements, watched, aged, candidates, band, 0, bundles);
}
#elif defined(__arm__) && !defined(__ARM_NEON)
// 32-bit ARM without a vector unit (the Cortex-M): the lanes one at a time, the same masks (the
// vector code below, scalarised there, took 0.26 KB more of a microcontroller's flash).
static inline __attribute__((always_inline)) int watch_candidates(
    const uint32_t *restrict displacements, const uint16_t *restrict watched, const uint16_t *restrict aged,
    uint16_t *restrict candidates, uint32_t band, int32_t integerLanes, intptr_t bundles) {
    uint32_t any = 0;
    for (intptr_t b = 0; b < bundles; b++) {
        uint32_t watching = (uint32_t)watched[b] | aged[b];
        candidates[b] = 0;
        if (watching == 0) continue;
        uint32_t inside = 0;
        for (int lane = 0; lane < 16; lane++) {
            // The magnitude's bits, as SK_INT_MAGNITUDE and the float mask below give them.
            uint32_t x = displacements[16 * b + lane], sign = (uint32_t)((int32_t)x >> 31);
            uint32_t magnitude = integerLanes ? (x ^ sign) - sign : x & 0x7fffffffu;
            inside |= (uint32_t)(magnitude <= band) << lane;
        }
        inside &= watching;
        candidates[b] = (uint16_t)inside;
        any |= inside;
    }
    return any != 0;
}
#else
static inline __attribute__((always_inline)) int watch_candidates(
    const uint32_t *restrict displacements, const uint16_t *restrict watched, const uint16_t *restrict aged,
    uint16_t *restrict candidates, uint32_t band, int32_t integerLanes, intptr_t bundles) {
    uint32_t any = 0;
    sk_bits16 bound = (sk_bits16)band;
    for (intptr_t b = 0; b < bundles; b++) {
        uint32_t watching = (uint32_t)watched[b] | aged[b];
        candidates[b] = 0;
        if (watching == 0) continue;
        sk_bits16 lanes = SK_LOAD_BITS(displacements + 16 * b);
        // The magnitude's bits: a float's without its sign (NaN and infinity lie above any band),
        // an integer's two's-complement absolute value (INT32_MIN gives 2^31, above any band).
        sk_bits16 magnitude = integerLanes ? SK_INT_MAGNITUDE(lanes, sk_ints16) : lanes & (sk_bits16)0x7fffffffu;
        // Springs dragged behind their targets lie outside the band: one test a bundle.
        sk_bits16 within = (sk_bits16)(magnitude <= bound);
        if (!SK_ANY(within)) continue;
        uint32_t inside = SK_LANE_BITS(within) & watching;
        candidates[b] = (uint16_t)inside;
        any |= inside;
    }
    return any != 0;
}
#endif

// The state writes (SpringBank.setState(in:values:velocities:)), checked as they go, into lanes
// the batch takes only if the whole call is accepted (ConfigurationBatch's spare lanes):
// one pass over the caller's arrays where a check pass and a write pass read them twice (28 B a
// spring instead of 20). Every lane is written; each returns 1 if every lane passed its check,
// else 0 (the lanes are then discarded, or kept once the exact check accepts them all).

/// Stores a bundle, around the cache if `streaming` (then `p` is 64-byte aligned, as lanes are).
#define SK_PUT_BITS(p, v, streaming) do { \
    if (streaming) __builtin_nontemporal_store((v), (sk_bits16 *)(p)); else SK_STORE_BITS(p, v); } while (0)

/// The bundles of a write into spare lanes (the state writes, the Q16.16 retarget):
/// `bundle(first, streaming)` writes lanes first..<first + 16 and
/// ors the lanes it refuses into `refused`. From 2^18 lanes (1 MB an array) the lanes are stored
/// around the cache: lanes that big would not stay cached for the next step anyway, and a plain
/// store first reads the line it overwrites (8 B more a spring).
#define SK_SPARE_LANE_BUNDLES(bundles, count, bundle) do { \
    if ((count) >= __atomic_load_n(&sk_streaming_store_lanes, __ATOMIC_RELAXED)) { \
        for (intptr_t b_ = 0; b_ < (bundles); b_++) bundle(16 * b_, 1); \
        SK_STREAMING_STORES_DONE(); \
    } else { \
        for (intptr_t b_ = 0; b_ < (bundles); b_++) bundle(16 * b_, 0); \
    } } while (0)
#if defined(__x86_64__)
// Orders the streaming stores before whatever reads the lanes next (a step's threads).
#define SK_STREAMING_STORES_DONE() __builtin_ia32_sfence()
#else
#define SK_STREAMING_STORES_DONE() do { } while (0)
#endif

/// The partial bundle of a state write, lanes first..<count (fewer than 16), through the same
/// bundle code as the whole ones: on copies padded with zeros (which every check accepts), the
/// stream's pointers shadowed by them, so no lane past `count` is read or written.
#define SK_STATE_PARTIAL_BUNDLE(lane_t, first, count, bundle) do { \
    intptr_t first_ = (first), tail_ = (count) - first_; \
    if (tail_ > 0) { \
        lane_t x_[16] = {0}, v_[16] = {0}, t_[16] = {0}, d_[16], w_[16]; \
        __builtin_memcpy(x_, values + first_, tail_ * 4); \
        __builtin_memcpy(v_, velocities + first_, tail_ * 4); \
        __builtin_memcpy(t_, targets + first_, tail_ * 4); \
        { \
            const lane_t *values = x_, *velocities = v_, *targets = t_; \
            lane_t *displacements = d_, *velocityLanes = w_; \
            bundle(0, 0); \
        } \
        __builtin_memcpy(displacements + first_, d_, tail_ * 4); \
        __builtin_memcpy(velocityLanes + first_, w_, tail_ * 4); \
    } } while (0)

/// Float32: displacements[i] = values[i] - targets[i], velocityLanes[i] = velocities[i]; refused
/// where a value or velocity is not SK_STORABLE.
#define SK_F32_STATE_BUNDLE(first, streaming) do { \
    sk_floats16 value_ = (sk_floats16)SK_LOAD_BITS(values + (first)), velocity_ = (sk_floats16)SK_LOAD_BITS(velocities + (first)); \
    refused |= ~(SK_STORABLE(value_, limit) & SK_STORABLE(velocity_, limit)); \
    SK_PUT_BITS(displacements + (first), (sk_bits16)(value_ - (sk_floats16)SK_LOAD_BITS(targets + (first))), streaming); \
    SK_PUT_BITS(velocityLanes + (first), (sk_bits16)velocity_, streaming); } while (0)

static inline __attribute__((always_inline)) int set_state_f32(
    const float *restrict values, const float *restrict velocities, const float *restrict targets,
    float *restrict displacements, float *restrict velocityLanes, float limit, intptr_t count) {
    intptr_t bundles = count / 16;
    sk_bits16 refused = 0;
    SK_SPARE_LANE_BUNDLES(bundles, count, SK_F32_STATE_BUNDLE);
    SK_STATE_PARTIAL_BUNDLE(float, bundles * 16, count, SK_F32_STATE_BUNDLE);
    return SK_LANE_BITS(refused) == 0;
}

/// Q16.16: the displacement (value - target) << ds and the velocity at the batch's scale:
/// << vs, or for vs = -down < 0 rounded to nearest, ties up (Q16Lanes.rescaled; as sk_api_lane).
/// Integer arithmetic is done on unsigned lanes (it wraps); a lane is exact wherever the exact
/// check accepts it. Refused, for the exact check to decide, unless the lane passes a
/// conservative one whose bounds are Q16Lanes.conservativeStateLimits': |value|, |target| <= 2^30,
/// |value - target| <= displacementLimit, |velocity| <= velocityLimit.
#define SK_Q16_STATE_BUNDLE(first, streaming) do { \
    sk_ints16 value_, velocity_, target_; \
    __builtin_memcpy(&value_, values + (first), 64); \
    __builtin_memcpy(&velocity_, velocities + (first), 64); \
    __builtin_memcpy(&target_, targets + (first), 64); \
    sk_ints16 difference_ = (sk_ints16)((sk_bits16)value_ - (sk_bits16)target_); \
    refused |= ~(SK_WITHIN(value_, 1 << 30) & SK_WITHIN(target_, 1 << 30) & SK_WITHIN(difference_, displacementLimit) \
                 & SK_WITHIN(velocity_, velocityLimit)); \
    sk_bits16 velocityLane_ = down > 0 ? (sk_bits16)((velocity_ >> down) + ((velocity_ >> (down - 1)) & 1)) \
                                       : (sk_bits16)velocity_ << up; \
    SK_PUT_BITS(displacements + (first), (sk_bits16)difference_ << ds, streaming); \
    SK_PUT_BITS(velocityLanes + (first), velocityLane_, streaming); } while (0)

/// `ds` in 0...30, `vs` in -30...30 (Q16Lanes.streamsWrites(at:)).
static inline __attribute__((always_inline)) int set_state_q16(
    const int32_t *restrict values, const int32_t *restrict velocities, const int32_t *restrict targets,
    int32_t *restrict displacements, int32_t *restrict velocityLanes, int32_t ds, int32_t vs, int32_t displacementLimit,
    int32_t velocityLimit, intptr_t count) {
    intptr_t bundles = count / 16;
    sk_bits16 refused = 0;
    int32_t up = vs > 0 ? vs : 0, down = vs < 0 ? -vs : 0;
    SK_SPARE_LANE_BUNDLES(bundles, count, SK_Q16_STATE_BUNDLE);
    SK_STATE_PARTIAL_BUNDLE(int32_t, bundles * 16, count, SK_Q16_STATE_BUNDLE);
    return SK_LANE_BITS(refused) == 0;
}

// The storage-order retarget of Q16.16 lanes: one pass, as the state writes, into lanes the batch
// takes only if the whole call is accepted (its spare target and displacement lanes). Its check
// needs the velocity lanes too (the motion must still fit the format), so a check pass and an
// in-place write moved 36 B a spring where this moves 24. Where a goal differs (in its bits) from
// its target: displacement += (target - goal) << ds (Q16Lanes.retargetedDisplacement),
// target = goal; every lane of both is written. Integer arithmetic is done on unsigned lanes (it
// wraps); a lane is exact wherever the exact check accepts it. A lane that differs is refused,
// for the exact check to decide, unless it is within conservative bounds under which the exact
// check always accepts (Q16Lanes.conservativeRetargetLimits): |goal|, |target|, |displacement|
// <= 2^30, |target - goal| <= displacementLimit, |new displacement| <= 2^29, |velocity lane| <=
// velocityLimit. changed[b] gets bit l for each lane 16b + l whose target differs, but for a
// spring at rest (lane restFrom or later) whose new displacement's magnitude is at most
// restBand: it keeps its displacement (the exact 0 of rest) and only its target moves.
#define SK_Q16_RETARGET_BUNDLE(first, streaming) do { \
    sk_ints16 goal_, target_, displacement_, velocity_; \
    __builtin_memcpy(&goal_, goals + (first), 64); \
    __builtin_memcpy(&target_, targets + (first), 64); \
    __builtin_memcpy(&displacement_, displacements + (first), 64); \
    __builtin_memcpy(&velocity_, velocities + (first), 64); \
    sk_ints16 difference_ = (sk_ints16)((sk_bits16)target_ - (sk_bits16)goal_); \
    sk_ints16 moved_ = (sk_ints16)((sk_bits16)displacement_ + ((sk_bits16)difference_ << ds)); \
    sk_bits16 differs_ = (sk_bits16)(goal_ != target_); \
    refused |= differs_ & ~(SK_WITHIN(goal_, 1 << 30) & SK_WITHIN(target_, 1 << 30) & SK_WITHIN(displacement_, 1 << 30) \
                            & SK_WITHIN(difference_, displacementLimit) & SK_WITHIN(moved_, 1 << 29) \
                            & SK_WITHIN(velocity_, velocityLimit)); \
    sk_bits16 moves_ = differs_; \
    if ((first) + 16 > restFrom) \
        moves_ &= ~(SK_RESTING_LANES(first, restFrom) & (sk_bits16)(displacement_ == 0) \
                    & (sk_bits16)(SK_INT_MAGNITUDE((sk_bits16)moved_, sk_ints16) <= restBand)); \
    changed[(first) / 16] = (uint16_t)SK_LANE_BITS(moves_); \
    SK_PUT_BITS(newDisplacements + (first), ((sk_bits16)moved_ & moves_) | ((sk_bits16)displacement_ & ~moves_), streaming); \
    SK_PUT_BITS(newTargets + (first), (sk_bits16)goal_, streaming); } while (0)

static inline __attribute__((always_inline)) int retarget_q16(
    const int32_t *restrict goals, const int32_t *restrict targets, const int32_t *restrict displacements,
    const int32_t *restrict velocities, int32_t *restrict newTargets, int32_t *restrict newDisplacements, uint16_t *restrict changed,
    int32_t ds, int32_t displacementLimit, int32_t velocityLimit, intptr_t restFrom, uint32_t restBand, intptr_t count) {
    intptr_t bundles = count / 16;
    sk_bits16 refused = 0;
    SK_SPARE_LANE_BUNDLES(bundles, count, SK_Q16_RETARGET_BUNDLE);
    intptr_t first = bundles * 16, tail = count - first;
    if (tail > 0) {
        // The partial bundle as the state writes' (SK_STATE_PARTIAL_BUNDLE; padded lanes: goal =
        // target = 0, unchanged).
        int32_t g[16] = {0}, t[16] = {0}, d[16] = {0}, v[16] = {0}, nt[16], nd[16];
        uint16_t *tailMarks = changed + bundles;
        intptr_t outerRestFrom = restFrom;
        __builtin_memcpy(g, goals + first, tail * 4);
        __builtin_memcpy(t, targets + first, tail * 4);
        __builtin_memcpy(d, displacements + first, tail * 4);
        __builtin_memcpy(v, velocities + first, tail * 4);
        {
            const int32_t *goals = g, *targets = t, *displacements = d, *velocities = v;
            int32_t *newTargets = nt, *newDisplacements = nd;
            uint16_t *changed = tailMarks;
            intptr_t restFrom = outerRestFrom - first;
            SK_Q16_RETARGET_BUNDLE(0, 0);
        }
        __builtin_memcpy(newTargets + first, nt, tail * 4);
        __builtin_memcpy(newDisplacements + first, nd, tail * 4);
    }
    return SK_LANE_BITS(refused) == 0;
}

// MARK: Variants and dispatch, from one list

// Every stream of the header, once: its return type, `return` or nothing (void), its exported
// name, its body above, its parameters and its arguments. The variants and the exported
// functions below are all generated from this list, so no stream can exist for one ISA only.
#define SK_STREAMS(X) \
    X(void, , sk_stream_values_f32, values_f32, \
      (const float *displacements, const float *targets, float *out, intptr_t count), (displacements, targets, out, count)) \
    X(void, , sk_stream_values_q16, values_q16, \
      (const int32_t *displacements, const int32_t *targets, int32_t shift, int32_t *out, intptr_t count), \
      (displacements, targets, shift, out, count)) \
    X(void, , sk_stream_lanes_q16, lanes_q16, (const int32_t *lanes, int32_t shift, int32_t *out, intptr_t count), \
      (lanes, shift, out, count)) \
    X(void, , sk_stream_pack_handles, pack_handles, \
      (const uint32_t *indices, const uint32_t *generations, uint64_t high, uint32_t generationMask, int32_t indexBits, \
       uint64_t *out, intptr_t count), \
      (indices, generations, high, generationMask, indexBits, out, count)) \
    X(int, return, sk_scan_targets_f32, scan_targets_f32, (const float *goals, const float *targets, float limit, intptr_t count), \
      (goals, targets, limit, count)) \
    X(intptr_t, return, sk_first_unstorable_f32, first_unstorable_f32, (const float *values, float limit, intptr_t count), \
      (values, limit, count)) \
    X(void, , sk_stream_retarget_f32, retarget_f32, \
      (const float *goals, float *targets, float *displacements, uint16_t *changed, intptr_t restFrom, uint32_t restBand, \
       intptr_t count), \
      (goals, targets, displacements, changed, restFrom, restBand, count)) \
    X(void, , sk_advance_retargeting_f32, advance_retargeting_f32, \
      (const float *goals, float *targets, float *displacements, float *velocities, const float *coefficients, \
       uint16_t *retargeted, uint16_t *watched, uint16_t *aged, uint16_t *candidates, uint32_t band, intptr_t first, \
       intptr_t end), \
      (goals, targets, displacements, velocities, coefficients, retargeted, watched, aged, candidates, band, first, end)) \
    X(int, return, sk_watch_candidates, watch_candidates, \
      (const uint32_t *displacements, const uint16_t *watched, const uint16_t *aged, uint16_t *candidates, uint32_t band, \
       int32_t integerLanes, intptr_t bundles), \
      (displacements, watched, aged, candidates, band, integerLanes, bundles)) \
    X(int, return, sk_lanes_differ, lanes_differ, (const void *goals, const void *targets, intptr_t count), (goals, targets, count)) \
    X(int, return, sk_stream_retarget_q16, retarget_q16, \
      (const int32_t *goals, const int32_t *targets, const int32_t *displacements, const int32_t *velocities, int32_t *newTargets, \
       int32_t *newDisplacements, uint16_t *changed, int32_t displacementShift, int32_t displacementLimit, int32_t velocityLimit, \
       intptr_t restFrom, uint32_t restBand, intptr_t count), \
      (goals, targets, displacements, velocities, newTargets, newDisplacements, changed, displacementShift, displacementLimit, \
       velocityLimit, restFrom, restBand, count)) \
    X(int, return, sk_stream_set_state_f32, set_state_f32, \
      (const float *values, const float *velocities, const float *targets, float *displacements, float *velocityLanes, float limit, \
       intptr_t count), \
      (values, velocities, targets, displacements, velocityLanes, limit, count)) \
    X(int, return, sk_stream_set_state_q16, set_state_q16, \
      (const int32_t *values, const int32_t *velocities, const int32_t *targets, int32_t *displacements, int32_t *velocityLanes, \
       int32_t displacementShift, int32_t velocityShift, int32_t displacementLimit, int32_t velocityLimit, intptr_t count), \
      (values, velocities, targets, displacements, velocityLanes, displacementShift, velocityShift, displacementLimit, \
       velocityLimit, count))

/// A ceiling set by the tests (sk_limit_vector_level), so that every variant this CPU can run
/// is checked against the portable one on it; none by default.
static int sk_vector_level_limit = 2;

void sk_limit_vector_level(int limit) { __atomic_store_n(&sk_vector_level_limit, limit < 0 ? 2 : limit, __ATOMIC_RELAXED); }

#if defined(__x86_64__)
// x86-64: each stream three times, for AVX-512, AVX2 and the portable code (the baseline, SSE2),
// chosen by the CPU at each call. The choice is a plain test, not an ifunc (`target_clones`): an
// ifunc resolver runs while the program is being relocated, before ThreadSanitizer's runtime is
// up (it crashed there), and musl has no ifuncs at all.
#define SK_X86_VARIANTS(ret, r, name, body, params, args) \
    __attribute__((target("avx512f,avx512bw,avx512vl"), noinline)) static ret body##_avx512 params { r body args; } \
    __attribute__((target("avx2"), noinline)) static ret body##_avx2 params { r body args; }
SK_STREAMS(SK_X86_VARIANTS)

/// 2: AVX-512 (F, BW, VL), 1: AVX2, 0: neither. Asked once; a race between two first calls
/// stores the same answer, through an atomic so that no checker calls it a race.
static int sk_detected_vector_level(void) {
    static int cached = -1;
    int level = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (level < 0) {
        __builtin_cpu_init();
        level = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
            ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&cached, level, __ATOMIC_RELAXED);
    }
    return level;
}

#define SK_DISPATCH(ret, r, name, body, params, args) \
    ret name params { \
        switch (sk_vector_level()) { \
        case 2: { r body##_avx512 args; } break; \
        case 1: { r body##_avx2 args; } break; \
        default: { r body args; } break; \
        } \
    }
#else
// Every other architecture: the portable code, which the compiler vectorizes for the target's
// own vector unit (ext_vector_type(16) lanes are four NEON `v` registers on aarch64, wasm's
// SIMD128 when enabled, scalar lanes on rv64gc).
static int sk_detected_vector_level(void) { return 0; }

#define SK_DISPATCH(ret, r, name, body, params, args) ret name params { r body args; }
#endif

int sk_vector_level(void) {
    int level = sk_detected_vector_level(), limit = __atomic_load_n(&sk_vector_level_limit, __ATOMIC_RELAXED);
    return level < limit ? level : limit;
}

SK_STREAMS(SK_DISPATCH)

// MARK: Platform needs (Swift's Platform.swift calls these; no Swift module imports libc)

#include <fenv.h>
#include <stdlib.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(__linux__)
#include <stdio.h>
#endif

_Static_assert(sizeof(fenv_t) <= sizeof(sk_saved_fp_environment), "sk_saved_fp_environment holds a fenv_t");

#if defined(__arm__) && defined(__ARM_FP)
// 32-bit ARM with an FPU (Cortex-M4F, M7; bare metal with newlib, whose ARM fenv.h is a
// placeholder that neither reads nor sets the mode): FPSCR directly, as FPCR on aarch64. Its
// rounding mode (RMode, bits 22-23) and flush-to-zero (FZ, bit 24) cleared for the call, the
// whole register (mode, flags) saved and restored. M-profile FPUs raise no exception traps, so
// there are none to mask.
_Static_assert(sizeof(uint32_t) <= sizeof(sk_saved_fp_environment), "sk_saved_fp_environment holds FPSCR");

void sk_enter_nearest_rounding(sk_saved_fp_environment *saved) {
    uint32_t fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    __builtin_memcpy(saved, &fpscr, sizeof fpscr);
    uint32_t nearest = fpscr & ~((UINT32_C(3) << 22) | (UINT32_C(1) << 24));
    if (nearest != fpscr) __asm__ volatile("vmsr fpscr, %0" : : "r"(nearest) : "memory");
}

int sk_rounding_is_nearest(void) {
    uint32_t fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    return (fpscr & (UINT32_C(3) << 22)) == 0;
}

void sk_leave_nearest_rounding(const sk_saved_fp_environment *saved) {
    uint32_t fpscr;
    __builtin_memcpy(&fpscr, saved, sizeof fpscr);
    __asm__ volatile("vmsr fpscr, %0" : : "r"(fpscr) : "memory");
}
#else
void sk_enter_nearest_rounding(sk_saved_fp_environment *saved) {
    fenv_t environment;
    feholdexcept(&environment);
    __builtin_memcpy(saved, &environment, sizeof environment);
#if defined(FE_TONEAREST)
    fesetround(FE_TONEAREST);
#endif
    // Flush-to-zero and denormals-are-zero off (fesetenv of the saved environment restores them).
#if defined(__x86_64__)
    unsigned int csr = __builtin_ia32_stmxcsr();
    if (csr & 0x8040u) __builtin_ia32_ldmxcsr(csr & ~0x8040u);  // FTZ bit 15, DAZ bit 6
#elif defined(__aarch64__)
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    if (fpcr & (1u << 24)) __asm__ volatile("msr fpcr, %0" : : "r"(fpcr & ~(uint64_t)(1u << 24)));  // FZ
#endif
}

int sk_rounding_is_nearest(void) {
#if defined(FE_TONEAREST)
    return fegetround() == FE_TONEAREST;
#else
    return 1;
#endif
}

void sk_leave_nearest_rounding(const sk_saved_fp_environment *saved) {
    fenv_t environment;
    __builtin_memcpy(&environment, saved, sizeof environment);
    fesetenv(&environment);
}
#endif

intptr_t sk_processor_count(void) {
#if (defined(__unix__) || defined(__APPLE__)) && defined(_SC_NPROCESSORS_ONLN)
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    return count > 0 ? (intptr_t)count : 1;
#else
    return 1;
#endif
}

void *sk_allocate_if_available(intptr_t bytes) { return bytes < 0 ? NULL : malloc((size_t)bytes); }

void *sk_allocate_aligned_if_available(intptr_t bytes, intptr_t alignment) {
    void *pointer = NULL;
    if (bytes < 0 || alignment < (intptr_t)sizeof(void *)) return NULL;
    return posix_memalign(&pointer, (size_t)alignment, (size_t)(bytes > 0 ? bytes : 1)) == 0 ? pointer : NULL;
}

void sk_free(void *pointer) { free(pointer); }

intptr_t sk_last_level_cache_bytes(void) {
#if defined(__linux__)
    // The largest data cache of CPU 0, from sysfs (".../cache/indexN/size": "32768K").
    intptr_t largest = 0;
    for (int index = 0; index < 8; index++) {
        char path[64], text[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        FILE *file = fopen(path, "r");
        if (!file) continue;
        if (fgets(text, sizeof text, file)) {
            intptr_t value = 0;
            char *c = text;
            for (; *c >= '0' && *c <= '9'; c++) value = value * 10 + (*c - '0');
            value *= *c == 'K' ? 1 << 10 : *c == 'M' ? 1 << 20 : 1;
            if (value > largest) largest = value;
        }
        fclose(file);
    }
    return largest;
#else
    return 0;
#endif
}
