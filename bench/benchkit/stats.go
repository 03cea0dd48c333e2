package benchkit

import (
	"fmt"
	"math"
	"slices"
)

// Summary describes a sample: its size, median, nearest-rank percentiles and
// a distribution-free 95% confidence interval of the median.
type Summary struct {
	N              int
	Min, Max       float64
	Median         float64
	P25, P75, P95  float64
	CILow, CIHigh  float64 // 95% confidence interval of the median
	CIDistribution bool    // false when N is too small for a 95% interval (N < 6)
}

// Summarize computes the Summary of xs. It does not modify xs and errors on
// an empty sample or a value that is not a finite number.
func Summarize(xs []float64) (Summary, error) {
	if len(xs) == 0 {
		return Summary{}, fmt.Errorf("benchkit: Summarize: empty sample")
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Summary{}, fmt.Errorf("benchkit: Summarize: value %d is %v", i, x)
		}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	out := Summary{
		N:      len(s),
		Min:    s[0],
		Max:    s[len(s)-1],
		Median: median(s),
		P25:    nearestRank(s, 0.25),
		P75:    nearestRank(s, 0.75),
		P95:    nearestRank(s, 0.95),
	}
	if lo, hi, ok := medianCIRanks(len(s), 0.95); ok {
		out.CILow, out.CIHigh, out.CIDistribution = s[lo-1], s[hi-1], true
	} else {
		out.CILow, out.CIHigh = out.Min, out.Max
	}
	return out, nil
}

// median of a sorted sample: the middle value, or the mean of the two
// middle values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// nearestRank is the p-quantile (0 < p ≤ 1) of a sorted sample by the
// nearest-rank method: the smallest value with at least p of the sample at
// or below it.
func nearestRank(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// medianCIRanks returns the 1-based ranks (lo, hi) of the order statistics
// that bound the median of n samples with at least the given confidence,
// whatever the distribution: the number of samples below the median is
// Binomial(n, 1/2), so [x(lo), x(hi)] with hi = n+1-lo covers it unless
// fewer than lo samples fall on one side. ok is false when even (1, n) does
// not reach the confidence.
func medianCIRanks(n int, confidence float64) (lo, hi int, ok bool) {
	alpha := 1 - confidence
	// cdf(k) = P(Binomial(n, 1/2) ≤ k).
	cdf := 0.0
	lo = 0
	for k := 0; k < n; k++ {
		cdf += binomialHalf(n, k)
		if 2*cdf > alpha {
			break
		}
		lo = k + 1
	}
	if lo < 1 {
		return 0, 0, false
	}
	return lo, n + 1 - lo, true
}

// binomialHalf is P(Binomial(n, 1/2) = k), computed in logarithms so that
// large n does not overflow.
func binomialHalf(n, k int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	return math.Exp(lg(n) - lg(k) - lg(n-k) - float64(n)*math.Ln2)
}
