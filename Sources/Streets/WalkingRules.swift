/// Which OpenStreetMap ways a pedestrian may use, from their tags.
///
/// The rules, and their sources, are in docs/Routing.md: a way is walkable
/// when its `highway` value is one a pedestrian may use (the OpenStreetMap
/// wiki's `Key:highway` and its default access table), it is not closed to
/// people on foot (`foot=no`, `foot=use_sidepath`), and not closed to
/// everyone (`access=no` or `private`, `service=private`) unless `foot` opens
/// it again (`yes`, `designated`, `permissive`). An area (`area=yes`) is
/// walked along its outline.
public enum WalkingRules {
    /// How a walkable way is used: steps are kept apart so that a route can avoid them.
    public enum Use: Sendable, Equatable {
        /// A way walked on the level (a footway, a street, a path).
        case walkway
        /// `highway=steps`.
        case steps
    }

    /// What a walkable way is drawn as on a map: a street, a footpath or steps.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A street or road (`residential`, `service`, `primary`, `pedestrian`, …).
        case street
        /// A way for people on foot, bicycles or horses (`footway`, `path`, `cycleway`, `bridleway`, `track`, `corridor`, `platform`, `elevator`).
        case path
        /// `highway=steps`.
        case steps
    }

    /// The `highway` values drawn as paths rather than streets.
    public static let pathHighways: Set<String> = ["footway", "path", "cycleway", "bridleway", "track", "corridor", "platform", "elevator"]

    /// What a way with these tags is drawn as, by its `highway` value (whether or not a pedestrian may use it).
    public static func kind(_ tags: [String: String]) -> Kind {
        guard let highway = tags["highway"] else { return .street }
        if highway == "steps" { return .steps }
        return pathHighways.contains(highway) ? .path : .street
    }

    /// The `highway` values a pedestrian may use.
    public static let walkableHighways: Set<String> = [
        "footway", "path", "pedestrian", "steps", "living_street", "residential", "service", "unclassified", "road", "track",
        "tertiary", "tertiary_link", "secondary", "secondary_link", "primary", "primary_link", "trunk", "trunk_link",
        "cycleway", "bridleway", "corridor", "elevator", "platform",
    ]

    /// `foot` values that close a way to pedestrians.
    public static let footForbidden: Set<String> = ["no", "use_sidepath"]

    /// `access` values that close a way to everyone unless `foot` opens it.
    public static let accessForbidden: Set<String> = ["no", "private"]

    /// `foot` values that open a way whatever its `access`.
    public static let footAllowed: Set<String> = ["yes", "designated", "permissive"]

    /// The use of a way with these tags, or nil when a pedestrian may not use it.
    public static func use(_ tags: [String: String]) -> Use? {
        guard let highway = tags["highway"], walkableHighways.contains(highway) else { return nil }
        let foot = tags["foot"]
        if let foot, footForbidden.contains(foot) { return nil }
        let opened = foot.map(footAllowed.contains) ?? false
        if !opened {
            if let access = tags["access"], accessForbidden.contains(access) { return nil }
            if tags["service"] == "private" { return nil }
        }
        return highway == "steps" ? .steps : .walkway
    }

    /// Whether a node with these tags is a place where a pedestrian waits to
    /// cross: a crossing of a road (`highway=crossing`, unless `crossing=no`:
    /// the wiki's Tag:highway=crossing), traffic signals (`highway=traffic_signals`),
    /// or a crossing of a railway (`railway=crossing` for people on foot,
    /// `railway=level_crossing` for a road's: Tag:railway=crossing).
    public static func waitsToCross(_ tags: [String: String]) -> Bool {
        switch tags["highway"] {
        case "crossing": return tags["crossing"] != "no"
        case "traffic_signals": return true
        default: return tags["railway"] == "crossing" || tags["railway"] == "level_crossing"
        }
    }
}
