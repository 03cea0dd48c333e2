package agent

import (
	_ "embed"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
)

//go:embed corpus/travel.txt
var shippedCorpus string

// Doc is one text of the corpus.
type Doc struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Hit is a ranked search result.
type Hit struct {
	Doc
	Score float64 `json:"score"`
}

// Index ranks documents for a query with BM25.
type Index struct {
	docs   []Doc
	terms  []map[string]int // term counts per document
	lens   []int
	avgLen float64
	df     map[string]int
}

// ParseCorpus reads a corpus: texts separated by blank lines, each a title
// line followed by its text.
func ParseCorpus(s string) ([]Doc, error) {
	var docs []Doc
	for _, block := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		block = strings.TrimSpace(block)
		if block == "" {
			continue
		}
		title, text, ok := strings.Cut(block, "\n")
		if !ok || strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("search: corpus entry %q has no text under its title", title)
		}
		docs = append(docs, Doc{ID: len(docs) + 1, Title: strings.TrimSpace(title), Text: strings.Join(strings.Fields(text), " ")})
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("search: the corpus is empty")
	}
	return docs, nil
}

// ShippedIndex is the index of the corpus shipped with the sample.
func ShippedIndex() (*Index, error) {
	docs, err := ParseCorpus(shippedCorpus)
	if err != nil {
		return nil, err
	}
	return NewIndex(docs), nil
}

// NewIndex indexes docs.
func NewIndex(docs []Doc) *Index {
	idx := &Index{docs: docs, df: map[string]int{}}
	total := 0
	for _, d := range docs {
		counts := map[string]int{}
		words := tokens(d.Title + " " + d.Text)
		for _, w := range words {
			counts[w]++
		}
		for w := range counts {
			idx.df[w]++
		}
		idx.terms = append(idx.terms, counts)
		idx.lens = append(idx.lens, len(words))
		total += len(words)
	}
	if len(docs) > 0 {
		idx.avgLen = float64(total) / float64(len(docs))
	}
	return idx
}

// Len is the number of documents.
func (idx *Index) Len() int { return len(idx.docs) }

// Search returns the limit best documents for query, best first; documents
// sharing no term with the query are left out. Ties keep corpus order.
func (idx *Index) Search(query string, limit int) []Hit {
	const k1, b = 1.2, 0.75
	n := float64(len(idx.docs))
	var hits []Hit
	for i, d := range idx.docs {
		score := 0.0
		for _, q := range uniq(tokens(query)) {
			tf := float64(idx.terms[i][q])
			if tf == 0 {
				continue
			}
			df := float64(idx.df[q])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			score += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(idx.lens[i])/idx.avgLen))
		}
		if score > 0 {
			hits = append(hits, Hit{Doc: d, Score: math.Round(score*1000) / 1000})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "at": true, "be": true, "by": true, "can": true, "do": true,
	"for": true, "i": true, "if": true, "in": true, "is": true, "it": true, "my": true, "of": true, "on": true,
	"or": true, "the": true, "to": true, "what": true, "when": true, "with": true, "you": true, "your": true,
}

// tokens lower-cases text, splits it on anything but letters and digits,
// drops stop words and strips a plural s.
func tokens(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stopWords[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		out = append(out, w)
	}
	return out
}

func uniq(words []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
