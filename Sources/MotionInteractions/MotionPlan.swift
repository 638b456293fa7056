/// A description of motion added to an element (the Material Motion "plan"): ``SpringTo``,
/// ``Draggable``, ``PausesSpring``. Plans are values; adding one to an element makes the runtime
/// connect what it describes, and plans for one property cooperate (one spring per property).
///
/// <!-- fragment: layer-runtime -->
/// ```swift
/// let plans: [any MotionPlan] = [
///     Draggable(withGestureRecognizer: drag),
///     SpringTo(.position, destination: closedPosition),
///     PausesSpring(.position, whileActive: drag),
/// ]
/// for plan in plans { runtime.addPlan(plan, to: element) }
/// ```
public protocol MotionPlan {
    /// Connects the plan to `element` in `runtime`. ``MotionRuntime/addPlan(_:to:)`` calls it.
    func perform(on element: MotionElement, in runtime: MotionRuntime)
}
