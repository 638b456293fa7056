// C loops of the kernel's arithmetic, compiled with clang -O3 -march=native (Package.swift), so
// spring-bench can put the Swift kernel beside C in the same run. Plain loops: clang vectorises
// them as it would any engine's code (with its default FP contraction).
#include "CSpringReference.h"

const char *spring_reference_compiled_isa(void) { return spring_bench_compiled_isa(); }

void spring_reference_step_displacement(float *restrict d, float *restrict v, size_t n,
                                        float a11, float a12, float a21, float a22) {
    for (size_t i = 0; i < n; i++) {
        float di = d[i], vi = v[i];
        d[i] = a11 * di + a12 * vi;
        v[i] = a21 * di + a22 * vi;
    }
}

void spring_reference_step_absolute(float *restrict x, float *restrict v, const float *restrict t, size_t n,
                                    float a11, float a12, float a21, float a22) {
    for (size_t i = 0; i < n; i++) {
        float ti = t[i];
        float di = x[i] - ti, vi = v[i];
        x[i] = ti + (a11 * di + a12 * vi);
        v[i] = a21 * di + a22 * vi;
    }
}

void spring_probe_bandwidth(float *restrict a, float *restrict b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        a[i] = -a[i];
        b[i] = -b[i];
    }
}

typedef float spring_probe_lanes __attribute__((ext_vector_type(16)));
#define SPRING_PROBE_BUNDLES (SPRING_PROBE_COMPUTE_SPRINGS / 16)

void spring_probe_compute(float *state, size_t steps, float a11, float a12, float a21, float a22) {
    // Eight independent bundles cover the multiply-then-add latency; no contraction, so this is
    // the kernel's own instruction mix (an FMA would fold two of its six operations).
#pragma clang fp contract(off)
    spring_probe_lanes d[SPRING_PROBE_BUNDLES], v[SPRING_PROBE_BUNDLES];
    spring_probe_lanes *lanes = (spring_probe_lanes *)__builtin_assume_aligned(state, 64);
#pragma clang loop unroll(full)
    for (int b = 0; b < SPRING_PROBE_BUNDLES; b++) {
        d[b] = lanes[b];
        v[b] = lanes[SPRING_PROBE_BUNDLES + b];
    }
    for (size_t s = 0; s < steps; s++) {
#pragma clang loop unroll(full)
        for (int b = 0; b < SPRING_PROBE_BUNDLES; b++) {
            spring_probe_lanes displacement = d[b], velocity = v[b];
            d[b] = a11 * displacement + a12 * velocity;
            v[b] = a21 * displacement + a22 * velocity;
        }
    }
#pragma clang loop unroll(full)
    for (int b = 0; b < SPRING_PROBE_BUNDLES; b++) {
        lanes[b] = d[b];
        lanes[SPRING_PROBE_BUNDLES + b] = v[b];
    }
}

void *const *spring_probe_latency(void *const *start, size_t loads) {
    void *const *link = start;
    for (size_t i = 0; i < loads; i++) link = (void *const *)*link;
    return link;
}

int64_t spring_reference_step_fixed(int32_t *restrict d, int32_t *restrict v, size_t n, float c11, float c12, float c21,
                                    float c22) {
    // The kernel's binary32 increments: no FMA (it would round differently), rintf rounds to
    // nearest even in the default mode; the lanes add modulo 2^32 as the kernel's do.
#pragma clang fp contract(off)
    uint32_t outside = 0;
    for (size_t i = 0; i < n; i++) {
        float fd = (float)d[i], fv = (float)v[i];
        int32_t nd = (int32_t)((uint32_t)d[i] + (uint32_t)(int32_t)__builtin_rintf(c11 * fd + c12 * fv));
        int32_t nv = (int32_t)((uint32_t)v[i] + (uint32_t)(int32_t)__builtin_rintf(c21 * fd + c22 * fv));
        // Bit 31 set when a lane is outside [-2^30, 2^30) (tested once, after the loop).
        outside |= ((uint32_t)nd + (1u << 30)) | ((uint32_t)nv + (1u << 30));
        d[i] = nd;
        v[i] = nv;
    }
    return outside >> 31;
}
