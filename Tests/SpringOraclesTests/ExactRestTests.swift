import Testing
import _SpringOracles

@Suite("The brute-force rest scans")
struct ExactRestTests {
    /// R the slow way: the closed form at each frame's time from the start (no stepping, no energy
    /// proof), one more than the last of `frames` frames outside the band.
    static func naiveRestFrame(_ spring: ExactSpring, d0: Double, v0: Double, band: Double, durations: [Double], frames: Int) -> Int {
        var last = -1, t = 0.0
        for frame in 0..<frames {
            let s = spring.state(displacement: d0, velocity: v0, after: t)
            if abs(s.displacement) > band { last = frame }
            t += durations[frame % durations.count]
        }
        return last + 1
    }

    static let springs: [ExactSpring] = [
        ExactSpring(tension: 342, friction: 30, mass: 1), ExactSpring(tension: 342, friction: 2, mass: 1),
        ExactSpring(tension: 100, friction: 20, mass: 1), ExactSpring(tension: 100, friction: 20 * (1 + 1e-9), mass: 1),
        ExactSpring(tension: 500, friction: 300, mass: 2), ExactSpring(tension: 20, friction: 1, mass: 0.3),
    ]

    @Test("R from stepping with the energy proof is R from the closed form frame by frame, on steady and uneven clocks")
    func restFrameMatchesNaiveScan() {
        let clocks: [[Double]] = [[1.0 / 60], [1.0 / 240], [1.0 / 60, 1.0 / 48, 0.3, 1.0 / 120, 1.0 / 75]]
        for spring in Self.springs {
            for durations in clocks {
                for (d0, v0, band) in [(100.0, 0.0, 0.5), (0.3, 40.0, 1.0 / 256), (-2000, 8000, 0.5), (0.4, 0.0, 0.5)] {
                    let clock: ExactRest.Clock = durations.count == 1 ? .steady(frameDuration: durations[0]) : .durations(durations)
                    let r = ExactRest.restFrame(displacement: d0, velocity: v0, spring: spring, band: band, clock: clock, limit: 100_000)
                    let naive = Self.naiveRestFrame(spring, d0: d0, v0: v0, band: band, durations: durations, frames: 20_000)
                    #expect(r == naive, "\(spring), (\(d0), \(v0)), band \(band), \(durations)")
                }
            }
        }
    }

    @Test("R is nil when the proof does not come within the limit, and 0 for a spring that starts inside the band for good")
    func restFrameEdges() {
        let undamped = ExactSpring(tension: 342, friction: 0, mass: 1)
        #expect(ExactRest.restFrame(displacement: 10, velocity: 0, spring: undamped, band: 0.5, clock: .steady(frameDuration: 1.0 / 60), limit: 10_000) == nil)
        #expect(ExactRest.restFrame(displacement: 0.1, velocity: 0, spring: undamped, band: 0.5, clock: .steady(frameDuration: 1.0 / 60), limit: 10) == 0)
        #expect(ExactRest.restFrame(displacement: 1, velocity: 0, spring: Self.springs[0], band: 0.5, clock: .durations([]), limit: 10) == nil)
    }

    @Test("T* is the last time the continuous motion is outside the band")
    func restTime() throws {
        for spring in Self.springs {
            for (d0, v0, band) in [(100.0, 0.0, 0.5), (0.3, 40.0, 1.0 / 256), (-2000, 8000, 0.5)] {
                let t = try #require(ExactRest.restTime(displacement: d0, velocity: v0, spring: spring, band: band))
                // Outside just before, inside just after, and inside (sampled finely) until the proof.
                let before = spring.state(displacement: d0, velocity: v0, after: t * (1 - 1e-9))
                #expect(abs(before.displacement) > band, "\(spring), (\(d0), \(v0)), band \(band): T* \(t)")
                var s = t * (1 + 1e-9)
                while true {
                    let state = spring.state(displacement: d0, velocity: v0, after: s)
                    #expect(abs(state.displacement) <= band, "\(spring), (\(d0), \(v0)), band \(band): outside at \(s) after T* \(t)")
                    if spring.energyBound(displacement: state.displacement, velocity: state.velocity) <= band { break }
                    s += 1e-4
                }
                // A steady clock's R is at most the first frame at or after T*.
                let r = try #require(ExactRest.restFrame(displacement: d0, velocity: v0, spring: spring, band: band, clock: .steady(frameDuration: 1.0 / 60), limit: 100_000))
                #expect(r <= Int((t * 60).rounded(.up)), "\(spring), (\(d0), \(v0)), band \(band)")
            }
        }
        #expect(ExactRest.restTime(displacement: 10, velocity: 0, spring: ExactSpring(tension: 342, friction: 0, mass: 1), band: 0.5) == nil)
        #expect(ExactRest.restTime(displacement: 0.1, velocity: 0, spring: Self.springs[0], band: 0.5) == 0)
    }
}
