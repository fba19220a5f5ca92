"""osmium export's type_id ids as Stroll's place ids."""


def osm_id(feature):
    """n1, w2, a4 (areas from way 2 or, odd, relation 2) as node/1, way/2, relation/2."""
    kind, number = feature["id"][0], int(feature["id"][1:])
    if kind == "n":
        return "node/%d" % number
    if kind == "w":
        return "way/%d" % number
    return "way/%d" % (number // 2) if number % 2 == 0 else "relation/%d" % (number // 2)
