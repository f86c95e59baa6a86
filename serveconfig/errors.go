package serveconfig

import (
	"errors"
	"fmt"
)

// Sentinels that an [Error] wraps.
var (
	ErrUnknownOption = errors.New("unknown option")
	ErrInvalidValue  = errors.New("invalid value")
	ErrInvalidFile   = errors.New("invalid config file")
	ErrInvalid       = errors.New("invalid configuration")
)

// Error is a configuration problem and where it comes from. Source is
// "--NAME" for a flag, the variable's name for the environment, FILE:LINE
// for the config file, and "" for a rule over several options or for a
// default value that breaks a rule. Err wraps one of the sentinels above.
type Error struct {
	Source string
	Option string
	Err    error

	own bool // a rule over Option's own value, whose Source Resolve fills in
}

func (e *Error) Error() string {
	switch {
	case e.Source == "" && e.Option == "":
		return "serveconfig: " + e.Err.Error()
	case e.Source == "":
		return fmt.Sprintf("serveconfig: %s: %v", e.Option, e.Err)
	case e.Option == "" || e.Source == "--"+e.Option:
		return fmt.Sprintf("serveconfig: %s: %v", e.Source, e.Err)
	}
	return fmt.Sprintf("serveconfig: %s: %s: %v", e.Source, e.Option, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
