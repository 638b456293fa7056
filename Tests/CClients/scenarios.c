/* The C client: the DragToOpen scenario (a spring dragged under a pause mask, released toward the
 * open or closed target) in both formats, and a 100,000-spring frame loop, through spring_kernel.h
 * only. Prints one line per scenario; .ci/c-clients compares the lines with the Swift API's
 * (`spring-bench c-scenarios`), the C++ client's and the Python one's. */
#include "spring_kernel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        sk_status status_ = (call);                                                                \
        if (status_ != sk_status_ok) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, sk_status_name(status_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Whether the last step rested `spring`; the list is read in one call. */
static int rested_in_last_step(uint64_t bank, uint64_t spring) {
    uint64_t rested[64];
    size_t count = 0;
    CHECK(sk_bank_rested(bank, rested, 64, &count));
    for (size_t i = 0; i < count; i++)
        if (rested[i] == spring) return 1;
    return 0;
}

/* DragToOpen: closedPosition 0, openPosition 200, boundary 100. The engine writes the finger's
 * position into the paused spring each frame; crossing the boundary retargets it (it stays
 * paused, so the new destination takes effect on release); release hands over the finger's
 * position and velocity. Three other springs move meanwhile. */
static void drag_to_open_float(void) {
    const double dt = 1.0 / 60;
    uint64_t bank, springs[4], mask, hash;
    const float values[4] = {0, 10, 20, 30}, targets[4] = {0, 0, 0, 0};
    CHECK(sk_bank_create(sk_format_float32, 1, 0, &bank));
    CHECK(sk_bank_add_f32(bank, 4, values, targets, NULL, 342, 30, 1, 0.5f, springs));
    uint64_t x = springs[0];
    CHECK(sk_mask_create(bank, &x, 1, &mask));
    CHECK(sk_mask_pause(bank, mask));
    int will_open = 0;
    for (int frame = 1; frame <= 30; frame++) {
        float finger = 5.0f * (float)frame, still = 0, open = 200, closed = 0;
        CHECK(sk_bank_set_state_f32(bank, &x, &finger, &still, 1));
        if (finger > 100 && !will_open) { CHECK(sk_bank_retarget_f32(bank, &x, &open, 1)); will_open = 1; }
        if (finger <= 100 && will_open) { CHECK(sk_bank_retarget_f32(bank, &x, &closed, 1)); will_open = 0; }
        CHECK(sk_bank_step(bank, dt));
    }
    float release_value = 150, release_velocity = 900;
    CHECK(sk_mask_resume_f32(bank, mask, &x, &release_value, &release_velocity, 1));
    double rest_time;
    CHECK(sk_bank_rest_time(bank, &x, 1, &rest_time));
    int rest_frame = -1;
    size_t awake = 1;
    for (int frame = 1; frame <= 600 && awake > 0; frame++) {
        CHECK(sk_bank_step(bank, dt));
        if (rested_in_last_step(bank, x)) rest_frame = frame;
        CHECK(sk_bank_counts(bank, NULL, &awake, NULL));
    }
    float value;
    CHECK(sk_bank_read_f32(bank, sk_quantity_value, &x, 1, &value));
    CHECK(sk_bank_state_hash(bank, &hash));
    printf("drag-to-open float32: rest time %.6f s, rest frame %d, value %.6f, hash %016" PRIx64 "\n", rest_time, rest_frame,
           (double)value, hash);
    CHECK(sk_bank_destroy(bank));
}

/* The same in Q16.16: every value is raw, the number times 65536. */
static void drag_to_open_q16(void) {
    const double dt = 1.0 / 60;
    const int32_t one = 65536;
    uint64_t bank, springs[4], mask, hash;
    const int32_t values[4] = {0, 10 * one, 20 * one, 30 * one}, targets[4] = {0, 0, 0, 0};
    CHECK(sk_bank_create(sk_format_q16, 1, 0, &bank));
    CHECK(sk_bank_add_q16(bank, 4, values, targets, NULL, 342, 30, 1, one / 2, springs));
    uint64_t x = springs[0];
    CHECK(sk_mask_create(bank, &x, 1, &mask));
    CHECK(sk_mask_pause(bank, mask));
    int will_open = 0;
    for (int frame = 1; frame <= 30; frame++) {
        int32_t finger = 5 * frame * one, still = 0, open = 200 * one, closed = 0;
        CHECK(sk_bank_set_state_q16(bank, &x, &finger, &still, 1));
        if (finger > 100 * one && !will_open) { CHECK(sk_bank_retarget_q16(bank, &x, &open, 1)); will_open = 1; }
        if (finger <= 100 * one && will_open) { CHECK(sk_bank_retarget_q16(bank, &x, &closed, 1)); will_open = 0; }
        CHECK(sk_bank_step(bank, dt));
    }
    int32_t release_value = 150 * one, release_velocity = 900 * one;
    CHECK(sk_mask_resume_q16(bank, mask, &x, &release_value, &release_velocity, 1));
    double rest_time;
    CHECK(sk_bank_rest_time(bank, &x, 1, &rest_time));
    int rest_frame = -1;
    size_t awake = 1;
    for (int frame = 1; frame <= 600 && awake > 0; frame++) {
        CHECK(sk_bank_step(bank, dt));
        if (rested_in_last_step(bank, x)) rest_frame = frame;
        CHECK(sk_bank_counts(bank, NULL, &awake, NULL));
    }
    int32_t value;
    CHECK(sk_bank_read_q16(bank, sk_quantity_value, &x, 1, &value));
    CHECK(sk_bank_state_hash(bank, &hash));
    printf("drag-to-open q16: rest time %.6f s, rest frame %d, value %" PRId32 ", hash %016" PRIx64 "\n", rest_time, rest_frame,
           value, hash);
    CHECK(sk_bank_destroy(bank));
}

/* Left out with -DSCENARIOS_SMALL_RAM: its 100,000 springs need about 16 MB, where .ci/cortex-m's
 * Cortex-M4F board has 3 MB of RAM for the program (the other lines are compared there). */
#if !defined(SCENARIOS_SMALL_RAM)
/* 100,000 springs in two configurations, 120 frames alternating 1/60 and 1/90 s, every 97th
 * spring retargeted every 10th frame; the rest lists counted, every value read each frame. */
static void frame_loop(void) {
    enum { N = 100000, HALF = N / 2, FRAMES = 120 };
    float *values = malloc(N * sizeof(float)), *targets = malloc(N * sizeof(float)), *velocities = malloc(N * sizeof(float));
    uint64_t *springs = malloc(N * sizeof(uint64_t)), *rested = malloc(N * sizeof(uint64_t));
    if (!values || !targets || !velocities || !springs || !rested) exit(1);
    for (int i = 0; i < N; i++) {
        values[i] = (float)(i % 1000) * 0.5f;
        targets[i] = (float)((i * 7) % 1000) * 0.5f;
        velocities[i] = (float)(i % 13 - 6);
    }
    uint64_t bank, hash;
    CHECK(sk_bank_create(sk_format_float32, 1, N, &bank));
    CHECK(sk_bank_add_f32(bank, HALF, values, targets, velocities, 342, 30, 1, 0.5f, springs));
    CHECK(sk_bank_add_f32(bank, HALF, values + HALF, targets + HALF, velocities + HALF, 1323, 91, 1, 0.5f, springs + HALF));
    uint64_t moved[N / 97 + 1];
    float new_targets[N / 97 + 1];
    size_t total_rested = 0;
    for (int frame = 0; frame < FRAMES; frame++) {
        if (frame % 10 == 0) {
            size_t k = 0;
            for (int i = 0; i < N; i += 97, k++) {
                moved[k] = springs[i];
                new_targets[k] = (float)((i + frame) % 500);
            }
            CHECK(sk_bank_retarget_f32(bank, moved, new_targets, k));
        }
        CHECK(sk_bank_step(bank, frame % 2 == 0 ? 1.0 / 60 : 1.0 / 90));
        size_t count;
        CHECK(sk_bank_rested(bank, rested, N, &count));
        total_rested += count;
        CHECK(sk_bank_read_f32(bank, sk_quantity_value, springs, N, values));
    }
    uint64_t bits_sum = 0;
    for (int i = 0; i < N; i++) {
        uint32_t bits;
        memcpy(&bits, &values[i], sizeof bits);
        bits_sum += bits;
    }
    size_t awake;
    CHECK(sk_bank_counts(bank, NULL, &awake, NULL));
    CHECK(sk_bank_state_hash(bank, &hash));
    printf("frame-loop float32: %d springs, %d frames, rested %zu, awake %zu, value bits %" PRIu64 ", hash %016" PRIx64 "\n", N, FRAMES,
           total_rested, awake, bits_sum, hash);
    CHECK(sk_bank_destroy(bank));
    free(values), free(targets), free(velocities), free(springs), free(rested);
}
#endif

/* An engine's frame in storage order: after each step, the moving springs' values with their ids
 * (the user values, here each spring's index) in two streamed reads, checked against a read by
 * handle; every 10th frame, every target read and written back in storage order, those of the
 * springs whose id is a multiple of 5 moved. */
static void storage_order(void) {
    enum { N = 10000, HALF = N / 2, FRAMES = 60 };
    float *values = malloc(N * sizeof(float)), *targets = malloc(N * sizeof(float)), *velocities = malloc(N * sizeof(float));
    float *by_handle = malloc(N * sizeof(float));
    uint64_t *springs = malloc(N * sizeof(uint64_t)), *ids = malloc(N * sizeof(uint64_t));
    if (!values || !targets || !velocities || !by_handle || !springs || !ids) exit(1);
    for (int i = 0; i < N; i++) {
        values[i] = (float)(i % 1000) * 0.5f;
        targets[i] = (float)((i * 7) % 1000) * 0.5f;
        velocities[i] = (float)(i % 13 - 6);
        ids[i] = (uint64_t)i;
    }
    uint64_t bank, hash, version, sum = 0;
    size_t count, reads = 0, mismatches = 0;
    CHECK(sk_bank_create(sk_format_float32, 1, N, &bank));
    CHECK(sk_bank_add_f32(bank, HALF, values, targets, velocities, 342, 30, 1, 0.5f, springs));
    CHECK(sk_bank_add_f32(bank, HALF, values + HALF, targets + HALF, velocities + HALF, 1323, 91, 1, 0.5f, springs + HALF));
    CHECK(sk_bank_set_user_values(bank, springs, ids, N));
    for (int frame = 0; frame < FRAMES; frame++) {
        CHECK(sk_bank_step(bank, 1.0 / 60));
        CHECK(sk_bank_layout(bank, sk_region_moving, &count, &version));
        CHECK(sk_layout_read_user_values(bank, sk_region_moving, version, ids, count));
        CHECK(sk_layout_read_f32(bank, sk_quantity_value, sk_region_moving, version, values, count));
        CHECK(sk_bank_read_f32(bank, sk_quantity_value, springs, N, by_handle));
        for (size_t k = 0; k < count; k++) {
            uint32_t bits;
            memcpy(&bits, &values[k], sizeof bits);
            sum += (ids[k] + 1) * bits;
            if (memcmp(&values[k], &by_handle[ids[k]], sizeof(float)) != 0) mismatches++;
        }
        reads += count;
        if (frame % 10 == 0) {
            CHECK(sk_bank_layout(bank, sk_region_all, &count, &version));
            CHECK(sk_layout_read_user_values(bank, sk_region_all, version, ids, count));
            CHECK(sk_layout_read_f32(bank, sk_quantity_target, sk_region_all, version, targets, count));
            for (size_t k = 0; k < count; k++)
                if (ids[k] % 5 == 0) targets[k] = (float)((ids[k] + (uint64_t)frame) % 300);
            CHECK(sk_layout_retarget_f32(bank, sk_region_all, version, targets, count));
        }
    }
    size_t awake;
    CHECK(sk_bank_counts(bank, NULL, &awake, NULL));
    CHECK(sk_bank_state_hash(bank, &hash));
    /* Counts as uint64_t: newlib's printf (Cortex-M) has no %zu. */
    printf("storage-order float32: %d springs, %d frames, moving values read %" PRIu64 ", id-value sum %" PRIu64 ", mismatches %" PRIu64
           ", awake %" PRIu64 ", hash %016" PRIx64 "\n",
           N, FRAMES, (uint64_t)reads, sum, (uint64_t)mismatches, (uint64_t)awake, hash);
    CHECK(sk_bank_destroy(bank));
    free(values), free(targets), free(velocities), free(by_handle), free(springs), free(ids);
}

int main(void) {
    drag_to_open_float();
    drag_to_open_q16();
#if !defined(SCENARIOS_SMALL_RAM)
    frame_loop();
#endif
    storage_order();
    return 0;
}
