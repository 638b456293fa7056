import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel

/// The interaction part of the soak: Tossables in one ``MotionRuntime`` driven by synthetic,
/// timestamped gestures, stepped with the same frame durations as the kernel part.
///
/// Each frame, idle and flying Tossables are grabbed at random (a drag of 2 to 8 frames at a
/// steady 200–3000 pt/s), drags move on, and finished drags are released with a flick (`ended`)
/// or, one in ten, `cancelled`; destinations move now and then (in flight or not), and a Tossable
/// is sometimes removed from the runtime and replaced by a new one. Checked: every value the
/// runtime delivers is finite; every `.atRest` finds the position exactly on the destination;
/// every toss comes to rest (after the run, the runtime is stepped at 60 Hz until all is still);
/// the kernel holds exactly two springs per Tossable.
final class SoakInteractions {
    /// What the part did and found.
    struct Tally: Codable, Hashable {
        var tossables = 0
        var drags = 0
        /// Drags released with a flick, and cancelled (a toss with no velocity).
        var flicks = 0
        var cancels = 0
        /// Tosses that came to rest, and those grabbed again in flight.
        var landings = 0
        var interrupted = 0
        /// `.atRest` events seen, and those with the position not exactly on the destination.
        var rests = 0
        var restsOffDestination = 0
        var destinationChanges = 0
        var replacements = 0
        var valuesDelivered = 0
        var nonFiniteValues = 0
        /// Tosses still flying after the drain.
        var tossesNotLanded = 0
        /// Times the kernel's spring count was not two per Tossable, or a spring of the runtime was unknown to it.
        var lostSprings = 0
        var drainFrames = 0
        /// Gesture events the recognizers ignored (the script sends none that should be).
        var ignoredEvents = 0
        /// Recognizers the shared container lists at the end: one per live Tossable (each attaches
        /// its own, and detaches it when it is removed from the runtime).
        var containerRecognizers = 0
    }

    /// Where a Tossable is in its script.
    private enum Phase {
        case idle
        case dragging(framesLeft: Int, velocity: CGPoint)
        case flying
    }

    /// One Tossable and what the script knows about it.
    private final class Slot {
        let tossable: Tossable
        let destination: ReactiveProperty<CGPoint>
        var phase = Phase.idle
        var translation = CGPoint.zero
        var observations: [Subscription] = []

        init(tossable: Tossable, destination: ReactiveProperty<CGPoint>) {
            self.tossable = tossable
            self.destination = destination
        }
    }

    let runtime: MotionRuntime
    private(set) var tally = Tally()
    /// The first few problems, described.
    private(set) var examples: [String] = []
    private let container = MotionElement()
    private var slots: [Slot] = []
    private var random: SplitMix64
    private var time = 0.0

    /// `count` Tossables, each resting on its own destination.
    init(count: Int, seed: UInt64) throws {
        runtime = try MotionRuntime(capacity: 2 * count)
        random = SplitMix64(seed: seed)
        for i in 0..<count { slots.append(try makeSlot(at: Self.home(i))) }
        tally.tossables = count
    }

    /// A destination on a whole-point grid: exact in float32, so a Tossable at rest sits on it exactly.
    private static func home(_ i: Int) -> CGPoint {
        CGPoint(x: Double(i % 64) * 20, y: Double(i / 64) * 20)
    }

    private func makeSlot(at home: CGPoint) throws -> Slot {
        let view = MotionElement(position: home)
        let destination = ReactiveProperty(home)
        let tossable = Tossable(position: view.position, to: destination, containerView: container, springSource: springSource)
        let slot = Slot(tossable: tossable, destination: destination)
        slot.observations = [
            tossable.position.observe { [unowned self] point in
                self.tally.valuesDelivered += 1
                if !point.x.isFinite || !point.y.isFinite {
                    self.tally.nonFiniteValues += 1
                    self.note("a Tossable was sent \(point)")
                }
            },
            tossable.state.observe { [unowned self, unowned slot] state in
                guard state == .atRest else { return }
                self.tally.rests += 1
                if slot.tossable.position.value != slot.destination.value {
                    self.tally.restsOffDestination += 1
                    self.note("at rest at \(slot.tossable.position.value), destination \(slot.destination.value)")
                }
                if case .flying = slot.phase {
                    self.tally.landings += 1
                    slot.phase = .idle
                }
            },
        ]
        try runtime.add(tossable)
        return slot
    }

