#if !canImport(Darwin)
// As on Apple platforms, `import CoreLocation` brings Foundation with it
// (NSObject, Date, TimeInterval), so app files that import only CoreLocation compile.
@_exported import Foundation
#endif
