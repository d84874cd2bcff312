package model

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// builder makes synthetic histories: seq appends a call that starts after every call so far ended,
// at calls the same interval to a concurrent one.
type builder struct {
	h   History
	now int64
}

func (b *builder) seq(client int, in Input, out Output) *builder {
	b.now += 10
	b.h.Calls = append(b.h.Calls, Call{Client: client, Input: in, Output: out, Call: b.now, Return: b.now + 5})
	b.now += 5
	return b
}

// at appends a call with the given interval.
func (b *builder) at(client int, call, ret int64, in Input, out Output) *builder {
	b.h.Calls = append(b.h.Calls, Call{Client: client, Input: in, Output: out, Call: call, Return: ret})
	if ret > b.now {
		b.now = ret
	}
	return b
}

const g = "g0"

func ins(name, rid string) Input {
	return Input{Kind: Insert, Group: g, Name: name, RequestID: rid, ResizeBy: 1}
}
func get(name string) Input             { return Input{Kind: Get, Group: g, Name: name} }
func cancel(name, rid string) Input     { return Input{Kind: Cancel, Group: g, Name: name, RequestID: rid} }
func del(name, rid string) Input        { return Input{Kind: Delete, Group: g, Name: name, RequestID: rid} }
func opGet(op string) Input             { return Input{Kind: OpGet, Group: g, Operation: op} }
func list() Input                       { return Input{Kind: List, Group: g} }
func opOut(op string) Output            { return Output{Code: 200, Operation: op} }
func stateOut(s string) Output          { return Output{Code: 200, State: s} }
func errOut(code int, r string) Output  { return Output{Code: code, Reason: r} }
func doneOut(err string) Output         { return Output{Code: 200, Done: true, Error: err} }
func listed(m map[string]string) Output { return Output{Code: 200, Listed: m} }

var (
	running = Output{Code: 200}
	unknown = Output{Unknown: true}
)

func check(t *testing.T, h History, want porcupine.CheckResult) {
	t.Helper()
	r := Check(h, 10*time.Second)
	if r.Verdict != want {
		path := filepath.Join(t.TempDir(), "history.html")
		_ = Visualize(r, path)
		t.Fatalf("verdict %s, want %s", r.Verdict, want)
	}
}

// A lifecycle as the product runs it, sequentially: legal.
func lifecycle() *builder {
	b := &builder{}
	return b.seq(0, ins("a", "r1"), opOut("op1")).
		seq(0, ins("a", "r1"), opOut("op1")). // replay
		seq(1, get("a"), stateOut(Creating)).
		seq(1, opGet("op1"), running).
		seq(0, get("a"), stateOut(Accepted)).
		seq(1, opGet("op1"), doneOut("")).
		seq(0, list(), listed(map[string]string{"a": Succeeded})).
		seq(0, cancel("a", "r2"), errOut(400, "invalidResourceUsage")).
		seq(1, del("a", "r3"), opOut("op3")).
		seq(1, get("a"), stateOut(Succeeded)).
		seq(0, opGet("op3"), doneOut("")).
		seq(0, get("a"), errOut(404, "notFound")).
		seq(1, del("a", "r3"), opOut("op3")). // replay after it is gone
		seq(0, ins("a", "r4"), opOut("op4")). // a new incarnation
		seq(0, cancel("a", "r5"), opOut("op5")).
		seq(1, opGet("op1"), doneOut("")).
		seq(1, get("a"), stateOut(Cancelled)).
		seq(1, opGet("op5"), doneOut(""))
}

func TestLegalLifecycle(t *testing.T) { check(t, lifecycle().h, porcupine.Ok) }

