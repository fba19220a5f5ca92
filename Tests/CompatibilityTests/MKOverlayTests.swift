import Foundation
import MapKit
import Testing

/// An app's map delegate that draws routes blue and wide, areas and circles
/// with a dashed line, and records what the map asked.
@MainActor
final class OverlayDrawer: NSObject, MKMapViewDelegate {
    var asked: [String] = []
    var added: [Int] = []

    func mapView(_ mapView: MKMapView, rendererFor overlay: any MKOverlay) -> MKOverlayRenderer {
        switch overlay {
        case let line as MKPolyline:
            asked.append("polyline \(line.pointCount)")
            let renderer = MKPolylineRenderer(polyline: line)
            renderer.lineWidth = 5
            return renderer
        case let polygon as MKPolygon:
            asked.append("polygon \(polygon.pointCount)")
            let renderer = MKPolygonRenderer(polygon: polygon)
            renderer.lineDashPattern = [4, 2]
            return renderer
        case let circle as MKCircle:
            asked.append("circle \(Int(circle.radius))")
            let renderer = MKCircleRenderer(circle: circle)
            renderer.alpha = 0.5
            return renderer
        default:
            return MKOverlayRenderer(overlay: overlay)
        }
    }

    func mapView(_ mapView: MKMapView, didAdd renderers: [MKOverlayRenderer]) { added.append(renderers.count) }
}

@Suite("MapKit on Linux: overlays on a headless MKMapView")
@MainActor
struct MKOverlayTests {
    let walk = [CLLocationCoordinate2D(latitude: 53.4002, longitude: -2.9803), CLLocationCoordinate2D(latitude: 53.4005, longitude: -2.9807),
                CLLocationCoordinate2D(latitude: 53.4010, longitude: -2.9790)]

    @Test("overlays added and removed, each renderer asked of the delegate once when added")
    func addAndRemove() throws {
        let map = MKMapView()
        let drawer = OverlayDrawer()
        map.delegate = drawer
        let line = MKPolyline(coordinates: walk, count: walk.count)
        let area = MKPolygon(coordinates: walk, count: walk.count)
        let circle = MKCircle(center: walk[0], radius: 25)
        map.addOverlay(line)
        map.addOverlays([area, circle])
        map.addOverlay(line)
        #expect(drawer.asked == ["polyline 3", "polygon 3", "circle 25"])
        #expect(drawer.added == [1, 2])
        #expect(map.overlays.count == 3)
        #expect(map.overlays.first === line)
        let renderer = try #require(map.renderer(for: line) as? MKPolylineRenderer)
        #expect(renderer.lineWidth == 5 && renderer.polyline === line && renderer.strokeEnd == 1)
        #expect((map.renderer(for: area) as? MKPolygonRenderer)?.lineDashPattern == [4, 2])
        #expect(map.renderer(for: circle)?.alpha == 0.5)

        let label = MKCircle(center: walk[2], radius: 10)
        map.addOverlay(label, level: .aboveLabels)
        let top = MKPolyline(coordinates: walk, count: 2)
        map.addOverlay(top)
        #expect(map.overlays.map { ObjectIdentifier($0) } == [line, area, circle, top, label].map { ObjectIdentifier($0) })
        #expect(map.overlays(in: .aboveLabels).count == 1)

        map.removeOverlay(area)
        map.removeOverlays([line, label])
        #expect(map.overlays.map { ObjectIdentifier($0) } == [circle, top].map { ObjectIdentifier($0) })
        #expect(map.renderer(for: line) == nil)
        map.addOverlay(line)
        #expect(drawer.asked.filter { $0 == "polyline 3" }.count == 2)
    }

    @Test("without a delegate, a plain renderer; bounding rectangles in map points")
    func geometry() {
        let map = MKMapView()
        let line = MKPolyline(coordinates: walk, count: walk.count)
        map.addOverlay(line)
        #expect(map.renderer(for: line).map { type(of: $0) == MKOverlayRenderer.self } == true)
        let rect = line.boundingMapRect
        for p in walk.map(MKMapPoint.init) { #expect(p.x >= rect.minX && p.x <= rect.maxX && p.y >= rect.minY && p.y <= rect.maxY) }
        #expect(rect.minX == MKMapPoint(walk[1]).x && rect.maxX == MKMapPoint(walk[2]).x)
        #expect(rect.minY == MKMapPoint(walk[2]).y && rect.maxY == MKMapPoint(walk[0]).y)
        #expect(line.intersects(rect) && !line.intersects(MKMapRect(x: 0, y: 0, width: 10, height: 10)))
        #expect(!line.canReplaceMapContent)

        let circle = MKCircle(center: walk[0], radius: 100)
        let box = circle.boundingMapRect
        #expect(abs(box.width - 200 * MKMapPointsPerMeterAtLatitude(walk[0].latitude)) < 1e-6)
        #expect(abs(box.midX - MKMapPoint(walk[0]).x) < 1e-6 && circle.coordinate.latitude == walk[0].latitude)
        let again = MKCircle(mapRect: box)
        #expect(abs(again.radius - 100) < 1e-6)
        #expect(abs(again.coordinate.latitude - walk[0].latitude) < 1e-9)

        let hole = MKPolygon(coordinates: walk, count: 3)
        let polygon = MKPolygon(coordinates: walk, count: 3, interiorPolygons: [hole])
        #expect(polygon.interiorPolygons?.first === hole)
        var second = CLLocationCoordinate2D()
        polygon.getCoordinates(&second, range: NSRange(location: 1, length: 1))
        #expect(second.latitude == walk[1].latitude)
        let points = walk.map(MKMapPoint.init)
        let fromPoints = MKPolyline(points: points, count: points.count)
        #expect(abs(fromPoints.coordinate.latitude - line.coordinate.latitude) < 1e-9)
    }
}
