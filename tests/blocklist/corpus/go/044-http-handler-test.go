package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

type Todo struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Done  bool   `json:"done"`
}

type API struct {
	mu    sync.Mutex
	todos []Todo
	next  int
}

func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.Method {
	case http.MethodGet:
		a.mu.Lock()
		defer a.mu.Unlock()
		json.NewEncoder(w).Encode(a.todos)
	case http.MethodPost:
		var t Todo
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if err := json.Unmarshal(body, &t); err != nil || strings.TrimSpace(t.Title) == "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":%q}`, "title is required")
			return
		}
		a.mu.Lock()
		a.next++
		t.ID = a.next
		a.todos = append(a.todos, t)
		a.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(t)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, `{"error":"method not allowed"}`, http.StatusMethodNotAllowed)
	}
}

func logging(next http.Handler, log *[]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		*log = append(*log, fmt.Sprintf("%s %s -> %d", r.Method, r.URL.Path, rec.Code))
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

func main() {
	var accessLog []string
	mux := http.NewServeMux()
	mux.Handle("/todos", &API{})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	h := logging(mux, &accessLog)

	// Requests are served in-process through a ResponseRecorder; no sockets.
	do := func(method, path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "http://example.com"+path, strings.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	do("POST", "/todos", `{"title":"write tests"}`)
	do("POST", "/todos", `{"title":"ship \"v2\"","done":true}`)
	bad := do("POST", "/todos", `{"title":"   "}`)
	fmt.Println("bad request:", bad.Code, strings.TrimSpace(bad.Body.String()))
	del := do("DELETE", "/todos", "")
	fmt.Println("delete:", del.Code, "Allow:", del.Header().Get("Allow"))
	fmt.Println("health:", do("GET", "/healthz", "").Body.String())
	fmt.Println("missing:", do("GET", "/nope", "").Code)

	list := do("GET", "/todos", "")
	var todos []Todo
	if err := json.Unmarshal(list.Body.Bytes(), &todos); err != nil {
		panic(err)
	}
	for _, t := range todos {
		fmt.Printf("  #%d %-14q done=%t\n", t.ID, t.Title, t.Done)
	}
	fmt.Println("access log:")
	for _, l := range accessLog {
		fmt.Println("  ", l)
	}
}
