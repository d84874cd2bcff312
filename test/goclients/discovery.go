package main

import (
	"context"
	"errors"
	"fmt"

	dc "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// discoveryScopes builds the discovery-generated client. Its base path is the full
// `<endpoint>/compute/v1/` (the discovery document's rootUrl + servicePath).
func discoveryScopes(ctx context.Context, c config, auth option.ClientOption) ([]scope, error) {
	svc, err := dc.NewService(ctx, option.WithEndpoint(c.endpoint+"/compute/v1/"), auth)
	if err != nil {
		return nil, err
	}
	return []scope{
		{name: "zonal", location: "zones/" + c.zone, group: c.zonalGroup,
			api: &discoveryZonal{svc: svc, project: c.project, zone: c.zone, group: c.zonalGroup}},
		{name: "regional", location: "regions/" + c.region, group: c.regionalGroup,
			api: &discoveryRegional{svc: svc, project: c.project, region: c.region, group: c.regionalGroup}},
	}, nil
}

func discoveryBody(name string, resizeBy int64, instances []string) *dc.InstanceGroupManagerResizeRequest {
	body := &dc.InstanceGroupManagerResizeRequest{Name: name, ResizeBy: resizeBy}
	for _, i := range instances {
		body.Instances = append(body.Instances, &dc.PerInstanceConfig{Name: i})
	}
	return body
}

func fromDiscoveryRequest(x *dc.InstanceGroupManagerResizeRequest) rr {
	out := rr{Kind: x.Kind, Name: x.Name, State: x.State, Zone: x.Zone, Region: x.Region, SelfLink: x.SelfLink,
		ID: x.Id, ResizeBy: x.ResizeBy}
	for _, i := range x.Instances {
		out.Instances = append(out.Instances, i.Name)
	}
	return out
}

func fromDiscoveryOperation(o *dc.Operation) op {
	out := op{Kind: o.Kind, Name: o.Name, Status: o.Status, Zone: o.Zone, Region: o.Region,
		OperationType: o.OperationType, ClientOperationID: o.ClientOperationId, TargetLink: o.TargetLink,
		User: o.User, ID: o.Id, TargetID: o.TargetId, Progress: o.Progress, HTTPErrorStatusCode: o.HttpErrorStatusCode}
	if o.Error != nil {
		for _, e := range o.Error.Errors {
			out.ErrorCodes = append(out.ErrorCodes, e.Code)
		}
	}
	return out
}

// The discovery client returns *googleapi.Error with the body's errors[] parsed.
// discoveryError returns nil if err is a *googleapi.Error with HTTP status code and first reason reason.
func discoveryError(err error, code int, reason string) error {
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) {
		return fmt.Errorf("want a *googleapi.Error %d, got %T: %s", code, err, describe(err))
	}
	if gerr.Code != code || len(gerr.Errors) == 0 || gerr.Errors[0].Reason != reason {
		return fmt.Errorf("want code %d reason %s, got code %d errors %+v", code, reason, gerr.Code, gerr.Errors)
	}
	return nil
}

// discoveryWait calls zoneOperations.wait / regionOperations.wait (each returns after at most two
// minutes, DONE or not) until the operation is DONE or the run's deadline passes.
func discoveryWait(ctx context.Context, name string, call func(string) (*dc.Operation, error)) (op, error) {
	for {
		o, err := call(name)
		if err != nil {
			return op{}, err
		}
		if o.Status == "DONE" {
			return fromDiscoveryOperation(o), nil
		}
		if ctx.Err() != nil {
			return op{}, fmt.Errorf("operation %s still %s: %w", name, o.Status, ctx.Err())
		}
	}
}

type discoveryZonal struct {
	svc                  *dc.Service
	project, zone, group string
}

func (d *discoveryZonal) insert(ctx context.Context, name string, resizeBy int64, instances []string, requestID string) (op, error) {
	o, err := d.svc.InstanceGroupManagerResizeRequests.Insert(d.project, d.zone, d.group,
		discoveryBody(name, resizeBy, instances)).RequestId(requestID).Context(ctx).Do()
	if err != nil {
		return op{}, err
	}
	return fromDiscoveryOperation(o), nil
}

func (d *discoveryZonal) get(ctx context.Context, nameOrID string) (rr, error) {
	x, err := d.svc.InstanceGroupManagerResizeRequests.Get(d.project, d.zone, d.group, nameOrID).Context(ctx).Do()
	if err != nil {
		return rr{}, err
	}
	return fromDiscoveryRequest(x), nil
}

func (d *discoveryZonal) list(ctx context.Context, maxResults int, filter string) ([][]rr, error) {
	var pages [][]rr
	token := ""
	for {
		call := d.svc.InstanceGroupManagerResizeRequests.List(d.project, d.zone, d.group).Context(ctx)
		if token != "" {
			call = call.PageToken(token)
		}
		if maxResults > 0 {
			call = call.MaxResults(int64(maxResults))
		}
		if filter != "" {
			call = call.Filter(filter)
		}
		res, err := call.Do()
		if err != nil {
			return nil, err
		}
		if res.Kind != "compute#instanceGroupManagerResizeRequestList" {
			return nil, fmt.Errorf("list kind %q", res.Kind)
		}
		var page []rr
		for _, x := range res.Items {
			page = append(page, fromDiscoveryRequest(x))
		}
		pages = append(pages, page)
		if token = res.NextPageToken; token == "" {
			return pages, nil
		}
	}
}

func (d *discoveryZonal) cancel(ctx context.Context, name, requestID string) (op, error) {
	o, err := d.svc.InstanceGroupManagerResizeRequests.Cancel(d.project, d.zone, d.group, name).
		RequestId(requestID).Context(ctx).Do()
	if err != nil {
		return op{}, err
	}
	return fromDiscoveryOperation(o), nil
}

