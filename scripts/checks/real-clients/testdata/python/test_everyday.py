"""The official Python client (Debian's python3-kubernetes) against svckit serve: what its own e2e
suite (kubernetes/e2e_test, v22.6.0) exercises that needs no kubelet, written for this check.
Each assertion is what a Kubernetes 1.30 kube-apiserver answers. KUBECONFIG names the server.
"""
import json
import uuid

import pytest
from kubernetes import client, config, utils, watch
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient

NS = 'default'


@pytest.fixture(scope='module')
def api_client():
    config.load_kube_config()
    return client.ApiClient()


def unique(prefix):
    return '%s-%s' % (prefix, uuid.uuid4().hex[:8])


def test_configmap_crud(api_client):
    core = client.CoreV1Api(api_client)
    name = unique('cm')
    body = {'metadata': {'name': name, 'labels': {'suite': 'py-cm'}}, 'data': {'a': '1'}}
    created = core.create_namespaced_config_map(NS, body)
    assert created.metadata.uid and created.metadata.resource_version
    assert created.metadata.creation_timestamp is not None
    assert core.read_namespaced_config_map(name, NS).data == {'a': '1'}
    body['data']['a'] = '2'
    patched = core.patch_namespaced_config_map(name, NS, body)  # a dict: strategic merge
    assert patched.data == {'a': '2'}
    patched.data['b'] = '3'
    replaced = core.replace_namespaced_config_map(name, NS, patched)
    assert replaced.data == {'a': '2', 'b': '3'}
    assert [c.metadata.name for c in core.list_namespaced_config_map(NS, label_selector='suite=py-cm').items] == [name]
    core.delete_namespaced_config_map(name, NS, body={})
    assert core.list_namespaced_config_map(NS, pretty=True, label_selector='suite=py-cm').items == []


def test_json_patch(api_client):
    core = client.CoreV1Api(api_client)
    name = unique('cm')
    core.create_namespaced_config_map(NS, {'metadata': {'name': name}, 'data': {'a': '1'}})
    patched = core.patch_namespaced_config_map(name, NS, [{'op': 'add', 'path': '/data/b', 'value': '2'}])
    assert patched.data == {'a': '1', 'b': '2'}
    core.delete_namespaced_config_map(name, NS)


def test_service_has_status_and_merges_ports(api_client):
    core = client.CoreV1Api(api_client)
    name = unique('svc')
    body = {'metadata': {'name': name}, 'spec': {'selector': {'app': name}, 'ports': [{'name': 'http', 'port': 80, 'targetPort': 80}]}}
    created = core.create_namespaced_service(NS, body)
    assert created.status, 'a created Service has status.loadBalancer {}'
    assert created.spec.cluster_ip and created.spec.type == 'ClusterIP'
    body['spec']['ports'] = [{'name': 'new', 'port': 8080, 'targetPort': 8080}]
    patched = core.patch_namespaced_service(name, NS, body)  # ports merge on their key, port
    assert sorted(p.port for p in patched.spec.ports) == [80, 8080]
    assert patched.status
    core.delete_namespaced_service(name, NS)


def test_pod_is_pending_with_defaults(api_client):
    core = client.CoreV1Api(api_client)
    name = unique('pod')
    body = {'metadata': {'name': name}, 'spec': {'containers': [{'name': 'c', 'image': 'busybox'}]}}
    created = core.create_namespaced_pod(NS, body)
    assert created.status and created.status.phase == 'Pending'
    assert created.status.qos_class == 'BestEffort'
    assert created.spec.restart_policy == 'Always' and created.spec.dns_policy == 'ClusterFirst'
    assert created.spec.containers[0].image_pull_policy == 'Always'
    assert core.read_namespaced_pod(name, NS).status.phase == 'Pending'
    core.delete_namespaced_pod(name, NS, body={})


def test_default_service_account_exists(api_client):
    # The kube-controller-manager's service account controller makes it in every namespace;
    # the client's e2e suite waits for it before creating pods.
    sa = client.CoreV1Api(api_client).read_namespaced_service_account('default', NS)
    assert sa.metadata.name == 'default'


def test_deployment_and_scale(api_client):
    apps = client.AppsV1Api(api_client)
    name = unique('deploy')
    labels = {'app': name}
    body = {
        'metadata': {'name': name},
        'spec': {
            'replicas': 1,
            'selector': {'matchLabels': labels},
            'template': {'metadata': {'labels': labels}, 'spec': {'containers': [{'name': 'nginx', 'image': 'nginx:1.25'}]}},
        },
    }
    created = apps.create_namespaced_deployment(NS, body)
    assert created.spec.strategy.type == 'RollingUpdate'
    assert created.spec.revision_history_limit == 10
    scale = apps.patch_namespaced_deployment_scale(name, NS, {'spec': {'replicas': 3}})
    assert scale.spec.replicas == 3
    assert apps.read_namespaced_deployment_scale(name, NS).spec.replicas == 3
    apps.delete_namespaced_deployment(name, NS, body={})


