@_spi(KernelInternals) import SpringKernel

/// One spring as Rebound keeps it: an object with its own Float64 state, advanced frame by frame
/// by the Rebound model (``ReboundSpring``: RK4 in 1 ms substeps from a time accumulator, the frame
/// clamped to 64 ms, the remainder interpolated, the rest check and snap after each frame, a spring
/// at rest two frames running skipped). Listeners are left out: they would only add cost.
final class ObjectSpring {
    private(set) var spring: ReboundSpring

    /// A spring at `position` moving at `velocity` toward `endValue`.
    init(position: Double, velocity: Double, endValue: Double, tension: Double, friction: Double) {
        spring = ReboundSpring(position: position, velocity: velocity, endValue: endValue, tension: tension, friction: friction)
    }

    /// One frame of `realDeltaTime` seconds.
    @inline(__always)
    func advance(_ realDeltaTime: Double) { spring.advance(realDeltaTime) }
}

/// The peers' spring system: an array of spring objects, each advanced in turn every frame.
final class ObjectSpringSystem {
    /// The springs, in the order they were made.
    let springs: [ObjectSpring]

    /// `springs` objects made in order (so consecutive in memory, the peers' best case), started
    /// like the bank's springs and with the bank's configuration.
    init(springs count: Int, configuration: (tension: Double, friction: Double)) {
        var generator = SplitMix64(seed: 1)
        var springs: [ObjectSpring] = []
        springs.reserveCapacity(count)
        for _ in 0..<count {
            let state = ThroughputBench.initialState(&generator)
            springs.append(ObjectSpring(
                position: Double(state.value), velocity: Double(state.velocity), endValue: Double(state.target),
                tension: configuration.tension, friction: configuration.friction))
        }
        self.springs = springs
    }
}
