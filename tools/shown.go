package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
)

// What a result shows of values the stop's listing did not read.
//
// The stop's listing (stops.go) reads a frame's names and opens maxOpen of
// the values below them that hide what they hold. A result can show more:
// a value past that budget, shown cut short, or a container's children
// past max_items. Two ways an agent read a secret from them (found
// 2026-12-07, in a program whose names held more values than the listing
// opens):
//
//   - A container listed with a low max_items showed its first children
//     without the others that tell what they are: an AWS secret key stored
//     before its access key id (a tuple's child 0, max_items=1), a private
//     key's lines without the line that begins its DER (a list's child 1
//     of a key's body). Each read alone is no shape a mask knows.
//   - A value shown cut short showed the ends of what it held: a tuple
//     (secret, key id) as ('wJalrXUtnFEMI/K7MDEN...EXAMPLEKEY', 'AKIA...')
//     showed 20 and 10 characters of the secret, a list of a key's lines
//     30 characters of each.
//   - An object named for a secret (token), listed by its
//     variables_reference, showed its raw attribute in clear: the listing
//     learns such an attribute under its object's name, and the result
//     showed the attributes with no name above them.
//   - An object whose repr shows what it holds under a secret's name
//     (<Client tok-...>, its _token), alone or in a list, showed it in
//     clear: the listing learns it when it opens the object.
//
// So before such a result is shown, the host has the result phase read
// every child of each container it lists in part (dropped: read by the
// listing already, no request more), and the children of a container
// listed by its variables_reference under its path (from the names
// debugpy gives them: token in token.raw) when no opening of the stop
// read them; and it opens each value it shows that hides what it holds
// (hides: cut short, an object, a container that shows an object's repr)
// that no listing of the stop opened, and the items that hide that value
// shows in turn (three levels, objects only at the third: what debugpy's
// display shows, [[<Client tok-...>]]), as a person expanding them would;
// an object shown whole is read, not opened (readWhole: its attributes
// and theirs, all of a result's objects in one request, held.go). What
// was opened is kept for the stop, by variables reference and path
// (shownKey); what was read, by variables reference.

// maxOpenShown bounds the values one result's opening opens (each a round
// trip to debugpy, ~1 ms: a scope's 100 rows of lists of lists, 1,500
// values, took 1.5 s the first time, docs/PERFORMANCE.md). A result that
// shows more values that hide what they hold that no listing opened is
// withheld: asked for less (a lower max_items or depth), it is shown.
const maxOpenShown = 2048

// How much of a value debugpy shows (pydevd's SafeRepr, maxcollection):
// its first 14 items, their first 9 each, and their items' reprs (an
// object's, [[<Client tok-...>]]); a container at that third level is
// shown as "...", nothing of it. A value opened for what it shows is
// opened so far: at the third level, objects only.
const (
	shownLevels = 3
	shownItems  = 14
)

// opensAt reports whether a value that hides what it holds (hides), shown
// at level (0: a row's own value), is opened for what it shows.
func opensAt(level int, v variableView) bool {
	return level < shownLevels-1 || !displays[v.Type]
}

