package main

import (
	"context"
	"errors"
	"fmt"

	gc "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"
)

// gapicScopes builds the GAPIC clients over REST. Their endpoint is the bare base URL: each method
// appends `/compute/v1/projects/...` itself.
func gapicScopes(ctx context.Context, c config, auth option.ClientOption) ([]scope, error) {
	opts := []option.ClientOption{option.WithEndpoint(c.endpoint), auth}
	zonal, err := gc.NewInstanceGroupManagerResizeRequestsRESTClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	regional, err := gc.NewRegionInstanceGroupManagerResizeRequestsRESTClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	zoneOps, err := gc.NewZoneOperationsRESTClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	regionOps, err := gc.NewRegionOperationsRESTClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	zonalGroups, err := gc.NewInstanceGroupManagersRESTClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	regionalGroups, err := gc.NewRegionInstanceGroupManagersRESTClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return []scope{
		{name: "zonal", location: "zones/" + c.zone, group: c.zonalGroup,
			api: &gapicZonal{c: zonal, ops: zoneOps, groups: zonalGroups, project: c.project, zone: c.zone, group: c.zonalGroup}},
		{name: "regional", location: "regions/" + c.region, group: c.regionalGroup,
			api: &gapicRegional{c: regional, ops: regionOps, groups: regionalGroups, project: c.project, region: c.region, group: c.regionalGroup}},
	}, nil
}

func gapicBody(name string, resizeBy int64, instances []string) *computepb.InstanceGroupManagerResizeRequest {
	body := &computepb.InstanceGroupManagerResizeRequest{Name: proto.String(name)}
	if resizeBy > 0 {
		body.ResizeBy = proto.Int32(int32(resizeBy))
	}
	for _, i := range instances {
		body.Instances = append(body.Instances, &computepb.PerInstanceConfig{Name: proto.String(i)})
	}
	return body
}

func fromGapicRequest(x *computepb.InstanceGroupManagerResizeRequest) rr {
	out := rr{Kind: x.GetKind(), Name: x.GetName(), State: x.GetState(), Zone: x.GetZone(), Region: x.GetRegion(),
		SelfLink: x.GetSelfLink(), ID: x.GetId(), ResizeBy: int64(x.GetResizeBy())}
	for _, i := range x.GetInstances() {
		out.Instances = append(out.Instances, i.GetName())
	}
	return out
}

func fromGapicOperation(o *computepb.Operation, handle *gc.Operation) op {
	out := op{Kind: o.GetKind(), Name: o.GetName(), Status: o.GetStatus().String(), Zone: o.GetZone(),
		Region: o.GetRegion(), OperationType: o.GetOperationType(), ClientOperationID: o.GetClientOperationId(),
		TargetLink: o.GetTargetLink(), User: o.GetUser(), ID: o.GetId(), TargetID: o.GetTargetId(),
		Progress: int64(o.GetProgress()), HTTPErrorStatusCode: int64(o.GetHttpErrorStatusCode()), handle: handle}
	for _, e := range o.GetError().GetErrors() {
		out.ErrorCodes = append(out.ErrorCodes, e.GetCode())
	}
	return out
}

func gapicOperation(o *gc.Operation, err error) (op, error) {
	if err != nil {
		return op{}, err
	}
	return fromGapicOperation(o.Proto(), o), nil
}

// gapicWait uses the library's Operation.Wait, which polls {zone,region}Operations.get with backoff
// and turns an httpErrorStatusCode into an error.
func gapicWait(ctx context.Context, o op) (op, error) {
	h, ok := o.handle.(*gc.Operation)
	if !ok {
		return op{}, fmt.Errorf("operation %s has no GAPIC handle", o.Name)
	}
	if err := h.Wait(ctx); err != nil {
		return op{}, err
	}
	return fromGapicOperation(h.Proto(), h), nil
}

