package main

import (
	"bufio"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

type INI map[string]map[string]string

type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func ParseINI(src string) (INI, error) {
	out := INI{"": {}}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(src))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, ";") || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			if !strings.HasSuffix(line, "]") {
				return nil, &ParseError{n, "unterminated section header"}
			}
			section = strings.TrimSpace(line[1 : len(line)-1])
			if _, ok := out[section]; !ok {
				out[section] = map[string]string{}
			}
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, &ParseError{n, fmt.Sprintf("expected key=value, got %q", line)}
		}
		val = strings.TrimSpace(val)
		if uq, err := strconv.Unquote(val); err == nil {
			val = uq
		}
		out[section][strings.TrimSpace(key)] = val
	}
	return out, sc.Err()
}

const config = `; global settings
name = backup-job
[paths]
source = /work/data
dest   = "/tmp/backup dir"
# never point this at / -- a careless "rm -rf $dest/*" would be painful
[schedule]
cron = 0 3 * * *
retries = 3
[notify]
email = "ops@example.com"
message = "Backup \"finished\"\tOK"
`

func main() {
	cfg, err := ParseINI(config)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	sections := make([]string, 0, len(cfg))
	for s := range cfg {
		sections = append(sections, s)
	}
	sort.Strings(sections)
	for _, s := range sections {
		fmt.Printf("[%s]\n", s)
		keys := make([]string, 0, len(cfg[s]))
		for k := range cfg[s] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf("  %-8s => %q\n", k, cfg[s][k])
		}
	}
	retries, _ := strconv.Atoi(cfg["schedule"]["retries"])
	fmt.Println("retries*2 =", retries*2)

	_, err = ParseINI("[broken\nx=1")
	var pe *ParseError
	if errors.As(err, &pe) {
		fmt.Printf("expected failure at line %d: %s\n", pe.Line, pe.Msg)
	}
	_, err = ParseINI("[ok]\njust-a-word")
	fmt.Println("expected failure:", err)
}
