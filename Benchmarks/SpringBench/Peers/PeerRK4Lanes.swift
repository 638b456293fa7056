import SpringKernel

/// The peers' integrator at its best: RK4 in 1 ms substeps with the frame clamped to 64 ms and a
/// time accumulator (Rebound, POP), but over struct-of-arrays Float32 lanes, 16 springs to a
/// SIMD16 register, every spring of a frame taking the same substeps. Each bundle stays in
/// registers through all of a frame's substeps, so a frame moves the exact step's 16 bytes per
/// spring. Leaving out the peers' interpolation of the remainder makes this the fastest form of
/// that algorithm; the remainder carries to the next frame (see ``KernelEntry/rk4(_:_:bundles:substeps:stiffness:damping:)``).
final class RK4Lanes {
    /// Displacements and velocities, shared with the other plain-lane loops of the size.
    let lanes: ReferenceLanes
    /// SIMD16 bundles covering the springs.
    let bundles: Int
    /// k / m and c / m.
    let stiffness: Float
    let damping: Float
    private var timeAccumulator = 0.0

    /// RK4 over `lanes` with `configuration`'s tension, friction and mass.
    init(lanes: ReferenceLanes, configuration: SpringConfiguration) {
        self.lanes = lanes
        bundles = BundleIndexing.bundleCount(springs: lanes.springs)
        stiffness = Float(configuration.tension / configuration.mass)
        damping = Float(configuration.friction / configuration.mass)
    }

    /// One frame of `dt` seconds: as many 1 ms substeps as the accumulator holds.
    func frame(_ dt: Double) {
        timeAccumulator += min(dt, ObjectSpring.maximumFrameDuration)
        var substeps = 0
        while timeAccumulator >= ObjectSpring.substep {
            timeAccumulator -= ObjectSpring.substep
            substeps += 1
        }
        KernelEntry.rk4(
            UnsafeMutableRawPointer(lanes.displacement), UnsafeMutableRawPointer(lanes.velocity), bundles: bundles,
            substeps: substeps, stiffness: stiffness, damping: damping)
    }

    /// Bundles advanced together through a frame's substeps: 32 bundles of displacement and
    /// velocity are 4 KiB, well inside L1.
    static let blockBundles = 32

    /// One RK4 substep of `h` on a bundle: four evaluations of a = -(k/m) x - (c/m) v. Written
    /// with fused multiply-adds (`addingProduct`, one `vfmadd` each on this target): the peers'
    /// C++ gets them from its compiler, and this baseline should be the algorithm at its best.
    @inline(__always)
    static func substep(
        _ x: inout SIMD16<Float>, _ v: inout SIMD16<Float>,
        minusStiffness k: SIMD16<Float>, minusDamping c: SIMD16<Float>, h: SIMD16<Float>, halfH: SIMD16<Float>, sixthH: SIMD16<Float>
    ) {
        let a1 = (c * v).addingProduct(k, x)
        let x2 = x.addingProduct(v, halfH), v2 = v.addingProduct(a1, halfH)
        let a2 = (c * v2).addingProduct(k, x2)
        let x3 = x.addingProduct(v2, halfH), v3 = v.addingProduct(a2, halfH)
        let a3 = (c * v3).addingProduct(k, x3)
        let x4 = x.addingProduct(v3, h), v4 = v.addingProduct(a3, h)
        let a4 = (c * v4).addingProduct(k, x4)
        let middle = v2 + v3, middleAcceleration = a2 + a3
        x = x.addingProduct(v + v4 + middle + middle, sixthH)
        v = v.addingProduct(a1 + a4 + middleAcceleration + middleAcceleration, sixthH)
    }
}
