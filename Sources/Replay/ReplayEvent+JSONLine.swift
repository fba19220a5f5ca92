import LocationSimulation
import Proximity
import Traces

extension ReplayEvent {
    /// Appends the event's JSON Lines line (without the newline) to `out`:
    /// byte for byte ``json``'s text, written straight into the buffer.
    public func writeJSONLine(to out: inout JSONBytes) {
        switch self {
        case .location(let l, let t):
            out.raw("{\"type\":\"location\",\"t\":")
            out.number(Self.microseconds(t))
            out.raw(",\"timestamp\":")
            out.time(l.timestamp)
            out.raw(",\"lat\":")
            out.number(l.coordinate.latitude)
            out.raw(",\"lon\":")
            out.number(l.coordinate.longitude)
            out.raw(",\"horizontalAccuracy\":")
            out.number(l.horizontalAccuracy)
            out.raw(",\"altitude\":")
            out.number(l.altitude)
            out.raw(",\"verticalAccuracy\":")
            out.number(l.verticalAccuracy)
            out.raw(",\"course\":")
            out.number(l.course)
            out.raw(",\"speed\":")
            out.number(l.speed)
            if let error = l.appliedError {
                out.raw(",\"errorEast\":")
                out.number(error.east)
                out.raw(",\"errorNorth\":")
                out.number(error.north)
                if error.multipath { out.raw(",\"multipath\":true") }
            }
            out.byte(UInt8(ascii: "}"))
        case .filtered(let l, let reason, let distance, let t):
            out.raw("{\"type\":\"filtered\",\"t\":")
            out.number(Self.microseconds(t))
            out.raw(",\"lat\":")
            out.number(l.coordinate.latitude)
            out.raw(",\"lon\":")
            out.number(l.coordinate.longitude)
            switch reason {
            case .distanceFilter: out.raw(",\"reason\":\"distance-filter\",\"distance\":")
            case .accuracy: out.raw(",\"reason\":\"accuracy\",\"distance\":")
            }
            out.number(distance)
            out.byte(UInt8(ascii: "}"))
        case .ranking(let u, let group, let t):
            out.raw("{\"type\":\"ranking\",\"t\":")
            out.number(Self.microseconds(t))
            out.raw(",\"group\":")
            out.string(group)
            u.places.withUTF8 { utf8, starts in
                func list(_ rows: [UInt32], offset: Int = 0) {
                    rows.withUnsafeBufferPointer { rows in
                        if u.places.plain {
                            out.plainStrings(picking: rows, offset: offset, longest: u.places.longest, from: utf8, starts: starts)
                        } else {
                            out.strings(picking: rows, offset: offset, from: utf8, starts: starts)
                        }
                    }
                }
                out.raw(",\"order\":")
                list(u.rows)
                out.raw(",\"names\":")
                list(u.rows, offset: u.places.ids.count)
                out.raw(",\"distances\":")
                out.numbers(u.distances)
                out.raw(",\"moves\":[")
                for (k, move) in u.moves.enumerated() {
                    out.raw(k > 0 ? ",[" : "[")
                    out.int(move.from)
                    out.byte(UInt8(ascii: ","))
                    out.int(move.to)
                    out.byte(UInt8(ascii: "]"))
                }
                out.raw("],\"inserted\":")
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
                m.visibleRows.withUnsafeBufferPointer { rows in
                    if m.pins.plain {
                        out.plainStrings(picking: rows, longest: m.pins.longest, from: utf8, starts: starts)
                    } else {
                        out.strings(picking: rows, from: utf8, starts: starts)
                    }
                }
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
