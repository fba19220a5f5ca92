import Foundation
import Geodesy
import Streets
import Testing
import TestSupport
import Traces

/// A hand-made extract whose shortest paths are known: a block of six nodes
/// (1 2 3 along the bottom, 4 5 6 along the top, node 4 set a little west),
/// a middle way closed to pedestrians, two private ways (one opened by
/// `foot=yes`), steps up to node 7 beside a longer path, and an island.
enum Block {
    static let nodes: [(Int64, Double, Double)] = [
        (1, 50.000, 8.000), (2, 50.000, 8.001), (3, 50.000, 8.002),
        (4, 50.001, 7.9995), (5, 50.001, 8.001), (6, 50.001, 8.002),
        (7, 50.003, 8.001), (8, 50.010, 8.010), (9, 50.010, 8.011),
    ]
    static let ways: [(Int64, [Int64], [(String, String)])] = [
        (10, [1, 2, 3], [("highway", "footway")]),
        (11, [4, 5, 6], [("highway", "residential"), ("name", "High Street")]),
        (12, [1, 4], [("highway", "footway")]),
        (13, [3, 6], [("highway", "footway")]),
        (14, [2, 5], [("highway", "footway"), ("foot", "no")]),
        (15, [5, 7], [("highway", "steps")]),
        (16, [4, 7], [("highway", "path")]),
        (17, [2, 6], [("highway", "service"), ("access", "private")]),
        (18, [3, 5], [("highway", "service"), ("access", "private"), ("foot", "yes")]),
        (19, [8, 9], [("highway", "footway")]),
        (20, [1, 9], [("highway", "motorway")]),
    ]

    static func xml(nodes: [(Int64, Double, Double)] = nodes, ways: [(Int64, [Int64], [(String, String)])] = ways) -> String {
        var text = "<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\">\n"
        for (id, lat, lon) in nodes {
            text += id == 3 ? "  <node id=\"3\" lat=\"\(lat)\" lon=\"\(lon)\"><tag k=\"name\" v=\"Fountain\"/></node>\n" : "  <node id=\"\(id)\" lat=\"\(lat)\" lon=\"\(lon)\"/>\n"
        }
        for (id, refs, tags) in ways {
            text += "  <way id=\"\(id)\">" + refs.map { "<nd ref=\"\($0)\"/>" }.joined() + tags.map { "<tag k=\"\($0.0)\" v=\"\($0.1)\"/>" }.joined() + "</way>\n"
        }
        return text + "</osm>\n"
    }

    static func write(_ text: String = xml()) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-streets-\(UUID().uuidString).osm").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func network() throws -> StreetNetwork {
        let path = try write()
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try StreetNetwork.load(path)
    }

    static func at(_ id: Int64) throws -> Coordinate {
        let node = try #require(nodes.first { $0.0 == id })
        return try Coordinate(latitude: node.1, longitude: node.2)
    }

    /// The geodesic length of a path through these nodes.
    static func length(_ path: [Int64]) throws -> Double {
        var total = 0.0
        for k in 1..<path.count { total += Geodesic.wgs84.distance(try at(path[k - 1]), try at(path[k])) }
        return total
    }
}

@Suite struct StreetsTests {
    @Test func theNetworkKeepsTheWalkableWaysSplitAtJunctions() throws {
        let summary = try Block.network().summary
        #expect(summary.ways == 11)
        #expect(summary.walkableWays == 8) // not foot=no, not private, not the motorway
        #expect(summary.nodes == 9)
        #expect(summary.edges == 9) // way 11 splits at node 5
        #expect(summary.stepEdges == 1)
        #expect(summary.missingNodes == 0)
    }

    @Test func theShortestPathAvoidsAWayClosedToPedestrians() throws {
        let route = try Block.network().route(from: try Block.at(1), to: try Block.at(5))
        #expect(route.nodes == [1, 4, 5])
        #expect(abs(route.distance - (try Block.length([1, 4, 5]))) < 1e-9)
        // Through way 14 (foot=no) it would be shorter.
        #expect(try Block.length([1, 2, 5]) < route.distance)
    }

