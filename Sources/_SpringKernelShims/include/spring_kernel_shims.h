// The lane conversions of Q16Lanes' step that Swift emits as calls or with a range check per lane
// (SIMD16 conversions are not inlined; Int32(Float) checks every lane): Int32 lanes to binary32
// (cvtdq2ps) and back rounded in the current rounding mode (cvtps2dq). Static inline, so they
// are compiled into the Swift code that calls them, for that module's target CPU.
#ifndef SPRING_KERNEL_SHIMS_H
#define SPRING_KERNEL_SHIMS_H

#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif
// Freestanding headers only: Embedded Swift imports this header for targets with no C library
// (aarch64-none-none-elf, wasm32-unknown-none-wasm); shims.c, built for the real platform, holds
// everything that needs one.

typedef float sk_float16 __attribute__((ext_vector_type(16)));
typedef int32_t sk_int16 __attribute__((ext_vector_type(16)));

#if defined(__aarch64__)
/// fcvtns rounds to nearest even whatever FPCR says and saturates; x86's cvtps2dq gives INT32_MIN
/// for a magnitude of 2^31 or more, which Q16Lanes relies on to flag such a lane: the same here.
static inline __attribute__((always_inline)) int32x4_t sk_arm_round(float32x4_t x) {
    uint32x4_t huge = vcageq_f32(x, vdupq_n_f32(0x1p31f));
    return vbslq_s32(huge, vdupq_n_s32(INT32_MIN), vcvtnq_s32_f32(x));
}
#endif

/// fegetround() == FE_TONEAREST (shims.c): the check where no control register is read directly.
int sk_rounding_is_nearest(void);

/// Whether the thread's floating-point environment is the one the Q16.16 arithmetic needs: round
/// to nearest even, no flush-to-zero, no denormals-are-zero. Read from the control register the
/// vector instructions use (x86's MXCSR: rounding control bits 13-14, FTZ 15, DAZ 6; aarch64's
/// FPCR: RMode 22-23, FZ 24; 32-bit ARM with an FPU, such as the Cortex-M4F and M7: FPSCR, the
/// same bits, which newlib's placeholder fenv.h never reads), a few cycles, and never folded by
/// the optimizer (it cannot know the register); elsewhere fegetround, which the C library answers
/// (a soft-float build, such as ARMv6-M's, always rounds to nearest).
static inline __attribute__((always_inline)) int sk_float_environment_is_nearest(void) {
#if defined(__x86_64__) || defined(__i386__)
    return (_mm_getcsr() & 0xE040u) == 0;
#elif defined(__aarch64__)
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return (fpcr & ((UINT64_C(3) << 22) | (UINT64_C(1) << 24))) == 0;
#elif defined(__arm__) && defined(__ARM_FP)
    uint32_t fpscr;
    __asm__ volatile("vmrs %0, fpscr" : "=r"(fpscr));
    return (fpscr & ((UINT32_C(3) << 22) | (UINT32_C(1) << 24))) == 0;
#else
    return sk_rounding_is_nearest();
#endif
}

/// One lane rounded to the nearest Int32 as ``sk_round_to_int32x16`` rounds it.
static inline __attribute__((always_inline)) int32_t sk_round_to_int32(float x) {
#if defined(__x86_64__) || defined(__i386__)
    return _mm_cvtss_si32(_mm_set_ss(x));
#elif defined(__aarch64__)
    return vgetq_lane_s32(sk_arm_round(vdupq_n_f32(x)), 0);
#elif defined(__arm__) && defined(__ARM_FP) && (__ARM_FP & 4)
    // 32-bit ARM with a single-precision FPU (Cortex-M4F, M7): vcvtr rounds in FPSCR's mode (the
    // step pins nearest), one instruction where rintf is a call; out of range as below.
    if (x >= 0x1p31f || x <= -0x1p31f || x != x) return INT32_MIN;
    float rounded;
    __asm__ volatile("vcvtr.s32.f32 %0, %1" : "=t"(rounded) : "t"(x));
    int32_t lane;
    __builtin_memcpy(&lane, &rounded, sizeof lane);
    return lane;
#else
    // Elsewhere: the current rounding mode (the step pins nearest), INT32_MIN out of range.
    return (x >= 0x1p31f || x <= -0x1p31f || x != x) ? INT32_MIN : (int32_t)__builtin_rintf(x);
#endif
}