// shownSeen returns what the result phase reads, before it masks r, of
// what r shows that the stop's listing did not read (see above).
func (g *PolicyGate) shownSeen(ctx context.Context, call Call, r engine.Result) ([]engine.Seen, error) {
	s := call.Debug
	if r.IsError || s == nil || !g.gate.Learns(listing) {
		return nil, nil
	}
	var shown []variableView // rows shown, to look at
	var seen []engine.Seen
	frame := callFrame(call, s)
	args, _ := json.Marshal(variablesArgs{Target: Target{Session: s.Name()}, FrameID: frame})
	// Learned with no holders' names (Values), as a parent pathsSeen
	// opens: for the secrets of the children. What is opened is kept for
	// the stop, and learned once (Learned); a container's dropped children
	// are this result's.
	learn := func(v variableView, learned *engine.Learned) {
		for _, part := range parts([]variableView{v}, maxLearn) {
			seen = append(seen, engine.Seen{Tool: listing, Category: Read, Arguments: args,
				Structured: variablesResult{FrameID: frame, Variables: part}, Learned: learned})
		}
	}
	var ref *variableView // the container a variables_reference names, to read whole under its name
	switch v := r.Structured.(type) {
	case variablesResult:
		if v.Scope == "" { // a container's children, by its variables_reference
			all := append(members(v.Variables), v.dropped...)
			path := parentPath(all)
			ref = &variableView{Name: path, EvaluateName: path, VariablesReference: v.VariablesReference, Children: all}
		}
		var walk func(vs []variableView)
		walk = func(vs []variableView) {
			for _, c := range vs {
				if c.dropped != nil {
					w := c
					w.Name = cmp.Or(c.EvaluateName, c.Name)
					w.Children = append(members(c.Children), c.dropped...)
					learn(w, nil)
				}
				walk(c.Children)
			}
		}
		walk(v.Variables)
		shown = v.Variables
	case evaluateResult:
		var expr struct {
			Expression string `json:"expression"`
			Name       string `json:"name"`
		}
		json.Unmarshal(call.Arguments, &expr) // the canonical arguments: they decode
		name := ""
		if call.Tool == "debugpy_evaluate" && plainPath(expr.Expression) {
			name = expr.Expression // a path names the same value at this stop
		}
		shown = []variableView{{Name: expr.Expression + expr.Name, Value: v.Result, Type: v.Type, EvaluateName: name, VariablesReference: v.VariablesReference}}
	default:
		return nil, nil
	}
	codes := codeSources(shown, ref)
	var l *stopList // the stop's listing, when it is this stop's
	if _, last := s.Stops(); last != nil {
		g.mu.Lock()
		if cur := g.lists[listKey{s, frame}]; cur != nil && cur.gen == last.Gen {
			l = cur
		}
		g.mu.Unlock()
	}
	var listed []engine.Seen
	if l != nil {
		select {
		case <-l.done:
			listed = l.seen
		default: // being listed again: none of it is known
		}
	}
	for _, c := range codes {
		key := fmt.Sprintf("source %s:%d", c.file, c.line)
		if l != nil {
			if read, ok := l.kept(&l.shown, key); ok {
				seen = append(seen, read...)
				continue
			}
		}
		read := codeSeen(c)
		if l != nil {
			l.keep(&l.shown, key, read)
		}
		seen = append(seen, read...)
	}
	if ref != nil && !openedAt(l, listed, *ref) {
		if ref.EvaluateName == "" || l == nil {
			learn(*ref, nil)
		} else { // kept for the stop: read again, learned once. Not an opening: the items it shows are not opened
			before := len(seen)
			learn(*ref, &engine.Learned{})
			l.keep(&l.shown, "children "+shownKey(*ref), seen[before:len(seen):len(seen)])
		}
	}
	// The rows to open, by the level debugpy shows them at in the result
	// (tops[0]: a row's own value; tops[1]: an item of one; tops[2]: an
	// item of that, an object): each row that hides what it holds whose
	// children neither the result nor the stop's listing shows, nor an
	// earlier opening of the stop. Below a row the listing opened, the
	// items it shows, in turn.
	var tops [shownLevels][]*variableView
	var objs []*variableView // objects, read whole (readWhole)
	var look func(vs []*variableView, level int, asItems bool)
	look = func(vs []*variableView, level int, asItems bool) {
		for _, c := range vs {
			if c.Children != nil && !asItems { // the result shows them: each its own value
				look(ptrs(c.Children), 0, false)
				// and those past max_items as items of c's value
				if n := len(firstShown(c.Children)); c.dropped != nil && n < shownItems && plugins.CutShort(c.Value) {
					look(ptrs(c.dropped[:min(len(c.dropped), shownItems-n)]), 1, true)
				}
				continue
			}
			if c.VariablesReference <= 0 || groups[c.Name] || !hides(s, *c) || !opensAt(level, *c) {
				continue
			}
			if c.Children != nil { // opened by the listing
				if level+1 < shownLevels {
					look(shownIn(c), level+1, true)
				}
				continue
			}
			if c.EvaluateName != "" {
				if row, ok := listedRow(listed, c.EvaluateName); ok && row.Children != nil && row.VariablesReference == c.VariablesReference {
					if level+1 < shownLevels {
						look(shownIn(&row), level+1, true)
					}
					continue
				}
			}
			if readWhole(*c) { // read in one request with the others (held.go)
				objs = append(objs, c)
				continue
			}
			if l != nil {
				if opened, ok := l.kept(&l.shown, shownKey(*c)); ok {
					seen = append(seen, opened...)
					continue
				}
			}
			tops[level] = append(tops[level], c)
		}
	}
	look(ptrs(shown), 0, false)
	var refChildren []variableView
	if ref != nil {
		refChildren = ref.Children
	}
	toOpen := slices.Concat(tops[:]...)
	if len(toOpen) == 0 {
		held, err := g.heldSeen(ctx, s, frame, l, objs, shown, refChildren) // what the objects and functions it shows hold (held.go)
		return append(seen, held...), err
	}
	// Opened in copies: the result shown stays as debugpy showed it.
	var rows []variableView
	for _, c := range toOpen { // named by their paths, as pathsSeen's parents
		rows = append(rows, variableView{Name: cmp.Or(c.EvaluateName, c.Name), Value: c.Value, Type: c.Type, EvaluateName: c.EvaluateName, VariablesReference: c.VariablesReference})
	}
	var level []*variableView
	n, at := 0, 0 // the values opened; where tops[d]'s copies begin in rows
	for d := range shownLevels {
		var next []*variableView
		for _, v := range level { // the items the values opened show
			for _, c := range shownIn(v) {
				switch {
				case c.VariablesReference <= 0 || !hides(s, *c) || !opensAt(d, *c):
				case readWhole(*c):
					objs = append(objs, c)
				default:
					next = append(next, c)
				}
			}
		}
		for i := range tops[d] { // and the rows shown at this level
			next = append(next, &rows[at+i])
		}
		at += len(tops[d])
		level = next
		if len(level) == 0 {
			continue
		}
		if n += len(level); n > maxOpenShown {
			return nil, fmt.Errorf("it shows more than %d values that hide what they hold (cut short, objects) that no listing of this stop opened, each opened first to learn the secrets it holds", maxOpenShown)
		}
		if err := g.openAll(ctx, s, level); err != nil {
			return nil, err
		}
	}
	for _, row := range rows {
		before := len(seen)
		learn(row, &engine.Learned{})
		if l != nil {
			l.keep(&l.shown, shownKey(row), seen[before:len(seen):len(seen)])
		}
	}
	held, err := g.heldSeen(ctx, s, frame, l, objs, shown, refChildren, rows)
	return append(seen, held...), err
}

