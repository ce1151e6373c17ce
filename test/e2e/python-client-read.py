"""Reads every built-in kind test/e2e/python-client.test.ts created with the official Python client's typed APIs.

Prints a JSON object: kind -> "ok", or the deserialization error the client raised.
"""
import json
import sys

from kubernetes import client

configuration = client.Configuration()
configuration.host = sys.argv[1]
api = client.ApiClient(configuration)
ns = "py"

reads = {
    "Namespace": lambda: client.CoreV1Api(api).read_namespace("py"),
    "Node": lambda: client.CoreV1Api(api).read_node("py-node"),
    "Pod": lambda: client.CoreV1Api(api).read_namespaced_pod("p", ns),
    "Service": lambda: client.CoreV1Api(api).read_namespaced_service("s", ns),
    "ConfigMap": lambda: client.CoreV1Api(api).read_namespaced_config_map("c", ns),
    "Secret": lambda: client.CoreV1Api(api).read_namespaced_secret("sec", ns),
    "ServiceAccount": lambda: client.CoreV1Api(api).read_namespaced_service_account("sa", ns),
    "Event": lambda: client.CoreV1Api(api).read_namespaced_event("e", ns),
    "Endpoints": lambda: client.CoreV1Api(api).read_namespaced_endpoints("manual", ns),
    "PersistentVolumeClaim": lambda: client.CoreV1Api(api).read_namespaced_persistent_volume_claim("claim", ns),
    "PersistentVolume": lambda: client.CoreV1Api(api).read_persistent_volume("py-pv"),
    "Deployment": lambda: client.AppsV1Api(api).read_namespaced_deployment("d", ns),
    "ReplicaSet": lambda: client.AppsV1Api(api).read_namespaced_replica_set("rs", ns),
    "StatefulSet": lambda: client.AppsV1Api(api).read_namespaced_stateful_set("ss", ns),
    "DaemonSet": lambda: client.AppsV1Api(api).read_namespaced_daemon_set("ds", ns),
    "Job": lambda: client.BatchV1Api(api).read_namespaced_job("j", ns),
    "CronJob": lambda: client.BatchV1Api(api).read_namespaced_cron_job("cj", ns),
    "Role": lambda: client.RbacAuthorizationV1Api(api).read_namespaced_role("r", ns),
    "RoleBinding": lambda: client.RbacAuthorizationV1Api(api).read_namespaced_role_binding("rb", ns),
    "ClusterRole": lambda: client.RbacAuthorizationV1Api(api).read_cluster_role("py-cr"),
    "ClusterRoleBinding": lambda: client.RbacAuthorizationV1Api(api).read_cluster_role_binding("py-crb"),
    "Ingress": lambda: client.NetworkingV1Api(api).read_namespaced_ingress("i", ns),
    "IngressClass": lambda: client.NetworkingV1Api(api).read_ingress_class("py-ic"),
    "NetworkPolicy": lambda: client.NetworkingV1Api(api).read_namespaced_network_policy("np", ns),
    "PodDisruptionBudget": lambda: client.PolicyV1Api(api).read_namespaced_pod_disruption_budget("pdb", ns),
    "StorageClass": lambda: client.StorageV1Api(api).read_storage_class("py-sc"),
    "PriorityClass": lambda: client.SchedulingV1Api(api).read_priority_class("py-pc"),
    "Lease": lambda: client.CoordinationV1Api(api).read_namespaced_lease("l", ns),
    "EndpointSlice": lambda: client.DiscoveryV1Api(api).read_namespaced_endpoint_slice("es", ns),
    "HorizontalPodAutoscaler": lambda: client.AutoscalingV1Api(api).read_namespaced_horizontal_pod_autoscaler("hpa", ns),
    "events.k8s.io/Event": lambda: client.EventsV1Api(api).read_namespaced_event("e2", ns),
}

report = {}
for kind, read in reads.items():
    try:
        read()
        report[kind] = "ok"
    except Exception as err:  # the client's deserialization errors are ValueErrors and ApiExceptions
        report[kind] = f"{type(err).__name__}: {err}"[:300]
print(json.dumps(report))