func (d *discoveryZonal) remove(ctx context.Context, name, requestID string) (op, error) {
	o, err := d.svc.InstanceGroupManagerResizeRequests.Delete(d.project, d.zone, d.group, name).
		RequestId(requestID).Context(ctx).Do()
	if err != nil {
		return op{}, err
	}
	return fromDiscoveryOperation(o), nil
}

func (d *discoveryZonal) wait(ctx context.Context, o op) (op, error) {
	return discoveryWait(ctx, o.Name, func(name string) (*dc.Operation, error) {
		return d.svc.ZoneOperations.Wait(d.project, d.zone, name).Context(ctx).Do()
	})
}

func (d *discoveryZonal) getOperation(ctx context.Context, nameOrID string) (op, error) {
	o, err := d.svc.ZoneOperations.Get(d.project, d.zone, nameOrID).Context(ctx).Do()
	if err != nil {
		return op{}, err
	}
	return fromDiscoveryOperation(o), nil
}

func (d *discoveryZonal) apiError(err error, code int, reason string) error {
	return discoveryError(err, code, reason)
}

type discoveryRegional struct {
	svc                    *dc.Service
	project, region, group string
}

func (d *discoveryRegional) insert(ctx context.Context, name string, resizeBy int64, instances []string, requestID string) (op, error) {
	o, err := d.svc.RegionInstanceGroupManagerResizeRequests.Insert(d.project, d.region, d.group,
		discoveryBody(name, resizeBy, instances)).RequestId(requestID).Context(ctx).Do()
	if err != nil {
		return op{}, err
	}
	return fromDiscoveryOperation(o), nil
}

func (d *discoveryRegional) get(ctx context.Context, nameOrID string) (rr, error) {
	x, err := d.svc.RegionInstanceGroupManagerResizeRequests.Get(d.project, d.region, d.group, nameOrID).Context(ctx).Do()
	if err != nil {
		return rr{}, err
	}
	return fromDiscoveryRequest(x), nil
}

func (d *discoveryRegional) list(ctx context.Context, maxResults int, filter string) ([][]rr, error) {
	var pages [][]rr
	token := ""
	for {
		call := d.svc.RegionInstanceGroupManagerResizeRequests.List(d.project, d.region, d.group).Context(ctx)
		if token != "" {
			call = call.PageToken(token)
		}
		if maxResults > 0 {
			call = call.MaxResults(int64(maxResults))
		}
		if filter != "" {
			call = call.Filter(filter)
		}
		res, err := call.Do()
		if err != nil {
			return nil, err
		}
		// The regional list has its own kind in the discovery document.
		if res.Kind != "compute#regionInstanceGroupManagerResizeRequestList" {
			return nil, fmt.Errorf("list kind %q", res.Kind)
		}
		var page []rr
		for _, x := range res.Items {
			page = append(page, fromDiscoveryRequest(x))
		}
		pages = append(pages, page)
		if token = res.NextPageToken; token == "" {
			return pages, nil
		}
	}
}

func (d *discoveryRegional) cancel(ctx context.Context, name, requestID string) (op, error) {
	o, err := d.svc.RegionInstanceGroupManagerResizeRequests.Cancel(d.project, d.region, d.group, name).
		RequestId(requestID).Context(ctx).Do()
	if err != nil {
		return op{}, err
	}
	return fromDiscoveryOperation(o), nil
}

func (d *discoveryRegional) remove(ctx context.Context, name, requestID string) (op, error) {
	o, err := d.svc.RegionInstanceGroupManagerResizeRequests.Delete(d.project, d.region, d.group, name).
		RequestId(requestID).Context(ctx).Do()
	if err != nil {
		return op{}, err
	}
	return fromDiscoveryOperation(o), nil
}

func (d *discoveryRegional) wait(ctx context.Context, o op) (op, error) {
	return discoveryWait(ctx, o.Name, func(name string) (*dc.Operation, error) {
		return d.svc.RegionOperations.Wait(d.project, d.region, name).Context(ctx).Do()
	})
}

func (d *discoveryRegional) getOperation(ctx context.Context, nameOrID string) (op, error) {
	o, err := d.svc.RegionOperations.Get(d.project, d.region, nameOrID).Context(ctx).Do()
	if err != nil {
		return op{}, err
	}
	return fromDiscoveryOperation(o), nil
}

func (d *discoveryRegional) apiError(err error, code int, reason string) error {
	return discoveryError(err, code, reason)
}

func fromDiscoveryManaged(items []*dc.ManagedInstance) []mi {
	var out []mi
	for _, x := range items {
		row := mi{Name: x.Name, Instance: x.Instance, InstanceStatus: x.InstanceStatus, CurrentAction: x.CurrentAction}
		if x.Version != nil {
			row.Version = x.Version.Name
		}
		out = append(out, row)
	}
	return out
}

func (d *discoveryZonal) managedInstances(ctx context.Context) ([]mi, error) {
	x, err := d.svc.InstanceGroupManagers.ListManagedInstances(d.project, d.zone, d.group).Context(ctx).Do()
	if err != nil {
		return nil, err
	}
	return fromDiscoveryManaged(x.ManagedInstances), nil
}

func (d *discoveryRegional) managedInstances(ctx context.Context) ([]mi, error) {
	x, err := d.svc.RegionInstanceGroupManagers.ListManagedInstances(d.project, d.region, d.group).Context(ctx).Do()
	if err != nil {
		return nil, err
	}
	return fromDiscoveryManaged(x.ManagedInstances), nil
}
