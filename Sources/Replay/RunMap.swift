import Foundation
import Geodesy
import LocationSimulation
import Proximity
import Traces

/// The SVG map of a run and the HTML page that replays it.
public struct RunMap {
    public let report: RunReport
    public let places: [Place]
    public let distanceFilter: Double
    public let width = 960.0
    public let height = 720.0
    private let projection: LocalProjection
    private let scale: Double
    private let centre: (x: Double, y: Double)

    public init(report: RunReport, places: [Place], distanceFilter: Double) {
        self.report = report
        self.distanceFilter = distanceFilter
        var coordinates = report.trace.replaySegments.flatMap(\.fixes).map(\.coordinate) + report.delivered.map(\.location.coordinate)
        // Places near the walk (within 3 km of its first fix) frame the map; distant groups would shrink it to nothing.
        let anchor = coordinates.first
        let nearby = places.filter { p in anchor.map { Geodesic.wgs84.distance($0, p.coordinate) < 3000 } ?? true }
        self.places = nearby
        coordinates += nearby.map(\.coordinate)
        let lat = coordinates.map(\.latitude), lon = coordinates.map(\.longitude)
        let origin = Coordinate(computedLatitude: ((lat.min() ?? 0) + (lat.max() ?? 0)) / 2, longitude: ((lon.min() ?? 0) + (lon.max() ?? 0)) / 2)
        let plane = LocalProjection(origin: origin)
        projection = plane
        let points = coordinates.map { plane.project($0) }
        let xs = points.map(\.x), ys = points.map(\.y)
        let spanX = max(100, (xs.max() ?? 0) - (xs.min() ?? 0)), spanY = max(100, (ys.max() ?? 0) - (ys.min() ?? 0))
        // Room for labels on the right: the map's centre sits left of the picture's.
        scale = min((width - 260) / spanX, (height - 100) / spanY)
        centre = (((xs.max() ?? 0) + (xs.min() ?? 0)) / 2 + 90 / scale, ((ys.max() ?? 0) + (ys.min() ?? 0)) / 2)
        labelBoxes = Self.placeLabels(places: nearby, report: report, projector: ScreenProjection(
            projection: plane, scale: scale, centreX: centre.x, centreY: centre.y, width: width, height: height))
    }

    /// Each place's label box (in the order of `places`), or nil for a label
    /// left out because every position tried would overlap another's or
    /// cover another place's pin (``LabelPlacement``): the selected place's
    /// first, then the others from the nearest to the walk.
    public let labelBoxes: [MapRect?]

    /// The streets and footpaths drawn under the walk, by kind: each line
    /// cut to the drawing's frame, in screen points.
    public private(set) var streetLines: [MapStreet.Kind: [[MapPoint]]] = [:]

    /// The drawing's frame, in screen points.
    public var frame: MapRect { MapRect(x: 0, y: 0, width: width, height: height) }

    /// The box of coordinates the drawing shows, a little widened: what to
    /// ask a street network for before ``drawStreets(_:)`` clips it.
    public var visibleBounds: (south: Double, west: Double, north: Double, east: Double) {
        projector.bounds(margin: 20)
    }

    /// Draws `streets` under the walk: each cut to the drawing's frame
    /// (``MapClipping``), so that only what is shown is kept.
    public mutating func drawStreets(_ streets: [MapStreet]) {
        let frame = frame
        for street in streets {
            let points = street.coordinates.map { c in
                let p = screen(c)
                return MapPoint(x: p.x, y: p.y)
            }
            let pieces = MapClipping.clip(points, to: frame)
            if !pieces.isEmpty { streetLines[street.kind, default: []] += pieces }
        }
    }

    /// The font size of a place's label.
    static func fontSize(selected: Bool) -> Double { selected ? 13 : 11 }

    /// The pins' radius.
    static func pinRadius(selected: Bool) -> Double { selected ? 8 : 5 }

    /// The scale bar: a round number of metres near a fifth of the width, and its length in points.
    static func scaleBar(width: Double, scale: Double) -> (metres: Double, length: Double) {
        let target = width / 5 / scale
        let magnitude = pow(10, floor(log10(target)))
        let metres = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
        return (metres, metres * scale)
    }

