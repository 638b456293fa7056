/* The C frame through two builds of the library, in one C process: frame_parity A.so B.so [springs].
 *
 * Loads both libraries (dlopen, RTLD_LOCAL: each keeps its own symbols), makes the same float32
 * bank of undamped springs (friction 0: every spring moves on every frame) in each, and steps
 * them in interleaved repeats (A's frames, then B's, 41 times), timed by this thread's CPU time.
 * Prints one line per repeat: "ns_a ns_b" (nanoseconds a frame). .ci/c-clients compares CMake's
 * library (Embedded Swift, no runtime) with SwiftPM's (the regular build, whose C frame
 * spring-bench c-boundary judges against the Swift frame) on the same C caller.
 */
#define _POSIX_C_SOURCE 200809L
#include "spring_kernel.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef sk_status (*create_fn)(int32_t, uint64_t, uint64_t, uint64_t *);
typedef sk_status (*add_fn)(uint64_t, uint64_t, const float *, const float *, const float *, double, double, double, float, uint64_t *);
typedef sk_status (*step_fn)(uint64_t, double);

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: frame_parity A.so B.so [springs]\n");
        return 2;
    }
    const uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 10) : (uint64_t)1 << 20;
    enum { repeats = 41 };
    float *values = malloc(n * sizeof *values), *targets = calloc(n, sizeof *targets);
    uint64_t *springs = malloc(n * sizeof *springs);
    if (!values || !targets || !springs) return 1;
    for (uint64_t i = 0; i < n; i++) values[i] = (float)(i % 1000) + 1;
    step_fn step[2];
    uint64_t bank[2];
    for (int b = 0; b < 2; b++) {
        void *library = dlopen(argv[1 + b], RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }
        create_fn create = (create_fn)(size_t)dlsym(library, "sk_bank_create");
        add_fn add = (add_fn)(size_t)dlsym(library, "sk_bank_add_f32");
        step[b] = (step_fn)(size_t)dlsym(library, "sk_bank_step");
        if (!create || !add || !step[b]) return 1;
        /* One thread: the frame on this thread, as c-boundary times it. The first step predicts. */
        if (create(sk_format_float32, 1, n, &bank[b]) != sk_status_ok
            || add(bank[b], n, values, targets, NULL, 342, 0, 1, 0.5f, springs) != sk_status_ok
            || step[b](bank[b], 1.0 / 60) != sk_status_ok)
            return 1;
    }
    /* About 10 ms of frames a repeat. */
    const int frames = n >= 1000000 ? 50 : (int)(50 * (1000000 / (n + 1)) + 1);
    for (int r = 0; r < repeats; r++) {
        double ns[2];
        for (int b = 0; b < 2; b++) {
            double start = seconds();
            for (int f = 0; f < frames; f++)
                if (step[b](bank[b], 1.0 / 60) != sk_status_ok) return 1;
            ns[b] = (seconds() - start) / frames * 1e9;
        }
        printf("%.0f %.0f\n", ns[0], ns[1]);
    }
    return 0;
}
