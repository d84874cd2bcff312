package model

import (
	"fmt"
	"sort"
	"strings"
)

// request is what the model knows of one resize request name in a group. The controller moves a
// request forward on its own (admission, provisioning, a cancel taking effect, a deletion's finalizer),
// so Phase is a lower bound: the real state may be anything reachable from it. An observation raises
// it; states only move forward, so an upper bound learnt at one moment never constrains a later one.
type request struct {
	Phase    string // "" while the name holds no request
	Cancel   bool   // spec.cancel set by an accepted cancel (only then may it become CANCELLED)
	Deleting bool   // a delete was accepted: the request may still be read until its finalizer lets it go
	Gen      int    // incarnation: a name deleted and inserted again is a new request
}

// binding is a requestId the server has bound to a call (docs/rest.md: its method and resize request),
// with what is known of the Operation it returned.
type binding struct {
	Verb  string
	Name  string
	Gen   int
	Op    string // "" when the call's answer was lost (open call) and no replay has told it yet
	Done  bool   // the Operation was seen DONE: it stays DONE with the same error
	Error string
}

// state of one group: immutable, each step returns new values.
type state struct {
	requests map[string]request
	bindings map[string]binding // by requestId
	key      string
}

func newState(requests map[string]request, bindings map[string]binding) *state {
	s := &state{requests: requests, bindings: bindings}
	s.key = s.canonical()
	return s
}

func (s *state) canonical() string {
	var b strings.Builder
	names := make([]string, 0, len(s.requests))
	for n := range s.requests {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := s.requests[n]
		fmt.Fprintf(&b, "%s=%s/%t/%t/%d;", n, r.Phase, r.Cancel, r.Deleting, r.Gen)
	}
	b.WriteString("|")
	ids := make([]string, 0, len(s.bindings))
	for id := range s.bindings {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		x := s.bindings[id]
		fmt.Fprintf(&b, "%s=%s/%s/%d/%s/%t/%s;", id, x.Verb, x.Name, x.Gen, x.Op, x.Done, x.Error)
	}
	return b.String()
}

func (s *state) req(name string) request { return s.requests[name] }

// with returns s with request name replaced (and, if b is given, requestId rid bound to it).
func (s *state) with(name string, r request, rid string, b *binding) *state {
	requests := make(map[string]request, len(s.requests)+1)
	for k, v := range s.requests {
		requests[k] = v
	}
	requests[name] = r
	bindings := s.bindings
	if b != nil {
		bindings = s.withBinding(rid, *b)
	}
	return newState(requests, bindings)
}

func (s *state) withBinding(rid string, b binding) map[string]binding {
	bindings := make(map[string]binding, len(s.bindings)+1)
	for k, v := range s.bindings {
		bindings[k] = v
	}
	bindings[rid] = b
	return bindings
}

// opUsed reports whether another requestId's call already returned Operation op.
func (s *state) opUsed(op, except string) bool {
	for id, b := range s.bindings {
		if id != except && b.Op == op {
			return true
		}
	}
	return false
}

var (
	active = []string{Creating, Accepted}
	final  = []string{Succeeded, Failed, Cancelled}
)

// reachable: can the controller move a request from `from` to `to` on its own? CREATING → ACCEPTED →
// SUCCEEDED; CREATING or ACCEPTED → FAILED; CREATING or ACCEPTED → CANCELLED only once cancelled.
// Final states never change.
func reachable(from, to string, cancel bool) bool {
	if from == to {
		return true
	}
	switch from {
	case Creating:
		return to == Accepted || to == Succeeded || to == Failed || (to == Cancelled && cancel)
	case Accepted:
		return to == Succeeded || to == Failed || (to == Cancelled && cancel)
	}
	return false
}

// settle returns r raised to each state of `allowed` reachable from it, leaving out those reachable
// from another one returned (they add no behaviour): the ways r may be in `allowed` now.
func settle(r request, allowed []string) []request {
	var phases []string
	for _, p := range allowed {
		if r.Phase != "" && reachable(r.Phase, p, r.Cancel) {
			phases = append(phases, p)
		}
	}
	var out []request
	for _, p := range phases {
		covered := false
		for _, q := range phases {
			if q != p && reachable(q, p, r.Cancel) {
				covered = true
			}
		}
		if !covered {
			x := r
			x.Phase = p
			out = append(out, x)
		}
	}
	return out
}

func gone(r request) request { return request{Gen: r.Gen} }

func isActive(p string) bool { return p == Creating || p == Accepted }

func one(s *state) []*state { return []*state{s} }

// observe applies a read of one request: present with `st`, or absent (404 / not listed).
func observe(s *state, name string, present bool, st string) (*state, bool) {
	r := s.req(name)
	switch {
	case !present && r.Phase == "":
		return s, true
	case !present && r.Deleting:
		return s.with(name, gone(r), "", nil), true
	case !present:
		return nil, false
	case r.Phase == "" || !reachable(r.Phase, st, r.Cancel):
		return nil, false
	case r.Phase == st:
		return s, true
	}
	r.Phase = st
	return s.with(name, r, "", nil), true
}

func step(s *state, in Input, out Output) []*state {
	switch in.Kind {
	case Get, CrdGet:
		if out.Unknown {
			return one(s)
		}
		if out.Code != 200 && out.Code != 404 {
			return nil
		}
		if next, ok := observe(s, in.Name, out.Code == 200, out.State); ok {
			return one(next)
		}
		return nil
	case List, CrdList:
		if out.Unknown {
			return one(s)
		}
		if out.Code != 200 {
			return nil
		}
		names := map[string]bool{}
		for n := range s.requests {
			names[n] = true
		}
		for n := range out.Listed {
			names[n] = true
		}
		next := s
		for n := range names {
			st, present := out.Listed[n]
			var ok bool
			if next, ok = observe(next, n, present, st); !ok {
				return nil
			}
		}
		return one(next)
	case Insert, Cancel, Delete:
		return mutation(s, in, out)
	case OpGet, OpWait:
		return operation(s, in, out)
	}
	return nil
}

