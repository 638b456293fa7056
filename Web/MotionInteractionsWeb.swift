// The interaction layer's calls for the page (.ci/web build): the layer (Sources/MotionInteractions,
// Embedded Swift since issue 35) in the same module as the kernel. For now the seed it serves is
// Tossable (003), the page's `tossable-layer` scene: the layer's own Tossable, runtime and pan
// recognizer, fed the page's pointer events and requestAnimationFrame's dt. The other scenes still
// run the JavaScript stand-in (Web/interactions.mjs); each moves here the same way.
//
// wasm32: numbers as i32, f32 and f64; a negative result is an error.
import MotionInteractions
import SpringKernel

/// One toss: a runtime, a card tossed toward a destination, in a container.
final class TossLayerScene {
    let runtime = MotionRuntime(threading: .single)
    let container = MotionElement()
    let card: MotionElement
    let destination: MotionElement
    let tossable: Tossable

    init(x: Float, y: Float, destinationX: Float, destinationY: Float) {
        card = MotionElement(position: CGPoint(x: CGFloat(x), y: CGFloat(y)))
        destination = MotionElement(position: CGPoint(x: CGFloat(destinationX), y: CGFloat(destinationY)))
        tossable = Tossable(position: card.position, to: destination.position, containerView: container, springSource: springSource)
    }
}

nonisolated(unsafe) var tossScenes: [TossLayerScene?] = []

func tossScene(_ index: Int32) -> TossLayerScene? {
    guard index >= 0, Int(index) < tossScenes.count else { return nil }
    return tossScenes[Int(index)]
}

/// A toss scene: the card at (x, y), its destination at (destinationX, destinationY). Its number, or -1.
@_expose(wasm, "mi_toss_create")
@c(mi_toss_create)
public func mi_toss_create(_ x: Float, _ y: Float, _ destinationX: Float, _ destinationY: Float) -> Int32 {
    let scene = TossLayerScene(x: x, y: y, destinationX: destinationX, destinationY: destinationY)
    do throws(MotionRuntimeError) {
        try scene.runtime.add(scene.tossable)
    } catch {
        return -1
    }
    if let free = tossScenes.firstIndex(where: { $0 == nil }) {
        tossScenes[free] = scene
        return Int32(free)
    }
    tossScenes.append(scene)
    return Int32(tossScenes.count - 1)
}

/// Frees a toss scene.
@_expose(wasm, "mi_toss_destroy")
@c(mi_toss_destroy)
public func mi_toss_destroy(_ index: Int32) {
    guard tossScene(index) != nil else { return }
    tossScenes[Int(index)] = nil
}

/// Moves the destination (the page chooses the slot at release, before the `ended` event).
@_expose(wasm, "mi_toss_destination")
@c(mi_toss_destination)
public func mi_toss_destination(_ index: Int32, _ x: Float, _ y: Float) -> Int32 {
    guard let scene = tossScene(index) else { return -1 }
    scene.destination.position.value = CGPoint(x: CGFloat(x), y: CGFloat(y))
    return 0
}

/// A pan gesture event: `phase` 0 began, 1 changed, 2 ended, 3 cancelled; the translation since
/// the gesture began, in points; the event's time in seconds (the layer measures the release
/// velocity from these).
@_expose(wasm, "mi_toss_gesture")
@c(mi_toss_gesture)
public func mi_toss_gesture(_ index: Int32, _ phase: Int32, _ x: Float, _ y: Float, _ timestamp: Double) -> Int32 {
    guard let scene = tossScene(index) else { return -1 }
    let translation = CGPoint(x: CGFloat(x), y: CGFloat(y))
    let recognizer = scene.tossable.panGestureRecognizer
    switch phase {
    case 0: recognizer.handle(.began(translation: translation, timestamp: timestamp))
    case 1: recognizer.handle(.changed(translation: translation, timestamp: timestamp))
    case 2: recognizer.handle(.ended(translation: translation, timestamp: timestamp))
    case 3: recognizer.handle(.cancelled(timestamp: timestamp))
    default: return -2
    }
    return 0
}

/// One frame of `dt` seconds: the runtime's step (the kernel's), its deliveries and rests.
@_expose(wasm, "mi_toss_advance")
@c(mi_toss_advance)
public func mi_toss_advance(_ index: Int32, _ dt: Double) -> Int32 {
    guard let scene = tossScene(index) else { return -1 }
    do throws(MotionRuntimeError) {
        try scene.runtime.advance(by: dt)
    } catch {
        return -2
    }
    return 0
}

/// Writes the card's x and y, and 1 or 0 for whether the Tossable is at rest (its state, from the
/// kernel's rest events), to `out` (a Float32 address of 3 floats).
@_expose(wasm, "mi_toss_read")
@c(mi_toss_read)
public func mi_toss_read(_ index: Int32, _ out: Int32) -> Int32 {
    guard let scene = tossScene(index), let pointer = UnsafeMutablePointer<Float>(bitPattern: UInt(UInt32(bitPattern: out))) else { return -1 }
    let position = scene.card.position.value
    pointer[0] = Float(position.x)
    pointer[1] = Float(position.y)
    pointer[2] = scene.tossable.state.value == .atRest ? 1 : 0
    return 0
}

/// The kernel's rest prediction for the scene's springs (the card's x and y): writes, to `out` (a
/// Float64 address of 1 double), the most seconds from now after which any of them stays within its
/// tolerance for good (`SpringBankReader.restTime`: 0 when all rest). The Tossable rests on the
/// first frame that ends at least that long after now.
@_expose(wasm, "mi_toss_rest_time")
@c(mi_toss_rest_time)
public func mi_toss_rest_time(_ index: Int32, _ out: Int32) -> Int32 {
    guard let scene = tossScene(index), let pointer = UnsafeMutablePointer<Double>(bitPattern: UInt(UInt32(bitPattern: out))) else { return -1 }
    var longest = 0.0
    do throws(SpringKernelError) {
        for spring in scene.runtime.springHandles { longest = max(longest, try scene.runtime.kernel.restTime(of: spring)) }
    } catch {
        return -2
    }
    pointer[0] = longest
    return 0
}
