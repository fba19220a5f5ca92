import Foundation
import Geomagnetism
import Testing
import TestSupport

/// One line of Reference/wmm-pygeomag.tsv: the field pygeomag computes (make_fixture.py).
struct PygeomagCase: Sendable, CustomStringConvertible {
    let latitude, longitude, height, year: Double
    let model: String
    let declination, inclination, x, y, z, f: Double
    var description: String { "\(latitude) \(longitude) \(height) m \(year) \(model)" }

    static let all: [PygeomagCase] = {
        guard let text = try? String(contentsOfFile: path("Tests/GeomagnetismTests/Reference/wmm-pygeomag.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> PygeomagCase? in
            guard !line.hasPrefix("#") else { return nil }
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 11 else { return nil }
            let v = (f[0..<4] + f[5...]).compactMap { Double($0) }
            guard v.count == 10 else { return nil }
            return PygeomagCase(latitude: v[0], longitude: v[1], height: v[2], year: v[3], model: f[4],
                                declination: v[4], inclination: v[5], x: v[6], y: v[7], z: v[8], f: v[9])
        }
    }()
}

@Suite("The World Magnetic Model against pygeomag")
struct WorldMagneticModelTests {
    @Test("the fixture is present: a fix of the bundled walk, Liverpool every half year, the validity edges and 400 random points")
    func fixtureIsComplete() {
        #expect(PygeomagCase.all.count == 426)
        #expect(Set(PygeomagCase.all.map(\.model)) == ["WMM-2020", "WMM-2025"])
    }

    @Test("declination and inclination within 1e-9 degrees and X, Y, Z, F within 1e-6 nT of pygeomag at every fixture point")
    func agreesWithPygeomag() throws {
        var worstDeclination = 0.0, worstInclination = 0.0, worstComponent = 0.0
        for c in PygeomagCase.all {
            let model = try WorldMagneticModel.model(for: c.year)
            #expect(model.name == c.model, "\(c)")
            let field = try model.field(latitude: c.latitude, longitude: c.longitude, height: c.height, decimalYear: c.year)
            worstDeclination = max(worstDeclination, abs(field.declination - c.declination))
            worstInclination = max(worstInclination, abs(field.inclination - c.inclination))
            let components = [field.north - c.x, field.east - c.y, field.down - c.z, field.totalIntensity - c.f].map(abs)
            worstComponent = max(worstComponent, components.max() ?? 0)
            #expect(abs(field.declination - c.declination) < 1e-9, "\(c): \(field.declination) against \(c.declination)")
        }
        #expect(worstDeclination < 1e-9)
        #expect(worstInclination < 1e-9)
        #expect(worstComponent < 1e-6)
    }

    @Test("the shipped coefficients are the .COF files' terms, 90 a model")
    func coefficientsMatchFiles() throws {
        for (model, file) in [(WorldMagneticModel.wmm2020, "WMM2020.COF"), (WorldMagneticModel.wmm2025, "WMM2025.COF")] {
            let text = try String(contentsOfFile: path("Sources/Geomagnetism/Coefficients/" + file), encoding: .utf8)
            let lines = text.split(separator: "\n")
            let header = try #require(lines.first).split(separator: " ")
            try #require(header.count == 3)
            #expect(Double(header[0]) == model.epoch)
            #expect(String(header[1]) == model.name)
            let rows = lines.dropFirst().filter { !$0.hasPrefix("9999") }.map { $0.split(separator: " ") }
            #expect(rows.allSatisfy { $0.count == 6 })
            let terms = rows.filter { $0.count == 6 }.map { v in
                WorldMagneticModel.Term(n: Int(v[0]) ?? -1, m: Int(v[1]) ?? -1, g: Double(v[2]) ?? .nan, h: Double(v[3]) ?? .nan,
                                        gDot: Double(v[4]) ?? .nan, hDot: Double(v[5]) ?? .nan)
            }
            #expect(terms.count == 90)
            #expect(terms == model.terms)
        }
    }

    @Test("each date picks its model: WMM-2020 until 2025.0, WMM-2025 from it until 2030.0 inclusive")
    func modelByDate() throws {
        #expect(try WorldMagneticModel.model(for: 2020.0).name == "WMM-2020")
        #expect(try WorldMagneticModel.model(for: 2024.999).name == "WMM-2020")
        #expect(try WorldMagneticModel.model(for: 2025.0).name == "WMM-2025")
        #expect(try WorldMagneticModel.model(for: 2030.0).name == "WMM-2025")
        #expect(WorldMagneticModel.wmm2025.validFrom == 2025 && WorldMagneticModel.wmm2025.validUntil == 2030)
        #expect(WorldMagneticModel.wmm2025.released == "2024-11-13")
    }

