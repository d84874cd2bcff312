// Command goclients drives the operator's REST API with Google's two official Go clients, unchanged:
// the discovery-generated google.golang.org/api/compute/v1 ("discovery") and the GAPIC
// cloud.google.com/go/compute/apiv1 over its REST transport ("gapic"). For each client and for a
// zonal and a regional group it inserts (resizeBy and instances, with a requestId), gets by name and
// by numeric id, lists with paging and a filter, cancels, deletes, waits on operations and parses a
// 404, checking every answer. It prints one line per step, `PASS <client> <step>` or
// `FAIL <client> <step>: <error>`, and exits 1 if any step failed (2 on bad flags or set-up errors).
//
// The clients are configured the way a user points them at a non-Google endpoint: a custom endpoint
// and a static OAuth2 token source carrying a Kubernetes bearer token. Nothing here talks HTTP itself,
// so a step passes only if the official client accepts what the server sends.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/option"
)

type config struct {
	endpoint, token, project, zone, region string
	zonalGroup, regionalGroup, prefix      string
	queueSize                              int
	clients                                string
	timeout                                time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.endpoint, "endpoint", "", "the operator's base URL, e.g. http://127.0.0.1:8080 (no /compute/v1)")
	flag.StringVar(&c.token, "token", "", "bearer token (a Kubernetes ServiceAccount token)")
	flag.StringVar(&c.project, "project", "", "project (the Kubernetes namespace)")
	flag.StringVar(&c.zone, "zone", "", "zone of the zonal group")
	flag.StringVar(&c.region, "region", "", "region of the regional group")
	flag.StringVar(&c.zonalGroup, "zonal-group", "", "a group with spec.zone = -zone")
	flag.StringVar(&c.regionalGroup, "regional-group", "", "a group with spec.region = -region")
	flag.StringVar(&c.prefix, "prefix", "go", "prefix of every request name, so runs and clients do not clash")
	flag.IntVar(&c.queueSize, "queue-size", 0,
		"resizeBy of the request that must wait in the queue so it can be cancelled: the groups' spec.maxSize "+
			"(it can fit an empty group, not one holding this run's other requests)")
	flag.StringVar(&c.clients, "clients", "discovery,gapic", "comma-separated clients to drive")
	flag.DurationVar(&c.timeout, "timeout", 5*time.Minute, "deadline for the whole run")
	flag.Parse()
	for name, v := range map[string]string{
		"endpoint": c.endpoint, "token": c.token, "project": c.project, "zone": c.zone, "region": c.region,
		"zonal-group": c.zonalGroup, "regional-group": c.regionalGroup,
	} {
		if v == "" {
			fmt.Fprintf(os.Stderr, "-%s is required\n", name)
			os.Exit(2)
		}
	}
	if c.queueSize < 1 {
		fmt.Fprintln(os.Stderr, "-queue-size must be the groups' spec.maxSize (>= 1)")
		os.Exit(2)
	}
	c.endpoint = strings.TrimRight(c.endpoint, "/")

	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	// What a user outside Google Cloud does: a token they obtained elsewhere, handed to the client
	// through the standard oauth2 interface; the clients add `Authorization: Bearer <token>`.
	auth := option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.token, TokenType: "Bearer"}))

	r := &runner{failed: map[string]bool{}}
	for _, name := range strings.Split(c.clients, ",") {
		var scopes []scope
		var err error
		switch name {
		case "discovery":
			scopes, err = discoveryScopes(ctx, c, auth)
		case "gapic":
			scopes, err = gapicScopes(ctx, c, auth)
		default:
			err = fmt.Errorf("unknown client %q", name)
		}
		r.client = name
		if r.step("new-client", nil, func() error { return err }) {
			for _, s := range scopes {
				scenario(ctx, r, c, s)
			}
		}
		if name == "discovery" {
			adviceSteps(ctx, r, c, auth)
			bookingSteps(ctx, r, c, auth)
		}
	}
	fmt.Printf("steps: %d PASS, %d FAIL\n", r.passed, r.failures)
	if r.failures > 0 {
		os.Exit(1)
	}
}

// runner prints one line per step. A step whose prerequisite failed is not run and is reported as a
// FAIL naming that prerequisite: a step that could not run never counts as passing.
type runner struct {
	client           string
	failed           map[string]bool // client+step -> failed or not run
	passed, failures int
}

func (r *runner) step(name string, needs []string, fn func() error) bool {
	for _, n := range needs {
		if r.failed[r.client+" "+n] {
			return r.fail(name, fmt.Errorf("not run: needs step %s, which failed", n))
		}
	}
	if err := fn(); err != nil {
		return r.fail(name, err)
	}
	r.passed++
	fmt.Printf("PASS %s %s\n", r.client, name)
	return true
}

func (r *runner) fail(name string, err error) bool {
	r.failures++
	r.failed[r.client+" "+name] = true
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if f := featureOf(name); f != "" && !strings.HasPrefix(msg, "not run:") {
		msg += " [uses server feature: " + f + "]"
	}
	fmt.Printf("FAIL %s %s: %s\n", r.client, name, msg)
	return false
}

// featureOf names the server feature of issue 16 a step relies on beyond the zonal resizeBy basics,
// so a failure caused by a server that lacks it reads as such. The step still fails.
func featureOf(step string) string {
	var features []string
	if strings.HasPrefix(step, "regional/") {
		features = append(features, "regional groups (spec.region, regions/{region} routes, regionOperations)")
	}
	if strings.Contains(step, "instances") || strings.Contains(step, "list") {
		// Lists include the instances request, so they decode it too.
		features = append(features, "instances as PerInstanceConfig objects")
	}
	if strings.Contains(step, "operation-get-by-id") {
		features = append(features, "operations by numeric id")
	}
	return strings.Join(features, "; ")
}
