package tools

import "encoding/json"

// examples are typical arguments of each tool, for `policy eval` defaults
// and `policy bench`: what an agent sends most often.
var examples = map[string]string{
	"debugpy_session_start":             `{"host":"127.0.0.1","port":5678}`,
	"debugpy_launch":                    `{"program":"app.py","args":["--verbose"]}`,
	"debugpy_attach_pid":                `{"pid":4242}`,
	"debugpy_session_stop":              `{}`,
	"debugpy_session_status":            `{}`,
	"debugpy_sessions":                  `{}`,
	"debugpy_set_breakpoint":            `{"file":"/srv/app/app.py","line":42}`,
	"debugpy_remove_breakpoint":         `{"file":"/srv/app/app.py","line":42}`,
	"debugpy_list_breakpoints":          `{}`,
	"debugpy_set_exception_breakpoints": `{"filters":["uncaught"]}`,
	"debugpy_continue":                  `{"wait_s":10}`,
	"debugpy_pause":                     `{}`,
	"debugpy_step_over":                 `{}`,
	"debugpy_step_in":                   `{}`,
	"debugpy_step_out":                  `{}`,
	"debugpy_wait_for_stop":             `{"timeout_s":30}`,
	"debugpy_threads":                   `{"frames":1}`,
	"debugpy_stack_trace":               `{"levels":20}`,
	"debugpy_variables":                 `{"scope":"locals","depth":1}`,
	"debugpy_evaluate":                  `{"expression":"order.items[0].price"}`,
	"debugpy_set_variable":              `{"name":"qty","value":"4"}`,
	"debugpy_source":                    `{"context_lines":5}`,
	"debugpy_output":                    `{"since":0}`,
	"debugpy_exception_info":            `{}`,
}

// Example is typical arguments of tool ({} for an unknown tool).
func Example(tool string) json.RawMessage {
	if e, ok := examples[tool]; ok {
		return json.RawMessage(e)
	}
	return json.RawMessage(`{}`)
}

// ExampleCleanResult is a typical structured result of debugpy_variables,
// with no secret in it; ExampleResult has two.
const ExampleCleanResult = `{"scope":"locals","frame_id":3,"variables_reference":6,"variables":[` +
	`{"name":"user","value":"<User alice>","type":"User","variables_reference":7},` +
	`{"name":"qty","value":"4","type":"int"},` +
	`{"name":"items","value":"[('apple', 3, 0.5), ('pear', 2, 0.75)]","type":"list","variables_reference":8},` +
	`{"name":"total","value":"3.0","type":"float"}]}`

// ExampleResult is a typical structured result of debugpy_variables, with
// secrets in it, for trying and benchmarking result-phase modules.
const ExampleResult = `{"scope":"locals","frame_id":3,"variables_reference":6,"variables":[` +
	`{"name":"user","value":"<User alice>","type":"User","variables_reference":7},` +
	`{"name":"password","value":"'hunter2'","type":"str"},` +
	`{"name":"items","value":"[1, 2, 3]","type":"list","variables_reference":8},` +
	`{"name":"token","value":"'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlMTIz'","type":"str"}]}`
