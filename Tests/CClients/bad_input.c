/* The README's bad-input table, the C interface's column: one test per row that C can reach,
 * each checking the status code and that the bank's state hash did not move, and printing the call
 * and its status. .ci/c-clients runs it built by gcc and by clang (the two must print the same
 * lines) and under AddressSanitizer (a bad pointer or a read past a buffer fails the run). */
#include "spring_kernel.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

/* Expects `call` to return `expected` and leave the bank's hash as it was. Prints each call and the
 * status it got, so that .ci/c-clients can compare the builds of gcc and clang line by line. */
#define EXPECT(bank, expected, call)                                                                             \
    do {                                                                                                         \
        uint64_t before_ = 0, after_ = 0;                                                                        \
        int has_bank_ = sk_bank_state_hash((bank), &before_) == sk_status_ok;                                    \
        sk_status got_ = (call);                                                                                 \
        printf("%s: %s -> %s\n", __func__, #call, sk_status_name(got_));                                         \
        if (got_ != (expected)) {                                                                                \
            fprintf(stderr, "%s:%d: %s: %s, expected %s\n", __func__, __LINE__, #call, sk_status_name(got_),      \
                    sk_status_name(expected));                                                                   \
            failures++;                                                                                          \
        } else if (has_bank_ && (sk_bank_state_hash((bank), &after_) != sk_status_ok || after_ != before_)) {    \
            fprintf(stderr, "%s:%d: %s changed the bank\n", __func__, __LINE__, #call);                          \
            failures++;                                                                                          \
        }                                                                                                        \
    } while (0)

#define OK(call)                                                                                                 \
    do {                                                                                                         \
        sk_status got_ = (call);                                                                                 \
        if (got_ != sk_status_ok) {                                                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __func__, __LINE__, #call, sk_status_name(got_));                 \
            exit(1);                                                                                             \
        }                                                                                                        \
    } while (0)

static uint64_t float_bank(uint64_t *springs, size_t count) {
    uint64_t bank;
    OK(sk_bank_create(sk_format_float32, 1, 0, &bank));
    for (size_t i = 0; i < count; i++) {
        float value = (float)i, target = 10;
        OK(sk_bank_add_f32(bank, 1, &value, &target, NULL, 342, 30, 1, 0.5f, &springs[i]));
    }
    return bank;
}

static uint64_t fixed_bank(uint64_t *springs, size_t count) {
    uint64_t bank;
    OK(sk_bank_create(sk_format_q16, 1, 0, &bank));
    for (size_t i = 0; i < count; i++) {
        int32_t value = (int32_t)i << 16, target = 10 << 16;
        OK(sk_bank_add_q16(bank, 1, &value, &target, NULL, 342, 30, 1, 1 << 15, &springs[i]));
    }
    return bank;
}

/* Row: NaN or ±∞ value, target, velocity (add, retarget, set state, impulse, restart values). */
static void non_finite_inputs(void) {
    uint64_t s[2], mask, out;
    uint64_t bank = float_bank(s, 2);
    float bad[3] = {NAN, INFINITY, -INFINITY}, fine = 1, zero = 0;
    for (int i = 0; i < 3; i++) {
        EXPECT(bank, sk_status_non_finite_value, sk_bank_add_f32(bank, 1, &bad[i], &fine, NULL, 342, 30, 1, 0.5f, &out));
        EXPECT(bank, sk_status_non_finite_target, sk_bank_add_f32(bank, 1, &fine, &bad[i], NULL, 342, 30, 1, 0.5f, &out));
        EXPECT(bank, sk_status_non_finite_velocity, sk_bank_add_f32(bank, 1, &fine, &fine, &bad[i], 342, 30, 1, 0.5f, &out));
        EXPECT(bank, sk_status_non_finite_target, sk_bank_retarget_f32(bank, s, (float[]){1, bad[i]}, 2));
        EXPECT(bank, sk_status_non_finite_value, sk_bank_set_state_f32(bank, s, &bad[i], &zero, 1));
        EXPECT(bank, sk_status_non_finite_velocity, sk_bank_set_state_f32(bank, s, &fine, &bad[i], 1));
        EXPECT(bank, sk_status_non_finite_velocity, sk_bank_impulse_f32(bank, s, &bad[i], 1));
    }
    /* A refused restart value refuses the whole resume; the mask still pauses. */
    OK(sk_mask_create(bank, s, 2, &mask));
    OK(sk_mask_pause(bank, mask));
    EXPECT(bank, sk_status_non_finite_value, sk_mask_resume_f32(bank, mask, s, &bad[0], &zero, 1));
    EXPECT(bank, sk_status_ok, sk_mask_pause(bank, mask)); /* still pausing: pausing again does nothing */
    OK(sk_bank_destroy(bank));
}

/* Row: float32 magnitude above 1e15, or an impulse whose sum would be. */
static void float_out_of_range(void) {
    uint64_t s[1], out;
    uint64_t bank = float_bank(s, 1);
    float huge = 2e15f, fine = 1, near = 9e14f;
    EXPECT(bank, sk_status_out_of_range_value, sk_bank_add_f32(bank, 1, &huge, &fine, NULL, 342, 30, 1, 0.5f, &out));
    EXPECT(bank, sk_status_out_of_range_target, sk_bank_retarget_f32(bank, s, &huge, 1));
    OK(sk_bank_impulse_f32(bank, s, &near, 1));
    EXPECT(bank, sk_status_out_of_range_velocity, sk_bank_impulse_f32(bank, s, &near, 1));
    /* Listed twice in one call: the second impulse counts the first. */
    float small = 1e14f, twice[2] = {small, small};
    uint64_t pair[2] = {s[0], s[0]};
    EXPECT(bank, sk_status_out_of_range_velocity, sk_bank_impulse_f32(bank, pair, twice, 2));
    OK(sk_bank_destroy(bank));
}

/* Rows: NaN or ±∞ tolerance; tolerance 0, −0 or negative (Q16: raw ≤ 0). */
static void tolerances(void) {
    uint64_t s[1], out;
    uint64_t bank = float_bank(s, 1);
    float fine = 1;
    EXPECT(bank, sk_status_non_finite_tolerance, sk_bank_add_f32(bank, 1, &fine, &fine, NULL, 342, 30, 1, NAN, &out));
    EXPECT(bank, sk_status_non_finite_tolerance, sk_bank_set_tolerance_f32(bank, s, 1, INFINITY));
    EXPECT(bank, sk_status_non_positive_tolerance, sk_bank_add_f32(bank, 1, &fine, &fine, NULL, 342, 30, 1, 0, &out));
    EXPECT(bank, sk_status_non_positive_tolerance, sk_bank_add_f32(bank, 1, &fine, &fine, NULL, 342, 30, 1, -0.0f, &out));
    EXPECT(bank, sk_status_non_positive_tolerance, sk_bank_set_tolerance_f32(bank, s, 1, -1));
    OK(sk_bank_destroy(bank));
    bank = fixed_bank(s, 1);
    int32_t one = 1 << 16;
    EXPECT(bank, sk_status_non_positive_tolerance, sk_bank_add_q16(bank, 1, &one, &one, NULL, 342, 30, 1, 0, &out));
    EXPECT(bank, sk_status_non_positive_tolerance, sk_bank_set_tolerance_q16(bank, s, 1, -5));
    OK(sk_bank_destroy(bank));
}

/* Rows: Q16 value − target outside Int32; velocity + impulse outside Int32; a motion the lanes
 * cannot hold. */
static void fixed_point_bounds(void) {
    uint64_t s[1], out;
    uint64_t bank = fixed_bank(s, 1);
    int32_t low = INT32_MIN, high = INT32_MAX, zero = 0, big = 32000 << 16, far = 15000 << 16;
    EXPECT(bank, sk_status_out_of_range_displacement, sk_bank_add_q16(bank, 1, &low, &high, NULL, 342, 30, 1, 1 << 15, &out));
    EXPECT(bank, sk_status_out_of_range_displacement, sk_bank_retarget_q16(bank, s, &low, 1));
    OK(sk_bank_set_state_q16(bank, s, &zero, &big, 1));
    EXPECT(bank, sk_status_out_of_range_velocity, sk_bank_impulse_q16(bank, s, &big, 1));
    /* 15,000 units away with a 1/256 band: far past 2^16 tolerances. */
    EXPECT(bank, sk_status_out_of_range_displacement, sk_bank_add_q16(bank, 1, &far, &zero, NULL, 342, 30, 1, 256, &out));
    OK(sk_bank_destroy(bank));
}

/* Row: tension, friction, mass outside their ranges, NaN or ±∞ (checked in that order). */
static void configuration_limits(void) {
    uint64_t s[1], out;
    uint64_t bank = float_bank(s, 1);
    float fine = 1;
    EXPECT(bank, sk_status_invalid_tension, sk_bank_add_f32(bank, 1, &fine, &fine, NULL, 0, 30, 1, 0.5f, &out));
    EXPECT(bank, sk_status_invalid_tension, sk_bank_configure(bank, s, 1, NAN, 30, 1));
    EXPECT(bank, sk_status_invalid_friction, sk_bank_configure(bank, s, 1, 342, -1, 1));
    EXPECT(bank, sk_status_invalid_mass, sk_bank_configure(bank, s, 1, 342, 30, 1e-7));
    EXPECT(bank, sk_status_invalid_tension, sk_bank_configure(bank, s, 1, 2e6, INFINITY, 0));
    OK(sk_bank_configure(bank, s, 1, 1e6, 0, 1e6)); /* every edge value itself is accepted */
    OK(sk_bank_destroy(bank));
}

/* Rows: dt NaN, ±∞, 0, −0, negative; a fixed timestep's mismatch; a bad fixed timestep. */
static void time_steps(void) {
    uint64_t s[1];
    uint64_t bank = float_bank(s, 1);
    double bad[6] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, -1.0 / 60};
    for (int i = 0; i < 6; i++) EXPECT(bank, sk_status_invalid_time_step, sk_bank_step(bank, bad[i]));
    EXPECT(bank, sk_status_invalid_time_step, sk_bank_set_fixed_timestep(bank, NAN));
    EXPECT(bank, sk_status_invalid_time_step, sk_bank_set_fixed_timestep(bank, -1));
    OK(sk_bank_set_fixed_timestep(bank, 1.0 / 60));
    EXPECT(bank, sk_status_time_step_mismatch, sk_bank_step(bank, 1.0 / 30));
    OK(sk_bank_step(bank, 1.0 / 60));
    OK(sk_bank_set_fixed_timestep(bank, 0)); /* back to the variable clock */
    OK(sk_bank_step(bank, 1.0 / 30));
    OK(sk_bank_destroy(bank));
}

/* Rows: a removed spring's handle; another bank's handle or mask; a removed mask. */
static void stale_and_foreign(void) {
    uint64_t s[2], t[1], mask, other_mask;
    uint64_t bank = float_bank(s, 2), other = float_bank(t, 1);
    float target = 3, value;
    OK(sk_bank_remove(bank, &s[1], 1));
    EXPECT(bank, sk_status_stale_handle, sk_bank_retarget_f32(bank, s, (float[]){1, 2}, 2));
    EXPECT(bank, sk_status_stale_handle, sk_bank_read_f32(bank, sk_quantity_value, &s[1], 1, &value));
    EXPECT(bank, sk_status_stale_handle, sk_bank_remove(bank, &s[1], 1));
    EXPECT(bank, sk_status_stale_handle, sk_bank_remove(bank, (uint64_t[]){s[0], s[0]}, 2)); /* listed twice */
    EXPECT(bank, sk_status_foreign_handle, sk_bank_retarget_f32(bank, t, &target, 1));
    EXPECT(bank, sk_status_foreign_handle, sk_bank_retarget_f32(bank, (uint64_t[]){0}, &target, 1)); /* 0 is no handle */
    EXPECT(bank, sk_status_foreign_handle, sk_bank_retarget_f32(bank, (uint64_t[]){~(uint64_t)0}, &target, 1));
    OK(sk_mask_create(other, t, 1, &other_mask));
    EXPECT(bank, sk_status_foreign_handle, sk_mask_pause(bank, other_mask));
    OK(sk_mask_create(bank, s, 1, &mask));
    OK(sk_mask_destroy(bank, mask));
    EXPECT(bank, sk_status_stale_pause_mask, sk_mask_pause(bank, mask));
    EXPECT(bank, sk_status_stale_pause_mask, sk_mask_insert(bank, mask, s, 1));
    OK(sk_bank_destroy(bank));
    OK(sk_bank_destroy(other));
}

/* Row: a 256th hold on one spring (pause, or insert into a pausing mask). */
static void pause_depth(void) {
    uint64_t s[2], masks[256], extra, fresh;
    uint64_t bank = float_bank(s, 2);
    for (int i = 0; i < 255; i++) {
        OK(sk_mask_create(bank, s, 1, &masks[i]));
        OK(sk_mask_pause(bank, masks[i]));
    }
    OK(sk_mask_create(bank, s, 1, &extra));
    EXPECT(bank, sk_status_pause_depth_exceeded, sk_mask_pause(bank, extra));
    OK(sk_mask_create(bank, &s[1], 1, &masks[255]));
    OK(sk_mask_pause(bank, masks[255]));
    /* Inserting both into a pausing mask: s[1] fits, s[0] does not, so neither is inserted. */
    OK(sk_mask_create(bank, NULL, 0, &fresh));
    OK(sk_mask_pause(bank, fresh));
    EXPECT(bank, sk_status_pause_depth_exceeded, sk_mask_insert(bank, fresh, (uint64_t[]){s[1], s[0]}, 2));
    OK(sk_bank_destroy(bank));
}

/* Row: a 65,537th distinct configuration. */
static void too_many_configurations(void) {
    uint64_t bank, spring;
    OK(sk_bank_create(sk_format_float32, 1, 0, &bank));
    float value = 0;
    for (int i = 0; i < 65536; i++) OK(sk_bank_add_f32(bank, 1, &value, &value, NULL, 1 + i, 30, 1, 0.5f, &spring));
    EXPECT(bank, sk_status_too_many_configurations, sk_bank_add_f32(bank, 1, &value, &value, NULL, 70000, 30, 1, 0.5f, &spring));
    OK(sk_bank_destroy(bank));
}

/* The C interface's own rows: a NULL, destroyed or made-up bank id; NULL buffers; an output list
 * longer than its buffer; a call of the other format; an unknown format, quantity or thread count. */
static void c_interface_rows(void) {
    uint64_t s[3], dead, bank_out, hash;
    uint64_t bank = float_bank(s, 3);
    float target = 1, out[3];
    OK(sk_bank_create(sk_format_float32, 1, 0, &dead));
    OK(sk_bank_destroy(dead));
    EXPECT(bank, sk_status_invalid_bank, sk_bank_step(0, 1.0 / 60));
    EXPECT(bank, sk_status_invalid_bank, sk_bank_step(dead, 1.0 / 60));
    EXPECT(bank, sk_status_invalid_bank, sk_bank_destroy(dead));
    EXPECT(bank, sk_status_invalid_bank, sk_bank_retarget_f32(bank ^ ((uint64_t)1 << 40), s, &target, 1));
    EXPECT(bank, sk_status_invalid_bank, sk_bank_state_hash(0xDEADBEEF, &hash));
    EXPECT(bank, sk_status_null_pointer, sk_bank_retarget_f32(bank, NULL, &target, 1));
    EXPECT(bank, sk_status_null_pointer, sk_bank_retarget_f32(bank, s, NULL, 1));
    EXPECT(bank, sk_status_null_pointer, sk_bank_read_f32(bank, sk_quantity_value, s, 3, NULL));
    EXPECT(bank, sk_status_null_pointer, sk_bank_state_hash(bank, NULL));
    EXPECT(bank, sk_status_null_pointer, sk_bank_create(sk_format_float32, 1, 0, NULL));
    EXPECT(bank, sk_status_ok, sk_bank_retarget_f32(bank, NULL, NULL, 0)); /* an empty batch */
    OK(sk_bank_set_fixed_timestep(bank, 0));
    for (int frame = 0; frame < 600; frame++) OK(sk_bank_step(bank, 1.0 / 60));
    OK(sk_bank_retarget_f32(bank, s, (float[]){0, 0, 0}, 3));
    size_t count = 0, awake = 3;
    for (int frame = 0; frame < 600 && awake == 3; frame++) {
        OK(sk_bank_step(bank, 1.0 / 600));
        uint64_t one[1];
        sk_status status = sk_bank_rested(bank, one, 0, &count);
        if (count > 0) {
            EXPECT(bank, sk_status_short_buffer, sk_bank_rested(bank, one, 0, &count));
            (void)status;
            break;
        }
        OK(sk_bank_counts(bank, NULL, &awake, NULL));
    }
    if (count == 0) { fprintf(stderr, "short_buffer: no rest seen\n"); failures++; }
    EXPECT(bank, sk_status_null_pointer, sk_bank_rested(bank, NULL, 0, NULL));
    EXPECT(bank, sk_status_wrong_format, sk_bank_retarget_q16(bank, s, (int32_t[]){0}, 1));
    EXPECT(bank, sk_status_invalid_argument, sk_bank_read_f32(bank, 7, s, 1, out));
    EXPECT(bank, sk_status_invalid_argument, sk_bank_create(9, 1, 0, &bank_out));
    EXPECT(bank, sk_status_invalid_argument, sk_bank_create(sk_format_q16, -1, 0, &bank_out));
    EXPECT(bank, sk_status_invalid_argument, sk_bank_set_threading(bank, -3));
    if (sk_status_name(sk_status_stale_handle)[0] != 's' || sk_status_name(12345)[0] != 'u') {
        fprintf(stderr, "sk_status_name\n");
        failures++;
    }
    OK(sk_bank_destroy(bank));
}

/* User values: set in bulk, carried to the rest events; a stale handle or NULL buffer refused. */
static void user_values(void) {
    uint64_t s[4];
    uint64_t bank = float_bank(s, 4);
    uint64_t ids[4] = {101, 102, 103, 104}, read[4] = {0};
    OK(sk_bank_set_user_values(bank, s, ids, 4));
    OK(sk_bank_read_user_values(bank, s, 4, read));
    for (int i = 0; i < 4; i++) {
        if (read[i] != ids[i]) {
            fprintf(stderr, "%s: spring %d reads user value %" PRIu64 ", set %" PRIu64 "\n", __func__, i, read[i], ids[i]);
            failures++;
        }
    }
    uint64_t rested[4], rested_ids[4];
    size_t total = 0;
    for (int frame = 0; frame < 600 && total < 4; frame++) {
        size_t count = 0;
        OK(sk_bank_step(bank, 1.0 / 60));
        OK(sk_bank_rested(bank, rested + total, 4 - total, &count));
        total += count;
    }
    OK(sk_bank_read_user_values(bank, rested, total, rested_ids));
    uint64_t sum = 0;
    for (size_t i = 0; i < total; i++) sum += rested_ids[i];
    if (total != 4 || sum != 101 + 102 + 103 + 104) {
        fprintf(stderr, "%s: %zu rest events with user values summing to %" PRIu64 "\n", __func__, total, sum);
        failures++;
    }
    OK(sk_bank_remove(bank, &s[0], 1));
    EXPECT(bank, sk_status_stale_handle, sk_bank_read_user_values(bank, s, 4, read));
    EXPECT(bank, sk_status_stale_handle, sk_bank_set_user_values(bank, s, ids, 4));
    EXPECT(bank, sk_status_null_pointer, sk_bank_set_user_values(bank, s + 1, NULL, 3));
    OK(sk_bank_destroy(bank));
}

/* Row: storage order (sk_bank_layout, sk_layout_*): a NULL buffer, a count short of or beyond the
 * layout's, a stale or made-up layout version, a NaN or out-of-range target on write, an unknown
 * region or quantity, the other format's call. Each refused, nothing written to the bank. */
static void storage_order_layouts(void) {
    uint64_t s[4], version, ids[5];
    uint64_t bank = float_bank(s, 4);
    float out[5] = {-1, -1, -1, -1, -1}, targets[4] = {1, 2, 3, 4};
    size_t count = 0;
    OK(sk_bank_step(bank, 1.0 / 60));
    OK(sk_bank_layout(bank, sk_region_all, &count, &version));
    EXPECT(bank, sk_status_ok, sk_bank_layout(bank, sk_region_moving, NULL, NULL)); /* either pointer may be NULL */
    EXPECT(bank, sk_status_invalid_argument, sk_bank_layout(bank, 7, &count, &version));
    EXPECT(bank, sk_status_invalid_bank, sk_layout_read_f32(0, sk_quantity_value, sk_region_all, version, out, 4));
    EXPECT(bank, sk_status_null_pointer, sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, version, NULL, 4));
    EXPECT(bank, sk_status_null_pointer, sk_layout_read_user_values(bank, sk_region_all, version, NULL, 4));
    EXPECT(bank, sk_status_null_pointer, sk_layout_retarget_f32(bank, sk_region_all, version, NULL, 4));
    EXPECT(bank, sk_status_short_buffer, sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, version, out, 3));
    EXPECT(bank, sk_status_short_buffer, sk_layout_read_user_values(bank, sk_region_all, version, ids, 3));
    EXPECT(bank, sk_status_short_buffer, sk_layout_read_springs(bank, sk_region_all, version, ids, 3));
    EXPECT(bank, sk_status_count_mismatch, sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, version, out, 5));
    EXPECT(bank, sk_status_count_mismatch, sk_layout_retarget_f32(bank, sk_region_all, version, targets, 3));
    EXPECT(bank, sk_status_count_mismatch, sk_layout_set_user_values(bank, sk_region_all, version, ids, 3));
    EXPECT(bank, sk_status_invalid_argument, sk_layout_read_f32(bank, 9, sk_region_all, version, out, 4));
    EXPECT(bank, sk_status_invalid_argument, sk_layout_read_f32(bank, sk_quantity_value, -1, version, out, 4));
    EXPECT(bank, sk_status_wrong_format, sk_layout_read_q16(bank, sk_quantity_value, sk_region_all, version, (int32_t *)out, 4));
    EXPECT(bank, sk_status_wrong_format, sk_layout_retarget_q16(bank, sk_region_all, version, (const int32_t *)targets, 4));
    for (int i = 0; i < 5; i++) {
        if (out[i] != -1) { fprintf(stderr, "%s: a refused read wrote out[%d]\n", __func__, i); failures++; }
    }
    /* A NaN, infinite or out-of-range target anywhere refuses the whole write. */
    float bad[3] = {NAN, INFINITY, 2e15f};
    sk_status expected[3] = {sk_status_non_finite_target, sk_status_non_finite_target, sk_status_out_of_range_target};
    for (int i = 0; i < 3; i++) {
        float written[4] = {5, 6, bad[i], 8};
        EXPECT(bank, expected[i], sk_layout_retarget_f32(bank, sk_region_all, version, written, 4));
    }
    float still[4] = {0, 0, 0, 0}, nan_values[4] = {1, NAN, 2, 3};
    EXPECT(bank, sk_status_non_finite_value, sk_layout_set_state_f32(bank, sk_region_all, version, nan_values, still, 4));
    EXPECT(bank, sk_status_non_finite_velocity, sk_layout_set_state_f32(bank, sk_region_all, version, still, nan_values, 4));
    EXPECT(bank, sk_status_null_pointer, sk_layout_set_state_f32(bank, sk_region_all, version, NULL, still, 4));
    EXPECT(bank, sk_status_count_mismatch, sk_layout_set_state_f32(bank, sk_region_all, version, still, NULL, 3));
    /* A made-up version, then a real one gone stale: springs came to rest after it was taken. */
    EXPECT(bank, sk_status_stale_layout, sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, version + 1, out, 4));
    size_t awake = 4;
    for (int frame = 0; frame < 600 && awake == 4; frame++) {
        OK(sk_bank_step(bank, 1.0 / 60));
        OK(sk_bank_counts(bank, NULL, &awake, NULL));
    }
    EXPECT(bank, sk_status_stale_layout, sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, version, out, 4));
    EXPECT(bank, sk_status_stale_layout, sk_layout_read_user_values(bank, sk_region_all, version, ids, 4));
    EXPECT(bank, sk_status_stale_layout, sk_layout_retarget_f32(bank, sk_region_all, version, targets, 4));
    EXPECT(bank, sk_status_stale_layout, sk_layout_set_user_values(bank, sk_region_all, version, ids, 4));
    EXPECT(bank, sk_status_stale_layout, sk_layout_set_state_f32(bank, sk_region_all, version, targets, NULL, 4));
    OK(sk_bank_destroy(bank));
    /* Q16.16: a target whose displacement leaves int32. */
    uint64_t fixed = fixed_bank(s, 4);
    int32_t far[4] = {0, 0, INT32_MIN, 0};
    OK(sk_bank_layout(fixed, sk_region_all, &count, &version));
    EXPECT(fixed, sk_status_out_of_range_displacement, sk_layout_retarget_q16(fixed, sk_region_all, version, far, 4));
    OK(sk_bank_destroy(fixed));
}

