package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// scope is one client bound to one group: the zonal or the regional flavour of the API. Each client
// converts its own types into rr and op, so the checks below are written once for all four.
type scope struct {
	name     string // "zonal" or "regional"
	location string // "zones/<zone>" or "regions/<region>", as in the resources' URLs
	group    string
	api      api
}

type rr struct {
	Kind, Name, State, Zone, Region, SelfLink string
	ID                                        uint64
	ResizeBy                                  int64
	Instances                                 []string // the names of the PerInstanceConfig objects
}

type op struct {
	Kind, Name, Status, Zone, Region, OperationType, ClientOperationID, TargetLink, User string
	ID, TargetID                                                                         uint64
	Progress, HTTPErrorStatusCode                                                        int64
	ErrorCodes                                                                           []string
	handle                                                                               any // the client's own operation value, for its Wait
}

// mi is one row of listManagedInstances: the instance, its status, and the request holding it.
type mi struct {
	Name, Instance, InstanceStatus, CurrentAction, Version string
}

type api interface {
	// managedInstances lists the group's instances (instanceGroupManagers.listManagedInstances).
	managedInstances(ctx context.Context) ([]mi, error)
	insert(ctx context.Context, name string, resizeBy int64, instances []string, requestID string) (op, error)
	get(ctx context.Context, nameOrID string) (rr, error)
	// list returns the pages as the client fetched them, following nextPageToken.
	list(ctx context.Context, maxResults int, filter string) ([][]rr, error)
	cancel(ctx context.Context, name, requestID string) (op, error)
	remove(ctx context.Context, name, requestID string) (op, error)
	// wait returns the operation once DONE, through the client's own waiting mechanism.
	wait(ctx context.Context, o op) (op, error)
	getOperation(ctx context.Context, nameOrID string) (op, error)
	// apiError returns nil if err is this client's typed error for HTTP status code with reason reason.
	apiError(err error, code int, reason string) error
}

