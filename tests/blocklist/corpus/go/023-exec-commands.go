package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	dir := filepath.Join(os.TempDir(), "execdemo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"b.txt", "a.txt", "notes.md"} {
		os.WriteFile(filepath.Join(dir, name), []byte(name+"\n"), 0o644)
	}

	// 1. Plain command with captured output.
	out, err := exec.Command("ls", "-1", dir).Output()
	if err != nil {
		panic(err)
	}
	fmt.Printf("ls found %d entries: %s\n", len(strings.Fields(string(out))), strings.Join(strings.Fields(string(out)), ", "))

	// 2. Feeding stdin and setting the working directory and environment.
	cmd := exec.Command("sort", "-r")
	cmd.Stdin = strings.NewReader("pear\napple\nfig\n")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		panic(err)
	}
	fmt.Printf("sort -r: %q\n", stdout.String())

	// 3. A shell pipeline, when a pipe really is the simplest thing.
	sh := exec.Command("sh", "-c", "cat *.txt | wc -l")
	sh.Dir = dir
	out, _ = sh.Output()
	fmt.Println("lines in txt files:", strings.TrimSpace(string(out)))

	// 4. Non-zero exit status is an *exec.ExitError.
	err = exec.Command("sh", "-c", "echo oops >&2; exit 3").Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		fmt.Println("exit code:", exitErr.ExitCode())
	}

	// 5. Missing binary.
	if _, err := exec.LookPath("definitely-not-installed"); err != nil {
		fmt.Println("lookpath:", errors.Is(err, exec.ErrNotFound))
	}

	// 6. Timeout via context kills the child.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = exec.CommandContext(ctx, "sleep", "5").Run()
	fmt.Printf("sleep killed after ~%dms: %v\n", time.Since(start).Milliseconds()/100*100, err != nil)

	// 7. Streaming output line by line.
	echo := exec.Command("echo", "one two three")
	pipe, _ := echo.StdoutPipe()
	echo.Start()
	buf := new(bytes.Buffer)
	buf.ReadFrom(pipe)
	echo.Wait()
	fmt.Println("echo words:", len(strings.Fields(buf.String())))
}