static uint64_t layout_version(uint64_t bank) {
    uint64_t version = 0;
    OK(sk_bank_layout(bank, sk_region_all, NULL, &version));
    return version;
}

/* Row: a capacity the system cannot give (2^30: 94 GB), or above 2^30 (it was clamped). */
static void capacity_limits(void) {
    uint64_t bank = 0;
    EXPECT(0, sk_status_invalid_capacity, sk_bank_create(sk_format_float32, 1, ((size_t)1 << 30) + 1, &bank));
    EXPECT(0, sk_status_invalid_capacity, sk_bank_create(sk_format_q16, 1, (size_t)1 << 62, &bank));
    EXPECT(0, sk_status_invalid_capacity, sk_bank_create(sk_format_float32, 1, SIZE_MAX, &bank));
    /* Given (lazily) or refused: never an abort. */
    sk_status status = sk_bank_create(sk_format_float32, 1, (size_t)1 << 30, &bank);
    if (status == sk_status_ok) {
        OK(sk_bank_destroy(bank));
    } else if (status != sk_status_out_of_memory) {
        fprintf(stderr, "%s: capacity 2^30: %s\n", __func__, sk_status_name(status));
        failures++;
    }
}

/* Rows (issue 34): counts no buffer behind them can hold (2^62, 2^40, a uint32_t -1, 2^30 + 1) are
 * refused before anything is read or sized by them, the list's buffers being a few elements long
 * (AddressSanitizer fails the run on a read past one): an add that the bank cannot take is
 * too_many_springs, any other list longer than 2^30 (a bank's most springs) invalid_argument, a
 * storage-order count count_mismatch. */
