#include "CBoundaryCaller.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../../Sources/SpringKernelC/include/spring_kernel.h"

// The sk_ functions the loops call: the ones linked into spring-bench (SwiftPM's SpringKernelC),
// or, after boundary_load, those of a library file (the CMake build's libSpringKernelC.so).
#define BOUNDARY_FUNCTIONS(X) \
    X(sk_bank_create) X(sk_bank_destroy) X(sk_bank_counts) X(sk_bank_add_f32) X(sk_bank_add_q16) X(sk_bank_step) \
    X(sk_bank_read_f32) X(sk_bank_set_state_f32) X(sk_bank_retarget_f32) X(sk_bank_retarget_q16) X(sk_bank_layout) \
    X(sk_layout_read_f32) X(sk_layout_read_q16) X(sk_layout_read_user_values) X(sk_layout_read_springs) \
    X(sk_layout_retarget_f32) X(sk_layout_retarget_q16) X(sk_layout_set_state_f32) X(sk_layout_set_state_q16)

#define BOUNDARY_FIELD(name) __typeof__(name) *name;
#define BOUNDARY_LINKED(name) name,
static struct { BOUNDARY_FUNCTIONS(BOUNDARY_FIELD) } sk = { BOUNDARY_FUNCTIONS(BOUNDARY_LINKED) };

int32_t boundary_load(const char *path, char *error, size_t error_size) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, error_size, "%s", dlerror());
        return 1;
    }
    __typeof__(sk) loaded;
#define BOUNDARY_LOAD(name) \
    if (!(*(void **)&loaded.name = dlsym(library, #name))) { \
        snprintf(error, error_size, "%s has no %s", path, #name); \
        return 1; \
    }
    BOUNDARY_FUNCTIONS(BOUNDARY_LOAD)
    sk = loaded;
    return 0;
}

int32_t boundary_bank_create(int32_t format, size_t capacity, uint64_t *bank) {
    return sk.sk_bank_create(format, 1, capacity, bank);
}

int32_t boundary_bank_destroy(uint64_t bank) { return sk.sk_bank_destroy(bank); }

int32_t boundary_bank_add_f32(uint64_t bank, size_t count, const float *values, const float *targets, double tension,
                              double friction, float tolerance, uint64_t *springs) {
    return sk.sk_bank_add_f32(bank, count, values, targets, NULL, tension, friction, 1, tolerance, springs);
}

int32_t boundary_bank_add_q16(uint64_t bank, size_t count, const int32_t *values, const int32_t *targets, double tension,
                              double friction, int32_t tolerance, uint64_t *springs) {
    return sk.sk_bank_add_q16(bank, count, values, targets, NULL, tension, friction, 1, tolerance, springs);
}

int32_t boundary_step_frames(uint64_t bank, double dt, int32_t frames) {
    for (int32_t i = 0; i < frames; i++) {
        sk_status status = sk.sk_bank_step(bank, dt);
        if (status != sk_status_ok) return status;
    }
    return 0;
}

int32_t boundary_read_values(uint64_t bank, const uint64_t *springs, size_t count, float *out) {
    return sk.sk_bank_read_f32(bank, sk_quantity_value, springs, count, out);
}

int32_t boundary_set_state(uint64_t bank, const uint64_t *springs, const float *values, const float *velocities, size_t count) {
    return sk.sk_bank_set_state_f32(bank, springs, values, velocities, count);
}

int32_t boundary_retarget(uint64_t bank, const uint64_t *springs, const float *targets, size_t count) {
    return sk.sk_bank_retarget_f32(bank, springs, targets, count);
}

int32_t boundary_retarget_q16(uint64_t bank, const uint64_t *springs, const int32_t *targets, size_t count) {
    return sk.sk_bank_retarget_q16(bank, springs, targets, count);
}

int32_t boundary_layout(uint64_t bank, uint64_t *version, size_t *count) {
    return sk.sk_bank_layout(bank, sk_region_all, count, version);
}

int32_t boundary_layout_read_values(uint64_t bank, uint64_t version, float *out, size_t count) {
    return sk.sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, version, out, count);
}

int32_t boundary_layout_read_targets(uint64_t bank, uint64_t version, float *out, size_t count) {
    return sk.sk_layout_read_f32(bank, sk_quantity_target, sk_region_all, version, out, count);
}

int32_t boundary_layout_read_user_values(uint64_t bank, uint64_t version, uint64_t *out, size_t count) {
    return sk.sk_layout_read_user_values(bank, sk_region_all, version, out, count);
}

int32_t boundary_layout_read_springs(uint64_t bank, uint64_t version, uint64_t *out, size_t count) {
    return sk.sk_layout_read_springs(bank, sk_region_all, version, out, count);
}

int32_t boundary_layout_retarget(uint64_t bank, uint64_t version, const float *targets, size_t count) {
    return sk.sk_layout_retarget_f32(bank, sk_region_all, version, targets, count);
}

int32_t boundary_layout_set_state(uint64_t bank, uint64_t version, const float *values, const float *velocities, size_t count) {
    return sk.sk_layout_set_state_f32(bank, sk_region_all, version, values, velocities, count);
}

int32_t boundary_layout_read_q16(uint64_t bank, uint64_t version, int32_t *out, size_t count) {
    return sk.sk_layout_read_q16(bank, sk_quantity_value, sk_region_all, version, out, count);
}

int32_t boundary_layout_set_state_q16(uint64_t bank, uint64_t version, const int32_t *values, const int32_t *velocities,
                                      size_t count) {
    return sk.sk_layout_set_state_q16(bank, sk_region_all, version, values, velocities, count);
}

int32_t boundary_layout_retarget_q16(uint64_t bank, uint64_t version, const int32_t *targets, size_t count) {
    return sk.sk_layout_retarget_q16(bank, sk_region_all, version, targets, count);
}

int32_t boundary_calls(uint64_t bank, int32_t which, int64_t calls) {
    uint64_t frames = 0;
    for (int64_t i = 0; i < calls; i++) {
        sk_status status = which == 0 ? sk.sk_bank_counts(bank, NULL, NULL, &frames) : sk.sk_bank_step(bank, 1.0 / 60);
        if (status != sk_status_ok) return status;
    }
    return 0;
}

void boundary_memcpy(void *destination, const void *source, size_t bytes) { memcpy(destination, source, bytes); }
