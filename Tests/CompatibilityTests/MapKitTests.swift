import CoreLocation
import Foundation
import MapKit
import StrollSimulation
import Testing
import TestSupport

/// Records the map's callbacks in order.
@MainActor
final class MapRecorder: NSObject, MKMapViewDelegate {
    var calls: [String] = []

    func mapView(_ mapView: MKMapView, regionWillChangeAnimated animated: Bool) { calls.append("willChange") }
    func mapView(_ mapView: MKMapView, regionDidChangeAnimated animated: Bool) { calls.append("didChange") }
    func mapView(_ mapView: MKMapView, didSelect annotation: any MKAnnotation) { calls.append("select \(annotation.title.flatMap { $0 } ?? "")") }
    func mapView(_ mapView: MKMapView, didDeselect annotation: any MKAnnotation) { calls.append("deselect \(annotation.title.flatMap { $0 } ?? "")") }
    func mapView(_ mapView: MKMapView, didUpdate userLocation: MKUserLocation) { calls.append("user") }
}

@Suite("MapKit on Linux: a headless MKMapView", .serialized)
@MainActor
struct MapKitTests {
    let leaf = MKPointAnnotation(coordinate: CLLocationCoordinate2D(latitude: 53.4002, longitude: -2.9803), title: "Leaf", subtitle: "Bold Street")
    let tabac = MKPointAnnotation(coordinate: CLLocationCoordinate2D(latitude: 53.4005, longitude: -2.9807), title: "Tabac", subtitle: nil)
    let far = MKPointAnnotation(coordinate: CLLocationCoordinate2D(latitude: 53.43, longitude: -2.90), title: "Far", subtitle: nil)

    @Test("regions: meters to degrees, will/did change around every change, centring keeps the span")
    func regions() {
        let map = MKMapView()
        let recorder = MapRecorder()
        map.delegate = recorder
        let center = CLLocationCoordinate2D(latitude: 53.4055, longitude: -2.966)
        let region = MKCoordinateRegion(center: center, latitudinalMeters: 1000, longitudinalMeters: 1000)
        #expect(abs(region.span.latitudeDelta - 0.008983) < 2e-5)
        #expect(abs(region.span.longitudeDelta - 0.015062) < 5e-5)
        map.setRegion(region, animated: false)
        map.setCenter(CLLocationCoordinate2D(latitude: 53.40, longitude: -2.98), animated: true)
        #expect(recorder.calls == ["willChange", "didChange", "willChange", "didChange"])
        #expect(map.region.span.latitudeDelta == region.span.latitudeDelta && map.centerCoordinate.latitude == 53.40)
        let fits = map.regionThatFits(region)
        #expect(fits.span.latitudeDelta >= region.span.latitudeDelta && fits.span.longitudeDelta >= region.span.longitudeDelta * 0.999)
    }

    @Test("selection is single: selecting one deselects the other first; removing the selected pin deselects it")
    func selection() {
        let map = MKMapView()
        let recorder = MapRecorder()
        map.delegate = recorder
        map.addAnnotations([leaf, tabac, far])
        #expect(map.annotations.count == 3)
        map.selectAnnotation(leaf, animated: false)
        map.selectAnnotation(tabac, animated: true)
        #expect(map.selectedAnnotations.count == 1 && map.selectedAnnotations.first === tabac)
        map.removeAnnotation(tabac)
        #expect(map.selectedAnnotations.isEmpty && map.annotations.count == 2)
        #expect(recorder.calls == ["select Leaf", "deselect Leaf", "select Tabac", "deselect Tabac"])
    }

    @Test("a pin whose view is not enabled cannot be selected: no change, no callback; enabled again, it can")
    func disabledView() {
        final class Disabling: NSObject, MKMapViewDelegate {
            var calls: [String] = []
            func mapView(_ mapView: MKMapView, viewFor annotation: any MKAnnotation) -> MKAnnotationView? {
                let view = MKMarkerAnnotationView(annotation: annotation, reuseIdentifier: "pin")
                view.isEnabled = annotation.title.flatMap { $0 } != "Far"
                return view
            }
            func mapView(_ mapView: MKMapView, didSelect annotation: any MKAnnotation) { calls.append("select \(annotation.title.flatMap { $0 } ?? "")") }
            func mapView(_ mapView: MKMapView, didDeselect annotation: any MKAnnotation) { calls.append("deselect \(annotation.title.flatMap { $0 } ?? "")") }
        }
        let map = MKMapView()
        let delegate = Disabling()
        map.delegate = delegate
        map.addAnnotations([leaf, far])
        map.selectAnnotation(leaf, animated: false)
        map.selectAnnotation(far, animated: false)
        #expect(map.selectedAnnotations.count == 1 && map.selectedAnnotations.first === leaf)
        #expect(map.view(for: far)?.isSelected == false && map.view(for: leaf)?.isSelected == true)
        map.selectedAnnotations = [far]
        #expect(map.selectedAnnotations.first === leaf)
        #expect(delegate.calls == ["select Leaf"])
        map.view(for: far)?.isEnabled = true
        map.selectAnnotation(far, animated: false)
        #expect(map.selectedAnnotations.first === far && delegate.calls == ["select Leaf", "deselect Leaf", "select Far"])
    }

