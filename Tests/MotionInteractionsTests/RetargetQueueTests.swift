import Foundation
import MotionInteractions
@_spi(KernelInternals) import SpringKernel
import Testing

/// The runtime holds the retargets of moving streams and makes them in bulk before its next call
/// to the kernel (issue 33): nothing may tell that from one kernel call per retarget, made when the
/// destination was written.
@Suite("Retargets made in bulk")
struct RetargetQueueTests {
    /// `count` AttachWithSpring elements in a runtime, and a bare kernel with the same springs in
    /// the same order, retargeted one call per component as each destination is written.
    final class Pair {
        let runtime = MotionRuntime()
        let reference: SpringBank<Float32Lanes>
        var elements: [MotionElement] = []
        var targets: [MotionElement] = []
        var attaches: [AttachWithSpring] = []
        var referenceHandles: [SpringHandle] = []
        var restFrames: [[Int]]
        var referenceRestFrames: [[Int]]
        var observations: [Subscription] = []

        init(count: Int) throws {
            reference = SpringBank(threading: .single)
            restFrames = Array(repeating: [], count: count)
            referenceRestFrames = Array(repeating: [], count: count)
            for i in 0..<count {
                // Every fifth element starts at rest on its target; the others away from it.
                let home = CGPoint(x: Double(i % 20) * 30, y: Double(i / 20) * 30)
                let start = i % 5 == 0 ? home : CGPoint(x: home.x + Double(i % 7) * 9 - 27, y: home.y - Double(i % 3) * 11)
                let element = MotionElement(position: start), target = MotionElement(position: home)
                let attach = AttachWithSpring(position: element.position, to: target.position, springSource: springSource)
                try runtime.add(attach)
                let index = i
                observations.append(attach.state.observe { [unowned self] state in
                    if state == .atRest { self.restFrames[index].append(self.runtime.kernel.frame) }
                })
                elements.append(element)
                targets.append(target)
                attaches.append(attach)
                for (value, goal) in [(start.x, home.x), (start.y, home.y)] {
                    referenceHandles.append(try reference.add(
                        value: Float(value), target: Float(goal), velocity: 0, configuration: .default, tolerance: 1, userValue: 0))
                }
            }
        }

        /// Writes element `i`'s destination, and retargets the reference's springs one call each,
        /// as the runtime's retarget does: a stream at rest starts from where it is (its
        /// `initialValue`), so a component the kernel keeps at rest (a new target within its
        /// tolerance snaps it there) is set back where it was, and moves.
        func write(_ i: Int, _ point: CGPoint) throws {
            targets[i].position.value = point
            let springs = [referenceHandles[2 * i], referenceHandles[2 * i + 1]]
            let starts = try reference.isAtRest(springs[0]) && reference.isAtRest(springs[1])
                ? [try reference.value(of: springs[0]), try reference.value(of: springs[1])] : nil
            for (component, goal) in [Float(point.x), Float(point.y)].enumerated() {
                try reference.retarget(springs[component], to: goal)
                if let starts, try reference.value(of: springs[component]).bitPattern != starts[component].bitPattern {
                    try reference.setState(of: springs[component], value: starts[component], velocity: 0)
                }
            }
        }

        /// One frame of both; the elements must sit where the reference's springs are.
        func advance() throws {
            try runtime.advance(by: frame60)
            try reference.step(dt: frame60)
            var rested = Set<Int>()
            for handle in reference.restedInLastStep {
                let spring = try #require(referenceHandles.firstIndex(of: handle))
                if try reference.isAtRest(referenceHandles[spring ^ 1]) { rested.insert(spring / 2) }
            }
            for element in rested.sorted() { referenceRestFrames[element].append(reference.frame) }
            for (i, element) in elements.enumerated() {
                let expected = CGPoint(
                    x: Double(try reference.value(of: referenceHandles[2 * i])), y: Double(try reference.value(of: referenceHandles[2 * i + 1])))
                #expect(element.position.value == expected, "element \(i) on frame \(reference.frame)")
            }
        }
    }

    @Test("targets moved every frame (some twice a frame, some not at all) give the values and rests of one kernel call per retarget")
    func sameAsOneCallEach() throws {
        let pair = try Pair(count: 300)
        for frame in 1...150 {
            for i in 0..<300 where frame < 120 && (i % 11 != 3 || frame % 9 == 0) {
                let g = Double(i % 16), phase = Double(frame) / 60 + 5 * g / 16
                let home = CGPoint(x: Double(i % 20) * 30, y: Double(i / 20) * 30)
                let point = CGPoint(x: home.x + (10 + 10 * g) * sin(2 * .pi * phase), y: home.y + (10 + 10 * g) * cos(2 * .pi * phase))
                // Twice on every fourth frame: a spring queued twice is retargeted twice, in order
                // (those flushes go by handle; the others in storage order).
                if frame % 4 == 0, (i + frame) % 13 == 0 { try pair.write(i, CGPoint(x: point.y, y: point.x)) }
                try pair.write(i, point)
            }
            try pair.advance()
        }
        #expect(pair.restFrames == pair.referenceRestFrames)
        #expect(pair.restFrames.allSatisfy { !$0.isEmpty })
        #expect(pair.runtime.isAllAtRest)
    }

    @Test("a destination written to a moving stream is the kernel's target at once, through runtime.kernel")
    func kernelReadsTheNewTarget() throws {
        let pair = try Pair(count: 100)
        try pair.runtime.advanceFrames(2)
        let handles = pair.runtime.springHandles
        for i in 0..<100 { pair.targets[i].position.value = CGPoint(x: 500 + Double(i), y: -300) }
        for i in 0..<100 {
            #expect(try pair.runtime.kernel.target(of: handles[2 * i]) == Float(500 + i))
            #expect(try pair.runtime.kernel.target(of: handles[2 * i + 1]) == -300)
        }
    }

    @Test("a stream removed, paused or reconfigured after its retarget was queued: the retarget comes first")
    func queuedBeforeOtherCalls() throws {
        let pair = try Pair(count: 100)
        try pair.runtime.advanceFrames(2)
        let handles = pair.runtime.springHandles
        for i in 0..<100 { pair.targets[i].position.value = CGPoint(x: 700, y: 700) }
        // Removing one stream flushes the queue first: the others keep their new targets.
        pair.runtime.remove(pair.attaches[0])
        let faster = try SpringConfiguration(tension: 600, friction: 20)
        pair.attaches[1].springConfiguration.value = faster
        for i in 1..<100 {
            #expect(try pair.runtime.kernel.target(of: handles[2 * i]) == 700)
        }
        #expect(try pair.runtime.kernel.configuration(of: handles[2]) == faster)
        try pair.runtime.advanceUntilAllAtRest()
        for i in 1..<100 { #expect(pair.elements[i].position.value == CGPoint(x: 700, y: 700)) }
    }
}
