import Foundation
@_spi(KernelInternals) import SpringKernel
import Testing

/// The peers' parameterisations, each checked against its formula computed here independently,
/// written the way each peer's source or documentation writes it.
@Suite("Spring parameters designers use")
struct SpringConfigurationParameterTests {
    /// Equal to within a few roundings (the initializers compute ζ·2√k, the peers other forms).
    func close(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    }

    @Test("SwiftUI Spring(duration:bounce:): Apple's documented example and the formula, bounce from −0.9 to 1")
    func swiftUIDurationAndBounce() throws {
        // Apple's example: Spring(duration: 0.5, bounce: 0.3) is (mass 1.0, stiffness 157.9, damping 17.6).
        let documented = try SpringConfiguration(duration: 0.5, bounce: 0.3)
        #expect(documented.mass == 1)
        #expect((documented.tension * 10).rounded() / 10 == 157.9)
        #expect((documented.friction * 10).rounded() / 10 == 17.6)
        // And Spring(mass: 1, stiffness: 100, damping: 10) has duration 0.63 and bounce 0.5.
        let inverse = try SpringConfiguration(mass: 1, stiffness: 100, damping: 10)
        #expect(((2 * Double.pi / inverse.naturalFrequency) * 100).rounded() / 100 == 0.63)
        #expect(1 - inverse.dampingRatio == 0.5)

        for duration in [0.01, 0.15, 0.5, 1, 3.7] {
            for bounce in [-0.9, -0.5, -0.1, 0, 0.15, 0.3, 0.7, 1] {
                let spring = try SpringConfiguration(duration: duration, bounce: bounce)
                let stiffness = pow(2 * Double.pi / duration, 2)
                let damping = bounce >= 0 ? (1 - bounce) * 4 * Double.pi / duration : 4 * Double.pi / (duration * (1 + bounce))
                #expect(spring.mass == 1)
                #expect(close(spring.tension, stiffness), "duration \(duration) bounce \(bounce)")
                #expect(close(spring.friction, damping) || (damping == 0 && spring.friction == 0), "duration \(duration) bounce \(bounce)")
            }
        }
        #expect(try SpringConfiguration(duration: 0.4).dampingRatio == 1)
    }

    @Test("Flutter SpringDescription.withDurationAndBounce: the same formula, durations in whole milliseconds")
    func flutterDurationAndBounce() throws {
        for milliseconds in [50, 300, 500, 1200] {
            for bounce in [-0.75, -0.2, 0, 0.3, 0.9] {
                // Flutter's factory, transcribed: mass 1; stiffness = 4π² m / d²;
                // dampingRatio = bounce > 0 ? 1 − bounce : 1 / (bounce + 1); damping = ζ · 2√(m k).
                let seconds = Double(milliseconds) / 1000
                let mass = 1.0
                let stiffness = (4 * Double.pi * Double.pi * mass) / pow(seconds, 2)
                let dampingRatio = bounce > 0 ? 1 - bounce : 1 / (bounce + 1)
                let damping = dampingRatio * 2 * (mass * stiffness).squareRoot()
                let spring = try SpringConfiguration(duration: seconds, bounce: bounce)
                #expect(spring.mass == mass)
                #expect(close(spring.tension, stiffness), "\(milliseconds) ms bounce \(bounce)")
                #expect(close(spring.friction, damping), "\(milliseconds) ms bounce \(bounce)")
            }
        }
    }

    @Test("SwiftUI Spring(response:dampingRatio:) and (mass:stiffness:damping:)")
    func swiftUIResponseAndPhysical() throws {
        for response in [0.1, 0.55, 2] {
            for ratio in [0, 0.2, 0.825, 1, 2.5] {
                let spring = try SpringConfiguration(response: response, dampingRatio: ratio)
                #expect(spring.mass == 1)
                #expect(close(spring.tension, pow(2 * Double.pi / response, 2)))
                #expect(close(spring.friction, 4 * Double.pi * ratio / response) || (ratio == 0 && spring.friction == 0))
                #expect(abs(spring.dampingRatio - ratio) <= 1e-12)
            }
        }
        // A response and a duration are the same period: bounce 0.3 is damping ratio 0.7.
        let a = try SpringConfiguration(response: 0.5, dampingRatio: 0.7), b = try SpringConfiguration(duration: 0.5, bounce: 0.3)
        #expect(close(a.tension, b.tension) && close(a.friction, b.friction))

        let physical = try SpringConfiguration(mass: 2, stiffness: 300, damping: 12)
        #expect(physical == (try SpringConfiguration(tension: 300, friction: 12, mass: 2)))
        #expect(try SpringConfiguration(stiffness: 342, damping: 30) == .default)
    }

