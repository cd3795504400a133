package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/debugpy-guard/debugpy-guard/tools"
)

func listTools(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tCATEGORY\tDESCRIPTION")
	for _, s := range tools.Catalogue() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Tool.Name, s.Category, s.Tool.Description)
	}
	tw.Flush()
}