func TestIllegal(t *testing.T) {
	cases := map[string]func(b *builder){
		// A state the request cannot have after SUCCEEDED (a stale read).
		"stale get": func(b *builder) { b.seq(0, get("a"), stateOut(Accepted)) },
		// A requestId replay answered with another call's Operation.
		"replay answered with another operation": func(b *builder) { b.seq(0, ins("a", "r4"), opOut("op1")) },
		// An Operation seen DONE and then RUNNING again.
		"operation not DONE after DONE": func(b *builder) { b.seq(0, opGet("op5"), running) },
		// The requestId of an insert reused for a cancel must be refused, not answered.
		"requestId of another method honoured": func(b *builder) { b.seq(0, cancel("a", "r4"), opOut("op9")) },
		// A list must show every request that exists.
		"list misses a request": func(b *builder) { b.seq(0, list(), listed(map[string]string{})) },
		// CANCELLED without a cancel, on a request that was never cancelled.
		"cancelled without a cancel": func(b *builder) {
			b.seq(0, ins("b", "r6"), opOut("op6")).seq(0, get("b"), stateOut(Cancelled))
		},
		// A second request under an existing name.
		"insert over an existing request": func(b *builder) { b.seq(0, ins("a", "r7"), opOut("op7")) },
		// Cancelling a final request is a 400 (GCE's rule).
		"cancel of a final request accepted": func(b *builder) { b.seq(0, cancel("a", "r8"), opOut("op8")) },
		// Its get says CANCELLED and the cancel's Operation then says it came too late.
		"cancel operation contradicts the state": func(b *builder) {
			b.seq(0, ins("c", "r9"), opOut("op9")).
				seq(0, cancel("c", "r10"), opOut("op10")).
				seq(0, get("c"), stateOut(Cancelled)).
				seq(0, opGet("op10"), doneOut("CONDITION_NOT_MET"))
		},
		// A delete's Operation DONE while the request is still there (and not being deleted).
		"insert DONE while CREATING": func(b *builder) {
			b.seq(0, ins("d", "r11"), opOut("op11")).
				seq(0, opGet("op11"), doneOut("")).
				seq(0, get("d"), stateOut(Creating))
		},
		"a name never inserted is read": func(b *builder) { b.seq(0, get("ghost"), stateOut(Creating)) },
	}
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			b := lifecycle()
			corrupt(b)
			check(t, b.h, porcupine.Illegal)
		})
	}
}

// Concurrency: two inserts of one name with different requestIds, overlapping; exactly one may win.
func TestConcurrentInserts(t *testing.T) {
	b := &builder{}
	b.at(0, 0, 100, ins("a", "r1"), opOut("op1")).at(1, 10, 90, ins("a", "r2"), errOut(409, "alreadyExists"))
	check(t, b.h, porcupine.Ok)
	b2 := &builder{}
	b2.at(0, 0, 100, ins("a", "r1"), opOut("op1")).at(1, 10, 90, ins("a", "r2"), opOut("op2"))
	check(t, b2.h, porcupine.Illegal)
}

// A get concurrent with a state change may see either side; one after it may not go back.
func TestConcurrentReads(t *testing.T) {
	b := &builder{}
	b.seq(0, ins("a", "r1"), opOut("op1")).
		at(0, 100, 200, get("a"), stateOut(Succeeded)).
		at(1, 150, 250, get("a"), stateOut(Accepted)) // overlaps: may come first
	check(t, b.h, porcupine.Ok)
	b.at(1, 300, 310, get("a"), stateOut(Accepted)) // after SUCCEEDED was returned
	check(t, b.h, porcupine.Illegal)
}

// An insert whose answer was lost may or may not have happened.
func TestOpenCalls(t *testing.T) {
	applied := &builder{}
	applied.seq(0, ins("a", "r1"), unknown).seq(1, get("a"), stateOut(Creating)).seq(0, ins("a", "r1"), opOut("op1"))
	check(t, applied.h, porcupine.Ok)
	notApplied := &builder{}
	notApplied.seq(0, ins("a", "r1"), unknown).seq(1, get("a"), errOut(404, "notFound"))
	check(t, notApplied.h, porcupine.Ok)
	// Once applied, another requestId's insert of that name is a conflict, not a second request.
	both := &builder{}
	both.seq(0, ins("a", "r1"), unknown).
		seq(1, get("a"), stateOut(Creating)).
		seq(1, ins("a", "r2"), opOut("op2"))
	check(t, both.h, porcupine.Illegal)
}

// The cancel that comes too late: DONE with CONDITION_NOT_MET once the request SUCCEEDED.
func TestCancelTooLate(t *testing.T) {
	b := &builder{}
	b.seq(0, ins("a", "r1"), opOut("op1")).
		seq(0, cancel("a", "r2"), opOut("op2")).
		seq(1, opGet("op2"), doneOut("CONDITION_NOT_MET")).
		seq(1, get("a"), stateOut(Succeeded))
	check(t, b.h, porcupine.Ok)
	b.seq(1, get("a"), stateOut(Cancelled))
	check(t, b.h, porcupine.Illegal)
}

func TestMutationsOfRealHistoriesAreCaught(t *testing.T) {
	h := lifecycle().h
	for _, m := range Mutations(h) {
		if r := Check(m.History, 10*time.Second); r.Verdict != porcupine.Illegal {
			t.Errorf("mutation %q: verdict %s, want Illegal", m.Name, r.Verdict)
		}
	}
	if len(Mutations(h)) < 2 {
		t.Fatalf("want at least 2 mutations of the lifecycle, got %d", len(Mutations(h)))
	}
}

