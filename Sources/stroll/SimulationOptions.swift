import ArgumentParser
import Foundation
import LocationSimulation
import Map
import Proximity
import Replay
import Traces

/// What `replay`, `serve` and `batch` simulate besides the trace: the places,
/// and the location manager's and the map's settings.
struct SimulationOptions: ParsableArguments {
    @Option(name: .customLong("places"), help: ArgumentHelp("Places: the CoffeeShop13 .plist, .json or .csv; repeatable.", valueName: "FILE"))
    var places: [String] = []

    @Option(name: .customLong("group"), help: ArgumentHelp("Only this group of places; repeatable.", valueName: "NAME"))
    var groups: [String] = []

    /// The options that choose places from OpenStreetMap, GeoPackage and PostGIS sources.
    @OptionGroup var placeChoice: PlaceChoice

    @Option(parsing: .unconditional, help: ArgumentHelp("Desired accuracy in metres (CoreLocation's -2, -1, 10, 100, 1000, 3000).", valueName: "METRES"))
    var accuracy: Double = 10

    @Option(name: .customLong("distance-filter"), help: ArgumentHelp("Metres between delivered fixes; \"none\" delivers every fix.", valueName: "M"))
    var distanceFilter: String = "25"

    @Option(name: .customLong("walking-speed"), help: ArgumentHelp("Walking speed for traces without times.", valueName: "M/S"))
    var walkingSpeed: Double = 1.4

    @Option(help: ArgumentHelp("Start time of a trace without times.", valueName: "ISO8601"))
    var start: String = "2001-01-01T00:00:00Z"

    @Option(help: ArgumentHelp("Interpolation rate between recorded fixes; 0 for none.", valueName: "HZ"))
    var rate: Double = 1

    @Option(help: ArgumentHelp("Sensor noise: none, gaussian (independent per fix) or gauss-markov (correlated in time); default none, or gauss-markov with an environment.", valueName: "none|gaussian|gauss-markov"))
    var noise: String?

    @Option(name: .customLong("noise-tau"), help: ArgumentHelp("gauss-markov noise: the error's correlation time (default 60, or the environment's).", valueName: "SECONDS"))
    var noiseTau: Double?

    @Option(help: ArgumentHelp("The receiver's environment for the whole walk (or outside --environments): accuracy, drift, outages and multipath as docs/Receiver.md says.", valueName: "open-sky|urban|urban-canyon|indoor"))
    var environment: String?

    @Option(help: ArgumentHelp("GeoJSON polygons with an environment property (a preset or tunnel): the environment of each stretch of the walk.", valueName: "FILE"))
    var environments: String?

    @Option(name: .customLong("warm-up"), help: ArgumentHelp("Coarse first fixes after starting and after an outage, as iOS gives them (default: ios with an environment, else none).", valueName: "none|ios"))
    var warmUp: String?

    @Flag(name: .customLong("debug-truth"), help: "location events carry the error applied, errorEast and errorNorth in metres.")
    var debugTruth = false

    @Option(help: ArgumentHelp("Seed for the noise, so that runs repeat exactly.", valueName: "N"))
    var seed: UInt64 = 0

    @Option(help: ArgumentHelp("GeoJSON regions to monitor: Point features with radius, Polygon features, each with id.", valueName: "FILE"))
    var regions: String?

    @Option(name: .customLong("region-span"), help: ArgumentHelp("Map region size in metres.", valueName: "METRES"))
    var regionSpan: Double = 1000

    @Flag(help: "The map region follows every delivered fix (default: it stays where it started).")
    var follow = false

    @Flag(help: "Draw nearby pins of one group as a cluster, as MapKit does with a clustering identifier: map events gain zoom and clusters.")
    var cluster = false

    @Option(name: .customLong("map-width"), help: ArgumentHelp("The map view's width in points, for the zoom level and the cluster radius.", valueName: "POINTS"))
    var mapWidth: Double = 390

    @Option(name: .customLong("cluster-radius"), help: ArgumentHelp("Pins closer than this many points on screen join a cluster.", valueName: "POINTS"))
    var clusterRadius: Double = 40

    @Option(help: ArgumentHelp("Select this place's pin (id, or name within the active groups) at the first ranking that lists it.", valueName: "ID|NAME"))
    var select: String?

    @Option(help: ArgumentHelp("Sort the list by distance (default) or by name; remembered with --state.", valueName: "distance|name"))
    var sort: SortMode?

    @Option(help: ArgumentHelp("Only places within this many metres are listed; others leave (deleted) and come back (inserted).", valueName: "METRES"))
    var within: Double?

