mkdir -p /tmp/cg
if mount -t cgroup -o memory cgroup /tmp/cg; then
  echo mounted
fi
