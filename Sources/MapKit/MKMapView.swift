#if !canImport(Darwin)
import CoreLocation
import Foundation
import Geodesy
import Map

/// MapKit's map callbacks, every one optional (a default that does nothing).
@preconcurrency @MainActor
public protocol MKMapViewDelegate: NSObjectProtocol {
    func mapView(_ mapView: MKMapView, regionWillChangeAnimated animated: Bool)
    func mapView(_ mapView: MKMapView, regionDidChangeAnimated animated: Bool)
    func mapViewDidChangeVisibleRegion(_ mapView: MKMapView)
    func mapView(_ mapView: MKMapView, viewFor annotation: any MKAnnotation) -> MKAnnotationView?
    func mapView(_ mapView: MKMapView, didSelect view: MKAnnotationView)
    func mapView(_ mapView: MKMapView, didDeselect view: MKAnnotationView)
    func mapView(_ mapView: MKMapView, didSelect annotation: any MKAnnotation)
    func mapView(_ mapView: MKMapView, didDeselect annotation: any MKAnnotation)
    func mapView(_ mapView: MKMapView, didUpdate userLocation: MKUserLocation)
    func mapView(_ mapView: MKMapView, didFailToLocateUserWithError error: any Error)
    func mapView(_ mapView: MKMapView, didChange mode: MKUserTrackingMode, animated: Bool)
    func mapView(_ mapView: MKMapView, clusterAnnotationForMemberAnnotations memberAnnotations: [any MKAnnotation]) -> MKClusterAnnotation
    /// The renderer of an overlay, asked once when the overlay is added.
    func mapView(_ mapView: MKMapView, rendererFor overlay: any MKOverlay) -> MKOverlayRenderer
    /// The renderers of overlays just added.
    func mapView(_ mapView: MKMapView, didAdd renderers: [MKOverlayRenderer])
}

extension MKMapViewDelegate {
    public func mapView(_ mapView: MKMapView, regionWillChangeAnimated animated: Bool) {}
    public func mapView(_ mapView: MKMapView, regionDidChangeAnimated animated: Bool) {}
    public func mapViewDidChangeVisibleRegion(_ mapView: MKMapView) {}
    public func mapView(_ mapView: MKMapView, viewFor annotation: any MKAnnotation) -> MKAnnotationView? { nil }
    public func mapView(_ mapView: MKMapView, didSelect view: MKAnnotationView) {}
    public func mapView(_ mapView: MKMapView, didDeselect view: MKAnnotationView) {}
    public func mapView(_ mapView: MKMapView, didSelect annotation: any MKAnnotation) {}
    public func mapView(_ mapView: MKMapView, didDeselect annotation: any MKAnnotation) {}
    public func mapView(_ mapView: MKMapView, didUpdate userLocation: MKUserLocation) {}
    public func mapView(_ mapView: MKMapView, didFailToLocateUserWithError error: any Error) {}
    public func mapView(_ mapView: MKMapView, didChange mode: MKUserTrackingMode, animated: Bool) {}
    public func mapView(_ mapView: MKMapView, clusterAnnotationForMemberAnnotations memberAnnotations: [any MKAnnotation]) -> MKClusterAnnotation {
        MKClusterAnnotation(memberAnnotations: memberAnnotations)
    }
    /// A plain renderer of the overlay.
    public func mapView(_ mapView: MKMapView, rendererFor overlay: any MKOverlay) -> MKOverlayRenderer {
        MKOverlayRenderer(overlay: overlay)
    }
    /// Nothing.
    public func mapView(_ mapView: MKMapView, didAdd renderers: [MKOverlayRenderer]) {}
}

/// A headless `MKMapView`: no drawing, the same state and callbacks. The
/// annotations, selection, region and visible pins are Stroll's map model;
/// with `showsUserLocation` it follows the device (the running simulation)
/// through a location manager of its own, as MapKit does.
///
/// Clustering is MapKit's: when the delegate's view for an annotation has a
/// `clusteringIdentifier`, nearby annotations with the same one are drawn as
/// an `MKClusterAnnotation` (from the delegate's
/// `mapView(_:clusterAnnotationForMemberAnnotations:)`), 40 points apart at
/// the view's width; the selected annotation is never hidden in one.
/// Annotations whose coordinate is invalid are not added; they are listed in
/// ``rejectedAnnotations`` with the reason.
@preconcurrency @MainActor
open class MKMapView: NSObject {
    open weak var delegate: (any MKMapViewDelegate)?
    /// The view's size in points; `regionThatFits` keeps its aspect ratio.
    open var frame: CGRect

