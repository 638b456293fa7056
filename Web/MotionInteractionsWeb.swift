// The interaction layer's calls for the page (.ci/web build): the layer (Sources/MotionInteractions,
// Embedded Swift since issue 35) in the same module as the kernel, driving the seeds' scenes. A
// scene is a stage: one MotionRuntime and a table of elements; each element is moved by one of
// the layer's interactions, which the page sets up by element id and feeds with its pointer events
// (as pan gesture events) and requestAnimationFrame's dt:
// - drag to open (seed 000): Draggable + SpringTo + PausesSpring, the PausesSpring spec's example;
// - AttachWithSpring (seed 002), following an element whose position the page writes;
// - Tossable (seed 003), to the slot nearest its release velocity's projection;
// - a springSource spring (seed 004) with its own tension and friction.
// The page reads every element in one call into a Float64Array (`mi_stage_read`) and asks the
// kernel's rest prediction (`mi_stage_rest_time`, SpringBankReader.restTime) after each change.
// Nothing here decides rest: an element is at rest when its interaction's state, which the layer
// takes from the kernel's rest events, says so.
//
// Ids are indices into tables: a stage's carries its slot's generation too, so a destroyed
// stage's id is refused, not taken for the next stage in its slot; an element's is its index.
// wasm32: numbers as i32, f32 and f64; a negative result is an error (-1 an unknown id or address,
// -2 a refused argument or call). A frame allocates nothing here.
import MotionInteractions
import SpringKernel

/// One scene: a runtime, the container whose coordinates the gestures are measured in, and the
/// elements (an element's id is its index).
final class WebStage {
    let runtime = MotionRuntime(threading: .single)
    let container = MotionElement()
    var elements: [WebElement] = []
    /// Frames advanced (the kernel's frame count: one step a frame).
    var frame: Int32 = 0

    /// Cancels what the stage subscribed outside an interaction (the runtime cancels the rest).
    func tearDown() {
        for element in elements {
            for subscription in element.subscriptions { subscription.cancel() }
            element.subscriptions = []
        }
    }
}

/// One element of a stage: its position (which the layer writes), the kernel springs its
/// interaction added, and what the page reads of it.
final class WebElement {
    let element: MotionElement
    /// The kernel springs that move it (x, y), empty for an element the page moves.
    var springs: [SpringHandle] = []
    /// Its interaction's state is `.atRest` (from the kernel's rest events).
    var isAtRest = true
    /// The frame its interaction last came to rest on, or -1.
    var restFrame: Int32 = -1
    /// Values its springSource stream sent since its last start.
    var emitted: Int32 = 0
    /// The destination its interaction chose: the toss's slot, or the sheet's (0 closed, 1 open).
    var choice: Int32 = 0
    /// Where the finger let go (the element's position then) and the gesture's release velocity.
    var release = (x: 0.0, y: 0.0, vx: 0.0, vy: 0.0)
    /// The recognizer the page's pointer events go to, if it is dragged.
    var recognizer: GestureRecognizer?
    /// Where a drag began (the position then): the finger is there plus the translation.
    var dragStart = CGPoint.zero
    /// The configuration of the spring that moves it (for `mi_configure`).
    var configuration: ReactiveProperty<SpringConfiguration>?
    /// A springSource spring's destination (written by `mi_spring_source_start`).
    var destination: ReactiveProperty<CGPoint>?
    /// Subscriptions the stage made for it outside an interaction.
    var subscriptions: [Subscription] = []

    init(position: CGPoint) {
        element = MotionElement(position: position)
    }

    /// At rest, and not held by a finger.
    var isResting: Bool { isAtRest && !(recognizer?.isActive ?? false) }
}

/// A slot of the stage table: its stage (nil when free) and the generation its ids carry, moved
/// on when the slot is freed, so the id of a destroyed stage never reaches the slot's next one.
struct StageSlot {
    var stage: WebStage?
    var generation: Int32
}

/// The stage table. A stage's id is its slot's index (the low 16 bits) and generation (the 15
/// above). One thread: the page's.
nonisolated(unsafe) var stageSlots: [StageSlot] = []

/// The stage `id`, or nil for an unknown or destroyed one.
func stage(_ id: Int32) -> WebStage? {
    guard id >= 0 else { return nil }
    let index = Int(id & 0xFFFF)
    guard index < stageSlots.count, stageSlots[index].generation == id >> 16 else { return nil }
    return stageSlots[index].stage
}

