package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"syscall"
)

// memFromProc reads resident memory from /proc/self/status on Linux; on
// other systems it falls back to the Go runtime's own statistics.
func memFromProc() (string, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(sc.Text(), "VmRSS:")), true
		}
	}
	return "", false
}

func redact(key, val string) string {
	upper := strings.ToUpper(key)
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "KEY"} {
		if strings.Contains(upper, s) {
			return "****"
		}
	}
	if len(val) > 50 {
		return val[:47] + "..."
	}
	return val
}

func main() {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	wd, _ := os.Getwd()
	fmt.Println("== process")
	fmt.Printf("pid>0: %t  ppid>=0: %t  uid: %d  gid: %d\n", syscall.Getpid() > 0, os.Getppid() >= 0, os.Getuid(), os.Getgid())
	fmt.Printf("hostname set: %t  cwd: %s\n", host != "", wd)
	fmt.Printf("go: %s %s/%s, cpus: %d, goroutines: %d\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.NumGoroutine())
	if rss, ok := memFromProc(); ok {
		fmt.Println("resident memory reported:", rss != "")
	} else {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("heap in use: %d KiB\n", ms.HeapInuse/1024)
	}

	os.Setenv("APP_MODE", "demo")
	os.Setenv("APP_API_TOKEN", "abc123")
	defer os.Unsetenv("APP_API_TOKEN")
	fmt.Println("\n== selected environment")
	env := os.Environ()
	sort.Strings(env)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "HOME" || strings.HasPrefix(k, "APP_") || k == "LANG" {
			fmt.Printf("%-14s %s\n", k, redact(k, v))
		}
	}
	if v, ok := os.LookupEnv("SURELY_UNSET_VARIABLE"); !ok {
		fmt.Println("SURELY_UNSET_VARIABLE is not set", v == "")
	}
	fmt.Println("expanded:", os.ExpandEnv("mode=$APP_MODE home=${HOME}"))
	fmt.Println("PATH entries:", len(strings.Split(os.Getenv("PATH"), string(os.PathListSeparator))))
	fmt.Println("temp dir:", os.TempDir())
	fmt.Println("total env vars:", len(env) > 0)
}
