@_spi(KernelInternals) import SpringKernel

/// The peers' integrator at its best: Rebound's RK4 in 1 ms substeps from a time accumulator, the
/// frame clamped to 64 ms (``Rebound``), but over struct-of-arrays Float32 lanes, 16 springs to a
/// SIMD16 register, every spring of a frame taking the same substeps. Each bundle stays in
/// registers through all of a frame's substeps, so a frame moves the exact step's 16 bytes per
/// spring. Two of Rebound's steps are left out to make this the fastest form of the algorithm:
/// the interpolation of the remainder (it carries to the next frame, see
/// ``KernelEntry/rk4(_:_:bundles:substeps:stiffness:damping:)``), and the first stage's stale
/// trial position (each substep starts at its own position, textbook RK4 as POP has it, so no
/// third lane is carried). The substep is the model's, ``Rebound/substep(_:_:firstStage:minusStiffness:minusDamping:h:halfH:sixthH:)``.
final class RK4Lanes {
    /// Displacements and velocities, shared with the other plain-lane loops of the size.
    let lanes: ReferenceLanes
    /// SIMD16 bundles covering the springs.
    let bundles: Int
    /// k / m and c / m.
    let stiffness: Float
    let damping: Float
    private var clock = Rebound.Clock()

    /// RK4 over `lanes` with `configuration`'s tension, friction and mass.
    init(lanes: ReferenceLanes, configuration: SpringConfiguration) {
        self.lanes = lanes
        bundles = LaneLayout.bundleCount(springs: lanes.springs)
        stiffness = Float(configuration.tension / configuration.mass)
        damping = Float(configuration.friction / configuration.mass)
    }

    /// One frame of `dt` seconds: as many 1 ms substeps as the accumulator holds.
    func frame(_ dt: Double) {
        let substeps = clock.substeps(advancing: dt)
        KernelEntry.rk4(
            UnsafeMutableRawPointer(lanes.displacement), UnsafeMutableRawPointer(lanes.velocity), bundles: bundles,
            substeps: substeps, stiffness: stiffness, damping: damping)
    }

    /// Bundles advanced together through a frame's substeps: 32 bundles of displacement and
    /// velocity are 4 KiB, well inside L1.
    static let blockBundles = 32
}
