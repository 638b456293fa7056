import Foundation

/// Plain SVG text for the results' two plots, written by the benchmark itself (no dependency):
/// a log-log line plot and a stack of histograms. Sizes are in user units (pixels when shown 1:1).
enum SVGPlot {
    /// One line of a log-log plot.
    struct Series {
        var name: String
        var color: String
        /// An SVG `stroke-dasharray`, or nil for a solid line.
        var dash: String? = nil
        var width: Double = 2
        var points: [(x: Double, y: Double)]
    }

    /// One panel of a histogram stack: a bar per bin, each a fraction of the panel's total.
    struct Histogram {
        var title: String
        var fractions: [Double]
        /// A fill per bar.
        var colors: [String]
    }

    /// Text made safe for SVG.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A log-log plot with decade gridlines on y, the given ticks on x, and a legend at the right.
    static func logLog(
        title: String, xLabel: String, yLabel: String, series: [Series], xTicks: [(value: Double, label: String)],
        yRange: (low: Double, high: Double), yTickLabel: (Double) -> String
    ) -> String {
        let width = 900.0, height = 520.0
        let left = 80.0, right = 230.0, top = 50.0, bottom = 60.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let xLow = log10(xTicks.first!.value), xHigh = log10(xTicks.last!.value)
        let yLow = log10(yRange.low), yHigh = log10(yRange.high)
        func px(_ x: Double) -> Double { left + (log10(x) - xLow) / (xHigh - xLow) * plotWidth }
        func py(_ y: Double) -> Double { top + (yHigh - log10(max(y, yRange.low))) / (yHigh - yLow) * plotHeight }
        var svg = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
            "<text x=\"\(number(left + plotWidth / 2))\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">\(escape(title))</text>",
        ]
        // Grid and ticks.
        var decade = ceil(yLow)
        while decade <= yHigh + 1e-9 {
            let y = py(pow(10, decade))
            svg.append("<line x1=\"\(number(left))\" y1=\"\(number(y))\" x2=\"\(number(left + plotWidth))\" y2=\"\(number(y))\" stroke=\"#dddddd\"/>")
            svg.append("<text x=\"\(number(left - 8))\" y=\"\(number(y + 4))\" text-anchor=\"end\">\(escape(yTickLabel(pow(10, decade))))</text>")
            decade += 1
        }
        for tick in xTicks {
            let x = px(tick.value)
            svg.append("<line x1=\"\(number(x))\" y1=\"\(number(top))\" x2=\"\(number(x))\" y2=\"\(number(top + plotHeight))\" stroke=\"#eeeeee\"/>")
            svg.append("<text x=\"\(number(x))\" y=\"\(number(top + plotHeight + 18))\" text-anchor=\"middle\">\(escape(tick.label))</text>")
        }
        svg.append("<rect x=\"\(number(left))\" y=\"\(number(top))\" width=\"\(number(plotWidth))\" height=\"\(number(plotHeight))\" fill=\"none\" stroke=\"#444444\"/>")
        svg.append("<text x=\"\(number(left + plotWidth / 2))\" y=\"\(number(height - 18))\" text-anchor=\"middle\">\(escape(xLabel))</text>")
        svg.append("<text transform=\"translate(20 \(number(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">\(escape(yLabel))</text>")
        // Lines, markers, legend.
        for (n, s) in series.enumerated() where !s.points.isEmpty {
            let path = s.points.enumerated().map { i, p in "\(i == 0 ? "M" : "L")\(number(px(p.x))) \(number(py(p.y)))" }.joined(separator: " ")
            let dash = s.dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
            svg.append("<path d=\"\(path)\" fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"\(s.width)\"\(dash) stroke-linejoin=\"round\"/>")
            if s.dash == nil {
                for p in s.points {
                    svg.append("<circle cx=\"\(number(px(p.x)))\" cy=\"\(number(py(p.y)))\" r=\"3\" fill=\"\(s.color)\"/>")
                }
            }
            let ly = top + 10 + Double(n) * 22
            let lx = left + plotWidth + 16
            svg.append("<line x1=\"\(number(lx))\" y1=\"\(number(ly))\" x2=\"\(number(lx + 28))\" y2=\"\(number(ly))\" stroke=\"\(s.color)\" stroke-width=\"\(s.width)\"\(dash)/>")
            svg.append("<text x=\"\(number(lx + 36))\" y=\"\(number(ly + 4))\">\(escape(s.name))</text>")
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    /// Histograms stacked vertically over shared bins, each bar labelled with its percentage.
    static func histogramStack(title: String, subtitle: String, binLabels: [String], xLabel: String, panels: [Histogram]) -> String {
        let width = 900.0, panelHeight = 150.0, top = 64.0, left = 70.0, right = 20.0, gap = 26.0
        let height = top + Double(panels.count) * (panelHeight + gap) + 50
        let plotWidth = width - left - right
        let barSlot = plotWidth / Double(binLabels.count)
        var svg = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
            "<text x=\"\(number(width / 2))\" y=\"26\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">\(escape(title))</text>",
            "<text x=\"\(number(width / 2))\" y=\"46\" text-anchor=\"middle\" fill=\"#555555\">\(escape(subtitle))</text>",
        ]
        for (n, panel) in panels.enumerated() {
            let panelTop = top + Double(n) * (panelHeight + gap) + 16
            let base = panelTop + panelHeight - 20
            let barArea = panelHeight - 40
            svg.append("<text x=\"\(number(left))\" y=\"\(number(panelTop))\" font-weight=\"bold\">\(escape(panel.title))</text>")
            svg.append("<line x1=\"\(number(left))\" y1=\"\(number(base))\" x2=\"\(number(left + plotWidth))\" y2=\"\(number(base))\" stroke=\"#444444\"/>")
            for level in [0.5, 1.0] {
                let y = base - level * barArea
                svg.append("<line x1=\"\(number(left))\" y1=\"\(number(y))\" x2=\"\(number(left + plotWidth))\" y2=\"\(number(y))\" stroke=\"#eeeeee\"/>")
                svg.append("<text x=\"\(number(left - 6))\" y=\"\(number(y + 4))\" text-anchor=\"end\" fill=\"#777777\">\(Int(level * 100)) %</text>")
            }
            for (i, fraction) in panel.fractions.enumerated() {
                let barHeight = fraction * barArea
                let x = left + Double(i) * barSlot + barSlot * 0.12
                svg.append("<rect x=\"\(number(x))\" y=\"\(number(base - barHeight))\" width=\"\(number(barSlot * 0.76))\" height=\"\(number(barHeight))\" fill=\"\(panel.colors[i])\"/>")
                if fraction > 0 {
                    let label = fraction >= 0.001 ? String(format: fraction >= 0.1 ? "%.0f%%" : "%.1f%%", fraction * 100) : "<0.1%"
                    svg.append("<text x=\"\(number(x + barSlot * 0.38))\" y=\"\(number(base - barHeight - 4))\" text-anchor=\"middle\" font-size=\"10\">\(escape(label))</text>")
                }
            }
        }
        let labelsY = top + Double(panels.count) * (panelHeight + gap) + 2
        for (i, label) in binLabels.enumerated() {
            svg.append("<text x=\"\(number(left + (Double(i) + 0.5) * barSlot))\" y=\"\(number(labelsY))\" text-anchor=\"middle\">\(escape(label))</text>")
        }
        svg.append("<text x=\"\(number(left + plotWidth / 2))\" y=\"\(number(labelsY + 24))\" text-anchor=\"middle\">\(escape(xLabel))</text>")
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }
}
