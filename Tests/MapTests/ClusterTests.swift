import Foundation
import Geodesy
import Testing
import TestSupport
@testable import Map

/// The supercluster algorithm written the slow, obvious way (every pair
/// compared, no index), to check the tree's grid-based neighbour search.
private func naiveLevels(_ coordinates: [Coordinate], settings: ClusterSettings) -> [[(x: Double, y: Double, count: Int)]] {
    var items = coordinates.map { (x: $0.longitude / 360 + 0.5, y: 0.5 - 0.25 * log((1 + sin($0.latitude * .pi / 180)) / (1 - sin($0.latitude * .pi / 180))) / .pi, count: 1) }
    var levels = [items]
    for zoom in stride(from: settings.maxZoom, through: settings.minZoom, by: -1) {
        let r = settings.radius / (settings.tileSize * pow(2, Double(zoom)))
        var taken = [Bool](repeating: false, count: items.count)
        var next: [(x: Double, y: Double, count: Int)] = []
        for i in items.indices where !taken[i] {
            taken[i] = true
            var wx = items[i].x * Double(items[i].count), wy = items[i].y * Double(items[i].count), n = items[i].count
            for j in items.indices where !taken[j] {
                let dx = items[j].x - items[i].x, dy = items[j].y - items[i].y
                if dx * dx + dy * dy <= r * r {
                    taken[j] = true
                    wx += items[j].x * Double(items[j].count)
                    wy += items[j].y * Double(items[j].count)
                    n += items[j].count
                }
            }
            next.append(n == items[i].count ? items[i] : (wx / Double(n), wy / Double(n), n))
        }
        items = next
        levels.append(items)
    }
    return levels.reversed()
}

private func clustered(_ id: String, _ lat: Double, _ lon: Double, _ identifier: String? = "bikes") -> Annotation {
    Annotation(id: id, coordinate: try! Coordinate(latitude: lat, longitude: lon), title: id, clusteringIdentifier: identifier)
}

@Suite("Map clustering")
struct ClusterTests {
    @Test("the tree's levels equal the algorithm done by comparing every pair, at every zoom")
    func treeMatchesNaive() throws {
        var rng = SplitMix64(seed: 11)
        // Dense in the centre, sparse around it: clusters form at many zooms.
        let coordinates = (0..<1500).map { k in
            let spread = k % 3 == 0 ? 0.3 : 0.02
            return Coordinate(computedLatitude: 53.4 + rng.uniform(-spread, spread), longitude: -2.97 + rng.uniform(-spread, spread) * 1.6)
        }
        let settings = ClusterSettings(radius: 40, tileSize: 256, minZoom: 0, maxZoom: 16)
        let tree = ClusterTree(coordinates: coordinates, pins: Array(coordinates.indices), settings: settings)
        let naive = naiveLevels(coordinates, settings: settings)
        #expect(tree.levels.count == naive.count)
        for (l, expected) in naive.enumerated() {
            let level = tree.levels[l]
            #expect(level.itemCount == expected.count, "zoom \(l)")
            guard level.itemCount == expected.count else { continue }
            for (i, e) in expected.enumerated() {
                #expect(Int(level.count[i]) == e.count && abs(level.x[i] - e.x) < 1e-12 && abs(level.y[i] - e.y) < 1e-12, "zoom \(l) item \(i)")
            }
            // Every pin is in exactly one item, and an item's members are as many as its count.
            var seen = [Int](repeating: 0, count: coordinates.count)
            for i in 0..<level.itemCount {
                let members = tree.memberPins(level: l, item: i)
                #expect(members.count == Int(level.count[i]))
                for m in members { seen[m] += 1 }
            }
            #expect(seen.allSatisfy { $0 == 1 }, "zoom \(l)")
        }
        // More clusters as the map zooms in.
        #expect(tree.levels.first!.itemCount < tree.levels[12].itemCount && tree.levels[12].itemCount < tree.levels.last!.itemCount)
    }

