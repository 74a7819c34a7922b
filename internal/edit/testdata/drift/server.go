package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// Config holds what the server needs at start.
type Config struct {
	Addr         string        // where to listen
	ReadTimeout  time.Duration // for the request headers and body
	WriteTimeout time.Duration // for the response
	MaxBodyBytes int64         // larger bodies are refused
}

// Server answers the API's requests.
type Server struct {
	cfg   Config
	store Store
	log   Logger
}

// ErrNotFound is returned by a Store that has no such item.
var ErrNotFound = errors.New("not found")

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "" {
		http.Error(w, "missing id", http.StatusBadRequest)
		return
	}
	item, err := s.store.Get(r.Context(), id)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			http.Error(w, "no such item", http.StatusNotFound)
			return
		}
		s.log.Error("get failed", "id", id, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(item); err != nil {
		s.log.Error("encode failed", "id", id, "err", err)
	}
}

func (s *Server) handlePut(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	var item Item
	if err := json.NewDecoder(r.Body).Decode(&item); err != nil {
		http.Error(w, "bad body: "+err.Error(), http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	for attempt := 1; ; attempt++ {
		err := s.store.Put(ctx, item)
		if err == nil {
			break
		}
		if attempt == 3 || ctx.Err() != nil {
			s.log.Error("put failed", "attempts", attempt, "err", err)
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
