package readme

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// architectureFile is the page whose wire-contract table TestArchitectureWireTable holds.
const architectureFile = "ARCHITECTURE.md"

// wireTableHeader begins the header row of the wire-contract table.
const wireTableHeader = "| String | Constant |"

// wireRow is one row of the wire-contract table: the string the kit puts on the wire, the Go
// constant it names (its package's directory relative to the module's root, a dot, its name),
// its kind, and the line of ARCHITECTURE.md it is on.
type wireRow struct {
	value, dir, name, kind string
	line                   int
}

func (r wireRow) constant() string { return r.dir + "." + r.name }

// wireShaped reports whether an exported string constant is a wire name the table must list:
// a value that names the kit ("temporaladk", "temporaladk-call", "temporaladk.charges",
// "TemporaladkBudgetClosed", ...; metric names, "temporaladk_...", and messages, which hold a
// space or a colon, are not), or a name of the shape of one (an error Type, a header key, an
// Update or Query name, a search attribute, a change ID) whatever its value.
var (
	wireValue = regexp.MustCompile(`^(temporaladk([-./][^\s:]*)?|Temporaladk[A-Z][A-Za-z]*)$`)
	wireName  = regexp.MustCompile(`^(Type[A-Z]\w*|\w*HeaderKey|\w*UpdateName|\w*QueryName|SearchAttribute|\w*ChangeID)$`)
)

// notTheKit are the directories of the module whose constants are not the kit's wire: the
// samples' task queues are the samples' own.
var notTheKit = []string{"samples"}

// TestArchitectureWireTable holds ARCHITECTURE.md's wire-contract table to the code, reading the
// module's Go files with go/parser (no build, no network):
//   - each row's string is the value of the constant the row names, so that renaming the
//     constant or changing its value fails;
//   - every exported string constant of the kit that is wire-shaped (wireShaped) has a row, so
//     that a new wire name nobody documented fails;
//   - every change ID passed to workflow.GetVersion outside tests has a row of kind "version
//     change ID" (a change ID built as prefix + "/" + something is held by its prefix), and every
//     such row is a change ID some call passes.
func TestArchitectureWireTable(t *testing.T) {
	data, err := os.ReadFile(architectureFile)
	if err != nil {
		t.Fatal(err)
	}
	rows, problems := wireTable(string(data))
	for _, p := range problems {
		t.Error(p)
	}
	if len(rows) < 10 {
		t.Fatalf("%s: read %d rows of the wire-contract table (its header row begins %q); want the whole table", architectureFile, len(rows), wireTableHeader)
	}
	m, err := readModule(".")
	if err != nil {
		t.Fatal(err)
	}
	if m.files < 100 {
		t.Fatalf("read %d Go files of the module; want the whole module", m.files)
	}

	documented := map[string]wireRow{}
	for _, r := range rows {
		if prior, dup := documented[r.constant()]; dup {
			t.Errorf("%s:%d: %s has a row already, at line %d", architectureFile, r.line, r.constant(), prior.line)
		}
		documented[r.constant()] = r
		v, ok := m.value(r.dir, r.name)
		switch {
		case !ok:
			t.Errorf("%s:%d: the row of %q names %s, which is no constant of the module (renamed, moved or gone?)", architectureFile, r.line, r.value, r.constant())
		case v.Kind() != constant.String:
			t.Errorf("%s:%d: %s is %v, not a string", architectureFile, r.line, r.constant(), v)
		case constant.StringVal(v) != r.value:
			t.Errorf("%s:%d: the row says %s is %q, but the code says %q", architectureFile, r.line, r.constant(), r.value, constant.StringVal(v))
		}
	}

	for _, c := range m.exported() {
		v, ok := m.value(c.dir, c.name)
		if !ok || v.Kind() != constant.String {
			continue
		}
		s := constant.StringVal(v)
		if !wireValue.MatchString(s) && !wireName.MatchString(c.name) {
			continue
		}
		if _, ok := documented[c.dir+"."+c.name]; !ok {
			t.Errorf("%s: %s.%s = %q is a wire name without a row in %s's wire-contract table: add one (string, constant, kind, who writes it, who reads it)", c.pos, c.dir, c.name, s, architectureFile)
		}
	}

	versionRows := map[string]wireRow{}
	for _, r := range rows {
		if strings.Contains(r.kind, "version change ID") {
			versionRows[r.value] = r
		}
	}
	if len(m.changeIDs) == 0 {
		t.Fatal("found no call of workflow.GetVersion outside tests; want the kit's")
	}
	passed := map[string]bool{}
	for _, id := range m.changeIDs {
		if id.problem != "" {
			t.Errorf("%s: %s", id.pos, id.problem)
			continue
		}
		passed[id.value] = true
		if _, ok := versionRows[id.value]; !ok {
			t.Errorf("%s: workflow.GetVersion change ID %q has no row of kind \"version change ID\" in %s's wire-contract table: add one, and say what each version changed", id.pos, id.value, architectureFile)
		}
	}
	for v, r := range versionRows {
		if !passed[v] {
			t.Errorf("%s:%d: %q is documented as a version change ID, but no workflow.GetVersion call outside tests passes it", architectureFile, r.line, v)
		}
	}
}

