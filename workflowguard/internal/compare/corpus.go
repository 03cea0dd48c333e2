package main

import (
	"embed"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// corpusFS is the hand-written corpus: packages of workflow code whose lines are marked
// HAZARD (a complete checker reports them) or TRAP (a precise checker stays quiet on them).
//
//go:embed testdata/corpus
var corpusFS embed.FS

// lineKey is one source line, slash-separated and relative to the tree root.
type lineKey struct {
	File string
	Line int
}

var (
	hazardMark = regexp.MustCompile(`//\s*HAZARD\s*$`)
	trapMark   = regexp.MustCompile(`//\s*TRAP\s*$`)
	findingRE  = regexp.MustCompile(`^(\S+\.go):(\d+):\d+: `)
	// workflowcheck -show-pos reports on the workflow's declaration and gives the position of
	// the offending statement as the first "at file:line:col" of the reason.
	reasonAtRE = regexp.MustCompile(`reason: .*? at (\S+\.go):(\d+):\d+`)
)

// writeCorpus copies the corpus into dir and returns its marked lines.
func writeCorpus(dir string) (hazards, traps map[lineKey]bool, err error) {
	hazards, traps = map[lineKey]bool{}, map[lineKey]bool{}
	err = fs.WalkDir(corpusFS, "testdata/corpus", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := corpusFS.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "testdata/corpus/")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			switch {
			case hazardMark.MatchString(line):
				hazards[lineKey{rel, i + 1}] = true
			case trapMark.MatchString(line):
				traps[lineKey{rel, i + 1}] = true
			}
		}
		return os.WriteFile(dst, src, 0o644)
	})
	return hazards, traps, err
}

// flaggedLines returns the lines under tree that a tool's output reports a finding on: every
// output line that starts with file:line:col: (indented chain lines do not), or for
// workflowcheck -show-pos output the position its reason gives.
func flaggedLines(out, tree string) map[lineKey]bool {
	got := map[lineKey]bool{}
	prefix := tree + string(filepath.Separator)
	for line := range strings.SplitSeq(out, "\n") {
		m := findingRE.FindStringSubmatch(strings.TrimPrefix(line, prefix))
		if m == nil {
			continue
		}
		if at := reasonAtRE.FindStringSubmatch(line); at != nil {
			m = at
		}
		n, _ := strconv.Atoi(m[2])
		got[lineKey{filepath.ToSlash(strings.TrimPrefix(m[1], prefix)), n}] = true
	}
	return got
}

// corpusScore is one tool's result on the corpus.
type corpusScore struct {
	found, hazards      int            // hazard lines reported, of all hazard lines
	falsePositives      int            // reported lines in the corpus not marked HAZARD
	trapsFlagged, traps int            // trap lines reported, of all trap lines
	byPackage           map[string]int // hazard lines found per package
	hazardsByPackage    map[string]int
}

// scoreCorpus compares reported lines with the marked ones, counting only corpus files.
func scoreCorpus(got, hazards, traps map[lineKey]bool) corpusScore {
	s := corpusScore{hazards: len(hazards), traps: len(traps), byPackage: map[string]int{}, hazardsByPackage: map[string]int{}}
	corpusPkgs := map[string]bool{}
	for k := range hazards {
		pkg := path.Dir(k.File)
		corpusPkgs[pkg] = true
		s.hazardsByPackage[pkg]++
		if got[k] {
			s.found++
			s.byPackage[pkg]++
		}
	}
	for k := range traps {
		corpusPkgs[path.Dir(k.File)] = true
	}
	for k := range got {
		if !corpusPkgs[path.Dir(k.File)] || hazards[k] {
			continue
		}
		s.falsePositives++
		if traps[k] {
			s.trapsFlagged++
		}
	}
	return s
}
