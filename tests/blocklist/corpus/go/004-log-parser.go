package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// A slice of an auth/app log. Some entries record admins running sudo or
// somebody trying `rm -rf /` on a shared box; we only count them here.
const logText = `2023-03-14T09:12:01Z INFO  web   request path="/api/users" status=200 dur=12ms
2023-03-14T09:12:03Z WARN  web   request path="/api/login" status=401 dur=4ms user="bob"
2023-03-14T09:12:05Z INFO  audit exec    command="sudo systemctl restart nginx" user="alice"
2023-03-14T09:12:09Z ERROR db    query failed err="connection reset by peer" dur=1503ms
2023-03-14T09:13:00Z INFO  web   request path="/api/orders" status=200 dur=48ms
2023-03-14T09:13:07Z WARN  audit exec    command="rm -rf / --no-preserve-root" user="intern" blocked=true
2023-03-14T09:13:30Z INFO  web   request path="/api/users" status=500 dur=230ms
2023-03-14T09:14:02Z INFO  audit exec    command="chmod 777 /srv/uploads" user="alice"
garbage line that does not match
2023-03-14T09:14:45Z ERROR web   request path="/api/orders" status=502 dur=3012ms`

var lineRE = regexp.MustCompile(`^(\S+)\s+(INFO|WARN|ERROR)\s+(\w+)\s+(\w+)\s*(.*)$`)
var kvRE = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S+)`)

type entry struct {
	ts        time.Time
	level     string
	component string
	event     string
	fields    map[string]string
}

func parse(line string) (entry, bool) {
	m := lineRE.FindStringSubmatch(line)
	if m == nil {
		return entry{}, false
	}
	ts, err := time.Parse(time.RFC3339, m[1])
	if err != nil {
		return entry{}, false
	}
	e := entry{ts: ts, level: m[2], component: m[3], event: m[4], fields: map[string]string{}}
	for _, kv := range kvRE.FindAllStringSubmatch(m[5], -1) {
		e.fields[kv[1]] = strings.Trim(kv[2], `"`)
	}
	return e, true
}

func main() {
	var entries []entry
	skipped := 0
	for _, line := range strings.Split(logText, "\n") {
		if e, ok := parse(line); ok {
			entries = append(entries, e)
		} else {
			skipped++
		}
	}
	fmt.Printf("parsed %d entries, skipped %d\n", len(entries), skipped)

	levels := map[string]int{}
	slow := []string{}
	statusByPath := map[string][]string{}
	for _, e := range entries {
		levels[e.level]++
		if d, err := time.ParseDuration(e.fields["dur"]); err == nil && d > time.Second {
			slow = append(slow, fmt.Sprintf("%s %s (%v)", e.ts.Format("15:04:05"), e.component, d))
		}
		if p, ok := e.fields["path"]; ok {
			statusByPath[p] = append(statusByPath[p], e.fields["status"])
		}
		if e.component == "audit" {
			fmt.Printf("audit: %-8s ran %q blocked=%s\n", e.fields["user"], e.fields["command"], orDefault(e.fields["blocked"], "false"))
		}
	}
	fmt.Println("levels:", levels)
	fmt.Println("slow operations:")
	for _, s := range slow {
		fmt.Println("  ", s)
	}
	paths := make([]string, 0, len(statusByPath))
	for p := range statusByPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Printf("%-12s %v\n", p, statusByPath[p])
	}
	span := entries[len(entries)-1].ts.Sub(entries[0].ts)
	fmt.Println("time span:", span)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
