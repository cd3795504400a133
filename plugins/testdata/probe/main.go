// probe is a policy module for the plugins tests: the argument "do" picks
// what it does, from a plain verdict to the hostile behaviours the host must
// survive.
package main

import (
	"os"
	"strconv"
	"time"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

var (
	hoard [][]byte
	spun  int
)

func init() {
	sdk.Validate(func(s sdk.Value) error {
		if s.Get("reject").Bool() {
			return errString("settings say reject")
		}
		return nil
	})
	sdk.Handle(func(r *sdk.Request) sdk.Decision {
		if v := r.Settings().Get("verdict").Str(); v != "" {
			// A fixed verdict, for the engine's combining tests.
			if v == "rewrite" {
				res := r.Result()
				res.Set(r.Settings().Get("field").Str(), sdk.StringValue("***"))
				return sdk.Rewrite("masked "+r.Settings().Get("field").Str(), res)
			}
			return sdk.Decision{Verdict: abi.Verdict(v), Reason: r.Settings().Get("reason").Str()}
		}
		switch r.Arg("do").Str() {
		case "loop":
			for {
			}
		case "spin": // busy for a while (0.6 s or more: 2^31 additions; a module's clocks are fake), then answers
			for i := 0; i < 1<<31; i++ {
				spun += i
			}
			return sdk.Allow("spun " + strconv.Itoa(spun&1))
		case "bomb":
			for {
				hoard = append(hoard, make([]byte, 1<<20))
			}
		case "churn": // 4 MB in small objects, live until the call returns, as a policy reading a large result makes them
			keep := make([][]byte, 0, 1024)
			n := 0
			for range 40000 {
				b := make([]byte, 100)
				n += len(b)
				if len(keep) == cap(keep) {
					keep = keep[:0]
				}
				keep = append(keep, b)
			}
			return sdk.Allow("churned " + strconv.Itoa(n))
		case "panic":
			panic("probe panics")
		case "file":
			_, err := os.ReadFile("/etc/hostname")
			if err == nil {
				return sdk.Allow("read a file: sandbox broken")
			}
			return sdk.Deny("no file access: " + err.Error())
		case "env":
			return sdk.Allow("env=" + os.Getenv("HOME") + ";args=" + strconv.Itoa(len(os.Args)))
		case "secret": // hands the host a value seen under a secret's name
			sdk.Secret("probe-s3cret-value")
			return sdk.Allow("handed")
		case "count":
			n := sdk.CounterAdd("calls", time.Minute)
			return sdk.Allow("count=" + strconv.Itoa(int(n)))
		case "echo":
			return sdk.Allow(r.Tool() + "/" + r.Category() + "/" + r.Phase() + "/" + r.Settings().Get("word").Str())
		case "rewrite":
			res := r.Result()
			res.Set("secret", sdk.StringValue("***"))
			return sdk.Rewrite("masked", res)
		}
		return sdk.Decision{Verdict: abi.Verdict(r.Arg("do").Str()), Reason: "as asked"}
	})
}

type errString string

func (e errString) Error() string { return string(e) }

func main() {}