    private var model = MapModel()
    private var objects: [String: any MKAnnotation] = [:]
    private var ids: [ObjectIdentifier: String] = [:]
    private var order: [String] = []
    private var views: [String: MKAnnotationView] = [:]
    private var nextID = 0
    private var clusterObjects: [String: MKClusterAnnotation] = [:]
    /// Annotations not added, each with why (an invalid coordinate), by title or position.
    public private(set) var rejectedAnnotations: [MapError] = []
    private var currentRegion = MKCoordinateRegion(center: CLLocationCoordinate2D(latitude: 0, longitude: 0),
                                                   span: MKCoordinateSpan(latitudeDelta: 180, longitudeDelta: 360))
    private var userLocationManager: CLLocationManager?
    /// The overlays in the order added, each with its level and renderer (MKMapView+Overlays.swift).
    var overlayEntries: [OverlayEntry] = []
    private var userLocationReceiver: UserLocationReceiver?

    public let userLocation = MKUserLocation()

    public init(frame: CGRect) {
        self.frame = frame
        super.init()
    }

    public override convenience init() {
        self.init(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    }

    // MARK: Region

    open var region: MKCoordinateRegion {
        get { currentRegion }
        set { setRegion(newValue, animated: false) }
    }

    open func setRegion(_ region: MKCoordinateRegion, animated: Bool) {
        delegate?.mapView(self, regionWillChangeAnimated: animated)
        currentRegion = region
        _ = model.setRegion(MapRegion(center: Coordinate(computedLatitude: region.center.latitude, longitude: region.center.longitude),
                                      latitudeDelta: region.span.latitudeDelta, longitudeDelta: region.span.longitudeDelta))
        endClusterSelectionIfGone()
        delegate?.mapViewDidChangeVisibleRegion(self)
        delegate?.mapView(self, regionDidChangeAnimated: animated)
    }

    open var centerCoordinate: CLLocationCoordinate2D {
        get { currentRegion.center }
        set { setCenter(newValue, animated: false) }
    }

    /// Recentres, keeping the span (the zoom level), as MapKit does.
    open func setCenter(_ coordinate: CLLocationCoordinate2D, animated: Bool) {
        setRegion(MKCoordinateRegion(center: coordinate, span: currentRegion.span), animated: animated)
    }

    /// The region widened in one direction to the view's aspect ratio (in map points).
    open func regionThatFits(_ region: MKCoordinateRegion) -> MKCoordinateRegion {
        guard frame.width > 0, frame.height > 0 else { return region }
        let rect = MKMapRect(region)
        let aspect = Double(frame.width / frame.height)
        var fitted = rect
        if rect.width / max(rect.height, .leastNonzeroMagnitude) < aspect {
            fitted = MKMapRect(x: rect.midX - rect.height * aspect / 2, y: rect.minY, width: rect.height * aspect, height: rect.height)
        } else {
            fitted = MKMapRect(x: rect.minX, y: rect.midY - rect.width / aspect / 2, width: rect.width, height: rect.width / aspect)
        }
        var result = MKCoordinateRegion(fitted)
        result.center = region.center
        return result
    }

    open var visibleMapRect: MKMapRect {
        get { MKMapRect(currentRegion) }
        set { setVisibleMapRect(newValue, animated: false) }
    }

    open func setVisibleMapRect(_ rect: MKMapRect, animated: Bool) {
        setRegion(MKCoordinateRegion(rect), animated: animated)
    }

    // MARK: Annotations

    open var annotations: [any MKAnnotation] { order.compactMap { objects[$0] } }

    open func addAnnotation(_ annotation: any MKAnnotation) { addAnnotations([annotation]) }

    open func addAnnotations(_ annotations: [any MKAnnotation]) {
        var added: [Annotation] = []
        for a in annotations where ids[ObjectIdentifier(a)] == nil {
            let c = a.coordinate
            let id = "annotation-\(nextID)"
            guard CLLocationCoordinate2DIsValid(c), c.latitude.isFinite, c.longitude.isFinite else {
                rejectedAnnotations.append(.invalidCoordinate(id: a.title.flatMap { $0 } ?? id, latitude: c.latitude, longitude: c.longitude))
                continue
            }
            nextID += 1
            ids[ObjectIdentifier(a)] = id
            objects[id] = a
            order.append(id)
            let identifier = view(for: a)?.clusteringIdentifier
            added.append(Annotation(id: id, coordinate: Coordinate(computedLatitude: c.latitude, longitude: c.longitude),
                                    title: a.title.flatMap { $0 } ?? "", subtitle: a.subtitle.flatMap { $0 }, clusteringIdentifier: identifier))
        }
        if model.clustering == nil, added.contains(where: { $0.clusteringIdentifier != nil }) {
            _ = model.setClustering(ClusterSettings(mapWidth: frame.width > 0 ? Double(frame.width) : 390))
        }
        _ = model.add(added)
        endClusterSelectionIfGone()
    }

    /// The clusters drawn in the region now (MapKit makes them as the map draws).
    public var clusterAnnotations: [MKClusterAnnotation] {
        var live: [String: MKClusterAnnotation] = [:]
        let shown = model.clusters.map { c -> MKClusterAnnotation in
            let members = (model.members(ofCluster: c.id) ?? []).compactMap { objects[$0] }
            let object = clusterObjects[c.id] ?? delegate?.mapView(self, clusterAnnotationForMemberAnnotations: members) ?? MKClusterAnnotation(memberAnnotations: members)
            object.memberAnnotations = members
            object.coordinate = CLLocationCoordinate2D(latitude: c.coordinate.latitude, longitude: c.coordinate.longitude)
            live[c.id] = object
            return object
        }
        clusterObjects = live
        return shown
    }

    private func clusterID(of object: MKClusterAnnotation) -> String? {
        _ = clusterAnnotations
        return clusterObjects.first { $0.value === object }?.key
    }

    /// A selected cluster that is no longer drawn is deselected, as MapKit does.
    private func endClusterSelectionIfGone() {
        guard let s = model.selected, objects[s] == nil else { return }
        if let object = clusterObjects[s], !model.clusters.contains(where: { $0.id == s }) {
            _ = model.deselect()
            delegate?.mapView(self, didDeselect: object)
        }
    }

    open func removeAnnotation(_ annotation: any MKAnnotation) { removeAnnotations([annotation]) }

    /// Removing the selected pin deselects it (with `didDeselect`).
    open func removeAnnotations(_ annotations: [any MKAnnotation]) {
        let gone = annotations.compactMap { ids[ObjectIdentifier($0)] }
        if let selected = model.selected, gone.contains(selected), let object = objects[selected] { deselectAnnotation(object, animated: false) }
        _ = model.remove(gone)
        endClusterSelectionIfGone()
        for id in gone {
            if let object = objects.removeValue(forKey: id) { ids.removeValue(forKey: ObjectIdentifier(object)) }
            views.removeValue(forKey: id)
        }
        order.removeAll { gone.contains($0) }
    }

    /// The pins inside a map rectangle (MapKit gives them as a set of objects);
    /// with clustering, the clusters drawn there and the pins not in them.
    open func annotations(in mapRect: MKMapRect) -> Set<AnyHashable> {
        var drawn = annotations
        if model.clustering != nil {
            let hidden = Set(model.clusters.flatMap { model.members(ofCluster: $0.id) ?? [] })
            drawn = order.filter { !hidden.contains($0) }.compactMap { objects[$0] } + clusterAnnotations
        }
        return Set(drawn.filter { mapRect.contains(MKMapPoint($0.coordinate)) }.compactMap { ($0 as? NSObject).map(AnyHashable.init) })
    }

    /// The pins drawn inside the current region, in the order they were added (pins in clusters are in ``clusterAnnotations``).
    public var visibleAnnotations: [any MKAnnotation] { model.visible.compactMap { objects[$0] } }

    open func view(for annotation: any MKAnnotation) -> MKAnnotationView? {
        guard let id = ids[ObjectIdentifier(annotation)] else { return nil }
        if let view = views[id] { return view }
        let view = delegate?.mapView(self, viewFor: annotation) ?? MKAnnotationView(annotation: annotation, reuseIdentifier: nil)
        views[id] = view
        return view
    }

    // MARK: Selection

    open var selectedAnnotations: [any MKAnnotation] {
        get { model.selected.flatMap { objects[$0] ?? clusterObjects[$0] }.map { [$0] } ?? [] }
        set {
            if let first = newValue.first {
                selectAnnotation(first, animated: false)
            } else if let current = selectedAnnotations.first {
                deselectAnnotation(current, animated: false)
            }
        }
    }

    /// Single selection: selecting one deselects the other first. A cluster
    /// drawn now can be selected; a selected annotation leaves its cluster.
    /// An annotation whose view is not enabled (`isEnabled` false) cannot be
    /// selected: nothing changes and no callback comes, as on iOS.
    open func selectAnnotation(_ annotation: any MKAnnotation, animated: Bool) {
        let clusterID = (annotation as? MKClusterAnnotation).flatMap(clusterID(of:))
        guard let id = ids[ObjectIdentifier(annotation)] ?? clusterID, model.selected != id else { return }
        if clusterID == nil, view(for: annotation)?.isEnabled == false { return }
        if let current = model.selected, let object = objects[current] ?? clusterObjects[current] { deselectAnnotation(object, animated: animated) }
        guard case .success = model.select(id) else { return }
        if clusterID == nil, let view = view(for: annotation) {
            view.isSelected = true
            delegate?.mapView(self, didSelect: view)
        }
        delegate?.mapView(self, didSelect: annotation)
    }

    open func deselectAnnotation(_ annotation: (any MKAnnotation)?, animated: Bool) {
        guard let current = model.selected, let object = objects[current] ?? clusterObjects[current] else { return }
        if let annotation, annotation !== object { return }
        _ = model.deselect()
        if let view = views[current] {
            view.isSelected = false
            delegate?.mapView(self, didDeselect: view)
        }
        delegate?.mapView(self, didDeselect: object)
    }

    /// A region that shows every given pin, with a margin.
    open func showAnnotations(_ annotations: [any MKAnnotation], animated: Bool) {
        let coordinates = annotations.map { Coordinate(computedLatitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude) }
        guard let fit = MapRegion.fitting(coordinates) else { return }
        setRegion(MKCoordinateRegion(center: CLLocationCoordinate2D(latitude: fit.center.latitude, longitude: fit.center.longitude),
                                     span: MKCoordinateSpan(latitudeDelta: fit.latitudeDelta, longitudeDelta: fit.longitudeDelta)), animated: animated)
    }

    // MARK: The user's location

    open var showsUserLocation = false {
        didSet {
            guard showsUserLocation != oldValue else { return }
            if showsUserLocation {
                let manager = CLLocationManager()
                let receiver = UserLocationReceiver(map: self)
                manager.delegate = receiver
                userLocationManager = manager
                userLocationReceiver = receiver
                userLocation.isUpdating = true
                manager.startUpdatingLocation()
            } else {
                userLocationManager?.stopUpdatingLocation()
                userLocationManager = nil
                userLocationReceiver = nil
                userLocation.isUpdating = false
            }
        }
    }

    open var isUserLocationVisible: Bool {
        guard let location = userLocation.location else { return false }
        return visibleMapRect.contains(MKMapPoint(location.coordinate))
    }

    open var userTrackingMode: MKUserTrackingMode = .none {
        didSet {
            guard userTrackingMode != oldValue else { return }
            delegate?.mapView(self, didChange: userTrackingMode, animated: false)
            if userTrackingMode != .none, !showsUserLocation { showsUserLocation = true }
            if userTrackingMode != .none, let location = userLocation.location { setCenter(location.coordinate, animated: false) }
        }
    }

    open func setUserTrackingMode(_ mode: MKUserTrackingMode, animated: Bool) { userTrackingMode = mode }

    fileprivate func userLocationChanged(_ location: CLLocation) {
        userLocation.location = location
        _ = model.updateUserLocation(Coordinate(computedLatitude: location.coordinate.latitude, longitude: location.coordinate.longitude))
        delegate?.mapView(self, didUpdate: userLocation)
        if userTrackingMode != .none { setCenter(location.coordinate, animated: true) }
    }

    fileprivate func userLocationFailed(_ error: any Error) {
        delegate?.mapView(self, didFailToLocateUserWithError: error)
    }
}

/// The map's own location manager's delegate: every fix moves the user's pin.
@MainActor
private final class UserLocationReceiver: NSObject, CLLocationManagerDelegate {
    weak var map: MKMapView?

    init(map: MKMapView) {
        self.map = map
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let last = locations.last else { return }
        MainActor.assumeIsolated { map?.userLocationChanged(last) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        let error = error as? CLError ?? CLError(.locationUnknown)
        MainActor.assumeIsolated { map?.userLocationFailed(error) }
    }
}
#endif
