// Command worker wires the agents' workflows to their production dependencies. Lines marked
// HAZARD must be reported, lines marked TRAP must not.
package main

import (
	"database/sql"
	"net/http"

	"example.com/guardbench/agents"
	"example.com/guardbench/vecstore"
)

func main() {
	db, err := sql.Open("postgres", "postgres://localhost/agents")
	if err != nil {
		panic(err)
	}
	_ = agents.NewResearcher(
		http.DefaultClient, // HAZARD
		vecstore.New(db),   // HAZARD
	)
	_ = agents.NewFetcher(http.DefaultClient) // TRAP
}
