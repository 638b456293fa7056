import CSpringReference
@_spi(KernelInternals) import SpringKernel

/// Plain lanes, aligned as the bank aligns its own (``LaneLayout/bufferAlignment(bytes:)``), for the loops that run outside a bank (the kernel's bare loop, the C
/// loops, the probes, the vectorised RK4 baseline), filled like the bank
/// (``ThroughputBench/initialState(_:)``, seed 1) and padded with zeros to whole bundles.
final class ReferenceLanes {
    let springs: Int
    let displacement: UnsafeMutablePointer<Float>
    let velocity: UnsafeMutablePointer<Float>
    let position: UnsafeMutablePointer<Float>
    let target: UnsafeMutablePointer<Float>
    /// The same springs in Q16.16, for the fixed-point C loop.
    let fixedDisplacement: UnsafeMutablePointer<Int32>
    let fixedVelocity: UnsafeMutablePointer<Int32>
    /// The compute probe's springs: displacements, then velocities (2 x 128 floats), held in
    /// registers by the probe and written back after each call.
    let computeState: UnsafeMutablePointer<Float>

    init(springs: Int) {
        self.springs = springs
        let bundles = LaneLayout.bundleCount(springs: max(springs, 1))
        func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
            let lanes = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: LaneLayout.bufferAlignment(bytes: count * 4))
                .bindMemory(to: Float.self, capacity: count)
            lanes.initialize(repeating: 0, count: count)
            return lanes
        }
        let padded = bundles * LaneLayout.laneCount
        displacement = buffer(padded)
        velocity = buffer(padded)
        position = buffer(padded)
        target = buffer(padded)
        computeState = buffer(2 * Int(SPRING_PROBE_COMPUTE_SPRINGS))
        fixedDisplacement = UnsafeMutableRawPointer(buffer(padded)).bindMemory(to: Int32.self, capacity: padded)
        fixedVelocity = UnsafeMutableRawPointer(buffer(padded)).bindMemory(to: Int32.self, capacity: padded)
        var generator = SplitMix64(seed: 1)
        for i in 0..<springs {
            let state = ThroughputBench.initialState(&generator)
            position[i] = state.value
            target[i] = state.target
            displacement[i] = state.value - state.target
            velocity[i] = state.velocity
            // As a fixed-point bank stores them: nearest Q16 of value and target, then the difference.
            fixedDisplacement[i] = Q16Lanes.nearestValue(to: Double(state.value)).raw &- Q16Lanes.nearestValue(to: Double(state.target)).raw
            fixedVelocity[i] = Q16Lanes.nearestValue(to: Double(state.velocity)).raw
        }
        // The probe's springs start where the first springs do (any bounded values would do).
        var probeGenerator = SplitMix64(seed: 1)
        let probeSprings = Int(SPRING_PROBE_COMPUTE_SPRINGS)
        for i in 0..<probeSprings {
            let state = ThroughputBench.initialState(&probeGenerator)
            computeState[i] = state.value - state.target
            computeState[probeSprings + i] = state.velocity
        }
    }

    deinit {
        displacement.deallocate()
        velocity.deallocate()
        position.deallocate()
        target.deallocate()
        fixedDisplacement.deallocate()
        fixedVelocity.deallocate()
        computeState.deallocate()
    }
}
