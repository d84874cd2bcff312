package model

import (
	"fmt"
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
			if c.Input.Kind == Get || c.Input.Kind == List || c.Input.Kind == OpGet || c.Input.Kind == OpWait {
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
