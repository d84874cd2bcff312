package model

import (
	"strings"
	"testing"
)

func ev(at int64, typ, name, uid, state, rv string) WatchEvent {
	return WatchEvent{At: at, Type: typ, Name: name, UID: uid, State: state, ResourceVersion: rv}
}

// A sound watch: two incarnations of one name, the first deleted before the second appears, a gap
// with its list, and a final list equal to the view.
func soundWatch() []WatchEvent {
	return []WatchEvent{
		ev(1, WatchSync, "h0-g0-1", "u0", Accepted, "5"),
		ev(2, "ADDED", "h0-g0-0", "u1", Creating, "10"),
		ev(3, "MODIFIED", "h0-g0-0", "u1", Accepted, "11"),
		ev(4, "MODIFIED", "h0-g0-0", "u1", Cancelled, "12"),
		ev(5, "DELETED", "h0-g0-0", "u1", Cancelled, "13"),
		ev(6, "ADDED", "h0-g0-0", "u2", Creating, "14"),
		{At: 7, Type: WatchGap},
		ev(8, WatchSync, "h0-g0-0", "u2", Accepted, "16"),
		ev(9, WatchSync, "h0-g0-1", "u0", Accepted, "5"),
		ev(10, "MODIFIED", "h0-g0-0", "u2", Succeeded, "20"),
		{At: 11, Type: WatchFinal, Final: map[string]string{"h0-g0-0": "u2 SUCCEEDED", "h0-g0-1": "u0 ACCEPTED"}},
	}
}

func TestSoundWatch(t *testing.T) {
	if p := CheckWatch(soundWatch()); len(p) > 0 {
		t.Fatalf("a sound watch has problems: %v", p)
	}
}

func TestWatchViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func([]WatchEvent) []WatchEvent
		want string
	}{
		{"out of order", func(e []WatchEvent) []WatchEvent { e[2], e[3] = e[3], e[2]; return e }, "out of order"},
		{"went back", func(e []WatchEvent) []WatchEvent {
			e[3].State = Creating
			e[3].Type = "MODIFIED"
			e[2].State = Accepted
			return e
		}, "went back"},
		{"new incarnation before the deletion", func(e []WatchEvent) []WatchEvent { return append(e[:4:4], e[5:]...) }, "before the deletion"},
		{"an ended incarnation back", func(e []WatchEvent) []WatchEvent {
			back := ev(10, "MODIFIED", "h0-g0-0", "u1", Cancelled, "21")
			return append(e[:10:10], back, e[10])
		}, "came back"},
		{"did not catch up", func(e []WatchEvent) []WatchEvent { e[10].Final = map[string]string{}; return e }, "catch up"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := CheckWatch(tc.edit(soundWatch()))
			if !strings.Contains(strings.Join(p, "\n"), tc.want) {
				t.Fatalf("problems %v, want one saying %q", p, tc.want)
			}
		})
	}
}

func TestWatchMutationsAreCaught(t *testing.T) {
	ms := WatchMutations(soundWatch())
	if len(ms) != 4 {
		t.Fatalf("%d mutations, want 4 (every kind applies to the sound watch)", len(ms))
	}
	for _, m := range ms {
		if len(CheckWatch(m.Events)) == 0 {
			t.Errorf("mutation %q not caught", m.Name)
		}
	}
}
