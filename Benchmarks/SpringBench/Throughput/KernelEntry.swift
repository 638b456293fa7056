@_spi(KernelInternals) import SpringKernel

/// The entry point of every Swift kernel the benchmark times, each kept out of line so a profiler
/// charges a kernel's samples to the kernel and not to the loop that calls it (`perf report`
/// shows these names; the C loops are functions of their own anyway).
enum KernelEntry {
    /// Every throughput frame is 1/60 s, unless a case steps with another frame clock.
    static let frameDuration = 1.0 / 60

    /// One frame of a float32 bank: its whole step (plan check, the SIMD or scalar loop, the rest
    /// schedule), inlined here. One overload per lane format: written for a concrete format, the
    /// step inlines into it (a generic entry point, even specialised, calls it out of line).
    @inline(never)
    static func step(_ bank: SpringBank<Float32Lanes>, path: StepPath, dt: Double = frameDuration) throws(SpringKernelError) {
        try bank.step(dt: dt, path: path)
    }

    /// One frame of a fixed-point bank: its whole step, inlined here.
    @inline(never)
    static func step(_ bank: SpringBank<Q16Lanes>, path: StepPath, dt: Double = frameDuration) throws(SpringKernelError) {
        try bank.step(dt: dt, path: path)
    }

    /// One pass of the kernel's float32 SIMD loop over plain lanes, without the bank.
    @inline(never)
    static func float32Loop(_ lanes: ReferenceLanes, coefficients: SIMD8<UInt32>) {
        LaneLayout.advanceFloat32(
            displacements: UnsafeMutableRawPointer(lanes.displacement), velocities: UnsafeMutableRawPointer(lanes.velocity),
            springs: lanes.springs, coefficients: coefficients)
    }

    /// One frame of every object spring, in order, as a peer's spring system loops.
    @inline(never)
    static func objectPerSpring(_ system: ObjectSpringSystem, dt: Double) {
        for spring in system.springs { spring.advance(dt) }
    }

    /// `substeps` RK4 substeps of 1 ms on every bundle. Bundles go in blocks that stay in L1 for
    /// all of a frame's substeps, each substep sweeping the block, so the substeps of different
    /// bundles overlap in the pipeline instead of waiting on one bundle's chain of dependent
    /// stages; the block is read from and written to memory once a frame.
    @inline(never)
    static func rk4(
        _ displacements: UnsafeMutableRawPointer, _ velocities: UnsafeMutableRawPointer, bundles: Int,
        substeps: Int, stiffness: Float, damping: Float
    ) {
        let d = displacements.assumingMemoryBound(to: SIMD16<Float>.self)
        let v = velocities.assumingMemoryBound(to: SIMD16<Float>.self)
        let k = SIMD16<Float>(repeating: -stiffness), c = SIMD16<Float>(repeating: -damping)
        let h = SIMD16<Float>(repeating: Float(Rebound.solverTimestep))
        let halfH = h * 0.5, sixthH = h * (1 / 6)
        var start = 0
        while start < bundles {
            let end = min(start + RK4Lanes.blockBundles, bundles)
            for _ in 0..<substeps {
                for b in start..<end {
                    _ = Rebound.substep(&d[b], &v[b], firstStage: d[b], minusStiffness: k, minusDamping: c, h: h, halfH: halfH, sixthH: sixthH)
                }
            }
            start = end
        }
    }
}
