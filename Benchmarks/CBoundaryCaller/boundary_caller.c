#include "CBoundaryCaller.h"

#include <string.h>

#include "../../Sources/SpringKernelC/include/spring_kernel.h"

int32_t boundary_step_frames(uint64_t bank, double dt, int32_t frames) {
    for (int32_t i = 0; i < frames; i++) {
        sk_status status = sk_bank_step(bank, dt);
        if (status != sk_status_ok) return status;
    }
    return 0;
}

int32_t boundary_read_values(uint64_t bank, const uint64_t *springs, size_t count, float *out) {
    return sk_bank_read_f32(bank, sk_quantity_value, springs, count, out);
}

int32_t boundary_set_state(uint64_t bank, const uint64_t *springs, const float *values, const float *velocities, size_t count) {
    return sk_bank_set_state_f32(bank, springs, values, velocities, count);
}

int32_t boundary_retarget(uint64_t bank, const uint64_t *springs, const float *targets, size_t count) {
    return sk_bank_retarget_f32(bank, springs, targets, count);
}

int32_t boundary_layout(uint64_t bank, uint64_t *version, size_t *count) {
    return sk_bank_layout(bank, sk_region_all, count, version);
}

int32_t boundary_layout_read_values(uint64_t bank, uint64_t version, float *out, size_t count) {
    return sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, version, out, count);
}

int32_t boundary_layout_read_targets(uint64_t bank, uint64_t version, float *out, size_t count) {
    return sk_layout_read_f32(bank, sk_quantity_target, sk_region_all, version, out, count);
}

int32_t boundary_layout_read_user_values(uint64_t bank, uint64_t version, uint64_t *out, size_t count) {
    return sk_layout_read_user_values(bank, sk_region_all, version, out, count);
}

int32_t boundary_layout_read_springs(uint64_t bank, uint64_t version, uint64_t *out, size_t count) {
    return sk_layout_read_springs(bank, sk_region_all, version, out, count);
}

int32_t boundary_layout_retarget(uint64_t bank, uint64_t version, const float *targets, size_t count) {
    return sk_layout_retarget_f32(bank, sk_region_all, version, targets, count);
}

int32_t boundary_calls(uint64_t bank, int32_t which, int64_t calls) {
    uint64_t frames = 0;
    for (int64_t i = 0; i < calls; i++) {
        sk_status status = which == 0 ? sk_bank_counts(bank, NULL, NULL, &frames) : sk_bank_step(bank, 1.0 / 60);
        if (status != sk_status_ok) return status;
    }
    return 0;
}

void boundary_memcpy(void *destination, const void *source, size_t bytes) { memcpy(destination, source, bytes); }