    func validate() throws {
        if let noise, SensorOptions.Noise(rawValue: noise) == nil { throw ValidationError("--noise must be none, gaussian or gauss-markov, not \(noise)") }
        if let environment, !Environment.presets.contains(where: { $0.rawValue == environment }) {
            throw ValidationError("--environment must be \(Environment.presets.map(\.rawValue).joined(separator: ", ")), not \(environment)")
        }
        if let warmUp, WarmUp(rawValue: warmUp) == nil { throw ValidationError("--warm-up must be none or ios, not \(warmUp)") }
        if let noiseTau {
            guard effectiveNoise == .gaussMarkov else { throw ValidationError("--noise-tau applies to --noise gauss-markov only") }
            guard noiseTau > 0, noiseTau.isFinite else { throw ValidationError("--noise-tau must be more than 0 seconds") }
        }
        guard distanceFilter == "none" || Double(distanceFilter) != nil else { throw ValidationError("--distance-filter takes metres or \"none\", not \(distanceFilter)") }
        if let metres = Double(distanceFilter) {
            guard metres >= 0, metres.isFinite else { throw ValidationError("--distance-filter must be 0 metres or more, or \"none\", not \(distanceFilter)") }
        }
        guard ISO8601Time.parse(start) != nil else { throw ValidationError("--start \(start) is not an ISO 8601 date-time") }
        guard rate >= 0, rate.isFinite else { throw ValidationError("--rate must be 0 or more") }
        guard walkingSpeed > 0, walkingSpeed.isFinite else { throw ValidationError("--walking-speed must be more than 0") }
        guard regionSpan > 0, regionSpan.isFinite else { throw ValidationError("--region-span must be more than 0 metres") }
        guard mapWidth > 0, mapWidth.isFinite, mapWidth <= 100_000 else { throw ValidationError("--map-width must be more than 0 and at most 100000 points") }
        guard clusterRadius > 0, clusterRadius.isFinite else { throw ValidationError("--cluster-radius must be more than 0 points") }
        if let within { guard within >= 0, within.isFinite else { throw ValidationError("--within must be 0 metres or more") } }
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

    /// Whether an environment option was given.
    var hasEnvironment: Bool { environment != nil || environments != nil }

    /// `--noise`, else gauss-markov with an environment, else none.
    var effectiveNoise: SensorOptions.Noise {
        noise.flatMap(SensorOptions.Noise.init(rawValue:)) ?? (hasEnvironment ? .gaussMarkov : .none)
    }

    /// The sensor for these options, with the areas of `--environments` once read.
    func sensorOptions(environments areas: [EnvironmentArea]) -> SensorOptions {
        SensorOptions(noise: effectiveNoise, seed: seed, tau: noiseTau, debugTruth: debugTruth,
                      environment: environment.flatMap(Environment.init(rawValue:)), environments: areas,
                      warmUp: warmUp.flatMap(WarmUp.init(rawValue:)) ?? (hasEnvironment ? .ios : .none))
    }

    /// Reads `--environments` (none: no areas); errors are printed and become exit codes.
    func loadEnvironments() throws -> [EnvironmentArea] {
        guard let file = environments else { return [] }
        do {
            return try EnvironmentArea.loadGeoJSON(file)
        } catch {
            throw failure("error: \(error.description)", error.unreadable ? StrollExit.missingInput : StrollExit.badInput)
        }
    }
}

extension SimulationOptions {
    /// The options as command-line arguments again, for a child `stroll replay`
    /// (batch). Every option is here; the tests parse them back and compare.
    var arguments: [String] {
        var a: [String] = []
        for p in places { a += ["--places", p] }
        for g in groups { a += ["--group", g] }
        a += placeChoice.arguments
        a += ["--accuracy", "\(accuracy)", "--distance-filter", distanceFilter, "--walking-speed", "\(walkingSpeed)", "--start", start,
              "--rate", "\(rate)", "--seed", "\(seed)", "--region-span", "\(regionSpan)",
              "--map-width", "\(mapWidth)", "--cluster-radius", "\(clusterRadius)"]
        if let regions { a += ["--regions", regions] }
        if follow { a.append("--follow") }
        if cluster { a.append("--cluster") }
        if let select { a += ["--select", select] }
        if let sort { a += ["--sort", sort.rawValue] }
        if let within { a += ["--within", "\(within)"] }
        if let noise { a += ["--noise", noise] }
        if let noiseTau { a += ["--noise-tau", "\(noiseTau)"] }
        if let environment { a += ["--environment", environment] }
        if let environments { a += ["--environments", environments] }
        if let warmUp { a += ["--warm-up", warmUp] }
        if debugTruth { a.append("--debug-truth") }
        return a
    }

    /// The replay's configuration for these options.
    func configuration(groups: [String], regions: [MonitoredRegion], environments: [EnvironmentArea], sortMode: SortMode, select: String?) -> ReplayConfiguration {
        var configuration = ReplayConfiguration()
        configuration.settings = settings
        configuration.replay = replayOptions
        configuration.sensor = sensorOptions(environments: environments)
        configuration.regions = regions
        configuration.groups = groups
        configuration.sortMode = sortMode
        configuration.within = within
        configuration.regionSpan = regionSpan
        configuration.follow = follow
        configuration.select = select
        if cluster { configuration.clustering = ClusterSettings(radius: clusterRadius, mapWidth: mapWidth) }
        return configuration
    }
}