static void impossible_counts(void) {
    uint64_t s[4], f[4], out[4], mask, user[4] = {0};
    uint64_t bank = float_bank(s, 4), fixed = fixed_bank(f, 4);
    float value[4] = {0, 1, 2, 3}, read[4];
    int32_t raw[4] = {0, 1, 2, 3}, raw_read[4];
    double seconds[4];
    const size_t counts[] = {(size_t)1 << 62, (size_t)1 << 40, (uint32_t)-1, ((size_t)1 << 30) + 1};
    OK(sk_mask_create(bank, s, 2, &mask));
    OK(sk_mask_pause(bank, mask));
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        size_t n = counts[i];
        EXPECT(bank, sk_status_too_many_springs, sk_bank_add_f32(bank, n, value, value, NULL, 342, 30, 1, 0.5f, out));
        EXPECT(fixed, sk_status_too_many_springs, sk_bank_add_q16(fixed, n, raw, raw, NULL, 342, 30, 1, 1 << 15, out));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_remove(bank, s, n));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_retarget_f32(bank, s, value, n));
        EXPECT(fixed, sk_status_invalid_argument, sk_bank_retarget_q16(fixed, f, raw, n));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_impulse_f32(bank, s, value, n));
        EXPECT(fixed, sk_status_invalid_argument, sk_bank_impulse_q16(fixed, f, raw, n));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_set_state_f32(bank, s, value, NULL, n));
        EXPECT(fixed, sk_status_invalid_argument, sk_bank_set_state_q16(fixed, f, raw, NULL, n));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_configure(bank, s, n, 300, 20, 1));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_set_tolerance_f32(bank, s, n, 0.25f));
        EXPECT(fixed, sk_status_invalid_argument, sk_bank_set_tolerance_q16(fixed, f, n, 1 << 14));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_read_f32(bank, sk_quantity_value, s, n, read));
        EXPECT(fixed, sk_status_invalid_argument, sk_bank_read_q16(fixed, sk_quantity_value, f, n, raw_read));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_read_user_values(bank, s, n, out));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_set_user_values(bank, s, user, n));
        EXPECT(bank, sk_status_invalid_argument, sk_bank_rest_time(bank, s, n, seconds));
        EXPECT(bank, sk_status_invalid_argument, sk_mask_create(bank, s, n, out));
        EXPECT(bank, sk_status_invalid_argument, sk_mask_insert(bank, mask, s, n));
        EXPECT(bank, sk_status_invalid_argument, sk_mask_remove(bank, mask, s, n));
        EXPECT(bank, sk_status_invalid_argument, sk_mask_resume_f32(bank, mask, s, value, value, n));
        uint64_t version = layout_version(bank), fixed_version = layout_version(fixed);
        EXPECT(bank, sk_status_count_mismatch, sk_layout_set_state_f32(bank, sk_region_all, version, value, NULL, n));
        EXPECT(fixed, sk_status_count_mismatch, sk_layout_set_state_q16(fixed, sk_region_all, fixed_version, raw, NULL, n));
        EXPECT(bank, sk_status_count_mismatch, sk_layout_retarget_f32(bank, sk_region_all, version, value, n));
        EXPECT(bank, sk_status_count_mismatch, sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, version, read, n));
        EXPECT(bank, sk_status_count_mismatch, sk_layout_read_springs(bank, sk_region_all, version, out, n));
        EXPECT(bank, sk_status_count_mismatch, sk_layout_set_user_values(bank, sk_region_all, version, user, n));
    }
    /* The issue's: 256 valid handles then a 0, and a count of 2^62. */
    uint64_t many[257];
    float targets[257];
    for (int i = 0; i < 256; i++) {
        many[i] = s[i % 4];
        targets[i] = 1;
    }
    many[256] = 0;
    targets[256] = 1;
    EXPECT(bank, sk_status_invalid_argument, sk_bank_retarget_f32(bank, many, targets, (size_t)1 << 62));
    EXPECT(bank, sk_status_foreign_handle, sk_bank_retarget_f32(bank, many, targets, 257));
    /* NULL velocities with a count the stale list cannot back: no zeros made for it. */
    EXPECT(bank, sk_status_foreign_handle, sk_bank_set_state_f32(bank, many, targets, NULL, 257));
    OK(sk_bank_destroy(bank));
    OK(sk_bank_destroy(fixed));
}

