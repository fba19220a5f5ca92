import Foundation

/// How address text is compared: case and diacritics folded away, and split
/// into words at anything that is not a letter or a digit.
///
/// The text is decomposed (Unicode canonical decomposition, NFD), its
/// non-spacing marks (the accents) dropped, and lower-cased; every run of
/// letters and digits is a token. `Rue de l'Église` and `rue de l eglise`
/// have the same tokens; `Bd` and `Boulevard` do not (no abbreviations
/// are expanded).
public enum AddressText {
    /// The tokens of `text`.
    public static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty { tokens.append(String(current).lowercased()) }
            current = String.UnicodeScalarView()
        }
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            let properties = scalar.properties
            if properties.generalCategory == .nonspacingMark { continue }
            if properties.isAlphabetic || properties.numericType != nil {
                current.append(scalar)
            } else {
                flush()
            }
        }
        flush()
        return tokens
    }
}

/// An address's fields as tokens.
struct AddressTokens: Sendable {
    var street: [String]
    var name: [String]
    var houseNumber: [String]
    /// The locality's words: city, suburb, postcode, state, country code.
    var locality: Set<String>

    init(_ address: Address) {
        street = AddressText.tokens(address.street)
        name = address.name.map(AddressText.tokens) ?? []
        houseNumber = address.houseNumber.map(AddressText.tokens) ?? []
        locality = Set([address.city, address.suburb, address.postcode, address.state, address.countryCode].compactMap { $0 }.flatMap(AddressText.tokens))
    }
}
