// The C++ client: the scenarios of scenarios.c through spring_kernel.h (extern "C"), with the
// engine's arrays in std::vector and a bank owned by a small RAII type. Prints the same lines.
#include "spring_kernel.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

void check(sk_status status, const char *what, int line) {
    if (status != sk_status_ok) {
        std::fprintf(stderr, "scenarios.cpp:%d: %s: %s\n", line, what, sk_status_name(status));
        std::exit(1);
    }
}
#define CHECK(call) check((call), #call, __LINE__)

// One bank, destroyed with its owner.
class Bank {
  public:
    Bank(int32_t format, size_t capacity) { CHECK(sk_bank_create(format, 1, capacity, &id_)); }
    ~Bank() { (void)sk_bank_destroy(id_); }
    Bank(const Bank &) = delete;
    Bank &operator=(const Bank &) = delete;
    uint64_t id() const { return id_; }

    std::vector<uint64_t> rested() const {
        size_t count = 0;
        std::vector<uint64_t> list;
        if (sk_bank_rested(id_, nullptr, 0, &count) == sk_status_short_buffer) {
            list.resize(count);
            CHECK(sk_bank_rested(id_, list.data(), list.size(), &count));
        }
        return list;
    }
    size_t awake() const {
        size_t awake = 0;
        CHECK(sk_bank_counts(id_, nullptr, &awake, nullptr));
        return awake;
    }
    uint64_t hash() const {
        uint64_t hash = 0;
        CHECK(sk_bank_state_hash(id_, &hash));
        return hash;
    }

  private:
    uint64_t id_ = 0;
};

bool contains(const std::vector<uint64_t> &list, uint64_t spring) {
    for (uint64_t s : list)
        if (s == spring) return true;
    return false;
}

void dragToOpenFloat() {
    const double dt = 1.0 / 60;
    Bank bank(sk_format_float32, 0);
    std::vector<float> values{0, 10, 20, 30}, targets(4, 0.0f);
    std::vector<uint64_t> springs(4);
    CHECK(sk_bank_add_f32(bank.id(), 4, values.data(), targets.data(), nullptr, 342, 30, 1, 0.5f, springs.data()));
    uint64_t x = springs[0], mask = 0;
    CHECK(sk_mask_create(bank.id(), &x, 1, &mask));
    CHECK(sk_mask_pause(bank.id(), mask));
    bool willOpen = false;
    for (int frame = 1; frame <= 30; frame++) {
        float finger = 5.0f * float(frame), still = 0, open = 200, closed = 0;
        CHECK(sk_bank_set_state_f32(bank.id(), &x, &finger, &still, 1));
        if (finger > 100 && !willOpen) { CHECK(sk_bank_retarget_f32(bank.id(), &x, &open, 1)); willOpen = true; }
        if (finger <= 100 && willOpen) { CHECK(sk_bank_retarget_f32(bank.id(), &x, &closed, 1)); willOpen = false; }
        CHECK(sk_bank_step(bank.id(), dt));
    }
    float releaseValue = 150, releaseVelocity = 900;
    CHECK(sk_mask_resume_f32(bank.id(), mask, &x, &releaseValue, &releaseVelocity, 1));
    double restTime = 0;
    CHECK(sk_bank_rest_time(bank.id(), &x, 1, &restTime));
    int restFrame = -1;
    for (int frame = 1; frame <= 600 && bank.awake() > 0; frame++) {
        CHECK(sk_bank_step(bank.id(), dt));
        if (contains(bank.rested(), x)) restFrame = frame;
    }
    float value = 0;
    CHECK(sk_bank_read_f32(bank.id(), sk_quantity_value, &x, 1, &value));
    std::printf("drag-to-open float32: rest time %.6f s, rest frame %d, value %.6f, hash %016" PRIx64 "\n", restTime, restFrame,
                double(value), bank.hash());
}

void dragToOpenQ16() {
    const double dt = 1.0 / 60;
    const int32_t one = 65536;
    Bank bank(sk_format_q16, 0);
    std::vector<int32_t> values{0, 10 * one, 20 * one, 30 * one}, targets(4, 0);
    std::vector<uint64_t> springs(4);
    CHECK(sk_bank_add_q16(bank.id(), 4, values.data(), targets.data(), nullptr, 342, 30, 1, one / 2, springs.data()));
    uint64_t x = springs[0], mask = 0;
    CHECK(sk_mask_create(bank.id(), &x, 1, &mask));
    CHECK(sk_mask_pause(bank.id(), mask));
    bool willOpen = false;
    for (int frame = 1; frame <= 30; frame++) {
        int32_t finger = 5 * frame * one, still = 0, open = 200 * one, closed = 0;
        CHECK(sk_bank_set_state_q16(bank.id(), &x, &finger, &still, 1));
        if (finger > 100 * one && !willOpen) { CHECK(sk_bank_retarget_q16(bank.id(), &x, &open, 1)); willOpen = true; }
        if (finger <= 100 * one && willOpen) { CHECK(sk_bank_retarget_q16(bank.id(), &x, &closed, 1)); willOpen = false; }
        CHECK(sk_bank_step(bank.id(), dt));
    }
    int32_t releaseValue = 150 * one, releaseVelocity = 900 * one;
    CHECK(sk_mask_resume_q16(bank.id(), mask, &x, &releaseValue, &releaseVelocity, 1));
    double restTime = 0;
    CHECK(sk_bank_rest_time(bank.id(), &x, 1, &restTime));
    int restFrame = -1;
    for (int frame = 1; frame <= 600 && bank.awake() > 0; frame++) {
        CHECK(sk_bank_step(bank.id(), dt));
        if (contains(bank.rested(), x)) restFrame = frame;
    }
    int32_t value = 0;
    CHECK(sk_bank_read_q16(bank.id(), sk_quantity_value, &x, 1, &value));
    std::printf("drag-to-open q16: rest time %.6f s, rest frame %d, value %" PRId32 ", hash %016" PRIx64 "\n", restTime, restFrame,
                value, bank.hash());
}