    @Test("the visible pins are those inside the region; annotations(in:) answers a map rectangle")
    func visible() {
        let map = MKMapView()
        map.addAnnotations([leaf, tabac, far])
        map.setRegion(MKCoordinateRegion(center: leaf.coordinate, latitudinalMeters: 500, longitudinalMeters: 500), animated: false)
        #expect(map.visibleAnnotations.compactMap { $0.title.flatMap { $0 } } == ["Leaf", "Tabac"])
        let inside = map.annotations(in: map.visibleMapRect)
        #expect(inside.count == 2 && inside.contains(AnyHashable(leaf)) && !inside.contains(AnyHashable(far)))
        map.showAnnotations([leaf, far], animated: false)
        #expect(map.annotations(in: map.visibleMapRect).count == 3)
    }

    @Test("map points: the Mercator world, round trips, scale")
    func mapPoints() {
        let p = MKMapPoint(leaf.coordinate)
        #expect(abs(p.coordinate.latitude - leaf.coordinate.latitude) < 1e-9 && abs(p.coordinate.longitude - leaf.coordinate.longitude) < 1e-9)
        #expect(MKMapPoint(CLLocationCoordinate2D(latitude: 0, longitude: 0)).x == MKMapSize.world.width / 2)
        let d = MKMapPoint(leaf.coordinate).distance(to: MKMapPoint(tabac.coordinate))
        let geodesic = CLLocation(latitude: 53.4002, longitude: -2.9803).distance(from: CLLocation(latitude: 53.4005, longitude: -2.9807))
        #expect(abs(d - geodesic) < 1e-6)
        #expect(abs(MKMapPointsPerMeterAtLatitude(0) * MKMetersPerMapPointAtLatitude(0) - 1) < 1e-12)
    }

    @Test("showsUserLocation follows the simulated walk; tracking mode .follow keeps the map centred on it")
    func userLocation() async throws {
        let simulation = try SimulatedDevice(trace: path("traces/campus-loop.gpx"))
        SimulatedDevice.current = simulation
        defer { SimulatedDevice.current = nil }
        let map = MKMapView()
        let recorder = MapRecorder()
        map.delegate = recorder
        map.showsUserLocation = true
        map.userTrackingMode = .follow
        await simulation.advance(by: 60)
        let user = try #require(map.userLocation.location)
        #expect(map.centerCoordinate.latitude == user.coordinate.latitude && map.centerCoordinate.longitude == user.coordinate.longitude)
        #expect(map.isUserLocationVisible)
        #expect(recorder.calls.filter { $0 == "user" }.count == 61)
        #expect(Array(recorder.calls.suffix(3)) == ["user", "willChange", "didChange"])
    }

    @Test("clustering as MapKit does it: views with a clusteringIdentifier give MKClusterAnnotations; selecting a pin takes it out; invalid coordinates are rejected")
    func clustering() {
        final class Clustering: NSObject, MKMapViewDelegate {
            func mapView(_ mapView: MKMapView, viewFor annotation: any MKAnnotation) -> MKAnnotationView? {
                let view = MKMarkerAnnotationView(annotation: annotation, reuseIdentifier: "cafe")
                view.clusteringIdentifier = annotation.title.flatMap { $0 } == "Far" ? nil : "cafes"
                return view
            }
        }
        let map = MKMapView()
        let delegate = Clustering()
        map.delegate = delegate
        let broken = MKPointAnnotation(coordinate: kCLLocationCoordinate2DInvalid, title: "Broken", subtitle: nil)
        map.addAnnotations([leaf, tabac, far, broken])
        #expect(map.annotations.count == 3)
        #expect(map.rejectedAnnotations.map(\.description).contains { $0.contains("Broken") })
        // 10 km wide on a 390-point screen: Leaf and Tabac (40 m apart) are one cluster; Far has no identifier.
        map.setRegion(MKCoordinateRegion(center: CLLocationCoordinate2D(latitude: 53.41, longitude: -2.95), latitudinalMeters: 10_000, longitudinalMeters: 10_000), animated: false)
        #expect(map.visibleAnnotations.count == 1 && map.visibleAnnotations.first === far)
        let cluster = map.clusterAnnotations
        #expect(cluster.count == 1 && cluster.first?.memberAnnotations.count == 2)
        // The same object while the cluster is drawn, a pan later too.
        map.setCenter(CLLocationCoordinate2D(latitude: 53.411, longitude: -2.95), animated: false)
        #expect(map.clusterAnnotations.first === cluster.first)
        #expect(map.annotations(in: map.visibleMapRect).count == 2)
        // Selecting a member draws it on its own: the cluster of two falls apart.
        map.selectAnnotation(tabac, animated: false)
        #expect(map.clusterAnnotations.isEmpty && map.visibleAnnotations.count == 3)
        map.deselectAnnotation(tabac, animated: false)
        // A cluster can be selected, and is deselected once the map zooms in and it splits.
        let again = map.clusterAnnotations
        #expect(again.count == 1 && again.first?.memberAnnotations.count == 2)
        if let c = again.first {
            map.selectAnnotation(c, animated: false)
            #expect(map.selectedAnnotations.first === c)
        }
        map.setRegion(MKCoordinateRegion(center: leaf.coordinate, latitudinalMeters: 200, longitudinalMeters: 200), animated: false)
        #expect(map.clusterAnnotations.isEmpty && map.selectedAnnotations.isEmpty)
    }
}
