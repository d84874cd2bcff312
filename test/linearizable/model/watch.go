package model

import (
	"fmt"
	"strconv"
)

// A watch is not a linearizable read: its events arrive after the change they show, however long
// after. What a watch guarantees is order, and that it catches up: the events of the project's
// requests come in resourceVersion order, each request moves only forward (docs/rest.md's states),
// an incarnation of a name ends with its deletion before the next one appears and never comes back,
// and once the writes stop the watch's view equals a list. CheckWatch checks exactly that.

// Kinds of recorded watch events besides the API's ADDED, MODIFIED and DELETED.
const (
	// WatchSync is an object of a list the watch (re)started from.
	WatchSync = "SYNC"
	// WatchGap marks a list made because the watch's resourceVersion expired: events were missed.
	WatchGap = "GAP"
	// WatchFinal is the list the watch's view was compared with after the run (Final).
	WatchFinal = "FINAL"
)

// WatchEvent is one event as the watcher received it.
type WatchEvent struct {
	At              int64             `json:"at"`
	Type            string            `json:"type"`
	Name            string            `json:"name,omitempty"`
	UID             string            `json:"uid,omitempty"`
	State           string            `json:"state,omitempty"`
	ResourceVersion string            `json:"rv,omitempty"`
	Final           map[string]string `json:"final,omitempty"` // WatchFinal: name → "uid state"
}

// WatchView is what the events say the requests are: name → "uid state".
func WatchView(events []WatchEvent) map[string]string {
	view := map[string]string{}
	uids := map[string]string{}
	for _, e := range events {
		switch e.Type {
		case WatchGap:
			view, uids = map[string]string{}, map[string]string{}
		case WatchSync, "ADDED", "MODIFIED":
			view[e.Name], uids[e.Name] = e.UID+" "+e.State, e.UID
		case "DELETED":
			if uids[e.Name] == e.UID {
				delete(view, e.Name)
				delete(uids, e.Name)
			}
		}
	}
	return view
}

// forward says whether a request may go from state a to state b.
func forward(a, b string) bool {
	switch {
	case a == b:
		return true
	case a == Creating:
		return true
	case a == Accepted:
		return b == Succeeded || b == Failed || b == Cancelled
	}
	return false
}

type incarnation struct {
	uid     string
	state   string
	deleted bool
}

// CheckWatch returns what in a recorded watch breaks its guarantees (nothing: the watch is sound).
func CheckWatch(events []WatchEvent) []string {
	var problems []string
	report := func(e WatchEvent, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("watch event at %.3f s (%s %s uid %s rv %s): %s",
			float64(e.At)/1e9, e.Type, e.Name, e.UID, e.ResourceVersion, fmt.Sprintf(format, args...)))
	}
	var newest uint64
	current := map[string]*incarnation{}
	ended := map[string]bool{} // uids superseded or deleted
	gapSince := map[string]bool{}
	for i, e := range events {
		switch e.Type {
		case WatchGap:
			for name := range current {
				gapSince[name] = true
			}
			continue
		case WatchFinal:
			if view := WatchView(events[:i]); !SameView(view, e.Final) {
				report(e, "the watch did not catch up: its view %v, the API server's list %v", view, e.Final)
			}
			continue
		}
		rv, err := strconv.ParseUint(e.ResourceVersion, 10, 64)
		if err != nil {
			report(e, "resourceVersion is not a number")
			continue
		}
		if e.Type != WatchSync && rv <= newest {
			report(e, "out of order: resourceVersion not after %d", newest)
		}
		newest = max(newest, rv)
		inc := current[e.Name]
		switch {
		case ended[e.UID] && !(e.Type == WatchSync && inc != nil && inc.uid == e.UID):
			report(e, "an incarnation that had ended came back")
			continue
		case inc == nil || inc.uid != e.UID:
			if inc != nil && !inc.deleted && !gapSince[e.Name] {
				report(e, "a new incarnation before the deletion of %s", inc.uid)
			}
			if inc != nil {
				ended[inc.uid] = true
			}
			inc = &incarnation{uid: e.UID, state: e.State}
			current[e.Name] = inc
			delete(gapSince, e.Name)
		case !forward(inc.state, e.State):
			report(e, "went back from %s to %s", inc.state, e.State)
		}
		inc.state = e.State
		if e.Type == "DELETED" {
			inc.deleted = true
			ended[e.UID] = true
		}
	}
	return problems
}

// SameView says whether two views (name → "uid state") are the same.
func SameView(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// WatchMutation is a recorded watch with one corruption a sound watch cannot show.
type WatchMutation struct {
	Name   string
	Events []WatchEvent
}

// WatchMutations corrupts a recorded watch in each way CheckWatch must catch, where the watch offers
// a case: an event delivered out of order, a request going back to an earlier state, an ended
// incarnation coming back, and a view that never caught up.
func WatchMutations(events []WatchEvent) []WatchMutation {
	var out []WatchMutation
	copyWith := func(name string, edit func([]WatchEvent) []WatchEvent) {
		c := append([]WatchEvent(nil), events...)
		out = append(out, WatchMutation{Name: name, Events: edit(c)})
	}
	finalAt := len(events)
	for i, e := range events {
		if e.Type == WatchFinal {
			finalAt = i
		}
	}
	after := func(es []WatchEvent, e WatchEvent) []WatchEvent {
		e.ResourceVersion = "18446744073709551615"
		return append(es[:finalAt:finalAt], append([]WatchEvent{e}, events[finalAt:]...)...)
	}
	for i := 1; i < finalAt; i++ {
		a, b := events[i-1], events[i]
		if a.Type != WatchSync && b.Type != WatchSync && a.ResourceVersion != b.ResourceVersion &&
			a.Type != WatchGap && b.Type != WatchGap {
			copyWith("events out of order", func(es []WatchEvent) []WatchEvent {
				es[i-1], es[i] = es[i], es[i-1]
				return es
			})
			break
		}
	}
	for i := 0; i < finalAt; i++ {
		if e := events[i]; e.Type == "MODIFIED" && e.State != Creating {
			back := e
			back.State = Creating
			copyWith("a request back to CREATING", func(es []WatchEvent) []WatchEvent { return after(es, back) })
			break
		}
	}
	for i := 0; i < finalAt; i++ {
		if e := events[i]; e.Type == "DELETED" {
			copyWith("a deleted incarnation back", func(es []WatchEvent) []WatchEvent {
				back := e
				back.Type = "MODIFIED"
				return after(es, back)
			})
			break
		}
	}
	if finalAt < len(events) {
		copyWith("a view that did not catch up", func(es []WatchEvent) []WatchEvent {
			final := map[string]string{"never-watched": "uid " + Creating}
			for k, v := range es[finalAt].Final {
				final[k] = v
			}
			es[finalAt].Final = final
			return es
		})
	}
	return out
}
