import Foundation
import Testing
import TestSupport
import Geodesy
@testable import Traces

/// SplitMix64: a small seeded generator, so that a failure reproduces.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The readers' fast paths (numbers, times, unquoted CSV lines, element names,
/// chunked reading) held to what the general code gives.
@Suite("Fast paths")
struct FastPathTests {
    // MARK: Numbers

    /// Texts `parseNumber` reads, for which it must give `Double(String)`'s value bit for bit.
    static let numberEdges = [
        "0", "-0", "+0", "0.0", "-0.0", "-0e5", "0e-400", "-0.000e+0", "1", "-1", ".5", "5.", "-.5", "+.5e1", "53.4", "-2.97",
        "53.4000000", "00012.50", "000000000000000000000001.5", "1e0", "1e22", "1e23", "1E+22", "-1e22", "1e-22", "1e-23",
        "123456789012345", "999999999999999", "1234567890123456", "12345678901234567890", "123456789012345678901234567890",
        "0.1", "0.2", "0.30000000000000004", "9007199254740992", "9007199254740993", "9007199254740992.5",
        "9007199254740993.0000000001", "4.9e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
        "2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308", "1.7976931348623158e308",
        "1.7976931348623159e308", "1e308", "1e309", "1e-400", "1e100000000000", "1e-100000000000",
        "1.00000000000000011102230246251565404236316680908203125", "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126", "89.999999999999999", "999999999999999.9",
        "0.000000000000000000001234567", "45." + String(repeating: "9", count: 40), "123456789012345e-22", "123456789012345e22",
        "1234567890123456e-22", "0.000000000000000000000000000000000000000000001", "8.98846567431158e307", "179.9999999",
    ]

