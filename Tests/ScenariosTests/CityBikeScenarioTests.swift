import Foundation
import Geodesy
import Map
import Proximity
import Testing
import TestSupport
@testable import Scenarios

@Suite("CityBike stations and lecture theatres, clustered, zooming from the city to a street")
struct CityBikeScenarioTests {
    /// The Guild of Students' docking station, where the zoom ends.
    let guild = try! Coordinate(latitude: 53.4052, longitude: -2.9663)

    func app() throws -> CityBikeMapApp {
        try CityBikeMapApp(stations: try PlaceSet.load(path("Fixtures/liverpool/citybike-stations-2014.json")),
                           theatres: try PlaceSet.load(path("Fixtures/lecture-theatres.json")))
    }

    @Test("every zoom step draws each place in the region once, on its own or in a cluster of its own group; clusters split as the map zooms in")
    func zoomIn() throws {
        var app = try app()
        #expect(app.places.filter { $0.group == "citybike-stations-2014" }.count == 64)
        var previous: [String: Set<String>] = [:]
        var clustersPerStep: [Int] = []
        for span in CityBikeMapApp.spans() {
            _ = app.show(span: span, around: guild)
            let map = app.map
            let region = try #require(map.region)
            var drawn: [String: Int] = [:]
            for id in map.visible { drawn[id, default: 0] += 1 }
            var current: [String: Set<String>] = [:]
            for c in map.clusters {
                let members = try #require(map.members(ofCluster: c.id))
                #expect(members.count == c.count && c.count >= 2)
                // One group per cluster: stations never join theatres.
                #expect(Set(members.compactMap { id in app.places.first { $0.id == id }?.group }) == [c.clusteringIdentifier])
                for m in members { drawn[m, default: 0] += 1 }
                current[c.id] = Set(members)
                // An id seen at the zoom before names the same pins, or the cluster grew from them.
                if let before = previous[c.id] { #expect(before.isSubset(of: Set(members)), "\(c.id) at \(span) m") }
                #expect(c.expansionZoom > (map.clusterZoom ?? 0))
            }
            #expect(drawn.values.allSatisfy { $0 == 1 }, "a place drawn twice at \(span) m")
            if map.clusters.isEmpty {
                #expect(Set(map.visible) == Set(app.places.filter { region.contains($0.coordinate) }.map(\.id)), "at \(span) m")
            }
            clustersPerStep.append(map.clusters.count)
            previous = current
        }
        // The whole city: the stations in a handful of clusters. One street: every pin on its own.
        let first = try #require(clustersPerStep.first), last = try #require(clustersPerStep.last)
        #expect(first >= 2 && last == 0)
        #expect(app.map.visible.contains { $0.hasPrefix("citybike-stations-2014-") })
    }

    @Test("selecting a station hidden in a cluster draws it on its own; a lecture theatre cluster is untouched")
    func selectStation() throws {
        var app = try app()
        _ = app.show(span: 3000, around: guild)
        let stationCluster = try #require(app.map.clusters.first { $0.clusteringIdentifier == "citybike-stations-2014" && $0.count >= 3 })
        let member = try #require(app.map.members(ofCluster: stationCluster.id)?.first)
        let theatreClusters = app.map.clusters.filter { $0.clusteringIdentifier == "lecture-theatres" }
        _ = try app.select(member).get()
        #expect(app.map.visible.contains(member))
        #expect(app.map.clusters.first { $0.id == stationCluster.id }?.count == stationCluster.count - 1)
        #expect(app.map.clusters.filter { $0.clusteringIdentifier == "lecture-theatres" } == theatreClusters)
    }
}
