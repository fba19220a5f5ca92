#if !canImport(Darwin)
import Foundation
import Streets

/// Which categories of points of interest a search keeps. A place without a
/// category (a named `tourism=attraction`, say) is kept by `includingAll` and
/// by an excluding filter, and left out by `excludingAll` and by an including
/// filter.
open class MKPointOfInterestFilter: NSObject {
    private let including: Bool
    /// The categories listed, or nil for all of them.
    private let categories: Set<MKPointOfInterestCategory>?

    private init(including: Bool, categories: Set<MKPointOfInterestCategory>?) {
        self.including = including
        self.categories = categories
        super.init()
    }

    /// Keeps the places of `categories` only.
    public convenience init(including categories: [MKPointOfInterestCategory]) {
        self.init(including: true, categories: Set(categories))
    }

    /// Keeps every place except those of `categories`.
    public convenience init(excluding categories: [MKPointOfInterestCategory]) {
        self.init(including: false, categories: Set(categories))
    }

    /// Keeps every place.
    public class var includingAll: MKPointOfInterestFilter { MKPointOfInterestFilter(including: true, categories: nil) }
    /// Keeps no place.
    public class var excludingAll: MKPointOfInterestFilter { MKPointOfInterestFilter(including: false, categories: nil) }

    /// Whether places of `category` are kept.
    open func includes(_ category: MKPointOfInterestCategory) -> Bool {
        (categories?.contains(category) ?? true) == including
    }

    /// Whether places of `category` are left out.
    open func excludes(_ category: MKPointOfInterestCategory) -> Bool { !includes(category) }

    /// The filter as `Streets` applies it.
    var categoryFilter: CategoryFilter {
        guard let categories else { return including ? .includingAll : .excludingAll }
        let known = Set(categories.compactMap(\.streetsCategory))
        return including ? .including(known) : .excluding(known)
    }
}
#endif