// shownKey names a value opened for the stop: by its variables reference
// and its path (none for a group's rows: special variables). pydevd makes
// a reference of the object's id, and keeps every object it listed until
// the program runs on: at a stop, one reference is one object. A path
// alone is not: a listing by variables reference reads any frame's
// container, and its rows' paths are that frame's (found 2026-12-07: a
// caller's token.raw was shown in clear, the stopped frame's token having
// been opened). The path is kept too: what a value holds is learned under
// the names it was shown with.
func shownKey(v variableView) string {
	return "ref " + strconv.Itoa(v.VariablesReference) + " " + v.EvaluateName
}

// A code object's constants and a function's defaults are the literals of
// its source, shown with no name: co_consts showed the password a
// function's body assigns (password = "..."), __defaults__ the default of
// its parameter pw (def make(user, pw="...")), in clear, where
// debugpy_source masks both (found 2026-12-07). So when a result shows a
// code object (a function's __code__, among its special variables with
// __defaults__; an item of co_consts) or a code object's co_filename, the
// result phase reads the function's source first, as debugpy_source shows
// it, and learns what it masks there.

// codeSource is where a code object's source is: its file, its first line.
type codeSource struct {
	file string
	line int
}

// maxCodeSources bounds the sources one result has read; maxCodeLines
// the lines of each, from the function's first (a longer function's later
// literals are read as any value).
const (
	maxCodeSources = 4
	maxCodeLines   = 500
)

