import BenchStatistics
import CAllocationCounter
import Foundation
import MotionInteractions
import SpringKernel

/// What `interactions` measured of AttachWithSpring elements that follow targets moving every
/// frame, against the same elements whose targets stand still (issue 33's layer figure). Times
/// are ns per element-frame above the kernel step: each repeat's (target writes + delivery) over
/// its element-frames, the target writes being the layer's handling of each new destination
/// (the property's observers, the retarget into the kernel); the figures are the medians of the
/// repeats', with intervals of a bootstrap over them (the repeats of the two are interleaved, so
/// the ratio is the median of paired ratios).
struct AttachFollowReport: Codable {
    /// AttachWithSpring elements in each runtime (each with its own target element).
    var elements: Int
    /// Timed frames of each case, over all the repeats, and per repeat.
    var movingFrames: Int
    var stillFrames: Int
    var movingFramesPerRepeat: Int
    var stillFramesPerRepeat: Int
    var warmUpFrames: Int
    /// ns per element-frame above the kernel step, targets moving every frame (their writes and
    /// the delivery) and standing still (the delivery: nothing is written).
    var movingNsPerElementFrame: Double
    var movingInterval: Interval?
    var stillNsPerElementFrame: Double
    var stillInterval: Interval?
    /// Moving over still, the median of the repeats' paired ratios (the bound: 2.0x).
    var movingOverStill: Double
    var movingOverStillInterval: Interval?
    /// The moving case's parts, ns per element-frame: the target writes (all the layer does for
    /// a new destination) and the delivery.
    var movingTargetWritesNsPerElementFrame: Double
    var movingDeliveryNsPerElementFrame: Double
    /// The kernel step, ns per element-frame (two springs an element), of each case: not in the
    /// figures, shown so the step's likeness can be seen.
    var movingStepNsPerElementFrame: Double
    var stillStepNsPerElementFrame: Double
    /// Streams delivered to per frame (all of them when every spring moves).
    var movingDeliveredPerFrame: Double
    var stillDeliveredPerFrame: Double
    /// Heap allocations counted during the moving case's timed frames (writes, step and
    /// delivery), per frame: none in steady state.
    var movingAllocationsPerFrame: Double
    var repeats: Int
    var stoppedBy: String
    var clock: TimingClock
    /// Each repeat's figures: `moving` and `still` ns per element-frame above the step, `ratio`.
    var samples: [String: [Double]]
    /// Why the noise meter marked the timed frames noisy (empty: quiet; nil: not read).
    var noise: [String]?
    /// The noise meter's slowdown of the timed frames' group (``NoiseReading/slowdown``; nil: not read).
    var slowdown: Double?
}

/// N AttachWithSpring elements in one MotionRuntime at 60 Hz, each attached to a target element of
/// its own, in one of two cases:
/// - moving: every target's position is written every frame along a pointer's path: its home plus
///   a circle of radius 10-160 pt at 1 Hz, one of 16 radii and phases (g = i % 16: radius
///   10 + 10 g, phase 5 g / 16), so the springs (the default spring, the layer's threshold) lag,
///   catch up and swing as under a finger, up to 1000 pt/s;
/// - still: no target is written; the elements start away from their targets (the same 16
///   offsets) on lightly damped springs (tension 342, friction 0.01: a decay time of 200 s), so
///   every spring moves on every frame of the run, as in the moving case, and the kernel step is
///   comparable.
/// Each frame is timed in three parts (this thread's CPU time, ``FrameLaps``): the target writes
/// (ended by a read of `runtime.kernel`, which makes any retargets the layer holds for the step),
/// the kernel step (`stepSprings`) and the delivery (`deliverFrame`); the figure above the step is
/// the writes and the delivery, as the Tossables' figure is. The path's 16 offsets of a frame are
/// computed before the frame's first lap (the user's part, not the layer's).
final class AttachFollowBench {
    /// The count.
    static let defaultElements = 10_000
    static let frameDuration = 1.0 / 60

