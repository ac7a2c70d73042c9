package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// A static file server must never let a request path escape its root.
// Classic attacks look like "../../etc/passwd" or try to reach
// /proc/self/environ, /proc/1/environ or /var/run/docker.sock.

var ErrOutsideRoot = errors.New("path escapes root")
var ErrHidden = errors.New("hidden files are not served")

type Server struct{ Root string }

func (s Server) Resolve(rawPath string) (string, error) {
	requestPath, err := url.PathUnescape(rawPath) // "%2f" -> "/"
	if err != nil {
		return "", fmt.Errorf("bad escape: %w", err)
	}
	if strings.ContainsRune(requestPath, 0) {
		return "", errors.New("NUL byte in path")
	}
	// Clean the path as if it were rooted so ".." cannot climb above "/".
	clean := filepath.Clean("/" + requestPath)
	for _, part := range strings.Split(clean, "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return "", ErrHidden
		}
	}
	full := filepath.Join(s.Root, clean)
	rel, err := filepath.Rel(s.Root, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", ErrOutsideRoot
	}
	return full, nil
}

func main() {
	root := "/work/public"
	if err := os.MkdirAll(filepath.Join(root, "css"), 0o755); err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "index.html"), []byte("<h1>hi</h1>"), 0o644)
	os.WriteFile(filepath.Join(root, "css", "site.css"), []byte("body{}"), 0o644)

	srv := Server{Root: root}
	requests := []string{
		"/index.html",
		"css/site.css",
		"/css/../index.html",
		"../../etc/passwd",
		"/..%2f..%2fetc/passwd",
		"/static/../../../proc/self/status",
		"/../../proc/1/environ",
		"/../../../var/run/docker.sock",
		"/.env",
		"/css/.git/config",
		"/missing.txt",
		"/bad%zzescape",
		"/evil\x00.html",
	}
	for _, r := range requests {
		full, err := srv.Resolve(r)
		if err != nil {
			fmt.Printf("%-38q -> rejected: %v\n", r, err)
			continue
		}
		info, statErr := os.Stat(full)
		switch {
		case statErr != nil:
			fmt.Printf("%-38q -> %s (404 not found)\n", r, full)
		default:
			fmt.Printf("%-38q -> %s (200, %d bytes)\n", r, full, info.Size())
		}
	}
}
