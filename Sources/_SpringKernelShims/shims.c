// The storage-order streams below; the rest of the shims are header-only (include/spring_kernel_shims.h).
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

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
// Each stream three times: for AVX-512, AVX2 and the baseline, the body inlined into each.
#define SK_WIDE(isa) __attribute__((target(isa), noinline))
SK_WIDE("avx512f,avx512bw,avx512vl") static void values_f32_avx512(const float *d, const float *t, float *o, intptr_t n) { values_f32(d, t, o, n); }
SK_WIDE("avx2") static void values_f32_avx2(const float *d, const float *t, float *o, intptr_t n) { values_f32(d, t, o, n); }
SK_WIDE("avx512f,avx512bw,avx512vl") static void values_q16_avx512(const int32_t *d, const int32_t *t, int32_t s, int32_t *o, intptr_t n) { values_q16(d, t, s, o, n); }
SK_WIDE("avx2") static void values_q16_avx2(const int32_t *d, const int32_t *t, int32_t s, int32_t *o, intptr_t n) { values_q16(d, t, s, o, n); }
SK_WIDE("avx512f,avx512bw,avx512vl") static void lanes_q16_avx512(const int32_t *l, int32_t s, int32_t *o, intptr_t n) { lanes_q16(l, s, o, n); }
SK_WIDE("avx2") static void lanes_q16_avx2(const int32_t *l, int32_t s, int32_t *o, intptr_t n) { lanes_q16(l, s, o, n); }

/// 2: AVX-512 (F, BW, VL), 1: AVX2, 0: neither. Asked once; a race between two first calls
/// stores the same answer, through an atomic so that no checker calls it a race.
static int sk_vector_level(void) {
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

void sk_stream_values_f32(const float *displacements, const float *targets, float *out, intptr_t count) {
    switch (sk_vector_level()) {
    case 2: values_f32_avx512(displacements, targets, out, count); return;
    case 1: values_f32_avx2(displacements, targets, out, count); return;
    default: values_f32(displacements, targets, out, count);
    }
}

void sk_stream_values_q16(const int32_t *displacements, const int32_t *targets, int32_t shift, int32_t *out, intptr_t count) {
    switch (sk_vector_level()) {
    case 2: values_q16_avx512(displacements, targets, shift, out, count); return;
    case 1: values_q16_avx2(displacements, targets, shift, out, count); return;
    default: values_q16(displacements, targets, shift, out, count);
    }
}

void sk_stream_lanes_q16(const int32_t *lanes, int32_t shift, int32_t *out, intptr_t count) {
    switch (sk_vector_level()) {
    case 2: lanes_q16_avx512(lanes, shift, out, count); return;
    case 1: lanes_q16_avx2(lanes, shift, out, count); return;
    default: lanes_q16(lanes, shift, out, count);
    }
}
#else
void sk_stream_values_f32(const float *displacements, const float *targets, float *out, intptr_t count) {
    values_f32(displacements, targets, out, count);
}

void sk_stream_values_q16(const int32_t *displacements, const int32_t *targets, int32_t shift, int32_t *out, intptr_t count) {
    values_q16(displacements, targets, shift, out, count);
}

void sk_stream_lanes_q16(const int32_t *lanes, int32_t shift, int32_t *out, intptr_t count) {
    lanes_q16(lanes, shift, out, count);
}
#endif
