// Package registry hands out its tools as iterators: All in map order, Sorted not.
package registry

import (
	"iter"
	"maps"
	"slices"
)

// Registry holds tools by name.
type Registry struct{ tools map[string]int }

// All yields the tools in the map's order.
func (r *Registry) All() iter.Seq2[string, int] { return maps.All(r.tools) } // want All:`^yields in map order$`

// Names yields the names in the map's order, from a range in its own iterator.
func (r *Registry) Names() iter.Seq[string] { // want Names:`^yields in map order$`
	return func(yield func(string) bool) {
		for name := range r.tools {
			if !yield(name) {
				return
			}
		}
	}
}

// Sorted yields the names in order.
func (r *Registry) Sorted() iter.Seq[string] {
	return slices.Values(slices.Sorted(maps.Keys(r.tools)))
}
