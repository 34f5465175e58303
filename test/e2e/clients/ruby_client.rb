# Debian's ruby-kubeclient against a Syncscope server, used as its users write it.
#
# Reads the kubeconfig given as the first argument and, in the namespace `default`: watches pods in a thread
# (watch_pods, which kubeclient 4 reads from the legacy /api/v1/watch/... path) while it creates pods from
# Kubeclient::Resource, lists and reads them, reads a container's log, follows it (watch_pod_log), reads a
# crashed container's previous log, deletes the pods; then prints one JSON object of what each call
# answered. A call that fails prints its error in place of the answer and the script goes on.
require 'json'
require 'kubeclient'

NS = 'default'
out = {}

def attempt(out, key)
  out[key] = yield
rescue StandardError => e
  out[key] = { 'error' => "#{e.class}: #{e.message}"[0, 500] }
end

def until_true(what, seconds = 60)
  deadline = Time.now + seconds
  while Time.now < deadline
    got = yield
    return got if got
    sleep 0.2
  end
  raise "timed out waiting for #{what}"
end

def pod(name, script)
  Kubeclient::Resource.new(
    metadata: { name: name, namespace: NS },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', script] }]
    }
  )
end

config = Kubeclient::Config.read(ARGV[0])
context = config.context
kube = Kubeclient::Client.new(
  "#{context.api_endpoint}/api", 'v1',
  ssl_options: context.ssl_options, auth_options: context.auth_options
)

seen = []
watcher = kube.watch_pods(namespace: NS)
thread = Thread.new do
  watcher.each do |notice|
    seen << [notice.type, notice.object.metadata.name]
    break if notice.type == 'DELETED' && notice.object.metadata.name == 'rb-churn'
  end
rescue StandardError => e
  seen << ['ERROR', e.message]
end
sleep 0.5

attempt(out, 'create') do
  [['rb-web', 'echo one; echo two; sleep 3600'], ['rb-crash', 'echo boom; exit 1'], ['rb-churn', 'sleep 3600']]
    .map { |name, script| kube.create_pod(pod(name, script)).metadata.name }
end
attempt(out, 'list') { kube.get_pods(namespace: NS).map { |p| p.metadata.name }.sort }
attempt(out, 'running') do
  until_true('rb-web running') { kube.get_pod('rb-web', NS).status.phase == 'Running' && 'Running' }
end
attempt(out, 'delete_churn') { kube.delete_pod('rb-churn', NS).metadata.name }
attempt(out, 'log') do
  until_true("rb-web's log") do
    text = kube.get_pod_log('rb-web', NS).to_s
    text.include?('two') && text
  end
end
attempt(out, 'follow') do
  lines = []
  kube.watch_pod_log('rb-web', NS).each do |line|
    lines << line
    break if line == 'two'
  end
  lines
end
attempt(out, 'previous') do
  until_true("rb-crash's previous log") do
    begin
      kube.get_pod_log('rb-crash', NS, previous: true).to_s
    rescue Kubeclient::HttpError
      nil
    end
  end
end
thread.join(60)
watcher.finish
out['watch'] = seen
attempt(out, 'delete') { %w[rb-web rb-crash].map { |n| kube.delete_pod(n, NS).metadata.name } }
puts JSON.generate(out)
