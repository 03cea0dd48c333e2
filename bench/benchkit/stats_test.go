package benchkit

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want Summary
	}{
		{"odd", []float64{5, 1, 3}, Summary{N: 3, Min: 1, Max: 5, Median: 3, P25: 1, P75: 5, P95: 5, CILow: 1, CIHigh: 5}},
		{"even", []float64{4, 1, 3, 2}, Summary{N: 4, Min: 1, Max: 4, Median: 2.5, P25: 1, P75: 3, P95: 4, CILow: 1, CIHigh: 4}},
		// n=6: P(X ≤ 0) = 1/64, 2/64 ≤ 0.05, so the interval is (x1, x6).
		{"six", []float64{6, 5, 4, 3, 2, 1}, Summary{N: 6, Min: 1, Max: 6, Median: 3.5, P25: 2, P75: 5, P95: 6, CILow: 1, CIHigh: 6, CIDistribution: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Summarize(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Summarize(%v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestSummarizeRefusesBadSamples(t *testing.T) {
	for name, in := range map[string][]float64{
		"empty": nil,
		"NaN":   {1, math.NaN()},
		"Inf":   {math.Inf(1)},
	} {
		if _, err := Summarize(in); err == nil {
			t.Errorf("%s: Summarize(%v) gave no error", name, in)
		}
	}
}

func TestSummarizeKeepsInput(t *testing.T) {
	in := []float64{3, 1, 2}
	if _, err := Summarize(in); err != nil {
		t.Fatal(err)
	}
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("Summarize sorted its input: %v", in)
	}
}

// The ranks of the 95% interval of the median, as published tables give them
// (for example n=10: 2nd and 9th; n=20: 6th and 15th; n=30: 10th and 21st).
func TestMedianCIRanks(t *testing.T) {
	tests := []struct{ n, lo, hi int }{
		{6, 1, 6}, {10, 2, 9}, {15, 4, 12}, {20, 6, 15}, {30, 10, 21},
	}
	for _, tt := range tests {
		lo, hi, ok := medianCIRanks(tt.n, 0.95)
		if !ok || lo != tt.lo || hi != tt.hi {
			t.Errorf("medianCIRanks(%d) = %d, %d, %v; want %d, %d", tt.n, lo, hi, ok, tt.lo, tt.hi)
		}
	}
	if _, _, ok := medianCIRanks(5, 0.95); ok {
		t.Error("medianCIRanks(5) claims a 95% interval; five samples cannot give one")
	}
}