/* Row (issue 34): a spring's handle is never a mask's, nor the reverse (a bank's first spring and
 * first mask are both record 0 at generation 0). */
static void handle_kinds(void) {
    uint64_t s[1], mask, out;
    uint64_t bank = float_bank(s, 1);
    float target = 3, value;
    OK(sk_mask_create(bank, NULL, 0, &mask));
    if (mask == s[0]) {
        fprintf(stderr, "%s: the first mask's handle is the first spring's\n", __func__);
        failures++;
    }
    EXPECT(bank, sk_status_foreign_handle, sk_mask_pause(bank, s[0]));
    EXPECT(bank, sk_status_foreign_handle, sk_mask_destroy(bank, s[0]));
    EXPECT(bank, sk_status_foreign_handle, sk_mask_insert(bank, s[0], s, 1));
    EXPECT(bank, sk_status_foreign_handle, sk_mask_resume_f32(bank, s[0], NULL, NULL, NULL, 0));
    EXPECT(bank, sk_status_foreign_handle, sk_bank_retarget_f32(bank, &mask, &target, 1));
    EXPECT(bank, sk_status_foreign_handle, sk_bank_read_f32(bank, sk_quantity_value, &mask, 1, &value));
    EXPECT(bank, sk_status_foreign_handle, sk_bank_remove(bank, &mask, 1));
    EXPECT(bank, sk_status_foreign_handle, sk_mask_create(bank, &mask, 1, &out));
    EXPECT(bank, sk_status_foreign_handle, sk_mask_insert(bank, mask, &mask, 1));
    OK(sk_mask_pause(bank, mask));
    OK(sk_bank_retarget_f32(bank, s, &target, 1));
    OK(sk_bank_destroy(bank));
}

