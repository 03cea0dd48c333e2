// Package workflow has a Context that is not Temporal's.
package workflow

type Context interface{ Value(key any) any }
