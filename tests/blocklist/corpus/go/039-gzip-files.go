package main

import (
	"bufio"
	"compress/gzip"
	"crypto/md5"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func writeLog(path string, lines int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	levels := []string{"INFO", "INFO", "INFO", "WARN", "DEBUG", "ERROR"}
	for i := 0; i < lines; i++ {
		fmt.Fprintf(w, "2024-01-01T00:%02d:%02dZ %-5s worker=%d msg=\"processed batch %d\"\n", i/60%60, i%60, levels[i%len(levels)], i%4, i)
	}
	return w.Flush()
}

func compress(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	zw, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	zw.Name = filepath.Base(src)
	zw.Comment = "rotated by logrotate-lite"
	n, err := io.Copy(zw, in)
	if err != nil {
		return n, err
	}
	return n, zw.Close()
}

func checksum(r io.Reader) string {
	h := md5.New()
	io.Copy(h, r)
	return fmt.Sprintf("%x", h.Sum(nil))
}

func main() {
	dir, err := os.MkdirTemp("", "logs-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	plain := filepath.Join(dir, "app.log")
	gz := plain + ".gz"
	if err := writeLog(plain, 5000); err != nil {
		panic(err)
	}
	n, err := compress(plain, gz)
	if err != nil {
		panic(err)
	}
	ps, _ := os.Stat(plain)
	gs, _ := os.Stat(gz)
	fmt.Printf("compressed %d bytes -> %d bytes (%.1f%%)\n", n, gs.Size(), 100*float64(gs.Size())/float64(ps.Size()))

	// Stream-decompress and count levels without loading everything.
	f, _ := os.Open(gz)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		panic(err)
	}
	fmt.Printf("header: name=%q comment=%q\n", zr.Name, zr.Comment)
	counts := map[string]int{}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		counts[fields[1]]++
	}
	fmt.Println("levels:", counts)

	// Verify integrity by comparing checksums.
	orig, _ := os.Open(plain)
	defer orig.Close()
	f2, _ := os.Open(gz)
	defer f2.Close()
	zr2, _ := gzip.NewReader(f2)
	a, b := checksum(orig), checksum(zr2)
	fmt.Println("checksums match:", a == b)
	os.Remove(plain)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fmt.Println("left in dir:", e.Name())
	}
}
