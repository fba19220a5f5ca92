#if !canImport(Darwin)
// As on Apple platforms, `import MapKit` brings CoreLocation and Foundation with it.
@_exported import CoreLocation
@_exported import Foundation
#endif