// mutation is insert, cancel or delete, each with a requestId.
func mutation(s *state, in Input, out Output) []*state {
	if b, bound := s.bindings[in.RequestID]; bound {
		if b.Verb != in.Kind || b.Name != in.Name {
			// Another call's requestId: refused, nothing changes.
			if out.Unknown || (out.Code == 400 && out.Reason == "invalid") {
				return one(s)
			}
			return nil
		}
		// The same call again: the first call's Operation, nothing changes.
		switch {
		case out.Unknown:
			return one(s)
		case out.Code != 200:
			return nil
		case b.Op == out.Operation:
			return one(s)
		case b.Op == "" && !s.opUsed(out.Operation, in.RequestID):
			b.Op = out.Operation
			return one(newState(s.requests, s.withBinding(in.RequestID, b)))
		}
		return nil
	}
	r := s.req(in.Name)
	// applied returns the state after the call took effect with request r2 (or nil if it cannot).
	applied := func(r2 request) *state {
		op := out.Operation
		if !out.Unknown && s.opUsed(op, in.RequestID) {
			return nil
		}
		return s.with(in.Name, r2, in.RequestID, &binding{Verb: in.Kind, Name: in.Name, Gen: r2.Gen, Op: op})
	}
	var effects []*state // the states if the call took effect
	var refusals []*state
	switch in.Kind {
	case Insert:
		if r.Phase == "" || r.Deleting {
			if x := applied(request{Phase: Creating, Gen: r.Gen + 1}); x != nil {
				effects = append(effects, x)
			}
		}
		if out.Code == 409 && out.Reason == "alreadyExists" && r.Phase != "" {
			refusals = append(refusals, s)
		}
	case Cancel:
		switch {
		case r.Phase == "":
			if out.Code == 404 {
				refusals = append(refusals, s)
			}
		case r.Deleting:
			if out.Code == 404 {
				refusals = append(refusals, s.with(in.Name, gone(r), "", nil))
			} else if out.Code == 400 && out.Reason == "invalidResourceUsage" {
				refusals = append(refusals, s)
			}
		default:
			if isActive(r.Phase) {
				c := r
				c.Cancel = true
				if x := applied(c); x != nil {
					effects = append(effects, x)
				}
			}
			if out.Code == 400 && out.Reason == "invalidResourceUsage" {
				for _, f := range settle(r, final) {
					refusals = append(refusals, s.with(in.Name, f, "", nil))
				}
			}
		}
	case Delete:
		switch {
		case r.Phase == "":
			if out.Code == 404 {
				refusals = append(refusals, s)
			}
		case r.Deleting:
			if out.Code == 404 {
				refusals = append(refusals, s.with(in.Name, gone(r), "", nil))
			}
			if x := applied(r); x != nil {
				effects = append(effects, x)
			}
		default:
			for _, f := range settle(r, final) {
				f.Deleting = true
				if x := applied(f); x != nil {
					effects = append(effects, x)
				}
			}
			if out.Code == 400 && out.Reason == "invalidResourceUsage" && isActive(r.Phase) {
				refusals = append(refusals, s)
			}
		}
	}
	switch {
	case out.Unknown:
		// Applied or not: either may be what happened.
		return append(one(s), effects...)
	case out.Code == 200:
		return effects
	}
	return refusals
}

// operation is zoneOperations.get or .wait on an Operation a mutation returned.
func operation(s *state, in Input, out Output) []*state {
	if out.Unknown {
		return one(s)
	}
	var rid string
	var b binding
	for id, x := range s.bindings {
		if x.Op != "" && x.Op == in.Operation {
			rid, b = id, x
		}
	}
	if rid == "" || out.Code != 200 {
		// An Operation no call returned (or one that vanished).
		return nil
	}
	if b.Done {
		if out.Done && out.Error == b.Error {
			return one(s)
		}
		return nil // DONE is final, with the same outcome
	}
	if !out.Done {
		return one(s)
	}
	b.Done, b.Error = true, out.Error
	bindings := s.withBinding(rid, b)
	r := s.req(b.Name)
	var next []*state
	put := func(r2 request) {
		requests := make(map[string]request, len(s.requests))
		for k, v := range s.requests {
			requests[k] = v
		}
		requests[b.Name] = r2
		next = append(next, newState(requests, bindings))
	}
	if r.Gen != b.Gen || r.Phase == "" {
		// Its request is gone: the operations controller finishes every Operation of a gone request
		// (operations/advance.ts), with the error it may have recorded before.
		if b.Verb != Delete || out.Error == "" {
			put(r)
		}
		return next
	}
	if r.Deleting && (b.Verb != Delete || out.Error == "") {
		put(gone(r))
	}
	var allowed []string
	switch {
	case b.Verb == Insert && out.Error == "":
		allowed = []string{Accepted, Succeeded, Cancelled}
	case b.Verb == Insert:
		allowed = []string{Failed}
	case b.Verb == Cancel && out.Error == "":
		allowed = []string{Cancelled}
	case b.Verb == Cancel && out.Error == "CONDITION_NOT_MET":
		allowed = []string{Succeeded, Failed}
	}
	for _, r2 := range settle(r, allowed) {
		put(r2)
	}
	return next
}