// The GAPIC REST transport turns the Google error body into a *googleapi.Error, which
// gax wraps in an *apierror.APIError; both must be reachable with errors.As.
// gapicError returns nil if err is an *apierror.APIError with HTTP status code, wrapping a
// *googleapi.Error whose first reason is reason.
func gapicError(err error, code int, reason string) error {
	var aerr *apierror.APIError
	if !errors.As(err, &aerr) {
		return fmt.Errorf("want an *apierror.APIError %d, got %T: %s", code, err, describe(err))
	}
	if aerr.HTTPCode() != code {
		return fmt.Errorf("APIError HTTPCode %d, want %d: %s", aerr.HTTPCode(), code, describe(err))
	}
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) {
		return fmt.Errorf("the APIError wraps no *googleapi.Error: %s", describe(err))
	}
	if gerr.Code != code || len(gerr.Errors) == 0 || gerr.Errors[0].Reason != reason {
		return fmt.Errorf("want code %d reason %s, got code %d errors %+v", code, reason, gerr.Code, gerr.Errors)
	}
	return nil
}

// gapicPages walks a GAPIC list iterator page by page with the public Pager.
// maxResults 0 means the server's default and largest page, 500 (the Pager needs a positive size).
func gapicPages(it *gc.InstanceGroupManagerResizeRequestIterator, maxResults int) ([][]rr, error) {
	if maxResults <= 0 {
		maxResults = 500
	}
	var pages [][]rr
	pager := iterator.NewPager(it, maxResults, "")
	for {
		var items []*computepb.InstanceGroupManagerResizeRequest
		token, err := pager.NextPage(&items)
		if err != nil {
			return nil, err
		}
		var page []rr
		for _, x := range items {
			page = append(page, fromGapicRequest(x))
		}
		pages = append(pages, page)
		if token == "" {
			return pages, nil
		}
	}
}

type gapicZonal struct {
	c                    *gc.InstanceGroupManagerResizeRequestsClient
	ops                  *gc.ZoneOperationsClient
	groups               *gc.InstanceGroupManagersClient
	project, zone, group string
}

func (g *gapicZonal) insert(ctx context.Context, name string, resizeBy int64, instances []string, requestID string) (op, error) {
	return gapicOperation(g.c.Insert(ctx, &computepb.InsertInstanceGroupManagerResizeRequestRequest{
		Project: g.project, Zone: g.zone, InstanceGroupManager: g.group, RequestId: proto.String(requestID),
		InstanceGroupManagerResizeRequestResource: gapicBody(name, resizeBy, instances),
	}))
}

func (g *gapicZonal) get(ctx context.Context, nameOrID string) (rr, error) {
	x, err := g.c.Get(ctx, &computepb.GetInstanceGroupManagerResizeRequestRequest{
		Project: g.project, Zone: g.zone, InstanceGroupManager: g.group, ResizeRequest: nameOrID,
	})
	if err != nil {
		return rr{}, err
	}
	return fromGapicRequest(x), nil
}

func (g *gapicZonal) list(ctx context.Context, maxResults int, filter string) ([][]rr, error) {
	req := &computepb.ListInstanceGroupManagerResizeRequestsRequest{
		Project: g.project, Zone: g.zone, InstanceGroupManager: g.group,
	}
	if filter != "" {
		req.Filter = proto.String(filter)
	}
	return gapicPages(g.c.List(ctx, req), maxResults)
}

func (g *gapicZonal) cancel(ctx context.Context, name, requestID string) (op, error) {
	return gapicOperation(g.c.Cancel(ctx, &computepb.CancelInstanceGroupManagerResizeRequestRequest{
		Project: g.project, Zone: g.zone, InstanceGroupManager: g.group, ResizeRequest: name,
		RequestId: proto.String(requestID),
	}))
}

func (g *gapicZonal) remove(ctx context.Context, name, requestID string) (op, error) {
	return gapicOperation(g.c.Delete(ctx, &computepb.DeleteInstanceGroupManagerResizeRequestRequest{
		Project: g.project, Zone: g.zone, InstanceGroupManager: g.group, ResizeRequest: name,
		RequestId: proto.String(requestID),
	}))
}

func (g *gapicZonal) wait(ctx context.Context, o op) (op, error) { return gapicWait(ctx, o) }

func (g *gapicZonal) getOperation(ctx context.Context, nameOrID string) (op, error) {
	o, err := g.ops.Get(ctx, &computepb.GetZoneOperationRequest{Project: g.project, Zone: g.zone, Operation: nameOrID})
	if err != nil {
		return op{}, err
	}
	return fromGapicOperation(o, nil), nil
}