/* Rows (issue 34): a removed spring's handle never names a spring again, however often its record
 * is reused (after 2^18 reuses it named the new spring); a destroyed bank's handle is refused by
 * every bank made after it, its record reused 2^18 - 1 times first (the bank made 65,535 creations
 * later in its registry slot took its handles). One line each, whatever the loops saw. */
static void handle_reuse(void) {
    uint64_t s[1], spring, kept, bank = float_bank(s, 1);
    float one = 1, two = 2, value;
    OK(sk_bank_remove(bank, s, 1));
    int repeats = 0, accepted = 0;
    for (int i = 0; i < (1 << 18) + 1; i++) {
        OK(sk_bank_add_f32(bank, 1, &one, &two, NULL, 342, 30, 1, 0.5f, &spring));
        if (spring == s[0]) repeats++;
        OK(sk_bank_remove(bank, &spring, 1));
    }
    EXPECT(bank, sk_status_stale_handle, sk_bank_read_f32(bank, sk_quantity_value, s, 1, &value));
    OK(sk_bank_destroy(bank));
    uint64_t old;
    OK(sk_bank_create(sk_format_float32, 1, 0, &old));
    OK(sk_bank_add_f32(old, 1, &one, &two, NULL, 342, 30, 1, 0.5f, &kept));
    for (int i = 0; i < (1 << 18) - 1; i++) {
        OK(sk_bank_add_f32(old, 1, &one, &two, NULL, 342, 30, 1, 0.5f, &spring));
        OK(sk_bank_remove(old, &spring, 1));
    }
    OK(sk_bank_destroy(old));
    /* Past one round of the 65,535 registry slots: its slot came back at the last of them. */
    for (int i = 0; i < (1 << 16) + 16; i++) {
        OK(sk_bank_create(sk_format_float32, 1, 0, &bank));
        OK(sk_bank_add_f32(bank, 1, &one, &two, NULL, 342, 30, 1, 0.5f, &spring));
        if (spring == kept) repeats++;
        if (sk_bank_read_f32(bank, sk_quantity_value, &kept, 1, &value) == sk_status_ok) accepted++;
        OK(sk_bank_destroy(bank));
    }
    printf("%s: a removed spring's handle over 2^18 + 1 reuses, a destroyed bank's over 65,552 banks made: issued again %d times, "
           "accepted %d times\n", __func__, repeats, accepted);
    if (repeats || accepted) failures++;
}

