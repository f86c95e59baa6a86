package load

// validPathSQL is the engine's test of the rule [compiler.ValidPath] states for the
// traversal_path v: 1 to 20 segments, each a positive integer without leading zeros that fits
// an Int64, followed by "/". TestValidPathSQL checks that the two agree.
func validPathSQL(v string) string {
	return "(match(" + v + ", '^([1-9][0-9]{0,18}/){1,20}$') AND arrayAll(s -> accurateCastOrNull(s, 'Int64') IS NOT NULL, arrayPopBack(splitByChar('/', " + v + "))))"
}
