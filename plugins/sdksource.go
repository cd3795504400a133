package plugins

import (
	"embed"
	"io/fs"
)

// The guest SDK's sources, and the abi package it imports, travel in the
// binary, so that `debugpy-guard policy new` writes a project that builds
// with no network (GOPROXY=off). TestSDKSourceComplete fails when a file of
// plugins/sdk or plugins/abi (Go or assembly) is missing here.
//
//go:embed sdk/sdk.go sdk/json.go sdk/abi_wasip1.go sdk/abi_other.go sdk/pages_wasip1_wasm.s sdk/scan_wasm.go sdk/scan_wasm.s sdk/scan_other.go abi/abi.go abi/request.go abi/response.go
var sdkSource embed.FS

// SDKSource is the guest SDK's Go files and those of the package it
// imports, as sdk/NAME.go and abi/NAME.go.
func SDKSource() fs.FS { return sdkSource }
