package redact_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/redact"
	"github.com/graphwire/graphwire/telemetry"
)

var alice = redact.NewCaller("alice-authz", "42", false, []redact.Scope{{Path: "1/100/", AccessLevel: 30}})

func newAuthority(t *testing.T, opts redact.Options) *redact.Authority {
	t.Helper()
	a, err := redact.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestCheckAllowList(t *testing.T) {
	url, _ := startAuthority(t, allowList{
		Users:  map[string]map[string][]string{"42": {"Project": {"1", "2"}, "MergeRequest": {"9"}}},
		Admins: "all",
	})
	a := newAuthority(t, redact.Options{URL: url, BatchSize: 2})
	tests := []struct {
		name   string
		caller redact.Caller
		typ    string
		ids    []int64
		want   map[int64]bool
	}{
		{"some allowed, over batches", alice, "Project", []int64{1, 2, 3, 4, 5, 2}, map[int64]bool{1: true, 2: true}},
		{"another type", alice, "MergeRequest", []int64{9, 10}, map[int64]bool{9: true}},
		{"a type with no grant", alice, "Vulnerability", []int64{1}, map[int64]bool{}},
		{"unknown user", redact.NewCaller("bob-authz", "7", false, nil), "Project", []int64{1, 2}, map[int64]bool{}},
		{"admin", redact.NewCaller("root-authz", "1", true, nil), "Project", []int64{1, 77}, map[int64]bool{1: true, 77: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Check(t.Context(), tt.caller, tt.typ, tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("allowed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckFaults runs the authority misbehaving in each way it can: every
// one fails the check closed with the reason, never an allow.
func TestCheckFaults(t *testing.T) {
	faults := map[string]string{"1": "slow", "2": "malformed", "3": "wrong-ids", "4": "wrong-type", "5": "huge", "6": "status", "7": "hang"}
	users := map[string]map[string][]string{}
	for u := range faults {
		users[u] = map[string][]string{"Project": {"1"}}
	}
	url, _ := startAuthority(t, allowList{Users: users, Faults: faults}, "--delay", "30s")
	a := newAuthority(t, redact.Options{URL: url, Timeout: 300 * time.Millisecond, CacheTTL: -1})
	tests := []struct {
		user, reason string
	}{
		{"1", redact.ReasonTimeout},
		{"2", redact.ReasonMalformed},
		{"3", redact.ReasonMalformed},
		{"4", redact.ReasonMalformed},
		{"5", redact.ReasonMalformed},
		{"6", redact.ReasonUnavailable},
		{"7", redact.ReasonTimeout},
	}
	for _, tt := range tests {
		t.Run(faults[tt.user], func(t *testing.T) {
			c := redact.NewCaller("k"+tt.user, tt.user, false, nil)
			got, err := a.Check(t.Context(), c, "Project", []int64{1, 2})
			var re *redact.Error
			if !errors.As(err, &re) || !errors.Is(err, redact.ErrUnavailable) {
				t.Fatalf("Check = %v, %v; want a *redact.Error", got, err)
			}
			if want := (redact.Error{Type: "Project", Reason: tt.reason}); re.Type != want.Type || re.Reason != want.Reason {
				t.Errorf("error %s/%s, want %s/%s (%v)", re.Type, re.Reason, want.Type, want.Reason, err)
			}
		})
	}
}

// TestCheckDown stops the authority: the check fails as unavailable.
func TestCheckDown(t *testing.T) {
	url, stop := startAuthority(t, allowList{Users: map[string]map[string][]string{"42": {"Project": {"1"}}}})
	a := newAuthority(t, redact.Options{URL: url, CacheTTL: -1})
	if _, err := a.Check(t.Context(), alice, "Project", []int64{1}); err != nil {
		t.Fatalf("authority up: %v", err)
	}
	stop()
	_, err := a.Check(t.Context(), alice, "Project", []int64{1})
	var re *redact.Error
	if !errors.As(err, &re) || re.Reason != redact.ReasonUnavailable {
		t.Fatalf("Check with the authority down = %v, want unavailable", err)
	}
}

// TestCheckRequestDeadline: the caller's own deadline bounds the call too.
func TestCheckRequestDeadline(t *testing.T) {
	url, _ := startAuthority(t, allowList{Users: map[string]map[string][]string{}, Faults: map[string]string{"42": "hang"}})
	a := newAuthority(t, redact.Options{URL: url, Timeout: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := a.Check(ctx, alice, "Project", []int64{1})
	var re *redact.Error
	if !errors.As(err, &re) || re.Reason != redact.ReasonTimeout {
		t.Fatalf("Check past the request's deadline = %v, want timeout", err)
	}
}

// TestCache: a decision is reused for the same caller within the TTL, never
// for another caller (the same user with other scopes is another caller),
// and asked again once it expired.
func TestCache(t *testing.T) {
	url, _ := startAuthority(t, allowList{Users: map[string]map[string][]string{"42": {"Project": {"1"}}}})
	m, err := telemetry.New(telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	a := newAuthority(t, redact.Options{URL: url, CacheTTL: 10 * time.Second, Now: func() time.Time { return now }, Metrics: m})
	check := func(c redact.Caller) {
		t.Helper()
		got, err := a.Check(t.Context(), c, "Project", []int64{1, 2})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[int64]bool{1: true}, got); diff != "" {
			t.Errorf("allowed (-want +got):\n%s", diff)
		}
	}
	check(alice)
	check(alice)                                                                             // cached
	check(redact.NewCaller("alice-other-scopes", "42", false, []redact.Scope{{Path: "1/"}})) // not shared
	now = now.Add(11 * time.Second)
	check(alice) // expired
	if got, want := metric(t, m, `graphwire_redaction_calls_total{result="ok"}`), "3"; got != want {
		t.Errorf("authority calls = %s, want %s", got, want)
	}
	if got, want := metric(t, m, `graphwire_redaction_cache_lookups_total{result="hit"}`), "2"; got != want {
		t.Errorf("cache hits = %s, want %s", got, want)
	}
	if got, want := metric(t, m, `graphwire_redaction_denied_total{entity="Project"}`), "3"; got != want {
		t.Errorf("denied = %s, want %s", got, want)
	}
}

func TestNewRefusesURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x/", "localhost:80", "http://"} {
		if _, err := redact.New(redact.Options{URL: u}); err == nil {
			t.Errorf("New(%q) accepted", u)
		}
	}
}

// TestCheckClosedPort: nothing listens at the URL.
func TestCheckClosedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	a := newAuthority(t, redact.Options{URL: "http://" + addr + "/"})
	var re *redact.Error
	if _, err := a.Check(t.Context(), alice, "Project", []int64{1}); !errors.As(err, &re) || re.Reason != redact.ReasonUnavailable {
		t.Fatalf("Check = %v, want unavailable", err)
	}
}

// metric reads one sample of m's exposition.
func metric(t *testing.T, m *telemetry.Metrics, series string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	t.Fatalf("no series %s", series)
	return ""
}

// TestCacheBounded: the per-caller cache keeps at most CacheCallers callers (the least
// recently used goes) and CacheEntries decisions per caller.
func TestCacheBounded(t *testing.T) {
	url, _ := startAuthority(t, allowList{Users: map[string]map[string][]string{"42": {"Project": {"1"}}, "43": {"Project": {"1"}}}})
	m, err := telemetry.New(telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := newAuthority(t, redact.Options{URL: url, CacheTTL: time.Hour, CacheCallers: 1, CacheEntries: 2, Metrics: m})
	bob := redact.NewCaller("bob-authz", "43", false, nil)
	asked := func() string { return metric(t, m, `graphwire_redaction_ids_total{source="authority"}`) }
	for _, step := range []struct {
		c    redact.Caller
		ids  []int64
		want string // ids asked of the authority so far
	}{
		{alice, []int64{1, 2}, "2"},
		{alice, []int64{1, 2}, "2"},    // cached
		{bob, []int64{1}, "3"},         // bob pushes alice out
		{alice, []int64{1}, "4"},       // asked again
		{alice, []int64{3, 4, 5}, "7"}, // over two entries: the cache starts over
		{alice, []int64{1}, "8"},
	} {
		if _, err := a.Check(t.Context(), step.c, "Project", step.ids); err != nil {
			t.Fatal(err)
		}
		if got := asked(); got != step.want {
			t.Fatalf("after %v for %v: %s ids asked, want %s", step.ids, step.c.UserID, got, step.want)
		}
	}
}