// Found in the product (docs/reliability.md): an insert the cluster refuses (409) binds its
// requestId until it is refused, and a concurrent call with that requestId for another method is
// refused as if it were bound. In every order the refused insert changes nothing, so that answer is
// not linearizable.
func TestRefusedInsertsRequestIdSeenBound(t *testing.T) {
	b := &builder{}
	b.seq(0, ins("a", "r1"), opOut("op1")).
		seq(0, get("a"), stateOut(Succeeded)).
		at(1, 100, 200, ins("a", "r2"), errOut(409, "alreadyExists")).
		at(2, 110, 150, del("a", "r2"), errOut(400, "invalid"))
	check(t, b.h, porcupine.Illegal)
	// The same delete after the insert was refused is processed afresh: legal.
	ok := &builder{}
	ok.seq(0, ins("a", "r1"), opOut("op1")).
		seq(0, get("a"), stateOut(Succeeded)).
		seq(1, ins("a", "r2"), errOut(409, "alreadyExists")).
		seq(2, del("a", "r2"), opOut("op2"))
	check(t, ok.h, porcupine.Ok)
}

// Found in the product under a leader freeze (docs/reliability.md): the calls on one request name of a
// recorded history. An insert whose first try was cut short after its Operation was recorded was
// retried with its requestId and acknowledged with that Operation, while the request under the name
// was another requestId's insert: two inserts acknowledged for one request.
func TestRecordedViolation(t *testing.T) {
	h, err := ReadHistory("testdata/insert-acknowledged-without-its-request.json")
	if err != nil {
		t.Fatal(err)
	}
	check(t, h, porcupine.Illegal)
	c, ok := FirstViolation(h, 10*time.Second)
	if !ok || c.Input.Kind != Insert || c.Input.RequestID[:8] != "6d8d8477" {
		t.Fatalf("first violation %v %s, want the insert of requestId 6d8d8477", ok, Describe(c.Input, c.Output))
	}
}

// Found in the product with no fault (docs/reliability.md): a name deleted and inserted again; the new
// insert's Operation was DONE (waited on twice) and the new request was then listed and read CREATING.
func TestRecordedInsertDoneWhileCreating(t *testing.T) {
	h, err := ReadHistory("testdata/insert-done-while-creating.json")
	if err != nil {
		t.Fatal(err)
	}
	check(t, h, porcupine.Illegal)
	c, ok := FirstViolation(h, 10*time.Second)
	if !ok || c.Input.Kind != List || c.Output.Listed["h0-g0-1"] != Creating {
		t.Fatalf("first violation %v %s, want the list showing h0-g0-1 CREATING", ok, Describe(c.Input, c.Output))
	}
}

// Found in the product under a leader freeze (docs/reliability.md, V6): cancel(h2-g1-0, rid 4ea6a773)
// was sent to the replica about to be frozen, timed out, and its retry on the other replica was answered
// 404 (the name had no request then); the frozen replica, continued, carried out the first try on the
// request inserted under the name since, which no accepted cancel had reached, and a list saw it
// CANCELLED.
func TestRecordedCancelAppliedAfterItsRetryWasRefused(t *testing.T) {
	h, err := ReadHistory("testdata/cancel-applied-after-its-retry-was-refused.json")
	if err != nil {
		t.Fatal(err)
	}
	check(t, h, porcupine.Illegal)
	c, ok := FirstViolation(h, 10*time.Second)
	if !ok || c.Input.Kind != List || c.Output.Listed["h2-g1-0"] != Cancelled {
		t.Fatalf("first violation %v %s, want the list showing h2-g1-0 CANCELLED", ok, Describe(c.Input, c.Output))
	}
}

