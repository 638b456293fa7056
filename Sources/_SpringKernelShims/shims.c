// The storage-order streams below; the rest of the shims are header-only (include/spring_kernel_shims.h).
#include "spring_kernel_shims.h"
#include <stdint.h>

// The storage-order reads (SpringBank.values(in:into:) and the Q16.16 reads): streams of two
// lane arrays into the caller's array. The library is built for the baseline CPU, where these
// loops run at half the speed of memory in cache (SSE2: 16 bytes an instruction, measured 0.51-0.54x
// memcpy at 1M springs on Zen 5) and AVX2/AVX-512 at 0.75-0.85x; Swift cannot mark a function for
// another CPU, so they are here, compiled for each and chosen once at load time (target_clones).
// The arithmetic is the Swift one's, lane for lane: the storage-order tests compare every read
// with the one-spring read, bit for bit.
#if defined(__x86_64__) && defined(__linux__)
#define SK_STREAM __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SK_STREAM
#endif

SK_STREAM void sk_stream_values_f32(const float *restrict displacements, const float *restrict targets, float *restrict out,
                                    intptr_t count) {
    for (intptr_t i = 0; i < count; i++) out[i] = targets[i] + displacements[i];
}

/// Q16.16 lanes stored 2^shift finer (1 <= shift <= 31), rounded to nearest (ties up) at the API's
/// resolution: (x >> s) + ((x >> (s - 1)) & 1), as Q16Lanes.apiLanes.
static inline int32_t sk_api_lane(int32_t stored, int32_t shift) { return (stored >> shift) + ((stored >> (shift - 1)) & 1); }

SK_STREAM void sk_stream_values_q16(const int32_t *restrict displacements, const int32_t *restrict targets, int32_t shift,
                                    int32_t *restrict out, intptr_t count) {
    for (intptr_t i = 0; i < count; i++) {
        // The sum saturated to Int32, as Q16Lanes.valuePattern.
        int64_t sum = (int64_t)targets[i] + sk_api_lane(displacements[i], shift);
        out[i] = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : (int32_t)sum;
    }
}

SK_STREAM void sk_stream_lanes_q16(const int32_t *restrict lanes, int32_t shift, int32_t *restrict out, intptr_t count) {
    for (intptr_t i = 0; i < count; i++) out[i] = sk_api_lane(lanes[i], shift);
}
