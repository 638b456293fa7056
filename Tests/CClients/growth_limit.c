/* Growth the system cannot give is refused, never fatal (issue 34: "growth failure throws on every
 * platform"). The process limits its own address space to what it uses now plus BUDGET megabytes
 * (RLIMIT_AS, Linux), makes a float32 bank reserved for 4M springs (its records), then adds springs
 * 64K at a time, stepping after each add, until all are in or a call is refused. A refused add must
 * say sk_status_out_of_memory and leave the bank as it was: the same spring count, and a step
 * that still works. The records, a batch's lanes and marks, and the rest schedule all grow here;
 * before each could refuse, a budget that ran out in one of them stopped the process (SIGABRT,
 * SIGILL or SIGSEGV), which CI reads as a failure.
 *
 * usage: growth_limit BUDGET_MB    prints one line; exit 0 when the promise holds, 1 when not. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "spring_kernel.h"

/* The process's address space now, in bytes (the first field of /proc/self/statm, in pages). */
static unsigned long long address_space(void) {
    unsigned long long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm || fscanf(statm, "%llu", &pages) != 1) {
        fprintf(stderr, "growth_limit: cannot read /proc/self/statm\n");
        exit(1);
    }
    fclose(statm);
    return pages * 4096ull;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: growth_limit BUDGET_MB\n");
        return 1;
    }
    const size_t capacity = (size_t)4 << 20, chunk = (size_t)1 << 16;
    uint64_t *springs = malloc(chunk * sizeof *springs);
    float *values = calloc(chunk, sizeof *values), *targets = malloc(chunk * sizeof *targets);
    if (!springs || !values || !targets) return 1;
    for (size_t i = 0; i < chunk; i++) targets[i] = 1;

    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = (rlim_t)(address_space() + strtoull(argv[1], NULL, 10) * 1048576ull);
    if (setrlimit(RLIMIT_AS, &limit) != 0) {
        fprintf(stderr, "growth_limit: setrlimit failed\n");
        return 1;
    }

    uint64_t bank = 0;
    sk_status status = sk_bank_create(sk_format_float32, 1, capacity, &bank);
    if (status == sk_status_out_of_memory) {
        printf("budget %s MB: the reservation refused (out_of_memory)\n", argv[1]);
        return 0;
    }
    if (status != sk_status_ok) {
        printf("budget %s MB: sk_bank_create: %s\n", argv[1], sk_status_name(status));
        return 1;
    }
    size_t added = 0;
    while (added < capacity) {
        status = sk_bank_add_f32(bank, chunk, values, targets, NULL, 342, 30, 1, 0.5f, springs);
        if (status != sk_status_ok) break;
        added += chunk;
        status = sk_bank_step(bank, 1.0 / 60);
        if (status != sk_status_ok) {
            printf("budget %s MB: a step after %zu springs: %s\n", argv[1], added, sk_status_name(status));
            return 1;
        }
    }
    if (added == capacity) {
        printf("budget %s MB: every spring added\n", argv[1]);
        return 0;
    }
    size_t count = 0;
    sk_status counted = sk_bank_counts(bank, &count, NULL, NULL);
    sk_status stepped = sk_bank_step(bank, 1.0 / 60);
    int holds = status == sk_status_out_of_memory && counted == sk_status_ok && count == added && stepped == sk_status_ok;
    printf("budget %s MB: an add refused after %zu springs (%s); the bank %s\n", argv[1], added, sk_status_name(status),
           holds ? "as it was, and it steps" : "changed or does not step");
    (void)sk_bank_destroy(bank);
    return holds ? 0 : 1;
}
