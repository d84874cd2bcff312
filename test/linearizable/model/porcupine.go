package model

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Model is the Porcupine model, partitioned by group: a group's requests and Operations never
// constrain another group's.
func Model() porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byGroup := map[string][]porcupine.Operation{}
			var order []string
			for _, op := range history {
				g := op.Input.(Input).Group
				if _, seen := byGroup[g]; !seen {
					order = append(order, g)
				}
				byGroup[g] = append(byGroup[g], op)
			}
			out := make([][]porcupine.Operation, 0, len(order))
			for _, g := range order {
				out = append(out, byGroup[g])
			}
			return out
		},
		Init: func() []interface{} {
			return []interface{}{newState(map[string]request{}, map[string]binding{})}
		},
		Step: func(st, in, out interface{}) []interface{} {
			next := step(st.(*state), in.(Input), out.(Output))
			res := make([]interface{}, len(next))
			for i, n := range next {
				res[i] = n
			}
			return res
		},
		Equal: func(a, b interface{}) bool { return a.(*state).key == b.(*state).key },
		Hash: func(st interface{}) uint64 {
			h := fnv.New64a()
			h.Write([]byte(st.(*state).key))
			return h.Sum64()
		},
		DescribeOperation: func(in, out interface{}) string { return Describe(in.(Input), out.(Output)) },
		DescribeState: func(st interface{}) string {
			s := st.(*state)
			names := make([]string, 0, len(s.requests))
			for n, r := range s.requests {
				d := n + ":" + r.Phase
				if r.Phase == "" {
					d = n + ":absent"
				}
				if r.Cancel {
					d += "+cancel"
				}
				if r.Deleting {
					d += "+deleting"
				}
				names = append(names, d)
			}
			sort.Strings(names)
			return fmt.Sprintf("%s (%d requestIds)", strings.Join(names, " "), len(s.bindings))
		},
	}
	return nm.ToModel()
}
