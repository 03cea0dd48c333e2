// Command wiredmain wires an *http.Client behind the Doer and a file-backed index into the
// workflow of wiredlib; a pure stand-in index is quiet.
package main

import (
	"database/sql"
	"net/http"
	"os"
	"strings"

	"example.com/wiredlib"
	"example.com/wiredstore"
)

type httpDoer struct{ client *http.Client }

func (d *httpDoer) Do(url string) (string, error) { // want Do:`reaches\(ADK-W004` `^ADK-W005 helper reaches network, process, environment or file I/O \(ADK-W004\) on the workflow path \(\(wiredlib.Doer\).Do, called by workflow \(\*wiredlib.Agent\).Run at wiredlib.go:26:9 → \(\*main.httpDoer\).Do → \(\*net/http.Client\).Get\); move the call into an activity`
	resp, err := d.client.Get(url)
	if err != nil {
		return "", err
	}
	return resp.Status, resp.Body.Close()
}

type fileIndex struct{ path string }

func (ix fileIndex) Nearest(query string) []string { // want Nearest:`reaches\(ADK-W004` `\(\(wiredlib.Index\).Nearest, called by workflow \(\*wiredlib.Agent\).Run at wiredlib.go:25:6 → \(main.fileIndex\).Nearest → os.ReadFile\); read it in an activity`
	b, _ := os.ReadFile(ix.path)
	return strings.Fields(string(b))
}

type memIndex struct{ docs []string }

func (ix memIndex) Nearest(query string) []string { return ix.docs }

func main() { // want main:`reaches\(ADK-W004 main.main → database/sql.Open`
	_ = &wiredlib.Agent{Deps: wiredlib.Deps{HTTP: &httpDoer{client: http.DefaultClient}, Index: fileIndex{path: "index"}}}
	_ = memIndex{}

	// An index of a third package, which does not import wiredlib: reported where it is wired in.
	db, _ := sql.Open("postgres", "")
	prod := &wiredlib.Agent{Deps: wiredlib.Deps{HTTP: &httpDoer{client: http.DefaultClient}, Index: wiredstore.NewPG(db)}} // want `^ADK-W005 helper reaches network, process, environment or file I/O \(ADK-W004\) on the workflow path \(\(wiredlib.Index\).Nearest, called by workflow \(\*wiredlib.Agent\).Run at wiredlib.go:25:6 → \(\*wiredstore.PG\).Nearest → \(\*database/sql.DB\).Query\); move the call into an activity`
	prod.Deps.Index = wiredstore.NewPG(db)                                                                                 // want `\(\(wiredlib.Index\).Nearest, called by workflow .* → \(\*wiredstore.PG\).Nearest → \(\*database/sql.DB\).Query\)`

	// Quiet: a pure index of the third package, its database index given to the activities (whose
	// field has the interface's type but is no workflow's), and one kept apart from workflows.
	_ = &wiredlib.Agent{Deps: wiredlib.Deps{Index: wiredstore.Fixed{"a", "b"}}}
	_ = &wiredlib.Activities{Index: wiredstore.NewPG(db)}
	standalone := wiredstore.NewPG(db)
	_ = standalone.Nearest("q")

	// The standard library's client handed over as it is, and dependencies handed to the
	// workflow's constructor and options, which store them into the fields its workflow reads.
	_ = &wiredlib.Researcher{Client: http.DefaultClient, Docs: strings.NewReader("doc")}          // want `\(\(wiredlib.HTTPDoer\).Do, called by workflow \(\*wiredlib.Researcher\).Run at workflows.go:44:15 → \(\*net/http.Client\).Do\); move the call into an activity`
	_ = wiredlib.NewResearcher(&http.Client{}, wiredstore.NewPG(db))                              // want `\(\*net/http.Client\).Do\)` `\(\(wiredlib.Index\).Nearest, called by workflow \(\*wiredlib.Researcher\).Run .* → \(\*wiredstore.PG\).Nearest → \(\*database/sql.DB\).Query\)`
	_ = wiredlib.NewResearcher(nil, wiredstore.Fixed{}, wiredlib.WithIndex(wiredstore.NewPG(db))) // want `\(\*wiredstore.PG\).Nearest → \(\*database/sql.DB\).Query\)`

	// Quiet: a reader of the standard library that does no I/O, the client handed to the
	// activities' constructor, a pure index through the options.
	_ = wiredlib.NewTools(http.DefaultClient)
	_ = wiredlib.NewResearcher(nil, wiredstore.Fixed{}, wiredlib.WithIndex(wiredstore.Fixed{"c"}))
}
