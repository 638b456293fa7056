@_spi(KernelInternals) @testable import SpringKernel
import Testing

/// The rest schedule pops the least (due, spring) entry due, whatever order the entries came in
/// (one at a time, or a group joined at once): against a model that sorts. (A 4-ary heap, tried
/// against 10,000 settling Tossables, passed this and was no faster.)
@Suite("The rest schedule pops in (due, spring) order")
struct RestScheduleTests {
    @Test("random inserts, groups and pops against a sorted model, fixed seeds")
    func popsInOrder() {
        for seed in [1 as UInt64, 37, 4096, 0xC0FFEE] {
            var generator = SplitMix64(seed: seed)
            var schedule = RestSchedule()
            defer { schedule.deallocate() }
            var model: [(due: Double, spring: UInt32)] = []
            for round in 0..<400 {
                // A few entries, or a group large enough to rebuild the heap; dues from a small set,
                // so ties on due are common and broken by spring.
                let inserts = round % 50 == 0 ? 300 : Int(generator.next() % 6)
                for _ in 0..<inserts {
                    let due = Double(generator.next() % 64) / 4
                    let spring = UInt32(generator.next() % 10_000)
                    if schedule.isFull { #expect(schedule.growIfAvailable()) }
                    schedule.insert(due: due, spring: spring)
                    model.append((due, spring))
                }
                let reading = Double(generator.next() % 64) / 4
                model.sort { $0.due != $1.due ? $0.due < $1.due : $0.spring < $1.spring }
                while let entry = schedule.popDue(by: reading) {
                    let expected = model.removeFirst()
                    #expect(entry.due == expected.due && entry.spring == expected.spring, "seed \(seed), round \(round)")
                    #expect(entry.due <= reading)
                }
                #expect(model.first.map { $0.due > reading } ?? true, "seed \(seed), round \(round): an entry due by \(reading) was left")
                #expect(schedule.count == model.count)
                #expect(schedule.nextDue == model.first?.due)
            }
        }
    }
}
