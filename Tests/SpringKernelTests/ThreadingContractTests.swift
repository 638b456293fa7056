import CompilerCheck
import Testing

/// The kernel's threading contract, as the compiler enforces it: a `SpringBank` is not `Sendable`,
/// so Swift 6 refuses to let two threads or tasks reach one bank, and allows handing a bank over
/// whole. (ThreadedStepTests runs what is allowed under ThreadSanitizer.)
@Suite("Threading contract (compile time)", .enabled(if: CompilerCheck.isAvailable(for: "SpringKernel"), "needs swiftc on PATH and the build's Modules directory"))
struct ThreadingContractTests {
    @Test("sharing a bank with another thread does not compile")
    func anotherThread() throws {
        let errors = try CompilerCheck.errors(importing: "SpringKernel", in: """
            import Dispatch
            import SpringKernel
            func stepFromTwoThreads() throws {
                let bank = SpringBank<Float32Lanes>()
                DispatchQueue.global().async { try? bank.step(dt: 1.0 / 60) }
                try bank.step(dt: 1.0 / 60)
            }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("capture of 'bank' with non-Sendable type 'SpringBank<Float32Lanes>' in a '@Sendable' closure") == true, "\(errors)")
    }

    @Test("sharing a bank with another task does not compile")
    func anotherTask() throws {
        let errors = try CompilerCheck.errors(importing: "SpringKernel", in: """
            import SpringKernel
            func stepInTwoTasks() async throws {
                let bank = SpringBank<Float32Lanes>()
                Task.detached { try? bank.step(dt: 1.0 / 60) }
                try bank.step(dt: 1.0 / 60)
            }
            """)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("risks causing data races") == true, "\(errors)")
    }

    @Test("reaching an actor's bank from outside it does not compile")
    func outsideItsActor() throws {
        let errors = try CompilerCheck.errors(importing: "SpringKernel", in: """
            import SpringKernel
            actor Engine { let bank = SpringBank<Float32Lanes>() }
            func stepOutside(_ engine: Engine) async throws { try await engine.bank.step(dt: 1.0 / 60) }
            """)
        #expect(errors.first?.contains("non-Sendable type 'SpringBank<Float32Lanes>'") == true, "\(errors)")
    }

    @Test("the allowed uses compile: one actor, or a bank handed over whole")
    func allowed() throws {
        let errors = try CompilerCheck.errors(importing: "SpringKernel", in: """
            import SpringKernel
            actor Engine {
                let bank = SpringBank<Float32Lanes>()
                func frame() throws { try bank.step(dt: 1.0 / 60) }
            }
            func handOver() async throws -> Int {
                let bank = SpringBank<Q16Lanes>(threading: .fixed(2))
                _ = try bank.add(value: 0, target: 100, tolerance: 1)
                return try await Task.detached { try bank.step(dt: 1.0 / 60); return bank.frame }.value
            }
            """)
        #expect(errors.isEmpty, "\(errors)")
    }
}