    @Test func privateWaysAreClosedUnlessFootOpensThem() throws {
        let network = try Block.network()
        #expect(try network.route(from: try Block.at(2), to: try Block.at(6)).nodes == [2, 3, 6])
        let opened = try network.route(from: try Block.at(3), to: try Block.at(5))
        #expect(opened.nodes == [3, 5])
        #expect(abs(opened.distance - (try Block.length([3, 5]))) < 1e-9)
    }

    @Test func stepsAreTakenUnlessAvoided() throws {
        let network = try Block.network()
        let steps = try network.route(from: try Block.at(5), to: try Block.at(7))
        #expect(steps.nodes == [5, 7])
        let level = try network.route(from: try Block.at(5), to: try Block.at(7), options: RouteOptions(avoidsSteps: true))
        #expect(level.nodes == [5, 4, 7])
        #expect(abs(level.distance - (try Block.length([5, 4, 7]))) < 1e-9)
    }

    @Test func viaPointsAreVisitedInOrder() throws {
        let route = try Block.network().route(from: try Block.at(1), to: try Block.at(3), via: [try Block.at(5)])
        #expect(route.nodes == [1, 4, 5, 3])
        #expect(abs(route.distance - (try Block.length([1, 4, 5, 3]))) < 1e-9)
        #expect(route.via.map(\.coordinate) == [try Block.at(5)])
    }

    @Test func noPathIsAnError() throws {
        let network = try Block.network()
        let (from, to) = (try Block.at(1), try Block.at(8))
        do {
            _ = try network.route(from: from, to: to)
            Issue.record("a route to an island was found")
        } catch {
            #expect(error.kind == .noRoute)
            #expect(error.description.contains("no walkable path"))
        }
    }

    @Test func aPointFarFromTheNetworkIsAnError() throws {
        let network = try Block.network()
        let (far, near) = (try Coordinate(latitude: 51, longitude: 9), try Block.at(1))
        do {
            _ = try network.route(from: far, to: near)
            Issue.record("a point 130 km away was routed")
        } catch {
            #expect(error.kind == .outsideNetwork)
        }
    }

    @Test func pointsSnapToTheNearestPointOfTheNearestWay() throws {
        let network = try Block.network()
        let asked = try Coordinate(latitude: 49.9995, longitude: 8.0005)
        let snap = try network.snap(asked)
        #expect(abs(snap.coordinate.latitude - 50) < 1e-7)
        #expect(abs(snap.coordinate.longitude - 8.0005) < 1e-7)
        #expect(abs(snap.distance - Geodesic.wgs84.distance(asked, snap.coordinate)) < 1e-9)
        let route = try network.route(from: asked, to: try Block.at(3))
        #expect(route.nodes == [2, 3])
        let expected = Geodesic.wgs84.distance(snap.coordinate, try Block.at(2)) + (try Block.length([2, 3]))
        #expect(abs(route.distance - expected) < 1e-6)
        // Both points on one segment: the route runs along it.
        let near = try network.route(from: asked, to: try Coordinate(latitude: 49.9999, longitude: 8.0008))
        #expect(near.nodes.isEmpty)
        #expect(abs(near.distance - Geodesic.wgs84.distance(near.from.coordinate, near.to.coordinate)) < 1e-6)
    }

    @Test func theRouteIsToldStreetByStreet() throws {
        let route = try Block.network().route(from: try Block.at(1), to: try Block.at(5))
        #expect(route.stretches.map(\.name) == [nil, "High Street"])
        #expect(route.stretches.map(\.range) == [0...1, 1...2])
        #expect(abs(route.stretches.map(\.distance).reduce(0, +) - route.distance) < 1e-9)
    }

    @Test func placesAreFoundByName() throws {
        let network = try Block.network()
        #expect(try network.coordinate(of: "fountain") == (try Block.at(3)))
        #expect(try network.coordinate(of: "High Street") == (try Block.at(5)))
        #expect(try network.coordinate(of: "50.001, 8.002") == (try Block.at(6)))
        #expect(throws: StreetError.self) { try network.coordinate(of: "Nowhere Square") }
    }