func scenario(ctx context.Context, r *runner, c config, s scope) {
	// Request names are namespaced objects: one per client, scope and role.
	n := func(role string) string { return fmt.Sprintf("%s-%c-%c-%s", c.prefix, r.client[0], s.name[0], role) }
	rb, inst, queued := n("rb"), n("inst"), n("queued")
	instanceNames := []string{n("i0"), n("i1")}
	locURL := fmt.Sprintf("%s/compute/v1/projects/%s/%s", c.endpoint, c.project, s.location)
	link := func(name string) string {
		return fmt.Sprintf("%s/instanceGroupManagers/%s/resizeRequests/%s", locURL, s.group, name)
	}
	st := func(name string) string { return s.name + "/" + name }
	checkLocation := func(zone, region string) error {
		want := [2]string{locURL, ""}
		if s.name == "regional" {
			want = [2]string{"", locURL}
		}
		if zone != want[0] || region != want[1] {
			return fmt.Errorf("zone %q region %q, want zone %q region %q", zone, region, want[0], want[1])
		}
		return nil
	}
	checkOp := func(o op, verb, requestID, target string) error {
		types := []string{"compute.instanceGroupManagerResizeRequests." + verb}
		if s.name == "regional" {
			// docs/design.md §3.3 names only the zonal types; the real API's regional resource is
			// regionInstanceGroupManagerResizeRequests, so either spelling is accepted there.
			types = append(types, "compute.regionInstanceGroupManagerResizeRequests."+verb)
		}
		switch {
		case o.Kind != "compute#operation":
			return fmt.Errorf("kind %q", o.Kind)
		case o.Name == "" || o.ID == 0:
			return fmt.Errorf("name %q id %d: want both", o.Name, o.ID)
		case !slices.Contains(types, o.OperationType):
			return fmt.Errorf("operationType %q, want one of %v", o.OperationType, types)
		case o.ClientOperationID != requestID:
			return fmt.Errorf("clientOperationId %q, want the requestId %q", o.ClientOperationID, requestID)
		case o.TargetLink != target:
			return fmt.Errorf("targetLink %q, want %q", o.TargetLink, target)
		case !slices.Contains([]string{"PENDING", "RUNNING", "DONE"}, o.Status):
			return fmt.Errorf("status %q", o.Status)
		case o.User == "":
			return fmt.Errorf("no user")
		}
		return checkLocation(o.Zone, o.Region)
	}
	checkDone := func(o op) error {
		if o.Status != "DONE" || o.Progress != 100 {
			return fmt.Errorf("status %q progress %d, want DONE 100", o.Status, o.Progress)
		}
		if len(o.ErrorCodes) > 0 || o.HTTPErrorStatusCode != 0 {
			return fmt.Errorf("finished with error %v (HTTP %d)", o.ErrorCodes, o.HTTPErrorStatusCode)
		}
		return checkLocation(o.Zone, o.Region)
	}
	checkRequest := func(x rr, name string, states ...string) error {
		switch {
		case x.Kind != "compute#instanceGroupManagerResizeRequest":
			return fmt.Errorf("kind %q", x.Kind)
		case x.Name != name:
			return fmt.Errorf("name %q, want %q", x.Name, name)
		case x.ID == 0:
			return fmt.Errorf("no id")
		case x.SelfLink != link(name):
			return fmt.Errorf("selfLink %q, want %q", x.SelfLink, link(name))
		case !slices.Contains(states, x.State):
			return fmt.Errorf("state %q, want one of %v", x.State, states)
		}
		return checkLocation(x.Zone, x.Region)
	}
	// The request sized by count names no instance.
	checkInstances := func(x rr) error {
		if len(x.Instances) != 0 {
			return fmt.Errorf("instances %q, want none", x.Instances)
		}
		return nil
	}
	// insertAndWait inserts, checks the operation, waits for it and checks it finished without error.
	insertAndWait := func(name string, resizeBy int64, instances []string) error {
		requestID := uuid.NewString()
		o, err := s.api.insert(ctx, name, resizeBy, instances, requestID)
		if err != nil {
			return err
		}
		if err := checkOp(o, "insert", requestID, link(name)); err != nil {
			return fmt.Errorf("insert operation: %w", err)
		}
		done, err := s.api.wait(ctx, o)
		if err != nil {
			return fmt.Errorf("wait: %w", err)
		}
		return checkDone(done)
	}

	var first, firstDone op
	var requestID string
	var fetched rr
	r.step(st("insert-resizeBy"), nil, func() error {
		requestID = uuid.NewString()
		var err error
		if first, err = s.api.insert(ctx, rb, 1, nil, requestID); err != nil {
			return err
		}
		return checkOp(first, "insert", requestID, link(rb))
	})
	r.step(st("insert-requestId-replay"), []string{st("insert-resizeBy")}, func() error {
		again, err := s.api.insert(ctx, rb, 1, nil, requestID)
		if err != nil {
			return err
		}
		if again.Name != first.Name || again.ID != first.ID {
			return fmt.Errorf("the same requestId gave operation %s (%d), the first call %s (%d)",
				again.Name, again.ID, first.Name, first.ID)
		}
		return nil
	})
	r.step(st("operation-wait"), []string{st("insert-resizeBy")}, func() error {
		var err error
		if firstDone, err = s.api.wait(ctx, first); err != nil {
			return err
		}
		if firstDone.Name != first.Name || firstDone.ID != first.ID {
			return fmt.Errorf("waited on %s (%d), got %s (%d)", first.Name, first.ID, firstDone.Name, firstDone.ID)
		}
		return checkDone(firstDone)
	})
	sameOp := func(got op) error {
		if got.Name != firstDone.Name || got.ID != firstDone.ID || got.TargetLink != firstDone.TargetLink {
			return fmt.Errorf("got %s (%d) of %s, want %s (%d) of %s",
				got.Name, got.ID, got.TargetLink, firstDone.Name, firstDone.ID, firstDone.TargetLink)
		}
		return checkDone(got)
	}
	r.step(st("operation-get-by-name"), []string{st("operation-wait")}, func() error {
		got, err := s.api.getOperation(ctx, first.Name)
		if err != nil {
			return err
		}
		return sameOp(got)
	})
	r.step(st("operation-get-by-id"), []string{st("operation-wait")}, func() error {
		got, err := s.api.getOperation(ctx, strconv.FormatUint(firstDone.ID, 10))
		if err != nil {
			return err
		}
		return sameOp(got)
	})
	r.step(st("get-by-name"), []string{st("operation-wait")}, func() error {
		var err error
		if fetched, err = s.api.get(ctx, rb); err != nil {
			return err
		}
		if err := checkRequest(fetched, rb, "ACCEPTED", "SUCCEEDED"); err != nil {
			return err
		}
		if fetched.ResizeBy != 1 || len(fetched.Instances) != 0 {
			return fmt.Errorf("resizeBy %d instances %q, want 1 and none", fetched.ResizeBy, fetched.Instances)
		}
		if firstDone.TargetID != fetched.ID {
			return fmt.Errorf("the insert operation's targetId %d is not the request's id %d", firstDone.TargetID, fetched.ID)
		}
		return nil
	})
	r.step(st("get-by-id"), []string{st("get-by-name")}, func() error {
		byID, err := s.api.get(ctx, strconv.FormatUint(fetched.ID, 10))
		if err != nil {
			return err
		}
		if byID.ID != fetched.ID {
			return fmt.Errorf("id %d, want %d", byID.ID, fetched.ID)
		}
		return checkRequest(byID, rb, "ACCEPTED", "SUCCEEDED")
	})
	// Once rb SUCCEEDED its one instance (a pod of the group's Deployment) is listed as held by it.
	r.step(st("managed-instances"), []string{st("get-by-name")}, func() error {
		deadline := time.Now().Add(90 * time.Second)
		for {
			x, err := s.api.get(ctx, rb)
			if err != nil {
				return err
			}
			if x.State == "SUCCEEDED" {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s still %s after 90s", rb, x.State)
			}
			time.Sleep(250 * time.Millisecond)
		}
		rows, err := s.api.managedInstances(ctx)
		if err != nil {
			return err
		}
		var held []mi
		for _, row := range rows {
			if row.Version == rb {
				held = append(held, row)
			}
		}
		if len(held) != 1 {
			return fmt.Errorf("%d instances held by %s among %d listed, want 1", len(held), rb, len(rows))
		}
		h := held[0]
		if h.Name == "" || h.Instance != locURL+"/instances/"+h.Name {
			return fmt.Errorf("instance %q name %q, want %s/instances/<name>", h.Instance, h.Name, locURL)
		}
		if h.InstanceStatus != "RUNNING" || h.CurrentAction != "NONE" {
			return fmt.Errorf("instanceStatus %s currentAction %s, want RUNNING and NONE", h.InstanceStatus, h.CurrentAction)
		}
		return nil
	})
	// The test's groups are over Deployments, which name their pods themselves: named instances are
	// refused with a 400 before anything is created (a StatefulSet's are honoured: rest/client.test.ts).
	r.step(st("insert-instances"), nil, func() error {
		_, err := s.api.insert(ctx, inst, 0, instanceNames, uuid.NewString())
		if err == nil {
			return fmt.Errorf("named instances on a Deployment group were accepted")
		}
		if err := s.api.apiError(err, 400, "invalid"); err != nil {
			return fmt.Errorf("named instances: %w", err)
		}
		if !strings.Contains(err.Error(), "names its instances itself") {
			return fmt.Errorf("named instances refused without the reason: %s", describe(err))
		}
		return insertAndWait(inst, int64(len(instanceNames)), nil)
	})
	r.step(st("get-instances"), []string{st("insert-instances")}, func() error {
		x, err := s.api.get(ctx, inst)
		if err != nil {
			return err
		}
		if err := checkRequest(x, inst, "ACCEPTED", "SUCCEEDED"); err != nil {
			return err
		}
		return checkInstances(x)
	})
	// The group's maxSize is -queue-size: with this run's other requests holding capacity, this one
	// is admitted (it could fit the empty group) and waits at the queue's end, so it can be cancelled.
	r.step(st("insert-queued"), nil, func() error {
		if err := insertAndWait(queued, int64(c.queueSize), nil); err != nil {
			return err
		}
		x, err := s.api.get(ctx, queued)
		if err != nil {
			return err
		}
		return checkRequest(x, queued, "ACCEPTED")
	})
	r.step(st("list-paging"), nil, func() error {
		pages, err := s.api.list(ctx, 2, "")
		if err != nil {
			return err
		}
		if len(pages) < 2 {
			return fmt.Errorf("%d page(s) with maxResults 2, want at least 2", len(pages))
		}
		seen := map[string]rr{}
		for i, page := range pages {
			if len(page) == 0 || len(page) > 2 {
				return fmt.Errorf("page %d has %d items, want 1..2", i, len(page))
			}
			for _, x := range page {
				if _, dup := seen[x.Name]; dup {
					return fmt.Errorf("%s listed twice", x.Name)
				}
				seen[x.Name] = x
			}
		}
		for _, want := range []string{rb, inst, queued} {
			if _, ok := seen[want]; !ok {
				return fmt.Errorf("%s missing from the %d listed requests", want, len(seen))
			}
		}
		if err := checkRequest(seen[inst], inst, "ACCEPTED", "SUCCEEDED"); err != nil {
			return fmt.Errorf("listed %s: %w", inst, err)
		}
		return checkInstances(seen[inst])
	})
	r.step(st("list-filter-name"), nil, func() error {
		pages, err := s.api.list(ctx, 0, "name = "+inst)
		if err != nil {
			return err
		}
		items := slices.Concat(pages...)
		if len(items) != 1 {
			return fmt.Errorf("%d items for filter name = %s, want 1", len(items), inst)
		}
		if err := checkRequest(items[0], inst, "ACCEPTED", "SUCCEEDED"); err != nil {
			return err
		}
		return checkInstances(items[0])
	})
	r.step(st("list-filter-state"), []string{st("insert-queued")}, func() error {
		pages, err := s.api.list(ctx, 0, `state = "ACCEPTED"`)
		if err != nil {
			return err
		}
		var names []string
		for _, x := range slices.Concat(pages...) {
			if x.State != "ACCEPTED" {
				return fmt.Errorf("%s in state %s passed filter state = ACCEPTED", x.Name, x.State)
			}
			names = append(names, x.Name)
		}
		if !slices.Contains(names, queued) {
			return fmt.Errorf("%s (ACCEPTED) not among %q", queued, names)
		}
		return nil
	})
	r.step(st("cancel"), []string{st("insert-queued")}, func() error {
		requestID := uuid.NewString()
		o, err := s.api.cancel(ctx, queued, requestID)
		if err != nil {
			return err
		}
		if err := checkOp(o, "cancel", requestID, link(queued)); err != nil {
			return fmt.Errorf("cancel operation: %w", err)
		}
		done, err := s.api.wait(ctx, o)
		if err != nil {
			return fmt.Errorf("wait: %w", err)
		}
		if err := checkDone(done); err != nil {
			return err
		}
		x, err := s.api.get(ctx, queued)
		if err != nil {
			return err
		}
		return checkRequest(x, queued, "CANCELLED")
	})
	// REST delete of an active request is refused (GCE rules): the cancelled one is final.
	r.step(st("delete"), []string{st("cancel")}, func() error {
		requestID := uuid.NewString()
		o, err := s.api.remove(ctx, queued, requestID)
		if err != nil {
			return err
		}
		if err := checkOp(o, "delete", requestID, link(queued)); err != nil {
			return fmt.Errorf("delete operation: %w", err)
		}
		done, err := s.api.wait(ctx, o)
		if err != nil {
			return fmt.Errorf("wait: %w", err)
		}
		if err := checkDone(done); err != nil {
			return err
		}
		if _, err := s.api.get(ctx, queued); s.api.apiError(err, 404, "notFound") != nil {
			return fmt.Errorf("get after delete: %w", s.api.apiError(err, 404, "notFound"))
		}
		return nil
	})
	// After get-by-name, so the 404 is the missing request's, not that of a route the server lacks.
	r.step(st("get-missing-404"), []string{st("get-by-name")}, func() error {
		_, err := s.api.get(ctx, n("missing"))
		return s.api.apiError(err, 404, "notFound")
	})
}

func describe(err error) string {
	if err == nil {
		return "no error"
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
