package semver_test

import (
	"testing"

	"github.com/graphwire/graphwire/internal/semver"
)

func TestValid(t *testing.T) {
	for _, v := range []string{"0.0.0", "4.0.1", "10.20.30", "1.0.0-alpha.1", "1.0.0-0A.is.legal", "1.0.0+build.01", "1.0.0-rc.1+b", "1.0.0-x-y-z.--"} {
		if !semver.Valid(v) {
			t.Errorf("%q rejected", v)
		}
	}
	for _, v := range []string{"", "4", "4.0", "v4.0.1", "04.0.1", "4.00.1", "4.0.1-", "4.0.1+", "4.0.1-01", "4.0.1-a..b", "4.0.1 ", "4.0.1\n", "4.0.1-é", "1.2.3.4", "99999999999999999999.0.0"} {
		if semver.Valid(v) {
			t.Errorf("%q accepted", v)
		}
	}
}

func TestCompare(t *testing.T) {
	// semver.org's precedence example, plus releases around it.
	ordered := []string{"0.0.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "4.0.1", "10.0.0", "not-a-version"}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := semver.Compare(ordered[i], ordered[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	if semver.Compare("1.0.0+a", "1.0.0+b") != 0 {
		t.Error("build metadata takes part in precedence")
	}
}
