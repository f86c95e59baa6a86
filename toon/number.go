package toon

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// CanonicalNumber re-spells a JSON number literal in the canonical form of
// the TOON spec (§2.3), exactly from its digits and without going through
// float64:
//
//   - zero, also -0 and 0e5, is "0";
//   - literals without '.', 'e' or 'E' keep their digits and sign;
//   - other values with 1e-6 <= |x| < 1e21 are plain decimals without
//     exponent, trailing fractional zeros or trailing point;
//   - values outside that range use the shortest mantissa, a lowercase 'e',
//     an explicit sign and no leading exponent zeros (1e+21, 1.5e-7).
//
// The literal must follow the JSON number grammar; anything else is an error.
// A literal that is already canonical is returned unchanged, without
// allocating.
func CanonicalNumber(lit string) (string, error) {
	neg, intPart, frac, exp, ok := splitNumber(lit)
	if !ok {
		return "", fmt.Errorf("toon: %q is not a JSON number", lit)
	}
	if frac == "" && exp == "" {
		// Integer literal: digits and sign as written; -0 becomes 0.
		if intPart == "0" {
			return "0", nil
		}
		return lit, nil
	}
	if exp == "" && frac[len(frac)-1] != '0' {
		// Plain decimals already in canonical form: no trailing zeros and
		// 1e-6 <= |x| < 1e21.
		if intPart != "0" && len(intPart) <= 21 {
			return lit, nil
		}
		if intPart == "0" && len(frac)-len(strings.TrimLeft(frac, "0")) <= 5 {
			return lit, nil
		}
	}
	return canonicalDecimal(lit, neg, intPart, frac, exp), nil
}

// splitNumber checks the JSON number grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and returns its parts; exp
// holds the exponent with its sign, without the 'e'.
func splitNumber(s string) (neg bool, intPart, frac, exp string, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart = s[start:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return false, "", "", "", false
	}
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == fs {
			return false, "", "", "", false
		}
		frac = s[fs:i]
		if frac == "" {
			return false, "", "", "", false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == ds {
			return false, "", "", "", false
		}
		exp = s[es:i]
	}
	if i != len(s) {
		return false, "", "", "", false
	}
	return neg, intPart, frac, exp, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// canonicalDecimal spells a non-integer literal. The value is
// 0.d1d2…dn × 10^point with d1 != 0.
func canonicalDecimal(lit string, neg bool, intPart, frac, exp string) string {
	digits := intPart + frac
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	if lead == len(digits) {
		return "0"
	}
	end := len(digits)
	for digits[end-1] == '0' {
		end--
	}
	sig := digits[lead:end]
	// The decimal point sits after len(intPart) digits of `digits`; after
	// dropping `lead` leading zeros it sits after len(intPart)-lead digits.
	// point is the exponent of 0.sig: value = 0.sig × 10^point.
	base := int64(len(intPart) - lead)
	var point int64
	e, err := strconv.ParseInt(exp, 10, 64)
	if exp == "" {
		e, err = 0, nil
	}
	if err != nil || e > math.MaxInt64/4 || e < math.MinInt64/4 {
		return canonicalHuge(neg, sig, base, exp)
	}
	point = base + e
	// Scientific exponent of the leading digit: value = d1.d2… × 10^(point-1).
	sci := point - 1
	var b strings.Builder
	b.Grow(len(sig) + 24)
	if neg {
		b.WriteByte('-')
	}
	switch {
	case sci >= -6 && sci < 21:
		if point <= 0 {
			b.WriteString("0.")
			for k := int64(0); k < -point; k++ {
				b.WriteByte('0')
			}
			b.WriteString(sig)
		} else if int64(len(sig)) <= point {
			b.WriteString(sig)
			for k := int64(len(sig)); k < point; k++ {
				b.WriteByte('0')
			}
		} else {
			b.WriteString(sig[:point])
			b.WriteByte('.')
			b.WriteString(sig[point:])
		}
	default:
		writeSci(&b, sig, strconv.FormatInt(abs64(sci), 10), sci < 0)
	}
	out := b.String()
	if out == lit {
		return lit
	}
	return out
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func writeSci(b *strings.Builder, sig, expDigits string, negExp bool) {
	b.WriteByte(sig[0])
	if len(sig) > 1 {
		b.WriteByte('.')
		b.WriteString(sig[1:])
	}
	b.WriteByte('e')
	if negExp {
		b.WriteByte('-')
	} else {
		b.WriteByte('+')
	}
	b.WriteString(expDigits)
}

// canonicalHuge handles exponents beyond int64 range: the value is always
// outside [1e-6, 1e21), so the exponent form applies.
func canonicalHuge(neg bool, sig string, base int64, exp string) string {
	e, _ := new(big.Int).SetString(strings.TrimPrefix(exp, "+"), 10)
	sci := e.Add(e, big.NewInt(base-1))
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	negExp := sci.Sign() < 0
	writeSci(&b, sig, new(big.Int).Abs(sci).String(), negExp)
	return b.String()
}

// formatFloat returns the canonical text of a finite float64.
func formatFloat(f float64) string {
	if f == 0 {
		return "0"
	}
	a := math.Abs(f)
	if a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return stripExpZeros(strconv.FormatFloat(f, 'e', -1, 64))
}

// appendFloat appends the canonical text of a finite float64.
func appendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	a := math.Abs(f)
	if a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	return append(dst, stripExpZeros(strconv.FormatFloat(f, 'e', -1, 64))...)
}

// formatFloat32 returns the canonical text of a finite float32: its shortest
// round-trip digits, canonicalised as a literal.
func formatFloat32(f float32) string {
	if f == 0 {
		return "0"
	}
	s, _ := CanonicalNumber(strconv.FormatFloat(float64(f), 'e', -1, 32))
	return s
}

func stripExpZeros(s string) string {
	i := strings.IndexByte(s, 'e')
	if i < 0 || i+2 >= len(s) {
		return s
	}
	j := i + 2
	for j < len(s)-1 && s[j] == '0' {
		j++
	}
	if j == i+2 {
		return s
	}
	return s[:i+2] + s[j:]
}

// isNumberLike reports whether s matches the encoder's quoting pattern
// ^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$.
func isNumberLike(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	return decimalTail(s, i)
}

// decimalTail matches [0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$ from s[i:].
func decimalTail(s string, i int) bool {
	ds := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == ds {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == fs {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == es {
			return false
		}
	}
	return i == len(s)
}

// decodeNumber reports whether an unquoted token is a TOON number
// (^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$ without a forbidden leading zero)
// and returns its canonical text.
func decodeNumber(tok string) (string, bool) {
	if tok == "" {
		return "", false
	}
	c := tok[0]
	if c != '-' && !isDigit(c) {
		return "", false
	}
	i := 0
	if c == '-' {
		i = 1
	}
	// Fast path: plain integers.
	j := i
	for j < len(tok) && isDigit(tok[j]) {
		j++
	}
	if j == i {
		return "", false
	}
	if j-i > 1 && tok[i] == '0' {
		return "", false // forbidden leading zero: a string
	}
	if j == len(tok) {
		if j-i == 1 && tok[i] == '0' {
			return "0", true
		}
		return tok, true
	}
	if !decimalTail(tok, i) {
		return "", false
	}
	s, err := CanonicalNumber(tok)
	if err != nil {
		return "", false
	}
	return s, true
}
