import Foundation
import MotionInteractions
import Testing

@Suite("ReactiveProperty and subscriptions")
struct ReactivePropertyTests {
    @Test("reads, writes and notifies observers in subscription order")
    func readWriteObserve() {
        let property = ReactiveProperty(1)
        var seen: [String] = []
        let a = property.observe { seen.append("a\($0)") }
        let b = property.observe { seen.append("b\($0)") }
        property.value = 2
        #expect(property.value == 2)
        #expect(seen == ["a2", "b2"])
        a.cancel()
        property.value = 3
        #expect(seen == ["a2", "b2", "b3"])
        b.cancel()
        b.cancel()
        #expect(b.isCancelled)
    }

    @Test("cancelling from inside a callback neither skips nor repeats other subscribers")
    func cancelInsideCallback() {
        let property = ReactiveProperty(0)
        var calls: [String] = []
        var subscriptions: [String: Subscription] = [:]
        subscriptions["a"] = property.observe { calls.append("a\($0)") }
        subscriptions["b"] = property.observe { value in
            calls.append("b\(value)")
            // Cancel itself and the next subscriber, which has not been called yet.
            subscriptions["b"]?.cancel()
            subscriptions["c"]?.cancel()
        }
        subscriptions["c"] = property.observe { calls.append("c\($0)") }
        subscriptions["d"] = property.observe { value in
            calls.append("d\(value)")
            subscriptions["d"]?.cancel()
        }
        subscriptions["e"] = property.observe { calls.append("e\($0)") }

        property.value = 1
        #expect(calls == ["a1", "b1", "d1", "e1"])
        property.value = 2
        #expect(calls == ["a1", "b1", "d1", "e1", "a2", "e2"])
    }

    @Test("a subscriber added during a delivery starts with the next one")
    func subscribeInsideCallback() {
        let property = ReactiveProperty(0)
        var calls: [String] = []
        var late: Subscription?
        let first = property.observe { value in
            calls.append("first\(value)")
            if late == nil { late = property.observe { calls.append("late\($0)") } }
        }
        property.value = 1
        property.value = 2
        #expect(calls == ["first1", "first2", "late2"])
        first.cancel()
        late?.cancel()
    }

    @Test("a write from inside a callback reaches every subscriber once per write")
    func nestedWrite() {
        let property = ReactiveProperty(0)
        var counts = [0, 0, 0]
        let subscriptions = [
            property.observe { _ in counts[0] += 1 },
            property.observe { value in
                counts[1] += 1
                if value == 1 { property.value = 2 }
            },
            property.observe { _ in counts[2] += 1 },
        ]
        property.value = 1
        #expect(counts == [2, 2, 2])
        #expect(property.value == 2)
        subscriptions.forEach { $0.cancel() }
    }

    @Test("each subscription cancels its own subscriber, in any order, after others were compacted away")
    func cancelInAnyOrder() {
        let property = ReactiveProperty(0)
        var seen: [Int] = []
        let subscriptions = (0..<8).map { i in property.observe { _ in seen.append(i) } }
        var live = Set(0..<8)
        for i in [3, 0, 7, 1, 6, 2, 5, 4] {
            subscriptions[i].cancel()
            live.remove(i)
            seen = []
            property.value += 1
            #expect(seen == live.sorted())
        }
        // A subscription outliving its property cancels nothing, harmlessly.
        var doomed: ReactiveProperty<Int>? = ReactiveProperty(0)
        let orphan = doomed!.observe { _ in }
        doomed = nil
        orphan.cancel()
        #expect(orphan.isCancelled)
    }

    @Test("a property stream sends the current value, then each write")
    func propertyStream() {
        let runtime = MotionRuntime()
        let property = ReactiveProperty(CGPoint(x: 1, y: 2))
        var values: [CGPoint] = []
        let subscription = property.stream.subscribe(in: runtime, next: { values.append($0) })
        property.value = CGPoint(x: 3, y: 4)
        subscription.cancel()
        property.value = CGPoint(x: 5, y: 6)
        #expect(values == [CGPoint(x: 1, y: 2), CGPoint(x: 3, y: 4)])
    }

    @Test("the state channel distinguishes active from at rest")
    func stateChannel() {
        #expect(MotionState.active != MotionState.atRest)
    }

    /// An element makes its opacity, scale, rotation and size properties on first use: each one
    /// read holds the value the element was made with (the default when it was given none), once
    /// and for all (the same property on every read), and is observed like any other.
    @Test("an element's properties made on first use hold the values it was made with")
    func elementPropertiesMadeOnFirstUse() {
        let given = MotionElement(opacity: 0.5, scale: 2, rotation: 1, size: CGSize(width: 3, height: 4))
        #expect(given.opacity.value == 0.5)
        #expect(given.scale.value == 2)
        #expect(given.rotation.value == 1)
        #expect(given.size.value == CGSize(width: 3, height: 4))
        let defaults = MotionElement()
        #expect(defaults.opacity.value == 1)
        #expect(defaults.scale.value == 1)
        #expect(defaults.rotation.value == 0)
        #expect(defaults.size.value == .zero)
        #expect(defaults.opacity === defaults.opacity)
        #expect(MotionElement(opacity: .nan).opacity.value.isNaN)
        var seen: [Float] = []
        let observation = defaults.opacity.observe { seen.append($0) }
        defaults.opacity.value = 0.25
        #expect(seen == [0.25])
        #expect(defaults.opacity.value == 0.25)
        observation.cancel()
    }
}
