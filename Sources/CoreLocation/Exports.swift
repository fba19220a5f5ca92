#if !canImport(Darwin)
// As on Apple platforms, `import CoreLocation` brings Foundation with it
// (NSObject, Date, TimeInterval), so app files that import only CoreLocation compile.
@_exported import Foundation
// And Combine's names, which Apple's Foundation brings: `ObservableObject`,
// `@Published`, `objectWillChange`, `AnyCancellable`, `sink`, from OpenCombine
// (the open implementation of Combine's API), so that the commonest shape of
// location code, `class LocationManager: NSObject, ObservableObject,
// CLLocationManagerDelegate { @Published var location: CLLocation? }`,
// compiles with only `import CoreLocation` (or MapKit, which brings this).
@_exported import OpenCombine
#endif
