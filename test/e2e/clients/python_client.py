"""Debian's python3-kubernetes against a Syncscope server, used as its users write it.

Reads the kubeconfig given as the first argument and, in the namespace `default`: watches pods in a thread
(watch.Watch().stream) while it creates pods from V1Pod models (no apiVersion or kind, as the client sends
them), lists and reads them, reads a container's log, follows it, reads a crashed container's previous log,
runs a command through exec (kubernetes.stream), deletes the pods; then prints one JSON object of what each
call answered. A call that fails prints its error in place of the answer and the script goes on.
"""

import json
import sys
import threading
import time

from kubernetes import client, config, watch
from kubernetes.stream import stream

NS = "default"
out = {}


def pod(name, script):
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1PodSpec(
            termination_grace_period_seconds=1,
            containers=[client.V1Container(name="app", image="busybox", command=["sh", "-c", script])],
        ),
    )


def attempt(key, fn):
    try:
        out[key] = fn()
    except Exception as e:  # noqa: BLE001 - every failure is reported, the next call still runs
        out[key] = {"error": f"{type(e).__name__}: {e}"[:500]}


def until(what, fn, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        got = fn()
        if got:
            return got
        time.sleep(0.2)
    raise TimeoutError(what)


config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()
seen = []
watching = threading.Event()


def watch_pods():
    w = watch.Watch()
    watching.set()
    for ev in w.stream(v1.list_namespaced_pod, NS, timeout_seconds=90):
        seen.append([ev["type"], ev["object"].metadata.name])
        if ev["type"] == "DELETED" and ev["object"].metadata.name == "py-churn":
            w.stop()


watcher = threading.Thread(target=watch_pods, daemon=True)
watcher.start()
watching.wait(10)
time.sleep(0.5)

attempt("create", lambda: [
    v1.create_namespaced_pod(NS, pod("py-web", "echo one; echo two; sleep 3600")).metadata.name,
    v1.create_namespaced_pod(NS, pod("py-crash", "echo boom; exit 1")).metadata.name,
    v1.create_namespaced_pod(NS, pod("py-churn", "sleep 3600")).metadata.name,
])
attempt("list", lambda: sorted(p.metadata.name for p in v1.list_namespaced_pod(NS).items))
attempt("running", lambda: until(
    "py-web running", lambda: v1.read_namespaced_pod("py-web", NS).status.phase == "Running" and "Running"))
attempt("delete_churn", lambda: v1.delete_namespaced_pod("py-churn", NS).metadata.name)
attempt("log", lambda: until("py-web's log", lambda: (lambda t: "two" in t and t)(
    v1.read_namespaced_pod_log("py-web", NS))))


def follow():
    resp = v1.read_namespaced_pod_log("py-web", NS, follow=True, _preload_content=False)
    got = b""
    for chunk in resp.stream(16):
        got += chunk
        if b"two\n" in got:
            break
    resp.release_conn()
    return got.decode()


attempt("follow", follow)


def previous():
    try:
        return v1.read_namespaced_pod_log("py-crash", NS, previous=True)
    except client.exceptions.ApiException:
        return None  # no previous instance yet


attempt("previous", lambda: until("py-crash's previous log", previous))
attempt("exec", lambda: stream(
    v1.connect_get_namespaced_pod_exec, "py-web", NS,
    command=["echo", "hi"], stderr=True, stdin=False, stdout=True, tty=False))
watcher.join(60)
out["watch"] = seen
attempt("delete", lambda: [v1.delete_namespaced_pod(n, NS).metadata.name for n in ("py-web", "py-crash")])
print(json.dumps(out))
