/// A fixed scene that exercises everything a bank does, for checking that a build gives the
/// same bits: many springs in several configurations, two overlapping pause masks paused and
/// resumed (with and without restart values), retargets, impulses, removals and additions,
/// reconfigurations, and a frame duration that changes (a 0.25 s hitch included), stepped until
/// every spring is at rest.
///
/// Like Box2D's determinism test, the result is the frame on which the whole scene rests and a
/// hash of the state (``SpringBank/stateHash()``), in the middle of the motion and at the end. The package's tests pin both for each lane
/// format and CI checks them on a release build for the host CPU; an engine can run the scene on
/// its own target and compare with the values its build is expected to give.
///
/// <!-- fragment: kernel-internals -->
/// ```swift
/// let result = try DeterminismScene.run(Q16Lanes.self)
/// print(result.hashHex, result.restFrame)
/// ```
@_spi(KernelInternals)
public enum DeterminismScene {
    /// What a run of the scene ends with.
    public struct Result: Hashable, Sendable, CustomStringConvertible {
        /// ``SpringBank/stateHash()`` at ``DeterminismScene/movingFrame``, mixed with the same once
        /// every spring rests.
        public var hash: UInt64
        /// The frame (step count) on which the last spring came to rest.
        public var restFrame: Int
        /// The hash as 16 hexadecimal digits.
        public var hashHex: String {
            let digits = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }

        public var description: String { "hash \(hashHex), at rest on frame \(restFrame)" }
    }

    /// The frame whose state the result's hash covers besides the final one: most springs move
    /// then, so their lanes are the step's arithmetic (at rest every lane is 0, whatever the
    /// step's rounding did on the way).
    public static let movingFrame = 40

    /// Springs at the start of the scene.
    public static let springCount = 600
    /// The scene gives up (and throws) if it has not come to rest by this frame.
    public static let frameLimit = 20_000

    /// Frame durations, cycled for the first 120 frames: steady, halved, doubled, a hitch.
    static let frameDurations: [Double] = [1.0 / 60, 1.0 / 60, 1.0 / 120, 1.0 / 30, 1.0 / 60, 0.25, 1.0 / 60, 1.0 / 144]

    /// Runs the scene in a fresh bank of `lanes`.
    ///
    /// - Parameters:
    ///   - threading: the bank's threading; the result must not depend on it.
    ///   - path: the lane loop; the result must not depend on it.
    ///
    /// - Complexity: O(springs × frames to rest).
    @_specialize(where Lanes == Float32Lanes)
    @_specialize(where Lanes == Q16Lanes)
    public static func run<Lanes: SpringLaneArithmetic>(
        _ lanes: Lanes.Type, threading: StepThreading = .single, path: StepPath = .simd
    ) throws(SceneError) -> Result {
        let played: (result: Result?, awake: Int)
        do {
            played = try play(lanes, threading: threading, path: path)
        } catch {
            throw .kernel(error)
        }
        guard let result = played.result else { throw .didNotComeToRest(awake: played.awake) }
        return result
    }

    /// The scene: its result, or nil and the springs still awake at ``frameLimit``.
    static func play<Lanes: SpringLaneArithmetic>(
        _ lanes: Lanes.Type, threading: StepThreading, path: StepPath
    ) throws(SpringKernelError) -> (result: Result?, awake: Int) {
        func value(_ x: Double) -> Lanes.Value { Lanes.nearestValue(to: x) }
        var random = SplitMix64(seed: 0x5EED_5CE4_E000_0001)
        // Values on a 1/64 grid are exact in float32 and Q16.16 alike.
        func grid(_ range: ClosedRange<Int>) -> Double { Double(random.integer(in: range)) / 64 }

        let configurations = try [
            SpringConfiguration.default,
            SpringConfiguration(tension: 1323, friction: 91),
            SpringConfiguration(tension: 120, friction: 6, mass: 2),
            SpringConfiguration(tension: 100, friction: 80),
        ]
        let bank = SpringBank<Lanes>(threading: threading)
        var springs: [SpringHandle] = []
        var targets: [SpringHandle: Double] = [:]
        func addSpring(_ i: Int) throws(SpringKernelError) {
            let target = grid(-32_000...32_000)
            let spring = try bank.add(
                value: value(grid(-32_000...32_000)), target: value(target),
                velocity: value(grid(-128_000...128_000)), configuration: configurations[i % configurations.count],
                tolerance: value(i % 2 == 0 ? 0.5 : 1.0 / 16))
            springs.append(spring)
            targets[spring] = target
        }
        for i in 0..<springCount { try addSpring(i) }
        let maskA = try bank.makePauseMask(springs.indices.filter { $0 % 5 == 0 }.map { springs[$0] })
        let maskB = try bank.makePauseMask(springs.indices.filter { $0 % 7 == 0 }.map { springs[$0] })

        var restFrame = 0
        var movingHash: UInt64 = 0
        while true {
            let frame = bank.frame
            switch frame {
            case 5: try bank.pause(maskA)
            case 12: try bank.pause(maskB)
            case 20:
                for i in springs.indices where i % 3 == 1 {
                    targets[springs[i]] = grid(-32_000...32_000)
                    try bank.retarget(springs[i], to: value(targets[springs[i]]!))
                }
            case 30:
                // PausesSpring's hand-off: each freed spring restarts 10 units past its target.
                try bank.resume(maskA) { spring in (value(targets[spring, default: 0] + 10), value(-100)) }
            case 45: try bank.resume(maskB)
            case 50:
                for i in springs.indices where i % 11 == 0 { try bank.addVelocity(value(300), to: springs[i]) }
            case 60:
                for i in springs.indices where i % 13 == 0 { try bank.remove(springs[i]) }
                springs = springs.filter { bank.contains($0) }
                for i in 0..<50 { try addSpring(i) }
            case 70:
                for i in springs.indices where i % 17 == 3 { try bank.setConfiguration(of: springs[i], to: configurations[2]) }
            default: break
            }
            let dt = frame < 120 ? frameDurations[frame % frameDurations.count] : 1.0 / 60
            try bank.step(dt: dt, path: path)
            if bank.frame == movingFrame { movingHash = bank.stateHash() }
            if !bank.restedInLastStep.isEmpty { restFrame = bank.frame }
            if frame >= 70 && bank.awakeCount == 0 { break }
            guard bank.frame < frameLimit else { return (nil, bank.awakeCount) }
        }
        // Mixed so that neither hash can cancel the other.
        return (Result(hash: (movingHash &* 0x9E37_79B9_7F4A_7C15) ^ bank.stateHash(), restFrame: restFrame), 0)
    }

    /// Why a scene run failed.
    public enum SceneError: Error, Hashable, Sendable {
        /// Springs were still moving at ``frameLimit``.
        case didNotComeToRest(awake: Int)
        /// The bank refused a call of the scene.
        case kernel(SpringKernelError)
    }
}
