package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Profile mirrors the shape of a container runtime's seccomp JSON file.
type Profile struct {
	DefaultAction string    `json:"defaultAction"`
	Architectures []string  `json:"architectures,omitempty"`
	Syscalls      []Syscall `json:"syscalls"`
}

type Syscall struct {
	Names  []string `json:"names"`
	Action string   `json:"action"`
	Errno  *int     `json:"errnoRet,omitempty"`
	Note   string   `json:"comment,omitempty"`
}

const profileJSON = `{
  "defaultAction": "SCMP_ACT_ALLOW",
  "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"],
  "syscalls": [
    {"names": ["ptrace", "process_vm_readv", "process_vm_writev"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
     "comment": "no debugging or reading other processes' memory"},
    {"names": ["mount", "umount2", "pivot_root"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
     "comment": "filesystem layout is fixed"},
    {"names": ["unshare", "setns", "clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38,
     "comment": "no new namespaces"},
    {"names": ["kexec_load", "reboot", "init_module", "finit_module", "delete_module"], "action": "SCMP_ACT_KILL"},
    {"names": ["keyctl", "add_key", "request_key"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}
  ]
}`

func main() {
	var p Profile
	if err := json.Unmarshal([]byte(profileJSON), &p); err != nil {
		panic(err)
	}
	fmt.Printf("default action: %s, arches: %s\n", p.DefaultAction, strings.Join(p.Architectures, ", "))

	actionOf := map[string]string{}
	byAction := map[string][]string{}
	for _, rule := range p.Syscalls {
		for _, n := range rule.Names {
			if prev, dup := actionOf[n]; dup {
				fmt.Printf("warning: %s listed twice (%s, %s)\n", n, prev, rule.Action)
			}
			actionOf[n] = rule.Action
			byAction[rule.Action] = append(byAction[rule.Action], n)
		}
		errno := "-"
		if rule.Errno != nil {
			errno = fmt.Sprint(*rule.Errno)
		}
		fmt.Printf("%-15s errno=%-3s %d syscalls  %s\n", rule.Action, errno, len(rule.Names), rule.Note)
	}

	actions := make([]string, 0, len(byAction))
	for a := range byAction {
		actions = append(actions, a)
	}
	sort.Strings(actions)
	for _, a := range actions {
		sort.Strings(byAction[a])
		fmt.Printf("\n%s:\n  %s\n", a, strings.Join(byAction[a], " "))
	}

	fmt.Println("\nlookups:")
	for _, name := range []string{"read", "ptrace", "unshare", "openat", "reboot"} {
		action, ok := actionOf[name]
		if !ok {
			action = p.DefaultAction + " (default)"
		}
		fmt.Printf("  %-8s -> %s\n", name, action)
	}

	// Add a rule and write the profile back out.
	one := 1
	p.Syscalls = append(p.Syscalls, Syscall{Names: []string{"userfaultfd"}, Action: "SCMP_ACT_ERRNO", Errno: &one})
	out, _ := json.MarshalIndent(p.Syscalls[len(p.Syscalls)-1], "", "  ")
	fmt.Println("\nnew rule:\n" + string(out))
}
