package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

type Database struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	User     string `json:"user"`
	Password string `json:"password,omitempty"`
	PoolSize int    `json:"pool_size"`
}

type Feature struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
}

type Config struct {
	Service  string    `json:"service"`
	Version  string    `json:"version"`
	Debug    bool      `json:"debug"`
	Timeout  Duration  `json:"timeout"`
	DB       Database  `json:"database"`
	Features []Feature `json:"features"`
	Internal string    `json:"-"`
}

// Duration lets the config file say "1m30s" instead of nanoseconds.
type Duration struct{ time.Duration }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q: %w", s, err)
	}
	d.Duration = v
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

const raw = `{
  "service": "orders-api",
  "version": "2.4.1",
  "debug": true,
  "timeout": "1m30s",
  "database": {"host": "localhost", "port": 5432, "user": "orders", "password": "s3cr\"et", "pool_size": 8},
  "features": [
    {"name": "bulk-import", "enabled": true},
    {"name": "legacy-export", "enabled": false}
  ]
}`

func main() {
	var cfg Config
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		fmt.Fprintln(os.Stderr, "config error:", err)
		os.Exit(1)
	}
	fmt.Printf("service %s v%s (debug=%t)\n", cfg.Service, cfg.Version, cfg.Debug)
	fmt.Printf("timeout: %v (%.0f seconds)\n", cfg.Timeout.Duration, cfg.Timeout.Seconds())
	fmt.Printf("db: %s@%s:%d pool=%d password-length=%d\n",
		cfg.DB.User, cfg.DB.Host, cfg.DB.Port, cfg.DB.PoolSize, len(cfg.DB.Password))
	for _, f := range cfg.Features {
		state := "off"
		if f.Enabled {
			state = "on"
		}
		fmt.Printf("  feature %-14s %s\n", f.Name, state)
	}

	// Re-encode without the password for logging.
	safe := cfg
	safe.DB.Password = ""
	out, err := json.MarshalIndent(safe, "", "  ")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))

	// Bad input should be rejected with a helpful message.
	bad := `{"service": "x", "timeout": "ninety seconds"}`
	var c2 Config
	if err := json.Unmarshal([]byte(bad), &c2); err != nil {
		fmt.Println("rejected bad config:", err)
	}
}