    /// The labels' boxes: ``LabelPlacement`` with the selected place first,
    /// then the places nearest to the walk, then by name and id; the north
    /// arrow, the scale bar and every other pin kept clear, the walk where
    /// another place will do.
    private static func placeLabels(places: [Place], report: RunReport, projector: ScreenProjection) -> [MapRect?] {
        let width = projector.width, height = projector.height
        var walk = report.trace.replaySegments.flatMap(\.fixes).map(\.coordinate) + report.delivered.map(\.location.coordinate)
        if walk.count > 2000 {
            let stride = (walk.count + 1999) / 2000
            walk = walk.indices.filter { $0 % stride == 0 }.map { walk[$0] }
        }
        let walkPoints = walk.map { projector.screen($0) }
        let labels = places.map { place -> LabelPlacement.Label in
            let p = projector.screen(place.coordinate)
            let selected = place.id == report.selected
            let size = fontSize(selected: selected)
            return LabelPlacement.Label(anchor: MapPoint(x: p.x, y: p.y), radius: pinRadius(selected: selected),
                                        width: LabelPlacement.textWidth(labelText(place), fontSize: size, bold: selected),
                                        height: LabelPlacement.textHeight(fontSize: size))
        }
        // The squared distance in points from each pin to the nearest point of the walk.
        let distance = labels.map { (label: LabelPlacement.Label) -> Double in
            var nearest = Double.infinity
            for w in walkPoints {
                let dx: Double = w.x - label.anchor.x, dy: Double = w.y - label.anchor.y
                nearest = min(nearest, dx * dx + dy * dy)
            }
            return nearest.isFinite ? nearest : 0
        }
        let order = places.indices.sorted { a, b in
            let sa = places[a].id == report.selected, sb = places[b].id == report.selected
            if sa != sb { return sa }
            if distance[a] != distance[b] { return distance[a] < distance[b] }
            if places[a].name != places[b].name { return places[a].name < places[b].name }
            return places[a].id < places[b].id
        }
        let bar = scaleBar(width: width, scale: projector.scale)
        let furniture = [MapRect(x: width - 54, y: 20, width: 30, height: 58),
                         MapRect(x: 14, y: height - 56, width: max(60, bar.length) + 12, height: 30)]
        // The walk is spared where a label can go elsewhere: its points, and points along its longer segments.
        var spared = report.delivered.map { fix in
            let p = projector.screen(fix.location.coordinate)
            return MapPoint(x: p.x, y: p.y)
        }
        for segment in report.trace.replaySegments {
            let points = segment.fixes.map { projector.screen($0.coordinate) }
            for (a, b) in zip(points, points.dropFirst()) {
                let steps = max(1, min(50, Int((hypot(b.x - a.x, b.y - a.y) / 4).rounded(.up))))
                for k in 0..<steps {
                    let t = Double(k) / Double(steps)
                    spared.append(MapPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t))
                }
            }
            if let last = points.last { spared.append(MapPoint(x: last.x, y: last.y)) }
        }
        let boxes = LabelPlacement.place(order.map { labels[$0] }, in: MapRect(x: 2, y: 2, width: width - 4, height: height - 4),
                                         avoiding: furniture, sparing: spared)
        var result = [MapRect?](repeating: nil, count: places.count)
        for (k, i) in order.enumerated() { result[i] = boxes[k] }
        return result
    }

    /// A place's label: its name on one line.
    static func labelText(_ place: Place) -> String { place.name.replacingOccurrences(of: "\n", with: " ") }

    /// A pin's tooltip: the place's name on one line, and its id (an
    /// OpenStreetMap place's `node/123`) when that is not the name.
    static func tooltip(_ place: Place) -> String {
        let name = labelText(place)
        return place.id == name ? name : "\(name) (\(place.id))"
    }

    /// Screen position of a coordinate: x east, y down (north up).
    public func screen(_ c: Coordinate) -> (x: Double, y: Double) { projector.screen(c) }

    /// The map's projection to screen points, to place live positions on the same drawing.
    public var projector: ScreenProjection {
        ScreenProjection(projection: projection, scale: scale, centreX: centre.x, centreY: centre.y, width: width, height: height)
    }

    private func f(_ v: Double) -> String { String(format: "%.1f", v) }

    private func escape(_ s: String) -> String { TraceWriter.escape(s) }

    /// A standalone SVG document.
    public func svg() -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += svgElement()
        return out
    }

    public func svgElement() -> String {
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"map\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        out += "<title>\(escape(report.trace.name ?? "Stroll replay"))</title>\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"#f7f5f0\"/>\n"
        out += streetsElement()
        // The trace.
        for segment in report.trace.replaySegments where segment.fixes.count >= 2 {
            let points = segment.fixes.map { let p = screen($0.coordinate); return "\(f(p.x)),\(f(p.y))" }.joined(separator: " ")
            out += "<polyline class=\"trace\" points=\"\(points)\" fill=\"none\" stroke=\"#555555\" stroke-width=\"2.5\" stroke-dasharray=\"6 4\"/>\n"
        }
        // Delivered fixes with their distance-filter circles.
        let radius = max(0, distanceFilter) * scale
        for (k, fix) in report.delivered.enumerated() {
            let p = screen(fix.location.coordinate)
            if radius > 0 {
                out += "<circle class=\"filter\" cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"\(f(radius))\" fill=\"#2a7ab0\" fill-opacity=\"0.06\" stroke=\"#2a7ab0\" stroke-opacity=\"0.35\" stroke-width=\"0.8\"/>\n"
            }
            out += "<circle class=\"fix\" data-index=\"\(k)\" cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"2.5\" fill=\"#2a7ab0\"/>\n"
        }
        // Where the nearest place changed.
        for change in report.nearestChanges {
            let p = screen(change.at)
            out += "<g class=\"nearest-change\"><path d=\"M \(f(p.x - 6)) \(f(p.y)) L \(f(p.x)) \(f(p.y - 6)) L \(f(p.x + 6)) \(f(p.y)) L \(f(p.x)) \(f(p.y + 6)) Z\" fill=\"#e08a00\" stroke=\"#7a4a00\"/>"
            out += "<title>\(escape(change.group)): nearest is now \(escape(change.name)) at \(f(change.t)) s</title></g>\n"
        }
        // Labelled pins; the selected one stands out.
        // Each label where ``LabelPlacement`` put it, haloed in the background's colour so that it reads over
        // the streets; every pin's tooltip names its place and gives its id (`node/123`), a label left out too.
        for (place, box) in zip(places, labelBoxes) {
            let p = screen(place.coordinate)
            let selected = place.id == report.selected
            let size = Self.fontSize(selected: selected)
            let name = escape(Self.labelText(place))
            out += "<g class=\"pin\" data-id=\"\(escape(place.id))\"><title>\(escape(Self.tooltip(place)))</title><circle cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"\(Int(Self.pinRadius(selected: selected)))\" fill=\"\(selected ? "#c0392b" : (place.group == "lecture-theatres" ? "#6c3483" : "#1e8449"))\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>"
            if let box {
                out += "<text class=\"label\" x=\"\(f(box.x))\" y=\"\(f(box.y + LabelPlacement.baseline(fontSize: size)))\" data-w=\"\(f(box.width))\" font-size=\"\(Int(size))\" fill=\"#222\" stroke=\"#f7f5f0\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"\(selected ? " font-weight=\"bold\"" : "")>\(name)</text></g>\n"
            } else {
                out += "</g>\n"
            }
        }
        // The walker (moved by the HTML page's slider).
        if let last = report.delivered.last {
            let p = screen(last.location.coordinate)
            out += "<circle id=\"walker\" cx=\"\(f(p.x))\" cy=\"\(f(p.y))\" r=\"7\" fill=\"#ffffff\" stroke=\"#2a7ab0\" stroke-width=\"3\"/>\n"
        }
        // Scale bar: a round number of metres near a fifth of the width.
        let (metres, bar) = Self.scaleBar(width: width, scale: scale)
        out += "<g class=\"scale-bar\"><rect x=\"20\" y=\"\(f(height - 34))\" width=\"\(f(bar))\" height=\"6\" fill=\"#222\"/>"
        out += "<text x=\"20\" y=\"\(f(height - 40))\" font-size=\"12\">\(metres >= 1000 ? "\(metres / 1000) km" : "\(Int(metres)) m")</text></g>\n"
        // North arrow.
        out += "<g class=\"north-arrow\" transform=\"translate(\(f(width - 40)), 50)\"><path d=\"M 0 -24 L 9 6 L 0 0 L -9 6 Z\" fill=\"#222\"/><text x=\"-5\" y=\"22\" font-size=\"14\">N</text></g>\n"
        out += "</svg>\n"
        return out
    }

    /// The streets and footpaths layer: one path for each kind, streets
    /// wide and light, paths thin and dashed, steps short-dashed; nothing
    /// without streets. Points are rounded to a tenth of a point and those
    /// within half a point of the last one kept are left out.
    func streetsElement() -> String {
        guard !streetLines.isEmpty else { return "" }
        var out = "<g id=\"streets\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n"
        for kind in MapStreet.Kind.allCases {
            guard let lines = streetLines[kind], !lines.isEmpty else { continue }
            var d = ""
            for line in lines {
                var kept: [MapPoint] = []
                for (k, p) in line.enumerated() {
                    if let last = kept.last, k < line.count - 1, abs(p.x - last.x) < 0.5, abs(p.y - last.y) < 0.5 { continue }
                    kept.append(p)
                }
                let text = kept.map { "\(f($0.x)),\(f($0.y))" }
                var unique: [String] = []
                for t in text where unique.last != t { unique.append(t) }
                guard unique.count >= 2 else { continue }
                d += "M" + unique.joined(separator: " ")
            }
            guard !d.isEmpty else { continue }
            let style = switch kind {
            case .street: "stroke=\"#dcd5c6\" stroke-width=\"4\""
            case .path: "stroke=\"#a0927c\" stroke-width=\"1.2\" stroke-dasharray=\"4 2\""
            case .steps: "stroke=\"#8a6d4b\" stroke-width=\"2.5\" stroke-dasharray=\"1 1.5\" stroke-linecap=\"butt\""
            }
            out += "<path class=\"\(kind.rawValue)\" \(style) d=\"\(d)\"/>\n"
        }
        out += "</g>\n"
        return out
    }

    /// The script the run's pages share: a label whose text came out wider
    /// than the box placed for it (another font than the estimate's) is
    /// condensed to the box, so that labels stay apart in any browser.
    public static let labelScript = """
    for (const t of document.querySelectorAll("#map text.label")) {
      const w = Number(t.getAttribute("data-w"));
      if (w > 0 && t.getComputedTextLength() > w) {
        t.setAttribute("textLength", w);
        t.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
    """

    /// The style the run's pages share (this one and `stroll serve`'s live view).
    public static let pageStyle = """
    body { font-family: Helvetica, Arial, sans-serif; margin: 16px; color: #222; background: #fff; }
    main { display: flex; gap: 20px; align-items: flex-start; }
    #panel { min-width: 300px; }
    table { border-collapse: collapse; margin-bottom: 12px; }
    td { padding: 2px 8px; border-bottom: 1px solid #eee; }
    td.n { overflow-wrap: anywhere; }
    td.d { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
    tr.first td { font-weight: bold; }
    """

    /// The script the run's pages share: a ranking's rows (name, distance)
    /// into a table, the first in bold; a name wraps (`td.n`), a distance
    /// stays on one line (`td.d`, ``pageStyle``).
    public static let rankingScript = """
    function fillRanking(table, rows) {
      table.replaceChildren();
      rows.forEach(([name, distance], i) => {
        const tr = table.insertRow();
        if (i === 0) tr.className = "first";
        const n = tr.insertCell();
        n.className = "n";
        n.textContent = (i + 1) + ". " + name;
        const d = tr.insertCell();
        d.className = "d";
        d.textContent = distance;
      });
    }
    """

    /// The groups the pages list, in order: the report's (the replay's order,
    /// the terminal's), then any other group with rankings, by name.
    public var groups: [String] {
        report.groups + report.history.keys.filter { !report.groups.contains($0) }.sorted()
    }

    /// One self-contained page: the map and a time slider that replays the
    /// ranking, the groups in ``groups``'s order.
    public func html() -> String {
        var frames: [JSON] = []
        let shownGroups = groups
        for (k, fix) in report.delivered.enumerated() {
            let p = screen(fix.location.coordinate)
            var groups: [JSON] = []
            for group in shownGroups {
                guard let updates = report.history[group], k < updates.count else { continue }
                let u = updates[k]
                groups.append(.array([.string(group), .array(zip(u.names, u.displayDistances).prefix(10).map { .array([.string($0.0), .string($0.1)]) })]))
            }
            frames.append(.object([("t", .number((fix.t * 10).rounded() / 10)), ("x", .number((p.x * 10).rounded() / 10)),
                                   ("y", .number((p.y * 10).rounded() / 10)), ("groups", .array(groups))]))
        }
        let data = JSON.array(frames).text.replacingOccurrences(of: "</", with: "<\\/")
        let title = escape(report.trace.name ?? "Stroll replay")
        return """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>\(title)</title>
        <style>
        \(Self.pageStyle)
        input[type=range] { width: 100%; }
        </style>
        </head>
        <body>
        <h1>\(title)</h1>
        <main>
        \(svgElement())
        <div id="panel">
        <label for="time">Delivered fix <span id="index"></span>, <span id="clock"></span></label>
        <input id="time" type="range" min="0" max="\(max(0, frames.count - 1))" value="0" step="1">
        <div id="rankings"></div>
        </div>
        </main>
        <script>
        \(Self.rankingScript)
        \(Self.labelScript)
        const frames = \(data);
        const slider = document.getElementById("time");
        function clock(t) {
          const s = Math.floor(t), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
          return [h, m, r].map(v => String(v).padStart(2, "0")).join(":");
        }
        function show(k) {
          const f = frames[k];
          if (!f) return;
          document.getElementById("index").textContent = (k + 1) + " of " + frames.length;
          document.getElementById("clock").textContent = clock(f.t);
          const walker = document.getElementById("walker");
          if (walker) { walker.setAttribute("cx", f.x); walker.setAttribute("cy", f.y); }
          const panel = document.getElementById("rankings");
          panel.replaceChildren();
          for (const [group, rows] of f.groups) {
            const h = document.createElement("h2");
            h.textContent = group;
            const table = document.createElement("table");
            table.dataset.group = group;
            fillRanking(table, rows);
            panel.append(h, table);
          }
        }
        slider.addEventListener("input", () => show(Number(slider.value)));
        show(0);
        </script>
        </body>
        </html>

        """
    }
}


