// Command worker wires an *http.Client behind the workflow's Doer.
package main

import (
	"net/http"

	"example.com/app/wired"
)

type httpDoer struct{ client *http.Client }

func (d httpDoer) Do(url string) (string, error) { // want Do:`reaches` `ADK-W005 .*\(\(wired.Doer\).Do, called by workflow \(\*wired.Agent\).Run at wired.go:15:9 → \(main.httpDoer\).Do → \(\*net/http.Client\).Get\)`
	resp, err := d.client.Get(url)
	if err != nil {
		return "", err
	}
	return resp.Status, resp.Body.Close()
}

func main() { _ = &wired.Agent{HTTP: httpDoer{client: http.DefaultClient}} }