/// The stage and its element `id`, or nil for an unknown one.
func element(_ stageID: Int32, _ id: Int32) -> (WebStage, WebElement)? {
    guard let stage = stage(stageID), id >= 0, Int(id) < stage.elements.count else { return nil }
    return (stage, stage.elements[Int(id)])
}

/// The wasm address `address` as a pointer to `T`, nil for 0.
func pointer<T>(_ address: Int32, to: T.Type) -> UnsafeMutablePointer<T>? {
    UnsafeMutablePointer<T>(bitPattern: UInt(UInt32(bitPattern: address)))
}

extension WebStage {
    /// Follows an interaction's state: the element's rest flag, and the frame it came to rest on.
    func follow(_ state: ReactiveProperty<MotionState>, of record: WebElement) {
        record.isAtRest = state.value == .atRest
        record.subscriptions.append(state.observe { [unowned(unsafe) self, unowned(unsafe) record] value in
            record.isAtRest = value == .atRest
            if value == .atRest { record.restFrame = self.frame }
        })
    }

    /// Adds `attachment` (an AttachWithSpring or a Tossable) to the runtime for `record`: the
    /// springs it adds, its configuration and its state become the record's. False, and nothing
    /// recorded, if the runtime refuses it.
    func add(_ attachment: AttachWithSpring, for record: WebElement) -> Bool {
        let before = runtime.springHandles
        do throws(MotionRuntimeError) {
            try runtime.add(attachment)
        } catch {
            return false
        }
        record.springs = springsAdded(since: before)
        record.configuration = attachment.springConfiguration
        follow(attachment.state, of: record)
        return true
    }

    /// The springs an interaction added to the kernel: those in it now that were not in `before`.
    func springsAdded(since before: [SpringHandle]) -> [SpringHandle] {
        runtime.springHandles.filter { !before.contains($0) }
    }

    /// Records the release (the element's position, the recognizer's velocity in the container)
    /// when `recognizer` ends.
    func recordRelease(of recognizer: GestureRecognizer, for record: WebElement) {
        record.subscriptions.append(recognizer.observe { [unowned(unsafe) self, unowned(unsafe) record] recognizer in
            guard recognizer.state == .ended || recognizer.state == .cancelled else { return }
            let velocity = recognizer.velocity(in: self.container)
            let position = record.element.position.value
            record.release = (Double(position.x), Double(position.y), Double(velocity.x), Double(velocity.y))
        })
    }
}

// MARK: Stages

/// A new stage (an empty runtime). Its id, or -2 when 65,536 stages exist.
@_expose(wasm, "mi_stage_create")
@c(mi_stage_create)
public func mi_stage_create() -> Int32 {
    let index: Int
    if let free = stageSlots.firstIndex(where: { $0.stage == nil }) {
        index = free
    } else {
        guard stageSlots.count <= 0xFFFF else { return -2 }
        stageSlots.append(StageSlot(stage: nil, generation: 0))
        index = stageSlots.count - 1
    }
    stageSlots[index].stage = WebStage()
    return stageSlots[index].generation << 16 | Int32(index)
}

/// Frees a stage: its runtime, its springs, its elements. Its id is refused from then on.
@_expose(wasm, "mi_stage_destroy")
@c(mi_stage_destroy)
public func mi_stage_destroy(_ id: Int32) {
    guard let stage = stage(id) else { return }
    stage.tearDown()
    let index = Int(id & 0xFFFF)
    stageSlots[index].stage = nil
    stageSlots[index].generation = (stageSlots[index].generation + 1) & 0x7FFF
}

/// One frame of `dt` seconds: the runtime's step (the kernel's), its deliveries and rests.
/// -2 if the runtime refused `dt` (not finite and positive).
@_expose(wasm, "mi_stage_advance")
@c(mi_stage_advance)
public func mi_stage_advance(_ id: Int32, _ dt: Double) -> Int32 {
    guard let stage = stage(id) else { return -1 }
    stage.frame += 1
    do throws(MotionRuntimeError) {
        try stage.runtime.advance(by: dt)
    } catch {
        stage.frame -= 1
        return -2
    }
    return 0
}

/// Doubles before the elements' records in `mi_stage_read`'s output.
let stageHeader = 4
/// Doubles in one element's record.
let elementRecord = 12