/// Each lane converted to binary32, rounded in the current mode (exact below 2^24 in magnitude).
static inline __attribute__((always_inline)) sk_float16 sk_int32_to_float32x16(sk_int16 x) {
    return __builtin_convertvector(x, sk_float16);
}

/// Each lane rounded to the nearest Int32, ties to even (the step pins that rounding mode). A lane
/// whose magnitude is 2^31 or more, or NaN, gives INT32_MIN on x86 (the instruction's "integer
/// indefinite"): Q16Lanes never passes one (its admitted bound keeps every increment within 2^31).
static inline __attribute__((always_inline)) sk_int16 sk_round_to_int32x16(sk_float16 x) {
#if defined(__AVX512F__)
    return (sk_int16)_mm512_cvtps_epi32((__m512)x);
#elif defined(__AVX__)
    typedef float f8 __attribute__((ext_vector_type(8)));
    typedef int32_t i8 __attribute__((ext_vector_type(8)));
    i8 low = (i8)_mm256_cvtps_epi32((__m256)__builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7));
    i8 high = (i8)_mm256_cvtps_epi32((__m256)__builtin_shufflevector(x, x, 8, 9, 10, 11, 12, 13, 14, 15));
    return __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#elif defined(__SSE2__)
    typedef int32_t i4 __attribute__((ext_vector_type(4)));
    i4 a = (i4)_mm_cvtps_epi32((__m128)__builtin_shufflevector(x, x, 0, 1, 2, 3));
    i4 b = (i4)_mm_cvtps_epi32((__m128)__builtin_shufflevector(x, x, 4, 5, 6, 7));
    i4 c = (i4)_mm_cvtps_epi32((__m128)__builtin_shufflevector(x, x, 8, 9, 10, 11));
    i4 d = (i4)_mm_cvtps_epi32((__m128)__builtin_shufflevector(x, x, 12, 13, 14, 15));
    typedef int32_t i8 __attribute__((ext_vector_type(8)));
    i8 ab = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
    i8 cd = __builtin_shufflevector(c, d, 0, 1, 2, 3, 4, 5, 6, 7);
    return __builtin_shufflevector(ab, cd, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#elif defined(__aarch64__)
    sk_int16 r;
    for (int i = 0; i < 16; i += 4) {
        float32x4_t lanes = {x[i], x[i + 1], x[i + 2], x[i + 3]};
        int32x4_t rounded = sk_arm_round(lanes);
        r[i] = rounded[0]; r[i + 1] = rounded[1]; r[i + 2] = rounded[2]; r[i + 3] = rounded[3];
    }
    return r;
#else
    sk_int16 r;
    for (int i = 0; i < 16; i++) r[i] = sk_round_to_int32(x[i]);
    return r;
#endif
}


/// Which variant of the streams below runs: 2 AVX-512, 1 AVX2, 0 the portable code (x86-64's
/// baseline, and the only variant on every other architecture), as far as the CPU has it and the
/// limit allows.
int sk_vector_level(void);
/// For tests: runs no variant above `limit` (0...2; negative: no limit), so each variant the CPU
/// has can be compared with the baseline one.
void sk_limit_vector_level(int limit);