    @Test("Motion visualDuration and bounce: 2π / (1.2 visualDuration), damping ratio clamped to [0.05, 1]")
    func motionVisualDuration() throws {
        for visualDuration in [0.1, 0.3, 0.8, 2] {
            for bounce in [-1, 0, 0.25, 0.3, 0.6, 0.95, 0.99, 3] {
                // Motion's getSpringOptions, transcribed.
                let root = (2 * Double.pi) / (visualDuration * 1.2)
                let stiffness = root * root
                let damping = 2 * min(max(1 - bounce, 0.05), 1) * stiffness.squareRoot()
                let spring = try SpringConfiguration(visualDuration: visualDuration, bounce: bounce)
                #expect(spring.mass == 1)
                #expect(close(spring.tension, stiffness), "visualDuration \(visualDuration) bounce \(bounce)")
                #expect(close(spring.friction, damping), "visualDuration \(visualDuration) bounce \(bounce)")
            }
        }
        #expect(try SpringConfiguration(visualDuration: 0.3, bounce: -2).dampingRatio == 1)
        #expect(abs(try SpringConfiguration(visualDuration: 0.3, bounce: 0.999).dampingRatio - 0.05) <= 1e-12)
    }

    @Test("Compose and Android dampingRatio and stiffness, mass 1: natural frequency √stiffness")
    func composeDampingRatioAndStiffness() throws {
        // Compose's constants: StiffnessHigh 10 000, Medium 1500, MediumLow 400, Low 200, VeryLow 50;
        // DampingRatioHighBouncy 0.2, MediumBouncy 0.5, LowBouncy 0.75, NoBouncy 1.
        for stiffness in [10_000, 1500, 400, 200, 50.0] {
            for ratio in [0.2, 0.5, 0.75, 1, 0] {
                let spring = try SpringConfiguration(dampingRatio: ratio, stiffness: stiffness)
                let naturalFrequency = stiffness.squareRoot()
                #expect(spring.mass == 1 && spring.tension == stiffness)
                #expect(close(spring.friction, 2 * ratio * naturalFrequency) || (ratio == 0 && spring.friction == 0))
                #expect(spring.naturalFrequency == naturalFrequency)
            }
        }
    }

    @Test("arguments no peer takes are refused, naming the argument")
    func refusals() {
        for bad in [0, -0.0, -1, .nan, .infinity, 2 * Double.pi / 1000 * 0.999, .greatestFiniteMagnitude] {
            #expect(throws: SpringKernelError.invalidConfiguration(.duration)) { try SpringConfiguration(duration: bad) }
            #expect(throws: SpringKernelError.invalidConfiguration(.duration)) { try SpringConfiguration(response: bad, dampingRatio: 1) }
            #expect(throws: SpringKernelError.invalidConfiguration(.duration)) { try SpringConfiguration(visualDuration: bad / 1.2, bounce: 0) }
        }
        #expect((try? SpringConfiguration(duration: 2 * Double.pi / 1000)) != nil)
        for bad in [-1, -1.5, 1.0.nextUp, 2, .nan, .infinity] {
            #expect(throws: SpringKernelError.invalidConfiguration(.bounce)) { try SpringConfiguration(duration: 0.5, bounce: bad) }
        }
        // So overdamped that the friction leaves the limit.
        #expect(throws: SpringKernelError.invalidConfiguration(.bounce)) { try SpringConfiguration(duration: 0.5, bounce: -0.99999) }
        for bad: Double in [.nan, -.infinity, .infinity] {
            #expect(throws: SpringKernelError.invalidConfiguration(.bounce)) { try SpringConfiguration(visualDuration: 0.3, bounce: bad) }
        }
        for bad in [-0.1, .nan, .infinity] {
            #expect(throws: SpringKernelError.invalidConfiguration(.dampingRatio)) { try SpringConfiguration(response: 0.5, dampingRatio: bad) }
            #expect(throws: SpringKernelError.invalidConfiguration(.dampingRatio)) { try SpringConfiguration(dampingRatio: bad, stiffness: 100) }
        }
        for bad in [0, -5, .nan, 2e6] {
            #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(dampingRatio: 1, stiffness: bad) }
            #expect(throws: SpringKernelError.invalidConfiguration(.tension)) { try SpringConfiguration(stiffness: bad, damping: 1) }
        }
        #expect(throws: SpringKernelError.invalidConfiguration(.friction)) { try SpringConfiguration(stiffness: 1, damping: -1) }
        #expect(throws: SpringKernelError.invalidConfiguration(.mass)) { try SpringConfiguration(mass: 0, stiffness: 1, damping: 1) }
    }
}