/// Writes the stage and its elements to `out` (a Float64 address of `capacity` doubles): first
/// frame, kernel springs, awake springs and elements; then for each element, by id, 12 doubles:
/// x, y, vx, vy (its springs' velocity, 0 without springs), at rest (1 or 0: its interaction's
/// state, and no finger holds it), its last rest frame (-1 none), values emitted (springSource),
/// the destination chosen (toss slot; sheet 0 closed, 1 open), and the release's x, y, vx, vy.
/// Returns the number of elements, or -2 if `capacity` is too small.
@_expose(wasm, "mi_stage_read")
@c(mi_stage_read)
public func mi_stage_read(_ id: Int32, _ out: Int32, _ capacity: Int32) -> Int32 {
    guard let stage = stage(id), let out = pointer(out, to: Double.self) else { return -1 }
    guard Int(capacity) >= stageHeader + elementRecord * stage.elements.count else { return -2 }
    let kernel = stage.runtime.kernel
    out[0] = Double(stage.frame)
    out[1] = Double(kernel.count)
    out[2] = Double(kernel.awakeCount)
    out[3] = Double(stage.elements.count)
    for (index, record) in stage.elements.enumerated() {
        let r = out + stageHeader + elementRecord * index
        let position = record.element.position.value
        r[0] = Double(position.x)
        r[1] = Double(position.y)
        r[2] = record.springs.count > 0 ? Double((try? kernel.velocity(of: record.springs[0])) ?? 0) : 0
        r[3] = record.springs.count > 1 ? Double((try? kernel.velocity(of: record.springs[1])) ?? 0) : 0
        r[4] = record.isResting ? 1 : 0
        r[5] = Double(record.restFrame)
        r[6] = Double(record.emitted)
        r[7] = Double(record.choice)
        r[8] = record.release.x
        r[9] = record.release.y
        r[10] = record.release.vx
        r[11] = record.release.vy
    }
    return Int32(stage.elements.count)
}

/// The kernel's rest prediction for an element's springs: writes to `out` (a Float64 address of
/// 1 double) the most seconds from now after which any of them stays within its tolerance for
/// good (`SpringBankReader.restTime`; 0 when all rest; a paused spring as if resumed now). Its
/// interaction rests on the first frame that ends at least that long after now, unless something
/// changes its springs first. Ask after every change (a gesture event, a moved target, a start).
@_expose(wasm, "mi_stage_rest_time")
@c(mi_stage_rest_time)
public func mi_stage_rest_time(_ stageID: Int32, _ id: Int32, _ out: Int32) -> Int32 {
    guard let (stage, record) = element(stageID, id), let out = pointer(out, to: Double.self) else { return -1 }
    var longest = 0.0
    do throws(SpringKernelError) {
        for spring in record.springs { longest = max(longest, try stage.runtime.kernel.restTime(of: spring)) }
    } catch {
        return -2
    }
    out[0] = longest
    return 0
}

// MARK: Elements

/// A new element at (x, y), moved by nothing until an interaction is set up on it (or the page
/// moves it with `mi_element_move`). Its id.
@_expose(wasm, "mi_element_create")
@c(mi_element_create)
public func mi_element_create(_ stageID: Int32, _ x: Float, _ y: Float) -> Int32 {
    guard let stage = stage(stageID) else { return -1 }
    stage.elements.append(WebElement(position: CGPoint(x: CGFloat(x), y: CGFloat(y))))
    return Int32(stage.elements.count - 1)
}

/// Writes an element's position (an AttachWithSpring's target, moved by the page every frame).
@_expose(wasm, "mi_element_move")
@c(mi_element_move)
public func mi_element_move(_ stageID: Int32, _ id: Int32, _ x: Float, _ y: Float) -> Int32 {
    guard let (_, record) = element(stageID, id) else { return -1 }
    record.element.position.value = CGPoint(x: CGFloat(x), y: CGFloat(y))
    return 0
}

/// A pan gesture event for the element's recognizer: `phase` 0 began, 1 changed, 2 ended,
/// 3 cancelled; the translation since the gesture began, in stage pixels; the event's time in
/// seconds (the layer estimates the release velocity from these). -2 for an element that is not
/// dragged, or an event its recognizer ignored (it did not fit the gesture's state).
@_expose(wasm, "mi_gesture")
@c(mi_gesture)
public func mi_gesture(_ stageID: Int32, _ id: Int32, _ phase: Int32, _ x: Float, _ y: Float, _ timestamp: Double) -> Int32 {
    guard let (_, record) = element(stageID, id) else { return -1 }
    guard let recognizer = record.recognizer else { return -2 }
    let translation = CGPoint(x: CGFloat(x), y: CGFloat(y))
    let accepted: Bool
    switch phase {
    case 0: accepted = recognizer.handle(.began(translation: translation, timestamp: timestamp))
    case 1: accepted = recognizer.handle(.changed(translation: translation, timestamp: timestamp))
    case 2: accepted = recognizer.handle(.ended(translation: translation, timestamp: timestamp))
    case 3: accepted = recognizer.handle(.cancelled(timestamp: timestamp))
    default: return -2
    }
    return accepted ? 0 : -2
}

