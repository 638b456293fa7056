// C loops of the kernel's arithmetic, compiled with clang -O3 -march=native (Package.swift), so
// spring-bench can put the Swift kernel beside C in the same run. Plain loops: clang vectorises
// them as it would any engine's code (with its default FP contraction).
#include "CSpringReference.h"

const char *spring_reference_compiled_isa(void) {
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
