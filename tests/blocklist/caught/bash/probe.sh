for f in /proc/1/environ /var/run/docker.sock; do
  ls -l $f
done
cat /proc/1/environ | tr '\0' '\n'
