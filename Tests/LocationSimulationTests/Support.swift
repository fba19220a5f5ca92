import Foundation
import TestSupport
import Geodesy
import Traces
@testable import LocationSimulation


let bundledWalks = ["traces/lime-street-to-campus.gpx", "traces/pier-head-to-guild.gpx", "traces/campus-loop.gpx",
                    "traces/bold-street-long-stop.gpx", "traces/lime-street-to-campus.csv", "traces/bold-street-long-stop.csv"]
let realTraces = ["Fixtures/real-traces/togeojson/apple_watch_route.gpx", "Fixtures/real-traces/togeojson/Friday-Evening-Run.gpx",
                  "Fixtures/real-traces/togeojson/osm.gpx", "Fixtures/real-traces/togeojson/wpt.gpx", "Fixtures/real-traces/togeojson/trek.gpx",
                  "Fixtures/real-traces/gpxpy/korita-zbevnica.gpx", "Fixtures/real-traces/trackintel/google_trajectory.csv",
                  "Fixtures/real-traces/trackintel/posmo_trajectory.csv"]

func replay(_ file: String, settings: LocationSettings = LocationSettings(), replay options: ReplayOptions = ReplayOptions(),
            sensor: SensorOptions = SensorOptions(), regions: [MonitoredRegion] = []) throws -> [LocationEvent] {
    let trace = try TraceReader.read(path(file))
    var simulator = try LocationSimulator(trace: trace, settings: settings, replay: options, sensor: sensor, regions: regions)
    return simulator.run()
}

/// A straight synthetic walk: `count` fixes `step` metres apart along `azimuth`, one every `interval` seconds.
func straightWalk(from start: Coordinate, azimuth: Double, step: Double, count: Int, interval: Double, startTime: Double = 1_714_554_000) -> Trace {
    var fixes: [Fix] = []
    for i in 0..<count {
        let c = i == 0 ? start : Geodesic.wgs84.direct(from: start, azimuth: azimuth, distance: step * Double(i)).coordinate
        fixes.append(Fix(coordinate: c, time: startTime + interval * Double(i), line: i + 1))
    }
    return Trace(format: .gpx, tracks: [Track(segments: [Segment(fixes: fixes)])])
}
