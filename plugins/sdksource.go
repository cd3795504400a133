package plugins

import (
	"embed"
	"io/fs"
)

// The guest SDK's sources travel in the binary, so that `debugpy-guard
// policy new` writes a project that builds with no network (GOPROXY=off).
// TestSDKSourceComplete fails when a file of plugins/sdk is missing here.
//
//go:embed sdk/sdk.go sdk/json.go sdk/abi_wasip1.go sdk/abi_other.go
var sdkSource embed.FS

// SDKSource is the guest SDK's Go files, as sdk/NAME.go.
func SDKSource() fs.FS { return sdkSource }
