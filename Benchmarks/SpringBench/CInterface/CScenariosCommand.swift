import Foundation
@_spi(KernelInternals) import SpringKernel

/// `spring-bench c-scenarios`: the C interface's client scenarios, run through the Swift API.
///
/// The C, C++ and Python clients in `Tests/CClients` run the same scenarios through
/// `spring_kernel.h` and print the same lines; `.ci/c-clients` requires them to be equal, so the C
/// interface is checked against the API it wraps (state hashes, rest frames, values).
struct CScenariosCommand {
    /// The command's `--help`.
    static let help = """
        spring-bench c-scenarios

          Runs the C clients' scenarios through the Swift API and prints one line each: DragToOpen in
          float32 and Q16.16 (a spring dragged under a pause mask, retargeted across the boundary,
          released with a hand-off; its predicted rest time, rest frame, value and the bank's state
          hash) and a 100,000-spring frame loop (rests counted, every value read each frame, the
          state hash), and an engine's frames in storage order (the moving springs' values with
          their ids after each step, every target written back in storage order every 10th
          frame). Tests/CClients/scenarios.c, scenarios.cpp and scenarios.py print the same.
        """

    init(_ arguments: inout CommandLineArguments) throws(BenchError) {
        try arguments.rejectUnread()
    }

    func run() throws {
        print(try Self.dragToOpen(Float32Lanes.self, unit: 1, tolerance: 0.5, label: "float32") { String(format: "%.6f", Double($0)) })
        print(try Self.dragToOpen(Q16Lanes.self, unit: 65536, tolerance: Q16(raw: 32768), label: "q16") { "\($0.raw)" })
        print(try Self.frameLoop())
        print(try Self.storageOrder())
    }

    /// DragToOpen, as `drag_to_open_float` in scenarios.c: values are `units × unit` raw steps.
    static func dragToOpen<Lanes: SpringLaneArithmetic>(
        _: Lanes.Type, unit: Int, tolerance: Lanes.Value, label: String, show: (Lanes.Value) -> String
    ) throws -> String where Lanes.Value: LaneValueFromUnits {
        let v = { (units: Int) in Lanes.Value(units: units, unit: unit) }
        let dt = 1.0 / 60
        let bank = SpringBank<Lanes>(threading: .single)
        let x = try bank.add(value: v(0), target: v(0), tolerance: tolerance)
        for units in [10, 20, 30] {
            try bank.add(value: v(units), target: v(0), tolerance: tolerance)
        }
        let mask = try bank.makePauseMask([x])
        try bank.pause(mask)
        var willOpen = false
        for frame in 1...30 {
            let finger = 5 * frame
            try bank.setState(of: x, value: v(finger), velocity: v(0))
            if finger > 100 && !willOpen { try bank.retarget(x, to: v(200)); willOpen = true }
            if finger <= 100 && willOpen { try bank.retarget(x, to: v(0)); willOpen = false }
            try bank.step(dt: dt)
        }
        try bank.resume(mask) { _ in (v(150), v(900)) }
        let restTime = try bank.restTime(of: x)
        var restFrame = -1
        var frame = 1
        while frame <= 600 && bank.awakeCount > 0 {
            try bank.step(dt: dt)
            if bank.restedInLastStep.contains(x) { restFrame = frame }
            frame += 1
        }
        return String(format: "drag-to-open %@: rest time %.6f s, rest frame %d, value %@, hash %016llx",
                      label, restTime, restFrame, show(try bank.value(of: x)), bank.stateHash())
    }

