// Package uuid is a stub of github.com/google/uuid.
package uuid

import "io"

type UUID [16]byte

func (u UUID) String() string                       { return "" }
func New() UUID                                     { return UUID{} }
func NewString() string                             { return "" }
func NewRandom() (UUID, error)                      { return UUID{}, nil }
func NewRandomFromReader(r io.Reader) (UUID, error) { return UUID{}, nil }
func Must(u UUID, err error) UUID                   { return u }
func Parse(s string) (UUID, error)                  { return UUID{}, nil }