// Found in the product under API-server faults by the soak (docs/reliability.md, V7 and V8): a
// mutation whose first try reached the cluster but lost its answer (connection reset) was forgotten and
// its retry refused (V7: a delete answered 404, an insert 409); a client with full access was answered
// 403 while kube-apiserver restarted (V8). Each history must stay illegal, at that call.
func TestRecordedAPIServerFaultViolations(t *testing.T) {
	for _, c := range []struct {
		file, kind, rid string
		code            int
	}{
		{"delete-refused-after-its-first-try-deleted.json", Delete, "a4c8ab26", 404},
		{"insert-refused-after-its-first-try-created.json", Insert, "c6eaa5bc", 409},
		{"forbidden-while-the-api-server-restarts.json", Cancel, "89611c51", 403},
	} {
		h, err := ReadHistory("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		check(t, h, porcupine.Illegal)
		first, ok := FirstViolation(h, 10*time.Second)
		if !ok || first.Input.Kind != c.kind || first.Input.RequestID[:8] != c.rid || first.Output.Code != c.code {
			t.Errorf("%s: first violation %v %s, want %s rid %s → %d", c.file, ok,
				Describe(first.Input, first.Output), c.kind, c.rid, c.code)
		}
	}
}

// Found by the soak on the code with V6–V8 fixed, under a Sentinel failover (docs/reliability.md,
// V9): insert(h0-g0-2, rid a12d7383) created its request, lost its answer to the failover (503), and
// its retry, finding the Operation still PENDING, created the request again after another client had
// deleted the first one: one insert, two requests.
func TestRecordedInsertMadeTwiceAcrossAFailover(t *testing.T) {
	h, err := ReadHistory("testdata/insert-made-twice-across-a-failover.json")
	if err != nil {
		t.Fatal(err)
	}
	check(t, h, porcupine.Illegal)
	c, ok := FirstViolation(h, 10*time.Second)
	if !ok || c.Input.Kind != Insert || c.Output.Code != 409 {
		t.Fatalf("first violation %v %s, want the insert of h0-g0-2 answered 409", ok, Describe(c.Input, c.Output))
	}
}

// Found by the soak on the code with V6–V9 fixed, under a leader freeze (docs/reliability.md, V10):
// insert(h2-g1-2, rid caef102b)'s first try went to the frozen replica and timed out; its retry on the
// other replica was refused 409 (the name existed) and forgot the requestId; the first try, held by the
// freeze inside its handler, went on when the freeze ended, after the name had been deleted, and created
// the request again, so an insert of rid 64dc3b3b was refused 409 with no insert behind the request.
func TestRecordedInsertMadeByAFirstTryAFreezeHeld(t *testing.T) {
	h, err := ReadHistory("testdata/insert-made-by-a-first-try-a-freeze-held.json")
	if err != nil {
		t.Fatal(err)
	}
	check(t, h, porcupine.Illegal)
	c, ok := FirstViolation(h, 10*time.Second)
	if !ok || c.Input.Kind != Insert || c.Input.RequestID[:8] != "64dc3b3b" || c.Output.Code != 409 {
		t.Fatalf("first violation %v %s, want the insert of h2-g1-2 (rid 64dc3b3b) answered 409", ok, Describe(c.Input, c.Output))
	}
}

// Found by soak 4 (the code with V10 fixed), under an API-server network cut (docs/reliability.md, V11):
// h6-g0-0 was inserted again at 9.3 s and cancelled at 9.4 s; zoneOperations.wait answered that cancel's
// Operation DONE by 10.27 s, from the leader's cache, which the cut had left holding the name's previous
// incarnation; the request was still active, so cancel(rid b5faae4b) at 10.29 s was answered 200.
func TestRecordedCancelDoneWhileItsRequestWasActive(t *testing.T) {
	h, err := ReadHistory("testdata/cancel-done-while-its-request-was-active.json")
	if err != nil {
		t.Fatal(err)
	}
	check(t, h, porcupine.Illegal)
	c, ok := FirstViolation(h, 10*time.Second)
	if !ok || c.Input.Kind != Cancel || c.Input.RequestID[:8] != "b5faae4b" || c.Output.Code != 200 {
		t.Fatalf("first violation %v %s, want the cancel of h6-g0-0 (rid b5faae4b) answered 200", ok, Describe(c.Input, c.Output))
	}
}

// Found by soak 6 (the code with V10 and V11 fixed), under a leader freeze (docs/reliability.md, V12):
// insert(h2-g1-2, rid 6e8195bd)'s first try went to the replica about to be frozen; its retry was refused
// 409 at 9.6 s and forgot the Operation; the first try had read its Operation back (PENDING) before the
// freeze and went on after it, once the name had been deleted (10.9 s), creating a request no insert
// stood behind: a list at 11.2 s shows h2-g1-2 ACCEPTED after every insert of it since was refused.
func TestRecordedInsertMadeByAFirstTryHeldPastItsCheck(t *testing.T) {
	h, err := ReadHistory("testdata/insert-made-by-a-first-try-held-past-its-check.json")
	if err != nil {
		t.Fatal(err)
	}
	check(t, h, porcupine.Illegal)
	c, ok := FirstViolation(h, 10*time.Second)
	if !ok || c.Input.Kind != List || c.Input.Group != "g1" || c.Output.Listed["h2-g1-2"] != Accepted {
		t.Fatalf("first violation %v %s, want the list of g1 showing h2-g1-2 ACCEPTED", ok, Describe(c.Input, c.Output))
	}
}
