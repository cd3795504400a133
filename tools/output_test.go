package tools

import (
	"reflect"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/dap"
)

// Runs of one category are one entry at the run's first cursor: a table
// written a row at a time reads with its header, whatever the debugger's
// events cut.
func TestJoinRuns(t *testing.T) {
	got := joinRuns([]dap.OutputEntry{
		{Cursor: 3, Category: "stdout", Text: "user,password\n"},
		{Cursor: 4, Category: "stdout", Text: "ada,hun"},
		{Cursor: 5, Category: "stdout", Text: "ter2\n"},
		{Cursor: 6, Category: "stderr", Text: "warning\n"},
		{Cursor: 7, Category: "stdout", Text: "done\n"},
	})
	want := []dap.OutputEntry{
		{Cursor: 3, Category: "stdout", Text: "user,password\nada,hunter2\n"},
		{Cursor: 6, Category: "stderr", Text: "warning\n"},
		{Cursor: 7, Category: "stdout", Text: "done\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("joinRuns: %+v", got)
	}
	if got := joinRuns(nil); got == nil || len(got) != 0 {
		t.Fatalf("no entries: %#v (an empty list, not null)", got)
	}
}
