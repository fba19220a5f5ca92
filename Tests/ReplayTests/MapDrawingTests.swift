import Foundation
import Geodesy
import Proximity
import Replay
import Testing
import TestSupport
import Traces

/// A small deterministic generator, so that the dense sets repeat.
private struct Lehmer {
    var state: UInt64
    mutating func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }
}

private func pairwiseDisjoint(_ boxes: [MapRect]) -> Bool {
    for i in boxes.indices {
        for j in boxes.indices where j > i && boxes[i].intersects(boxes[j]) { return false }
    }
    return true
}

@Suite("The map's streets and labels: clipping to the frame, labels that do not overlap")
struct MapDrawingTests {
    let frame = MapRect(x: 0, y: 0, width: 100, height: 50)

    @Test("a segment is cut at the frame; one outside is dropped; an end inside is kept as it is")
    func segments() throws {
        let (a, b) = try #require(MapClipping.clip(MapPoint(x: -50, y: 25), MapPoint(x: 50, y: 25), to: frame))
        #expect(a == MapPoint(x: 0, y: 25) && b == MapPoint(x: 50, y: 25))
        #expect(MapClipping.clip(MapPoint(x: -10, y: -10), MapPoint(x: 200, y: -1), to: frame) == nil)
        #expect(MapClipping.clip(MapPoint(x: 110, y: 0), MapPoint(x: 110, y: 50), to: frame) == nil)
        let (c, d) = try #require(MapClipping.clip(MapPoint(x: -100, y: -50), MapPoint(x: 200, y: 100), to: frame))
        #expect(c == MapPoint(x: 0, y: 0) && d == MapPoint(x: 100, y: 50))
        let (e, f) = try #require(MapClipping.clip(MapPoint(x: 10, y: 10), MapPoint(x: 20, y: 30), to: frame))
        #expect(e == MapPoint(x: 10, y: 10) && f == MapPoint(x: 20, y: 30))
    }

