import Testing
@_spi(KernelInternals) import SpringKernel
import CompilerCheck
import Foundation

/// The *Using the kernel* article's example (the README's is a part of it), as written there.
@Test("the kernel example runs as written")
func readmeExample() throws {
    let bank = SpringBank<Float32Lanes>()
    let x = try bank.add(value: 0, target: 100, tolerance: 0.5)
    let fade = try bank.add(value: 1, target: 0, configuration: try SpringConfiguration(tension: 1323, friction: 91),
                            tolerance: 1.0 / 256)
    var rested: [SpringHandle] = []
    var generator = SplitMix64(seed: 1)
    while bank.awakeCount > 0 {
        let measuredFrameTime = 1.0 / 60 * (1 + Double.random(in: -0.15...0.15, using: &generator))
        try bank.step(dt: measuredFrameTime)
        for spring in bank.restedInLastStep { rested.append(spring) }
    }
    #expect(try bank.value(of: x) == 100)
    #expect(Set(rested) == [x, fade])

    let drag = try bank.makePauseMask([x])
    try bank.pause(drag)
    try bank.retarget(x, to: 200)
    try bank.resume(drag) { _ in (value: 140, velocity: 900) }
    #expect(try bank.value(of: x) == 140 && bank.velocity(of: x) == 900)
    let followers = [x, fade], newTargets: [Float] = [150, 0.5]
    try bank.retarget(followers, to: newTargets)
    #expect(try bank.target(of: fade) == 0.5 && bank.restTime(of: x) > 0)
    let starts: [Float] = [0, 10], ends: [Float] = [100, 100], kicks: [Float] = [0, 5]
    let sparks = try bank.add(values: starts, targets: ends, velocities: kicks, tolerance: 0.5)
    #expect(try bank.value(of: sparks[1]) == 10 && bank.velocity(of: sparks[1]) == 5)
    try bank.remove(sparks)
    #expect(!bank.contains(sparks[0]) && bank.count == 2)
    try bank.setConfiguration(of: followers, to: .default)
    try bank.pause(drag)
    try bank.resume(drag, restarting: [x], values: [140], velocities: [900])
    #expect(try bank.value(of: x) == 140 && bank.velocity(of: x) == 900 && !bank.isPaused(x))

    let physics = SpringBank<Float32Lanes>()
    try physics.setFrameClock(.fixed(frameDuration: 1.0 / 60))
    try physics.step(dt: 1.0 / 60)
    #expect(throws: SpringKernelError.self) { try physics.step(dt: 1.0 / 59) }
}

/// The kernel examples as the README and the *Using the kernel* article print them, compiled
/// inside a function that supplies `measuredFrameTime`, `followers`, `newTargets`, `starts`, `ends`
/// and `kicks`: no error and no warning, so a reader who pastes one into a package built with
/// warnings as errors gets no surprise.
@Test(
    "the README's and the article's examples compile without a warning",
    .enabled(if: CompilerCheck.isAvailable(for: "SpringKernel")),
    arguments: [("README.md", "## Swift"), ("Sources/SpringKernel/SpringKernel.docc/UsingTheKernel.md", "# Using the kernel")])
func readmeExampleCompilesCleanly(file: String, heading: String) throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../" + file)
    let text = try String(contentsOf: url, encoding: .utf8)
    guard let section = text.range(of: heading), let start = text.range(of: "```swift\n", range: section.upperBound..<text.endIndex),
          let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex) else {
        Issue.record("no swift example under \"\(heading)\" in \(file)")
        return
    }
    let example = text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("import ") }.map { "    " + $0 }.joined(separator: "\n")
    let source = """
        import SpringKernel

        func example(
            measuredFrameTime: Double, followers: [SpringHandle], newTargets: [Float], starts: [Float], ends: [Float], kicks: [Float]
        ) throws {
        \(example)
        }
        """
    let diagnostics = try CompilerCheck.diagnostics(importing: "SpringKernel", in: source)
    #expect(diagnostics.isEmpty, "\(file): \(diagnostics.joined(separator: "\n"))")
}
