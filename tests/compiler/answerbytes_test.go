package compilertest_test

import (
	"bytes"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// TestAnswerBytesSeeValues: the oracles that compare two answers byte for byte (the plan in
// steps against the one-statement form, the compiler with table sizes against the one
// without, server against embedded) see a count of an aggregation and a property of a node
// that differ, not only the answer's shape. Compared through encoding/json they did not.
func TestAnswerBytesSeeValues(t *testing.T) {
	engine(t)
	for _, q := range []string{
		`{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p"],"aggregations":[{"count":"pl"}],"limit":5}`,
		`{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[1]}],"neighbors":{"direction":"both"},"limit":5}`,
	} {
		r := run(t, q, admin)
		changed := *r
		switch {
		case len(r.Rows) > 0:
			row := append(graphresponse.Row(nil), r.Rows[0]...)
			last := len(row) - 1
			v := row[last].Value.Int()
			row[last] = graphresponse.Member{Key: row[last].Key, Value: graphresponse.Int(v + 1)}
			changed.Rows = append([]graphresponse.Row{row}, r.Rows[1:]...)
		case len(r.Nodes) > 0 && len(r.Nodes[0].Props) > 0:
			n := r.Nodes[0]
			n.Props = append([]graphresponse.Member(nil), n.Props...)
			n.Props[0] = graphresponse.Member{Key: n.Props[0].Key, Value: graphresponse.String("changed")}
			changed.Nodes = append([]graphresponse.Node{n}, r.Nodes[1:]...)
		default:
			t.Fatalf("%s: no row and no node property to change: the test proves nothing", q)
		}
		if bytes.Equal(answerBytes(r), answerBytes(&changed)) {
			t.Errorf("%s: an answer with a value changed compares equal:\n%s", q, answerBytes(r))
		}
	}
}
