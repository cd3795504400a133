package main

import (
	"context"
	"fmt"
	"os"
	"time"
)

// watchFile calls reload when file changes (its size, time or mode; checked
// every interval) and on every value from hup (SIGHUP), until ctx ends.
// Polling keeps the binary free of a file-notification dependency; a change
// is seen within one interval.
func watchFile(ctx context.Context, file string, interval time.Duration, hup <-chan os.Signal, reload func(why string)) {
	stamp := func() string {
		fi, err := os.Stat(file)
		if err != nil {
			return "missing"
		}
		return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
	}
	last := stamp()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			last = stamp()
			reload("SIGHUP")
		case <-tick.C:
			if s := stamp(); s != last {
				last = s
				reload(file + " changed")
			}
		}
	}
}