/// Sets the tension and friction (mass 1) of the spring that moves the element, keeping its
/// state. -2 if the element has no spring or the kernel refuses the configuration.
@_expose(wasm, "mi_configure")
@c(mi_configure)
public func mi_configure(_ stageID: Int32, _ id: Int32, _ tension: Double, _ friction: Double) -> Int32 {
    guard let (_, record) = element(stageID, id) else { return -1 }
    guard let configuration = record.configuration else { return -2 }
    do throws(SpringKernelError) {
        configuration.value = try SpringConfiguration(tension: tension, friction: friction, mass: 1)
    } catch {
        return -2
    }
    return 0
}

// MARK: The seeds' interactions

/// Seed 000, the PausesSpring specification's drag to open: the element is a sheet at
/// (x, `closedY`) dragged by its recognizer (Draggable; the page feeds it vertical translations),
/// with a SpringTo toward closed and a PausesSpring holding the spring while the drag is active.
/// Dragged more than `boundary` below closed, a SpringTo moves the paused spring's destination to
/// (x, `openY`) (back above it, to closed); the release lets the spring continue there from the
/// finger's position at the gesture's velocity. -2 if the element already has an interaction.
@_expose(wasm, "mi_drag_to_open")
@c(mi_drag_to_open)
public func mi_drag_to_open(_ stageID: Int32, _ id: Int32, _ closedY: Float, _ openY: Float, _ boundary: Float) -> Int32 {
    guard let (stage, record) = element(stageID, id) else { return -1 }
    guard record.recognizer == nil, record.springs.isEmpty else { return -2 }
    let runtime = stage.runtime, sheet = record.element
    let drag = GestureRecognizer()
    sheet.addGestureRecognizer(drag)
    record.recognizer = drag
    let x = sheet.position.value.x
    let closed = CGPoint(x: x, y: CGFloat(closedY)), open = CGPoint(x: x, y: CGFloat(openY))
    runtime.addPlan(Draggable(withGestureRecognizer: drag), to: sheet)
    runtime.addPlan(SpringTo(.position, destination: closed), to: sheet)
    runtime.addPlan(PausesSpring(.position, whileActive: drag), to: sheet)
    guard let propertySpring = runtime.propertySpring(for: sheet.position) else { return -2 }
    record.springs = propertySpring.springs
    record.configuration = propertySpring.spring.configuration
    stage.follow(propertySpring.state, of: record)
    // Because the spring is paused, when the boundary is crossed the destination can change
    // with SpringTo; when the drag completes, PausesSpring releases the spring to continue to
    // the most recently set destination (the specification's `didDrag`).
    let boundaryY = CGFloat(closedY) + CGFloat(boundary)
    record.subscriptions.append(gestureSource(drag).translated(from: sheet.position, in: nil).subscribe(
        in: runtime,
        next: { [unowned(unsafe) runtime, unowned(unsafe) record] location in
            let crossed = location.y > boundaryY
            guard crossed != (record.choice == 1) else { return }
            record.choice = crossed ? 1 : 0
            runtime.addPlan(SpringTo(.position, destination: crossed ? open : closed), to: record.element)
        }))
    stage.recordRelease(of: drag, for: record)
    return 0
}

/// Seed 002: AttachWithSpring from the element to the `target` element's position (which the
/// page writes with `mi_element_move`), with the layer's default spring (tension 342, friction
/// 30, threshold 1). -2 if the element already has an interaction or is its own target.
@_expose(wasm, "mi_attach")
@c(mi_attach)
public func mi_attach(_ stageID: Int32, _ id: Int32, _ target: Int32) -> Int32 {
    guard let (stage, record) = element(stageID, id), let (_, destination) = element(stageID, target) else { return -1 }
    guard record.recognizer == nil, record.springs.isEmpty, destination !== record else { return -2 }
    let attach = AttachWithSpring(position: record.element.position, to: destination.element.position, springSource: springSource)
    return stage.add(attach, for: record) ? 0 : -2
}

