package engine

// Derived is what the host adds to a call before any module judges it: the
// code debugpy will run, the paths the call will use and the address it will
// dial, each as it will be used. It is the request member "derived"
// (plugins/ABI.md): a module judges all code of a call without knowing which
// tool or argument carries it, and judges a path or a host by what the
// handler will really open or dial, not by the agent's spelling of it.
type Derived struct {
	Code      []Code    `json:"code"`
	Paths     []Path    `json:"paths"`
	Addresses []Address `json:"addresses"`
}

// Code is one piece of Python that debugpy will compile and run.
type Code struct {
	Argument string `json:"argument"` // the argument that carries it, e.g. "condition"
	// Kind is "expression" (compiled with eval) or "statement" (compiled
	// with exec: an assignment, a loop, del, import ...).
	Kind string `json:"kind"`
	// Text is what debugpy compiles, after the transformations its pydevd
	// applies (a hit condition's "%2" becomes "1 %2 == 0", a log message
	// becomes a %-format expression of its {parts}, "@LINE@" a newline).
	Text string `json:"text"`
}

// Path is a file or directory argument as the handler will use it.
type Path struct {
	Argument string `json:"argument"`
	// Kind: "source" (a file the call reads and returns), "program" (a
	// script a launch runs), "executable" (an interpreter a launch or an
	// attach runs), "directory" (a launch's cwd) or "breakpoint" (a file a
	// breakpoint names; it is not read).
	Kind     string `json:"kind"`
	Given    string `json:"given"`    // as the agent sent it
	Resolved string `json:"resolved"` // absolute, symlinks resolved: what is used
	// Session: the path belongs to the debug session (a file of its stack,
	// a source debugpy reported, or under a launch's program directory or
	// cwd, which a person approved).
	Session bool `json:"session"`
}

// Address is a host argument as the handler will dial it.
type Address struct {
	Argument string `json:"argument"`
	Host     string `json:"host"`    // as the agent sent it
	Address  string `json:"address"` // the IP address that will be dialled, no other
	Port     int    `json:"port"`
}

// nonNil is d with empty lists where it has none: the request always holds
// all three, as arrays.
func (d *Derived) nonNil() *Derived {
	out := *d
	if out.Code == nil {
		out.Code = []Code{}
	}
	if out.Paths == nil {
		out.Paths = []Path{}
	}
	if out.Addresses == nil {
		out.Addresses = []Address{}
	}
	return &out
}
