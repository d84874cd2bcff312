package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	dc "google.golang.org/api/compute/v1"
	"google.golang.org/api/option"
)

// bookingSteps books the zonal group through futureReservations with the discovery-generated client:
// insert (with a requestId) and wait for its Operation, get until the booking is decided (APPROVED:
// one instance for an hour, a day ahead, fits the group), list, cancel (CANCELLED), delete (then 404),
// and an insert with a field this API does not serve, refused with 400 invalid.
func bookingSteps(ctx context.Context, r *runner, c config, auth option.ClientOption) {
	svc, err := dc.NewService(ctx, option.WithEndpoint(c.endpoint+"/compute/v1/"), auth)
	if !r.step("booking/new-client", nil, func() error { return err }) {
		return
	}
	name := c.prefix + "-booking"
	wait := func(o *dc.Operation, err error) error {
		if err != nil {
			return err
		}
		done, err := discoveryWait(ctx, o.Name, func(n string) (*dc.Operation, error) {
			return svc.ZoneOperations.Wait(c.project, c.zone, n).Context(ctx).Do()
		})
		if err != nil {
			return err
		}
		if len(done.ErrorCodes) > 0 {
			return fmt.Errorf("operation %s failed: %v", o.Name, done.ErrorCodes)
		}
		return nil
	}
	// The booking's status once the controller has moved it past `from`.
	statusAfter := func(from string) (*dc.FutureReservation, error) {
		for {
			fr, err := svc.FutureReservations.Get(c.project, c.zone, name).Context(ctx).Do()
			if err != nil {
				return nil, err
			}
			if fr.Status != nil && fr.Status.ProcurementStatus != from {
				return fr, nil
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("booking %s still %s: %w", name, from, ctx.Err())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	body := func() *dc.FutureReservation {
		return &dc.FutureReservation{
			Name:            name,
			ReservationMode: "CALENDAR",
			SpecificSkuProperties: &dc.FutureReservationSpecificSKUProperties{
				TotalCount:         1,
				InstanceProperties: &dc.AllocationSpecificSKUAllocationReservedInstanceProperties{MachineType: c.zonalGroup},
			},
			TimeWindow: &dc.FutureReservationTimeWindow{
				StartTime: time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339),
				Duration:  &dc.Duration{Seconds: 3600},
			},
		}
	}
	r.step("booking/insert", []string{"booking/new-client"}, func() error {
		return wait(svc.FutureReservations.Insert(c.project, c.zone, body()).RequestId(uuid.NewString()).Context(ctx).Do())
	})
	r.step("booking/get", []string{"booking/insert"}, func() error {
		fr, err := statusAfter("PENDING_APPROVAL")
		if err != nil {
			return err
		}
		sku := fr.SpecificSkuProperties
		if fr.Status.ProcurementStatus != "APPROVED" || fr.ReservationMode != "CALENDAR" || sku == nil ||
			sku.TotalCount != 1 || sku.InstanceProperties == nil || sku.InstanceProperties.MachineType != c.zonalGroup ||
			!strings.HasSuffix(fr.SelfLink, "/zones/"+c.zone+"/futureReservations/"+name) || fr.Id == 0 {
			return fmt.Errorf("booking %+v (status %+v), want APPROVED, 1 instance of %s", fr, fr.Status, c.zonalGroup)
		}
		return nil
	})
	r.step("booking/list", []string{"booking/insert"}, func() error {
		list, err := svc.FutureReservations.List(c.project, c.zone).Context(ctx).Do()
		if err != nil {
			return err
		}
		for _, fr := range list.Items {
			if fr.Name == name {
				return nil
			}
		}
		return fmt.Errorf("%s not in the zone's list of %d", name, len(list.Items))
	})
	r.step("booking/cancel", []string{"booking/get"}, func() error {
		if err := wait(svc.FutureReservations.Cancel(c.project, c.zone, name).Context(ctx).Do()); err != nil {
			return err
		}
		fr, err := statusAfter("APPROVED")
		if err != nil {
			return err
		}
		if fr.Status.ProcurementStatus != "CANCELLED" {
			return fmt.Errorf("booking is %s after cancel, want CANCELLED", fr.Status.ProcurementStatus)
		}
		return nil
	})
	r.step("booking/delete", []string{"booking/cancel"}, func() error {
		if err := wait(svc.FutureReservations.Delete(c.project, c.zone, name).Context(ctx).Do()); err != nil {
			return err
		}
		_, err := svc.FutureReservations.Get(c.project, c.zone, name).Context(ctx).Do()
		return discoveryError(err, 404, "notFound")
	})
	r.step("booking/unsupported-400", []string{"booking/new-client"}, func() error {
		bad := body()
		bad.Name = name + "-auto-delete"
		bad.AutoDeleteAutoCreatedReservations = true
		_, err := svc.FutureReservations.Insert(c.project, c.zone, bad).Context(ctx).Do()
		return discoveryError(err, 400, "invalid")
	})
}
