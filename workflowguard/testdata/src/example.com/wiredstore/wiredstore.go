// Package wiredstore holds vector indexes for any program: it does not import the workflow's
// package, so only the program that wires one into a workflow can tell it runs there.
package wiredstore

import (
	"database/sql"
	"strings"
)

// PG searches a pgvector table.
type PG struct{ db *sql.DB }

// NewPG returns an index over db.
func NewPG(db *sql.DB) *PG { return &PG{db: db} }

// Nearest queries the database.
func (p *PG) Nearest(query string) []string { // want Nearest:`reaches\(ADK-W004 \(\*wiredstore.PG\).Nearest → \(\*database/sql.DB\).Query`
	rows, err := p.db.Query("SELECT id FROM docs ORDER BY embedding <-> $1 LIMIT 5", query)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		ids = append(ids, id)
	}
	return ids
}

// Fixed is an index over a fixed list, for tests.
type Fixed []string

// Nearest filters the list.
func (f Fixed) Nearest(query string) []string {
	var out []string
	for _, d := range f {
		if strings.Contains(d, query) {
			out = append(out, d)
		}
	}
	return out
}