    @Test("decimal numbers read bit for bit as Double(String) reads them: edge cases and random texts")
    func numbersMatchTheStandardLibrary() {
        var rng = SeededGenerator(state: 0x5EED)
        var texts = Self.numberEdges
        for _ in 0..<40_000 { texts.append(Self.randomDecimal(&rng)) }
        for _ in 0..<10_000 {
            let value = Double(bitPattern: rng.next())
            guard value.isFinite else { continue }
            texts += ["\(value)", String(format: "%.17g", value), String(format: "%.15g", value), String(format: "%.7f", value)]
        }
        var mismatches: [String] = []
        for text in texts {
            let expected = Double(text)
            let parsed = parseNumber(Array(text.utf8))
            if parsed?.bitPattern != expected?.bitPattern { mismatches.append("\(text): \(String(describing: parsed)) != \(String(describing: expected))") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
        // Surrounding whitespace is allowed; other text around a number is not.
        // Digits are read eight at a time past the number's end when the buffer goes on: the
        // bytes after it (digits too) must not count, whatever they are.
        var runOn: [String] = []
        for text in texts.prefix(2_000) + Self.numberEdges {
            for tail in ["98765432", "0", ",1", ".5e3", ""] {
                let bytes = Array(("12" + text + tail).utf8)
                let parsed = bytes.withUnsafeBufferPointer { parseNumber(in: $0, from: 2, to: 2 + text.utf8.count) }
                if parsed?.bitPattern != Double(text)?.bitPattern { runOn.append("\(text)|\(tail): \(String(describing: parsed))") }
            }
        }
        #expect(runOn.isEmpty, "\(runOn.prefix(20))")
        #expect(parseNumber(Array(" \t53.4\r\n".utf8)) == 53.4)
        for text in ["", " ", ".", "-", "+", "e5", "1e", "1e+", "1.2.3", "1_0", "0x10", "nan", "inf", "-inf", "Infinity", "1 2", "1,5", "--1"] {
            #expect(parseNumber(Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// A decimal text with a random sign, digits, point and exponent, mostly in the
    /// fast path's range (at most 15 significant digits, exponent within ±22) and often not.
    static func randomDecimal(_ rng: inout SeededGenerator) -> String {
        var text = ""
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: text = "-"
        case 1: text = "+"
        default: break
        }
        let digits = Int.random(in: 1...(Bool.random(using: &rng) ? 16 : 25), using: &rng)
        let point = Int.random(in: -1...digits, using: &rng)
        for k in 0..<digits {
            if k == point { text += "." }
            text += String(Int.random(in: 0...9, using: &rng))
        }
        if point == digits { text += "." }
        if Bool.random(using: &rng) {
            text += Bool.random(using: &rng) ? "e" : "E"
            let exponent = Bool.random(using: &rng) ? Int.random(in: -25...25, using: &rng) : Int.random(in: -340...320, using: &rng)
            text += exponent < 0 ? "\(exponent)" : (Bool.random(using: &rng) ? "+\(exponent)" : "\(exponent)")
        }
        return text
    }

    // MARK: Times

    @Test("the fixed-layout time fast path reads what the general parser reads")
    func timesMatchTheGeneralParser() {
        var rng = SeededGenerator(state: 0x71E)
        func pick(_ options: [String]) -> String { options[Int.random(in: 0..<options.count, using: &rng)] }
        func number(_ range: ClosedRange<Int>, width: Int) -> String {
            let text = String(Int.random(in: range, using: &rng))
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var texts = ["2024-01-01T00:00:00Z", "2024-02-29T23:59:60Z", "2023-02-29T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T24:00:00.5Z",
                     "2024-01-01T24:00:01Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "2024-01-01T00:00:00.9999995Z",
                     "2024-01-01t00:00:00z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00,25Z",
                     " 2024-01-01T00:00:00Z\n", "2024-01-01T00:00:00ZZ", "2024-01-01T00:00:00+00:00", "2024-1-01T00:00:00Z"]
        for _ in 0..<20_000 {
            var text = number(0...9999, width: 4) + "-" + number(0...13, width: 2) + "-" + number(0...32, width: 2)
            text += pick(["T", "T", "t", " ", "x"]) + number(0...25, width: 2) + ":" + number(0...60, width: 2) + ":" + number(0...61, width: 2)
            if Int.random(in: 0..<3, using: &rng) == 0 {
                text += pick([".", ".", ",", ":"])
                for _ in 0..<Int.random(in: 0...12, using: &rng) { text += String(Int.random(in: 0...9, using: &rng)) }
            }
            text += pick(["Z", "Z", "Z", "z", "", "+01:00", "-0530", "Zx", " ", "5Z"])
            texts.append(text)
        }
        // Runs of times on a few dates, valid and not, for the day numbers a CSV stream keeps.
        for _ in 0..<2_000 {
            texts.append(pick(["2024-02-28", "2024-02-29", "2023-02-29", "2024-13-01", "2024-04-31", "2024-04-30"]) + "T"
                + number(0...24, width: 2) + ":" + number(0...59, width: 2) + ":" + number(0...60, width: 2) + pick(["Z", ".5Z", "+01:00"]))
        }
        var mismatches: [String] = []
        var dates = DayNumberCache()
        for text in texts {
            let bytes = Array(text.utf8)
            let fast = ISO8601Time.parse(bytes), general = ISO8601Time.parseWithoutFastPath(bytes)
            if fast?.seconds.bitPattern != general?.seconds.bitPattern || fast?.zoneless != general?.zoneless {
                mismatches.append("\(text): \(String(describing: fast)) != \(String(describing: general))")
            }
            // The fixed layout alone, with the day numbers kept from text to text: what it reads, the general parser reads alike.
            if let fixed = bytes.withUnsafeBufferPointer({ ISO8601Time.parseFixedLayout($0, dates: &dates) }),
               fixed.seconds.bitPattern != general?.seconds.bitPattern || fixed.zoneless != general?.zoneless {
                mismatches.append("\(text) (fixed layout): \(fixed) != \(String(describing: general))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    /// ISO8601Time.format's text as it was built from strings before it wrote bytes:
    /// the reference for its output.
    static func referenceFormat(_ seconds: Double) -> String {
        guard let (y, m, d, rest, micros) = ISO8601Time.fields(seconds) else { return "invalid" }
        func pad(_ v: Int, _ n: Int) -> String {
            let t = String(v)
            return String(repeating: "0", count: max(0, n - t.count)) + t
        }
        var text = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rest / 3600, 2)):\(pad((rest / 60) % 60, 2)):\(pad(rest % 60, 2))"
        if micros > 0 {
            var fraction = pad(micros, 6)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }

    @Test("times are formatted as before, years before 0 and past 9999 included")
    func formatMatchesTheReference() {
        var rng = SeededGenerator(state: 0xF0)
        var values: [Double] = [0, -0.0, 0.5, 0.000001, 0.0000004, 0.9999995, 0.9999994, -0.0000001, -1, -86_400, -62_167_219_200,
                                -62_167_219_201, 253_402_300_799.999999, 253_402_300_800, 1e13 - 1, -1e13 + 1, 1e13, .nan, .infinity, 1_704_067_200.25]
        for _ in 0..<20_000 {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: values.append(Double.random(in: -1e13...1e13, using: &rng))
            case 1: values.append(Double(Int.random(in: 0...4_102_444_800, using: &rng)) + Double(Int.random(in: 0..<1_000_000, using: &rng)) / 1_000_000)
            default: values.append(Double(Int.random(in: -1_000_000_000_000...1_000_000_000_000, using: &rng)) / 1000)
            }
        }
        var mismatches: [String] = []
        for value in values where ISO8601Time.format(value) != Self.referenceFormat(value) {
            mismatches.append("\(value): \(ISO8601Time.format(value)) != \(Self.referenceFormat(value))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    // MARK: Names

    @Test("GPX element names are told from their bytes; other names are .other")
    func gpxElementNames() {
        for element in GPXElement.allCases where element != .other {
            let bytes = Array(element.rawValue.utf8)
            #expect(bytes.withUnsafeBufferPointer { GPXElement($0) } == element, "\(element)")
        }
        for other in ["", "trkpts", "trkp", "Time", "TIME", "gpx1", "extensions", "TrackPointExtension", "metadataX", "é", "ele\u{301}"] {
            let bytes = Array(other.utf8)
            #expect(bytes.withUnsafeBufferPointer { GPXElement($0) } == .other, "\(other)")
        }
    }

    // MARK: Chunk boundaries

    static let gpx = """
    <?xml version="1.0"?>\r
    <!-- generated: <trkpt> in a comment, & an ampersand -->
    <gpx:gpx xmlns:gpx="http://www.topografix.com/GPX/1/1" creator="Caf\u{E9} &amp; co" xmlns:x="urn:x">
    <gpx:metadata><gpx:name>Walk &lt;one&gt; \u{1F6B6}</gpx:name><gpx:desc><![CDATA[a <b>bold</b> & plain]]></gpx:desc></gpx:metadata>
    <?stroll ignore me?>
    <gpx:trk><gpx:name>Bold   Street</gpx:name><gpx:trkseg>
    <gpx:trkpt lat="53.4012345" lon='-2.9712345'><gpx:ele>20.5</gpx:ele><gpx:time>2024-05-01T09:00:00Z</gpx:time><gpx:hdop>1.2</gpx:hdop></gpx:trkpt>
    <gpx:trkpt  lat = "53.4012346"  lon = "-2.9712346" ><gpx:ele> 20.6 </gpx:ele><gpx:time>2024-05-01T09:00:01.250Z</gpx:time>
      <gpx:extensions><x:TrackPointExtension><x:speed>1.4</x:speed><x:course>270</x:course><x:hAcc>4</x:hAcc></x:TrackPointExtension></gpx:extensions></gpx:trkpt>
    <gpx:trkpt lat="53.4012347" lon="-2.9712347"><gpx:time>2024-05-01T10:00:02+01:00</gpx:time><gpx:name>Caf\u{E9} &#233;&#x1F600;</gpx:name></gpx:trkpt>
    <gpx:trkpt lat="53.4012348" lon="-2.9712348"><gpx:time>2024-05-01T08:59:00Z</gpx:time></gpx:trkpt>
    <gpx:trkpt lat="53.4012349" lon="-2.9712349"><gpx:ele>high</gpx:ele></gpx:trkpt>
    <gpx:trkpt lat="91.5" lon="0"/>
    <gpx:trkpt lat="53.40123456789012345678" lon="-2.9712349e0"><gpx:sat>7</gpx:sat><gpx:fix>3d</gpx:fix></gpx:trkpt>
    </gpx:trkseg></gpx:trk>
    <gpx:rte><gpx:name>r</gpx:name><gpx:rtept lat="1" lon="2"/></gpx:rte>
    <gpx:wpt lat="53.4" lon="-2.9"><gpx:name>Lime Street</gpx:name><gpx:desc>Station</gpx:desc></gpx:wpt>
    </gpx:gpx>
    <!-- done -->

    """

    /// Comma-separated: the delimiter is sniffed from what the first read holds of the header.
    static let csv = "time,lat,lon,ele,name\r\n"
        + "2024-05-01T09:00:00Z,53.4012345,-2.9712345,20.5,\r\n"
        + "2024-05-01T09:00:01.5Z,53.4012346,-2.9712346,,\"Bold, \"\"Street\"\"\r\nwith a break\"\r\n"
        + "\r\n"
        + "2024-05-01 09:00:02,53.4012347,-2.9712347,21,Caf\u{E9} \u{1F600}\n"
        + "1714554003,53.4012348,-2.9712348,x,\n"
        + "2024-05-01T08:00:00Z,53.4012349,-2.9712349,22,back\r\n"
        + "2024-05-01T09:00:05Z,91,0,,\n"
        + "1714554006500,53.40123456789012345678,-2.97123e0, 23 ,\"\"\r\n"
        + "2024-05-01T09:00:07Z,53.4,-2.9,24,last"

    /// The events a stream gives, or its error.
    static func events(_ source: ByteSource, _ format: Trace.Format) -> Result<[TraceEvent], TraceError> {
        do throws(TraceError) {
            var stream = try TraceReader.stream(format: format, source: source, csvMapping: CSVColumnMapping(), checksOrder: true)
            var events: [TraceEvent] = []
            while let event = try stream.next() { events.append(event) }
            return .success(events)
        } catch {
            return .failure(error)
        }
    }

    /// Reads `bytes` in chunks of every size in `sizes` and as one chunk; the events (or the error) must be the same.
    static func expectSameInChunks(_ bytes: [UInt8], _ format: Trace.Format, sizes: [Int]) throws {
        let path = try temporaryFile(Data(bytes), suffix: "." + format.rawValue)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = events(ByteSource(bytes: Data(bytes), name: path), format)
        for size in sizes {
            let chunked = events(try ByteSource(path: path, readSize: size), format)
            #expect(chunked == whole, "read \(size) bytes at a time")
        }
    }

    static let sizes = [1, 2, 3, 5, 7, 16, 61, 256, 4099]

    /// The sample reads (as one chunk) to `points` track points and `rejected` rejections.
    static func expectCounts(_ bytes: [UInt8], _ format: Trace.Format, points: Int, rejected: Int) {
        guard case .success(let events) = events(ByteSource(bytes: Data(bytes), name: "whole." + format.rawValue), format) else {
            Issue.record("the \(format) sample does not read")
            return
        }
        #expect(events.filter { if case .trackPoint = $0 { true } else { false } }.count == points)
        #expect(events.filter { if case .rejected = $0 { true } else { false } }.count == rejected)
    }

    @Test("GPX reads the same whatever the chunk boundaries cut: tags, names, numbers, entities, UTF-8")
    func gpxInChunks() throws {
        let bytes = Array(Self.gpx.utf8)
        Self.expectCounts(bytes, .gpx, points: 4, rejected: 3)
        try Self.expectSameInChunks(bytes, .gpx, sizes: Self.sizes)
        // A byte that is not UTF-8 deep in the file, and a multi-byte character cut short.
        var invalid = bytes
        if let k = invalid.lastIndex(of: UInt8(ascii: "7")) { invalid[k] = 0xFF }
        try Self.expectSameInChunks(invalid, .gpx, sizes: Self.sizes)
        var cut = bytes
        if let k = cut.firstIndex(of: 0xF0) { cut.remove(at: k + 1) }
        try Self.expectSameInChunks(cut, .gpx, sizes: Self.sizes)
    }

    @Test("a GPX error has the same line, column and reason whatever the chunk boundaries", arguments: [
        ("lat=\"53.4012347\"", "lat=\"53.4012347\" lat2=5 "),
        ("<gpx:name>Lime Street</gpx:name>", "<gpx:name>Lime Street</gpx:nam>"),
        ("Bold   Street", "Bold \u{FFFF} & Street"),
        ("<!-- done -->", "<!-- done --> trailing"),
        ("</gpx:gpx>", ""),
        ("Walk", "Walk\u{1}"),
        ("20.6", "20.\u{7F}6\u{80}"),
    ])
    func gpxErrorsInChunks(find: String, replace: String) throws {
        let bytes = Array(Self.gpx.replacingOccurrences(of: find, with: replace).utf8)
        #expect(bytes != Array(Self.gpx.utf8))
        try Self.expectSameInChunks(bytes, .gpx, sizes: Self.sizes)
    }

    /// Points written without prefixes, as most exporters write them: plain leaves
    /// (read a word at a time), and each way a point's children can leave that path.
    static let plainGPX = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="Stroll" xmlns="http://www.topografix.com/GPX/1/1">
    <trk><name>plain</name><trkseg>
    <trkpt lat="53.40" lon="-2.97"><ele>20.5</ele><time>2024-05-01T09:00:00Z</time><hdop>1.2</hdop></trkpt>
    <trkpt lat="53.41" lon="-2.97">
      <ele>21</ele >
      <time>2024-05-01T09:00:01.5Z</time>
    </trkpt >
    <trkpt lat="53.42" lon="-2.97"><name>Tea &amp; cake</name><ele>22</ele><!-- a comment --><time>2024-05-01T09:00:02Z</time></trkpt>
    <trkpt lat="53.43" lon="-2.97"><ele><![CDATA[23]]></ele><time>2024-05-01T09:00:03Z</time><sat></sat></trkpt>
    <trkpt lat="53.44" lon="-2.97"><time>2024-05-01T09:00:04Z</time><extensions><speed>1.5</speed><course>90</course></extensions><ele>24</ele></trkpt>
    <trkpt lat="53.45" lon="-2.97"><ele unit="m">25</ele><time>2024-05-01T09:00:05Z</time><fix/><desc>caf\u{E9}</desc><caf\u{E9}>x</caf\u{E9}><extensionsX>1</extensionsX></trkpt>
    <trkpt lat="53.46" lon="-2.97"><ele>26</ele>text<time>2024-05-01T09:00:06Z</time></trkpt>
    <trkpt lat="53.47" lon="-2.97"><ele>high</ele><time>2024-05-01T09:00:07Z</time></trkpt>
    <trkpt lat="53.48" lon="-2.97"><time>2024-05-01T08:00:00Z</time><ele>28</ele></trkpt>
    <trkpt lat="53.49" lon="-2.97"><time>2024-05-01T09:00:09+01:00</time><time>2024-05-01T09:00:09Z</time><ele>29</ele></trkpt>
    </trkseg></trk>
    <wpt lat="53.5" lon="-2.9"><name>Lime Street</name><sym>Flag</sym></wpt>
    </gpx>

    """

    @Test("GPX points read a word at a time read as token by token: values, lines, rejections")
    func plainGPXInChunks() throws {
        let bytes = Array(Self.plainGPX.utf8)
        // Read as one chunk, the points take the quick paths where they can; read a byte
        // at a time, the quick paths never see a whole child and the tokens are read one by one.
        try Self.expectSameInChunks(bytes, .gpx, sizes: Self.sizes)
        let trace = try readGPX(Self.plainGPX)
        let fixes = trace.tracks[0].segments[0].fixes
        #expect(fixes.map(\.elevation) == [20.5, 21, 22, 23, 24, 25, 26, 29])
        #expect(fixes.map(\.line) == [4, 5, 9, 10, 11, 12, 13, 16])
        #expect(fixes.map(\.time) == [1_714_554_000, 1_714_554_001.5, 1_714_554_002, 1_714_554_003, 1_714_554_004, 1_714_554_005, 1_714_554_006, 1_714_554_009])
        #expect(fixes.map(\.hdop) == [1.2, nil, nil, nil, nil, nil, nil, nil])
        #expect(fixes[2].name == "Tea & cake")
        #expect(fixes[4].speed == 1.5 && fixes[4].course == 90)
        #expect(fixes[5].description == "caf\u{E9}")
        #expect(trace.rejected.map(\.line) == [14, 15])
        #expect(trace.waypoints.map(\.name) == ["Lime Street"])
    }

    @Test("a GPX error inside a point has the same line, column and reason whichever path reads it", arguments: [
        ("<ele>20.5</ele>", "<ele>20.5</elex>"),
        ("<ele>20.5</ele>", "<ele>20.5</elf>"),
        ("<hdop>1.2</hdop></trkpt>", "<hdop>1.2</hdop></trkptx>"),
        ("<ele>21</ele >", "<ele>21</ele x>"),
        ("<sat></sat>", "<sat></sat"),
        ("<ele>26</ele>", "<ele>26</ele><ele>&bogus;</ele>"),
        ("<time>2024-05-01T09:00:00Z</time>", "<time>2024-05-01T09:00:00Z<time>"),
    ])
    func plainGPXErrorsInChunks(find: String, replace: String) throws {
        let bytes = Array(Self.plainGPX.replacingOccurrences(of: find, with: replace).utf8)
        #expect(bytes != Array(Self.plainGPX.utf8))
        guard case .failure = Self.events(ByteSource(bytes: Data(bytes), name: "whole.gpx"), .gpx) else {
            Issue.record("\(replace) reads without an error")
            return
        }
        try Self.expectSameInChunks(bytes, .gpx, sizes: Self.sizes)
    }

    @Test("CSV reads the same whatever the chunk boundaries cut: fields, quotes, CRLF, UTF-8")
    func csvInChunks() throws {
        let bytes = Array(Self.csv.utf8)
        Self.expectCounts(bytes, .csv, points: 5, rejected: 3)
        try Self.expectSameInChunks(bytes, .csv, sizes: Self.sizes)
        try Self.expectSameInChunks(Array(Self.csv.replacingOccurrences(of: "\"\"\r\n", with: "\"open\r\n").utf8), .csv, sizes: Self.sizes)
        try Self.expectSameInChunks(Array(Self.csv.replacingOccurrences(of: "Caf", with: "\u{0}").utf8), .csv, sizes: Self.sizes)
    }

    // MARK: CSV lines

    @Test("unquoted CSV lines: CRLF, empty and padded fields, a last line without a break")
    func unquotedLines() throws {
        let trace = try readCSV("lat,lon,ele,accuracy\r\n53.4,-2.9,,5\r\n53.5 , -2.8 ,\t7\t,\r\n\r\n53.6,-2.7,8,0\r\n53.7,-2.6,9\r")
        let fixes = trace.tracks[0].segments[0].fixes
        #expect(fixes.map(\.coordinate.latitude) == [53.4, 53.5, 53.6, 53.7])
        #expect(fixes.map(\.elevation) == [nil, 7, 8, 9])
        #expect(fixes.map(\.horizontalAccuracy) == [5, nil, nil, nil])
        #expect(fixes.map(\.line) == [2, 3, 5, 6])
        let tabs = try readCSV("lat\tlon\n1\t2\r\n3\t4\n")
        #expect(tabs.tracks[0].segments[0].fixes.map(\.coordinate.longitude) == [2, 4])
        // A row that is all delimiters is not blank: it has no latitude.
        let empty = try readCSV("lat,lon\n,\n1,2\n")
        #expect(empty.rejected.map(\.reason) == ["latitude is empty"])
    }

    @Test("a CSV line with more fields than the reader first keeps room for, read in place and as a table alike")
    func manyFields() throws {
        let columns = (0..<40).map { "c\($0)" }
        var named = columns
        named[33] = "lat"
        named[37] = "lon"
        let rows = (0..<3).map { r in (0..<40).map { c in c == 33 ? "53.\(r)" : c == 37 ? "-2.\(r)" : "\(r * 100 + c)" }.joined(separator: ",") }
        let text = named.joined(separator: ",") + "\n" + rows.joined(separator: "\n") + "\n"
        let fixes = try readCSV(text).tracks[0].segments[0].fixes
        #expect(fixes.map(\.coordinate.latitude) == [53.0, 53.1, 53.2])
        #expect(fixes.map(\.coordinate.longitude) == [-2.0, -2.1, -2.2])
        let table = try CSVTable.read(data: Data(text.utf8), name: "wide.csv")
        #expect(table.rows.map(\.fields) == rows.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
        try Self.expectSameInChunks(Array(text.utf8), .csv, sizes: [7, 64, 333])
    }

    @Test("a fix's texts: set, changed and cleared, and equal fixes compare equal however they were made")
    func fixTexts() throws {
        let here = try Coordinate(latitude: 53.4, longitude: -2.97)
        var fix = Fix(coordinate: here, line: 3)
        #expect(fix.name == nil && fix.description == nil && fix.fixType == nil)
        fix.name = "Lime Street"
        fix.fixType = "3d"
        #expect(fix.name == "Lime Street" && fix.fixType == "3d" && fix.description == nil)
        let copy = fix
        fix.description = "Station"
        #expect(copy.description == nil && fix.description == "Station" && fix.name == "Lime Street")
        #expect(fix == Fix(coordinate: here, fixType: "3d", name: "Lime Street", description: "Station", line: 3))
        #expect(fix != copy)
        fix.name = nil
        fix.fixType = nil
        fix.description = nil
        #expect(fix == Fix(coordinate: here, line: 3))
        #expect(Fix(coordinate: here, name: "a") != Fix(coordinate: here, name: "b"))
    }
}
