package pipeline

import (
	"context"

	"github.com/graphwire/graphwire/loadstate"
)

// Ready reports whether the pipeline can answer queries: the engine
// answers, and it holds a complete graph of the pipeline's ontology (every
// graph table exists and the newest load finished; see [loadstate.Check]).
// It returns nil when ready, and otherwise the reason. The faces' health
// services call it periodically.
func (p *Pipeline) Ready(ctx context.Context) error {
	_, err := loadstate.Check(ctx, p.exec, p.opts.Ontology)
	return err
}
