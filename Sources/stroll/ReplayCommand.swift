import ArgumentParser
import Foundation
import Geodesy
import LocationSimulation
import Map
import Proximity
import Traces

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a walk as CoreLocation would deliver it, and re-sort places on every update.",
        discussion: """
        The trace's recorded fixes keep their times; fixes are interpolated between them \
        along the geodesic at --rate; a fix is delivered when it is --distance-filter metres \
        or more from the last delivered one (the first always is). On every delivered fix \
        each group of places is re-sorted by exact WGS84 geodesic distance (millimetres, \
        then name, then id) and the map region, visible pins and selection are updated.

        Without a trace, the bundled walk from Lime Street station to the campus is \
        replayed; without --places, the CoffeeShop13 coffee houses and the University \
        lecture theatres are used (groups liverpool and lecture-theatres).

        Examples:
          stroll replay traces/campus-loop.gpx
          stroll replay walk.csv --places cafes.json --format jsonl
          stroll replay --realtime --speed 60
          stroll replay traces/pier-head-to-guild.gpx --record golden.json
          stroll replay traces/pier-head-to-guild.gpx --verify golden.json
        """
    )

    @Argument(help: "GPX or CSV trace (default: the bundled Lime Street to campus walk).")
    var trace: String?

    @Option(name: .customLong("places"), help: ArgumentHelp("Places: the CoffeeShop13 .plist, .json or .csv; repeatable.", valueName: "FILE"))
    var places: [String] = []

    @Option(name: .customLong("group"), help: ArgumentHelp("Only this group of places; repeatable.", valueName: "NAME"))
    var groups: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Desired accuracy in metres (CoreLocation's -2, -1, 10, 100, 1000, 3000).", valueName: "METRES"))
    var accuracy: Double = 10

    @Option(name: .customLong("distance-filter"), help: ArgumentHelp("Metres between delivered fixes; \"none\" delivers every fix.", valueName: "M"))
    var distanceFilter: String = "25"

    @Option(help: ArgumentHelp("Replay speed multiplier with --realtime.", valueName: "X"))
    var speed: Double = 1

    @Flag(help: "Pace events on the wall clock (default: virtual time, instant).")
    var realtime = false

    @Option(name: .customLong("walking-speed"), help: ArgumentHelp("Walking speed for traces without times.", valueName: "M/S"))
    var walkingSpeed: Double = 1.4

    @Option(help: ArgumentHelp("Start time of a trace without times.", valueName: "ISO8601"))
    var start: String = "2001-01-01T00:00:00Z"

    @Option(help: ArgumentHelp("Interpolation rate between recorded fixes; 0 for none.", valueName: "HZ"))
    var rate: Double = 1

    @Option(help: ArgumentHelp("Sensor noise: none or gaussian.", valueName: "none|gaussian"))
    var noise: String = "none"

    @Option(help: ArgumentHelp("Seed for the noise, so that runs repeat exactly.", valueName: "N"))
    var seed: UInt64 = 0

    @Option(help: ArgumentHelp("GeoJSON regions to monitor: Point features with radius, Polygon features, each with id.", valueName: "FILE"))
    var regions: String?

    @Option(name: .customLong("region-span"), help: ArgumentHelp("Map region size in metres.", valueName: "METRES"))
    var regionSpan: Double = 1000

    @Flag(help: "The map region follows every delivered fix (default: it stays where it started).")
    var follow = false

    @Option(help: ArgumentHelp("Select this place's pin (id, or name within the active groups) at the first ranking that lists it.", valueName: "ID|NAME"))
    var select: String?

    @Option(help: ArgumentHelp("Remember and restore the selection and sort mode in this JSON file.", valueName: "FILE"))
    var state: String?

    @Option(help: ArgumentHelp("Sort the list by distance (default) or by name; remembered with --state.", valueName: "distance|name"))
    var sort: SortMode?

    @Option(help: ArgumentHelp("Only places within this many metres are listed; others leave (deleted) and come back (inserted).", valueName: "METRES"))
    var within: Double?

    @Option(help: ArgumentHelp("table (default) or jsonl: one JSON object per event.", valueName: "table|jsonl"))
    var format: String = "table"

    @Option(help: ArgumentHelp("Write the run as GeoJSON.", valueName: "FILE"))
    var geojson: String?

    @Option(help: ArgumentHelp("Write the delivered fixes as GPX.", valueName: "FILE"))
    var gpx: String?

    @Option(help: ArgumentHelp("Write an SVG map of the run: trace, fixes with filter circles, pins, nearest changes.", valueName: "FILE"))
    var svg: String?

    @Option(help: ArgumentHelp("Write one self-contained HTML page: the map and a time slider that replays the ranking.", valueName: "FILE"))
    var html: String?

    @Option(help: ArgumentHelp("Write a golden timeline of the order changes.", valueName: "FILE"))
    var record: String?

    @Option(help: ArgumentHelp("Check the order changes against a golden timeline; exit 1 at the first difference.", valueName: "FILE"))
    var verify: String?

    @OptionGroup var logging: VerboseOption

    func validate() throws {
        guard ["table", "jsonl"].contains(format) else { throw ValidationError("--format must be table or jsonl, not \(format)") }
        guard ["none", "gaussian"].contains(noise) else { throw ValidationError("--noise must be none or gaussian, not \(noise)") }
        guard distanceFilter == "none" || Double(distanceFilter) != nil else { throw ValidationError("--distance-filter takes metres or \"none\", not \(distanceFilter)") }
        guard ISO8601Time.parse(start) != nil else { throw ValidationError("--start \(start) is not an ISO 8601 date-time") }
        guard rate >= 0, rate.isFinite else { throw ValidationError("--rate must be 0 or more") }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be more than 0") }
        guard walkingSpeed > 0, walkingSpeed.isFinite else { throw ValidationError("--walking-speed must be more than 0") }
        guard regionSpan > 0, regionSpan.isFinite else { throw ValidationError("--region-span must be more than 0 metres") }
        if let within { guard within >= 0, within.isFinite else { throw ValidationError("--within must be 0 metres or more") } }
    }

    func run() async throws {
        var session = try ReplaySession(command: self)
        try await session.run()
    }

    var settings: LocationSettings {
        var s = LocationSettings()
        s.desiredAccuracy = accuracy
        s.distanceFilter = distanceFilter == "none" ? distanceFilterNone : (Double(distanceFilter) ?? 25)
        return s
    }

    var replayOptions: ReplayOptions {
        var r = ReplayOptions()
        r.walkingSpeed = walkingSpeed
        r.startTime = ISO8601Time.parse(start)?.seconds ?? r.startTime
        r.rate = rate
        return r
    }

    var sensorOptions: SensorOptions {
        SensorOptions(noise: noise == "gaussian" ? .gaussian : .none, seed: seed)
    }
}

extension SortMode: ExpressibleByArgument {}