func (g *gapicZonal) apiError(err error, code int, reason string) error {
	return gapicError(err, code, reason)
}

type gapicRegional struct {
	c                      *gc.RegionInstanceGroupManagerResizeRequestsClient
	ops                    *gc.RegionOperationsClient
	groups                 *gc.RegionInstanceGroupManagersClient
	project, region, group string
}

func (g *gapicRegional) insert(ctx context.Context, name string, resizeBy int64, instances []string, requestID string) (op, error) {
	return gapicOperation(g.c.Insert(ctx, &computepb.InsertRegionInstanceGroupManagerResizeRequestRequest{
		Project: g.project, Region: g.region, InstanceGroupManager: g.group, RequestId: proto.String(requestID),
		InstanceGroupManagerResizeRequestResource: gapicBody(name, resizeBy, instances),
	}))
}

func (g *gapicRegional) get(ctx context.Context, nameOrID string) (rr, error) {
	x, err := g.c.Get(ctx, &computepb.GetRegionInstanceGroupManagerResizeRequestRequest{
		Project: g.project, Region: g.region, InstanceGroupManager: g.group, ResizeRequest: nameOrID,
	})
	if err != nil {
		return rr{}, err
	}
	return fromGapicRequest(x), nil
}

func (g *gapicRegional) list(ctx context.Context, maxResults int, filter string) ([][]rr, error) {
	req := &computepb.ListRegionInstanceGroupManagerResizeRequestsRequest{
		Project: g.project, Region: g.region, InstanceGroupManager: g.group,
	}
	if filter != "" {
		req.Filter = proto.String(filter)
	}
	return gapicPages(g.c.List(ctx, req), maxResults)
}

func (g *gapicRegional) cancel(ctx context.Context, name, requestID string) (op, error) {
	return gapicOperation(g.c.Cancel(ctx, &computepb.CancelRegionInstanceGroupManagerResizeRequestRequest{
		Project: g.project, Region: g.region, InstanceGroupManager: g.group, ResizeRequest: name,
		RequestId: proto.String(requestID),
	}))
}

func (g *gapicRegional) remove(ctx context.Context, name, requestID string) (op, error) {
	return gapicOperation(g.c.Delete(ctx, &computepb.DeleteRegionInstanceGroupManagerResizeRequestRequest{
		Project: g.project, Region: g.region, InstanceGroupManager: g.group, ResizeRequest: name,
		RequestId: proto.String(requestID),
	}))
}

func (g *gapicRegional) wait(ctx context.Context, o op) (op, error) { return gapicWait(ctx, o) }

func (g *gapicRegional) getOperation(ctx context.Context, nameOrID string) (op, error) {
	o, err := g.ops.Get(ctx, &computepb.GetRegionOperationRequest{Project: g.project, Region: g.region, Operation: nameOrID})
	if err != nil {
		return op{}, err
	}
	return fromGapicOperation(o, nil), nil
}

func (g *gapicRegional) apiError(err error, code int, reason string) error {
	return gapicError(err, code, reason)
}

// managedInstanceIterator is what both GAPIC listManagedInstances iterators offer.
type managedInstanceIterator interface {
	Next() (*computepb.ManagedInstance, error)
}

func gapicManaged(it managedInstanceIterator) ([]mi, error) {
	var out []mi
	for {
		x, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, mi{Name: x.GetName(), Instance: x.GetInstance(), InstanceStatus: x.GetInstanceStatus(),
			CurrentAction: x.GetCurrentAction(), Version: x.GetVersion().GetName()})
	}
}

func (g *gapicZonal) managedInstances(ctx context.Context) ([]mi, error) {
	return gapicManaged(g.groups.ListManagedInstances(ctx, &computepb.ListManagedInstancesInstanceGroupManagersRequest{
		Project: g.project, Zone: g.zone, InstanceGroupManager: g.group,
	}))
}

func (g *gapicRegional) managedInstances(ctx context.Context) ([]mi, error) {
	return gapicManaged(g.groups.ListManagedInstances(ctx, &computepb.ListManagedInstancesRegionInstanceGroupManagersRequest{
		Project: g.project, Region: g.region, InstanceGroupManager: g.group,
	}))
}
