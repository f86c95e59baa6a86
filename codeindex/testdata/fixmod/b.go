package fix

import (
	"strings"
)

func helper() string { return strings.ToUpper("x") }

func init() {}

func init() { _ = V }
