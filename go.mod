module github.com/debugpy-guard/debugpy-guard

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/google/go-dap v0.12.0
	github.com/tetratelabs/wazero v1.12.0
)

require golang.org/x/sys v0.44.0

require (
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mark3labs/mcp-go v1.2.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/text v0.44.0
)