/// The storage-order reads' streams (shims.c): every one has a portable C body, compiled on
/// x86-64 for AVX-512 and AVX2 as well and chosen by the CPU (one list, SK_STREAMS, generates the
/// variants and the exported functions):
/// out[i] = targets[i] + displacements[i] (float32 lanes).
void sk_stream_values_f32(const float *displacements, const float *targets, float *out, intptr_t count);
/// out[i] = targets[i] + displacements[i] rounded from 2^shift finer (1...31), saturated (Q16.16).
void sk_stream_values_q16(const int32_t *displacements, const int32_t *targets, int32_t shift, int32_t *out, intptr_t count);
/// out[i] = lanes[i] rounded from 2^shift finer (1...31) (Q16.16).
void sk_stream_lanes_q16(const int32_t *lanes, int32_t shift, int32_t *out, intptr_t count);

/// Spring handles read in storage order, packed: out[i] = high | (generations[i] & generationMask)
/// << indexBits | indices[i].
void sk_stream_pack_handles(
    const uint32_t *indices, const uint32_t *generations, uint64_t high, uint32_t generationMask, int32_t indexBits, uint64_t *out,
    intptr_t count);

/// The storage-order writes' streams (shims.c), chosen like the reads'. Float32 retarget, its
/// check: bit 0 set if some goals[i] differs in its bits from targets[i], and then bit 1 if some goal
/// is not storable (NaN, or magnitude above `limit`).
int sk_scan_targets_f32(const float *goals, const float *targets, float limit, intptr_t count);
/// The index of the first values[i] that is NaN or above `limit` in magnitude, or `count`.
intptr_t sk_first_unstorable_f32(const float *values, float limit, intptr_t count);
/// Where goals[i] differs in its bits from targets[i]: displacements[i] = (targets[i] +
/// displacements[i]) - goals[i], targets[i] = goals[i]. changed[b] (one per 16 lanes, the last
/// for a partial bundle) gets bit l for each lane 16b + l so changed. The lanes from `restFrom` on
/// are springs at rest (displacement and velocity exactly 0): one whose displacement lane is still
/// exactly 0 and whose new displacement's bits without the sign are at most `restBand` stays at
/// rest (its displacement stays 0, its target moves, its bit stays clear).
void sk_stream_retarget_f32(
    const float *goals, float *targets, float *displacements, uint16_t *changed, intptr_t restFrom, uint32_t restBand,
    intptr_t count);
/// The step that retargets, float32 lanes, whole bundles first..<end (Float32Lanes.advance(_:retargeting:toward:bundles:path:)):
/// each lane pulled toward goals[i] where it differs in its bits from targets[i] (as sk_stream_retarget_f32), stepped with
/// coefficients a11, a12, a21, a22 (d' = a11 d + a12 v, v' = a21 d + a22 v, every operation rounded, none fused), targets[i] =
/// goals[i]. With watched non-NULL (a watched batch, one mark word per bundle): watched = retargeted | the lanes whose goals
/// differ, aged = the lanes watched before and not now, retargeted = 0, candidates = the watched and aged lanes whose new
/// displacement's magnitude bits are at most `band`. goals need no alignment; the lanes are 64-byte aligned.
void sk_advance_retargeting_f32(
    const float *goals, float *targets, float *displacements, float *velocities, const float *coefficients, uint16_t *retargeted,
    uint16_t *watched, uint16_t *aged, uint16_t *candidates, uint32_t band, intptr_t first, intptr_t end);
/// The watch's scan of a block of bundles the step has just advanced: candidates[b] = the lanes of watched[b] | aged[b] whose
/// displacement lane (whole bundles of 16, `bundles` of them) has magnitude at most `band`: a
/// float's bits without the sign, or (integerLanes != 0) an Int32's absolute value, compared as
/// unsigned. Returns whether any candidate was found.
int sk_watch_candidates(
    const uint32_t *displacements, const uint16_t *watched, const uint16_t *aged, uint16_t *candidates, uint32_t band,
    int32_t integerLanes, intptr_t bundles);
