import LocationSimulation
import Proximity
import Traces

extension ReplayEvent {
    /// Appends the event's JSON Lines line (without the newline) to `out`:
    /// byte for byte ``json``'s text, written straight into the buffer.
    public func writeJSONLine(to out: inout JSONBytes) {
        switch self {
        case .location(let l, let t):
            // Keys and numbers into room reserved per part: no check of room per value.
            out.write(most: 64) { w in
                w.raw("{\"type\":\"location\",\"t\":")
                w.number(Self.microseconds(t))
                w.raw(",\"timestamp\":")
            }
            out.time(l.timestamp)
            out.write(most: 512) { w in
                w.raw(",\"lat\":")
                w.number(l.coordinate.latitude)
                w.raw(",\"lon\":")
                w.number(l.coordinate.longitude)
                w.raw(",\"horizontalAccuracy\":")
                w.number(l.horizontalAccuracy)
                w.raw(",\"altitude\":")
                w.number(l.altitude)
                w.raw(",\"verticalAccuracy\":")
                w.number(l.verticalAccuracy)
                w.raw(",\"course\":")
                w.number(l.course)
                w.raw(",\"speed\":")
                w.number(l.speed)
                if let error = l.appliedError {
                    w.raw(",\"errorEast\":")
                    w.number(error.east)
                    w.raw(",\"errorNorth\":")
                    w.number(error.north)
                    if error.multipath { w.raw(",\"multipath\":true") }
                }
                w.byte(UInt8(ascii: "}"))
            }
        case .filtered(let l, let reason, let distance, let t):
            out.write(most: 256) { w in
                w.raw("{\"type\":\"filtered\",\"t\":")
                w.number(Self.microseconds(t))
                w.raw(",\"lat\":")
                w.number(l.coordinate.latitude)
                w.raw(",\"lon\":")
                w.number(l.coordinate.longitude)
                switch reason {
                case .distanceFilter: w.raw(",\"reason\":\"distance-filter\",\"distance\":")
                case .accuracy: w.raw(",\"reason\":\"accuracy\",\"distance\":")
                }
                w.number(distance)
                w.byte(UInt8(ascii: "}"))
            }
        case .ranking(let u, let group, let t):
            out.raw("{\"type\":\"ranking\",\"t\":")
            out.number(Self.microseconds(t))
            out.raw(",\"group\":")
            out.string(group)
            u.places.withUTF8 { utf8, starts in
                func list(_ rows: [UInt32], offset: Int = 0) {
                    rows.withUnsafeBufferPointer { out.strings(picking: $0, offset: offset, of: u.places, utf8: utf8, starts: starts) }
                }
                out.raw(",\"order\":")
                list(u.rows)
                out.raw(",\"names\":")
                list(u.rows, offset: u.places.ids.count)
                out.raw(",\"distances\":")
                out.numbers(u.distances)
                // Every move in room reserved at once (the most each part can take).
                out.write(most: 32 + u.moves.count * 44) { w in
                    w.raw(",\"moves\":[")
                    for (k, move) in u.moves.enumerated() {
                        w.raw(k > 0 ? ",[" : "[")
                        w.int(move.from)
                        w.byte(UInt8(ascii: ","))
                        w.int(move.to)
                        w.byte(UInt8(ascii: "]"))
                    }
                    w.raw("],\"inserted\":")
                }
                list(u.insertedRows)
                out.raw(",\"deleted\":")
                list(u.deletedRows)
                out.raw(",\"nearest\":")
                out.string(picking: Int(u.nearestRow), from: utf8, starts: starts)
            }
            out.raw(u.changed ? ",\"changed\":true}" : ",\"changed\":false}")
        case .map(let m, let t):
            out.raw("{\"type\":\"map\",\"t\":")
            out.number(Self.microseconds(t))
            out.raw(",\"region\":")
            if let r = m.region {
                out.raw("{\"center\":{\"lat\":")
                out.number(r.center.latitude)
                out.raw(",\"lon\":")
                out.number(r.center.longitude)
                out.raw("},\"span\":{\"latDelta\":")
                out.number(r.latitudeDelta)
                out.raw(",\"lonDelta\":")
                out.number(r.longitudeDelta)
                out.raw("}}")
            } else {
                out.raw("null")
            }
            out.raw(",\"visible\":")
            m.pins.withUTF8 { utf8, starts in
                m.visibleRows.withUnsafeBufferPointer { out.strings(picking: $0, of: m.pins, utf8: utf8, starts: starts) }
            }
            out.raw(",\"selected\":")
            out.string(m.selected)
            if let clusters = m.clusters {
                out.raw(",\"zoom\":")
                if let zoom = m.zoom { out.int(zoom) } else { out.raw("null") }
                out.raw(",\"clusters\":[")
                for (k, (c, members)) in clusters.enumerated() {
                    out.raw(k > 0 ? ",{\"id\":" : "{\"id\":")
                    out.string(c.id)
                    out.raw(",\"group\":")
                    out.string(c.clusteringIdentifier)
                    out.raw(",\"count\":")
                    out.int(c.count)
                    out.raw(",\"lat\":")
                    out.number(c.coordinate.latitude)
                    out.raw(",\"lon\":")
                    out.number(c.coordinate.longitude)
                    out.raw(",\"expansionZoom\":")
                    out.int(c.expansionZoom)
                    out.raw(",\"members\":")
                    out.strings(members)
                    out.byte(UInt8(ascii: "}"))
                }
                out.byte(UInt8(ascii: "]"))
            }
            out.byte(UInt8(ascii: "}"))
        case .region, .pause, .resume, .error, .visit, .summary:
            // Rare events: through the JSON value.
            out.value(json)
        }
    }
}

extension JSONBytes {
    /// The strings of `table` at `rows` (place indices, `offset` added: a table's names follow
    /// its ids) as a JSON array, given the table's UTF-8 and starts (``RankedPlaces/withUTF8(_:)``):
    /// copied in whole words when no string of the table needs escaping, else escaped one by one.
    mutating func strings(picking rows: UnsafeBufferPointer<UInt32>, offset: Int = 0, of table: RankedPlaces,
                          utf8: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>) {
        if table.plain {
            plainStrings(picking: rows, offset: offset, longest: table.longest, from: utf8, starts: starts)
        } else {
            strings(picking: rows, offset: offset, from: utf8, starts: starts)
        }
    }
}