/// Coordinates to the points of a ``RunMap`` drawing: x east, y down (north up).
public struct ScreenProjection: Sendable {
    let projection: LocalProjection
    /// Screen points per metre.
    public let scale: Double
    let centreX: Double
    let centreY: Double
    public let width: Double
    public let height: Double

    /// The screen point of `c`: x east, y down.
    public func screen(_ c: Coordinate) -> (x: Double, y: Double) {
        let p = projection.project(c)
        return (width / 2 + (p.x - centreX) * scale, height / 2 - (p.y - centreY) * scale)
    }

    /// The coordinate at screen point (`x`, `y`).
    public func coordinate(x: Double, y: Double) -> Coordinate {
        projection.unproject(x: (x - width / 2) / scale + centreX, y: (height / 2 - y) / scale + centreY)
    }

    /// The box of coordinates (degrees) that holds the drawing's frame
    /// widened by `margin` points on every side.
    public func bounds(margin: Double = 0) -> (south: Double, west: Double, north: Double, east: Double) {
        let corners = [(-margin, -margin), (width + margin, -margin), (-margin, height + margin), (width + margin, height + margin),
                       (width / 2, -margin), (width / 2, height + margin), (-margin, height / 2), (width + margin, height / 2)]
            .map { coordinate(x: $0.0, y: $0.1) }
        let lat = corners.map(\.latitude), lon = corners.map(\.longitude)
        return (lat.min() ?? 0, lon.min() ?? 0, lat.max() ?? 0, lon.max() ?? 0)
    }
}
