/* Banks made, used and destroyed on several threads at once: the header lets different banks be
 * used on different threads, so the registry that hands out bank ids (a Mutex in SwiftPM's
 * library, a spin-and-yield lock in the Embedded one CMake builds) must keep every id its own.
 * Each thread makes a bank, adds springs, steps it, checks its state hash against one computed
 * alone first, and destroys it, many times over; every call must succeed. .ci/c-clients runs it
 * against CMake's library and SwiftPM's. */
#include "spring_kernel.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

enum { threads = 4, rounds = 3000, springs = 8 };

/* Makes a bank of `springs` springs, steps it 3 frames, writes its state hash, destroys it; returns
 * the first status that is not ok. */
static sk_status one_bank(uint64_t *hash) {
    float values[springs], targets[springs];
    uint64_t handles[springs];
    for (int i = 0; i < springs; i++) {
        values[i] = (float)(i * 10);
        targets[i] = 100;
    }
    uint64_t bank = 0;
    sk_status status = sk_bank_create(sk_format_float32, 1, springs, &bank);
    if (status != sk_status_ok) return status;
    status = sk_bank_add_f32(bank, springs, values, targets, NULL, 342, 30, 1, 0.5f, handles);
    for (int frame = 0; frame < 3 && status == sk_status_ok; frame++) status = sk_bank_step(bank, 1.0 / 60);
    if (status == sk_status_ok) status = sk_bank_state_hash(bank, hash);
    sk_status destroyed = sk_bank_destroy(bank);
    return status != sk_status_ok ? status : destroyed;
}

static uint64_t expected_hash;

static void *worker(void *failures) {
    for (int round = 0; round < rounds; round++) {
        uint64_t hash = 0;
        sk_status status = one_bank(&hash);
        if (status != sk_status_ok || hash != expected_hash) {
            fprintf(stderr, "round %d: %s, hash %016" PRIx64 "\n", round, sk_status_name(status), hash);
            ++*(int *)failures;
        }
    }
    return NULL;
}

int main(void) {
    if (one_bank(&expected_hash) != sk_status_ok) return 1;
    pthread_t thread[threads];
    int failures[threads] = {0};
    for (int t = 0; t < threads; t++)
        if (pthread_create(&thread[t], NULL, worker, &failures[t]) != 0) return 1;
    int total = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(thread[t], NULL);
        total += failures[t];
    }
    if (total) {
        fprintf(stderr, "%d banks failed\n", total);
        return 1;
    }
    printf("threads: %d x %d banks made, stepped and destroyed at once: every call ok, every hash %016" PRIx64 "\n",
           threads, rounds, expected_hash);
    return 0;
}
