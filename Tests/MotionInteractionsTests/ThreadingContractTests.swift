import CompilerCheck
import Testing

/// The interaction layer's threading contract, as the compiler enforces it: a runtime and what
/// is connected to it are one single-threaded graph of non-`Sendable` types.
@Suite("Threading contract of the interaction layer (compile time)", .enabled(if: CompilerCheck.isAvailable(for: "MotionInteractions"), "needs swiftc on PATH and the build's Modules directory"))
struct InteractionThreadingContractTests {
    @Test("advancing a runtime from another thread does not compile")
    func runtimeOnAnotherThread() throws {
        let errors = try CompilerCheck.errors(importing: "MotionInteractions", in: """
            import Dispatch
            import MotionInteractions
            func advanceElsewhere(_ runtime: MotionRuntime) {
                DispatchQueue.global().async { try? runtime.advance(by: 1.0 / 60) }
            }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("capture of 'runtime' with non-Sendable type 'MotionRuntime' in a '@Sendable' closure") == true, "\(errors)")
    }

    @Test("feeding a main-actor recognizer from a background task does not compile")
    func recognizerFromAnotherTask() throws {
        let errors = try CompilerCheck.errors(importing: "MotionInteractions", in: """
            import MotionInteractions
            @MainActor func feedFromBackground(_ drag: GestureRecognizer) {
                Task.detached { drag.handle(.began(timestamp: 0)) }
            }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("risks causing data races") == true, "\(errors)")
    }

    @Test("one isolation domain compiles: a main-actor runtime fed by main-actor input")
    func allowed() throws {
        let errors = try CompilerCheck.errors(importing: "MotionInteractions", in: """
            import Foundation
            import MotionInteractions
            @MainActor final class Screen {
                let runtime = MotionRuntime()
                let card = MotionElement()
                let drag = GestureRecognizer()
                func setUp() throws {
                    try runtime.add(Tossable(position: card.position, to: ReactiveProperty(CGPoint.zero),
                                             containerView: MotionElement(), springSource: springSource, panGestureRecognizer: drag))
                }
                func touch(_ event: GestureEvent) { drag.handle(event) }
                func displayLink(_ timestamp: Double) throws { try runtime.advance(toTimestamp: timestamp) }
            }
            """)
        #expect(errors.isEmpty, "\(errors)")
    }
}
