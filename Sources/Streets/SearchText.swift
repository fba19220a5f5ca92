import Foundation

/// Text as a search compares it: without case or diacritics, cut into words.
///
/// Folding is Unicode's compatibility decomposition (NFKD) with the
/// non-spacing marks (general category Mn) left out, then Unicode's
/// lowercase mapping: "Café" and "CAFE" are both "cafe". A word is a run of
/// letters and digits (general categories L and N); everything else
/// separates words, so "Gerhard's Café" is "gerhard", "s", "cafe". Python's
/// `unicodedata.normalize("NFKD", …)`, `unicodedata.category` and
/// `str.lower` give the same words, which the search check relies on.
public enum SearchText {
    /// `text` folded and cut into words, in order.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            let category = scalar.properties.generalCategory
            if category == .nonspacingMark { continue }
            if isWordScalar(category) {
                word.append(scalar)
            } else if !word.isEmpty {
                words.append(String(word).lowercased())
                word = String.UnicodeScalarView()
            }
        }
        if !word.isEmpty { words.append(String(word).lowercased()) }
        return words
    }

    private static func isWordScalar(_ category: Unicode.GeneralCategory) -> Bool {
        switch category {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }
}