    @Test("a date outside 2020.0 to 2030.0 is an error naming the date and the window, never an extrapolation")
    func dateOutsideValidity() {
        let late = Date(timeIntervalSince1970: 1_924_992_000 + 86_400)  // 2031-01-02
        #expect(throws: GeomagnetismError.self) {
            try WorldMagneticModel.field(latitude: 53.4, longitude: -3, height: 0, date: late)
        }
        do {
            _ = try WorldMagneticModel.model(for: 2019.5)
            Issue.record("2019.5 gave a model")
        } catch {
            #expect(error == .dateOutsideModel(decimalYear: 2019.5, validFrom: 2020, validUntil: 2030))
            #expect(error.description == "the date 2019.500 (2019-07-02) is outside the World Magnetic Model's validity, 2020.000 (2020-01-01) to 2030.000 (2030-01-01)")
        }
        #expect(throws: GeomagnetismError.dateOutsideModel(decimalYear: 2030.5, validFrom: 2025, validUntil: 2030)) {
            try WorldMagneticModel.wmm2025.field(latitude: 0, longitude: 0, height: 0, decimalYear: 2030.5)
        }
        #expect(throws: GeomagnetismError.dateOutsideModel(decimalYear: 2024.5, validFrom: 2025, validUntil: 2030)) {
            try WorldMagneticModel.wmm2025.field(latitude: 0, longitude: 0, height: 0, decimalYear: 2024.5)
        }
    }

    @Test("latitude, longitude and height are checked")
    func inputsChecked() {
        let model = WorldMagneticModel.wmm2025
        #expect(throws: GeomagnetismError.invalidCoordinate(latitude: 91, longitude: 0)) {
            try model.field(latitude: 91, longitude: 0, height: 0, decimalYear: 2026)
        }
        #expect(throws: GeomagnetismError.invalidCoordinate(latitude: 0, longitude: -181)) {
            try model.field(latitude: 0, longitude: -181, height: 0, decimalYear: 2026)
        }
        #expect(throws: GeomagnetismError.self) { try model.field(latitude: .nan, longitude: 0, height: 0, decimalYear: 2026) }
        #expect(throws: GeomagnetismError.heightOutOfRange(900_000)) {
            try model.field(latitude: 0, longitude: 0, height: 900_000, decimalYear: 2026)
        }
    }

    @Test("a longitude east of 180 is the same meridian as its western twin; the poles give a finite field")
    func longitudeAndPoles() throws {
        let model = WorldMagneticModel.wmm2025
        let west = try model.field(latitude: 40, longitude: -100, height: 0, decimalYear: 2026)
        let east = try model.field(latitude: 40, longitude: 260, height: 0, decimalYear: 2026)
        #expect(abs(west.declination - east.declination) < 1e-9)
        for latitude in [90.0, -90.0] {
            let pole = try model.field(latitude: latitude, longitude: 0, height: 0, decimalYear: 2026)
            #expect(pole.declination.isFinite && pole.totalIntensity > 50_000)
        }
    }

    @Test("decimal years: a year's start, its middle, a leap year, before 1970")
    func decimalYears() {
        #expect(DecimalYear.of(Date(timeIntervalSince1970: 1_735_689_600)) == 2025)             // 2025-01-01
        #expect(DecimalYear.of(Date(timeIntervalSince1970: 1_751_457_600)) == 2025.5)           // 2025-07-02T12:00Z
        #expect(DecimalYear.of(Date(timeIntervalSince1970: 1_704_067_200 + 183 * 86_400)) == 2024.5)  // 2024-07-02, leap year
        #expect(DecimalYear.of(Date(timeIntervalSince1970: 0)) == 1970)
        #expect(DecimalYear.of(Date(timeIntervalSince1970: -31_536_000)) == 1969)
        #expect(DecimalYear.of(Date(timeIntervalSince1970: 1_893_456_000)) == 2030)
    }

    @Test("the model's declination uncertainty: √(0.26² + (5417 / H)²) degrees for WMM-2025; zones by H")
    func uncertainty() throws {
        let field = try WorldMagneticModel.wmm2025.field(latitude: 53.4, longitude: -3, height: 0, decimalYear: 2026)
        let expected = (0.26 * 0.26 + (5417 / field.horizontalIntensity) * (5417 / field.horizontalIntensity)).squareRoot()
        #expect(abs(field.declinationUncertainty - expected) < 1e-12)
        #expect(!field.isInCautionZone && !field.isInBlackoutZone)
    }
}
