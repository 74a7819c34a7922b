package github

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"

	gh "github.com/google/go-github/v75/github"
)

// etagCache keeps the last answer to each conditional request on disk,
// with its ETag, so that every process of the user asks GitHub "has this
// changed?" and gets a 304 that costs no rate limit. Files are the user's
// own (0600 in a 0700 directory) and named by a hash of the API's URL, the
// token and the request: the token is never written, and one token's
// answers are not another's.
type etagCache struct {
	dir   string
	scope string
}

type etagEntry struct {
	ETag string `json:"etag"`
	Body []byte `json:"body"`
}

func scopeOf(base, token string) string {
	sum := sha256.Sum256([]byte(base + "\x00" + token))
	return hex.EncodeToString(sum[:])
}

func (e *etagCache) file(key string) string {
	sum := sha256.Sum256([]byte(e.scope + "\x00" + key))
	return filepath.Join(e.dir, hex.EncodeToString(sum[:16])+".json")
}

func (e *etagCache) load(key string) (etagEntry, bool) {
	var ent etagEntry
	if e == nil {
		return ent, false
	}
	b, err := os.ReadFile(e.file(key))
	if err != nil || json.Unmarshal(b, &ent) != nil || ent.ETag == "" {
		return etagEntry{}, false
	}
	return ent, true
}

// store writes ent for key by rename, so that a reader sees the old entry
// or the new one. A cache that cannot be written costs requests, not
// correctness: its errors are dropped.
func (e *etagCache) store(key string, ent etagEntry) {
	if e == nil {
		return
	}
	b, err := json.Marshal(ent)
	if err != nil || os.MkdirAll(e.dir, 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(e.dir, ".etag-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), e.file(key)) != nil {
		os.Remove(tmp.Name())
	}
}

// getConditional GETs path (relative to the API's URL) with accept, sending
// the ETag of the answer kept for it, and returns the body: the new one, or
// the kept one on a 304.
func (c *Client) getConditional(ctx context.Context, resource, what, path, accept string) ([]byte, error) {
	var body []byte
	err := c.call(ctx, resource, what, func() (*gh.Response, error) {
		req, err := c.gh.NewRequest(http.MethodGet, path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", accept)
		key := req.URL.String() + "\x00" + accept
		kept, hit := c.etags.load(key)
		if hit {
			req.Header.Set("If-None-Match", kept.ETag)
		}
		var buf bytes.Buffer
		resp, err := c.gh.Do(ctx, req, &buf)
		if hit && resp != nil && resp.StatusCode == http.StatusNotModified {
			body = kept.Body
			return resp, nil
		}
		if err != nil {
			return resp, err
		}
		body = buf.Bytes()
		if etag := resp.Header.Get("ETag"); etag != "" {
			c.etags.store(key, etagEntry{ETag: etag, Body: body})
		}
		return resp, nil
	})
	return body, err
}
