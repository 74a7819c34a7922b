//go:build unix

package shell

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/sandbox/netproxy"
)

// TestDroppedJobsRecordTheirUnreadHosts: each way the registry drops a job
// — forgetting a finished one beyond MaxKept, its session's end, Close —
// records the hosts its tally holds that no read took, in a record of the
// job's own; a job whose hosts a read took, or that asked for none, gets
// no record.
func TestDroppedJobsRecordTheirUnreadHosts(t *testing.T) {
	e := newRunEnv(t, "true")
	contact := netproxy.Contact{Host: "unread.test", Port: "443", Method: "CONNECT", Allowed: true}
	hosts := []audit.Host{{Host: "unread.test", Port: "443", Method: "CONNECT", Allowed: true, Count: 1}}
	for _, tc := range []struct {
		name string
		drop func(js *Jobs) error
	}{
		{"forgotten", func(js *Jobs) error {
			j, err := js.Start(context.Background(), "s", e.spec("true"), 0)
			if err == nil {
				_, err = j.Wait(context.Background(), hangGuard, defaultSplit)
			}
			return err
		}},
		{"session ended", func(js *Jobs) error { return js.CloseSession("s") }},
		{"closed", func(js *Jobs) error { return js.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := &audit.Memory{}
			js := NewJobs()
			defer js.Close()
			js.SetAudit(sink)
			start := func() *Job {
				j, err := js.Start(context.Background(), "s", e.spec("true"), 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := j.Wait(context.Background(), hangGuard, defaultSplit); err != nil {
					t.Fatal(err)
				}
				return j
			}
			js.MaxKept = 3 // kept until tc.drop
			read, unread := start(), start()
			start() // asks for no host
			js.MaxKept = 0
			read.contacts.Record(contact)
			if s, _ := read.Read(defaultSplit); len(s.Contacts) != 1 {
				t.Fatalf("the read took %+v", s.Contacts)
			}
			unread.contacts.Record(contact)
			if err := tc.drop(js); err != nil {
				t.Fatal(err)
			}
			want := []audit.Record{{Job: unread.ID, Outcome: "closed", Hosts: hosts}}
			if diff := cmp.Diff(want, sink.Records(), cmpopts.IgnoreFields(audit.Record{}, "Time")); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}
