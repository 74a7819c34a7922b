package github

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"

	gh "github.com/google/go-github/v75/github"

	"github.com/quiverkit/quiver/tool"
)

// RawThreshold is the size from which a blob is read with the raw media
// type: base64 in JSON would carry a third more, and GitHub's contents API
// stops inlining files there.
const RawThreshold = 1 << 20

// Blob returns the content of the blob sha, whose size the tree gave:
// from the cache, or with one request (raw when size is over
// RawThreshold). The content is checked against sha, as git would.
func (c *Client) Blob(ctx context.Context, sha string, size int64) ([]byte, error) {
	if b, ok := c.blobs.get(sha); ok {
		return b, nil
	}
	v, err, _ := c.flight.Do("blob:"+sha, func() (any, error) {
		var data []byte
		var err error
		if size > RawThreshold {
			data, err = c.rawBlob(ctx, sha)
		} else {
			data, err = c.jsonBlob(ctx, sha)
		}
		if err != nil {
			return nil, err
		}
		if got := gitBlobSHA(data); got != sha {
			return nil, tool.Errorf(tool.CodeExecutionFailed, "GitHub's answer for the blob %s hashes to %s: it was cut or changed on the way", sha, got)
		}
		c.blobs.put(sha, data)
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// HasBlob reports whether the blob sha is cached: reading it costs no
// request.
func (c *Client) HasBlob(sha string) bool {
	_, ok := c.blobs.get(sha)
	return ok
}

func (c *Client) jsonBlob(ctx context.Context, sha string) ([]byte, error) {
	var blob *gh.Blob
	err := c.call(ctx, "core", "the blob "+sha, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		blob, resp, err = c.gh.Git.GetBlob(ctx, c.owner, c.name, sha)
		return resp, err
	})
	if err != nil {
		return nil, err
	}
	if blob.GetEncoding() != "base64" {
		return []byte(blob.GetContent()), nil
	}
	data, err := base64.StdEncoding.DecodeString(blob.GetContent())
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "GitHub's base64 for the blob %s: %w", sha, err)
	}
	return data, nil
}

// rawBlob asks for application/vnd.github.raw, the media type GitHub's
// description documents (go-github's GetBlobRaw sends the older v3 name).
func (c *Client) rawBlob(ctx context.Context, sha string) ([]byte, error) {
	var buf bytes.Buffer
	err := c.call(ctx, "core", "the blob "+sha, func() (*gh.Response, error) {
		buf.Reset()
		req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/git/blobs/%s", c.owner, c.name, sha), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/vnd.github.raw")
		return c.gh.Do(ctx, req, &buf)
	})
	return buf.Bytes(), err
}

func gitBlobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// lru keeps blobs up to a number of bytes, the least recently used out
// first. A blob larger than the whole budget is not kept.
type lru struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // of *lruItem, most recent at the front
	items map[string]*list.Element
}

type lruItem struct {
	sha  string
	data []byte
}

func newLRU(max int64) *lru {
	return &lru{max: max, order: list.New(), items: map[string]*list.Element{}}
}

func (l *lru) get(sha string) ([]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.items[sha]
	if !ok {
		return nil, false
	}
	l.order.MoveToFront(el)
	return el.Value.(*lruItem).data, true
}

func (l *lru) put(sha string, data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.items[sha]; ok || int64(len(data)) > l.max {
		return
	}
	l.items[sha] = l.order.PushFront(&lruItem{sha, data})
	l.size += int64(len(data))
	for l.size > l.max {
		old := l.order.Back()
		it := old.Value.(*lruItem)
		l.order.Remove(old)
		delete(l.items, it.sha)
		l.size -= int64(len(it.data))
	}
}
