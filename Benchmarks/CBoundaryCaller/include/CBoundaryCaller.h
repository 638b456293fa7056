#ifndef C_BOUNDARY_CALLER_H
#define C_BOUNDARY_CALLER_H
// Loops that call the C interface from C, compiled by clang and linked into spring-bench, so
// `spring-bench c-boundary` measures a call through the C ABI against the Swift API in one process.
// They call the sk_ functions linked into spring-bench (SwiftPM's SpringKernelC), or, after
// boundary_load, those of a library file (`c-boundary --library`: the CMake build's Embedded Swift
// libSpringKernelC.so). A bank is only known to the library that made it.
#include <stddef.h>
#include <stdint.h>

/// Loads the sk_ functions from the shared library at `path` (dlopen, RTLD_LOCAL); every boundary_
/// call then goes to it. Returns 0, or 1 with the reason in `error`.
int32_t boundary_load(const char *path, char *error, size_t error_size);
/// sk_bank_create with one thread.
int32_t boundary_bank_create(int32_t format, size_t capacity, uint64_t *bank);
/// sk_bank_destroy.
int32_t boundary_bank_destroy(uint64_t bank);
/// sk_bank_add_f32 at rest velocity (NULL) and mass 1.
int32_t boundary_bank_add_f32(uint64_t bank, size_t count, const float *values, const float *targets, double tension,
                              double friction, float tolerance, uint64_t *springs);
/// sk_bank_add_q16 at rest velocity (NULL) and mass 1.
int32_t boundary_bank_add_q16(uint64_t bank, size_t count, const int32_t *values, const int32_t *targets, double tension,
                              double friction, int32_t tolerance, uint64_t *springs);

/// Steps `bank` `frames` times with sk_bank_step; returns the first status that is not 0.
int32_t boundary_step_frames(uint64_t bank, double dt, int32_t frames);
/// Reads the values of `count` springs with one sk_bank_read_f32.
int32_t boundary_read_values(uint64_t bank, const uint64_t *springs, size_t count, float *out);
/// Sets the value and velocity of `count` springs with one sk_bank_set_state_f32.
int32_t boundary_set_state(uint64_t bank, const uint64_t *springs, const float *values, const float *velocities, size_t count);
/// Retargets `count` springs with one sk_bank_retarget_f32.
int32_t boundary_retarget(uint64_t bank, const uint64_t *springs, const float *targets, size_t count);
/// Retargets `count` Q16.16 springs with one sk_bank_retarget_q16 (raw targets).
int32_t boundary_retarget_q16(uint64_t bank, const uint64_t *springs, const int32_t *targets, size_t count);
/// The layout of every spring (sk_bank_layout, sk_region_all): its version and count.
int32_t boundary_layout(uint64_t bank, uint64_t *version, size_t *count);
/// Reads every spring's value in storage order with one sk_layout_read_f32.
int32_t boundary_layout_read_values(uint64_t bank, uint64_t version, float *out, size_t count);
/// Reads every spring's target in storage order with one sk_layout_read_f32.
int32_t boundary_layout_read_targets(uint64_t bank, uint64_t version, float *out, size_t count);
/// Reads every spring's user value in storage order with one sk_layout_read_user_values.
int32_t boundary_layout_read_user_values(uint64_t bank, uint64_t version, uint64_t *out, size_t count);
/// Reads every spring's handle in storage order with one sk_layout_read_springs.
int32_t boundary_layout_read_springs(uint64_t bank, uint64_t version, uint64_t *out, size_t count);
/// Retargets every spring in storage order with one sk_layout_retarget_f32.
int32_t boundary_layout_retarget(uint64_t bank, uint64_t version, const float *targets, size_t count);
/// Makes `calls` calls that do almost nothing but cross the boundary: sk_bank_counts (which 0) or
/// sk_bank_step (which 1, on a bank with nothing moving); returns the first status that is not 0.
int32_t boundary_calls(uint64_t bank, int32_t which, int64_t calls);
/// Sets every spring's value and velocity in storage order with one sk_layout_set_state_f32.
int32_t boundary_layout_set_state(uint64_t bank, uint64_t version, const float *values, const float *velocities, size_t count);
/// Reads every Q16.16 spring's value in storage order with one sk_layout_read_q16.
int32_t boundary_layout_read_q16(uint64_t bank, uint64_t version, int32_t *out, size_t count);
/// Sets every Q16.16 spring's value and velocity in storage order with one sk_layout_set_state_q16.
int32_t boundary_layout_set_state_q16(uint64_t bank, uint64_t version, const int32_t *values, const int32_t *velocities,
                                      size_t count);
/// Retargets every Q16.16 spring in storage order with one sk_layout_retarget_q16.
int32_t boundary_layout_retarget_q16(uint64_t bank, uint64_t version, const int32_t *targets, size_t count);
/// memcpy, out of line, as the reference for the bulk calls.
void boundary_memcpy(void *destination, const void *source, size_t bytes);

#endif
