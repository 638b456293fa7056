/// How a bank's caller advances time, and so which rest rule the bank can promise.
///
/// A spring's exact motion does not depend on how it is sampled, so "outside its band for the last
/// time at T*" stays true whatever durations the frames have: that is the ``variable`` rule, and it
/// holds under measured frame times, adaptive refresh rates and hitches. A physics engine that
/// steps at a fixed timestep can declare it (``fixed(frameDuration:)``) and get the sampled rest
/// frame instead, which can come earlier: the frames may miss a late, brief swing out of the band
/// that other frame durations would show.
public enum FrameClock: Hashable, Sendable {
    /// Any finite positive duration, new every frame if need be (the default). A spring rests on
    /// the first frame that ends at or after the last time its exact continuous motion is outside
    /// its band, so it is never snapped while a later frame of any duration could find it outside.
    case variable
    /// Every step lasts exactly `frameDuration` seconds (a step of another duration throws
    /// ``SpringKernelError/timeStepMismatch(declared:given:)``). A spring rests on its perceptual
    /// rest frame R: the first frame after which no frame of that duration finds it outside its band.
    case fixed(frameDuration: Double)
}
