module github.com/graphwire/graphwire

go 1.26.0

require (
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/gkampitakis/go-snaps v0.5.25 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/leanovate/gopter v0.2.11 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/tiktoken-go/tokenizer v0.10.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