/* Rows: any refused call changes nothing (hash, layout version, next handle); sk_mask_remove
 * skips a spring the mask does not list. */
static void all_or_nothing(void) {
    uint64_t s[3];
    /* Q16.16: the second spring swings too wide for tension 0.001; the first fits. */
    uint64_t fixed = fixed_bank(s, 3);
    int32_t zero = 0, fast = 3000 << 16;
    OK(sk_bank_set_state_q16(fixed, &s[1], &zero, &fast, 1));
    double before[3], after[3];
    OK(sk_bank_rest_time(fixed, s, 3, before));
    uint64_t version = layout_version(fixed);
    EXPECT(fixed, sk_status_out_of_range_velocity, sk_bank_configure(fixed, s, 3, 0.001, 0, 1));
    OK(sk_bank_rest_time(fixed, s, 3, after));
    if (before[0] != after[0] || layout_version(fixed) != version) {
        fprintf(stderr, "%s: a refused configure moved the first spring\n", __func__);
        failures++;
    }
    /* The second spring far from its target: a tolerance of 2^-16 cannot hold it. */
    int32_t far = 3000 << 16;
    OK(sk_bank_set_state_q16(fixed, &s[1], &far, &zero, 1));
    version = layout_version(fixed);
    EXPECT(fixed, sk_status_out_of_range_displacement, sk_bank_set_tolerance_q16(fixed, s, 3, 1));
    if (layout_version(fixed) != version) {
        fprintf(stderr, "%s: a refused set_tolerance moved the layout\n", __func__);
        failures++;
    }
    OK(sk_bank_destroy(fixed));
    /* float32 {0, NaN}: refused, and the next spring gets the handle it would have. */
    uint64_t twin_springs[1];
    uint64_t bank = float_bank(s, 1), twin = float_bank(twin_springs, 1), added[2] = {0, 0}, next = 0, twin_next = 0;
    version = layout_version(bank);
    EXPECT(bank, sk_status_non_finite_value, sk_bank_add_f32(bank, 2, (float[]){0, NAN}, (float[]){0, 0}, NULL, 342, 30, 1, 0.5f, added));
    if (layout_version(bank) != version) {
        fprintf(stderr, "%s: a refused add moved the layout version\n", __func__);
        failures++;
    }
    float one = 1;
    OK(sk_bank_add_f32(bank, 1, &one, &one, NULL, 342, 30, 1, 0.5f, &next));
    OK(sk_bank_add_f32(twin, 1, &one, &one, NULL, 342, 30, 1, 0.5f, &twin_next));
    uint64_t hash = 0, twin_hash = 0;
    OK(sk_bank_state_hash(bank, &hash));
    OK(sk_bank_state_hash(twin, &twin_hash));
    if (hash != twin_hash) {
        fprintf(stderr, "%s: a refused add moved a generation\n", __func__);
        failures++;
    }
    OK(sk_bank_destroy(twin));
    /* sk_mask_remove: the unlisted spring is skipped, the listed one leaves. */
    uint64_t mask, listed = s[0];
    OK(sk_mask_create(bank, &listed, 1, &mask));
    OK(sk_mask_pause(bank, mask));
    sk_status removed = sk_mask_remove(bank, mask, (uint64_t[]){s[0], next}, 2);
    if (removed != sk_status_ok) {
        fprintf(stderr, "%s: sk_mask_remove with an unlisted spring: %s\n", __func__, sk_status_name(removed));
        failures++;
    }
    size_t moving = 0;
    OK(sk_bank_layout(bank, sk_region_moving, &moving, NULL));
    if (moving != 1) {
        fprintf(stderr, "%s: sk_mask_remove left the listed spring paused\n", __func__);
        failures++;
    }
    OK(sk_bank_destroy(bank));
}