/// Whether some of `count` 32-bit lanes of `goals` differs in its bits from `targets`.
int sk_lanes_differ(const void *goals, const void *targets, intptr_t count);
/// Q16.16 retarget into lanes kept only if the call is accepted: every lane of newTargets (the
/// goal) and newDisplacements written; where goals[i] differs from targets[i], newDisplacements[i]
/// = displacements[i] + ((targets[i] - goals[i]) << displacementShift) (0...30), else the
/// displacement as it was; changed[b] marks the lanes that differ, as sk_stream_retarget_f32, but
/// for a spring at rest (lane `restFrom` or later, its displacement lane exactly 0) whose new
/// displacement's magnitude is at most `restBand`: it keeps its displacement (0) and its bit
/// stays clear.
/// Returns 1 if every lane that differs is within the conservative bounds under which the exact
/// check accepts (|goal|, |target|, |displacement| <= 2^30, |target - goal| <= displacementLimit,
/// |new displacement| <= 2^29, |velocity lane| <= velocityLimit), else 0.
int sk_stream_retarget_q16(
    const int32_t *goals, const int32_t *targets, const int32_t *displacements, const int32_t *velocities, int32_t *newTargets,
    int32_t *newDisplacements, uint16_t *changed, int32_t displacementShift, int32_t displacementLimit, int32_t velocityLimit,
    intptr_t restFrom, uint32_t restBand, intptr_t count);
/// For tests: the lanes from which the state writes and the Q16.16 retarget store around the
/// cache (negative: the default, 2^18), so that path runs on a small bank.
void sk_set_streaming_store_lanes(intptr_t lanes);
/// displacements[i] = values[i] - targets[i], velocityLanes[i] = velocities[i], into lanes kept
/// only if the call is accepted: returns 1 if every value and velocity is storable (neither NaN
/// nor above `limit` in magnitude), else 0.
int sk_stream_set_state_f32(
    const float *values, const float *velocities, const float *targets, float *displacements, float *velocityLanes, float limit,
    intptr_t count);
/// Q16.16: displacements[i] = (values[i] - targets[i]) << displacementShift (0...30), velocityLanes[i]
/// = velocities[i] at velocityShift (-30...30: << a positive shift, rounded to nearest, ties up,
/// for a negative one), into lanes kept only if the call is accepted; each lane exact wherever
/// the exact check accepts it. Returns 1 if every lane is within the conservative bounds
/// |value|, |target| <= 2^30, |value - target| <= displacementLimit, |velocity| <= velocityLimit,
/// else 0 (the exact check, one spring at a time, then decides).
int sk_stream_set_state_q16(
    const int32_t *values, const int32_t *velocities, const int32_t *targets, int32_t *displacements, int32_t *velocityLanes,
    int32_t displacementShift, int32_t velocityShift, int32_t displacementLimit, int32_t velocityLimit, intptr_t count);

// MARK: Platform needs (shims.c; Platform.swift is their one Swift caller)

/// A thread's floating-point environment (rounding mode, exception masks and flags), big enough
/// for the C library's `fenv_t` on every supported platform (shims.c checks so).
typedef struct { uint64_t words[8]; } sk_saved_fp_environment;
/// Saves the thread's floating-point environment into `saved`, masks exceptions, sets
/// round-to-nearest and turns flush-to-zero and denormals-are-zero off.
void sk_enter_nearest_rounding(sk_saved_fp_environment *saved);
/// Restores an environment sk_enter_nearest_rounding saved.
void sk_leave_nearest_rounding(const sk_saved_fp_environment *saved);
/// The processors online (1 where the platform cannot say, as on WASI).
intptr_t sk_processor_count(void);
/// The largest data cache of CPU 0 in bytes, from Linux's sysfs; 0 where unknown.
intptr_t sk_last_level_cache_bytes(void);
/// malloc(bytes) (16-byte aligned): NULL when the system cannot give them.
void *sk_allocate_if_available(intptr_t bytes);
/// posix_memalign of `bytes` at `alignment` (a power of two, at least a pointer's size): NULL when
/// the system cannot give them. Released with sk_free.
void *sk_allocate_aligned_if_available(intptr_t bytes, intptr_t alignment);
/// free(pointer).
void sk_free(void *pointer);

#endif
