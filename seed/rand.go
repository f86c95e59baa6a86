package seed

import (
	"hash/fnv"
	"math"
	"math/bits"
	"sort"
)

// rng is a SplitMix64 generator. The generator owns it (rather than using math/rand) so that
// the same seed gives the same graph on every Go release.
type rng struct{ s uint64 }

// stream returns an independent generator for (seed, name): one per entity and relationship,
// so adding a stream does not change the others.
func stream(seed uint64, name string) *rng {
	h := fnv.New64a()
	h.Write([]byte(name))
	r := &rng{s: seed ^ h.Sum64()}
	r.next() // decorrelate nearby seeds
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a uniform integer in [0, n) by Lemire's multiply-and-reject method.
func (r *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	un := uint64(n)
	hi, lo := bits.Mul64(r.next(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(r.next(), un)
		}
	}
	return int(hi)
}

// between returns a uniform integer in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// float returns a uniform float in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// geometric returns the number of failures before the first success with probability p.
func (r *rng) geometric(p float64, limit int) int {
	n := 0
	for n < limit && !r.chance(p) {
		n++
	}
	return n
}

// weighted picks an index with the given weights.
func (r *rng) weighted(weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := r.float() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// zipf samples ranks 0..n-1 with probability proportional to 1/(rank+1)^s, by inverse CDF.
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) *zipf {
	z := &zipf{cdf: make([]float64, n)}
	total := 0.0
	for i := range n {
		total += 1 / math.Pow(float64(i+1), s)
		z.cdf[i] = total
	}
	for i := range z.cdf {
		z.cdf[i] /= total
	}
	return z
}

func (z *zipf) sample(r *rng) int {
	x := r.float()
	i := sort.SearchFloat64s(z.cdf, x)
	return min(i, len(z.cdf)-1)
}