/* Row: a destroyed bank's handles and another bank's layout version. */
static void identities(void) {
    uint64_t old_bank, old_spring, old_mask, bank = 0, spring, mask;
    float value = 10, zero = 0, out;
    OK(sk_bank_create(sk_format_float32, 1, 0, &old_bank));
    OK(sk_bank_add_f32(old_bank, 1, &value, &zero, NULL, 342, 30, 1, 0.5f, &old_spring));
    OK(sk_mask_create(old_bank, NULL, 0, &old_mask));
    uint64_t old_version = layout_version(old_bank);
    OK(sk_bank_destroy(old_bank));
    /* Past one round of the 65,535 registry slots: its slot came back at the last of them. */
    for (int i = 0; i < (1 << 16) + 16; i++) {
        OK(sk_bank_create(sk_format_float32, 1, 0, &bank));
        if ((bank & 0xFFFF) == (old_bank & 0xFFFF)) break;
        OK(sk_bank_destroy(bank));
    }
    OK(sk_bank_add_f32(bank, 1, &value, &zero, NULL, 342, 30, 1, 0.5f, &spring));
    OK(sk_mask_create(bank, NULL, 0, &mask));
    EXPECT(bank, sk_status_stale_handle, sk_bank_read_f32(bank, sk_quantity_value, &old_spring, 1, &out));
    EXPECT(bank, sk_status_stale_handle, sk_bank_retarget_f32(bank, &old_spring, &zero, 1));
    EXPECT(bank, sk_status_stale_handle, sk_bank_remove(bank, &old_spring, 1));
    EXPECT(bank, sk_status_stale_pause_mask, sk_mask_destroy(bank, old_mask));
    EXPECT(bank, sk_status_stale_layout, sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, old_version, &out, 1));
    uint64_t other;
    OK(sk_bank_create(sk_format_float32, 1, 0, &other));
    OK(sk_bank_add_f32(other, 1, &value, &zero, NULL, 342, 30, 1, 0.5f, &spring));
    EXPECT(bank, sk_status_stale_layout, sk_layout_read_f32(bank, sk_quantity_value, sk_region_all, layout_version(other), &out, 1));
    OK(sk_bank_destroy(other));
    OK(sk_bank_destroy(bank));
}