def test_daemonset_and_job(api_client):
    apps, batch = client.AppsV1Api(api_client), client.BatchV1Api(api_client)
    name = unique('work')
    labels = {'app': name}
    template = {'metadata': {'labels': labels}, 'spec': {'containers': [{'name': 'c', 'image': 'busybox'}], 'restartPolicy': 'Never'}}
    job = batch.create_namespaced_job(NS, {'metadata': {'name': name}, 'spec': {'template': template}})
    assert job.spec.backoff_limit == 6 and job.spec.completions == 1
    batch.delete_namespaced_job(name, NS, body={}, propagation_policy='Background')
    template['spec']['restartPolicy'] = 'Always'
    ds = apps.create_namespaced_daemon_set(NS, {'metadata': {'name': name}, 'spec': {'selector': {'matchLabels': labels}, 'template': template}})
    assert ds.spec.update_strategy.type == 'RollingUpdate'
    apps.delete_namespaced_daemon_set(name, NS, body={})


def test_watch_from_list_version(api_client):
    core = client.CoreV1Api(api_client)
    label = 'suite=py-watch'
    first, second = unique('cm-a'), unique('cm-b')
    meta = lambda name: {'name': name, 'labels': {'suite': 'py-watch'}}  # noqa: E731
    core.create_namespaced_config_map(NS, {'metadata': meta(first), 'data': {'v': 'a'}})
    rv = core.list_namespaced_config_map(NS, label_selector=label).metadata.resource_version
    core.create_namespaced_config_map(NS, {'metadata': meta(second), 'data': {'v': 'b'}})
    core.patch_namespaced_config_map(second, NS, {'data': {'v': 'c'}})
    core.delete_collection_namespaced_config_map(NS, label_selector=label)
    seen = []
    # watch.Watch sends watch=True, as the client always has.
    for event in watch.Watch().stream(core.list_namespaced_config_map, NS, resource_version=rv, label_selector=label, timeout_seconds=3):
        seen.append((event['type'], event['object'].metadata.name))
    assert seen[:2] == [('ADDED', second), ('MODIFIED', second)]
    assert sorted(seen[2:]) == sorted([('DELETED', first), ('DELETED', second)])


def test_create_from_yaml_conflict_is_the_upstream_body(api_client):
    name = unique('dup')
    manifest = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': name, 'namespace': NS}}
    utils.create_from_dict(api_client, manifest)
    with pytest.raises(utils.FailToCreateError) as failure:
        utils.create_from_dict(api_client, manifest)
    # The body as kube-apiserver writes it (Go's json.Encoder: compact, then a newline).
    expected = {
        'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
        'message': 'configmaps "%s" already exists' % name, 'reason': 'AlreadyExists',
        'details': {'name': name, 'kind': 'configmaps'}, 'code': 409,
    }
    assert str(failure.value) == 'Error from server (Conflict): %s\n' % json.dumps(expected, separators=(',', ':'))
    client.CoreV1Api(api_client).delete_namespaced_config_map(name, NS)


def test_namespace_lifecycle(api_client):
    core = client.CoreV1Api(api_client)
    name = unique('ns')
    created = core.create_namespace({'metadata': {'name': name}})
    assert created.status.phase == 'Active'
    assert created.metadata.labels == {'kubernetes.io/metadata.name': name}
    core.delete_namespace(name)
    try:
        assert core.read_namespace(name).status.phase == 'Terminating'
    except ApiException as e:
        assert e.status == 404


def test_nodes_list_is_empty(api_client):
    assert client.CoreV1Api(api_client).list_node().items == []


def test_apiservices_are_served(api_client):
    # utils.create_from_yaml of an APIService (the client's e2e suite) goes through this API.
    names = [s.metadata.name for s in client.ApiregistrationV1Api(api_client).list_api_service().items]
    assert 'v1.apps' in names


def test_dynamic_client_apply_and_merge_patch(api_client):
    dyn = DynamicClient(api_client)  # reads /api and every group's discovery document
    configmaps = dyn.resources.get(api_version='v1', kind='ConfigMap')
    name = unique('applied')
    body = {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': name, 'namespace': NS}, 'data': {'a': '1'}}
    # This client version sends an apply body only as text (its REST layer serialises only JSON types).
    applied = dyn.server_side_apply(configmaps, body=json.dumps(body), name=name, namespace=NS, field_manager='py-e2e')
    assert applied.data.a == '1'
    assert [m.manager for m in applied.metadata.managedFields] == ['py-e2e']
    merged = dyn.patch(configmaps, body={'metadata': {'name': name}, 'data': {'b': '2'}}, namespace=NS, content_type='application/merge-patch+json')
    assert dict(merged.data) == {'a': '1', 'b': '2'}
    dyn.delete(configmaps, name=name, namespace=NS)
