// Package vecstore is a vector index on PostgreSQL for any program: it knows nothing of
// workflows. Lines marked TRAP must not be reported.
package vecstore

import (
	"context"
	"database/sql"
)

// Index searches a pgvector table.
type Index struct{ db *sql.DB }

// New returns an index over db.
func New(db *sql.DB) *Index { return &Index{db: db} }

// Nearest queries the database; it is reported where a program wires it into a workflow.
func (ix *Index) Nearest(ctx context.Context, query string, k int) ([]string, error) {
	rows, err := ix.db.QueryContext(ctx, "SELECT id FROM docs ORDER BY embedding <-> $1 LIMIT $2", query, k) // TRAP
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