// codeSources finds the code objects a result shows (shown, and ref's
// children, those past max_items too): a row of type code, shown as
// <code object NAME at 0x..., file "PATH", line N>, or a code object's
// co_filename and co_firstlineno. A file of no path (<string>, <frozen
// ...>) has no source to read.
func codeSources(shown []variableView, ref *variableView) []codeSource {
	var out []codeSource
	add := func(c codeSource) {
		if filepath.IsAbs(c.file) && c.line > 0 && len(out) < maxCodeSources && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	var walk func(vs []variableView)
	walk = func(vs []variableView) {
		var file string
		line := 0
		for _, v := range vs {
			switch {
			case v.Type == "code":
				if c, ok := codeRepr(v.Value); ok {
					add(c)
				}
			case v.Name == "co_filename" && v.Type == "str":
				file, _ = unrepr(v.Value) // a path's repr; one that cannot be read is left
			case v.Name == "co_firstlineno" && v.Type == "int":
				line, _ = strconv.Atoi(v.Value)
			}
			walk(v.Children)
			walk(v.dropped)
		}
		if file != "" {
			add(codeSource{file, line})
		}
	}
	walk(shown)
	if ref != nil {
		walk(ref.Children)
	}
	return out
}

// codeRepr reads a code object's repr: <code object NAME at 0x..., file
// "PATH", line N> (CPython's code_repr, which does not escape the path).
func codeRepr(shown string) (codeSource, bool) {
	rest, ok := strings.CutSuffix(shown, ">")
	i := strings.LastIndex(rest, `", line `)
	j := strings.Index(rest, `, file "`)
	if !ok || i < 0 || j < 0 || j+len(`, file "`) > i || !strings.HasPrefix(shown, "<code object ") {
		return codeSource{}, false
	}
	line, err := strconv.Atoi(rest[i+len(`", line `):])
	return codeSource{rest[j+len(`, file "`) : i], line}, err == nil
}

// unrepr reads Python's repr of a str (a path's), as CPython's tokenizer
// reads the literal (expressions.ReadLiteral): not a bytes' repr.
func unrepr(shown string) (string, bool) {
	if shown == "" || shown[0] != '\'' && shown[0] != '"' {
		return "", false
	}
	l, ok := expressions.ReadLiteral(shown, 0)
	return l.Value, ok && l.Known && l.End == len(shown)
}

// codeSeen is the source of c as debugpy_source shows it, for the result
// phase to learn: maxCodeLines from the function's first. None when the
// file cannot be read as source (gone, not text): its literals are read as
// any value.
func codeSeen(c codeSource) []engine.Seen {
	file := realPath(c.file)
	lines, _, err := readLines(file, c.line+maxCodeLines/2, maxCodeLines/2)
	if err != nil {
		return nil
	}
	args, _ := json.Marshal(sourceArgs{File: file})
	return []engine.Seen{{Tool: "debugpy_source", Category: Read, Arguments: args,
		Structured: sourceResult{File: file, Lines: lines}, Learned: &engine.Learned{}}}
}

// openedAt reports whether the container v (its path, its variables
// reference) was opened at the stop of l, whose listing is listed: by the
// listing, by pathsSeen, or by an opening of a value shown cut short. The
// same path at the stop is another frame's value unless the reference is
// the same (shownKey).
func openedAt(l *stopList, listed []engine.Seen, v variableView) bool {
	path := v.EvaluateName
	if path == "" || v.VariablesReference <= 0 || l == nil {
		return false
	}
	if row, ok := listedRow(listed, path); ok && row.Children != nil && row.VariablesReference == v.VariablesReference {
		return true
	}
	parent, _ := l.kept(&l.parents, path)
	_, shown := l.kept(&l.shown, shownKey(v))
	_, children := l.kept(&l.shown, "children "+shownKey(v))
	return openedRef(parent) == v.VariablesReference || shown || children
}

// openedRef is the variables reference of the parent pathsSeen opened,
// whose opening is read (l.parents), or 0 for none.
func openedRef(read []engine.Seen) int {
	if len(read) == 0 {
		return 0
	}
	r, ok := read[0].Structured.(variablesResult)
	if !ok || len(r.Variables) == 0 {
		return 0
	}
	return r.Variables[0].VariablesReference
}

// parentPath is the path of the container whose children vs are, from the
// names debugpy gives them to evaluate (ztoken in ztoken.raw), or "".
func parentPath(vs []variableView) string {
	for _, v := range vs {
		if ps := expressions.Parents(v.EvaluateName); v.EvaluateName != "" && len(ps) == 1 {
			return ps[0]
		}
	}
	return ""
}

// firstShown are the items of vs that debugpy shows in their parent's
// value: the first shownItems, without its group rows.
func firstShown(vs []variableView) []variableView {
	n := 0
	for i, v := range vs {
		if groups[v.Name] {
			return vs[:i] // the group rows come last
		}
		if n++; n > shownItems {
			return vs[:i]
		}
	}
	return vs
}

// readWhole reports whether v, a value that hides what it holds, is an
// object shown whole (not cut short), whose attributes heldSeen reads in
// one request with the others', not opened one request each: a dict of a
// program's 8 threads, opened, took 25-30 ms more (docs/PERFORMANCE.md).
// A module or a class of the program's is opened as the listing opens it.
func readWhole(v variableView) bool {
	return !displays[v.Type] && !plugins.CutShort(v.Value) && v.Type != "module" && v.Type != "type"
}

// shownIn are the children of v that v's display shows: a container's
// first items; of an object, those whose repr its own shows
// (Conf(db=DB(...))), whatever its class writes. A thread's attributes
// are not in <Thread(worker, started 140...)>: opening them would open
// what no result shows.
func shownIn(v *variableView) []*variableView {
	if displays[v.Type] || plugins.CutShort(v.Value) {
		return ptrs(firstShown(v.Children))
	}
	var out []*variableView
	for i := range v.Children {
		if c := &v.Children[i]; !groups[c.Name] && c.Value != "" && strings.Contains(v.Value, c.Value) {
			out = append(out, c)
		}
	}
	return out
}

// ptrs points at each of vs.
func ptrs(vs []variableView) []*variableView {
	out := make([]*variableView, len(vs))
	for i := range vs {
		out[i] = &vs[i]
	}
	return out
}

// members are vs without debugpy's group rows.
func members(vs []variableView) []variableView {
	out := make([]variableView, 0, len(vs))
	for _, v := range vs {
		if !groups[v.Name] {
			out = append(out, v)
		}
	}
	return out
}

// callFrame is the frame a call reads: the one its frame_id names (a
// caller's), or its session's stop's.
func callFrame(call Call, s *dap.Session) int {
	var a struct {
		FrameID int `json:"frame_id"`
	}
	if json.Unmarshal(call.Arguments, &a) == nil && a.FrameID > 0 {
		return a.FrameID
	}
	if _, last := s.Stops(); last != nil {
		return last.FrameID
	}
	return 0
}
