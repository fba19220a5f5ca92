import ArgumentParser
import PlaceSources
import PlacesOSM

extension SimulationOptions {
    /// How places are chosen from sources that hold more than places: the
    /// same options wherever a command reads a place source.
    struct PlaceChoice: ParsableArguments {
        @Option(name: .customLong("osm-filter"), help: ArgumentHelp("OpenStreetMap places (.osm.pbf, .osm, Overpass JSON): the elements with this tag, KEY=V1,V2 or KEY; repeatable. The group is the value.", valueName: "KEY=VALUES"))
        var osmFilters: [String] = []

        @Option(name: .customLong("group-name"), help: ArgumentHelp("OpenStreetMap places: one group of this name instead of a group per tag value.", valueName: "NAME"))
        var groupName: String?

        @Option(name: .customLong("name-column"), help: ArgumentHelp("GeoPackage places: the column holding each place's name (default: name, title or label).", valueName: "COLUMN"))
        var nameColumn: String?

        @Option(name: .customLong("group-column"), help: ArgumentHelp("GeoPackage places: the column holding each place's group (default: group, kind, category, type, amenity or class; else the layer's name).", valueName: "COLUMN"))
        var groupColumn: String?

        @Option(name: .customLong("places-sql"), help: ArgumentHelp("PostGIS places: this query's rows instead of the URI's table (its columns chosen or guessed as a table's).", valueName: "SQL"))
        var sql: String?

        func validate() throws {
            for f in osmFilters where OSMFilter(parsing: f) == nil {
                throw ValidationError("--osm-filter takes KEY=VALUE,VALUE or KEY (for example amenity=cafe,restaurant), not \"\(f)\"")
            }
            if let groupName, groupName.isEmpty { throw ValidationError("--group-name must not be empty") }
        }

        /// The options as the library takes them.
        var options: PlaceSources.Options {
            PlaceSources.Options(osmFilters: osmFilters.compactMap(OSMFilter.init(parsing:)), groupName: groupName, nameColumn: nameColumn,
                                 groupColumn: groupColumn, sql: sql)
        }

        /// The options again as command-line arguments.
        var arguments: [String] {
            var a: [String] = []
            for f in osmFilters { a += ["--osm-filter", f] }
            if let groupName { a += ["--group-name", groupName] }
            if let nameColumn { a += ["--name-column", nameColumn] }
            if let groupColumn { a += ["--group-column", groupColumn] }
            if let sql { a += ["--places-sql", sql] }
            return a
        }
    }
}
