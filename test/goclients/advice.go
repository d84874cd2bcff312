package main

import (
	"context"
	"fmt"
	"time"

	dc "google.golang.org/api/compute/v1"
	"google.golang.org/api/option"
)

// adviceSteps calls advice.calendarMode through the discovery-generated client: the zonal group's
// earliest window for one instance over a minute, and a spec this API cannot honour (aggregate
// resources), refused with 400 invalid.
func adviceSteps(ctx context.Context, r *runner, c config, auth option.ClientOption) {
	svc, err := dc.NewService(ctx, option.WithEndpoint(c.endpoint+"/compute/v1/"), auth)
	if !r.step("advice/new-client", nil, func() error { return err }) {
		return
	}
	ask := func(target *dc.FutureResourcesSpecTargetResources) (*dc.CalendarModeAdviceResponse, error) {
		return svc.Advice.CalendarMode(c.project, c.region, &dc.CalendarModeAdviceRequest{
			FutureResourcesSpecs: map[string]dc.FutureResourcesSpec{
				"spec": {TargetResources: target, TimeRangeSpec: &dc.FlexibleTimeRange{MinDuration: "60s"}},
			},
		}).Context(ctx).Do()
	}
	r.step("advice/calendar-mode", []string{"advice/new-client"}, func() error {
		before := time.Now().Add(-time.Second)
		res, err := ask(&dc.FutureResourcesSpecTargetResources{
			SpecificSkuResources: &dc.FutureResourcesSpecSpecificSKUResources{InstanceCount: 1, MachineType: c.zonalGroup},
		})
		if err != nil {
			return err
		}
		if len(res.Recommendations) != 1 {
			return fmt.Errorf("%d recommendations, want 1 (the named group)", len(res.Recommendations))
		}
		w, ok := res.Recommendations[0].RecommendationsPerSpec["spec"]
		if !ok {
			return fmt.Errorf("no recommendation under the spec's key: %v", res.Recommendations[0].RecommendationsPerSpec)
		}
		if w.RecommendationId != "instanceGroupManagers/"+c.zonalGroup || w.Location != "zones/"+c.zone ||
			w.RecommendationType != "FUTURE_RESERVATION" {
			return fmt.Errorf("recommendation %+v, want group %s in zones/%s", w, c.zonalGroup, c.zone)
		}
		start, err1 := time.Parse(time.RFC3339, w.StartTime)
		end, err2 := time.Parse(time.RFC3339, w.EndTime)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("times %q and %q are not RFC 3339", w.StartTime, w.EndTime)
		}
		if start.Before(before) || end.Sub(start) != time.Minute {
			return fmt.Errorf("window %s to %s, want a minute from now on", w.StartTime, w.EndTime)
		}
		return nil
	})
	r.step("advice/unsupported-400", []string{"advice/new-client"}, func() error {
		_, err := ask(&dc.FutureResourcesSpecTargetResources{
			AggregateResources: &dc.FutureResourcesSpecAggregateResources{AcceleratorCount: 8},
		})
		return discoveryError(err, 400, "invalid")
	})
}
