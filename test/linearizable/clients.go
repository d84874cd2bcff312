package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/oauth2"
	dc "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"resize-operator.dev/test/linearizable/model"
)

type config struct {
	endpoints, groups     []string
	token, project, zone  string
	prefix                string
	names, clients, ops   int
	duration, callTimeout time.Duration
	seed                  int64
	retryFor              time.Duration
	// concurrentReplays lets calls use a requestId while another call with it is still running.
	concurrentReplays bool
	// kubeconfig, when set, adds the CRD view: client-go reads among the calls, and one watch.
	kubeconfig string
}

// shared is what the clients know together: the requestIds used per call (to replay them, or reuse
// them for another call) and the Operations returned per group (to read them). It is only a source
// of plausible inputs; the outputs come from the server.
type shared struct {
	mu         sync.Mutex
	requestIDs map[string]string   // "verb group name" → last requestId
	finished   map[string]string   // the same, of calls that have returned
	inflight   map[string]inflight // requestId → the calls using it now
	operations map[string][]string // group → Operation names
}

func (s *shared) requestID(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requestIDs[key]
}

func (s *shared) setRequestID(key, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requestIDs[key] = id
}

type inflight struct {
	verb  string
	calls int
}

// take marks requestId id as used by a call of verb, unless another call uses it now and concurrent
// use is not allowed; it reports whether id may be used.
func (s *shared) take(id, verb string, concurrent bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.inflight[id]
	if f.calls > 0 && !concurrent {
		return false
	}
	s.inflight[id] = inflight{verb: verb, calls: f.calls + 1}
	return true
}

func (s *shared) release(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.inflight[id]
	if f.calls <= 1 {
		delete(s.inflight, id)
		return
	}
	f.calls--
	s.inflight[id] = f
}

// finish records that the call that used requestId id under key has returned.
func (s *shared) finish(key, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished[key] = id
}

func (s *shared) finishedRequestID(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.finished[key]
}

func (s *shared) operation(r *rand.Rand, group string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ops := s.operations[group]
	if len(ops) == 0 {
		return ""
	}
	// Mostly recent ones, so some are still RUNNING when read.
	return ops[max(0, len(ops)-1-r.Intn(min(len(ops), 8)))]
}

func (s *shared) addOperation(group, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.operations[group] = append(s.operations[group], name)
}

