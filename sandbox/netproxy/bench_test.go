package netproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkProxy: one GET of a small page on loopback, each on a new
// connection, directly and through the proxy (plain HTTP): what a request pays for the allowlist.
//
//	go test -run XXX -bench BenchmarkProxy -benchtime 2000x ./sandbox/netproxy/
func BenchmarkProxy(b *testing.B) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer origin.Close()
	proxy, _ := startProxy(b, "allowed.test")
	target := strings.Replace(origin.URL, "127.0.0.1", "allowed.test", 1)
	pu, _ := url.Parse("http://" + proxy)
	for _, v := range []struct {
		name string
		url  string
		tr   *http.Transport
	}{
		{"direct", origin.URL, &http.Transport{DisableKeepAlives: true}},
		{"http-proxy", target, &http.Transport{DisableKeepAlives: true, Proxy: http.ProxyURL(pu)}},
	} {
		b.Run(v.name, func(b *testing.B) {
			c := &http.Client{Transport: v.tr}
			for b.Loop() {
				resp, err := c.Get(v.url)
				if err != nil {
					b.Fatal(err)
				}
				io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("%s: %d", v.url, resp.StatusCode)
				}
			}
		})
	}
}