    /// One case: a runtime with its elements and targets.
    final class Case {
        let isMoving: Bool
        let runtime: MotionRuntime
        /// The target elements' positions, unmanaged (``attaches`` keeps them alive): the harness
        /// reaches each without reference counting, so its writes time the layer, not the loop.
        @exclusivity(unchecked) var targets: ContiguousArray<Unmanaged<ReactiveProperty<CGPoint>>> = []
        @exclusivity(unchecked) var homes: ContiguousArray<CGPoint> = []
        var attaches: [AttachWithSpring] = []
        @exclusivity(unchecked) var shifts = ContiguousArray<CGPoint>(repeating: .zero, count: 16)
        var frame = 0
        let laps = FrameLaps(parts: 3, clock: .threadCPU)
        var delivered = 0.0, frames = 0.0, allocations = 0.0

        /// The parts of a frame, as ``laps`` indexes them.
        enum Part: Int { case writes, step, delivery }

        init(elements: Int, moving: Bool) throws {
            isMoving = moving
            runtime = try MotionRuntime(capacity: 2 * elements, threading: .single)
            let still = try SpringConfiguration(tension: 342, friction: 0.01)
            targets.reserveCapacity(elements)
            homes.reserveCapacity(elements)
            attaches.reserveCapacity(elements)
            for i in 0..<elements {
                let home = CGPoint(x: Double(i % 100) * 12, y: Double(i / 100) * 12)
                // The still case starts each element away from its target in both components (frame
                // 7 of the path: no group's offset has a zero component there, so no spring starts
                // at rest and every one moves on every frame, as in the moving case).
                let shift = AttachFollowBench.offset(group: i & 15, frame: moving ? 0 : 7)
                let target = MotionElement(position: moving ? CGPoint(x: home.x + shift.x, y: home.y + shift.y) : home)
                let element = MotionElement(position: moving ? home : CGPoint(x: home.x + shift.x, y: home.y + shift.y))
                let attach = AttachWithSpring(position: element.position, to: target.position, springSource: springSource)
                if !moving { attach.springConfiguration.value = still }
                try runtime.add(attach)
                attaches.append(attach)
                targets.append(.passUnretained(target.position))
                homes.append(home)
            }
        }

        /// One frame: the target writes (moving only), the step, the delivery, each a lap.
        func advance() throws {
            frame += 1
            if isMoving {
                for group in 0..<16 { shifts[group] = AttachFollowBench.offset(group: group, frame: frame) }
            }
            let allocated = allocation_counter_allocations()
            laps.start()
            if isMoving {
                targets.withUnsafeBufferPointer { targets in
                    homes.withUnsafeBufferPointer { homes in
                        shifts.withUnsafeBufferPointer { shifts in
                            for i in 0..<targets.count {
                                let home = homes[i], shift = shifts[i & 15]
                                let position = CGPoint(x: home.x + shift.x, y: home.y + shift.y)
                                targets[i]._withUnsafeGuaranteedRef { $0.value = position }
                            }
                        }
                    }
                }
                // The layer may hold a moving stream's retargets until its next call to the kernel
                // (the step's), and make them in bulk: a read of the kernel makes them now, so
                // they are timed with the writes, above the step, not in the step's lap.
                _ = runtime.kernel.awakeCount
            }
            laps.lap(Part.writes.rawValue)
            try runtime.stepSprings(by: AttachFollowBench.frameDuration)
            laps.lap(Part.step.rawValue)
            runtime.deliverFrame()
            laps.lap(Part.delivery.rawValue)
            allocations += Double(allocation_counter_allocations() - allocated)
            delivered += Double(runtime.lastFrameDeliveryCount)
            frames += 1
        }

        /// The running totals: the parts' seconds, streams delivered to, frames, allocations.
        func tally() -> [Double] { laps.seconds + [delivered, frames, allocations] }
    }

    /// One repeat's figures, ns per element-frame, from its tally differences.
    struct RepeatFigures {
        var writes, step, delivery, delivered, frames, allocations: Double
        /// Above the step: the writes and the delivery.
        var above: Double { writes + delivery }

        init(_ t: [Double], elements: Int) {
            frames = max(1, t[4])
            let perElementFrame = 1e9 / (frames * Double(elements))
            writes = t[Case.Part.writes.rawValue] * perElementFrame
            step = t[Case.Part.step.rawValue] * perElementFrame
            delivery = t[Case.Part.delivery.rawValue] * perElementFrame
            delivered = t[3] / frames
            allocations = t[5] / frames
        }
    }