    /// The 100,000-spring frame loop, as `frame_loop` in scenarios.c.
    static func frameLoop() throws -> String {
        let n = 100_000, half = n / 2, frames = 120
        let bank = try SpringBank<Float32Lanes>(threading: .single, capacity: n)
        let fast = try SpringConfiguration(tension: 1323, friction: 91)
        var springs: [SpringHandle] = []
        for i in 0..<n {
            springs.append(try bank.add(
                value: Float(i % 1000) * 0.5, target: Float((i * 7) % 1000) * 0.5, velocity: Float(i % 13 - 6),
                configuration: i < half ? .default : fast, tolerance: 0.5))
        }
        var rested = 0
        for frame in 0..<frames {
            if frame % 10 == 0 {
                let moved = stride(from: 0, to: n, by: 97)
                try bank.retarget(moved.map { springs[$0] }, to: moved.map { Float(($0 + frame) % 500) })
            }
            try bank.step(dt: frame % 2 == 0 ? 1.0 / 60 : 1.0 / 90)
            rested += bank.restedInLastStep.count
        }
        let bitsSum = try springs.reduce(UInt64(0)) { $0 + UInt64(try bank.value(of: $1).bitPattern) }
        return String(format: "frame-loop float32: %d springs, %d frames, rested %d, awake %d, value bits %llu, hash %016llx",
                      n, frames, rested, bank.awakeCount, bitsSum, bank.stateHash())
    }
}

extension CScenariosCommand {
    /// An engine's frame in storage order, as `storage_order` in scenarios.c: after each step the
    /// moving springs' values with their ids, read in storage order and checked against a read by
    /// handle; every 10th frame every target read and written back in storage order, those of the
    /// springs whose id is a multiple of 5 moved.
    static func storageOrder() throws -> String {
        let n = 10_000, half = n / 2, frames = 60
        let bank = try SpringBank<Float32Lanes>(threading: .single, capacity: n)
        let fast = try SpringConfiguration(tension: 1323, friction: 91)
        var springs: [SpringHandle] = []
        for i in 0..<n {
            springs.append(try bank.add(
                value: Float(i % 1000) * 0.5, target: Float((i * 7) % 1000) * 0.5, velocity: Float(i % 13 - 6),
                configuration: i < half ? .default : fast, tolerance: 0.5, userValue: UInt64(i)))
        }
        var sum: UInt64 = 0, reads = 0, mismatches = 0
        for frame in 0..<frames {
            try bank.step(dt: 1.0 / 60)
            let moving = bank.storageLayout(of: .moving)
            var ids = [UInt64](repeating: 0, count: moving.count), values = [Float](repeating: 0, count: moving.count)
            try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: moving, into: $0) }
            try values.withUnsafeMutableBufferPointer { try bank.values(in: moving, into: $0) }
            for (id, value) in zip(ids, values) {
                sum &+= (id &+ 1) &* UInt64(value.bitPattern)
                if try bank.value(of: springs[Int(id)]).bitPattern != value.bitPattern { mismatches += 1 }
            }
            reads += moving.count
            if frame % 10 == 0 {
                let all = bank.storageLayout()
                var ids = [UInt64](repeating: 0, count: all.count), targets = [Float](repeating: 0, count: all.count)
                try ids.withUnsafeMutableBufferPointer { try bank.userValues(in: all, into: $0) }
                try targets.withUnsafeMutableBufferPointer { try bank.targets(in: all, into: $0) }
                for k in ids.indices where ids[k] % 5 == 0 { targets[k] = Float((ids[k] + UInt64(frame)) % 300) }
                try targets.withUnsafeBufferPointer { try bank.retarget(in: all, to: $0) }
            }
        }
        return String(format: "storage-order float32: %d springs, %d frames, moving values read %d, id-value sum %llu, mismatches %d, awake %d, hash %016llx",
                      n, frames, reads, sum, mismatches, bank.awakeCount, bank.stateHash())
    }
}

/// A lane value made from a whole number of units, each `unit` raw steps (1 for float32, 65536 for
/// Q16.16), so one scenario serves both formats.
protocol LaneValueFromUnits {
    init(units: Int, unit: Int)
}

extension Float: LaneValueFromUnits {
    init(units: Int, unit: Int) { self = Float(units * unit) }
}

extension Q16: LaneValueFromUnits {
    init(units: Int, unit: Int) { self.init(raw: Int32(units * unit)) }
}
