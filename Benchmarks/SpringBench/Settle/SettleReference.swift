import Foundation

/// The cases ANCHORS measured the peers' own code on: a spring released at rest at 60 Hz, 0 -> 1
/// (an opacity or a scale: tolerance 1/256, POP's scale threshold 0.005) and 0 -> 100 (a position:
/// tolerance 0.5, POP's point threshold 1.0), for tension 342 / friction 30 and 1323 / 91. The
/// rules here reproduce the peers' reported frames when they are right.
enum SettleReference {
    /// One reference case and every detector's frame.
    struct Row: Codable {
        var id: String
        var tension: Double
        var friction: Double
        var from: Float
        var to: Float
        var tolerance: Float
        var popThreshold: Double
        var exactRestFrame: Int?
        /// Rest frames by detector name, `ours` first.
        var frames: [String: Int?]
    }

    /// The four reference cases, each with the POP threshold ANCHORS measured it with.
    static let cases: [(SettleCase, popThreshold: Double)] = [(342.0, 30.0), (1323, 91)].flatMap { tension, friction in
        [(Float(1), Float(1) / 256, 0.005), (Float(100), Float(0.5), 1.0)].map { to, tolerance, threshold in
            (SettleCase(
                id: "k\(Int(tension))/c\(Int(friction)) 0->\(Int(to))", tension: tension, friction: friction, mass: 1,
                from: 0, to: to, velocity: 0, tolerance: tolerance, hz: 60), threshold)
        }
    }

    /// Every detector on every reference case.
    static func rows() throws -> [Row] {
        let ours = try KernelRestFrames.restFrames(cases.map(\.0))
        return zip(cases, ours).map { item, ours in
            let (c, threshold) = item
            var frames: [String: Int?] = ["ours": ours]
            let peers = PeerRestFrames.restFrames(c, detectors: PeerDetector.allCases, popThreshold: threshold)
            for (detector, frame) in zip(PeerDetector.allCases, peers) { frames[detector.rawValue] = frame }
            return Row(
                id: c.id, tension: c.tension, friction: c.friction, from: c.from, to: c.to, tolerance: c.tolerance,
                popThreshold: threshold, exactRestFrame: c.exactRestFrame(), frames: frames)
        }
    }

    /// Frames, with the latency D - R after each.
    static func table(_ rows: [Row]) -> TextTable {
        var table = TextTable(header: ["case", "tolerance", "POP t", "R"] + SettleCommand.allDetectors)
        for row in rows {
            let r = row.exactRestFrame
            table.rows.append([row.id, String(format: "%g", row.tolerance), String(format: "%g", row.popThreshold), r.map(String.init) ?? "-"]
                + SettleCommand.allDetectors.map { name in
                    guard let frame = row.frames[name] ?? nil else { return "never" }
                    guard let r else { return "\(frame)" }
                    return "\(frame) (\(frame - r >= 0 ? "+" : "")\(frame - r))"
                })
        }
        return table
    }

    /// `settle-reference.json` and `.csv`.
    static func write(_ rows: [Row], to folder: String) throws {
        try writeFile(try jsonText(rows), to: "\(folder)/settle-reference.json")
        let header = ["case", "tension", "friction", "from", "to", "tolerance", "pop_threshold", "exact_rest_frame"] + SettleCommand.allDetectors
        let lines = rows.map { row in
            [row.id, "\(row.tension)", "\(row.friction)", "\(row.from)", "\(row.to)", "\(row.tolerance)", "\(row.popThreshold)",
             row.exactRestFrame.map(String.init) ?? ""] + SettleCommand.allDetectors.map { (row.frames[$0] ?? nil).map(String.init) ?? "" }
        }
        try writeFile(CSVText.text(header: header, rows: lines), to: "\(folder)/settle-reference.csv")
    }
}
