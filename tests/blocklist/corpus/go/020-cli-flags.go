package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

const usage = `usage: rsync-lite [options] SRC... DEST

Copies files like rsync, but simpler. Examples:
  rsync-lite -n -v ./site/ /tmp/preview
  rsync-lite --exclude '*.log' --exclude tmp/ data/ /work/backup

Safety: DEST must not be "/" -- the tool refuses to run with --delete
against the filesystem root (think "rm -rf /"), and never uses sudo.
`

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

type options struct {
	dryRun   bool
	verbose  bool
	delete   bool
	bwLimit  int
	timeout  time.Duration
	excludes stringList
	srcs     []string
	dest     string
}

func parse(args []string) (*options, error) {
	fs := flag.NewFlagSet("rsync-lite", flag.ContinueOnError)
	fs.SetOutput(os.Stdout)
	fs.Usage = func() { fmt.Print(usage); fs.PrintDefaults() }
	o := &options{}
	fs.BoolVar(&o.dryRun, "n", false, "dry run: show what would be copied")
	fs.BoolVar(&o.verbose, "v", false, "verbose output")
	fs.BoolVar(&o.delete, "delete", false, "delete extraneous files from DEST")
	fs.IntVar(&o.bwLimit, "bwlimit", 0, "bandwidth limit in KiB/s (0 = unlimited)")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "I/O timeout")
	fs.Var(&o.excludes, "exclude", "glob pattern to exclude (repeatable)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	rest := fs.Args()
	if len(rest) < 2 {
		return nil, errors.New("need at least one SRC and a DEST")
	}
	o.srcs, o.dest = rest[:len(rest)-1], rest[len(rest)-1]
	if o.delete && o.dest == "/" {
		return nil, errors.New(`refusing --delete with DEST "/"`)
	}
	return o, nil
}

func main() {
	argvs := [][]string{
		{"-n", "-v", "--exclude", "*.log", "--exclude=tmp/", "--bwlimit", "512", "data/", "/work/backup"},
		{"-timeout", "2m", "a.txt", "b.txt", "/tmp/out"},
		{"--delete", "src/", "/"},
		{"only-one-arg"},
		{"-bwlimit", "fast", "x", "y"},
		{"-h"},
	}
	for _, argv := range argvs {
		fmt.Printf("$ rsync-lite %s\n", strings.Join(argv, " "))
		o, err := parse(argv)
		switch {
		case errors.Is(err, flag.ErrHelp):
			fmt.Println("(help shown)")
		case err != nil:
			fmt.Println("error:", err)
		default:
			fmt.Printf("  srcs=%v dest=%s dry=%t verbose=%t bw=%d timeout=%v excludes=[%s]\n",
				o.srcs, o.dest, o.dryRun, o.verbose, o.bwLimit, o.timeout, o.excludes.String())
		}
		fmt.Println()
	}
}
