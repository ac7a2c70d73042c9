package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type file struct {
	Name string
	Body string
	Mode int64
}

func main() {
	project := []file{
		{"project/README.md", "# Demo\nRun ./build.sh to build.\n", 0o644},
		{"project/build.sh", "#!/bin/sh\nset -eu\ngo build -o bin/app ./cmd/app\n", 0o755},
		{"project/cmd/app/main.go", "package main\n\nfunc main() { println(\"hi\") }\n", 0o644},
		{"project/.gitignore", "bin/\n*.log\n", 0o644},
	}

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mtime := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, f := range project {
		hdr := &tar.Header{Name: f.Name, Mode: f.Mode, Size: int64(len(f.Body)), ModTime: mtime}
		if err := tw.WriteHeader(hdr); err != nil {
			panic(err)
		}
		if _, err := tw.Write([]byte(f.Body)); err != nil {
			panic(err)
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	archivePath := filepath.Join(os.TempDir(), "project.tar")
	if err := os.WriteFile(archivePath, buf.Bytes(), 0o644); err != nil {
		panic(err)
	}
	defer os.Remove(archivePath)
	fmt.Printf("wrote %s (%d bytes)\n", archivePath, buf.Len())

	// Extract into a scratch directory, refusing entries that would escape it.
	dest, _ := os.MkdirTemp("", "extract-")
	defer os.RemoveAll(dest)
	f, _ := os.Open(archivePath)
	defer f.Close()
	tr := tar.NewReader(f)
	var names []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		target := filepath.Join(dest, hdr.Name)
		if !strings.HasPrefix(target, filepath.Clean(dest)+string(os.PathSeparator)) {
			fmt.Println("skipping unsafe entry", hdr.Name)
			continue
		}
		os.MkdirAll(filepath.Dir(target), 0o755)
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(hdr.Mode))
		if err != nil {
			panic(err)
		}
		n, _ := io.Copy(out, tr)
		out.Close()
		names = append(names, fmt.Sprintf("%s %4d %s %s", os.FileMode(hdr.Mode), n, hdr.ModTime.Format("2006-01-02"), hdr.Name))
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Println(n)
	}
	script, _ := os.Stat(filepath.Join(dest, "project/build.sh"))
	fmt.Println("build.sh executable:", script.Mode()&0o111 != 0)
	data, _ := os.ReadFile(filepath.Join(dest, "project/README.md"))
	fmt.Printf("README first line: %q\n", strings.SplitN(string(data), "\n", 2)[0])
}
