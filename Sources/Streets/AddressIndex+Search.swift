import Foundation
import Geodesy

extension AddressIndex {
    /// The addresses `query` names, best first.
    ///
    /// The query and each address are compared as ``AddressText`` tokens. An
    /// address matches when the query holds its street (or its `name`) as a
    /// run of consecutive tokens, and every other token of the query is its
    /// house number (as a run, once) or a word of its city, suburb, postcode,
    /// state or country code. So `12 Avenue de la Costa`, `avenue de la costa
    /// 12, 98000 Monaco` and `Avenue de la Costa` all match 12 Avenue de la
    /// Costa, Monaco; `14 Avenue de la Costa` and `12 Avenue de la Costa,
    /// Nice` do not.
    ///
    /// The order: addresses whose house number the query gives, then those
    /// matched by street, then by name; then by house number (its leading
    /// digits as a number, then as text), then node before way and by id.
    /// An empty query (no letter or digit) matches nothing.
    public func search(_ query: String) -> [Address] {
        let q = AddressText.tokens(query)
        guard !q.isEmpty else { return [] }
        var candidates = Set<Int>()
        for token in Set(q) { candidates.formUnion(byFirstToken[token] ?? []) }
        var found: [(rank: Rank, index: Int)] = []
        for i in candidates {
            if let rank = match(q, tokens[i]) { found.append((rank, i)) }
        }
        found.sort { a, b in
            if a.rank != b.rank { return a.rank < b.rank }
            let x = addresses[a.index], y = addresses[b.index]
            let nx = HouseNumberOrder(x.houseNumber), ny = HouseNumberOrder(y.houseNumber)
            if nx != ny { return nx < ny }
            return x.order < y.order
        }
        return found.map { addresses[$0.index] }
    }

    /// The addresses `query` names, as ``search(_:)`` orders them, except that
    /// those within `radius` metres of `center` (by the WGS84 geodesic) come
    /// first: a region given as a hint, as `CLGeocoder` takes one.
    public func search(_ query: String, preferringWithin radius: Double, of center: Coordinate) -> [Address] {
        let found = search(query)
        let inside = found.map { Geodesic.wgs84.inverse(center, $0.coordinate).distance <= radius }
        return zip(found, inside).filter(\.1).map(\.0) + zip(found, inside).filter { !$0.1 }.map(\.0)
    }

    /// How well an address matched: its house number given or not, by street or by name.
    struct Rank: Comparable {
        var houseNumberMissing: Bool
        var byName: Bool

        static func < (a: Rank, b: Rank) -> Bool {
            (a.houseNumberMissing ? 1 : 0, a.byName ? 1 : 0) < (b.houseNumberMissing ? 1 : 0, b.byName ? 1 : 0)
        }
    }

    /// The best way `address` explains every token of `query`, if any.
    func match(_ query: [String], _ address: AddressTokens) -> Rank? {
        var best: Rank?
        for (anchor, byName) in [(address.street, false), (address.name, true)] where !anchor.isEmpty {
            for start in occurrences(of: anchor, in: query[...]) {
                var rest = Array(query[..<start]) + Array(query[(start + anchor.count)...])
                var numbered = false
                if !address.houseNumber.isEmpty, let at = occurrences(of: address.houseNumber, in: rest[...]).first {
                    rest.removeSubrange(at..<(at + address.houseNumber.count))
                    numbered = true
                }
                guard rest.allSatisfy(address.locality.contains) else { continue }
                let rank = Rank(houseNumberMissing: !numbered, byName: byName)
                if best.map({ rank < $0 }) ?? true { best = rank }
            }
        }
        return best
    }

    /// Where `run` starts in `tokens`, each place it does.
    private func occurrences(of run: [String], in tokens: ArraySlice<String>) -> [Int] {
        guard run.count <= tokens.count else { return [] }
        return (tokens.startIndex...(tokens.endIndex - run.count)).filter { tokens[$0..<($0 + run.count)].elementsEqual(run) }
    }
}

/// House numbers in the order a street has them: by leading digits as a
/// number (none last), then as text.
struct HouseNumberOrder: Comparable {
    var number: Int
    var text: String

    init(_ houseNumber: String?) {
        let text = houseNumber ?? ""
        self.text = text
        number = Int(text.prefix(while: { $0.isASCII && $0.isNumber }).prefix(18)) ?? Int.max
    }

    static func < (a: HouseNumberOrder, b: HouseNumberOrder) -> Bool {
        (a.number, a.text) < (b.number, b.text)
    }
}