/// Seed 003: a Tossable element, dragged by its recognizer in the stage's container and tossed
/// to one of `count` slots (`slots`: a Float32 address of x, y pairs): at the release, the slot
/// nearest where the release velocity would carry the finger's position in `projection`
/// seconds becomes the Tossable's destination, before its spring restarts from the finger's
/// position at that velocity. Its destination starts at the slot nearest the element. -2 if the
/// element already has an interaction or there is no slot.
@_expose(wasm, "mi_toss")
@c(mi_toss)
public func mi_toss(_ stageID: Int32, _ id: Int32, _ slots: Int32, _ count: Int32, _ projection: Float) -> Int32 {
    guard let (stage, record) = element(stageID, id), let pairs = pointer(slots, to: Float.self) else { return -1 }
    guard record.recognizer == nil, record.springs.isEmpty, count > 0, projection.isFinite else { return -2 }
    var places: [CGPoint] = []
    for slot in 0..<Int(count) { places.append(CGPoint(x: CGFloat(pairs[2 * slot]), y: CGFloat(pairs[2 * slot + 1]))) }
    /// The slot nearest `point`.
    func nearest(_ point: CGPoint) -> Int {
        var best = 0, bestDistance = CGFloat.infinity
        for (slot, place) in places.enumerated() {
            let dx = place.x - point.x, dy = place.y - point.y
            let distance = dx * dx + dy * dy
            if distance < bestDistance { (best, bestDistance) = (slot, distance) }
        }
        return best
    }
    let start = nearest(record.element.position.value)
    record.choice = Int32(start)
    let destination = ReactiveProperty(places[start])
    let drag = GestureRecognizer()
    record.recognizer = drag
    let container = stage.container
    let seconds = CGFloat(projection)
    // Subscribed before the Tossable's own observer, so at the release the destination is chosen
    // (from the recognizer's release velocity) before the Tossable restarts its spring.
    record.subscriptions.append(drag.observe { [unowned(unsafe) record] recognizer in
        switch recognizer.state {
        case .began:
            record.dragStart = record.element.position.value
        case .ended:
            let moved = recognizer.translation(in: container), velocity = recognizer.velocity(in: container)
            let finger = CGPoint(x: record.dragStart.x + moved.x, y: record.dragStart.y + moved.y)
            record.release = (Double(finger.x), Double(finger.y), Double(velocity.x), Double(velocity.y))
            let slot = nearest(CGPoint(x: finger.x + velocity.x * seconds, y: finger.y + velocity.y * seconds))
            record.choice = Int32(slot)
            destination.value = places[slot]
        default:
            break
        }
    })
    let tossable = Tossable(
        position: record.element.position, to: destination, containerView: container, springSource: springSource,
        panGestureRecognizer: drag)
    return stage.add(tossable, for: record) ? 0 : -2
}

/// Seed 004: a springSource spring of the element's position (tension, friction, mass 1,
/// threshold 0.5), subscribed in the stage's runtime: every value it sends is written to the
/// position and counted. It starts at rest on the element's position; `mi_spring_source_start`
/// sends it somewhere. -2 if the element already has an interaction or the kernel refuses the
/// configuration.
@_expose(wasm, "mi_spring_source")
@c(mi_spring_source)
public func mi_spring_source(_ stageID: Int32, _ id: Int32, _ tension: Double, _ friction: Double) -> Int32 {
    guard let (stage, record) = element(stageID, id) else { return -1 }
    guard record.recognizer == nil, record.springs.isEmpty else { return -2 }
    let position = record.element.position
    let destination = ReactiveProperty(position.value)
    let spring = Spring(to: destination, initialValue: position, threshold: 0.5)
    do throws(SpringKernelError) {
        spring.configuration.value = try SpringConfiguration(tension: tension, friction: friction, mass: 1)
    } catch {
        return -2
    }
    let state = ReactiveProperty(MotionState.atRest)
    let before = stage.runtime.springHandles
    record.subscriptions.append(springSource(spring).subscribe(
        in: stage.runtime,
        next: { [unowned(unsafe) record] value in
            position.value = value
            record.emitted += 1
        },
        state: { state.value = $0 }))
    record.springs = stage.springsAdded(since: before)
    record.configuration = spring.configuration
    record.destination = destination
    stage.follow(state, of: record)
    return 0
}

/// Sends a springSource element's spring toward (x, y), from where it is, and counts its values
/// from zero. -2 if the element has no springSource spring.
@_expose(wasm, "mi_spring_source_start")
@c(mi_spring_source_start)
public func mi_spring_source_start(_ stageID: Int32, _ id: Int32, _ x: Float, _ y: Float) -> Int32 {
    guard let (_, record) = element(stageID, id) else { return -1 }
    guard let destination = record.destination else { return -2 }
    record.emitted = 0
    destination.value = CGPoint(x: CGFloat(x), y: CGFloat(y))
    return 0
}