// run drives the clients until c.ops calls were made and c.duration has passed, and returns the
// history. Times are monotonic (time.Since of one start), in nanoseconds.
func run(c config) (model.History, error) {
	auth := option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.token, TokenType: "Bearer"}))
	services := make([]*dc.Service, len(c.endpoints))
	for i, e := range c.endpoints {
		svc, err := dc.NewService(context.Background(), option.WithEndpoint(e+"/compute/v1/"), auth)
		if err != nil {
			return model.History{}, err
		}
		services[i] = svc
	}
	start := time.Now()
	now := func() int64 { return time.Since(start).Nanoseconds() }
	var crd *crdClient
	var watching *watcher
	stopWatching := func() {}
	if c.kubeconfig != "" {
		var err error
		if crd, err = newCRDClient(c.kubeconfig, c.project, c.prefix); err != nil {
			return model.History{}, err
		}
		watching = &watcher{crd: crd, now: now}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { watching.run(ctx); close(done) }()
		stopWatching = func() {
			// The watch's view must agree with a list once the writes have stopped.
			watching.settle(ctx, 20*time.Second)
			cancel()
			<-done
		}
	}
	var mu sync.Mutex
	var calls []model.Call
	// checked counts the calls the checker will see (a read whose outcome is unknown is left out), so
	// a history under a long outage still has c.ops calls checked.
	var checked int
	more := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return checked < c.ops || time.Since(start) < c.duration
	}
	sh := &shared{requestIDs: map[string]string{}, finished: map[string]string{},
		inflight: map[string]inflight{}, operations: map[string][]string{}}
	var wg sync.WaitGroup
	for id := range c.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(c.seed + int64(id)))
			endpoint := id % len(services)
			for more() {
				in := next(r, c, sh)
				call := model.Call{Client: id, Input: in, Call: now()}
				var notes []string
				var out model.Output
				// A mutation whose outcome is unknown is tried again with the same requestId, on the
				// next replica, as Google's clients do, until its answer is known or c.retryFor has
				// passed: the requestId makes the tries one call, so the history records one call
				// from the first try's invocation to the last one's answer. A read is not retried.
				for try, backoff := 0, 250*time.Millisecond; ; try++ {
					ctx, cancel := context.WithTimeout(context.Background(), c.callTimeout)
					var o model.Output
					var note string
					if in.Kind == model.CrdGet || in.Kind == model.CrdList {
						o, note = crd.do(ctx, in)
					} else {
						o, note = do(ctx, services[endpoint], c, in)
					}
					cancel()
					out = o
					if !o.Unknown {
						break
					}
					notes = append(notes, fmt.Sprintf("try %d on %s: %s", try+1, c.endpoints[endpoint], note))
					endpoint = (endpoint + 1) % len(services)
					if in.RequestID == "" || time.Duration(now()-call.Call) > c.retryFor {
						break
					}
					time.Sleep(backoff + time.Duration(r.Int63n(int64(backoff))))
					backoff = min(2*backoff, 2*time.Second)
				}
				call.Return, call.Output, call.Note = now(), out, strings.Join(notes, "; ")
				if out.Unknown {
					// Waiting a little, as a client backs off, instead of spinning through an outage.
					time.Sleep(250 * time.Millisecond)
				}
				if in.RequestID != "" {
					sh.release(in.RequestID)
					sh.finish(in.Kind+" "+in.Group+" "+in.Name, in.RequestID)
				}
				if !out.Unknown && out.Code == 200 && out.Operation != "" {
					sh.addOperation(in.Group, out.Operation)
				}
				mu.Lock()
				calls = append(calls, call)
				if !out.Unknown || in.RequestID != "" {
					checked++
				}
				mu.Unlock()
				time.Sleep(time.Duration(r.Intn(20)) * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	stopWatching()
	h := model.History{Calls: calls}
	if watching != nil {
		h.Watch = watching.events
	}
	return h, nil
}

// next picks a random call: mostly reads and inserts, some cancels and deletes; a quarter of the
// mutations replay the last requestId of the same call, a few reuse one of another method (refused).
func next(r *rand.Rand, c config, sh *shared) model.Input {
	group := c.groups[r.Intn(len(c.groups))]
	// The group in the name: a request name is unique in the whole project here (a Kubernetes object
	// in the namespace), not per group as in Compute Engine, so the same name in two groups would
	// couple their histories (docs/reliability.md, linearizability).
	name := fmt.Sprintf("%s-%s-%d", c.prefix, group, r.Intn(c.names))
	in := model.Input{Group: group, Name: name}
	p := r.Intn(100)
	switch {
	case p < 25:
		in.Kind = model.Insert
		in.ResizeBy = 1
	case p < 45:
		in.Kind = model.Get
		if c.kubeconfig != "" && p >= 38 {
			in.Kind = model.CrdGet
		}
		return in
	case p < 55:
		if c.kubeconfig != "" && p >= 51 {
			return model.Input{Kind: model.CrdList, Group: group}
		}
		return model.Input{Kind: model.List, Group: group}
	case p < 67:
		in.Kind = model.Cancel
	case p < 79:
		in.Kind = model.Delete
	default:
		op := sh.operation(r, group)
		if op == "" {
			in.Kind = model.Get
			return in
		}
		kind := model.OpGet
		if p >= 92 {
			kind = model.OpWait
		}
		return model.Input{Kind: kind, Group: group, Operation: op}
	}
	key := in.Kind + " " + group + " " + name
	// Another method's requestId: by default one whose call has returned (see -concurrent-replays).
	other := sh.finishedRequestID(model.Insert + " " + group + " " + name)
	if c.concurrentReplays {
		other = sh.requestID(model.Insert + " " + group + " " + name)
	}
	switch q := r.Intn(100); {
	case q < 25 && sh.requestID(key) != "":
		// A replay of the same call (a client's retry).
		in.RequestID = sh.requestID(key)
	case q < 30 && other != "" && in.Kind != model.Insert:
		in.RequestID = other
	}
	// A requestId is used by one call at a time, unless -concurrent-replays: two calls with one
	// requestId at once meet the two violations in docs/reliability.md.
	if in.RequestID == "" || !sh.take(in.RequestID, in.Kind, c.concurrentReplays) {
		in.RequestID = uuid.NewString()
		sh.setRequestID(key, in.RequestID)
		sh.take(in.RequestID, in.Kind, true)
	}
	return in
}

// do makes one call with the official client and says what came back. A transport error, a
// timeout, a 429 or a 5xx leaves the outcome unknown (the server may have applied the call).
func do(ctx context.Context, svc *dc.Service, c config, in model.Input) (model.Output, string) {
	rr := svc.InstanceGroupManagerResizeRequests
	var o *dc.Operation
	var err error
	switch in.Kind {
	case model.Insert:
		body := &dc.InstanceGroupManagerResizeRequest{Name: in.Name, ResizeBy: in.ResizeBy,
			// Short: the group's replicas go back down, so a long run does not grow the cluster.
			RequestedRunDuration: &dc.Duration{Seconds: 2}}
		o, err = rr.Insert(c.project, c.zone, in.Group, body).RequestId(in.RequestID).Context(ctx).Do()
	case model.Cancel:
		o, err = rr.Cancel(c.project, c.zone, in.Group, in.Name).RequestId(in.RequestID).Context(ctx).Do()
	case model.Delete:
		o, err = rr.Delete(c.project, c.zone, in.Group, in.Name).RequestId(in.RequestID).Context(ctx).Do()
	case model.Get:
		x, err := rr.Get(c.project, c.zone, in.Group, in.Name).Context(ctx).Do()
		if err != nil {
			return failure(err)
		}
		return model.Output{Code: 200, State: x.State}, ""
	case model.List:
		res, err := rr.List(c.project, c.zone, in.Group).Context(ctx).Do()
		if err != nil {
			return failure(err)
		}
		if res.NextPageToken != "" {
			// One page is one read; a paged list is not one point in time and is not modelled.
			return model.Output{Unknown: true}, "list answered more than one page"
		}
		listed := map[string]string{}
		for _, x := range res.Items {
			// Earlier histories' requests share the group: this history's model knows only its own.
			if strings.HasPrefix(x.Name, c.prefix+"-") {
				listed[x.Name] = x.State
			}
		}
		return model.Output{Code: 200, Listed: listed}, ""
	case model.OpGet, model.OpWait:
		if in.Kind == model.OpGet {
			o, err = svc.ZoneOperations.Get(c.project, c.zone, in.Operation).Context(ctx).Do()
		} else {
			o, err = svc.ZoneOperations.Wait(c.project, c.zone, in.Operation).Context(ctx).Do()
		}
		if err != nil {
			return failure(err)
		}
		out := model.Output{Code: 200, Done: o.Status == "DONE"}
		if o.Error != nil && len(o.Error.Errors) > 0 {
			out.Error = o.Error.Errors[0].Code
		}
		return out, ""
	}
	if err != nil {
		return failure(err)
	}
	return model.Output{Code: 200, Operation: o.Name}, ""
}

func failure(err error) (model.Output, string) {
	var gerr *googleapi.Error
	if errors.As(err, &gerr) && gerr.Code < 500 && gerr.Code != 429 {
		out := model.Output{Code: gerr.Code}
		if len(gerr.Errors) > 0 {
			out.Reason = gerr.Errors[0].Reason
		}
		return out, ""
	}
	return model.Output{Unknown: true}, err.Error()
}
