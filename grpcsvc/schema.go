package grpcsvc

import (
	"strconv"

	"github.com/graphwire/graphwire/ontology"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The JSON shape of GetGraphSchema: what a client needs to write queries.
type schemaEntity struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Scope       string           `json:"scope"`
	Properties  []schemaProperty `json:"properties"`
}

type schemaProperty struct {
	Name       string   `json:"name"`
	Type       string   `json:"type"`
	Nullable   bool     `json:"nullable"`
	Filterable bool     `json:"filterable"`
	Default    bool     `json:"default"`
	Enum       []string `json:"enum,omitempty"`
}

type schemaRelationship struct {
	Name  string       `json:"name"`
	Pairs []schemaPair `json:"pairs"`
}

type schemaPair struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type schemaDocument struct {
	Version       int                  `json:"ontology_version"`
	Entities      []schemaEntity       `json:"entities"`
	Relationships []schemaRelationship `json:"relationships"`
}

func schemaDoc(o *ontology.Ontology) schemaDocument {
	d := schemaDocument{Version: o.Version}
	for _, e := range o.Entities {
		se := schemaEntity{Name: e.Name, Description: e.Description, Scope: e.Scope, Properties: []schemaProperty{}}
		for _, p := range e.Properties {
			se.Properties = append(se.Properties, schemaProperty{p.Name, p.Type, p.Nullable, p.Filterable, p.Default, p.Enum})
		}
		d.Entities = append(d.Entities, se)
	}
	for _, r := range o.Relationships {
		sr := schemaRelationship{Name: r.Name, Pairs: []schemaPair{}}
		for _, p := range r.Pairs {
			sr.Pairs = append(sr.Pairs, schemaPair{p.From, p.To})
		}
		d.Relationships = append(d.Relationships, sr)
	}
	return d
}
