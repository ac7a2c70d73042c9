package main

import (
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func main() {
	root := filepath.Join("/work", "walkdemo")
	must(os.RemoveAll(root)) // start clean; only ever our own demo directory
	files := map[string]string{
		"README.md":             "# demo\n",
		"src/main.go":           "package main\n\nfunc main() {}\n",
		"src/util/strings.go":   "package util\n",
		"src/util/strings_test": "package util\n",
		"docs/guide.txt":        "line one\nline two\nline three\n",
		"docs/img/logo.svg":     "<svg/>",
		".hidden/secret.txt":    "not really secret",
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		must(os.WriteFile(p, []byte(content), 0o644))
	}

	var listing []string
	sizeByExt := map[string]int64{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			listing = append(listing, rel+"/")
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		ext := filepath.Ext(path)
		if ext == "" {
			ext = "(none)"
		}
		sizeByExt[ext] += info.Size()
		listing = append(listing, fmt.Sprintf("%s (%d bytes, %v)", rel, info.Size(), info.Mode()))
		return nil
	})
	must(err)
	for _, l := range listing {
		fmt.Println(l)
	}
	exts := make([]string, 0, len(sizeByExt))
	for e := range sizeByExt {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	for _, e := range exts {
		fmt.Printf("  %-7s %4d bytes\n", e, sizeByExt[e])
	}

	// Rename, read back, delete.
	oldP := filepath.Join(root, "docs", "guide.txt")
	newP := filepath.Join(root, "docs", "GUIDE.md")
	must(os.Rename(oldP, newP))
	data, err := os.ReadFile(newP)
	must(err)
	fmt.Printf("renamed guide has %d lines\n", strings.Count(string(data), "\n"))
	if _, err := os.Stat(oldP); os.IsNotExist(err) {
		fmt.Println("old path is gone as expected")
	}
	matches, _ := filepath.Glob(filepath.Join(root, "src", "*", "*.go"))
	fmt.Println("glob:", len(matches), "match(es)")
	must(os.RemoveAll(filepath.Join(root, "docs")))
	entries, err := os.ReadDir(root)
	must(err)
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	fmt.Println("remaining top-level:", names)
	must(os.RemoveAll(root))
}