    @Test func theWalkIsTimedAtTheSpeedAsked() throws {
        let route = try Block.network().route(from: try Block.at(1), to: try Block.at(6))
        let fixes = try #require(route.trace(speed: 2, start: 1000).tracks.first?.segments.first?.fixes)
        #expect(fixes.map(\.coordinate) == route.coordinates)
        #expect(fixes.first?.time == 1000)
        #expect(abs((fixes.last?.time ?? 0) - (1000 + route.distance / 2)) < 1e-6)
    }

    @Test("a walker stands at each crossing the route passes, not at its ends, not where crossing=no")
    func pausesAtCrossings() throws {
        func network(_ tags: String) throws -> StreetNetwork {
            let text = Block.xml().replacingOccurrences(of: "<node id=\"2\" lat=\"50.0\" lon=\"8.001\"/>",
                                                        with: "<node id=\"2\" lat=\"50.0\" lon=\"8.001\">\(tags)</node>")
            let path = try Block.write(text)
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try StreetNetwork.load(path)
        }
        let crossing = try network("<tag k=\"highway\" v=\"crossing\"/>")
        #expect(crossing.summary.crossings == 1)
        let route = try crossing.route(from: try Block.at(1), to: try Block.at(3))
        #expect(route.nodes == [1, 2, 3])
        #expect(route.crossings == [1])
        let fixes = try #require(route.trace(speed: 2, start: 1000, pauseAtCrossings: 20).tracks.first?.segments.first?.fixes)
        #expect(fixes.map(\.coordinate) == [try Block.at(1), try Block.at(2), try Block.at(2), try Block.at(3)])
        #expect(abs((fixes[2].time ?? 0) - (fixes[1].time ?? 0) - 20) < 1e-9)
        #expect(abs((fixes.last?.time ?? 0) - (1000 + route.distance / 2 + 20)) < 1e-6)
        // Without a pause the walk is as before: one point a node.
        #expect(route.trace(speed: 2, start: 1000).tracks.first?.segments.first?.fixes.count == 3)
        // A route that starts on the crossing does not wait there.
        #expect(try crossing.route(from: try Block.at(2), to: try Block.at(3)).crossings.isEmpty)
        #expect(try network("<tag k=\"highway\" v=\"traffic_signals\"/>").route(from: try Block.at(1), to: try Block.at(3)).crossings == [1])
        #expect(try network("<tag k=\"railway\" v=\"crossing\"/>").summary.crossings == 1)
        #expect(try network("<tag k=\"highway\" v=\"crossing\"/><tag k=\"crossing\" v=\"no\"/>").summary.crossings == 0)
    }

    @Test func anExtractWithoutWalkableWaysIsAnError() throws {
        let path = try Block.write(Block.xml(ways: [(20, [1, 9], [("highway", "motorway")])]))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try StreetNetwork.load(path)
            Issue.record("a network without walkable ways was built")
        } catch {
            #expect(error.kind == .noWalkableWays)
            #expect(error.description.contains(path))
        }
        do {
            _ = try StreetNetwork.load(path + ".missing.osm")
            Issue.record("a missing file was read")
        } catch {
            #expect(error.kind == .unreadable)
        }
    }

    @Test func theRulesFollowTheTags() {
        #expect(WalkingRules.use(["highway": "steps"]) == .steps)
        #expect(WalkingRules.use(["highway": "pedestrian", "area": "yes"]) == .walkway)
        #expect(WalkingRules.use(["highway": "cycleway"]) == .walkway)
        #expect(WalkingRules.use(["highway": "cycleway", "foot": "no"]) == nil)
        #expect(WalkingRules.use(["highway": "motorway"]) == nil)
        #expect(WalkingRules.use(["highway": "residential", "access": "no", "foot": "designated"]) == .walkway)
        #expect(WalkingRules.use(["highway": "track", "access": "private"]) == nil)
        #expect(WalkingRules.use(["building": "yes"]) == nil)
    }
}