    @Test("clustered pans and zooms: the deltas, applied, give what is drawn; across the antimeridian too")
    func deltas() throws {
        var rng = SplitMix64(seed: 12)
        var pins: [Annotation] = []
        for k in 0..<6000 {
            let identifier: String? = k % 7 == 0 ? nil : (k % 2 == 0 ? "cafes" : "bikes")
            if k % 5 == 0 {
                let lon = 180 + rng.uniform(-0.5, 0.5)
                pins.append(clustered("p\(k)", rng.uniform(-0.3, 0.3), lon > 180 ? lon - 360 : lon, identifier))
            } else {
                pins.append(clustered("p\(k)", 53.4 + rng.uniform(-0.03, 0.03), -2.97 + rng.uniform(-0.05, 0.05), identifier))
            }
        }
        var map = MapModel()
        map.indexThreshold = 50
        _ = map.add(pins)
        _ = try map.setClustering(ClusterSettings()).get()
        var drawnPins = Set<Int>()
        var drawnClusters = Set<String>()
        var delta = VisibleDelta()
        var centre = try Coordinate(latitude: 53.4, longitude: -2.97)
        for step in 0..<200 {
            if step % 50 == 25 {
                centre = try Coordinate(latitude: rng.uniform(-0.2, 0.2), longitude: rng.uniform(0, 1) < 0.5 ? 179.95 : -179.95)
            } else if step % 50 == 0 {
                centre = try Coordinate(latitude: 53.4, longitude: -2.97)
            } else {
                centre = try Coordinate(latitude: centre.latitude + rng.uniform(-0.002, 0.002), longitude: max(-180, min(180, centre.longitude + rng.uniform(-0.003, 0.003))))
            }
            let span = [500.0, 1000, 1000, 4000, 20_000, 250][step % 6]
            map.setRegion(MapRegion(center: centre, latitudinalMeters: span, longitudinalMeters: span), delta: &delta)
            for i in delta.removed { #expect(drawnPins.remove(i) != nil, "step \(step): removed a pin not drawn") }
            for ref in delta.clustersRemoved { #expect(drawnClusters.remove(map.cluster(ref).id) != nil, "step \(step): removed a cluster not drawn") }
            for i in delta.added { #expect(drawnPins.insert(i).inserted, "step \(step): added a pin drawn already") }
            for ref in delta.clustersAdded { #expect(drawnClusters.insert(map.cluster(ref).id).inserted, "step \(step): added a cluster drawn already") }
            // What the model draws, asked once a step (each of these computes the display).
            let visible = Set(map.visible)
            let clusters = map.clusters
            #expect(Set(drawnPins.map { map.annotations[$0].id }) == visible, "step \(step)")
            #expect(drawnClusters == Set(clusters.map(\.id)), "step \(step)")
            // What is drawn covers every pin in the region exactly once, through clusters or on its own
            // (a cluster's members may lie outside: it is drawn where its centre is).
            let region = try #require(map.region)
            var covered = visible
            for c in clusters {
                #expect(region.contains(c.coordinate))
                for m in map.members(ofCluster: c.id) ?? [] { #expect(covered.insert(m).inserted, "step \(step): \(m) twice") }
            }
            for p in pins where region.contains(p.coordinate) && p.clusteringIdentifier == nil { #expect(visible.contains(p.id), "step \(step): \(p.id) in the region, not drawn") }
        }
    }

    @Test("cluster ids stay the same across pans and zoom levels a cluster lives through; expansionZoom splits it")
    func stableIDs() throws {
        let stations = try Self.stations()
        var map = MapModel()
        _ = map.add(stations)
        _ = try map.setClustering(ClusterSettings(radius: 40, mapWidth: 390)).get()
        let centre = try Coordinate(latitude: 53.4045, longitude: -2.9800)
        _ = map.setRegion(MapRegion(center: centre, latitudinalMeters: 6000, longitudinalMeters: 6000))
        let before = Dictionary(uniqueKeysWithValues: map.clusters.map { ($0.id, map.members(ofCluster: $0.id) ?? []) })
        #expect(!before.isEmpty)
        // A pan of 200 m east: clusters still drawn keep their ids and members.
        _ = map.setRegion(MapRegion(center: try Coordinate(latitude: centre.latitude, longitude: centre.longitude + 0.003), latitudinalMeters: 6000, longitudinalMeters: 6000))
        for c in map.clusters where before[c.id] != nil { #expect(map.members(ofCluster: c.id) == before[c.id]) }
        #expect(Set(map.clusters.map(\.id)).intersection(before.keys).count >= before.count / 2)
        // Zoomed to a cluster's expansion zoom around its centre, it is gone: split into its parts.
        let biggest = try #require(map.clusters.max { $0.count < $1.count })
        let members = Set(map.members(ofCluster: biggest.id) ?? [])
        let width = 390 * 360 / (256 * pow(2, Double(biggest.expansionZoom)))
        _ = map.setRegion(MapRegion(center: biggest.coordinate, latitudeDelta: width / 2, longitudeDelta: width * 0.999))
        #expect(map.clusterZoom == biggest.expansionZoom)
        #expect(!map.clusters.contains { $0.id == biggest.id })
        let parts = map.clusters.filter { !Set(map.members(ofCluster: $0.id) ?? []).isDisjoint(with: members) }
        #expect(parts.allSatisfy { Set(map.members(ofCluster: $0.id) ?? []).isSubset(of: members) })
    }

    @Test("the selected pin is drawn on its own, never inside a cluster; its cluster is drawn without it")
    func selectedStaysOut() throws {
        var map = MapModel()
        _ = map.add([clustered("a", 53.4000, -2.9700), clustered("b", 53.4001, -2.9701), clustered("c", 53.4002, -2.9699),
                     clustered("plain", 53.4001, -2.9700, nil)])
        _ = try map.setClustering(ClusterSettings()).get()
        _ = map.setRegion(MapRegion(center: try Coordinate(latitude: 53.4001, longitude: -2.97), latitudinalMeters: 5000, longitudinalMeters: 5000))
        #expect(map.visible == ["plain"])
        let cluster = try #require(map.clusters.first)
        #expect(cluster.count == 3 && map.members(ofCluster: cluster.id) == ["a", "b", "c"])
        let changes = try map.select("b").get()
        #expect(changes.first == .selected("b"))
        #expect(map.visible == ["b", "plain"])
        #expect(map.clusters.map(\.count) == [2] && map.clusters.first?.id == cluster.id)
        #expect(map.members(ofCluster: cluster.id) == ["a", "c"])
        #expect(changes.contains(.visibleChanged(visible: ["b", "plain"], added: ["b"], removed: [])))
        // Two left: selecting another leaves one, drawn as a pin.
        _ = map.remove(["c"])
        #expect(map.visible == ["a", "b", "plain"] && map.clusters.isEmpty)
        // A cluster can be selected itself; when it is no longer drawn it is deselected.
        _ = map.deselect()
        let pair = try #require(map.clusters.first)
        _ = try map.select(pair.id).get()
        #expect(map.selected == pair.id)
        let zoomedIn = map.setRegion(MapRegion(center: try Coordinate(latitude: 53.4001, longitude: -2.97), latitudinalMeters: 50, longitudinalMeters: 50))
        #expect(zoomedIn.contains(.deselected(pair.id)) && map.selected == nil)
    }

    @Test("a hundred thousand pins at one coordinate are one cluster, built in one pass per level")
    func sameCoordinate() throws {
        let c = try Coordinate(latitude: 53.4, longitude: -2.97)
        let pins = (0..<100_000).map { Annotation(id: "p\($0)", coordinate: c, title: "", clusteringIdentifier: "all") }
        var map = MapModel()
        _ = map.add(pins)
        _ = try map.setClustering(ClusterSettings()).get()
        _ = map.setRegion(MapRegion(center: c, latitudinalMeters: 1000, longitudinalMeters: 1000))
        #expect(map.clusters.count == 1 && map.clusters.first?.count == 100_000 && map.visible.isEmpty)
        let tree = ClusterTree(coordinates: pins.map(\.coordinate), pins: Array(pins.indices), settings: ClusterSettings())
        #expect(tree.candidatesExamined <= 100_000 + 17)
        let centre = try #require(map.clusters.first?.coordinate)
        #expect(map.clusters.first?.zoom == 16 && abs(centre.latitude - c.latitude) < 1e-9 && abs(centre.longitude - c.longitude) < 1e-9)
    }

    @Test("nonsense cluster settings are an error value, and the map stays as it was")
    func badSettings() throws {
        var map = MapModel()
        _ = map.add([clustered("ok", 53.4, -2.97)])
        for settings in [ClusterSettings(radius: 0), ClusterSettings(mapWidth: -1), ClusterSettings(radius: .nan), ClusterSettings(minZoom: 5, maxZoom: 2), ClusterSettings(maxZoom: 40)] {
            guard case .failure(let error) = map.setClustering(settings) else {
                Issue.record("\(settings) was accepted")
                continue
            }
            #expect(error.description.contains("radius"))
        }
        #expect(map.clustering == nil)
    }

    /// The 64 Liverpool CityBike stations as clustered pins.
    static func stations() throws -> [Annotation] {
        struct Station: Decodable { var name: String; var latitude: Double; var longitude: Double }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/liverpool/citybike-stations-2014.json")
        let stations = try JSONDecoder().decode([Station].self, from: Data(contentsOf: url))
        return try stations.enumerated().map { k, s in
            Annotation(id: "station-\(k + 1)", coordinate: try Coordinate(latitude: s.latitude, longitude: s.longitude), title: s.name, clusteringIdentifier: "bikes")
        }
    }
}

/// Run by `make test-large` (release), in a process of its own: the large-file
/// tests measure their process's peak memory, which this must not raise.
@Suite("A million clustered pins", .enabled(if: ProcessInfo.processInfo.environment["STROLL_LARGE"] == "1"))
struct MillionPinsClusterTests {
    @Test("a million pins at one coordinate cluster into one, looking at each pin about once")
    func millionAtOnePoint() throws {
        let c = try Coordinate(latitude: 53.4, longitude: -2.97)
        let coordinates = [Coordinate](repeating: c, count: 1_000_000)
        let tree = ClusterTree(coordinates: coordinates, pins: Array(coordinates.indices), settings: ClusterSettings())
        // Quadratic work would be 10^12 candidates; the first pin takes in every other at once.
        #expect(tree.candidatesExamined <= 1_000_000 + 17, "\(tree.candidatesExamined) candidates")
        #expect(tree.levels[16].itemCount == 1 && tree.levels[16].count[0] == 1_000_000 && tree.levels[0].itemCount == 1)
        #expect(tree.memberPins(level: 0, item: 0).count == 1_000_000)
    }
}