    /// The pointer's offset for group `group` (of 16) at `frame`: a circle of radius 10-160 pt at
    /// 1 Hz, each group in its own phase.
    static func offset(group: Int, frame: Int) -> CGPoint {
        let radius = 10 + 10 * Double(group)
        let angle = 2 * Double.pi * (Double(frame) / 60 + Double(group * 5) / 16)
        return CGPoint(x: radius * sin(angle), y: radius * cos(angle))
    }

    let elements: Int
    let warmUpFrames: Int
    let timer: FrameTimer

    init(elements: Int, warmUpFrames: Int, timer: FrameTimer) {
        self.elements = elements
        self.warmUpFrames = warmUpFrames
        self.timer = timer
    }

    /// Sets both cases up, and times them in interleaved repeats until the moving, still and
    /// ratio figures' intervals are within the timer's precision (or its budget is spent).
    func run(progress: Progress, noise: NoiseMeter? = nil) throws -> AttachFollowReport {
        progress.note("interactions: \(elements) AttachWithSpring elements, targets moving every frame and still")
        let moving = try Case(elements: elements, moving: true)
        let still = try Case(elements: elements, moving: false)
        let elements = self.elements
        let contenders = [
            Contender(frame: { try moving.advance() }, tally: { moving.tally() }),
            Contender(frame: { try still.advance() }, tally: { still.tally() }),
        ]
        allocation_counter_set_enabled(true)
        defer { allocation_counter_set_enabled(false) }
        let timing = try timer.measure(
            contenders,
            judgedFigures: { _, tallies in
                let m = tallies[0].map { RepeatFigures($0, elements: elements).above }
                let s = tallies[1].map { RepeatFigures($0, elements: elements).above }
                return [m, s, Bootstrap.pairedRatios(m, s)]
            },
            warmUpFrames: warmUpFrames, clock: .threadCPU)
        let m = timing.tallies[0].map { RepeatFigures($0, elements: elements) }
        let s = timing.tallies[1].map { RepeatFigures($0, elements: elements) }
        let movingAbove = m.map(\.above), stillAbove = s.map(\.above)
        let ratios = Bootstrap.pairedRatios(movingAbove, stillAbove)
        let confidence = timer.confidence
        func median(_ values: [Double]) -> Double { Bootstrap.median(values) ?? 0 }
        let reading = noise?.read(after: "interactions: AttachWithSpring")
        return AttachFollowReport(
            elements: elements,
            movingFrames: Int(m.map(\.frames).reduce(0, +)), stillFrames: Int(s.map(\.frames).reduce(0, +)),
            movingFramesPerRepeat: timing.framesPerRepeat[0], stillFramesPerRepeat: timing.framesPerRepeat[1], warmUpFrames: warmUpFrames,
            movingNsPerElementFrame: median(movingAbove), movingInterval: Bootstrap.medianInterval(movingAbove, confidence: confidence),
            stillNsPerElementFrame: median(stillAbove), stillInterval: Bootstrap.medianInterval(stillAbove, confidence: confidence),
            movingOverStill: median(ratios), movingOverStillInterval: Bootstrap.medianInterval(ratios, confidence: confidence),
            movingTargetWritesNsPerElementFrame: median(m.map(\.writes)), movingDeliveryNsPerElementFrame: median(m.map(\.delivery)),
            movingStepNsPerElementFrame: median(m.map(\.step)), stillStepNsPerElementFrame: median(s.map(\.step)),
            movingDeliveredPerFrame: median(m.map(\.delivered)), stillDeliveredPerFrame: median(s.map(\.delivered)),
            movingAllocationsPerFrame: m.map { $0.allocations * $0.frames }.reduce(0, +) / max(1, m.map(\.frames).reduce(0, +)),
            repeats: timing.repeats, stoppedBy: timing.stoppedBy, clock: timing.clock,
            samples: ["moving": movingAbove, "still": stillAbove, "ratio": ratios],
            noise: reading?.reasons, slowdown: reading?.slowdown)
    }
}
