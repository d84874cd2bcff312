package model

// Mutation is a real history with one call added that a correct server could never have answered so:
// the checker must find it illegal, or it is not checking anything.
type Mutation struct {
	Name    string
	History History
}

// Mutations returns the corruptions of h that apply to it (each needs some calls to be in h):
//   - "replay answered with another operation": an insert replayed with its requestId at the end,
//     answered with another call's Operation (or a made-up one);
//   - "stale read from a client cache": a get at the end answering the active state an earlier read
//     saw, after a later read saw the request final (a client serving reads from its own cache);
//   - "state the request never had": a get at the end answering another final state than the one
//     the request was seen to have reached;
//   - "operation DONE then RUNNING": an Operation seen DONE read again as RUNNING.
func Mutations(h History) []Mutation {
	var end int64
	for _, c := range h.Calls {
		if !c.Output.Unknown && c.Return > end {
			end = c.Return
		}
		if c.Call > end {
			end = c.Call
		}
	}
	appended := func(name string, in Input, out Output) Mutation {
		calls := append(append([]Call(nil), h.Calls...), Call{
			Client: 0, Input: in, Output: out, Call: end + 1_000, Return: end + 2_000,
			Note: "mutation: " + name,
		})
		return Mutation{Name: name, History: History{Calls: calls, Faults: h.Faults}}
	}
	var out []Mutation

	var inserted *Call
	other := ""
	for i := range h.Calls {
		c := &h.Calls[i]
		if c.Output.Unknown || c.Output.Code != 200 || c.Output.Operation == "" {
			continue
		}
		if c.Input.Kind == Insert && inserted == nil {
			inserted = c
		} else if inserted != nil && c.Output.Operation != inserted.Output.Operation && other == "" {
			other = c.Output.Operation
		}
	}
	if inserted != nil {
		if other == "" {
			other = inserted.Output.Operation + "-other"
		}
		out = append(out, appended("replay answered with another operation", inserted.Input,
			Output{Code: 200, Operation: other}))
	}

	if m, ok := staleRead(h, appended); ok {
		out = append(out, m...)
	}

	for _, c := range h.Calls {
		if (c.Input.Kind == OpGet || c.Input.Kind == OpWait) && !c.Output.Unknown && c.Output.Done {
			out = append(out, appended("operation DONE then RUNNING",
				Input{Kind: OpGet, Group: c.Input.Group, Operation: c.Input.Operation}, Output{Code: 200}))
			break
		}
	}
	return out
}

type observation struct {
	group, name, state string
	call, ret          int64
}

// staleRead finds a request read active and later (strictly after) read final, with no insert of its
// name that may take effect after that final read began (so it cannot be a new incarnation).
func staleRead(h History, appended func(string, Input, Output) Mutation) ([]Mutation, bool) {
	var seen []observation
	for _, c := range h.Calls {
		if c.Output.Unknown || c.Output.Code != 200 {
			continue
		}
		switch c.Input.Kind {
		case Get, CrdGet:
			seen = append(seen, observation{c.Input.Group, c.Input.Name, c.Output.State, c.Call, c.Return})
		case List, CrdList:
			for n, s := range c.Output.Listed {
				seen = append(seen, observation{c.Input.Group, n, s, c.Call, c.Return})
			}
		}
	}
	reinsertedAfter := func(group, name string, t int64) bool {
		for _, c := range h.Calls {
			refused := !c.Output.Unknown && c.Output.Code != 200
			if c.Input.Kind == Insert && c.Input.Group == group && c.Input.Name == name && !refused &&
				(c.Output.Unknown || c.Return >= t) {
				return true
			}
		}
		return false
	}
	for _, early := range seen {
		if !isActive(early.state) {
			continue
		}
		for _, late := range seen {
			if late.group != early.group || late.name != early.name || late.call <= early.ret ||
				isActive(late.state) || reinsertedAfter(late.group, late.name, late.call) {
				continue
			}
			in := Input{Kind: Get, Group: late.group, Name: late.name}
			never := Succeeded
			if late.state == Succeeded {
				never = Failed
			}
			return []Mutation{
				appended("stale read from a client cache", in, Output{Code: 200, State: early.state}),
				appended("state the request never had", in, Output{Code: 200, State: never}),
			}, true
		}
	}
	return nil, false
}