// codeSpan is a Markdown code span.
var codeSpan = regexp.MustCompile("`([^`]*)`")

// wireTable reads the wire-contract table of page: its rows, from the header row that begins
// wireTableHeader to the first line that is not a table row, and a problem for each row it
// cannot read.
func wireTable(page string) ([]wireRow, []string) {
	var (
		rows     []wireRow
		problems []string
		in       bool
	)
	s := bufio.NewScanner(strings.NewReader(page))
	for n := 1; s.Scan(); n++ {
		text := s.Text()
		switch {
		case !in:
			in = strings.HasPrefix(text, wireTableHeader)
			continue
		case !strings.HasPrefix(text, "|"):
			return rows, problems
		case strings.HasPrefix(text, "|---"):
			continue
		}
		cells := tableCells(text)
		if len(cells) < 3 {
			problems = append(problems, fmt.Sprintf("%s:%d: a row of the wire-contract table with %d cells; want string, constant, kind, written by, read by", architectureFile, n, len(cells)))
			continue
		}
		value, ok1 := firstCodeSpan(cells[0])
		qualified, ok2 := firstCodeSpan(cells[1])
		dir, name, ok3 := cutLast(qualified, ".")
		if !ok1 || !ok2 || !ok3 {
			problems = append(problems, fmt.Sprintf("%s:%d: a row of the wire-contract table must begin with the string and the constant (dir.Name) in code spans: %s", architectureFile, n, text))
			continue
		}
		if strings.Contains(value, `\`) {
			unquoted, err := strconv.Unquote(`"` + value + `"`)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: the string %s does not read as a Go string: %v", architectureFile, n, value, err))
				continue
			}
			value = unquoted
		}
		rows = append(rows, wireRow{value: value, dir: dir, name: name, kind: cells[2], line: n})
	}
	if !in {
		problems = append(problems, fmt.Sprintf("%s: no wire-contract table (a header row beginning %q)", architectureFile, wireTableHeader))
	}
	return rows, problems
}

// tableCells splits a Markdown table row into its cells, trimmed; a `\|` is a | in a cell.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

func firstCodeSpan(cell string) (string, bool) {
	m := codeSpan.FindStringSubmatch(cell)
	if m == nil || m[1] == "" {
		return "", false
	}
	return m[1], true
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i <= 0 || i == len(s)-len(sep) {
		return "", "", false
	}
	return s[:i], s[i+len(sep):], true
}

// module is what readModule read: the constants of each package directory and the change IDs
// passed to workflow.GetVersion.
type module struct {
	path      string // the module's path
	files     int
	pkgs      map[string]*constPackage // by directory, relative to the module's root
	changeIDs []changeID
}

// constPackage is the constant declarations of one package directory and their values, as
// evaluated so far.
type constPackage struct {
	specs map[string]constSpec
	vals  map[string]constant.Value
	busy  map[string]bool
}

// constSpec is one constant's expression, the iota it is evaluated with, and its file (for the
// imports its expression names).
type constSpec struct {
	expr ast.Expr
	iota int
	file *ast.File
	pos  string
}

// changeID is the change ID one workflow.GetVersion call passes, or why it could not be read.
type changeID struct {
	value, problem, pos string
}

// exportedConst is an exported constant and where it is declared.
type exportedConst struct{ dir, name, pos string }

// readModule parses every Go file of the module rooted at root but tests, testdata, hidden
// directories and nested modules.
func readModule(root string) (*module, error) {
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := &module{pkgs: map[string]*constPackage{}}
	for line := range strings.Lines(string(goMod)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			m.path = strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	if m.path == "" {
		return nil, fmt.Errorf("%s has no module directive", filepath.Join(root, "go.mod"))
	}
	fset := token.NewFileSet()
	type parsed struct {
		dir  string
		file *ast.File
	}
	var files []parsed
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p == root {
				return nil
			}
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		files = append(files, parsed{filepath.ToSlash(rel), f})
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.files = len(files)
	for _, pf := range files {
		pkg := m.pkgs[pf.dir]
		if pkg == nil {
			pkg = &constPackage{specs: map[string]constSpec{}, vals: map[string]constant.Value{}, busy: map[string]bool{}}
			m.pkgs[pf.dir] = pkg
		}
		for _, decl := range pf.file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			var last []ast.Expr
			for i, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				if len(vs.Values) > 0 {
					last = vs.Values
				}
				for j, id := range vs.Names {
					if id.Name == "_" || j >= len(last) {
						continue
					}
					if _, dup := pkg.specs[id.Name]; dup {
						continue // declared again under other build constraints
					}
					pkg.specs[id.Name] = constSpec{expr: last[j], iota: i, file: pf.file, pos: fset.Position(id.Pos()).String()}
				}
			}
		}
	}
	for _, pf := range files {
		workflowName := importName(pf.file, "go.temporal.io/sdk/workflow")
		if workflowName == "" {
			continue
		}
		ast.Inspect(pf.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "GetVersion" {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != workflowName {
				return true
			}
			id := changeID{pos: fset.Position(call.Pos()).String()}
			if v, ok := m.prefix(pf.dir, pf.file, call.Args[1]); ok {
				id.value = v
			} else {
				id.problem = "the change ID passed to workflow.GetVersion is neither a string constant nor a string constant + something: make it one, so that its row can be checked"
			}
			m.changeIDs = append(m.changeIDs, id)
			return true
		})
	}
	return m, nil
}

// importName is the name file uses for the package importPath, or "" when it does not import it.
func importName(file *ast.File, importPath string) string {
	for _, spec := range file.Imports {
		if p, _ := strconv.Unquote(spec.Path.Value); p == importPath {
			if spec.Name != nil {
				return spec.Name.Name
			}
			return path.Base(importPath)
		}
	}
	return ""
}

// exported is the module's exported constants, but those of notTheKit, in a stable order.
func (m *module) exported() []exportedConst {
	var out []exportedConst
	for dir, pkg := range m.pkgs {
		if slices.ContainsFunc(notTheKit, func(d string) bool { return dir == d || strings.HasPrefix(dir, d+"/") }) {
			continue
		}
		for name, spec := range pkg.specs {
			if ast.IsExported(name) {
				out = append(out, exportedConst{dir, name, spec.pos})
			}
		}
	}
	slices.SortFunc(out, func(a, b exportedConst) int { return strings.Compare(a.pos, b.pos) })
	return out
}

// value is the value of constant name of the package in dir, and whether it is a constant the
// module declares and this reading can evaluate.
func (m *module) value(dir, name string) (constant.Value, bool) {
	pkg := m.pkgs[dir]
	if pkg == nil {
		return nil, false
	}
	if v, ok := pkg.vals[name]; ok {
		return v, v.Kind() != constant.Unknown
	}
	spec, ok := pkg.specs[name]
	if !ok || pkg.busy[name] {
		return nil, false
	}
	pkg.busy[name] = true
	v := m.eval(dir, spec.file, spec.iota, spec.expr)
	delete(pkg.busy, name)
	pkg.vals[name] = v
	return v, v.Kind() != constant.Unknown
}

// prefix is the string constant e is, or the one its leftmost operand is when it is a sum
// that is no constant (approvalChangeID + "/" + activityType: approvalChangeID).
func (m *module) prefix(dir string, file *ast.File, e ast.Expr) (string, bool) {
	if v := m.eval(dir, file, 0, e); v.Kind() == constant.String {
		return constant.StringVal(v), true
	}
	b, ok := e.(*ast.BinaryExpr)
	if !ok || b.Op != token.ADD {
		return "", false
	}
	left := b.X
	for {
		inner, ok := left.(*ast.BinaryExpr)
		if !ok || inner.Op != token.ADD {
			break
		}
		left = inner.X
	}
	if v := m.eval(dir, file, 0, left); v.Kind() == constant.String {
		return constant.StringVal(v), true
	}
	return "", false
}

// eval evaluates the constant expression e of the package in dir, in file, with iota; Unknown
// for what is not a constant this reading knows.
func (m *module) eval(dir string, file *ast.File, iota int, e ast.Expr) (v constant.Value) {
	unknown := constant.MakeUnknown()
	defer func() {
		if recover() != nil { // operands of kinds that do not combine
			v = unknown
		}
	}()
	switch e := e.(type) {
	case *ast.BasicLit:
		return constant.MakeFromLiteral(e.Value, e.Kind, 0)
	case *ast.ParenExpr:
		return m.eval(dir, file, iota, e.X)
	case *ast.Ident:
		switch e.Name {
		case "iota":
			return constant.MakeInt64(int64(iota))
		case "true", "false":
			return constant.MakeBool(e.Name == "true")
		}
		if v, ok := m.value(dir, e.Name); ok {
			return v
		}
		return unknown
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return unknown
		}
		for _, spec := range file.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			name := path.Base(p)
			if spec.Name != nil {
				name = spec.Name.Name
			}
			if name != x.Name {
				continue
			}
			if rel, ok := strings.CutPrefix(p, m.path+"/"); ok {
				if v, ok := m.value(rel, e.Sel.Name); ok {
					return v
				}
			}
			return unknown
		}
		return unknown
	case *ast.CallExpr:
		// A conversion, Class("MODEL") or time.Duration(5): the value of its operand.
		if len(e.Args) == 1 && e.Ellipsis == token.NoPos {
			switch fun := e.Fun.(type) {
			case *ast.Ident:
				if fun.Name == "len" || fun.Name == "cap" || fun.Name == "min" || fun.Name == "max" {
					return unknown
				}
				return m.eval(dir, file, iota, e.Args[0])
			case *ast.SelectorExpr:
				return m.eval(dir, file, iota, e.Args[0])
			}
		}
		return unknown
	case *ast.UnaryExpr:
		return constant.UnaryOp(e.Op, m.eval(dir, file, iota, e.X), 0)
	case *ast.BinaryExpr:
		x, y := m.eval(dir, file, iota, e.X), m.eval(dir, file, iota, e.Y)
		if x.Kind() == constant.Unknown || y.Kind() == constant.Unknown {
			return unknown
		}
		switch e.Op {
		case token.SHL, token.SHR:
			s, ok := constant.Uint64Val(y)
			if !ok {
				return unknown
			}
			return constant.Shift(x, e.Op, uint(s))
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return constant.MakeBool(constant.Compare(x, e.Op, y))
		case token.QUO:
			if x.Kind() == constant.Int && y.Kind() == constant.Int {
				return constant.BinaryOp(x, token.QUO_ASSIGN, y)
			}
		}
		return constant.BinaryOp(x, e.Op, y)
	}
	return unknown
}
