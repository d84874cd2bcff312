package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"resize-operator.dev/test/linearizable/model"
)

// The CRD view: the same resize requests read as Kubernetes objects with client-go, as kubectl and
// controllers read them. A get or list is a read of the API server (no resourceVersion: a quorum
// read), checked by the same model as the REST reads; a watch is checked for its order
// (model.CheckWatch).
var resizeRequests = schema.GroupVersionResource{
	Group: "compute.resize-operator.dev", Version: "v1", Resource: "resizerequests",
}

type crdClient struct {
	objects dynamic.NamespaceableResourceInterface
	project string
	prefix  string
}

func newCRDClient(kubeconfig, project, prefix string) (*crdClient, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 500, 1000
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &crdClient{objects: client.Resource(resizeRequests), project: project, prefix: prefix}, nil
}

// stateOf is a request's state as the REST API shows it: CREATING until the controller writes one.
func stateOf(u *unstructured.Unstructured) string {
	state, _, _ := unstructured.NestedString(u.Object, "status", "state")
	if state == "" {
		return model.Creating
	}
	return state
}

func (c *crdClient) do(ctx context.Context, in model.Input) (model.Output, string) {
	objects := c.objects.Namespace(c.project)
	switch in.Kind {
	case model.CrdGet:
		u, err := objects.Get(ctx, in.Name, metav1.GetOptions{})
		if err != nil {
			return kubeFailure(err)
		}
		if group, _, _ := unstructured.NestedString(u.Object, "spec", "instanceGroupManager"); group != in.Group {
			return model.Output{Code: 404, Reason: "notFound"}, ""
		}
		return model.Output{Code: 200, State: stateOf(u)}, ""
	case model.CrdList:
		list, err := objects.List(ctx, metav1.ListOptions{FieldSelector: "spec.instanceGroupManager=" + in.Group})
		if err != nil {
			return kubeFailure(err)
		}
		if list.GetContinue() != "" {
			return model.Output{Unknown: true}, "list answered more than one page"
		}
		listed := map[string]string{}
		for i := range list.Items {
			if strings.HasPrefix(list.Items[i].GetName(), c.prefix+"-") {
				listed[list.Items[i].GetName()] = stateOf(&list.Items[i])
			}
		}
		return model.Output{Code: 200, Listed: listed}, ""
	}
	return model.Output{Unknown: true}, fmt.Sprintf("not a CRD call: %s", in.Kind)
}

// kubeFailure: a 404 is an answer; anything else leaves a read's outcome unknown.
func kubeFailure(err error) (model.Output, string) {
	if apierrors.IsNotFound(err) {
		return model.Output{Code: 404, Reason: "notFound"}, ""
	}
	return model.Output{Unknown: true}, err.Error()
}

// watcher records the project's resize requests of this history as one client-go watch delivers
// them: from a list, then every event in order, started again from the last resourceVersion when the
// stream ends (an API-server restart), and from a new list, marked as a gap, when that version has
// expired.
type watcher struct {
	crd    *crdClient
	now    func() int64
	listed bool // run's own: a list after the first is a gap
	mu     sync.Mutex
	events []model.WatchEvent
}

func (w *watcher) add(e model.WatchEvent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, e)
}

func (w *watcher) event(kind string, u *unstructured.Unstructured) {
	if !strings.HasPrefix(u.GetName(), w.crd.prefix+"-") {
		return
	}
	w.add(model.WatchEvent{At: w.now(), Type: kind, Name: u.GetName(), UID: string(u.GetUID()),
		State: stateOf(u), ResourceVersion: u.GetResourceVersion()})
}

// relist lists the requests (a SYNC event each, after a GAP but the first time) and returns the
// list's resourceVersion.
func (w *watcher) relist(ctx context.Context) (string, error) {
	list, err := w.crd.objects.Namespace(w.crd.project).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	if w.listed {
		w.add(model.WatchEvent{At: w.now(), Type: model.WatchGap})
	}
	w.listed = true
	for i := range list.Items {
		w.event(model.WatchSync, &list.Items[i])
	}
	return list.GetResourceVersion(), nil
}

// run watches until ctx ends.
func (w *watcher) run(ctx context.Context) {
	rv := ""
	for ctx.Err() == nil {
		if rv == "" {
			var err error
			if rv, err = w.relist(ctx); err != nil {
				sleep(ctx, 250*time.Millisecond)
				continue
			}
		}
		stream, err := w.crd.objects.Namespace(w.crd.project).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		if err != nil {
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				rv = ""
			}
			sleep(ctx, 250*time.Millisecond)
			continue
		}
		rv = w.drain(stream, rv)
		stream.Stop()
	}
}

// drain reads one watch stream to its end; it returns the resourceVersion to go on from ("" to list
// again: the version expired).
func (w *watcher) drain(stream watch.Interface, rv string) string {
	for e := range stream.ResultChan() {
		if e.Type == watch.Error {
			if status, ok := e.Object.(*metav1.Status); ok && status.Code == 410 {
				return ""
			}
			return rv
		}
		u, ok := e.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		if e.Type != watch.Bookmark {
			w.event(string(e.Type), u)
		}
		rv = u.GetResourceVersion()
	}
	return rv
}

// settle lists the requests until the watch's view agrees with a list (at most `within`), so the
// history records whether the watch caught up with the API server after the run.
func (w *watcher) settle(ctx context.Context, within time.Duration) {
	deadline := time.Now().Add(within)
	for {
		list, err := w.crd.objects.Namespace(w.crd.project).List(ctx, metav1.ListOptions{})
		if err == nil {
			final := map[string]string{}
			for i := range list.Items {
				if strings.HasPrefix(list.Items[i].GetName(), w.crd.prefix+"-") {
					final[list.Items[i].GetName()] = string(list.Items[i].GetUID()) + " " + stateOf(&list.Items[i])
				}
			}
			w.mu.Lock()
			view := model.WatchView(w.events)
			w.mu.Unlock()
			if model.SameView(view, final) || time.Now().After(deadline) {
				w.add(model.WatchEvent{At: w.now(), Type: model.WatchFinal, Final: final})
				return
			}
		} else if time.Now().After(deadline) || errors.Is(err, context.Canceled) {
			return
		}
		sleep(ctx, 200*time.Millisecond)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
