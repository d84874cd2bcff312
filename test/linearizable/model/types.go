// Package model is the sequential specification of the operator's compute REST API (resize requests of
// one instance group and their Operations) as a Porcupine model, and the history format the recorder
// writes and the checker reads.
//
// A history is a list of calls, each with its invocation and response times (monotonic nanoseconds).
// A call whose outcome is unknown (a timeout, a reset connection, a 5xx: the server may or may not have
// applied it) is an open call: Unknown is set and its Return is after every other call, so Porcupine
// may place it anywhere after its invocation, or treat it as never applied.
package model

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Kinds of calls.
const (
	Insert = "insert"
	Get    = "get"
	List   = "list"
	Cancel = "cancel"
	Delete = "delete"
	OpGet  = "operation.get"
	OpWait = "operation.wait"
	// CrdGet and CrdList read the same requests as Kubernetes objects with client-go (the CRD view):
	// the same guarantee as get and list.
	CrdGet  = "crd.get"
	CrdList = "crd.list"
)

// IsRead says whether a call only reads (its unknown outcome is left out of the history).
func IsRead(kind string) bool {
	switch kind {
	case Get, List, OpGet, OpWait, CrdGet, CrdList:
		return true
	}
	return false
}

// Resize request states, as the API names them.
const (
	Creating  = "CREATING"
	Accepted  = "ACCEPTED"
	Succeeded = "SUCCEEDED"
	Failed    = "FAILED"
	Cancelled = "CANCELLED"
)

// Input is what a client asked.
type Input struct {
	Kind      string `json:"kind"`
	Group     string `json:"group"`
	Name      string `json:"name,omitempty"`      // the resize request (not for list and operations)
	RequestID string `json:"requestId,omitempty"` // insert, cancel, delete
	Operation string `json:"operation,omitempty"` // operation.get and operation.wait
	ResizeBy  int64  `json:"resizeBy,omitempty"`  // insert
}

// Output is what the server answered. Exactly one of Unknown, Code != 200 and the success fields
// describes it.
type Output struct {
	// Unknown: the call's outcome is not known (transport error, timeout, 5xx).
	Unknown bool `json:"unknown,omitempty"`
	// Code is the HTTP status (200 on success) and Reason the first error's reason.
	Code   int    `json:"code"`
	Reason string `json:"reason,omitempty"`
	// Operation is the name of the Operation a mutation returned.
	Operation string `json:"operation,omitempty"`
	// State is a get's resize request state.
	State string `json:"state,omitempty"`
	// Listed is a list's answer: request name → state.
	Listed map[string]string `json:"listed,omitempty"`
	// Done and Error are an operation's status and its first error code ("" when none).
	Done  bool   `json:"done,omitempty"`
	Error string `json:"error,omitempty"`
}

// Call is one recorded call.
type Call struct {
	Client int    `json:"client"`
	Input  Input  `json:"input"`
	Output Output `json:"output"`
	Call   int64  `json:"call"`
	Return int64  `json:"return"`
	// Note says what the recorder saw when the outcome is unknown (the error), for the report.
	Note string `json:"note,omitempty"`
}

// History is one recorded run, with what was done to the system meanwhile.
type History struct {
	Calls  []Call   `json:"calls"`
	Faults []string `json:"faults,omitempty"`
	// Watch is what one client-go watch of the project's requests delivered meanwhile (CheckWatch).
	Watch []WatchEvent `json:"watch,omitempty"`
}

// ReadHistory reads a history file written by WriteHistory.
func ReadHistory(path string) (History, error) {
	var h History
	data, err := os.ReadFile(path)
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// WriteHistory writes h as indented JSON.
func WriteHistory(path string, h History) error {
	data, err := json.MarshalIndent(h, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Describe renders a call for the visualization and reports.
func Describe(in Input, out Output) string {
	var b strings.Builder
	switch in.Kind {
	case List, CrdList:
		fmt.Fprintf(&b, "%s(%s)", in.Kind, in.Group)
	case OpGet, OpWait:
		fmt.Fprintf(&b, "%s(%s)", in.Kind, in.Operation)
	case Get, CrdGet:
		fmt.Fprintf(&b, "%s(%s)", in.Kind, in.Name)
	default:
		fmt.Fprintf(&b, "%s(%s, rid=%s)", in.Kind, in.Name, short(in.RequestID))
	}
	b.WriteString(" → ")
	switch {
	case out.Unknown:
		b.WriteString("unknown")
	case out.Code != 200:
		fmt.Fprintf(&b, "%d %s", out.Code, out.Reason)
	case in.Kind == Get || in.Kind == CrdGet:
		b.WriteString(out.State)
	case in.Kind == List || in.Kind == CrdList:
		names := make([]string, 0, len(out.Listed))
		for n, s := range out.Listed {
			names = append(names, n+":"+s)
		}
		sort.Strings(names)
		b.WriteString("[" + strings.Join(names, " ") + "]")
	case in.Kind == OpGet || in.Kind == OpWait:
		if out.Done {
			b.WriteString("DONE")
			if out.Error != "" {
				b.WriteString(" " + out.Error)
			}
		} else {
			b.WriteString("RUNNING")
		}
	default:
		b.WriteString(out.Operation)
	}
	return b.String()
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
