import SpringKernel

/// The kernel springs of one stream, one per component (1 to 4), stored inline so the frame loop
/// reads them from the stream's own object instead of a separate array buffer.
struct ComponentHandles: RandomAccessCollection {
    private let storage: (SpringHandle, SpringHandle, SpringHandle, SpringHandle)
    /// A byte, so the stream's flags that follow share the handles' last word.
    private let componentCount: UInt8
    var count: Int { Int(componentCount) }

    /// The handles of `handles` (1 to 4 of them).
    init(_ handles: [SpringHandle]) {
        precondition((1...4).contains(handles.count), "a spring value has 1 to 4 components")
        // Unused places repeat the first handle; `count` says which are real.
        let pad = handles[0]
        storage = (
            handles[0], handles.count > 1 ? handles[1] : pad,
            handles.count > 2 ? handles[2] : pad, handles.count > 3 ? handles[3] : pad)
        componentCount = UInt8(handles.count)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(component: Int) -> SpringHandle {
        switch component {
        case 0: storage.0
        case 1: storage.1
        case 2: storage.2
        default: storage.3
        }
    }

    /// Calls `body` with the handles as a buffer (the inline storage, copied to the stack).
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<SpringHandle>) -> Result) -> Result {
        withUnsafeBytes(of: storage) { bytes in
            body(UnsafeBufferPointer(rebasing: bytes.bindMemory(to: SpringHandle.self)[0..<count]))
        }
    }
}
