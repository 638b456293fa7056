import Testing
@_spi(KernelInternals) @testable import SpringKernel

@Suite("Settle predictor")
struct SettlePredictorTests {
    @Test("predicts the Float64 reference rest frame exactly over a generated corpus")
    func matchesReferenceCorpus() {
        var generator = SeededGenerator(seed: 0x5E77_1E)
        var mismatches: [String] = []
        for _ in 0..<400 {
            let c = SettleCase.random(using: &generator)
            let reference = c.referenceRestFrame()!
            let predicted = SettlePredictor.restFrame(
                displacement: Double(c.from) - Double(c.to), velocity: Double(c.velocity),
                tolerance: Double(c.tolerance), motion: SpringMotion(c.configuration), frameDuration: 1 / c.hz)
            if predicted != reference { mismatches.append("\(c): predicted \(predicted), reference \(reference)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.first ?? "")")
    }

    @Test("matches the default spring's known rest frames (ANCHORS: 0→1 and 0→100 at 60 Hz rest at 24)")
    func defaultSpring() throws {
        let motion = SpringMotion(.default)
        #expect(SettlePredictor.restFrame(displacement: -100, velocity: 0, tolerance: 0.5, motion: motion, frameDuration: 1.0 / 60) == 24)
        let snappy = SpringMotion(try SpringConfiguration(tension: 1323, friction: 91))
        #expect(SettlePredictor.restFrame(displacement: -100, velocity: 0, tolerance: 0.5, motion: snappy, frameDuration: 1.0 / 60) == 19)
    }

    @Test("a state already inside its band for good rests at once; an undamped one never does")
    func edges() throws {
        let motion = SpringMotion(.default)
        #expect(SettlePredictor.restFrame(displacement: 0.1, velocity: 0, tolerance: 0.5, motion: motion, frameDuration: 1.0 / 60) == 0)
        let undamped = SpringMotion(try SpringConfiguration(tension: 100, friction: 0))
        #expect(SettlePredictor.restFrame(displacement: 10, velocity: 0, tolerance: 0.5, motion: undamped, frameDuration: 1.0 / 60) == SettlePredictor.horizon)
        #expect(SettlePredictor.restFrame(displacement: 0.2, velocity: 0, tolerance: 0.5, motion: undamped, frameDuration: 1.0 / 60) == 0)
    }
}