    /// One frame: the gesture events and destination changes of the frame, then the runtime's
    /// step of `dt` and its delivery.
    func advance(dt: Double) throws {
        for slot in slots.indices { script(slot, dt: dt) }
        try runtime.advance(by: dt)
        time += dt
    }

    private func script(_ index: Int, dt: Double) {
        let slot = slots[index]
        let recognizer = slot.tossable.panGestureRecognizer
        switch slot.phase {
        case .idle, .flying:
            if random.unit() < 1.0 / 60 {
                if case .flying = slot.phase { tally.interrupted += 1 }
                let angle = random.unit() * 2 * Double.pi, speed = random.logUniform(200, 3000)
                slot.phase = .dragging(framesLeft: random.integer(in: 2...8), velocity: CGPoint(x: speed * cos(angle), y: speed * sin(angle)))
                slot.translation = .zero
                recognizer.handle(.began(timestamp: time))
                tally.drags += 1
            } else if random.unit() < 1.0 / 5000 {
                replace(index)
                return
            }
        case .dragging(let framesLeft, let velocity):
            if framesLeft > 0 {
                slot.translation.x += velocity.x * dt
                slot.translation.y += velocity.y * dt
                recognizer.handle(.changed(translation: slot.translation, timestamp: time))
                slot.phase = .dragging(framesLeft: framesLeft - 1, velocity: velocity)
            } else {
                release(slot, cancel: random.unit() < 0.1)
            }
        }
        if random.unit() < 1.0 / 300 {
            let i = random.integer(in: 0...4095)
            slot.destination.value = Self.home(i)
            tally.destinationChanges += 1
        }
    }

    private func release(_ slot: Slot, cancel: Bool) {
        let recognizer = slot.tossable.panGestureRecognizer
        // Flying before the event: a release on the destination with no velocity is at rest at once,
        // inside `handle`.
        slot.phase = .flying
        if cancel {
            recognizer.handle(.cancelled(timestamp: time))
            tally.cancels += 1
        } else {
            recognizer.handle(.ended(translation: slot.translation, timestamp: time))
            tally.flicks += 1
        }
    }

    /// Removes a Tossable from the runtime (its springs leave the kernel, perhaps in mid-flight)
    /// and adds a new one in its place.
    private func replace(_ index: Int) {
        let old = slots[index]
        runtime.remove(old.tossable)
        tally.ignoredEvents += old.tossable.panGestureRecognizer.ignoredEventCount
        for observation in old.observations { observation.cancel() }
        do {
            slots[index] = try makeSlot(at: old.destination.value)
            tally.replacements += 1
        } catch {
            note("could not add a Tossable: \(error)")
            slots[index] = old
        }
    }

    /// Counts a kernel that does not hold exactly the runtime's springs.
    func checkSprings() {
        let bank = runtime.kernel
        if bank.count != 2 * slots.count {
            tally.lostSprings += 1
            note("the kernel holds \(bank.count) springs for \(slots.count) Tossables")
        }
        for spring in runtime.springHandles where !bank.contains(spring) {
            tally.lostSprings += 1
            note("the kernel lost \(spring)")
        }
    }

    /// Releases every drag, then steps at 60 Hz until everything is at rest (at most a minute of
    /// frames); counts the tosses that never landed.
    func drain() throws {
        for slot in slots {
            if case .dragging = slot.phase { release(slot, cancel: false) }
        }
        while !runtime.isAllAtRest && tally.drainFrames < 3600 {
            try runtime.advance(by: 1.0 / 60)
            time += 1.0 / 60
            tally.drainFrames += 1
        }
        for slot in slots {
            if case .flying = slot.phase {
                tally.tossesNotLanded += 1
                note("a toss toward \(slot.destination.value) never came to rest: at \(slot.tossable.position.value), \(slot.tossable.state.value)")
            }
            tally.ignoredEvents += slot.tossable.panGestureRecognizer.ignoredEventCount
        }
        tally.containerRecognizers = container.gestureRecognizers.count
        checkSprings()
    }

    private func note(_ message: String) {
        if examples.count < 10 { examples.append("interactions: \(message)") }
    }
}
