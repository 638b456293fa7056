#ifndef C_BOUNDARY_CALLER_H
#define C_BOUNDARY_CALLER_H
// Loops that call the C interface from C, compiled by clang and linked into spring-bench, so
// `spring-bench c-boundary` measures a call through the C ABI against the Swift API in one process.
#include <stddef.h>
#include <stdint.h>

/// Steps `bank` `frames` times with sk_bank_step; returns the first status that is not 0.
int32_t boundary_step_frames(uint64_t bank, double dt, int32_t frames);
/// Reads the values of `count` springs with one sk_bank_read_f32.
int32_t boundary_read_values(uint64_t bank, const uint64_t *springs, size_t count, float *out);
/// Sets the value and velocity of `count` springs with one sk_bank_set_state_f32.
int32_t boundary_set_state(uint64_t bank, const uint64_t *springs, const float *values, const float *velocities, size_t count);
/// Retargets `count` springs with one sk_bank_retarget_f32.
int32_t boundary_retarget(uint64_t bank, const uint64_t *springs, const float *targets, size_t count);
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
/// memcpy, out of line, as the reference for the bulk calls.
void boundary_memcpy(void *destination, const void *source, size_t bytes);

#endif
