// The ranking engine ranks `Place`s: code that imports Proximity has the place
// model and its readers without a second import.
@_exported import Places
