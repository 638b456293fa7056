// The program `.ci/cross check` runs on wasm32 only: a bank grown past 2^24 springs, where the
// record table's next size (2^25 records of 72 bytes) does not fit in a 32-bit `Int` of bytes.
// The add must throw (`.outOfMemory`, or `.tooManySprings`), not trap: it trapped in
// `UnsafeTable.reserveCapacity(appending:)` (then `fatalError` on every platform when the system
// could not give the memory). Prints one line: the springs held, and the error.
import SpringKernel

@main
struct CrossGrowth {
    static func main() {
        let bank = SpringBank<Float32Lanes>(threading: .single)
        let chunk = 1 << 20
        let values = [Float](repeating: 0, count: chunk), targets = [Float](repeating: 1, count: chunk)
        var stage = "bulk"
        do throws(SpringKernelError) {
            for _ in 0..<16 { _ = try bank.add(values: values, targets: targets, tolerance: 0.5) }
            stage = "one"
            _ = try bank.add(value: 0, target: 1, tolerance: 0.5)
            print("growth: \(bank.count) springs, no error")
        } catch {
            let name =
                switch error {
                case .outOfMemory: "outOfMemory"
                case .tooManySprings: "tooManySprings"
                default: "another error"
                }
            print("growth: \(bank.count) springs, then \(name) (\(stage) add)")
        }
    }
}
