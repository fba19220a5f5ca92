#if !canImport(Darwin)
import CoreLocation
import Foundation

/// An overlay of the map, its level and the renderer the delegate gave it.
struct OverlayEntry {
    var overlay: any MKOverlay
    var level: MKOverlayLevel
    var renderer: MKOverlayRenderer
}

extension MKMapView {
    /// The overlays, bottom to top: those above the roads, then those above
    /// the labels, each level in the order they were added.
    public var overlays: [any MKOverlay] {
        overlays(in: .aboveRoads) + overlays(in: .aboveLabels)
    }

    /// The overlays of one level, in the order they were added.
    public func overlays(in level: MKOverlayLevel) -> [any MKOverlay] {
        overlayEntries.filter { $0.level == level }.map(\.overlay)
    }

    /// Adds an overlay above the roads.
    public func addOverlay(_ overlay: any MKOverlay) { addOverlays([overlay], level: .aboveRoads) }

    /// Adds an overlay at `level`.
    public func addOverlay(_ overlay: any MKOverlay, level: MKOverlayLevel) { addOverlays([overlay], level: level) }

    /// Adds overlays above the roads.
    public func addOverlays(_ overlays: [any MKOverlay]) { addOverlays(overlays, level: .aboveRoads) }

    /// Adds overlays at `level`. The delegate's `mapView(_:rendererFor:)` is
    /// asked for each new overlay's renderer at once (MapKit asks when the
    /// overlay first comes into view; a headless map has every overlay in
    /// view), then `mapView(_:didAdd:)` gets the new renderers. An overlay
    /// already on the map is left where it is.
    public func addOverlays(_ overlays: [any MKOverlay], level: MKOverlayLevel) {
        var added: [MKOverlayRenderer] = []
        for overlay in overlays where !overlayEntries.contains(where: { $0.overlay === overlay }) {
            let renderer = delegate?.mapView(self, rendererFor: overlay) ?? MKOverlayRenderer(overlay: overlay)
            overlayEntries.append(OverlayEntry(overlay: overlay, level: level, renderer: renderer))
            added.append(renderer)
        }
        if !added.isEmpty { delegate?.mapView(self, didAdd: added) }
    }

    /// Removes an overlay and its renderer.
    public func removeOverlay(_ overlay: any MKOverlay) { removeOverlays([overlay]) }

    /// Removes overlays and their renderers.
    public func removeOverlays(_ overlays: [any MKOverlay]) {
        overlayEntries.removeAll { entry in overlays.contains { $0 === entry.overlay } }
    }

    /// The renderer the delegate gave an overlay on the map; nil for one that is not.
    public func renderer(for overlay: any MKOverlay) -> MKOverlayRenderer? {
        overlayEntries.first { $0.overlay === overlay }?.renderer
    }
}
#endif
