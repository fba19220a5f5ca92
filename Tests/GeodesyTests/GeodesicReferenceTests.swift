import Foundation
import Testing
import TestSupport
@testable import Geodesy

/// One line of the independent reference set made by GeographicLib (make_reference.py).
struct ReferenceCase: Sendable, CustomStringConvertible {
    let category: String
    let lat1, lon1, lat2, lon2, azi1, azi2, s12: Double
    var description: String { "\(category) \(lat1) \(lon1) \(lat2) \(lon2)" }

    static let all: [ReferenceCase] = {
        guard let url = Bundle.module.url(forResource: "Reference/geodesic-reference", withExtension: "tsv"),
              let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> ReferenceCase? in
            guard !line.hasPrefix("#") else { return nil }
            let f = line.split(separator: "\t")
            guard f.count == 8 else { return nil }
            let v = f.dropFirst().compactMap { Double($0) }
            guard v.count == 7 else { return nil }
            return ReferenceCase(category: String(f[0]), lat1: v[0], lon1: v[1], lat2: v[2], lon2: v[3], azi1: v[4], azi2: v[5], s12: v[6])
        }
    }()
}

/// Smallest difference between two azimuths in degrees, across ±180.
func azimuthError(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
}

@Suite("Karney geodesics against GeographicLib")
struct GeodesicReferenceTests {
    @Test("the reference set is present and covers every category")
    func referenceSetIsComplete() {
        let cases = ReferenceCase.all
        #expect(cases.count >= 3000)
        let categories = Set(cases.map(\.category))
        #expect(categories == ["city", "world", "antipodal", "equatorial", "meridional", "polar", "coincident"])
    }

    @Test("inverse distances within 1e-6 m under 100 km and 1e-5 m everywhere")
    func inverseDistances() throws {
        var worst = 0.0
        for c in ReferenceCase.all {
            let r = Geodesic.wgs84.inverse(try Coordinate(latitude: c.lat1, longitude: c.lon1), try Coordinate(latitude: c.lat2, longitude: c.lon2))
            let error = abs(r.distance - c.s12)
            worst = max(worst, error)
            #expect(error <= (c.s12 < 100_000 ? 1e-6 : 1e-5), "\(c): \(r.distance) vs \(c.s12)")
        }
        #expect(worst < 1e-5)
    }

    @Test("inverse azimuths within 1e-7 degrees where defined")
    func inverseAzimuths() throws {
        for c in ReferenceCase.all {
            // Azimuths are undefined for coincident points and at a pole.
            guard c.s12 > 0, abs(c.lat1) != 90, abs(c.lat2) != 90 else { continue }
            let r = Geodesic.wgs84.inverse(try Coordinate(latitude: c.lat1, longitude: c.lon1), try Coordinate(latitude: c.lat2, longitude: c.lon2))
            #expect(azimuthError(r.azimuth1, c.azi1) <= 1e-7, "azi1 \(c): \(r.azimuth1) vs \(c.azi1)")
            #expect(azimuthError(r.azimuth2, c.azi2) <= 1e-7, "azi2 \(c): \(r.azimuth2) vs \(c.azi2)")
        }
    }

    @Test("the direct problem lands on the reference end point")
    func directReachesEndPoint() throws {
        for c in ReferenceCase.all where c.s12 > 0 && abs(c.lat1) < 90 {
            let start = try Coordinate(latitude: c.lat1, longitude: c.lon1)
            let d = Geodesic.wgs84.direct(from: start, azimuth: c.azi1, distance: c.s12)
            let miss = Geodesic.wgs84.distance(d.coordinate, try Coordinate(latitude: c.lat2, longitude: c.lon2))
            #expect(miss <= 1e-5, "\(c): missed by \(miss) m")
            if abs(c.lat2) < 90 {
                #expect(azimuthError(d.azimuth2, c.azi2) <= 1e-7, "\(c)")
            }
        }
    }

    @Test("the inverse is symmetric: swapping the points swaps and reverses the azimuths")
    func symmetry() throws {
        for c in ReferenceCase.all where c.s12 > 1 {
            let p1 = try Coordinate(latitude: c.lat1, longitude: c.lon1), p2 = try Coordinate(latitude: c.lat2, longitude: c.lon2)
            let ab = Geodesic.wgs84.inverse(p1, p2), ba = Geodesic.wgs84.inverse(p2, p1)
            #expect(abs(ab.distance - ba.distance) <= 1e-8 * max(1, ab.distance))
            // Where the geodesic is unique and the azimuths defined (not between antipodes, not at a pole),
            // the way back starts along the way there's end, reversed, and ends along its start, reversed.
            guard !["antipodal", "polar"].contains(c.category), abs(c.lat1) < 89.9, abs(c.lat2) < 89.9 else { continue }
            #expect(azimuthError(ba.azimuth1, ab.azimuth2 + 180) <= 1e-9, "\(c)")
            #expect(azimuthError(ba.azimuth2, ab.azimuth1 + 180) <= 1e-9, "\(c)")
        }
    }
}

@Suite("Geodesic properties")
struct GeodesicPropertyTests {
    @Test("symmetry and the triangle inequality on random triples, city to world scale")
    func triangle() throws {
        var rng = SplitMix64(seed: 2024)
        for k in 0..<2000 {
            let spread = k % 2 == 0 ? 0.05 : 60.0
            func random() throws -> Coordinate {
                try Coordinate(latitude: max(-90, min(90, 53.4 + rng.uniform(-spread, spread))), longitude: normalizedLongitude(-2.97 + rng.uniform(-2 * spread, 2 * spread)))
            }
            let a = try random(), b = try random(), c = try random()
            let ab = Geodesic.wgs84.distance(a, b), bc = Geodesic.wgs84.distance(b, c), ac = Geodesic.wgs84.distance(a, c)
            #expect(abs(ab - Geodesic.wgs84.distance(b, a)) <= 1e-9 * max(1, ab))
            #expect(ac <= ab + bc + 1e-6, "\(a) \(b) \(c)")
        }
    }
}
