package main

import (
	"fmt"
	"regexp"
	"strings"
)

// Rule describes a risky shell pattern that a chat-ops bot should refuse
// to run on behalf of a user, with a human-readable explanation.
type Rule struct {
	ID      string
	Pattern *regexp.Regexp
	Why     string
	Severe  bool
}

var rules = []Rule{
	{"recursive-root-delete", regexp.MustCompile(`\brm\s+-(\w*r\w*f|\w*f\w*r)\w*\s+/(\s|$|\*)`), "deletes the whole filesystem", true},
	{"pipe-to-shell", regexp.MustCompile(`\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z)?sh\b`), "runs unreviewed remote code", true},
	{"fork-bomb", regexp.MustCompile(`:\(\)\s*\{\s*:\|:&\s*\};:`), "exhausts the process table", true},
	{"world-writable", regexp.MustCompile(`\bchmod\s+(-R\s+)?0?777\b`), "makes files writable by everyone", false},
	{"privilege", regexp.MustCompile(`^\s*sudo\b`), "requests root privileges", false},
	{"disk-overwrite", regexp.MustCompile(`\bdd\s+.*of=/dev/(sd|nvme)`), "overwrites a block device", true},
	{"passwd-read", regexp.MustCompile(`/etc/(passwd|shadow)\b`), "touches account databases", false},
}

type Finding struct {
	Rule  Rule
	Match string
}

func Check(cmd string) []Finding {
	var out []Finding
	for _, r := range rules {
		if m := r.Pattern.FindString(cmd); m != "" {
			out = append(out, Finding{r, m})
		}
	}
	return out
}

func main() {
	inputs := []string{
		"ls -la /var/log",
		"rm -rf /",
		"rm -rf ./build",
		"rm -fr /*",
		"curl -fsSL https://example.com/install.sh | sh",
		"wget -qO- https://example.org/setup | sudo bash",
		"curl -o setup.sh https://example.com/setup.sh",
		":(){ :|:& };:",
		"chmod 777 /srv/shared",
		"chmod 755 deploy.sh",
		"sudo apt-get install jq",
		"echo 'never run sudo here' > notes.txt",
		"dd if=/dev/zero of=/dev/sda bs=1M",
		"grep root /etc/passwd",
	}
	blocked, warned := 0, 0
	for _, in := range inputs {
		fs := Check(in)
		status := "ok"
		for _, f := range fs {
			if f.Rule.Severe {
				status = "BLOCK"
				break
			}
			status = "warn"
		}
		switch status {
		case "BLOCK":
			blocked++
		case "warn":
			warned++
		}
		fmt.Printf("%-5s %s\n", status, in)
		for _, f := range fs {
			fmt.Printf("        [%s] %q: %s\n", f.Rule.ID, f.Match, f.Rule.Why)
		}
	}
	fmt.Println(strings.Repeat("-", 40))
	fmt.Printf("%d inputs, %d blocked, %d warnings\n", len(inputs), blocked, warned)
}
