package compiler

import (
	"maps"
	"slices"
	"strconv"
)

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func itoa(n int) string { return strconv.Itoa(n) }
