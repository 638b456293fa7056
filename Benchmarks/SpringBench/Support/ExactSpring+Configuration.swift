import SpringKernel
import _SpringOracles

extension ExactSpring {
    /// The exact motion of a kernel configuration (the oracle takes plain numbers: it shares no
    /// code with the kernel).
    init(_ configuration: SpringConfiguration) {
        self.init(tension: configuration.tension, friction: configuration.friction, mass: configuration.mass)
    }
}
