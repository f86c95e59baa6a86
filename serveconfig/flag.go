package serveconfig

// FlagValue is a flag.Value, and a pflag.Value, for one option: Set
// records the text in the explicit map that [Resolve] takes, so only the
// flags the user gave are there. Parsing and checking wait for Resolve.
type FlagValue struct {
	opt      Option
	explicit map[string]string
}

// NewFlagValue returns the value of o's flag, which records into explicit.
// Register it under o.Name with o.Usage; for a [Bool] option the flag
// takes no argument (IsBoolFlag; with pflag set NoOptDefVal to "true").
func NewFlagValue(o Option, explicit map[string]string) *FlagValue {
	return &FlagValue{opt: o, explicit: explicit}
}

// String returns the text given, else the option's default.
func (v *FlagValue) String() string {
	if v == nil {
		return ""
	}
	if s, ok := v.explicit[v.opt.Name]; ok {
		return s
	}
	return v.opt.Default
}

// Set records s.
func (v *FlagValue) Set(s string) error {
	v.explicit[v.opt.Name] = s
	return nil
}

// Type names the option's kind (pflag).
func (v *FlagValue) Type() string { return v.opt.Kind.String() }

// IsBoolFlag reports whether the flag takes no argument (the flag package).
func (v *FlagValue) IsBoolFlag() bool { return v.opt.Kind == Bool }
