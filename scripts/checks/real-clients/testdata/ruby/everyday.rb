# Debian's ruby-kubeclient against the server KUBECONFIG names: CRUD of a ConfigMap, the three
# patch types, server-side apply, and a watch (kubeclient watches through the legacy
# /api/v1/watch/... paths). Prints "ok <case>" or "FAIL <case>: <why>" per case, then
# "N passed, N failed". Exit code 1 when a case failed.
require 'kubeclient'
require 'securerandom'
require 'timeout'

NS = 'default'.freeze
LABEL = 'suite=ruby-everyday'.freeze

config = Kubeclient::Config.read(ENV.fetch('KUBECONFIG'))
context = config.context
options = { ssl_options: context.ssl_options, auth_options: context.auth_options }
core = Kubeclient::Client.new(context.api_endpoint, 'v1', **options)
apps = Kubeclient::Client.new("#{context.api_endpoint}/apis/apps", 'v1', **options)

$passed = 0
$failed = 0

def check(name)
  yield
  $passed += 1
  puts "ok #{name}"
rescue StandardError, Timeout::Error => e
  $failed += 1
  why = e.is_a?(Kubeclient::HttpError) ? "HTTP #{e.error_code}: #{e.message}" : "#{e.class}: #{e.message}"
  puts "FAIL #{name}: #{why.gsub("\n", ' ')}"
end

def expect(what, actual, expected)
  raise "#{what}: expected #{expected.inspect}, got #{actual.inspect}" unless actual == expected
end

def data_of(config_map)
  config_map.data.to_h.transform_keys(&:to_s)
end

name = "cm-#{SecureRandom.hex(4)}"
manifest = {
  metadata: { name: name, namespace: NS, labels: { suite: 'ruby-everyday' } },
  data: { a: '1' }
}

check('create configmap') do
  created = core.create_config_map(Kubeclient::Resource.new(manifest))
  expect('name', created.metadata.name, name)
  raise 'no uid' unless created.metadata.uid
end

check('get configmap') { expect('data', data_of(core.get_config_map(name, NS)), { 'a' => '1' }) }

check('list configmaps by label') do
  list = core.get_config_maps(namespace: NS, label_selector: LABEL)
  expect('names', list.map { |c| c.metadata.name }, [name])
  raise 'no list resourceVersion' unless list.resourceVersion
end

check('update configmap') do
  current = core.get_config_map(name, NS)
  current.data.b = '2'
  core.update_config_map(current)
  expect('data', data_of(core.get_config_map(name, NS)), { 'a' => '1', 'b' => '2' })
end

check('merge patch') do
  patched = core.merge_patch_config_map(name, { data: { c: '3', b: nil } }, NS)
  expect('data', data_of(patched), { 'a' => '1', 'c' => '3' })
end

check('strategic merge patch') do
  patched = core.patch_config_map(name, { metadata: { labels: { tier: 'web' } } }, NS)
  expect('labels', patched.metadata.labels.to_h.transform_keys(&:to_s), { 'suite' => 'ruby-everyday', 'tier' => 'web' })
end

check('JSON patch') do
  patched = core.json_patch_config_map(name, [{ op: 'replace', path: '/data/a', value: '10' }], NS)
  expect('data', data_of(patched), { 'a' => '10', 'c' => '3' })
end

applied_name = "applied-#{SecureRandom.hex(4)}"
check('server-side apply') do
  body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: applied_name, namespace: NS }, data: { x: '1' } }
  # A plain Hash: apply_entity sends resource.to_json, which a Kubeclient::Resource renders as its inspect string.
  applied = core.apply_config_map(body, field_manager: 'ruby-everyday')
  expect('data', data_of(applied), { 'x' => '1' })
  managers = applied.metadata.managedFields.map { |m| [m.manager, m.operation] }
  expect('managedFields', managers, [%w[ruby-everyday Apply]])
  core.delete_config_map(applied_name, NS)
end

check('strategic merge patch of a deployment (apps/v1)') do
  labels = { app: name }
  deployment = {
    metadata: { name: name, namespace: NS },
    spec: {
      replicas: 1, selector: { matchLabels: labels },
      template: { metadata: { labels: labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } }
    }
  }
  apps.create_deployment(Kubeclient::Resource.new(deployment))
  patch = { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } }
  patched = apps.patch_deployment(name, patch, NS)
  expect('containers', patched.spec.template.spec.containers.map(&:name).sort, %w[sidecar web])
  apps.delete_deployment(name, NS)
end

check('watch configmaps (legacy /api/v1/watch path)') do
  rv = core.get_config_maps(namespace: NS, label_selector: LABEL).resourceVersion
  watched = "watched-#{SecureRandom.hex(4)}"
  core.create_config_map(Kubeclient::Resource.new(metadata: { name: watched, namespace: NS, labels: { suite: 'ruby-everyday' } }))
  core.merge_patch_config_map(watched, { data: { k: 'v' } }, NS)
  core.delete_config_map(watched, NS)
  seen = []
  watcher = core.watch_config_maps(namespace: NS, label_selector: LABEL, resource_version: rv)
  Timeout.timeout(10) do
    watcher.each do |event|
      raise "watch error event: #{event.object.to_h}" if event.type == 'ERROR'
      seen << [event.type, event.object.metadata.name] if event.object.metadata.name == watched
      break if seen.size == 3
    end
  end
  watcher.finish
  expect('events', seen, [['ADDED', watched], ['MODIFIED', watched], ['DELETED', watched]])
end

check('delete configmap') do
  core.delete_config_map(name, NS)
  begin
    core.get_config_map(name, NS)
    raise 'still there after delete'
  rescue Kubeclient::ResourceNotFoundError
    nil
  end
end

puts "#{$passed} passed, #{$failed} failed"
exit($failed.zero? ? 0 : 1)
