package model

import (
	"fmt"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
)

// Result of checking one history.
type Result struct {
	// Verdict is porcupine.Ok, porcupine.Illegal or porcupine.Unknown (the check timed out).
	Verdict porcupine.CheckResult
	Info    porcupine.LinearizationInfo
	Ops     int // calls checked
	Open    int // of which with an unknown outcome
}

// Operations turns a history into Porcupine's form. A call with an unknown outcome returns "at the
// end of time" (after every other call): the checker may linearize it anywhere after its invocation,
// where the model lets it take effect or not. A read whose outcome is unknown tells nothing and is
// left out.
func Operations(h History) (ops []porcupine.Operation, open int) {
	var last int64
	for _, c := range h.Calls {
		if c.Return > last {
			last = c.Return
		}
		if c.Call > last {
			last = c.Call
		}
	}
	for _, c := range h.Calls {
		ret := c.Return
		if c.Output.Unknown {
			if IsRead(c.Input.Kind) {
				continue
			}
			open++
			ret = last + 1
		}
		ops = append(ops, porcupine.Operation{
			ClientId: c.Client,
			Input:    c.Input,
			Call:     c.Call,
			Output:   c.Output,
			Return:   ret,
			Metadata: c.Note,
		})
	}
	return ops, open
}

// Check checks h against the model within timeout (0: no limit).
func Check(h History, timeout time.Duration) Result {
	ops, open := Operations(h)
	verdict, info := porcupine.CheckOperationsVerbose(Model(), ops, timeout)
	return Result{Verdict: verdict, Info: info, Ops: len(ops), Open: open}
}

// Visualize writes Porcupine's HTML visualization of a checked history to path.
func Visualize(r Result, path string) error {
	if err := porcupine.VisualizePath(Model(), r.Info, path); err != nil {
		return fmt.Errorf("visualization %s: %w", path, err)
	}
	return nil
}

// Prefix is h as it was at time t: the calls invoked before t, those still running then with an
// unknown outcome.
func Prefix(h History, t int64) History {
	var calls []Call
	for _, c := range h.Calls {
		if c.Call >= t {
			continue
		}
		if c.Return >= t {
			c.Output = Output{Unknown: true}
		}
		calls = append(calls, c)
	}
	return History{Calls: calls, Faults: h.Faults}
}

// FirstViolation returns the call whose answer made an illegal history illegal: the earliest return
// such that the history up to it is illegal (prefixes of a linearizable history are linearizable).
func FirstViolation(h History, timeout time.Duration) (Call, bool) {
	var returns []int64
	for _, c := range h.Calls {
		if !c.Output.Unknown {
			returns = append(returns, c.Return)
		}
	}
	sort.Slice(returns, func(i, j int) bool { return returns[i] < returns[j] })
	i := sort.Search(len(returns), func(i int) bool {
		return Check(Prefix(h, returns[i]+1), timeout).Verdict == porcupine.Illegal
	})
	if i == len(returns) {
		return Call{}, false
	}
	for _, c := range h.Calls {
		if !c.Output.Unknown && c.Return == returns[i] {
			return c, true
		}
	}
	return Call{}, false
}
