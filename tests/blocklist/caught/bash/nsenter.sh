echo "$(nsenter -t 1 -m -u -i -n -p -- id)"