    @Test("a line that leaves the frame and comes back is two pieces, each inside; one wholly outside is none")
    func polylines() {
        let line = [MapPoint(x: 10, y: 10), MapPoint(x: 50, y: 10), MapPoint(x: 50, y: 80), MapPoint(x: 80, y: 80), MapPoint(x: 80, y: 20), MapPoint(x: 90, y: 20)]
        let pieces = MapClipping.clip(line, to: frame)
        #expect(pieces == [[MapPoint(x: 10, y: 10), MapPoint(x: 50, y: 10), MapPoint(x: 50, y: 50)],
                           [MapPoint(x: 80, y: 50), MapPoint(x: 80, y: 20), MapPoint(x: 90, y: 20)]])
        #expect(MapClipping.clip([MapPoint(x: -5, y: -5), MapPoint(x: -5, y: 60), MapPoint(x: 120, y: 60)], to: frame).isEmpty)
        #expect(MapClipping.clip([MapPoint(x: 5, y: 5)], to: frame).isEmpty)
    }

    @Test("labels of 600 pins packed in a small map: the boxes placed are pairwise disjoint, inside the frame, clear of what is avoided and of every other pin, the first placed where it can be, the same every time")
    func denseLabels() {
        var random = Lehmer(state: 47)
        let words = ["Café", "Le Bar", "Restaurant du Port", "Pizzeria", "W", "Boulangerie Monégasque", "Tea", "Brasserie de la Place d'Armes"]
        let labels = (0..<600).map { _ in
            let text = words[Int(random.next() * Double(words.count)) % words.count]
            return LabelPlacement.Label(anchor: MapPoint(x: random.next() * 500, y: random.next() * 400), radius: 5,
                                        width: LabelPlacement.textWidth(text, fontSize: 11), height: LabelPlacement.textHeight(fontSize: 11))
        }
        let frame = MapRect(x: 2, y: 2, width: 496, height: 396)
        let arrow = MapRect(x: 440, y: 20, width: 30, height: 58)
        let boxes = LabelPlacement.place(labels, in: frame, avoiding: [arrow])
        #expect(boxes.count == labels.count)
        let placed = boxes.compactMap { $0 }
        #expect(placed.count > 40 && placed.count < labels.count)
        #expect(pairwiseDisjoint(placed))
        #expect(placed.allSatisfy { frame.contains($0) && !$0.intersects(arrow) })
        // The first label is left out only when each of its places would leave the frame or cover the arrow or a pin.
        let blocked = labels[0].candidates(gap: 3).allSatisfy { r in
            !frame.contains(r) || r.intersects(arrow) || labels.indices.contains { $0 != 0 && labels[$0].pin.intersects(r) }
        }
        #expect((boxes[0] != nil) != blocked)
        for (label, box) in zip(labels, boxes) {
            guard let box else { continue }
            #expect(label.candidates(gap: 3).contains(box))
        }
        #expect(LabelPlacement.place(labels, in: frame, avoiding: [arrow]) == boxes)
        #expect(pinsCovered(labels, boxes) == 0)
    }

    /// How many (label, pin) pairs there are where a placed label's box covers another label's pin.
    private func pinsCovered(_ labels: [LabelPlacement.Label], _ boxes: [MapRect?]) -> Int {
        var covered = 0
        for (k, box) in boxes.enumerated() {
            guard let box else { continue }
            covered += labels.indices.filter { $0 != k && labels[$0].pin.intersects(box) }.count
        }
        return covered
    }

    @Test("no label covers a pin: a pin in every place a label could go leaves that label out, and a pin in some sends it to another")
    func pinsAreObstacles() throws {
        let frame = MapRect(x: 0, y: 0, width: 400, height: 300)
        let a = LabelPlacement.Label(anchor: MapPoint(x: 200, y: 150), radius: 5, width: 60, height: 13)
        func pin(at p: MapPoint) -> LabelPlacement.Label { LabelPlacement.Label(anchor: p, radius: 5, width: 0, height: 0) }
        // Pins whose labels have no box (nothing to show) still keep the other labels off.
        let centres = a.candidates(gap: 3).map { pin(at: MapPoint(x: $0.x + $0.width / 2, y: $0.y + $0.height / 2)) }
        let boxes = LabelPlacement.place([a] + centres, in: frame)
        #expect(boxes[0] == nil)
        #expect(boxes.compactMap { $0 }.isEmpty)
        // One pin where the label would go first: the label goes to the next place that covers no pin.
        let first = try #require(a.candidates(gap: 3).first)
        let blocker = pin(at: MapPoint(x: first.x + 20, y: first.y + first.height / 2))
        let moved = try #require(LabelPlacement.place([a, blocker], in: frame)[0])
        #expect(moved != first && !moved.intersects(blocker.pin))
        // The pin's outline counts: a pin whose circle stops half a point short of the box still sends the label elsewhere.
        let grazing = pin(at: MapPoint(x: first.x + 20, y: first.maxY + 5.5))
        #expect(LabelPlacement.place([a, grazing], in: frame)[0] != first)
        // Given the choice, a label covers the walk rather than a pin: a pin beats a walk's point.
        let walk = a.candidates(gap: 3).dropFirst().map { MapPoint(x: $0.x + $0.width / 2, y: $0.y + $0.height / 2) }
        let onWalk = try #require(LabelPlacement.place([a, blocker], in: frame, sparing: walk)[0])
        #expect(!onWalk.intersects(blocker.pin))
    }

    @Test("a label is put beside its pin where nothing is in the way, and on the other side when its first place is taken")
    func sides() throws {
        let a = LabelPlacement.Label(anchor: MapPoint(x: 100, y: 100), radius: 5, width: 60, height: 13)
        let b = LabelPlacement.Label(anchor: MapPoint(x: 180, y: 100), radius: 5, width: 60, height: 13)
        let boxes = LabelPlacement.place([a, b], in: MapRect(x: 0, y: 0, width: 400, height: 300))
        let first = try #require(boxes[0]), second = try #require(boxes[1])
        #expect(first.x == 108 && first.y < 100 && first.maxY > 100)
        #expect(second.x == 188 && !first.intersects(second))
        // A pin just right of a label's places on the right pushes the label to the left of its own pin.
        let near = LabelPlacement.Label(anchor: MapPoint(x: 165, y: 100), radius: 5, width: 60, height: 13)
        let pushed = try #require(LabelPlacement.place([a, near], in: MapRect(x: 0, y: 0, width: 400, height: 300))[0])
        #expect(pushed.maxX == 92 && pushed.y < 100 && pushed.maxY > 100)
        // A point of the walk where the label would go sends it elsewhere; with nowhere else, it is covered.
        let spared = try #require(LabelPlacement.place([a], in: MapRect(x: 0, y: 0, width: 400, height: 300), sparing: [MapPoint(x: 130, y: 100)])[0])
        #expect(!spared.contains(MapPoint(x: 130, y: 100)) && spared != first)
        let everywhere = a.candidates(gap: 3).map { MapPoint(x: $0.x + $0.width / 2, y: $0.y + $0.height / 2) }
        #expect(LabelPlacement.place([a], in: MapRect(x: 0, y: 0, width: 400, height: 300), sparing: everywhere)[0] == first)
        // At the frame's right edge the label goes left of its pin.
        let edge = LabelPlacement.place([LabelPlacement.Label(anchor: MapPoint(x: 390, y: 100), radius: 5, width: 60, height: 13)],
                                        in: MapRect(x: 0, y: 0, width: 400, height: 300))
        #expect(try #require(edge[0]).maxX <= 382)
    }

    @Test("widths: longer and bolder text is wider; every character counts")
    func widths() {
        #expect(LabelPlacement.textWidth("Café de Paris", fontSize: 11) > LabelPlacement.textWidth("Café", fontSize: 11))
        #expect(LabelPlacement.textWidth("Café", fontSize: 13, bold: true) > LabelPlacement.textWidth("Café", fontSize: 13))
        #expect(LabelPlacement.textWidth("咖啡", fontSize: 10) >= 20)
    }

    /// The groups of each frame of an HTML page, in the order the page lists them.
    private func frameGroups(_ html: String) throws -> [[String]] {
        let start = try #require(html.range(of: "const frames = "))
        let end = try #require(html.range(of: ";\nconst slider", range: start.upperBound..<html.endIndex))
        let frames = try #require(try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8)) as? [[String: Any]])
        return try frames.map { frame in
            let groups = try #require(frame["groups"] as? [[Any]])
            return groups.compactMap { $0.first as? String }
        }
    }

    @Test("the HTML page lists the groups in the replay's order (the terminal's), not by name; a distance never wraps, a name does")
    func groupOrder() throws {
        var places = try PlaceSet.load(fixture("CityCycleRideLocations.plist"))
        places.merge(try PlaceSet.load(fixture("lecture-theatres.json")))
        var configuration = ReplayConfiguration()
        configuration.groups = ["liverpool", "lecture-theatres"]
        var replay = try Replay(trace: try TraceReader.read(path("traces/lime-street-to-campus.gpx")), places: places, configuration: configuration)
        var told = RunReport(trace: replay.trace, groups: replay.groups)
        var found = RunReport(trace: replay.trace)
        let names = Dictionary(replay.places.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        while let event = replay.next() {
            told.record(event, names: names, history: true)
            found.record(event, names: names, history: true)
        }
        // Told the order, or finding it in the events, the report keeps the replay's.
        #expect(told.groups == ["liverpool", "lecture-theatres"] && found.groups == told.groups)
        let html = RunMap(report: told, places: replay.places, distanceFilter: 25).html()
        let frames = try frameGroups(html)
        #expect(frames.count == told.delivered.count)
        #expect(frames.allSatisfy { $0 == ["liverpool", "lecture-theatres"] })
        #expect(try frameGroups(RunMap(report: found, places: replay.places, distanceFilter: 25).html()) == frames)
        #expect(html.contains("white-space: nowrap") && html.contains("td.n { overflow-wrap: anywhere; }") && html.contains("n.className = \"n\""))
    }

    @Test("every pin's tooltip names its place and gives its id; an unnamed OpenStreetMap place is labelled by its kind")
    func tooltips() throws {
        let start = try Coordinate(latitude: 43.7384, longitude: 7.4246)
        let trace = Trace(format: .gpx, name: "here", tracks: [Track(segments: [Segment(fixes: [Fix(coordinate: start, time: 0)])])])
        let places = [Place(id: "node/1712696781", name: "cafe", subtitle: "amenity=cafe",
                            coordinate: Coordinate(computedLatitude: 43.7390, longitude: 7.4250), group: "cafe"),
                      Place(id: "Leaf", name: "Leaf", coordinate: Coordinate(computedLatitude: 43.7380, longitude: 7.4240), group: "cafe")]
        let svg = RunMap(report: RunReport(trace: trace), places: places, distanceFilter: 25).svgElement()
        #expect(svg.contains("<g class=\"pin\" data-id=\"node/1712696781\"><title>cafe (node/1712696781)</title>"))
        #expect(svg.contains("<g class=\"pin\" data-id=\"Leaf\"><title>Leaf</title>"))
        #expect(svg.contains(">cafe</text>") && !svg.contains("node 1712696781"))
    }

    /// A walk across the middle of Monaco, dense pins around it, and streets inside, across and outside the map.
    static func map() throws -> (RunMap, [MapStreet]) {
        let start = try Coordinate(latitude: 43.7384, longitude: 7.4246), end = try Coordinate(latitude: 43.7311, longitude: 7.4197)
        let fixes = (0...20).map { k in
            let t = Double(k) / 20
            return Fix(coordinate: Coordinate(computedLatitude: start.latitude + (end.latitude - start.latitude) * t,
                                              longitude: start.longitude + (end.longitude - start.longitude) * t),
                       time: Double(k) * 30)
        }
        let trace = Trace(format: .gpx, name: "across", tracks: [Track(segments: [Segment(fixes: fixes)])])
        var random = Lehmer(state: 3)
        let places = (0..<300).map { k in
            Place(id: "p\(k)", name: k % 3 == 0 ? "Restaurant number \(k)" : "Café \(k)",
                  coordinate: Coordinate(computedLatitude: 43.731 + random.next() * 0.0075, longitude: 7.4195 + random.next() * 0.0052),
                  group: "cafes")
        }
        var report = RunReport(trace: trace)
        report.selected = "p7"
        let map = RunMap(report: report, places: places, distanceFilter: 25)
        let b = map.visibleBounds
        let across = MapStreet(kind: .street, coordinates: [Coordinate(computedLatitude: (b.south + b.north) / 2, longitude: b.west - 0.05),
                                                            Coordinate(computedLatitude: (b.south + b.north) / 2, longitude: b.east + 0.05)])
        let inside = MapStreet(kind: .path, coordinates: [start, end])
        let steps = MapStreet(kind: .steps, coordinates: [start, Coordinate(computedLatitude: start.latitude + 0.0002, longitude: start.longitude)])
        let outside = MapStreet(kind: .path, coordinates: [Coordinate(computedLatitude: b.north + 0.01, longitude: b.west),
                                                           Coordinate(computedLatitude: b.north + 0.02, longitude: b.east)])
        return (map, [across, inside, steps, outside])
    }

    @Test("a run's map: streets only within its frame, drawn under the walk, each kind styled; labels disjoint, the selected one placed")
    func runMap() throws {
        var (map, streets) = try Self.map()
        map.drawStreets(streets)
        let all = map.streetLines.values.flatMap { $0 }
        #expect(all.count == 3)
        #expect(all.allSatisfy { $0.allSatisfy { map.frame.contains($0) } })
        let across = try #require(map.streetLines[.street]?.first)
        #expect(across.first?.x == 0 && across.last?.x == map.width)
        let svg = map.svgElement()
        let streetsAt = try #require(svg.range(of: "<g id=\"streets\"")), traceAt = try #require(svg.range(of: "class=\"trace\""))
        #expect(streetsAt.lowerBound < traceAt.lowerBound)
        for kind in ["street", "path", "steps"] { #expect(svg.contains("<path class=\"\(kind)\"")) }
        #expect(svg.contains("stroke-dasharray=\"4 2\""))
        let placed = map.labelBoxes.compactMap { $0 }
        #expect(placed.count > 10 && placed.count < map.places.count)
        #expect(pairwiseDisjoint(placed))
        let pins = map.places.map { place -> MapRect in
            let p = map.screen(place.coordinate), r = place.id == "p7" ? 8.0 : 5.0
            return MapRect(x: p.x - r, y: p.y - r, width: 2 * r, height: 2 * r)
        }
        let covering = map.labelBoxes.indices.filter { k in
            map.labelBoxes[k].map { box in pins.indices.contains { $0 != k && pins[$0].intersects(box) } } ?? false
        }
        #expect(covering.isEmpty, "labels covering pins: \(covering.map { map.places[$0].name })")
        #expect(svg.components(separatedBy: "<text class=\"label\"").count - 1 == placed.count)
        let selected = try #require(map.places.firstIndex { $0.id == "p7" })
        #expect(map.labelBoxes[selected] != nil)
        // Without streets the map has no street layer.
        let (plain, _) = try Self.map()
        #expect(!plain.svgElement().contains("id=\"streets\""))
    }
}
