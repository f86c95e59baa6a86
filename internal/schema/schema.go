// Package schema validates JSON documents against the project's JSON
// Schemas (draft 2020-12), such as config/schemas/query_response.json.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validator checks documents against one compiled schema. It is safe for
// concurrent use.
type Validator struct {
	id string
	s  *jsonschema.Schema
}

// New compiles the schema in schemaJSON; its $id names it.
func New(schemaJSON []byte) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	var head struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(schemaJSON, &head); err != nil || head.ID == "" {
		return nil, fmt.Errorf("parse schema: missing $id")
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(head.ID, doc); err != nil {
		return nil, fmt.Errorf("add schema: %w", err)
	}
	s, err := c.Compile(head.ID)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	return &Validator{id: head.ID, s: s}, nil
}

// ID returns the schema's $id.
func (v *Validator) ID() string { return v.id }

// Validate checks one JSON document.
func (v *Validator) Validate(doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("parse document: %w", err)
	}
	if err := v.s.Validate(inst); err != nil {
		return fmt.Errorf("validate against %s: %w", v.id, err)
	}
	return nil
}
