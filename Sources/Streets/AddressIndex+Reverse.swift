import Foundation
import Geodesy

extension AddressIndex {
    /// How far ``nearest(to:within:)`` looks by default, in metres: about a
    /// city block, so a point in a street finds the houses along it and a point
    /// out at sea or in a park finds nothing rather than something far away.
    public static let defaultReverseRadius = 100.0

    /// The nearest address to `coordinate` by the WGS84 geodesic (Karney's
    /// method, `Geodesy`'s `Geodesic`), if one is within `radius` metres; of
    /// addresses at the same distance, a node before a way, then the lower id.
    ///
    /// Only the addresses in a latitude band and a longitude window are
    /// measured, both bounds that cannot leave out an address within the
    /// radius: a path between two latitudes is at least their meridian arc
    /// apart, and the meridian's radius of curvature is at least 6 335 439 m;
    /// along the band a degree of longitude is at least the equatorial
    /// radius times the cosine of the band's highest latitude.
    public func nearest(to coordinate: Coordinate, within radius: Double = AddressIndex.defaultReverseRadius) -> (address: Address, distance: Double)? {
        guard radius >= 0, radius.isFinite else { return nil }
        let latitudeBand = radius / 110_574.0 * 1.000_001 + 1e-9
        let low = firstIndex(atLeast: coordinate.latitude - latitudeBand)
        let highestLatitude = min(90, abs(coordinate.latitude) + latitudeBand)
        let parallel = 6_378_137.0 * cos(highestLatitude * .pi / 180)
        let longitudeWindow = parallel > 1 ? radius / parallel * 180 / .pi * 1.000_001 + 1e-9 : 360
        var best: (index: Int, distance: Double)?
        var k = low
        while k < byLatitude.count {
            let i = byLatitude[k]
            k += 1
            let candidate = addresses[i].coordinate
            if candidate.latitude > coordinate.latitude + latitudeBand { break }
            var dLon = abs(candidate.longitude - coordinate.longitude)
            if dLon > 180 { dLon = 360 - dLon }
            guard dLon <= longitudeWindow else { continue }
            let distance = Geodesic.wgs84.inverse(coordinate, candidate).distance
            guard distance <= radius else { continue }
            if let b = best, (b.distance, addresses[b.index].order) <= (distance, addresses[i].order) { continue }
            best = (i, distance)
        }
        return best.map { (addresses[$0.index], $0.distance) }
    }

    /// The position in `byLatitude` of the first address at or north of `latitude`.
    private func firstIndex(atLeast latitude: Double) -> Int {
        var low = 0, high = byLatitude.count
        while low < high {
            let mid = (low + high) / 2
            if addresses[byLatitude[mid]].coordinate.latitude < latitude { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