void frameLoop() {
    const int n = 100000, half = n / 2, frames = 120;
    std::vector<float> values(n), targets(n), velocities(n);
    for (int i = 0; i < n; i++) {
        values[i] = float(i % 1000) * 0.5f;
        targets[i] = float((i * 7) % 1000) * 0.5f;
        velocities[i] = float(i % 13 - 6);
    }
    Bank bank(sk_format_float32, n);
    std::vector<uint64_t> springs(n);
    CHECK(sk_bank_add_f32(bank.id(), half, values.data(), targets.data(), velocities.data(), 342, 30, 1, 0.5f, springs.data()));
    CHECK(sk_bank_add_f32(bank.id(), half, values.data() + half, targets.data() + half, velocities.data() + half, 1323, 91, 1, 0.5f,
                          springs.data() + half));
    std::vector<uint64_t> moved;
    std::vector<float> newTargets;
    size_t totalRested = 0;
    for (int frame = 0; frame < frames; frame++) {
        if (frame % 10 == 0) {
            moved.clear();
            newTargets.clear();
            for (int i = 0; i < n; i += 97) {
                moved.push_back(springs[i]);
                newTargets.push_back(float((i + frame) % 500));
            }
            CHECK(sk_bank_retarget_f32(bank.id(), moved.data(), newTargets.data(), moved.size()));
        }
        CHECK(sk_bank_step(bank.id(), frame % 2 == 0 ? 1.0 / 60 : 1.0 / 90));
        totalRested += bank.rested().size();
        CHECK(sk_bank_read_f32(bank.id(), sk_quantity_value, springs.data(), n, values.data()));
    }
    uint64_t bitsSum = 0;
    for (float v : values) {
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        bitsSum += bits;
    }
    std::printf("frame-loop float32: %d springs, %d frames, rested %zu, awake %zu, value bits %" PRIu64 ", hash %016" PRIx64 "\n", n,
                frames, totalRested, bank.awake(), bitsSum, bank.hash());
}

// An engine's frame in storage order, as storage_order in scenarios.c.
void storageOrder() {
    const int n = 10000, half = n / 2, frames = 60;
    std::vector<float> values(n), targets(n), velocities(n), byHandle(n);
    std::vector<uint64_t> springs(n), ids(n);
    for (int i = 0; i < n; i++) {
        values[i] = float(i % 1000) * 0.5f;
        targets[i] = float((i * 7) % 1000) * 0.5f;
        velocities[i] = float(i % 13 - 6);
        ids[i] = uint64_t(i);
    }
    Bank bank(sk_format_float32, n);
    CHECK(sk_bank_add_f32(bank.id(), half, values.data(), targets.data(), velocities.data(), 342, 30, 1, 0.5f, springs.data()));
    CHECK(sk_bank_add_f32(bank.id(), half, values.data() + half, targets.data() + half, velocities.data() + half, 1323, 91, 1, 0.5f,
                          springs.data() + half));
    CHECK(sk_bank_set_user_values(bank.id(), springs.data(), ids.data(), n));
    uint64_t version = 0, sum = 0;
    size_t count = 0, reads = 0, mismatches = 0;
    for (int frame = 0; frame < frames; frame++) {
        CHECK(sk_bank_step(bank.id(), 1.0 / 60));
        CHECK(sk_bank_layout(bank.id(), sk_region_moving, &count, &version));
        CHECK(sk_layout_read_user_values(bank.id(), sk_region_moving, version, ids.data(), count));
        CHECK(sk_layout_read_f32(bank.id(), sk_quantity_value, sk_region_moving, version, values.data(), count));
        CHECK(sk_bank_read_f32(bank.id(), sk_quantity_value, springs.data(), n, byHandle.data()));
        for (size_t k = 0; k < count; k++) {
            uint32_t bits, expected;
            std::memcpy(&bits, &values[k], sizeof bits);
            std::memcpy(&expected, &byHandle[ids[k]], sizeof expected);
            sum += (ids[k] + 1) * bits;
            if (bits != expected) mismatches++;
        }
        reads += count;
        if (frame % 10 == 0) {
            CHECK(sk_bank_layout(bank.id(), sk_region_all, &count, &version));
            CHECK(sk_layout_read_user_values(bank.id(), sk_region_all, version, ids.data(), count));
            CHECK(sk_layout_read_f32(bank.id(), sk_quantity_target, sk_region_all, version, targets.data(), count));
            for (size_t k = 0; k < count; k++)
                if (ids[k] % 5 == 0) targets[k] = float((ids[k] + uint64_t(frame)) % 300);
            CHECK(sk_layout_retarget_f32(bank.id(), sk_region_all, version, targets.data(), count));
        }
    }
    std::printf("storage-order float32: %d springs, %d frames, moving values read %zu, id-value sum %" PRIu64
                ", mismatches %zu, awake %zu, hash %016" PRIx64 "\n",
                n, frames, reads, sum, mismatches, bank.awake(), bank.hash());
}

} // namespace

int main() {
    dragToOpenFloat();
    dragToOpenQ16();
    frameLoop();
    storageOrder();
    return 0;
}
