/// Settle detection by prediction: a spring's rest frame is computed once, when its trajectory
/// changes, and kept in the ``RestSchedule``; each step pops only the springs due.
extension SpringBankCore {
    /// The spring's trajectory changed (started, retargeted, pushed, resumed, reconfigured): its
    /// schedule entry is stale and it is predicted again at the next step.
    func trajectoryChanged(record index: Int) {
        unschedule(record: index)
        planValidity.invalidate()  // the next step must predict it first
        guard !records[index].awaitingPrediction else { return }
        records[index].awaitingPrediction = true
        pending.append(UInt32(index))
    }

    /// Makes any schedule entry of the spring stale.
    func unschedule(record index: Int) {
        records[index].stamp &+= 1
        records[index].scheduledFrame = -1
    }

    /// When the spring rests, from its current lanes, for frames of `duration`.
    func predictRest(record index: Int, duration: Double) -> RestPrediction {
        let (batch, slot) = batch(ofRecord: index)
        return lanes.restPrediction(
            displacement: batch.displacements[slot], velocity: batch.velocities[slot],
            tolerance: records[index].tolerance, motion: batch.motion,
            coefficients: batch.coefficients(duration: duration, lanes: lanes), frameDuration: duration)
    }

    /// Schedules the spring's rest, or its next prediction, at least one step from now (rest is
    /// reported by a step).
    private func scheduleRest(record index: Int, _ prediction: RestPrediction) {
        let due = frame + max(prediction.frames, 1)
        records[index].scheduledFrame = due
        records[index].scheduledAtHorizon = !prediction.isFinal
        schedule.insert(frame: due, spring: UInt32(index), stamp: records[index].stamp)
    }

    /// Before a step of `duration`: predicts every spring whose trajectory changed, or every moving
    /// spring when the frame duration changed (predictions are made for one duration).
    func prepareRestSchedule(duration: Double) {
        if predictionDuration?.bitPattern != duration.bitPattern {
            schedule.removeAll()
            for case let batch? in batches {
                for slot in 0..<batch.awakeCount where !batch.isPaused(slot: slot) {
                    trajectoryChanged(record: Int(batch.springOfSlot[slot]))
                }
            }
            predictionDuration = duration
        }
        for spring in pending {
            let index = Int(spring)
            guard records[index].isLive, records[index].awaitingPrediction else { continue }
            records[index].awaitingPrediction = false
            guard isAwake(record: index), !isPaused(record: index) else { continue }
            scheduleRest(record: index, predictRest(record: index, duration: duration))
        }
        pending.removeAll(keepingCapacity: true)
        frameState.pointee.nextDueFrame = schedule.nextFrame ?? .max
    }

    /// After a step: the springs due this frame snap onto their targets. The prediction is the rest
    /// frame of the exact trajectory, which the lanes follow to within rounding; only a prediction
    /// cut off at the horizon is made again.
    func settleDueSprings() {
        guard let duration = predictionDuration else { return }
        while let entry = schedule.popDue(by: frame) {
            let index = Int(entry.spring)
            guard records[index].isLive, records[index].stamp == entry.stamp, !records[index].awaitingPrediction,
                isAwake(record: index), !isPaused(record: index)
            else { continue }
            if records[index].scheduledAtHorizon {
                scheduleRest(record: index, predictRest(record: index, duration: duration))
            } else {
                rest(record: index)
                restedInLastStep.append(handle(ofRecord: index))
            }
        }
        frameState.pointee.nextDueFrame = schedule.nextFrame ?? .max
    }
}
