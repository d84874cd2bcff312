// Command linearizable records histories of concurrent clients driving the operator's REST API with
// Google's official Go client (google.golang.org/api/compute/v1, unchanged) and checks each with
// Porcupine against the sequential model in ./model. The faults are injected from outside (the test
// test/reliability/linearizable.test.ts kills, freezes and restarts things meanwhile).
//
//	linearizable record -endpoints=http://a,http://b -token=… -project=ns -zone=local-a -groups=g0,g1 -out=DIR
//	linearizable check FILE.json…
//
// record runs one history, writes DIR/history.json, checks it, checks that every mutation of it (a
// corrupted answer a correct server cannot give, model.Mutations) is found illegal, and prints one
// summary line, `RESULT {json}`. A violation writes DIR/history.html (Porcupine's visualization) and
// exits 1; a mutation the checker accepts exits 3 (the checker is vacuous); bad flags exit 2.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"resize-operator.dev/test/linearizable/model"
)

// summary is what record and check print for each history.
type summary struct {
	History   string         `json:"history"`
	Verdict   string         `json:"verdict"`
	Ops       int            `json:"ops"`
	Open      int            `json:"open"`
	ByKind    map[string]int `json:"byKind"`
	Faults    []string       `json:"faults,omitempty"`
	CheckMs   int64          `json:"checkMs"`
	Mutations int            `json:"mutations"`
	Caught    int            `json:"caught"`
	Missed    []string       `json:"missed,omitempty"`
	HTML      string         `json:"html,omitempty"`
	// First is the call whose answer made the history illegal (the shortest illegal prefix ends there).
	First string `json:"first,omitempty"`
	// WatchEvents is how many events the watch delivered; WatchProblems what broke its guarantees.
	WatchEvents   int      `json:"watchEvents"`
	WatchProblems []string `json:"watchProblems,omitempty"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: linearizable record|check …")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "record":
		os.Exit(record(os.Args[2:]))
	case "check":
		code := 0
		for _, path := range os.Args[2:] {
			h, err := model.ReadHistory(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return
			}
			if c := verify(path, h, 5*time.Minute); c > code {
				code = c
			}
		}
		os.Exit(code)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

func record(args []string) int {
	fs := flag.NewFlagSet("record", flag.ExitOnError)
	var c config
	var endpoints, groups, out, fault string
	fs.StringVar(&endpoints, "endpoints", "", "comma-separated base URLs of the operator replicas (no /compute/v1)")
	fs.StringVar(&c.token, "token", "", "bearer token (a Kubernetes ServiceAccount token)")
	fs.StringVar(&c.project, "project", "", "project (the Kubernetes namespace)")
	fs.StringVar(&c.zone, "zone", "local-a", "zone of the groups")
	fs.StringVar(&groups, "groups", "", "comma-separated zonal groups")
	fs.StringVar(&c.prefix, "prefix", "h0", "prefix of request names, distinct per history")
	fs.IntVar(&c.names, "names", 3, "request names per group (few names: more conflicts)")
	fs.IntVar(&c.clients, "clients", 6, "concurrent clients")
	fs.IntVar(&c.ops, "ops", 500, "calls to make (at least; the run also lasts -duration)")
	fs.DurationVar(&c.duration, "duration", 0, "keep calling at least this long (to span a fault)")
	fs.DurationVar(&c.callTimeout, "call-timeout", 5*time.Second, "deadline of one call; past it the outcome is unknown")
	fs.DurationVar(&c.retryFor, "retry-for", time.Minute,
		"how long a mutation with an unknown outcome is tried again with its requestId")
	fs.Int64Var(&c.seed, "seed", time.Now().UnixNano(), "random seed")
	fs.BoolVar(&c.concurrentReplays, "concurrent-replays", false,
		"let calls use a requestId while another call with it still runs (a retry racing its first try); "+
			"it meets the two violations reported in docs/reliability.md")
	fs.StringVar(&c.kubeconfig, "kubeconfig", "",
		"a kubeconfig of the API server: adds client-go reads of the requests (the CRD view) and one watch")
	fs.StringVar(&fault, "fault", "", "the fault injected meanwhile, recorded with the history")
	fs.StringVar(&out, "out", "", "folder for history.json (and history.html on a violation)")
	checkTimeout := fs.Duration("check-timeout", 2*time.Minute, "the checker's time limit (Unknown past it)")
	_ = fs.Parse(args)
	c.endpoints = strings.Split(endpoints, ",")
	c.groups = strings.Split(groups, ",")
	if endpoints == "" || c.token == "" || c.project == "" || groups == "" || out == "" {
		fmt.Fprintln(os.Stderr, "-endpoints, -token, -project, -groups and -out are required")
		return 2
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	h, err := run(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if fault != "" {
		h.Faults = []string{fault}
	}
	path := filepath.Join(out, "history.json")
	if err := model.WriteHistory(path, h); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return verify(path, h, *checkTimeout)
}

// verify checks a history and its mutations and prints the summary.
func verify(path string, h model.History, timeout time.Duration) int {
	started := time.Now()
	r := model.Check(h, timeout)
	s := summary{History: path, Verdict: string(r.Verdict), Ops: r.Ops, Open: r.Open, ByKind: map[string]int{},
		Faults: h.Faults, CheckMs: time.Since(started).Milliseconds()}
	for _, call := range h.Calls {
		s.ByKind[call.Input.Kind]++
	}
	code := 0
	if r.Verdict == porcupine.Illegal {
		s.HTML = strings.TrimSuffix(path, ".json") + ".html"
		if err := model.Visualize(r, s.HTML); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		if c, ok := model.FirstViolation(h, timeout); ok {
			s.First = fmt.Sprintf("client %d [%.3f s, %.3f s] %s", c.Client, float64(c.Call)/1e9,
				float64(c.Return)/1e9, model.Describe(c.Input, c.Output))
		}
		code = 1
	} else if r.Verdict != porcupine.Ok {
		// Not knowing is not passing: the run must be small enough to check.
		code = 1
	}
	for _, m := range model.Mutations(h) {
		s.Mutations++
		if model.Check(m.History, timeout).Verdict == porcupine.Illegal {
			s.Caught++
		} else {
			s.Missed = append(s.Missed, m.Name)
		}
	}
	if len(h.Watch) > 0 {
		s.WatchEvents = len(h.Watch)
		if s.WatchProblems = model.CheckWatch(h.Watch); len(s.WatchProblems) > 0 {
			code = max(code, 1)
		}
		for _, m := range model.WatchMutations(h.Watch) {
			s.Mutations++
			if len(model.CheckWatch(m.Events)) > 0 {
				s.Caught++
			} else {
				s.Missed = append(s.Missed, m.Name)
			}
		}
	}
	if s.Mutations == 0 || len(s.Missed) > 0 {
		code = max(code, 3)
	}
	line, _ := json.Marshal(s)
	fmt.Printf("RESULT %s\n", line)
	return code
}
