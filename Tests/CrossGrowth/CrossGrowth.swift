// The program `.ci/cross check` runs on wasm32 only: a bank grown until its tables cannot grow,
// past 2^24 springs. On wasm32 an `Int` is 32 bits, so the record table's size in bytes stops
// fitting in one at 2^26 records of 48 bytes (2^25 of 64 before the records shrank), and the
// 4 GB of linear memory run out around there too. Each add must throw (`.outOfMemory`, or
// `.tooManySprings`), not trap: it trapped in `UnsafeTable.reserveCapacity(appending:)` (then
// `fatalError` on every platform when the system could not give the memory). Springs are added
// in bulk (2^20 a call) until a call throws, then one by one until an add throws (the bulk
// call's refusal can leave room for a few): the one-spring add grows the tables by the same rule.
// Prints one line: the springs held after each, and the errors.
import SpringKernel

@main
struct CrossGrowth {
    static func main() {
        let bank = SpringBank<Float32Lanes>(threading: .single)
        let chunk = 1 << 20
        let values = [Float](repeating: 0, count: chunk), targets = [Float](repeating: 1, count: chunk)
        // Adds with `add` up to `tries` times, until one throws: the springs then held, and why.
        func addUntilRefused(_ kind: String, tries: Int, _ add: () throws(SpringKernelError) -> Void) -> String {
            for _ in 0..<tries {
                do throws(SpringKernelError) { try add() } catch { return "\(bank.count) springs, then \(name(of: error)) (\(kind) add)" }
            }
            return "\(bank.count) springs, no error (\(kind) add)"
        }
        // 64 chunks is past 2^26 springs: one of them must throw.
        let bulk = addUntilRefused("bulk", tries: 64) { () throws(SpringKernelError) in
            _ = try bank.add(values: values, targets: targets, tolerance: 0.5)
        }
        let one = addUntilRefused("one", tries: chunk) { () throws(SpringKernelError) in _ = try bank.add(value: 0, target: 1, tolerance: 0.5) }
        print("growth: \(bulk); \(one)")
    }

    static func name(of error: SpringKernelError) -> String {
        switch error {
        case .outOfMemory: "outOfMemory"
        case .tooManySprings: "tooManySprings"
        default: "another error"
        }
    }
}
