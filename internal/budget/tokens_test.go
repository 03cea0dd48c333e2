package budget

import (
	"testing"
)

// CostOf prices uncached input, cached input and output apart and rounds
// up; a reservation at the highest price is never below the cost of any
// usage within its cap.
func TestCostOfAndReservation(t *testing.T) {
	p := Price{Input: 2_000_000, CachedInput: 500_000, Output: 8_000_000}
	got, err := CostOf(Usage{InputTokens: 200, CachedInputTokens: 50, OutputTokens: 100}, p)
	if err != nil {
		t.Fatal(err)
	}
	// 150 × 2 + 50 × 0.5 + 100 × 8 micro-dollars.
	if want := Micros(150*2 + 50/2 + 100*8); got != want {
		t.Errorf("CostOf = %d, want %d", got, want)
	}
	if got, _ := CostOf(Usage{InputTokens: 1}, Price{Input: 1}); got != 1 {
		t.Errorf("a millionth of a micro-dollar rounds up to 1, got %d", got)
	}
	res, err := ReservationCost(1000, p)
	if err != nil {
		t.Fatal(err)
	}
	if res != 1000*8 {
		t.Errorf("ReservationCost = %d, want %d", res, 1000*8)
	}
	for in := int64(0); in <= 1000; in += 125 {
		for cached := int64(0); cached <= in; cached += 125 {
			c, err := CostOf(Usage{InputTokens: in, CachedInputTokens: cached, OutputTokens: 1000 - in}, p)
			if err != nil {
				t.Fatal(err)
			}
			if c > res {
				t.Errorf("usage %d/%d/%d costs %d, above the reservation %d", in, cached, 1000-in, c, res)
			}
		}
	}
	if _, err := ReservationCost(1<<62, p); err == nil {
		t.Error("an overflowing reservation is an error")
	}
	if _, err := CostOf(Usage{InputTokens: 1, CachedInputTokens: 2}, p); err == nil {
		t.Error("more cached than input is an error")
	}
}

// Reserve checks both budgets before it reserves either; Settle turns a
// reservation into what was spent; Remaining never goes below zero.
func TestReserveAndSettle(t *testing.T) {
	tokens, _ := NewTokenBudget(1000)
	cost, _ := NewCostBudget(100)
	k := Key{Class: "MODEL", Model: "m"}
	if r := Reserve(tokens, cost, k, Reservation{Tokens: 500, Cost: 101}); r == nil || r.Breached != "cost" {
		t.Fatalf("refusal %+v, want cost", r)
	}
	if tokens.Reserved() != 0 {
		t.Errorf("a refusal by the cost budget reserved %d tokens", tokens.Reserved())
	}
	if r := Reserve(tokens, cost, k, Reservation{Tokens: 600, Cost: 50}); r != nil {
		t.Fatal(r)
	}
	Settle(tokens, cost, k, Reservation{Tokens: 600, Cost: 50}, Reservation{Tokens: 300, Cost: 20})
	if tokens.Spent() != 300 || tokens.Reserved() != 0 || tokens.Remaining() != 700 || cost.Spent() != 20 {
		t.Errorf("after settling: %+v %+v", tokens.State(), cost.State())
	}
	if r := Reserve(tokens, nil, k, Reservation{Tokens: 701}); r == nil || r.Breached != "tokens" || r.Spent != 300 || r.Limit != 1000 {
		t.Errorf("refusal %+v", r)
	}
	Settle(tokens, nil, k, Reservation{}, Reservation{Tokens: 900})
	if tokens.Remaining() != 0 {
		t.Errorf("Remaining %d after an overrun, want 0", tokens.Remaining())
	}
	if _, err := NewTokenBudget(0); err == nil {
		t.Error("NewTokenBudget(0) is an error")
	}
	if _, err := NewCostBudget(-1); err == nil {
		t.Error("NewCostBudget(-1) is an error")
	}
}

// A named budget is handed over with its reservations counted as spent,
// and restored never wider.
func TestChainCarriesMeters(t *testing.T) {
	c := NewChain(Carried{})
	b, err := c.TokenBudget("t", 1000)
	if err != nil {
		t.Fatal(err)
	}
	k := Key{Class: "MODEL", Model: "m"}
	_ = Reserve(b, nil, k, Reservation{Tokens: 400})
	Settle(b, nil, k, Reservation{Tokens: 400}, Reservation{Tokens: 100})
	_ = Reserve(b, nil, k, Reservation{Tokens: 200})
	carried := c.Close()
	if got := carried.Tokens["t"]; got != (MeterState{Limit: 1000, Spent: 300}) {
		t.Errorf("carried %+v", got)
	}
	if err := carried.Validate(); err != nil {
		t.Fatal(err)
	}
	next, err := NewChain(carried).TokenBudget("t", 5000)
	if err != nil {
		t.Fatal(err)
	}
	if next.Limit() != 1000 || next.Spent() != 300 {
		t.Errorf("restored limit %d settled %d", next.Limit(), next.Spent())
	}
	if err := (Carried{Costs: map[string]MeterState{"c": {Limit: 1, Spent: -2}}}).Validate(); err == nil {
		t.Error("a carried cost budget with a negative spending is an error")
	}
	if err := (Carried{Costs: map[string]MeterState{"c": {Limit: 1, Spent: 2}}}).Validate(); err != nil {
		t.Errorf("a carried cost budget spent past a narrowed limit keeps its spending: %v", err)
	}
}
