#ifndef C_SPRING_REFERENCE_H
#define C_SPRING_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/// The instruction set of the translation unit that compiles this inline function: included from
/// Swift, Swift's Clang importer compiles it with the Swift target's own -Xcc flags, so it reports
/// what spring-bench's Swift code was built for; called from reference.c, what the C loops were.
static inline const char *spring_bench_compiled_isa(void) {
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__)
    return "avx512";
#elif defined(__AVX2__)
    return "avx2";
#elif defined(__x86_64__)
    return "sse2";
#elif defined(__aarch64__)
    return "neon";
#else
    return "generic";
#endif
}

/// The instruction set this C target itself was compiled for (clang -O3 -march=native).
const char *spring_reference_compiled_isa(void);

/// One exact step of n springs stored as displacement d and velocity v (the kernel's layout):
/// d' = a11 d + a12 v, v' = a21 d + a22 v. 16 bytes per spring-step.
void spring_reference_step_displacement(float *d, float *v, size_t n, float a11, float a12, float a21, float a22);

/// The same step on absolute positions x with a target t (the ANCHORS reference loop):
/// d = x - t; x' = t + (a11 d + a12 v); v' = a21 d + a22 v. 20 bytes per spring-step.
void spring_reference_step_absolute(float *x, float *v, const float *t, size_t n,
                                    float a11, float a12, float a21, float a22);

/// Q16.16 fixed point (the kernel's Q16Lanes arithmetic on lanes at their scale): each Int32 lane
/// plus its increment c11·d + c12·v (c21·d + c22·v for v) computed in float32 with no contraction
/// and rounded to the nearest integer (rintf, ties to even); returns 1 if a lane left [-2^30, 2^30).
int64_t spring_reference_step_fixed(int32_t *d, int32_t *v, size_t n, float c11, float c12, float c21, float c22);

/// The bandwidth roofline: an in-place read and write of two lanes per spring (n springs, 16 bytes
/// each, the exact step's traffic), negating each value so the store depends on the load and the
/// values stay bounded. No arithmetic to speak of: the time is the memory system's.
void spring_probe_bandwidth(float *a, float *b, size_t n);

/// The springs one call of spring_probe_compute advances per step: 8 bundles of 16 lanes.
#define SPRING_PROBE_COMPUTE_SPRINGS 128

/// The compute roofline: the exact step's arithmetic (d' = a11 d + a12 v, v' = a21 d + a22 v:
/// 4 multiplies and 2 adds, unfused, as the Swift kernel computes it) on
/// SPRING_PROBE_COMPUTE_SPRINGS springs held in registers, `steps` times. `state` holds their
/// displacements then their velocities (2 x 128 floats, 64-byte aligned); it is read once and
/// written back once, so the loop touches no memory.
void spring_probe_compute(float *state, size_t steps, float a11, float a12, float a21, float a22);

/// The cache-latency probe: follows `loads` links of a chain of pointers from `start` and returns
/// where it stopped (so the loads are not dead). Each link is the first word of a 64-byte line and
/// points at the next line; each load's address is the previous load's value, so the loop runs at
/// one load latency per link. The noise meter lays the chain out as a random cyclic permutation of
/// the lines of a buffer larger than L2 and within the shared last-level cache, which the
/// prefetchers cannot follow: the time is that cache's latency, and a neighbour that takes the
/// cache from us makes it a memory latency.
void *const *spring_probe_latency(void *const *start, size_t loads);

#endif
