package engine

import "github.com/debugpy-guard/debugpy-guard/plugins/abi"

// What the host derives from a call before any module judges it, and the
// rest of the request it writes: the wire format's own types (plugins/abi,
// plugins/ABI.md), named here for the engine's callers.
type (
	Derived      = abi.Derived
	Code         = abi.Code
	Path         = abi.Path
	Address      = abi.Address
	Process      = abi.Process
	DebugSession = abi.DebugSession
	ClientInfo   = abi.Client
	Before       = abi.Before
)

// The owners of an Address (derived.addresses[].owner).
const (
	OwnerSelf    = abi.OwnerSelf
	OwnerOther   = abi.OwnerOther
	OwnerUnknown = abi.OwnerUnknown
)

// MaxBefore bounds the text of each Before (derived.before).
const MaxBefore = abi.MaxBefore

// BeforeSource is the category of debugpy_source's Before.
const BeforeSource = abi.BeforeSource
