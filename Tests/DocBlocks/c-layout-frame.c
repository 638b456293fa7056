/* *The C interface*'s frame over the storage layout, inside an engine's frame loop: 64 entities,
   each with a spring whose user value is the entity's index. */
#include <stdio.h>
#include "spring_kernel.h"

enum { entity_count = 64 };
static float entity_x[entity_count], entity_goal[entity_count];

static void entity_set_x(uint64_t id, float x) { entity_x[id] = x; }
static float entity_goal_x(uint64_t id) { return entity_goal[id]; }

int main(void) {
    uint64_t bank, springs[entity_count], rested[entity_count], ids[entity_count], user_values[entity_count];
    size_t capacity = entity_count;
    float xs[entity_count], starts[entity_count], goals[entity_count];
    double dt = 1.0 / 60;
    for (size_t i = 0; i < entity_count; i++) {
        starts[i] = 0;
        goals[i] = entity_goal[i] = (float)(10 * i);
        user_values[i] = i;
    }
    if (sk_bank_create(sk_format_float32, 1, 0, &bank) != sk_status_ok
        || sk_bank_add_f32(bank, entity_count, starts, goals, NULL, 342, 30, 1, 0.5f, springs) != sk_status_ok
        || sk_bank_set_user_values(bank, springs, user_values, entity_count) != sk_status_ok) {
        return 1;
    }
    for (int frame = 0; frame < 120; frame++) {
        entity_goal[7] = frame < 10 ? 70 : 500;   /* one moving entity's goal moves at frame 10 */
/* DOC BLOCK */
        if (status != sk_status_ok) {
            printf("frame %d: status %d\n", frame, (int)status);
            return 1;
        }
    }
    for (size_t i = 0; i < entity_count; i++) {
        if (entity_x[i] != entity_goal[i]) {
            printf("entity %zu: x %g, goal %g\n", i, (double)entity_x[i], (double)entity_goal[i]);
            return 1;
        }
    }
    printf("64 entities on their goals after 120 frames\n");
    return sk_bank_destroy(bank) == sk_status_ok ? 0 : 1;
}