struct stepper {
    uint64_t bank;
    int ok, busy, other;
};

static void *step_bank(void *argument) {
    struct stepper *stepper = argument;
    for (int i = 0; i < 2000; i++) {
        sk_status status = sk_bank_step(stepper->bank, 1.0 / 60);
        if (status == sk_status_ok) stepper->ok++;
        else if (status == sk_status_busy) stepper->busy++;
        else stepper->other++;
    }
    return NULL;
}

/* Row: two threads calling into one bank: the second is refused with busy, no frame is lost. */
static void busy(void) {
    uint64_t bank, springs[2048];
    float values[2048], targets[2048];
    for (int i = 0; i < 2048; i++) values[i] = (float)(i % 100) + 1, targets[i] = 0;
    OK(sk_bank_create(sk_format_float32, 1, 0, &bank));
    OK(sk_bank_add_f32(bank, 2048, values, targets, NULL, 342, 0, 1, 0.5f, springs));
    struct stepper steppers[2] = {{bank, 0, 0, 0}, {bank, 0, 0, 0}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) pthread_create(&threads[i], NULL, step_bank, &steppers[i]);
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    uint64_t frames = 0;
    OK(sk_bank_counts(bank, NULL, NULL, &frames));
    if (steppers[0].other || steppers[1].other || frames != (uint64_t)(steppers[0].ok + steppers[1].ok)) {
        fprintf(stderr, "%s: %" PRIu64 " frames for %d + %d steps\n", __func__, frames, steppers[0].ok, steppers[1].ok);
        failures++;
    }
    OK(sk_bank_destroy(bank));
}

int main(void) {
    non_finite_inputs();
    float_out_of_range();
    tolerances();
    fixed_point_bounds();
    configuration_limits();
    time_steps();
    stale_and_foreign();
    pause_depth();
    too_many_configurations();
    c_interface_rows();
    user_values();
    storage_order_layouts();
    capacity_limits();
    impossible_counts();
    handle_kinds();
    handle_reuse();
    all_or_nothing();
    identities();
    busy();
    if (failures) {
        fprintf(stderr, "bad input: %d failures\n", failures);
        return 1;
    }
    printf("bad input: every row refused with its status, no bank changed\n");
    return 0;
}
