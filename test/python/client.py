"""Google's official Python client (Debian's python3-googleapi), unchanged, against a real operator.

The client is built with build_from_document from the operator's own discovery document and
authenticates with a Kubernetes ServiceAccount token as an OAuth bearer token (google-auth). Each
step prints `PASS <step>` or `FAIL <step>: <why>`; test/integration/rest/python-client.test.ts runs
this program and fails on any FAIL or missing PASS. The exit code is 1 when a step failed.
"""

import argparse
import json
import sys
import time
import uuid

import google.oauth2.credentials
import google_auth_httplib2
import httplib2
from googleapiclient.discovery import build_from_document
from googleapiclient.errors import HttpError

LISTED = 10  # requests listed one per page: ten pages


def main() -> int:
    parser = argparse.ArgumentParser()
    for flag in ("base", "token", "project", "zone", "group"):
        parser.add_argument("--" + flag, required=True)
    args = parser.parse_args()

    credentials = google.oauth2.credentials.Credentials(token=args.token)
    http = google_auth_httplib2.AuthorizedHttp(credentials, http=httplib2.Http(timeout=150))
    failed = []

    def step(name, check):
        try:
            check()
            print("PASS " + name, flush=True)
        except Exception as err:  # every failure is reported; the next steps still run
            failed.append(name)
            print("FAIL %s: %s: %s" % (name, type(err).__name__, err), flush=True)

    state = {}
    where = {"project": args.project, "zone": args.zone, "instanceGroupManager": args.group}

    def build():
        response, content = httplib2.Http().request(args.base + "/discovery/v1/apis/compute/v1/rest")
        expect(response.status == 200, "discovery document: HTTP %s" % response.status)
        state["svc"] = build_from_document(content.decode("utf-8"), http=http)

    def requests():
        return state["svc"].instanceGroupManagerResizeRequests()

    def operations():
        return state["svc"].zoneOperations()

    def calendar_mode():
        # Before any request holds an instance: the group (maxSize 4) has room for one at once. Its size
        # is known once the operator has seen it, so the advice is asked until it names the group.
        region = args.zone.rsplit("-", 1)[0]
        spec = {"targetResources": {"specificSkuResources": {"instanceCount": "1", "machineType": args.group}},
                "timeRangeSpec": {"minDuration": "60s"}}
        for _ in range(60):
            answer = state["svc"].advice().calendarMode(
                project=args.project, region=region, body={"futureResourcesSpecs": {"spec": spec}}).execute()
            if answer.get("recommendations"):
                break
            time.sleep(0.5)
        window = answer["recommendations"][0]["recommendationsPerSpec"]["spec"]
        expect(window["recommendationId"] == "instanceGroupManagers/" + args.group, "%r" % window)
        expect(window["location"] == "zones/" + args.zone, "%r" % window)
        expect(window["recommendationType"] == "FUTURE_RESERVATION", "%r" % window)

    booking = {"project": args.project, "zone": args.zone}

    def bookings():
        return state["svc"].futureReservations()

    def booking_body(name, **more):
        start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 86400))
        return dict({"name": name, "reservationMode": "CALENDAR",
                     "specificSkuProperties": {"totalCount": "1", "instanceProperties": {"machineType": args.group}},
                     "timeWindow": {"startTime": start, "duration": {"seconds": "3600"}}}, **more)

    def wait_for(operation):
        for _ in range(10):  # each wait returns within two minutes, DONE or not
            done = operations().wait(project=args.project, zone=args.zone, operation=operation["name"]).execute()
            if done["status"] == "DONE":
                expect("error" not in done, "the operation failed: %r" % done.get("error"))
                return done
        raise AssertionError("operation %s not DONE" % operation["name"])

    def booking_status(past):
        for _ in range(120):
            got = bookings().get(futureReservation="py-booking", **booking).execute()
            if got["status"]["procurementStatus"] != past:
                return got
            time.sleep(0.25)
        raise AssertionError("py-booking is still %s" % past)

    def booking_insert():
        # One instance for an hour, a day ahead: the empty group (maxSize 4) has room, so it is APPROVED.
        done = wait_for(bookings().insert(body=booking_body("py-booking"), **booking).execute())
        expect(done["operationType"] == "compute.futureReservations.insert", "%r" % done)

    def booking_get():
        got = booking_status("PENDING_APPROVAL")
        expect(got["status"]["procurementStatus"] == "APPROVED", "%r" % got)
        expect(got["specificSkuProperties"]["totalCount"] == "1", "%r" % got)
        expect(got["kind"] == "compute#futureReservation", "kind %r" % got.get("kind"))

    def booking_list():
        names = [fr["name"] for fr in bookings().list(**booking).execute().get("items", [])]
        expect("py-booking" in names, "listed %r" % names)

    def booking_cancel():
        wait_for(bookings().cancel(futureReservation="py-booking", **booking).execute())
        got = booking_status("APPROVED")
        expect(got["status"]["procurementStatus"] == "CANCELLED", "%r" % got)

    def booking_delete():
        wait_for(bookings().delete(futureReservation="py-booking", **booking).execute())
        try:
            bookings().get(futureReservation="py-booking", **booking).execute()
        except HttpError as err:
            expect(err.resp.status == 404, "status %s" % err.resp.status)
            return
        raise AssertionError("py-booking is still there")

    def booking_refused():
        try:
            bookings().insert(body=booking_body("py-shared", shareSettings={"shareType": "LOCAL"}), **booking).execute()
        except HttpError as err:
            body = json.loads(err.content.decode("utf-8"))
            expect(err.resp.status == 400, "status %s" % err.resp.status)
            expect(body["error"]["errors"][0]["reason"] == "invalid", "body %r" % body)
            expect(body["error"]["errors"][0]["location"] == "shareSettings", "body %r" % body)
            return
        raise AssertionError("an insert with shareSettings was accepted")

    def insert_replayed():
        request_id = str(uuid.uuid4())
        first = requests().insert(requestId=request_id, body={"name": "py-a", "resizeBy": 1}, **where).execute()
        again = requests().insert(requestId=request_id, body={"name": "py-a", "resizeBy": 1}, **where).execute()
        expect(first["kind"] == "compute#operation", "kind %r" % first.get("kind"))
        expect(first["clientOperationId"] == request_id, "clientOperationId %r" % first.get("clientOperationId"))
        expect((again["name"], again["id"]) == (first["name"], first["id"]), "the replay made another Operation")
        state["operation"] = first

    def wait():
        name = state["operation"]["name"]
        for _ in range(10):  # each wait returns within two minutes, DONE or not
            done = operations().wait(project=args.project, zone=args.zone, operation=name).execute()
            if done["status"] == "DONE":
                expect("error" not in done, "the insert failed: %r" % done.get("error"))
                return
        raise AssertionError("operation %s not DONE" % name)

    def get():
        got = requests().get(resizeRequest="py-a", **where).execute()
        expect(got["name"] == "py-a" and got["resizeBy"] == 1, "got %r" % got)
        expect(got["kind"] == "compute#instanceGroupManagerResizeRequest", "kind %r" % got.get("kind"))
        operation = operations().get(project=args.project, zone=args.zone, operation=state["operation"]["name"])
        expect(operation.execute()["status"] == "DONE", "the Operation read back is not DONE")

    def managed_instances():
        for _ in range(240):  # py-a's one instance (a pod of the group's StatefulSet) becomes ready
            if requests().get(resizeRequest="py-a", **where).execute().get("state") == "SUCCEEDED":
                break
            time.sleep(0.25)
        listed = state["svc"].instanceGroupManagers().listManagedInstances(**where).execute()
        held = [m for m in listed.get("managedInstances", []) if m.get("version", {}).get("name") == "py-a"]
        expect(len(held) == 1, "instances held by py-a: %r" % held)
        expect(held[0]["instanceStatus"] == "RUNNING", "instanceStatus %r" % held[0].get("instanceStatus"))
        expect(held[0]["instance"].endswith("/instances/" + held[0]["name"]), "instance %r" % held[0])

    def list_pages():
        for i in range(1, LISTED):
            requests().insert(body={"name": "py-list-%d" % i, "resizeBy": 1}, **where).execute()
        names, pages = [], 0
        call = requests().list(maxResults=1, **where)
        while call is not None:
            page = call.execute()
            pages += 1
            names += [item["name"] for item in page.get("items", [])]
            call = requests().list_next(call, page)
        expected = sorted(["py-a"] + ["py-list-%d" % i for i in range(1, LISTED)])
        expect(sorted(names) == expected, "listed %r" % names)
        expect(pages == LISTED, "%d pages for %d requests of one per page" % (pages, LISTED))

    def cancel():
        # py-list-9 is the last of ten 1-instance requests under maxSize 4: it waits in the queue.
        operation = requests().cancel(resizeRequest="py-list-9", **where).execute()
        expect(operation["operationType"] == "compute.instanceGroupManagerResizeRequests.cancel", "%r" % operation)
        for _ in range(60):
            got = requests().get(resizeRequest="py-list-9", **where).execute()
            if got["state"] == "CANCELLED":
                return
            time.sleep(0.5)
        raise AssertionError("py-list-9 is %s, not CANCELLED" % got["state"])

    def not_found():
        try:
            requests().get(resizeRequest="missing", **where).execute()
        except HttpError as err:
            expect(err.resp.status == 404, "status %s" % err.resp.status)
            body = json.loads(err.content.decode("utf-8"))
            expect(body["error"]["errors"][0]["reason"] == "notFound", "body %r" % body)
            return
        raise AssertionError("no HttpError for a missing request")

    def batch():
        answers = {}

        def collect(request_id, response, exception):
            answers[request_id] = exception or response

        calls = state["svc"].new_batch_http_request(callback=collect)
        calls.add(requests().get(resizeRequest="py-a", **where), request_id="request")
        calls.add(operations().get(project=args.project, zone=args.zone, operation=state["operation"]["name"]),
                  request_id="operation")
        calls.execute()
        expect(sorted(answers) == ["operation", "request"], "answers %r" % answers)
        expect(answers["request"]["name"] == "py-a", "request part %r" % answers["request"])
        expect(answers["operation"]["name"] == state["operation"]["name"], "operation part %r" % answers["operation"])

    for name, check in (
        ("build-from-document", build),
        ("advice-calendar-mode", calendar_mode),
        # Booked, cancelled and deleted before any request: a cancelled booking holds nothing.
        ("booking-insert", booking_insert),
        ("booking-get", booking_get),
        ("booking-list", booking_list),
        ("booking-cancel", booking_cancel),
        ("booking-delete", booking_delete),
        ("booking-unsupported-400", booking_refused),
        ("insert-requestId-replay", insert_replayed),
        ("operation-wait", wait),
        ("get", get),
        ("list-managed-instances", managed_instances),
        ("list-paging", list_pages),
        ("cancel", cancel),
        ("get-missing-404", not_found),
        ("batch-of-2", batch),
    ):
        if name != "build-from-document" and "svc" not in state:
            failed.append(name)
            print("FAIL %s: no client (build-from-document failed)" % name, flush=True)
            continue
        step(name, check)
    return 1 if failed else 0


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


if __name__ == "__main__":
    sys.exit(main())
